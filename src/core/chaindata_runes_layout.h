
/*
 * chaindata: the keys and values of the Runes databases that the
 * rune_block and rune_etching records write and chaindata_runes reads
 * (rune_etching, rune_name, rune_ref, rune_block, rune_ledger, rune_list,
 * rune_list_entry, rune_holder, rune_holding): their builders and the
 * decoders of the values' fixed parts.
 *
 * No nginx headers here.  lmdb-schema/runes.md documents every layout
 * below; change both together, and bump CHAINDATA_SCHEMA_VERSION
 * (chaindata_schema.h).
 */


#ifndef _CHAINDATA_RUNES_LAYOUT_H_INCLUDED_
#define _CHAINDATA_RUNES_LAYOUT_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


/* a rune id "<block>:<tx>": block (8 bytes be), tx (4 bytes be) */
#define CHAINDATA_RUNE_ID_KEY_LEN       12
#define CHAINDATA_RUNE_ID_TEXT_MAX      31      /* 20 digits, ':', 10 */

/* a ledger entry: block height (8 be), position in the block (4 be) */
#define CHAINDATA_RUNE_LEDGER_KEY_LEN   12

/* an address key: length (1 byte, 1..255), the address bytes as given */
#define CHAINDATA_RUNE_ADDRESS_MAX      255
#define CHAINDATA_RUNE_ADDRESS_KEY_MAX  (1 + CHAINDATA_RUNE_ADDRESS_MAX)

/*
 * A balance sort key: 0xff - n, then each of the balance's n significant
 * digits d (point and leading zeros removed) as 0xff - d; a u128 has at
 * most 39 digits.
 */
#define CHAINDATA_RUNE_DIGITS_MAX       39
#define CHAINDATA_RUNE_SORT_KEY_MAX     (1 + CHAINDATA_RUNE_DIGITS_MAX)

/* rune_etching's key, rune_name's value: a rune number, 8 bytes be */
#define CHAINDATA_RUNE_NUMBER_LEN       8

/* rune_name's keys: 'i' + rune id key, 'n' + name (1..28 A-Z) */
#define CHAINDATA_RUNE_NAME_ID          'i'
#define CHAINDATA_RUNE_NAME_NAME        'n'
#define CHAINDATA_RUNE_NAME_MAX         28
#define CHAINDATA_RUNE_NAME_KEY_MAX     (1 + CHAINDATA_RUNE_NAME_MAX)

/*
 * rune_block's keys: 'h' + height (8 be) -> count (4 le), block hash (32);
 * 'x' + block hash (32) -> height (8 be); 's' -> the runes state (16).
 */
#define CHAINDATA_RUNE_BLOCK_HEIGHT     'h'
#define CHAINDATA_RUNE_BLOCK_HASH       'x'
#define CHAINDATA_RUNE_BLOCK_STATE      's'
#define CHAINDATA_RUNE_HASH_LEN         32
#define CHAINDATA_RUNE_BLOCK_KEY_LEN    9
#define CHAINDATA_RUNE_HASH_KEY_LEN     (1 + CHAINDATA_RUNE_HASH_LEN)
#define CHAINDATA_RUNE_BLOCK_VALUE_LEN  (4 + CHAINDATA_RUNE_HASH_LEN)
#define CHAINDATA_RUNE_STATE_LEN        16

/* rune_list's kinds: the first byte of a list key */
#define CHAINDATA_RUNE_LIST_RUNE        'r'     /* + rune id key */
#define CHAINDATA_RUNE_LIST_ADDRESS     'a'     /* + address key */
#define CHAINDATA_RUNE_LIST_PAIR        'p'     /* + rune id + address */
#define CHAINDATA_RUNE_LIST_HOLDERS     'h'     /* + rune id key */

#define CHAINDATA_RUNE_LIST_KEY_MAX                                         \
    (1 + CHAINDATA_RUNE_ID_KEY_LEN + CHAINDATA_RUNE_ADDRESS_KEY_MAX)
#define CHAINDATA_RUNE_LIST_ENTRY_KEY_MAX  (CHAINDATA_RUNE_LIST_KEY_MAX + 4)
#define CHAINDATA_RUNE_LIST_VALUE_LEN   4       /* count, le */

/* rune_holder: rune id key + balance sort key + address key */
#define CHAINDATA_RUNE_HOLDER_KEY_MAX                                       \
    (CHAINDATA_RUNE_ID_KEY_LEN + CHAINDATA_RUNE_SORT_KEY_MAX                \
     + CHAINDATA_RUNE_ADDRESS_KEY_MAX)

/* rune_holding: rune id key + address key */
#define CHAINDATA_RUNE_HOLDING_KEY_MAX                                      \
    (CHAINDATA_RUNE_ID_KEY_LEN + CHAINDATA_RUNE_ADDRESS_KEY_MAX)


/*
 * A decimal integer without sign or leading zeros, at most max; returns
 * 0 and the value in *out, or -1.
 */
int chaindata_rune_decimal(const unsigned char *s, size_t len, uint64_t max,
    uint64_t *out);

/*
 * The rune id key of "<block>:<tx>" (decimal, no sign, no leading zeros,
 * block <= 2^64-1, tx <= 2^32-1) into key (12 bytes); 0, or -1 when the
 * text is not one.
 */
