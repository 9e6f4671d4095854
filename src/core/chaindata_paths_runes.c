
/*
 * chaindata: chaindata_runes' path parameters (see the header).
 */


#include <stdio.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_digest.h"
#include "chaindata_hex.h"
#include "chaindata_paths_runes.h"


/* U+2022 BULLET, the spacer of spaced names */
#define CHAINDATA_SPACER      "\xe2\x80\xa2"
#define CHAINDATA_SPACER_LEN  3

/* PostgreSQL's bigint: a number past it is upstream's 500 */
#define CHAINDATA_BIGINT_MAX  9223372036854775807ULL

/* a lowercase hash of a block: eight zeros, then 56 hex digits */
#define CHAINDATA_BLOCK_ZEROS  8


static int
chaindata_all_digits(const unsigned char *s, size_t len)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
    }

    return len > 0;
}


static int
chaindata_is_letter(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}


/* "^[0-9]+$" as a number: leading zeros allowed, a bigint at most */

static void
chaindata_etching_number(chaindata_etching_t *e, const unsigned char *s,
    size_t len)
{
    size_t  i;

    while (len > 1 && s[0] == '0') {
        s++;
        len--;
    }

    e->number = 0;

    for (i = 0; i < len; i++) {
        if (len > 19 || e->number > (CHAINDATA_BIGINT_MAX - (s[i] - '0')) / 10)
        {
            e->form = CHAINDATA_ETCHING_TOO_BIG;
            return;
        }

        e->number = e->number * 10 + (s[i] - '0');
    }

    e->form = CHAINDATA_ETCHING_NUMBER;
}


/*
 * "^[A-Za-z]+(•[A-Za-z]+)+$": the letters without the spacers are the
 * name looked up (lowercase ones make it no rune's)
 */

static int
chaindata_etching_spaced(chaindata_etching_t *e, const unsigned char *s,
    size_t len)
{
    size_t  i, run, spacers;
    int     lower;

    run = 0;
    spacers = 0;
    lower = 0;
    e->name_len = 0;

    for (i = 0; i < len; /* void */) {

        if (len - i >= CHAINDATA_SPACER_LEN
            && memcmp(s + i, CHAINDATA_SPACER, CHAINDATA_SPACER_LEN) == 0)
        {
            if (run == 0) {
                return -1;
            }

            run = 0;
            spacers++;
            i += CHAINDATA_SPACER_LEN;
            continue;
        }

        if (!chaindata_is_letter(s[i])) {
            return -1;
        }

        if (s[i] >= 'a') {
            lower = 1;
        }

        if (e->name_len < CHAINDATA_RUNE_NAME_MAX) {
            e->name[e->name_len] = s[i];
        }

        e->name_len++;
        run++;
        i++;
    }

    if (run == 0 || spacers == 0) {
        return -1;
    }

    e->form = (lower || e->name_len > CHAINDATA_RUNE_NAME_MAX)
              ? CHAINDATA_ETCHING_NONE : CHAINDATA_ETCHING_SPACED;

    return 0;
}


static int
chaindata_etching_name(chaindata_etching_t *e, const unsigned char *s,
    size_t len)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if (s[i] < 'A' || s[i] > 'Z') {
            return -1;
        }
    }

    if (len == 0) {
        return -1;
    }

    if (len > CHAINDATA_RUNE_NAME_MAX) {
        e->form = CHAINDATA_ETCHING_NONE;
        return 0;
    }

    memcpy(e->name, s, len);
    e->name_len = len;
    e->form = CHAINDATA_ETCHING_NAME;

    return 0;
}


