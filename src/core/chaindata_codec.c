
/*
 * chaindata: key and value codecs shared by the module and the loader.
 */


#include <string.h>

#include "chaindata_codec.h"
#include "chaindata_digest.h"


const char *chaindata_db_names[CHAINDATA_DBI_COUNT] = {
    CHAINDATA_DB_META,
    CHAINDATA_DB_TX,
    CHAINDATA_DB_TX_EVENT,
    CHAINDATA_DB_CHAINHOOK,
    CHAINDATA_DB_RUNE_ACTIVITY,
    CHAINDATA_DB_RUNE_ACTIVITY_ENTRY,
    CHAINDATA_DB_RUNE_BALANCES,
    CHAINDATA_DB_RUNE_BALANCE_ENTRY,
    CHAINDATA_DB_FEED,
    CHAINDATA_DB_BLOCK
};


/*
 * Each byte's value as a hex digit, 0xff for a byte that is not one:
 * one load a digit, no branch (the transaction route decodes 64 of them
 * per request).  Digits of either case only: 0x10-0x19 are not digits.
 */

#define X  0xff

const unsigned char  chaindata_hex_table[256] = {
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, X, X, X, X, X, X,
    X, 10, 11, 12, 13, 14, 15, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, 10, 11, 12, 13, 14, 15, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X
};

#undef X


/* decodes len hex digits (len even) into len / 2 bytes; -1 on a bad digit */

int
chaindata_hex_decode(unsigned char *dst, const unsigned char *src,
    size_t len)
{
    size_t         i;
    unsigned char  hi, lo;

    if (len % 2) {
        return -1;
    }

    for (i = 0; i < len; i += 2) {
        hi = chaindata_hex_table[src[i]];
        lo = chaindata_hex_table[src[i + 1]];

        if ((hi | lo) & 0xf0) {
            return -1;
        }

        *dst++ = (unsigned char) (hi << 4 | lo);
    }

    return 0;
}


/* whether s is len lowercase hex digits, as the index writes them */

int
chaindata_hex_is_lower(const unsigned char *s, size_t len)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) {
            return 0;
        }
    }

    return 1;
}


unsigned char *
chaindata_hex_encode(unsigned char *dst, const unsigned char *src,
    size_t n)
{
    static const char  hex[] = "0123456789abcdef";

    while (n--) {
        *dst++ = hex[*src >> 4];
        *dst++ = hex[*src++ & 0xf];
    }

    return dst;
}


/*
 * A transaction id as "0x" + 64 hex digits (any case) or the 64 digits
 * alone; *prefixed tells which.  Returns 0 and fills txid, or -1.
 */

int
chaindata_txid_parse(const unsigned char *s, size_t len,
    unsigned char *txid, int *prefixed)
{
    *prefixed = 0;

    if (len == CHAINDATA_TXID_HEX_LEN + 2
        && s[0] == '0' && s[1] == 'x')
    {
        *prefixed = 1;
        s += 2;
        len -= 2;
    }

    if (len != CHAINDATA_TXID_HEX_LEN) {
        return -1;
    }

    return chaindata_hex_decode(txid, s, len);
}


void
chaindata_txh_encode(unsigned char *out,
    const chaindata_txh_t *h)
{
    out[0] = CHAINDATA_TXH_FORMAT;
    out[1] = (unsigned char) h->flags;
    out[2] = (unsigned char) h->chunk0_len;
    out[3] = (unsigned char) (h->chunk0_len >> 8);
    chaindata_put_u32le(out + 4, h->event_count);
    chaindata_put_u32le(out + 8, h->events_at);
    chaindata_put_u32le(out + 12, h->fargs_start);
    chaindata_put_u32le(out + 16, h->fargs_len);
    memcpy(out + 20, h->digest, CHAINDATA_DIGEST_LEN);
}


/* 1 when off is where a piece of h begins, or the document's end */

