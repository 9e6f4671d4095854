
/*
 * Unit tests: chaindata_runes' path templates and prefixes
 * (chaindata_path.h), and its path parameters (chaindata_paths_runes.h).
 */


#include <string.h>

#include "chaindata_path.h"
#include "chaindata_paths_runes.h"
#include "unit.h"


#define S(s)  (const unsigned char *) (s), strlen(s)


static int
param_is(const chaindata_path_params_t *p, size_t i, const char *s)
{
    return i < p->n && p->param[i].len == strlen(s)
           && memcmp(p->param[i].data, s, p->param[i].len) == 0;
}


void
test_path_templates(void)
{
    chaindata_span_t         rest;
    chaindata_path_params_t  p;
    static const char *const prefixes[] = { "/runes", "/runes/v1", NULL };

    ok(chaindata_path_match("/", S(""), &p) == 0
       && chaindata_path_match("/", S("/"), &p) == 0 && p.n == 0
       && chaindata_path_match("/", S("//"), &p) != 0
       && chaindata_path_match("/", S("/x"), &p) != 0,
       "path: the root is nothing or one slash");

    ok(chaindata_path_match("/etchings/{etching}/activity/{address}",
                            S("/etchings/840000:8/activity/bc1q"), &p) == 0
       && param_is(&p, 0, "840000:8") && param_is(&p, 1, "bc1q"),
       "path: two parameters");

    ok(chaindata_path_match("/etchings/{etching}", S("/etchings/"), &p) == 0
       && param_is(&p, 0, ""),
       "path: an empty parameter matches (its check refuses it)");

    ok(chaindata_path_match("/etchings/{etching}", S("/etchings/a/b"), &p)
       != 0
       && chaindata_path_match("/etchings", S("/etchings/"), &p) != 0
       && chaindata_path_match("/etchings/{e}/holders", S("/etchings/x/h"),
                               &p) != 0,
       "path: no trailing slash, no other shape");

    ok(chaindata_path_prefix(prefixes, S("/runes/v1/etchings"), &rest) == 0
       && rest.len == 9
       && chaindata_path_prefix(prefixes, S("/runes/etchings"), &rest) == 0
       && rest.len == 9
       && chaindata_path_prefix(prefixes, S("/runes/v1"), &rest) == 0
       && rest.len == 0
       && chaindata_path_prefix(prefixes, S("/runes/v10"), &rest) == 0
       && rest.len == 4
       && chaindata_path_prefix(prefixes, S("/runesx"), &rest) != 0
       && chaindata_path_prefix(prefixes, S("/other"), &rest) != 0,
       "path: the longest prefix of whole segments");
}