void
chaindata_etching_param(chaindata_etching_t *e, const unsigned char *s,
    size_t len)
{
    const unsigned char  *colon;

    e->form = CHAINDATA_ETCHING_BAD;

    colon = memchr(s, ':', len);

    if (colon) {
        if (chaindata_all_digits(s, colon - s)
            && chaindata_all_digits(colon + 1, s + len - colon - 1))
        {
            /* leading zeros, or parts past the key's: no rune's id */
            e->form = chaindata_rune_id_key(e->id_key, s, len) == 0
                      ? CHAINDATA_ETCHING_ID : CHAINDATA_ETCHING_NONE;
        }

        return;
    }

    if (chaindata_all_digits(s, len)) {
        chaindata_etching_number(e, s, len);
        return;
    }

    if (chaindata_etching_name(e, s, len) == 0) {
        return;
    }

    if (chaindata_etching_spaced(e, s, len) != 0) {
        e->form = CHAINDATA_ETCHING_BAD;
    }
}


int
chaindata_etching_spaced_is(const unsigned char *doc, size_t len,
    const unsigned char *s, size_t slen)
{
    static const char     member[] = "\"spaced_name\":\"";
    size_t                i, n;
    const unsigned char  *p;

    n = sizeof(member) - 1;
    p = NULL;

    for (i = 0; i + n <= len; i++) {
        if (doc[i] == '"' && memcmp(doc + i, member, n) == 0) {
            p = doc + i + n;
            break;
        }
    }

    if (p == NULL) {
        return 0;
    }

    return (size_t) (doc + len - p) > slen && memcmp(p, s, slen) == 0
           && p[slen] == '"';
}


void
chaindata_block_param(chaindata_block_param_t *b, const unsigned char *s,
    size_t len)
{
    size_t  i;

    if (chaindata_all_digits(s, len)) {
        while (len > 1 && s[0] == '0') {
            s++;
            len--;
        }

        b->form = chaindata_rune_decimal(s, len, UINT64_MAX, &b->height) == 0
                  ? CHAINDATA_BLOCK_HEIGHT : CHAINDATA_BLOCK_NONE;
        return;
    }

    b->form = CHAINDATA_BLOCK_BAD;

    if (len != 2 * CHAINDATA_RUNE_HASH_LEN) {
        return;
    }

    for (i = 0; i < CHAINDATA_BLOCK_ZEROS; i++) {
        if (s[i] != '0') {
            return;
        }
    }

    if (chaindata_hex_decode(b->hash, s, len) != 0) {
        return;
    }

    b->form = chaindata_hex_is_lower(s, len) ? CHAINDATA_BLOCK_HASH
                                             : CHAINDATA_BLOCK_NONE;
}


size_t
chaindata_runes_txid_key(unsigned char *key, const unsigned char *s,
    size_t len)
{
    size_t  n;

    n = chaindata_txid_list_key(key, s, len);

    if (n == 0 || chaindata_hex_is_lower(s, len)) {
        return n;
    }

    key[0] = '\0';

    return 1;
}


size_t
chaindata_runes_address_list_key(unsigned char *key, const unsigned char *s,
    size_t len)
{
    size_t  n;

    n = chaindata_address_key(key, s, len);

    if (n == 0 || n != len + 1 || memcmp(key + 1, s, len) != 0) {
        key[0] = '\0';
        return 1;
    }

    return n;
}


void
chaindata_runes_etag(unsigned char *out, const unsigned char *state,
    const char *id, const chaindata_span_t *params, size_t n,
    const chaindata_span_t *offset, uint64_t limit)
{
    int                 len;
    char                text[24];
    size_t              i;
    chaindata_digest_t  d;
    unsigned char       sha[CHAINDATA_SHA256_LEN];

    chaindata_digest_init(&d);
    chaindata_digest_add(&d, state, CHAINDATA_RUNE_STATE_LEN);
    chaindata_digest_add(&d, (const unsigned char *) id, strlen(id));

    for (i = 0; i < n; i++) {
        chaindata_digest_add(&d, params[i].data, params[i].len);
    }

    if (offset) {
        len = snprintf(text, sizeof(text), "%llu",
                       (unsigned long long) limit);
        chaindata_digest_add(&d, offset->data, offset->len);
        chaindata_digest_add(&d, (const unsigned char *) text, (size_t) len);
    }

    chaindata_digest_final(&d, sha);
    memcpy(out, sha, CHAINDATA_RUNE_STATE_LEN);
}