static int
chaindata_txh_cut(const chaindata_txh_t *h, size_t off)
{
    unsigned  i;

    if (off == h->doc_len) {
        return 1;
    }

    for (i = 0; i < h->npieces; i++) {
        if (h->at[i] == off) {
            return 1;
        }
    }

    return 0;
}


/*
 * Decodes and checks a "tx" value: its pieces must fill it exactly, and
 * every offset must fall where a piece begins, so that a damaged record
 * can never make the server read past it or cut a piece.
 */

int
chaindata_txh_decode(chaindata_txh_t *h,
    const unsigned char *v, size_t len)
{
    size_t  off, used;

    if (len < CHAINDATA_TXH_SIZE
        || v[0] != CHAINDATA_TXH_FORMAT
        || (v[1] & ~(CHAINDATA_TXH_EVENTS | CHAINDATA_TXH_FARGS
                     | CHAINDATA_TXH_PENDING | CHAINDATA_TXH_CHUNK0)))
    {
        return -1;
    }

    h->flags = v[1];
    h->chunk0_len = (size_t) v[2] | (size_t) v[3] << 8;
    h->chunk0 = NULL;

    /* the first chunk of events inline: the value's last chunk0_len bytes */
    if ((h->flags & CHAINDATA_TXH_CHUNK0) == 0) {
        if (h->chunk0_len) {
            return -1;
        }

    } else if (h->chunk0_len == 0
               || h->chunk0_len > len - CHAINDATA_TXH_SIZE
               || (h->flags & CHAINDATA_TXH_EVENTS) == 0)
    {
        return -1;

    } else {
        len -= h->chunk0_len;
        h->chunk0 = v + len;
    }

    h->event_count = chaindata_get_u32le(v + 4);
    h->events_at = chaindata_get_u32le(v + 8);
    h->fargs_start = chaindata_get_u32le(v + 12);
    h->fargs_len = chaindata_get_u32le(v + 16);
    memcpy(h->digest, v + 20, CHAINDATA_DIGEST_LEN);

    h->doc_len = 0;
    h->npieces = 0;

    for (off = CHAINDATA_TXH_SIZE; off < len; off += used) {
        if (h->npieces == CHAINDATA_TXH_PIECES_MAX
            || chaindata_piece_decode(&h->piece[h->npieces], v + off,
                                      len - off, &used)
               != 0)
        {
            return -1;
        }

        h->at[h->npieces++] = (uint32_t) h->doc_len;
        h->doc_len += h->piece[h->npieces - 1].plain_len;
    }

    if (h->doc_len > UINT32_MAX || h->events_at > h->doc_len) {
        return -1;
    }

    if (h->flags & CHAINDATA_TXH_EVENTS) {
        if (!chaindata_txh_cut(h, h->events_at)) {
            return -1;
        }

    } else if (h->event_count) {
        return -1;
    }

    if (h->chunk0 && h->event_count == 0) {
        return -1;
    }

    if ((h->flags & CHAINDATA_TXH_FARGS)
        && (h->fargs_start > h->doc_len
            || h->fargs_len > h->doc_len - h->fargs_start
            || !chaindata_txh_cut(h, h->fargs_start)
            || !chaindata_txh_cut(h, h->fargs_start + h->fargs_len)
            || (h->flags & CHAINDATA_TXH_EVENTS
                && h->events_at > h->fargs_start
                && h->events_at < h->fargs_start + h->fargs_len)))
    {
        return -1;
    }

    return 0;
}


/*
 * A UUID as 8-4-4-4-12 hex digits, any case, into its 16 bytes: the
 * "chainhook" key.  Returns 0, or -1 for anything else (no braces, no
 * "urn:uuid:", no missing dashes).
 */

int
chaindata_uuid_parse(const unsigned char *s, size_t len,
    unsigned char *uuid)
{
    size_t  i, n;

    if (len != CHAINDATA_UUID_TEXT_LEN) {
        return -1;
    }

    n = 0;

    for (i = 0; i < len; /* void */ ) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') {
                return -1;
            }

            i++;
            continue;
        }

        if (chaindata_hex_decode(uuid + n++, s + i, 2) != 0) {
            return -1;
        }

        i += 2;
    }

    return 0;
}