void
test_runes_params(void)
{
    chaindata_etching_t      e;
    chaindata_block_param_t  b;
    unsigned char            key[CHAINDATA_LIST_KEY_MAX];
    unsigned char            a[CHAINDATA_RUNE_STATE_LEN];
    unsigned char            c[CHAINDATA_RUNE_STATE_LEN];
    unsigned char            state[CHAINDATA_RUNE_STATE_LEN];
    chaindata_span_t         par[1], off;

    chaindata_etching_param(&e, S("840000:8"));
    ok(e.form == CHAINDATA_ETCHING_ID && e.id_key[7] == 0x40
       && e.id_key[11] == 8, "etching: an id");

    chaindata_etching_param(&e, S("840000:08"));
    ok(e.form == CHAINDATA_ETCHING_NONE, "etching: an id with a leading "
       "zero is of the form, no rune's");

    chaindata_etching_param(&e, S("840000:"));
    ok(e.form == CHAINDATA_ETCHING_BAD, "etching: an id without its tx");

    chaindata_etching_param(&e, S("0001"));
    ok(e.form == CHAINDATA_ETCHING_NUMBER && e.number == 1,
       "etching: a number, leading zeros as PostgreSQL reads them");

    chaindata_etching_param(&e, S("9223372036854775807"));
    ok(e.form == CHAINDATA_ETCHING_NUMBER, "etching: the largest bigint");

    chaindata_etching_param(&e, S("9223372036854775808"));
    ok(e.form == CHAINDATA_ETCHING_TOO_BIG, "etching: past a bigint: 500");

    chaindata_etching_param(&e, S("RSICEPICSEVEN"));
    ok(e.form == CHAINDATA_ETCHING_NAME && e.name_len == 13,
       "etching: a name");

    chaindata_etching_param(&e, S("rsicepicseven"));
    ok(e.form == CHAINDATA_ETCHING_BAD, "etching: a lowercase name: 400");

    chaindata_etching_param(&e, S("RSIC\xe2\x80\xa2" "EPIC"));
    ok(e.form == CHAINDATA_ETCHING_SPACED && e.name_len == 8
       && memcmp(e.name, "RSICEPIC", 8) == 0, "etching: a spaced name");

    chaindata_etching_param(&e, S("Rsic\xe2\x80\xa2" "Epic"));
    ok(e.form == CHAINDATA_ETCHING_NONE,
       "etching: a spaced name in mixed case is of the form, no rune's");

    chaindata_etching_param(&e, S("RSIC\xe2\x80\xa2\xe2\x80\xa2" "EPIC"));
    ok(e.form == CHAINDATA_ETCHING_BAD, "etching: two spacers: 400");

    chaindata_etching_param(&e, S("\xe2\x80\xa2" "EPIC"));
    ok(e.form == CHAINDATA_ETCHING_BAD, "etching: a leading spacer: 400");

    ok(chaindata_etching_spaced_is(S("{\"id\":\"1:0\",\"spaced_name\":"
                                     "\"A\xe2\x80\xa2" "B\",\"n\":1}"),
                                   S("A\xe2\x80\xa2" "B"))
       && !chaindata_etching_spaced_is(S("{\"spaced_name\":\"A\xe2\x80\xa2"
                                         "BC\"}"),
                                       S("A\xe2\x80\xa2" "B")),
       "etching: the document's spaced name, byte for byte");

    chaindata_block_param(&b, S("840000"));
    ok(b.form == CHAINDATA_BLOCK_HEIGHT && b.height == 840000,
       "block: a height");

    chaindata_block_param(&b, S("99999999999999999999"));
    ok(b.form == CHAINDATA_BLOCK_NONE, "block: past 2^64 is no block's");

    chaindata_block_param(&b, S("0000000000000000000ad90353e3151312ca0c644a"
                                "37ef26c813c5d050371654"));
    ok(b.form == CHAINDATA_BLOCK_HASH && b.hash[9] == 0x0a,
       "block: a hash");

    chaindata_block_param(&b, S("0000000000000000000AD90353E3151312CA0C644A"
                                "37EF26C813C5D050371654"));
    ok(b.form == CHAINDATA_BLOCK_NONE, "block: a hash in upper case "
       "matches nothing");

    chaindata_block_param(&b, S("1000000000000000000ad90353e3151312ca0c644a"
                                "37ef26c813c5d050371654"));
    ok(b.form == CHAINDATA_BLOCK_BAD, "block: a hash without eight zeros");

    chaindata_block_param(&b, S("-1"));
    ok(b.form == CHAINDATA_BLOCK_BAD, "block: -1");

    ok(chaindata_runes_txid_key(key, S("aea99c66b5a1e8ef97ab048e8517f5e8d94f"
                                       "8f52f9ab4d2ff6c4a2c4a562b64d")) == 32
       && chaindata_runes_txid_key(key, S("AEA99C66B5A1E8EF97AB048E8517F5E8"
                                          "D94F8F52F9AB4D2FF6C4A2C4A562B64D"))
          == 1
       && chaindata_runes_txid_key(key, S("xyz")) == 0,
       "tx id: lowercase its key, upper case no list's, else 400");

    ok(chaindata_runes_address_list_key(key, S("not-an-address")) == 1
       && chaindata_runes_address_list_key(key,
              S("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4")) == 1
       && chaindata_runes_address_list_key(key,
              S("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")) == 43,
       "address: any string, held only as given");

    memset(state, 7, sizeof(state));
    par[0].data = (const unsigned char *) "1";
    par[0].len = 1;
    off.data = (const unsigned char *) "0";
    off.len = 1;

    chaindata_runes_etag(a, state, "runes_etching", par, 1, NULL, 0);
    chaindata_runes_etag(c, state, "runes_etching", par, 1, NULL, 0);
    ok(memcmp(a, c, sizeof(a)) == 0, "etag: the same answer, the same tag");

    chaindata_runes_etag(c, state, "runes_etching_activity", par, 1, &off,
                         20);
    ok(memcmp(a, c, sizeof(a)) != 0, "etag: another route, another tag");

    state[0] = 8;
    chaindata_runes_etag(c, state, "runes_etching", par, 1, NULL, 0);
    ok(memcmp(a, c, sizeof(a)) != 0, "etag: another state, another tag");
}