int chaindata_rune_id_key(unsigned char *key, const unsigned char *s,
    size_t len);

/* the text "<block>:<tx>" of a rune id key; returns its length (<= 31) */
size_t chaindata_rune_id_text(unsigned char *p, const unsigned char *key);

/* a ledger key (12 bytes), and its parts */
void chaindata_rune_ledger_key(unsigned char *key, uint64_t height,
    uint32_t position);
uint64_t chaindata_rune_ledger_height(const unsigned char *key);
uint32_t chaindata_rune_ledger_position(const unsigned char *key);

/*
 * The address key of an address as given (bytes kept, no case folding);
 * returns its length (1 + len), or 0 when len is 0 or over 255: such an
 * address is held by no list.
 */
size_t chaindata_rune_address_key(unsigned char *key, const unsigned char *a,
    size_t len);

/*
 * The length of the address key at the start of p (n bytes there), or 0
 * when p does not hold a whole one.
 */
size_t chaindata_rune_address_key_len(const unsigned char *p, size_t n);

/*
 * The balance sort key of a decimal amount ("2100", "5000.00000"): into
 * key (CHAINDATA_RUNE_SORT_KEY_MAX bytes); returns its length, or 0 when
 * the text is not digits with at most one point between digits, or has
 * more than 39 significant digits.
 */
size_t chaindata_rune_sort_key(unsigned char *key, const unsigned char *s,
    size_t len);

/*
 * The length of the sort key at the start of p (n bytes there), or 0 when
 * p does not hold a whole one.
 */
size_t chaindata_rune_sort_key_len(const unsigned char *p, size_t n);

/* a rune number's key (8 bytes be), and back */
void chaindata_rune_number_key(unsigned char *key, uint64_t number);
uint64_t chaindata_rune_number(const unsigned char *key);

/* rune_name's keys; each returns its length */
size_t chaindata_rune_name_id_key(unsigned char *key,
    const unsigned char *id_key);
size_t chaindata_rune_name_key(unsigned char *key, const unsigned char *name,
    size_t len);

/* rune_block's keys; each returns its length */
size_t chaindata_rune_block_key(unsigned char *key, uint64_t height);
size_t chaindata_rune_hash_key(unsigned char *key, const unsigned char *hash);

/* rune_block's 'h' value: count (4 le), hash (32); returns its length */
size_t chaindata_rune_block_value(unsigned char *val, uint32_t count,
    const unsigned char *hash);

/*
 * A rune_block 'h' value's parts (hash may be NULL), or -1 when it is not
 * 36 bytes.
 */
int chaindata_rune_block_value_parse(const unsigned char *val, size_t len,
    uint32_t *count, const unsigned char **hash);

/* a rune_block 'x' value (8 bytes be): 0 and the height, or -1 */
int chaindata_rune_hash_value_parse(const unsigned char *val, size_t len,
    uint64_t *height);

/*
 * The list keys, kinds r, a, p and h; each returns its length.  addr_key
 * is an address key (chaindata_rune_address_key), addr_key_len its length.
 */
size_t chaindata_rune_list_key_r(unsigned char *key,
    const unsigned char *id_key);
size_t chaindata_rune_list_key_a(unsigned char *key,
    const unsigned char *addr_key, size_t addr_key_len);
size_t chaindata_rune_list_key_p(unsigned char *key,
    const unsigned char *id_key, const unsigned char *addr_key,
    size_t addr_key_len);
size_t chaindata_rune_list_key_h(unsigned char *key,
    const unsigned char *id_key);

/* a rune_list_entry key: the list key, then seq (4 be); its length */
size_t chaindata_rune_list_entry_key(unsigned char *key,
    const unsigned char *list_key, size_t list_key_len, uint32_t seq);

/* the seq of a rune_list_entry key (its last 4 bytes) */
uint32_t chaindata_rune_list_entry_seq(const unsigned char *key,
    size_t len);

/*
 * A rune_list value: 0 and the count, or -1 when it is not 4 bytes; an
 * absent value is the count 0.
 */
int chaindata_rune_list_count(const unsigned char *val, size_t len,
    uint32_t *count);

/*
 * The rune_holder key of a rune, balance sort key and address key, and
 * the rune_holding key of a rune and address key; each returns its length.
 */
size_t chaindata_rune_holder_key(unsigned char *key,
    const unsigned char *id_key, const unsigned char *sort_key,
    size_t sort_key_len, const unsigned char *addr_key, size_t addr_key_len);
size_t chaindata_rune_holding_key(unsigned char *key,
    const unsigned char *id_key, const unsigned char *addr_key,
    size_t addr_key_len);

/*
 * A rune_etching or rune_ledger value: the rune id key (12 bytes), then
 * JSON; returns 0, the id key and the JSON (at least 2 bytes, ending with
 * '}'), or -1 when the value is not one.
 */
int chaindata_rune_id_value_parse(const unsigned char *val, size_t len,
    const unsigned char **id_key, const unsigned char **json,
    size_t *json_len);


#endif /* _CHAINDATA_RUNES_LAYOUT_H_INCLUDED_ */