/*
 * The digest under which an API key is stored and looked up: plain
 * SHA-256 of the key's bytes (lmdb-schema/chainhook.md says why).
 */

void
chaindata_key_digest(const unsigned char *key, size_t len,
    unsigned char *digest)
{
    chaindata_digest_t  d;

    chaindata_digest_init(&d);
    chaindata_digest_add(&d, key, len);
    chaindata_digest_final(&d, digest);
}


void
chaindata_chh_encode(unsigned char *out,
    const unsigned char *key_digest)
{
    out[0] = CHAINDATA_CHH_FORMAT;
    out[1] = 0;
    out[2] = 0;
    out[3] = 0;
    memcpy(out + 4, key_digest, CHAINDATA_KEY_DIGEST_LEN);
}


int
chaindata_chh_decode(chaindata_chh_t *h,
    const unsigned char *v, size_t len)
{
    if (len < CHAINDATA_CHH_SIZE + 2
        || v[0] != CHAINDATA_CHH_FORMAT
        || v[1] != 0)
    {
        return -1;
    }

    h->key_digest = v + 4;
    h->doc = v + CHAINDATA_CHH_SIZE;
    h->doc_len = len - CHAINDATA_CHH_SIZE;

    return 0;
}


/*
 * A list header: format, flags, the length of the first chunk when it
 * is inline (u16 little-endian, else 0), the number of entries (u32
 * little-endian), the digest of the entries; then the inline chunk.
 * Only the 24 bytes of the header are written here.
 */

void
chaindata_listh_encode(unsigned char *out,
    const chaindata_listh_t *h)
{
    out[0] = CHAINDATA_LISTH_FORMAT;
    out[1] = h->chunk0_len ? CHAINDATA_LISTH_CHUNK0 : 0;
    out[2] = (unsigned char) h->chunk0_len;
    out[3] = (unsigned char) (h->chunk0_len >> 8);
    chaindata_put_u32le(out + 4, h->count);
    memcpy(out + 8, h->digest, CHAINDATA_DIGEST_LEN);
}


int
chaindata_listh_decode(chaindata_listh_t *h,
    const unsigned char *v, size_t len)
{
    if (len < CHAINDATA_LISTH_SIZE
        || v[0] != CHAINDATA_LISTH_FORMAT
        || (v[1] & ~CHAINDATA_LISTH_CHUNK0))
    {
        return -1;
    }

    h->count = chaindata_get_u32le(v + 4);
    memcpy(h->digest, v + 8, CHAINDATA_DIGEST_LEN);
    h->chunk0_len = (size_t) v[2] | (size_t) v[3] << 8;
    h->chunk0 = h->chunk0_len ? v + CHAINDATA_LISTH_SIZE : NULL;

    /* the flag, a length and the bytes go together, for a list not empty */
    if (len != CHAINDATA_LISTH_SIZE + h->chunk0_len
        || !(v[1] & CHAINDATA_LISTH_CHUNK0) != !h->chunk0_len
        || (h->chunk0_len && h->count == 0))
    {
        return -1;
    }

    return 0;
}


/* an entry's key: the list's key, then the position, big-endian */

size_t
chaindata_list_entry_key(unsigned char *key,
    const unsigned char *list_key, size_t list_key_len, uint32_t pos)
{
    memcpy(key, list_key, list_key_len);
    chaindata_put_u32be(key + list_key_len, pos);

    return list_key_len + 4;
}


/*
 * JSON string escaping as JSON.stringify does it (the upstream services are
 * Node): the two-character escapes where they exist, \u00xx (lowercase) for
 * the other control characters, everything else (UTF-8 included) as is.
 */

static unsigned char
chaindata_json_short_escape(unsigned char c)
{
    switch (c) {
    case '"':  return '"';
    case '\\': return '\\';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    default:   return 0;
    }
}


