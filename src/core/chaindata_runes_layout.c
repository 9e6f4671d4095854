
/*
 * chaindata: the keys and values of the Runes databases (see the header,
 * and lmdb-schema/runes.md).
 */


#include <string.h>

#include "chaindata_int.h"
#include "chaindata_runes_layout.h"


/* a key of one byte, then len bytes: its length */

static size_t
chaindata_rune_prefixed(unsigned char *key, unsigned char first,
    const unsigned char *p, size_t len)
{
    key[0] = first;
    memcpy(key + 1, p, len);

    return 1 + len;
}


int
chaindata_rune_decimal(const unsigned char *s, size_t len, uint64_t max,
    uint64_t *out)
{
    size_t    i;
    uint64_t  v, d;

    if (len == 0 || (len > 1 && s[0] == '0')) {
        return -1;
    }

    v = 0;

    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }

        d = s[i] - '0';

        if (v > (max - d) / 10) {
            return -1;
        }

        v = v * 10 + d;
    }

    *out = v;

    return 0;
}


int
chaindata_rune_id_key(unsigned char *key, const unsigned char *s,
    size_t len)
{
    uint64_t              block, tx;
    const unsigned char  *colon;

    colon = memchr(s, ':', len);

    if (colon == NULL
        || chaindata_rune_decimal(s, colon - s, UINT64_MAX, &block) != 0
        || chaindata_rune_decimal(colon + 1, s + len - colon - 1,
                                  UINT32_MAX, &tx)
           != 0)
    {
        return -1;
    }

    chaindata_put_u64be(key, block);
    chaindata_put_u32be(key + 8, (uint32_t) tx);

    return 0;
}


static size_t
chaindata_rune_u64_text(unsigned char *p, uint64_t v)
{
    size_t         n, i;
    unsigned char  tmp[20];

    n = 0;

    do {
        tmp[n++] = (unsigned char) ('0' + v % 10);
        v /= 10;
    } while (v);

    for (i = 0; i < n; i++) {
        p[i] = tmp[n - 1 - i];
    }

    return n;
}


size_t
chaindata_rune_id_text(unsigned char *p, const unsigned char *key)
{
    size_t  n;

    n = chaindata_rune_u64_text(p, chaindata_get_u64be(key));
    p[n++] = ':';

    return n + chaindata_rune_u64_text(p + n, chaindata_get_u32be(key + 8));
}


void
chaindata_rune_ledger_key(unsigned char *key, uint64_t height,
    uint32_t position)
{
    chaindata_put_u64be(key, height);
    chaindata_put_u32be(key + 8, position);
}


uint64_t
chaindata_rune_ledger_height(const unsigned char *key)
{
    return chaindata_get_u64be(key);
}


uint32_t
chaindata_rune_ledger_position(const unsigned char *key)
{
    return chaindata_get_u32be(key + 8);
}


size_t
chaindata_rune_address_key(unsigned char *key, const unsigned char *a,
    size_t len)
{
    if (len == 0 || len > CHAINDATA_RUNE_ADDRESS_MAX) {
        return 0;
    }

    return chaindata_rune_prefixed(key, (unsigned char) len, a, len);
}


size_t
chaindata_rune_address_key_len(const unsigned char *p, size_t n)
{
    if (n == 0 || p[0] == 0 || (size_t) p[0] + 1 > n) {
        return 0;
    }

    return (size_t) p[0] + 1;
}


size_t
chaindata_rune_sort_key(unsigned char *key, const unsigned char *s,
    size_t len)
{
    size_t  i, n, points;

    if (len == 0 || s[0] == '.' || s[len - 1] == '.') {
        return 0;
    }

    n = 0;
    points = 0;

    for (i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (++points > 1) {
                return 0;
            }

            continue;
        }

        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }

        if (n == 0 && s[i] == '0') {
            continue;                       /* a leading zero */
        }

        if (n == CHAINDATA_RUNE_DIGITS_MAX) {
            return 0;
        }

        key[1 + n++] = (unsigned char) (0xff - (s[i] - '0'));
    }

    key[0] = (unsigned char) (0xff - n);

    return 1 + n;
}


size_t
chaindata_rune_sort_key_len(const unsigned char *p, size_t n)
{
    size_t  digits;

    if (n == 0) {
        return 0;
    }

    digits = 0xff - p[0];

    if (digits > CHAINDATA_RUNE_DIGITS_MAX || 1 + digits > n) {
        return 0;
    }

    return 1 + digits;
}


void
chaindata_rune_number_key(unsigned char *key, uint64_t number)
{
    chaindata_put_u64be(key, number);
}


uint64_t
chaindata_rune_number(const unsigned char *key)
{
    return chaindata_get_u64be(key);
}


size_t
chaindata_rune_name_id_key(unsigned char *key, const unsigned char *id_key)
{
    return chaindata_rune_prefixed(key, CHAINDATA_RUNE_NAME_ID, id_key,
                                   CHAINDATA_RUNE_ID_KEY_LEN);
}


size_t
chaindata_rune_name_key(unsigned char *key, const unsigned char *name,
    size_t len)
{
    return chaindata_rune_prefixed(key, CHAINDATA_RUNE_NAME_NAME, name, len);
}


