
/*
 * Unit tests: the keys and values of the Runes databases
 * (chaindata_runes_layout.h).
 */


#include <string.h>

#include "chaindata_runes_layout.h"
#include "unit.h"


#define S(s)  (const unsigned char *) (s), sizeof(s) - 1


static int
id_key_is(const char *text, const char *hex)
{
    size_t         i;
    unsigned char  key[CHAINDATA_RUNE_ID_KEY_LEN];
    char           out[2 * CHAINDATA_RUNE_ID_KEY_LEN + 1];

    if (chaindata_rune_id_key(key, (const unsigned char *) text,
                              strlen(text))
        != 0)
    {
        return 0;
    }

    for (i = 0; i < CHAINDATA_RUNE_ID_KEY_LEN; i++) {
        out[2 * i] = "0123456789abcdef"[key[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[key[i] & 0x0f];
    }

    out[2 * CHAINDATA_RUNE_ID_KEY_LEN] = '\0';

    return strcmp(out, hex) == 0;
}


static int
id_refused(const char *text)
{
    unsigned char  key[CHAINDATA_RUNE_ID_KEY_LEN];

    return chaindata_rune_id_key(key, (const unsigned char *) text,
                                 strlen(text))
           != 0;
}


static int
id_round_trip(const char *text)
{
    size_t         n;
    unsigned char  key[CHAINDATA_RUNE_ID_KEY_LEN];
    unsigned char  out[CHAINDATA_RUNE_ID_TEXT_MAX];

    if (chaindata_rune_id_key(key, (const unsigned char *) text,
                              strlen(text))
        != 0)
    {
        return 0;
    }

    n = chaindata_rune_id_text(out, key);

    return n == strlen(text) && memcmp(out, text, n) == 0;
}


static void
test_rune_id_keys(void)
{
    ok(id_key_is("840000:8", "00000000000cd14000000008"),
       "rune id key: 840000:8, block and tx big-endian");
    ok(id_key_is("0:0", "000000000000000000000000"), "rune id key: 0:0");
    ok(id_key_is("18446744073709551615:4294967295",
                 "ffffffffffffffffffffffff"), "rune id key: the largest");
    ok(id_refused("18446744073709551616:0") && id_refused("1:4294967296"),
       "rune id key: a part out of range refused");
    ok(id_refused("840000:08") && id_refused("0840000:8")
       && id_refused("+1:2") && id_refused("1:-2"),
       "rune id key: leading zeros and signs refused");
    ok(id_refused("840000") && id_refused(":1") && id_refused("1:")
       && id_refused("1:2:3") && id_refused(""),
       "rune id key: not two parts refused");
    ok(id_round_trip("840000:8") && id_round_trip("0:0")
       && id_round_trip("18446744073709551615:4294967295"),
       "rune id key: back to its text");
}


static void
test_rune_ledger_keys(void)
{
    unsigned char  a[CHAINDATA_RUNE_LEDGER_KEY_LEN];
    unsigned char  b[CHAINDATA_RUNE_LEDGER_KEY_LEN];

    chaindata_rune_ledger_key(a, 840090, 7);
    ok(chaindata_rune_ledger_height(a) == 840090
       && chaindata_rune_ledger_position(a) == 7,
       "ledger key: height and position back");

    chaindata_rune_ledger_key(b, 840090, 256);
    ok(memcmp(a, b, sizeof(a)) < 0, "ledger key: position order");

    chaindata_rune_ledger_key(b, 840091, 0);
    ok(memcmp(a, b, sizeof(a)) < 0, "ledger key: block order first");
}


static void
test_rune_address_keys(void)
{
    size_t         n;
    unsigned char  key[CHAINDATA_RUNE_ADDRESS_KEY_MAX + 1];
    unsigned char  big[CHAINDATA_RUNE_ADDRESS_MAX + 1];

    n = chaindata_rune_address_key(key, S("BC1Qxyz"));
    ok(n == 8 && key[0] == 7 && memcmp(key + 1, "BC1Qxyz", 7) == 0,
       "address key: length byte, bytes as given (no case folding)");
    ok(chaindata_rune_address_key_len(key, n) == n
       && chaindata_rune_address_key_len(key, n - 1) == 0,
       "address key: its length read back, a cut one refused");
    ok(chaindata_rune_address_key(key, S("")) == 0,
       "address key: an empty address has none");

    memset(big, 'a', sizeof(big));
    ok(chaindata_rune_address_key(key, big, CHAINDATA_RUNE_ADDRESS_MAX)
       == CHAINDATA_RUNE_ADDRESS_KEY_MAX
       && chaindata_rune_address_key(key, big, sizeof(big)) == 0,
       "address key: 255 bytes the most");
}


static int
sort_before(const char *a, const char *b)
{
    size_t         na, nb, n;
    unsigned char  ka[CHAINDATA_RUNE_SORT_KEY_MAX];
    unsigned char  kb[CHAINDATA_RUNE_SORT_KEY_MAX];

    na = chaindata_rune_sort_key(ka, (const unsigned char *) a, strlen(a));
    nb = chaindata_rune_sort_key(kb, (const unsigned char *) b, strlen(b));

    if (na == 0 || nb == 0) {
        return 0;
    }

    n = na < nb ? na : nb;

    return memcmp(ka, kb, n) < 0 || (memcmp(ka, kb, n) == 0 && na < nb);
}


static void
test_rune_sort_keys(void)
{
    size_t         n;
    unsigned char  key[CHAINDATA_RUNE_SORT_KEY_MAX];

    n = chaindata_rune_sort_key(key, S("0.00"));
    ok(n == 1 && key[0] == 0xff, "sort key: zero is n=0, one byte 0xff");

    n = chaindata_rune_sort_key(key, S("12.05"));
    ok(n == 5 && key[0] == 0xfb && key[1] == 0xfe && key[2] == 0xfd
       && key[3] == 0xff && key[4] == 0xfa,
       "sort key: 12.05 is 0xff-4, then 0xff minus each digit");
    ok(chaindata_rune_sort_key_len(key, n) == n
       && chaindata_rune_sort_key_len(key, n - 1) == 0,
       "sort key: its length read back, a cut one refused");

    ok(sort_before("100.00", "99.99") && sort_before("99.99", "99.98")
       && sort_before("0.01", "0.00") && sort_before("10", "9"),
       "sort key: largest balance first");
    ok(sort_before("340282366920938463463374607431768211455",
                   "340282366920938463463374607431768211454"),
       "sort key: 39 digits");
    ok(chaindata_rune_sort_key(key, S("3402823669209384634633746074317682114"
                                      "550")) == 0,
       "sort key: 40 significant digits refused");
    ok(chaindata_rune_sort_key(key, S("")) == 0
       && chaindata_rune_sort_key(key, S(".5")) == 0
       && chaindata_rune_sort_key(key, S("5.")) == 0
       && chaindata_rune_sort_key(key, S("1.2.3")) == 0
       && chaindata_rune_sort_key(key, S("-1")) == 0,
       "sort key: not a decimal amount refused");
}


static void
test_rune_list_keys(void)
{
    size_t         n, a, e;
    unsigned char  id[CHAINDATA_RUNE_ID_KEY_LEN];
    unsigned char  addr[CHAINDATA_RUNE_ADDRESS_KEY_MAX];
    unsigned char  key[CHAINDATA_RUNE_LIST_ENTRY_KEY_MAX];
    unsigned char  sort[CHAINDATA_RUNE_SORT_KEY_MAX];
    unsigned char  hk[CHAINDATA_RUNE_HOLDER_KEY_MAX];
    uint32_t       count;

    (void) chaindata_rune_id_key(id, S("840000:8"));
    a = chaindata_rune_address_key(addr, S("bc1qabc"));

    n = chaindata_rune_list_key_r(key, id);
    ok(n == 13 && key[0] == 'r' && memcmp(key + 1, id, 12) == 0,
       "list key r: kind, rune id key");
    n = chaindata_rune_list_key_h(key, id);
    ok(n == 13 && key[0] == 'h', "list key h: kind, rune id key");
    n = chaindata_rune_list_key_a(key, addr, a);
    ok(n == 1 + a && key[0] == 'a' && memcmp(key + 1, addr, a) == 0,
       "list key a: kind, address key");
    n = chaindata_rune_list_key_p(key, id, addr, a);
    ok(n == 13 + a && key[0] == 'p' && memcmp(key + 1, id, 12) == 0
       && memcmp(key + 13, addr, a) == 0,
       "list key p: kind, rune id key, address key");

    e = chaindata_rune_list_entry_key(key, key, n, 0x01020304);
    ok(e == n + 4 && key[n] == 1 && key[n + 3] == 4
       && chaindata_rune_list_entry_seq(key, e) == 0x01020304,
       "list entry key: the list key, seq big-endian");

    ok(chaindata_rune_list_count((const unsigned char *) "\x05\x01\0\0", 4,
                                 &count) == 0 && count == 0x105
       && chaindata_rune_list_count((const unsigned char *) "\x05", 1,
                                    &count) != 0,
       "list value: count little-endian, other lengths refused");

    n = chaindata_rune_sort_key(sort, S("5"));
    e = chaindata_rune_holder_key(hk, id, sort, n, addr, a);
    ok(e == 12 + 2 + a && memcmp(hk + 12, sort, 2) == 0
       && memcmp(hk + 14, addr, a) == 0,
       "holder key: rune id, sort key, address key");
    e = chaindata_rune_holding_key(hk, id, addr, a);
    ok(e == 12 + a && memcmp(hk + 12, addr, a) == 0,
       "holding key: rune id, address key");
}


static void
test_rune_block_values(void)
{
    size_t                n;
    uint32_t              count;
    uint64_t              h;
    unsigned char         key[CHAINDATA_RUNE_HASH_KEY_LEN];
    unsigned char         val[CHAINDATA_RUNE_BLOCK_VALUE_LEN];
    unsigned char         hash[CHAINDATA_RUNE_HASH_LEN];
    const unsigned char  *hp, *id, *json;

    memset(hash, 0xab, sizeof(hash));

    n = chaindata_rune_block_key(key, 840090);
    ok(n == 9 && key[0] == 'h' && key[6] == 0x0c && key[7] == 0xd1
       && key[8] == 0x9a, "block key: h, height big-endian");
    n = chaindata_rune_hash_key(key, hash);
    ok(n == 33 && key[0] == 'x' && key[32] == 0xab, "hash key: x, hash");

    n = chaindata_rune_block_value(val, 300, hash);
    ok(n == 36 && chaindata_rune_block_value_parse(val, n, &count, &hp) == 0
       && count == 300 && hp == val + 4
       && chaindata_rune_block_value_parse(val, 35, &count, NULL) != 0,
       "block value: count, hash; other lengths refused");

    ok(chaindata_rune_hash_value_parse((const unsigned char *)
                                       "\0\0\0\0\0\x0c\xd1\x9a", 8, &h) == 0
       && h == 840090
       && chaindata_rune_hash_value_parse(val, 9, &h) != 0,
       "hash value: height big-endian");

    ok(chaindata_rune_id_value_parse((const unsigned char *)
                                     "123456789012{\"a\":1}", 19, &id,
                                     &json, &n) == 0
       && n == 7 && json[0] == '{'
       && chaindata_rune_id_value_parse((const unsigned char *)
                                        "123456789012{", 13, &id, &json,
                                        &n) != 0,
       "etching and ledger values: rune id, then JSON to a brace");

    n = chaindata_rune_name_key(key, S("UNCOMMONGOODS"));
    ok(n == 14 && key[0] == 'n', "name key: n, name");
    chaindata_rune_number_key(val, 7);
    ok(chaindata_rune_number(val) == 7 && val[7] == 7,
       "rune number: big-endian");
}


void
test_runes_layout(void)
{
    test_rune_id_keys();
    test_rune_ledger_keys();
    test_rune_address_keys();
    test_rune_sort_keys();
    test_rune_list_keys();
    test_rune_block_values();
}