/*
 * The length of the run s starts with that JSON escapes nothing in, read
 * 8 bytes at a time: a word goes whole when none of its bytes is below
 * 0x20, '"' or '\\' (a zero byte of w - 0x0101..., as in the ASCII run
 * below; the test is exact for "any"), then byte by byte to the first.
 */

#define CHAINDATA_ONES   0x0101010101010101ULL
#define CHAINDATA_HIGHS  0x8080808080808080ULL

#define chaindata_has_below(w, c)                                          \
    (((w) - CHAINDATA_ONES * (c)) & ~(w) & CHAINDATA_HIGHS)
#define chaindata_has_byte(w, c)                                           \
    chaindata_has_below((w) ^ (CHAINDATA_ONES * (c)), 1)


static size_t
chaindata_json_plain_len(const unsigned char *s, size_t len)
{
    size_t    i;
    uint64_t  w;

    for (i = 0; len - i >= sizeof(w); i += sizeof(w)) {
        memcpy(&w, s + i, sizeof(w));

        if (chaindata_has_below(w, 0x20) || chaindata_has_byte(w, '"')
            || chaindata_has_byte(w, '\\'))
        {
            break;
        }
    }

    while (i < len && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\') {
        i++;
    }

    return i;
}


size_t
chaindata_json_escape_len(const unsigned char *s, size_t len)
{
    size_t  n, run;

    n = len;

    for ( ;; ) {
        run = chaindata_json_plain_len(s, len);
        s += run;
        len -= run;

        if (len == 0) {
            return n;
        }

        n += chaindata_json_short_escape(*s) ? 1 : 5;
        s++;
        len--;
    }
}


unsigned char *
chaindata_json_escape(unsigned char *dst, const unsigned char *s,
    size_t len)
{
    size_t         run;
    unsigned char  e;

    for ( ;; ) {
        run = chaindata_json_plain_len(s, len);
        dst = (unsigned char *) memcpy(dst, s, run) + run;
        s += run;
        len -= run;

        if (len == 0) {
            return dst;
        }

        e = chaindata_json_short_escape(*s);

        if (e) {
            *dst++ = '\\';
            *dst++ = e;

        } else {
            *dst++ = '\\';
            *dst++ = 'u';
            *dst++ = '0';
            *dst++ = '0';
            dst = chaindata_hex_encode(dst, s, 1);
        }

        s++;
        len--;
    }
}


/* the length of the ASCII run s starts with, read 8 bytes at a time */

static size_t
chaindata_ascii_len(const unsigned char *s, size_t len)
{
    size_t    i;
    uint64_t  w;

    for (i = 0; len - i >= sizeof(w); i += sizeof(w)) {
        memcpy(&w, s + i, sizeof(w));

        if (w & CHAINDATA_HIGHS) {
            break;
        }
    }

    while (i < len && s[i] < 0x80) {
        i++;
    }

    return i;
}


/*
 * The length of the longest prefix of s that is well-formed UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF);
 * len when all of s is.
 */

size_t
chaindata_utf8_valid_len(const unsigned char *s, size_t len)
{
    size_t         i, n, k;
    unsigned char  c, lo, hi;

    i = 0;

    while (i < len) {
        c = s[i];

        if (c < 0x80) {
            i += chaindata_ascii_len(s + i, len - i);
            continue;
        }

        lo = 0x80;
        hi = 0xbf;

        if (c >= 0xc2 && c <= 0xdf) {
            n = 1;

        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            lo = (c == 0xe0) ? 0xa0 : 0x80;
            hi = (c == 0xed) ? 0x9f : 0xbf;

        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            lo = (c == 0xf0) ? 0x90 : 0x80;
            hi = (c == 0xf4) ? 0x8f : 0xbf;

        } else {
            return i;
        }

        if (len - i <= n) {
            return i;
        }

        if (s[i + 1] < lo || s[i + 1] > hi) {
            return i;
        }

        for (k = 2; k <= n; k++) {
            if (s[i + k] < 0x80 || s[i + k] > 0xbf) {
                return i;
            }
        }

        i += n + 1;
    }

    return len;
}