size_t
chaindata_rune_block_key(unsigned char *key, uint64_t height)
{
    key[0] = CHAINDATA_RUNE_BLOCK_HEIGHT;
    chaindata_put_u64be(key + 1, height);

    return CHAINDATA_RUNE_BLOCK_KEY_LEN;
}


size_t
chaindata_rune_hash_key(unsigned char *key, const unsigned char *hash)
{
    return chaindata_rune_prefixed(key, CHAINDATA_RUNE_BLOCK_HASH, hash,
                                   CHAINDATA_RUNE_HASH_LEN);
}


size_t
chaindata_rune_block_value(unsigned char *val, uint32_t count,
    const unsigned char *hash)
{
    chaindata_put_u32le(val, count);
    memcpy(val + 4, hash, CHAINDATA_RUNE_HASH_LEN);

    return CHAINDATA_RUNE_BLOCK_VALUE_LEN;
}


int
chaindata_rune_block_value_parse(const unsigned char *val, size_t len,
    uint32_t *count, const unsigned char **hash)
{
    if (len != CHAINDATA_RUNE_BLOCK_VALUE_LEN) {
        return -1;
    }

    *count = chaindata_get_u32le(val);

    if (hash != NULL) {
        *hash = val + 4;
    }

    return 0;
}


int
chaindata_rune_hash_value_parse(const unsigned char *val, size_t len,
    uint64_t *height)
{
    if (len != 8) {
        return -1;
    }

    *height = chaindata_get_u64be(val);

    return 0;
}


size_t
chaindata_rune_list_key_r(unsigned char *key, const unsigned char *id_key)
{
    return chaindata_rune_prefixed(key, CHAINDATA_RUNE_LIST_RUNE, id_key,
                                   CHAINDATA_RUNE_ID_KEY_LEN);
}


size_t
chaindata_rune_list_key_a(unsigned char *key, const unsigned char *addr_key,
    size_t addr_key_len)
{
    return chaindata_rune_prefixed(key, CHAINDATA_RUNE_LIST_ADDRESS,
                                   addr_key, addr_key_len);
}


size_t
chaindata_rune_list_key_p(unsigned char *key, const unsigned char *id_key,
    const unsigned char *addr_key, size_t addr_key_len)
{
    (void) chaindata_rune_prefixed(key, CHAINDATA_RUNE_LIST_PAIR, id_key,
                                   CHAINDATA_RUNE_ID_KEY_LEN);
    memcpy(key + 1 + CHAINDATA_RUNE_ID_KEY_LEN, addr_key, addr_key_len);

    return 1 + CHAINDATA_RUNE_ID_KEY_LEN + addr_key_len;
}


size_t
chaindata_rune_list_key_h(unsigned char *key, const unsigned char *id_key)
{
    return chaindata_rune_prefixed(key, CHAINDATA_RUNE_LIST_HOLDERS, id_key,
                                   CHAINDATA_RUNE_ID_KEY_LEN);
}


size_t
chaindata_rune_list_entry_key(unsigned char *key,
    const unsigned char *list_key, size_t list_key_len, uint32_t seq)
{
    if (key != list_key) {
        memmove(key, list_key, list_key_len);
    }

    chaindata_put_u32be(key + list_key_len, seq);

    return list_key_len + 4;
}


uint32_t
chaindata_rune_list_entry_seq(const unsigned char *key, size_t len)
{
    return chaindata_get_u32be(key + len - 4);
}


int
chaindata_rune_list_count(const unsigned char *val, size_t len,
    uint32_t *count)
{
    if (len != CHAINDATA_RUNE_LIST_VALUE_LEN) {
        return -1;
    }

    *count = chaindata_get_u32le(val);

    return 0;
}


size_t
chaindata_rune_holder_key(unsigned char *key, const unsigned char *id_key,
    const unsigned char *sort_key, size_t sort_key_len,
    const unsigned char *addr_key, size_t addr_key_len)
{
    unsigned char  *p;

    p = key;
    memcpy(p, id_key, CHAINDATA_RUNE_ID_KEY_LEN);
    p += CHAINDATA_RUNE_ID_KEY_LEN;
    memcpy(p, sort_key, sort_key_len);
    p += sort_key_len;
    memcpy(p, addr_key, addr_key_len);
    p += addr_key_len;

    return p - key;
}


size_t
chaindata_rune_holding_key(unsigned char *key, const unsigned char *id_key,
    const unsigned char *addr_key, size_t addr_key_len)
{
    memcpy(key, id_key, CHAINDATA_RUNE_ID_KEY_LEN);
    memcpy(key + CHAINDATA_RUNE_ID_KEY_LEN, addr_key, addr_key_len);

    return CHAINDATA_RUNE_ID_KEY_LEN + addr_key_len;
}


int
chaindata_rune_id_value_parse(const unsigned char *val, size_t len,
    const unsigned char **id_key, const unsigned char **json,
    size_t *json_len)
{
    if (len < CHAINDATA_RUNE_ID_KEY_LEN + 2 || val[len - 1] != '}') {
        return -1;
    }

    *id_key = val;
    *json = val + CHAINDATA_RUNE_ID_KEY_LEN;
    *json_len = len - CHAINDATA_RUNE_ID_KEY_LEN;

    return 0;
}
