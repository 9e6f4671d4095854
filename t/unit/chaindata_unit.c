
/*
 * Unit tests of the nginx-free code: key codecs, query integers, JSON
 * escaping, the document tree, the tx and rune records, request targets.
 * Prints TAP; run by t/01-unit.t under prove.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "chaindata_accept_encoding.h"
#include "chaindata_address.h"
#include "chaindata_chainhook_path.h"
#include "chaindata_digest.h"
#include "chaindata_escape.h"
#include "chaindata_hex.h"
#include "chaindata_int.h"
#include "chaindata_jdoc.h"
#include "chaindata_jsnum.h"
#include "chaindata_layout.h"
#include "chaindata_migration_map.h"
#include "chaindata_paths.h"
#include "chaindata_piece.h"
#include "chaindata_chunks.h"
#include "chaindata_record.h"


static int  tests, failed;


static void
ok(int cond, const char *name)
{
    tests++;

    if (!cond) {
        failed++;
    }

    printf("%sok %d - %s\n", cond ? "" : "not ", tests, name);
}


static void
test_hex_and_ids(void)
{
    int            prefixed;
    unsigned char  bin[32], txt[65];
    const char    *id = "0xABCDEF0123456789abcdef0123456789"
                        "abcdef0123456789abcdef0123456789";

    ok(chaindata_txid_parse((const unsigned char *) id, 66, bin,
                            &prefixed) == 0 && prefixed,
       "txid with 0x, mixed case");
    *chaindata_hex_encode(txt, bin, 32) = '\0';
    ok(strcmp((char *) txt, "abcdef0123456789abcdef0123456789"
                            "abcdef0123456789abcdef0123456789") == 0,
       "hex encodes lowercase");
    ok(chaindata_txid_parse((const unsigned char *) id + 2, 64, bin,
                            &prefixed) == 0 && !prefixed,
       "txid without 0x");
    ok(chaindata_txid_parse((const unsigned char *) id, 65, bin,
                            &prefixed) != 0, "txid too short");
    ok(chaindata_txid_parse((const unsigned char *) "0X" "ab", 4,
                            bin, &prefixed) != 0, "0X refused");
    ok(chaindata_hex_decode(bin, (const unsigned char *) "0g", 2)
       != 0, "bad hex digit");
    ok(chaindata_hex_value('F') == 15 && chaindata_hex_value('f') == 15
       && chaindata_hex_value(0x10) == -1 && chaindata_hex_value(0x1a) == -1
       && chaindata_hex_value('g') == -1, "hex digit values, control bytes");
    ok(chaindata_hex_is_lower((const unsigned char *) "09af", 4)
       && !chaindata_hex_is_lower((const unsigned char *) "09aF", 4)
       && !chaindata_hex_is_lower((const unsigned char *) "0x", 2),
       "lowercase hex digits");
}


/* the digit table against the digits' definition, every byte value */

static void
test_hex_table(void)
{
    int            good, want, c, d;
    unsigned char  pair[2], b, p[8];

    good = 1;

    for (c = 0; c < 256; c++) {
        want = (c >= '0' && c <= '9') ? c - '0'
               : (c >= 'a' && c <= 'f') ? c - 'a' + 10
               : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        good &= chaindata_hex_value((unsigned char) c) == want;

        for (d = 0; d < 256; d += 17) {
            pair[0] = (unsigned char) c;
            pair[1] = (unsigned char) d;
            good &= (chaindata_hex_decode(&b, pair, 2) == 0)
                    == (want >= 0 && chaindata_hex_value(pair[1]) >= 0);
        }
    }

    ok(good, "hex digit table: every byte, alone and in pairs");

    chaindata_put_u32be(p, 0x01020304);
    chaindata_put_u32le(p + 4, 0x01020304);
    ok(memcmp(p, "\x01\x02\x03\x04\x04\x03\x02\x01", 8) == 0
       && chaindata_get_u32be(p) == 0x01020304
       && chaindata_get_u32le(p + 4) == 0x01020304, "u32 be and le");

    chaindata_put_u64le(p, 0x8877665544332211ULL);
    ok(memcmp(p, "\x11\x22\x33\x44\x55\x66\x77\x88", 8) == 0
       && chaindata_get_u64le(p) == 0x8877665544332211ULL, "u64 le");
}


static void
test_digest(void)
{
    unsigned char       sha[CHAINDATA_SHA256_LEN], hex[65];
    chaindata_digest_t  d;

    chaindata_digest_init(&d);
    chaindata_digest_add(&d, (const unsigned char *) "a", 1);
    chaindata_digest_add(&d, (const unsigned char *) "bc", 2);
    chaindata_digest_final(&d, sha);
    *chaindata_hex_encode(hex, sha, sizeof(sha)) = '\0';
    ok(strcmp((char *) hex, "b4c620724d95022be9765d6f660a36f9"
                            "0835acab2437b5e8cd71812940b29346") == 0,
       "digest: pieces joined by newlines");

    chaindata_digest_init(&d);
    chaindata_digest_final(&d, sha);
    ok(memcmp(sha, CHAINDATA_EMPTY_DIGEST, CHAINDATA_DIGEST_LEN) == 0,
       "digest of no pieces: the empty list's");
}


/* Number(s) as JavaScript makes it; -1 for NaN (and an empty s) */

static int
js_number(const char *s, double *d)
{
    return chaindata_js_number((const unsigned char *) s, strlen(s), d);
}


static void
test_js_number(void)
{
    size_t  i;
    double  d;

    static const struct {
        const char  *in;
        double       out;
    } good[] = {
        { "20", 20 }, { "+2", 2 }, { "-7", -7 }, { "0x10", 16 },
        { "0X1f", 31 }, { "0o17", 15 }, { "0B101", 5 }, { "1.0", 1 },
        { "1e1", 10 }, { "1E+1", 10 }, { "5.", 5 }, { ".5e1", 5 },
        { "007", 7 }, { "0e5", 0 }, { " 5", 5 }, { "\t5\n\v\f\r", 5 },
        { "\xc2\xa0" "5" "\xe3\x80\x80\xef\xbb\xbf", 5 },
        { "\xe2\x80\xa8" "5" "\xe2\x80\x8a", 5 }, { "1.5", 1.5 },
        { "1e-400", 0 }, { "1.0000000000000001", 1 },
        /* to the nearest double, ties to even, however long */
        { "9007199254740993", 0x1p53 },
        { "0x20000000000001", 0x1p53 },
        { "0x20000000000003", 0x1.0000000000002p53 },
        { "0x2000000000000100000000000000001", 0x1.0000000000001p121 },
        { "0o777777777777777777777777777777", 0x1p90 },
        { "0b1111111111111111111111111111111111111111111111111111111111"
          "111111111111", 0x1p70 },
    };

    static const char  *nan[] = {
        "", " ", "\xc2\xa0", "abc", "-", "+", ".", "1e", "e1", "1e+",
        "-0x10", "+0x10", "0x", "0x1g", "0o8", "0b2", "00x10", "1_000",
        "1 2", "infinity", "Infinityx", "inf", "nan", "0x1p3", "1,5",
        "\xe1\xa0\x8e" "5",                 /* U+180E is no space now */
        "5\xc2",
    };

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        ok(js_number(good[i].in, &d) == 0 && d == good[i].out,
           good[i].in);
    }

    for (i = 0; i < sizeof(nan) / sizeof(nan[0]); i++) {
        ok(js_number(nan[i], &d) == -1, nan[i]);
    }

    ok(js_number("-0", &d) == 0 && d == 0
       && chaindata_js_is_integer(d), "-0 is an integer");
    ok(js_number("-Infinity", &d) == 0 && d < 0
       && !chaindata_js_is_integer(d), "-Infinity is no integer");
    ok(js_number("1e400", &d) == 0 && !chaindata_js_is_integer(d),
       "1e400 is Infinity, no integer");
    ok(js_number("0x" "ffffffffffffffffffffffffffffffffffffffffffffffff"
                 "ffffffffffffffffffffffffffffffffffffffffffffffffffff"
                 "ffffffffffffffffffffffffffffffffffffffffffffffffffff"
                 "ffffffffffffffffffffffffffffffffffffffffffffffffffff"
                 "ffffffffffffffffffffffffffffffffffffffffffffffffffff"
                 "ffffffffffffffffffffffffffffffffffffffffffffffffffff"
                 "ffffffffffff", &d) == 0
       && !chaindata_js_is_integer(d), "0x and 1300 bits is Infinity");
    ok(!chaindata_js_is_integer(1.5) && chaindata_js_is_integer(1e300),
       "is_integer");
    ok(chaindata_js_to_u64(-0.0) == 0 && chaindata_js_to_u64(7) == 7
       && chaindata_js_to_u64(0x1p64) == UINT64_MAX
       && chaindata_js_to_u64(0x1.fffffffffffffp63)
          == 0xfffffffffffff800, "to_u64 saturates at 2^64");
}


static void
test_js_integer_text(void)
{
    size_t         i, n;
    unsigned char  buf[CHAINDATA_JS_TEXT_LEN];

    static const struct {
        double       in;
        const char  *out;
    } cases[] = {
        { 0, "0" }, { -0.0, "0" }, { 2, "2" }, { 16, "16" },
        { 4294967296.0, "4294967296" },
        { 9007199254740993.0, "9007199254740992" },
        { 18446744073709551615.0, "18446744073709552000" },
        { 1e20, "100000000000000000000" },
        { 123456789012345678901.0, "123456789012345680000" },
        { 1e21, "1e+21" }, { 0x1p70, "1.1805916207174113e+21" },
        { 123456789012345678901234567890.0, "1.2345678901234568e+29" },
        { 1.7976931348623157e308, "1.7976931348623157e+308" },
    };

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        n = chaindata_js_integer_text(buf, cases[i].in);
        ok(n == strlen(cases[i].out) && memcmp(buf, cases[i].out, n) == 0,
           cases[i].out);
    }
}


/* one byte escaped the simple way, as the word-at-a-time code must */

static unsigned char *
escape_byte(unsigned char *dst, unsigned char c)
{
    static const char  *hex = "0123456789abcdef";

    if (c == '"' || c == '\\') {
        *dst++ = '\\';
        *dst++ = c;

    } else if (c == '\b' || c == '\f' || c == '\n' || c == '\r'
               || c == '\t')
    {
        *dst++ = '\\';
        *dst++ = c == '\b' ? 'b' : c == '\f' ? 'f' : c == '\n' ? 'n'
                 : c == '\r' ? 'r' : 't';

    } else if (c < 0x20) {
        dst += sprintf((char *) dst, "\\u00%c%c", hex[c >> 4], hex[c & 15]);

    } else {
        *dst++ = c;
    }

    return dst;
}


/*
 * Every byte value at every place of a word, alone among plain bytes and
 * among others of its kind, and random strings: escaped as byte by byte.
 */

static void
test_json_escape_words(void)
{
    int            good;
    size_t         i, at, len, k;
    unsigned       seed, c;
    unsigned char  in[40], want[240], out[240], *w, *e;

    good = 1;
    seed = 3;

    for (i = 0; i < 256 * 24 + 20000; i++) {
        if (i < 256 * 24) {
            c = (unsigned) (i / 24);
            at = i % 24;
            len = 24;
            memset(in, 'a' + (i % 3 == 0 ? 0 : 0x5d), len);
            in[at] = (unsigned char) c;

        } else {
            seed = seed * 1103515245 + 12345;
            len = (seed >> 16) % 40;

            for (k = 0; k < len; k++) {
                seed = seed * 1103515245 + 12345;
                c = (seed >> 16) & 0xff;
                in[k] = (unsigned char) ((seed >> 8) % 4 ? 0x20 + c % 0x60
                                                         : c);
            }
        }

        for (w = want, k = 0; k < len; k++) {
            w = escape_byte(w, in[k]);
        }

        e = chaindata_json_escape(out, in, len);

        good &= (size_t) (e - out) == (size_t) (w - want)
                && memcmp(out, want, w - want) == 0
                && chaindata_json_escape_len(in, len)
                   == (size_t) (w - want);
    }

    ok(good, "escapes: every byte at every place of a word, and random "
             "strings, as byte by byte");
}


static void
test_json_escape(void)
{
    unsigned char  out[64], *end;
    const char    *in = "a\"b\\c\n\x01/\xc3\xa9";
    const char    *want = "a\\\"b\\\\c\\n\\u0001/\xc3\xa9";

    end = chaindata_json_escape(out, (const unsigned char *) in,
                                strlen(in));
    ok((size_t) (end - out) == strlen(want)
       && memcmp(out, want, strlen(want)) == 0, "escapes like JSON.stringify");
    ok(chaindata_json_escape_len((const unsigned char *) in,
                                 strlen(in)) == strlen(want),
       "escape length");

    test_json_escape_words();
}


/* a tx value of pieces of "0123456789" cut at the offsets given */

static size_t
make_txh(unsigned char *buf, chaindata_txh_t *h, const size_t *cuts,
    size_t ncuts)
{
    size_t                 i, from, n;
    chaindata_deflater_t  *d;

    d = chaindata_deflater_create(1);
    chaindata_txh_encode(buf, h);
    n = CHAINDATA_TXH_SIZE;
    from = 0;

    for (i = 0; i < ncuts; i++) {
        n += chaindata_piece_make(d, (const unsigned char *) "0123456789"
                                     + from, cuts[i] - from, buf + n);
        from = cuts[i];
    }

    chaindata_deflater_destroy(d);

    return n;
}


static void
test_txh(void)
{
    size_t           n;
    unsigned char    buf[CHAINDATA_TXH_SIZE + 4 * 100];
    chaindata_txh_t  h, d;
    static const size_t  cuts[] = { 5, 6, 10 };
    static const size_t  cut7[] = { 5, 6, 7, 10 };

    memset(&h, 0, sizeof(h));
    h.flags = CHAINDATA_TXH_EVENTS | CHAINDATA_TXH_FARGS;
    h.event_count = 3;
    h.events_at = 5;
    h.fargs_start = 6;
    h.fargs_len = 4;
    memset(h.digest, 0xab, sizeof(h.digest));

    n = make_txh(buf, &h, cuts, 3);

    ok(chaindata_txh_decode(&d, buf, n) == 0
       && d.event_count == 3 && d.events_at == 5 && d.fargs_start == 6
       && d.fargs_len == 4 && d.doc_len == 10 && d.npieces == 3
       && d.at[1] == 5 && d.at[2] == 6 && d.piece[2].plain_len == 4
       && memcmp(d.digest, h.digest, sizeof(h.digest)) == 0,
       "tx header round trip, three pieces");

    h.fargs_len = 5;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "function_args span past the document refused");

    h.fargs_len = 3;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "function_args span that cuts a piece refused");

    h.fargs_len = 4;
    h.events_at = 11;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "events offset past the document refused");

    h.flags = CHAINDATA_TXH_FARGS;
    h.event_count = 0;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "events offset past the document refused without events too");

    h.flags = CHAINDATA_TXH_EVENTS | CHAINDATA_TXH_FARGS;
    h.event_count = 3;
    h.events_at = 7;
    n = make_txh(buf, &h, cut7, 4);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "events offset inside function_args refused");

    h.events_at = 5;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n - 1) != 0,
       "a cut piece refused");

    /* the first chunk inline: the value's last bytes, their length */
    memcpy(buf + n, "CHUNK", 5);
    h.flags |= CHAINDATA_TXH_CHUNK0;
    h.chunk0_len = 5;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) == 0 && d.chunk0 == buf + n
       && d.chunk0_len == 5 && d.npieces == 3 && d.doc_len == 10,
       "tx header with its first chunk inline");
    ok(chaindata_txh_decode(&d, buf, n + 4) != 0,
       "an inline chunk that eats a piece refused");
    h.chunk0_len = n + 6 - CHAINDATA_TXH_SIZE;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) != 0,
       "an inline chunk longer than the value refused");
    h.chunk0_len = 0;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) != 0,
       "the inline flag without a length refused");
    h.flags &= ~CHAINDATA_TXH_CHUNK0;
    h.chunk0_len = 5;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) != 0,
       "a length without the inline flag refused");
    h.flags = CHAINDATA_TXH_FARGS | CHAINDATA_TXH_CHUNK0;
    h.event_count = 0;
    h.events_at = 0;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) != 0,
       "an inline chunk without events refused");
    h.flags = CHAINDATA_TXH_EVENTS | CHAINDATA_TXH_FARGS;
    h.event_count = 3;
    h.events_at = 5;
    h.chunk0_len = 0;
    chaindata_txh_encode(buf, &h);

    buf[0] = 1;
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "unknown format (schema 2's) refused");
    ok(chaindata_txh_decode(&d, buf, 10) != 0, "short value");
}


/* a list header, with its first chunk inline and without, and hostile */

static void
test_listh(void)
{
    unsigned char      buf[CHAINDATA_LISTH_SIZE + 8];
    chaindata_listh_t  h, d;

    memset(&h, 0, sizeof(h));
    h.count = 21;
    memset(h.digest, 0xcd, sizeof(h.digest));

    chaindata_listh_encode(buf, &h);
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE) == 0
       && d.count == 21 && d.chunk0 == NULL && d.chunk0_len == 0,
       "list header without its first chunk");
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 3) != 0,
       "bytes after a header without the flag refused");

    h.chunk0_len = 3;
    chaindata_listh_encode(buf, &h);
    memcpy(buf + CHAINDATA_LISTH_SIZE, "abc", 3);
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 3) == 0
       && d.chunk0 == buf + CHAINDATA_LISTH_SIZE && d.chunk0_len == 3
       && d.count == 21 && buf[1] == CHAINDATA_LISTH_CHUNK0,
       "list header with its first chunk inline");
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 2) != 0
       && chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 4) != 0,
       "an inline chunk of another length refused");

    buf[1] = 0;
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 3) != 0,
       "a length without the flag refused");

    buf[1] = CHAINDATA_LISTH_CHUNK0;
    buf[2] = 0;
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE) != 0,
       "the flag without a length refused");

    buf[1] = 0x02;
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE) != 0,
       "an unknown flag refused");

    h.count = 0;
    chaindata_listh_encode(buf, &h);
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 3) != 0,
       "an inline chunk of an empty list refused");
}


/* a write's value joined to the one before, and the limit it keeps */

static void
test_writeset_join(void)
{
    int                   good;
    unsigned char        *v;
    chaindata_writeset_t  ws;

    memset(&ws, 0, sizeof(ws));

    v = chaindata_writeset_add(&ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_TX,
                               (unsigned char *) "k1", 2, 3);
    memcpy(v, "abc", 3);
    v = chaindata_writeset_add(&ws, CHAINDATA_WRITE_PUT,
                               CHAINDATA_DBI_TX_EVENT,
                               (unsigned char *) "k2", 2, 2);
    memcpy(v, "de", 2);
    v = chaindata_writeset_add(&ws, CHAINDATA_WRITE_PUT,
                               CHAINDATA_DBI_TX_EVENT,
                               (unsigned char *) "k3", 2, 2);
    memcpy(v, "fg", 2);

    ok(chaindata_writeset_join(&ws, 0, 6) == 0 && ws.nwrites == 3,
       "join: over the limit, nothing moved");

    good = chaindata_writeset_join(&ws, 0, 7) == 2 && ws.nwrites == 2
           && ws.writes[0].val_len == 5
           && memcmp(ws.buf + ws.writes[0].val_off, "abcde", 5) == 0
           && ws.writes[1].key_len == 2
           && memcmp(ws.buf + ws.writes[1].key_off, "k3", 2) == 0
           && memcmp(ws.buf + ws.writes[1].val_off, "fg", 2) == 0
           && ws.len == 2 + 5 + 2 + 2;
    ok(good, "join: the next value moved, the writes after it shifted");

    ok(chaindata_writeset_join(&ws, 1, 100) == 0,
       "join: the last write has none after it");

    chaindata_writeset_free(&ws);
}


static void
test_jdoc(void)
{
    int                 i, found;
    char                err[256], wide[1024], name[16], *p, *end;
    unsigned char       out[256], out2[1024];
    chaindata_jv_t     *v, *m;
    chaindata_arena_t  *a;
    const char  *doc = "{\"b\":1.50,\"a\":[true,false,null,\"x\\u00e9\"],"
                       "\"c\":{}}";
    const char  *want = "{\"b\":1.50,\"a\":[true,false,null,\"x\xc3\xa9\"],"
                        "\"c\":{}}";
    char         deep[200];
    const char  *sur = "[\"\\ud800\",\"a\\uDC00b\",\"\\ud800\\u00e9\","
                       "\"\\ud83d\\ude00\",\"\\\\ud800\",\"\\udbff\\udfff\","
                       "\"\\ud800\\ud800\\n\",{\"\\udc00\":\"\\u00e9\"}]";
    const char  *sur_want = "[\"\\ud800\",\"a\\udc00b\",\"\\ud800\xc3\xa9\","
                            "\"\xf0\x9f\x98\x80\",\"\\\\ud800\","
                            "\"\xf4\x8f\xbf\xbf\",\"\\ud800\\ud800\\n\","
                            "{\"\\udc00\":\"\xc3\xa9\"}]";
    const char  *bad_utf8[] = {
        "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "[\"\\ud800\",\"\xed\xbf\xbf\"]",
        "[\"\\ud800\xc0\xaf\"]", "{\"\\ud800\":1,\"\xed\xa0\x80\":2}",
    };

    a = chaindata_arena_create();

    v = chaindata_jdoc_parse(a, (const unsigned char *) doc,
                             strlen(doc), err, sizeof(err));
    ok(v != NULL, "parses");
    ok(v && chaindata_jv_size(v) == strlen(want)
       && chaindata_jv_write(out, v) - out == (long) strlen(want)
       && memcmp(out, want, strlen(want)) == 0,
       "member order and number text kept, escapes decoded");

    v = chaindata_jdoc_parse(a, (const unsigned char *) "{\"a\":1,"
                             "\"a\":2}", 13, err, sizeof(err));
    ok(v == NULL && strstr(err, "duplicate member \"a\"") != NULL,
       "duplicate member refused");

    /* a wide object: its members indexed, found by name, kept in order */
    p = wide + sprintf(wide, "{");

    for (i = 40; i > 0; i--) {
        p += sprintf(p, "\"k%d\":%d,", i, i);
    }

    end = p + sprintf(p, "\"k\":0,\"k4\\u0000\":41}");
    v = chaindata_jdoc_parse(a, (const unsigned char *) wide,
                             end - wide, err, sizeof(err));
    ok(v && v->index && v->n == 42, "a wide object is indexed");

    for (i = 1, found = 0; v && i <= 40; i++) {
        sprintf(name, "k%d", i);
        m = chaindata_jv_get(v, name);
        found += (m && m->len == strlen(name) - 1
                  && memcmp(m->str, name + 1, m->len) == 0);
    }

    ok(found == 40, "wide object: every member found by name");
    ok(v && chaindata_jv_is_integer(chaindata_jv_get(v, "k"))
       && chaindata_jv_get(v, "k")->str[0] == '0'
       && chaindata_jv_get(v, "k4")->str[0] == '4'
       && chaindata_jv_get(v, "k41") == NULL
       && chaindata_jv_get(v, "k0") == NULL
       && chaindata_jv_get(v, "") == NULL,
       "wide object: absent names not found, a NUL in a name kept apart");
    ok(v && chaindata_jv_size(v) == (size_t) (end - wide)
       && chaindata_jv_write(out2, v) - out2 == end - wide
       && memcmp(out2, wide, end - wide) == 0,
       "wide object: written back in the order given");

    strcpy(end - 1, ",\"k40\":0}");
    v = chaindata_jdoc_parse(a, (const unsigned char *) wide,
                             strlen(wide), err, sizeof(err));
    ok(v == NULL && strstr(err, "duplicate member \"k40\"") != NULL,
       "wide object: a duplicate found");

    /* lone surrogates kept as given, written as JSON.stringify does */
    v = chaindata_jdoc_parse(a, (const unsigned char *) sur,
                             strlen(sur), err, sizeof(err));
    ok(v && chaindata_jv_size(v) == strlen(sur_want)
       && chaindata_jv_write(out2, v) - out2 == (long) strlen(sur_want)
       && memcmp(out2, sur_want, strlen(sur_want)) == 0,
       "lone surrogates kept, pairs joined, escapes lowercase");
    v = chaindata_jdoc_parse(a, (const unsigned char *) sur_want,
                             strlen(sur_want), err, sizeof(err));
    ok(v && chaindata_jv_write(out2, v) - out2 == (long) strlen(sur_want)
       && memcmp(out2, sur_want, strlen(sur_want)) == 0,
       "lone surrogates: what is written reads back the same");
    ok(v && chaindata_jv_get(v->child->next->next->next->next->next
                             ->next->next, "\xed\xb0\x80") != NULL,
       "a member named by a lone surrogate");

    for (i = 0; i < (int) (sizeof(bad_utf8) / sizeof(bad_utf8[0])); i++) {
        v = chaindata_jdoc_parse(a, (const unsigned char *) bad_utf8[i],
                                 strlen(bad_utf8[i]), err, sizeof(err));
        ok(v == NULL && strstr(err, "not valid UTF-8") != NULL,
           "bytes of a surrogate or an overlong form refused");
    }

    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    v = chaindata_jdoc_parse(a, (const unsigned char *) deep, 200,
                             err, sizeof(err));
    ok(v == NULL && strstr(err, "64") != NULL, "nesting limit");

    v = chaindata_jdoc_parse(a, (const unsigned char *) "{\"a\":",
                             5, err, sizeof(err));
    ok(v == NULL && strstr(err, "malformed JSON") != NULL, "truncated");

    v = chaindata_jdoc_parse(a, (const unsigned char *) "\"\xff\"",
                             3, err, sizeof(err));
    ok(v == NULL, "invalid UTF-8 refused");

    chaindata_arena_destroy(a);
}


static const char  *tx_doc =
    "{\"kind\":\"tx\",\"data\":{\"tx_id\":\"0x%s\",\"nonce\":1,"
    "\"fee_rate\":\"1\",\"sender_address\":\"SP1\",\"sponsored\":false,"
    "\"post_condition_mode\":\"allow\",\"post_conditions\":[],"
    "\"anchor_mode\":\"any\",\"block_hash\":\"0x00\",\"block_height\":1,"
    "\"block_time\":1,\"block_time_iso\":\"x\",\"burn_block_time\":1,"
    "\"burn_block_height\":1,\"burn_block_time_iso\":\"x\","
    "\"parent_burn_block_time\":1,\"parent_burn_block_time_iso\":\"x\","
    "\"canonical\":true,\"tx_index\":0,\"tx_status\":\"success\","
    "\"tx_result\":{\"hex\":\"0x\",\"repr\":\"x\"},\"event_count\":%s,"
    "\"parent_block_hash\":\"0x00\",\"is_unanchored\":false,"
    "\"microblock_hash\":\"0x\",\"microblock_sequence\":0,"
    "\"microblock_canonical\":true,\"execution_cost_read_count\":0,"
    "\"execution_cost_read_length\":0,\"execution_cost_runtime\":0,"
    "\"execution_cost_write_count\":0,\"execution_cost_write_length\":0,"
    "\"vm_error\":null,\"events\":[%s],\"tx_type\":\"contract_call\","
    "\"contract_call\":{\"contract_id\":\"SP1.c\",\"function_name\":\"f\","
    "\"function_signature\":\"s\",\"function_args\":[]}}}";


static int
parse_tx(chaindata_record_t *rec, chaindata_writeset_t *ws,
    const char *id, const char *count, const char *events)
{
    char  line[4096];

    snprintf(line, sizeof(line), tx_doc, id, count, events);

    return chaindata_record_parse(rec, (unsigned char *) line,
                                  strlen(line), ws);
}


static void
test_record_tx(void)
{
    char                 *doc;
    size_t                nwrites;
    size_t                used;
    chaindata_txh_t       h;
    chaindata_chunk_t     ec;
    chaindata_record_t    rec;
    chaindata_write_t    *w;
    chaindata_writeset_t  ws;
    chaindata_inflater_t *in;
    char                  plain[4096];
    const char  *id = "00112233445566778899aabbccddeeff"
                      "00112233445566778899aabbccddeeff";
    char         ev[512];

    memset(&ws, 0, sizeof(ws));
    chaindata_record_init(&rec);

    snprintf(ev, sizeof(ev),
             "{\"event_index\":1,\"event_type\":\"stx_lock\","
             "\"tx_id\":\"0x%s\",\"stx_lock_event\":{}},"
             "{\"event_index\":0,\"event_type\":"
             "\"smart_contract_log\",\"tx_id\":\"0x%s\",\"contract_log\":{}}",
             id, id);

    ok(parse_tx(&rec, &ws, id, "2", ev) == 0, "valid tx accepted");
    ok(ws.nwrites == 2, "writes: clear events, header with its chunk");

    w = &ws.writes[1];
    ok(chaindata_txh_decode(&h, ws.buf + w->val_off, w->val_len)
       == 0 && h.event_count == 2, "header decodes");
    ok((h.flags & CHAINDATA_TXH_CHUNK0) && h.chunk0_len
       && h.chunk0 + h.chunk0_len == ws.buf + w->val_off + w->val_len,
       "the one chunk of events inside the header's value, at its end");

    /* the document's pieces inflated one after the other */
    in = chaindata_inflater_create();
    doc = plain;
    used = 0;

    for (nwrites = 0; nwrites < h.npieces; nwrites++) {
        used |= chaindata_piece_inflate(in, &h.piece[nwrites],
                                        (unsigned char *) doc
                                        + h.at[nwrites]);
    }

    ok(used == 0 && h.npieces == 4, "the document: four pieces");
    ok(h.events_at && memcmp(doc + h.events_at - 10, "\"events\":[]", 10) == 0,
       "events spliced at the emptied array");
    ok((h.flags & CHAINDATA_TXH_FARGS)
       && memcmp(doc + h.fargs_start, ",\"function_args\":[]", h.fargs_len)
          == 0, "function_args span with its comma");

    ok(chaindata_chunk_decode(&ec, h.chunk0, h.chunk0_len) == 0
       && ec.n == 2
       && chaindata_piece_inflate(in, &ec.piece, (unsigned char *) plain)
          == 0
       && memcmp(plain, "{\"event_index\":0", 16) == 0
       && memcmp(plain + chaindata_chunk_item_start(&ec, 1) - 1,
                 ",{\"event_index\":1", 17) == 0,
       "events sorted by event_index, one chunk");
    chaindata_inflater_destroy(in);

    nwrites = ws.nwrites;

    ok(parse_tx(&rec, &ws, id, "3", ev) != 0
       && strstr(rec.err, "event_count") != NULL && ws.nwrites == nwrites,
       "event_count mismatch refused, write set untouched");
    ok(parse_tx(&rec, &ws, "00", "2", ev) != 0
       && strstr(rec.err, "tx_id") != NULL, "bad tx_id refused");

    snprintf(ev, sizeof(ev),
             "{\"event_index\":0,\"event_type\":\"stx_lock\","
             "\"tx_id\":\"0x%s\",\"stx_lock_event\":{}},"
             "{\"event_index\":0,\"event_type\":"
             "\"smart_contract_log\",\"tx_id\":\"0x%s\",\"contract_log\":{}}",
             id, id);
    ok(parse_tx(&rec, &ws, id, "2", ev) != 0
       && strstr(rec.err, "event_index 0") != NULL, "duplicate event_index");

    ok(chaindata_record_parse(&rec, (unsigned char *)
           "{\"kind\":\"tx\",\"delete\":\"0xZZ\"}", 29, &ws) != 0,
       "bad delete id refused");
    ok(chaindata_record_parse(&rec, (unsigned char *)
           "{\"kind\":\"tx\",\"dat\":{}}", 22, &ws) != 0,
       "missing data refused");
    ok(chaindata_record_parse(&rec, (unsigned char *)
           "{\"kind\":\"nope\"}", 15, &ws) != 0
       && strstr(rec.err, "unknown kind") != NULL, "unknown kind refused");
    ok(chaindata_record_parse(&rec, (unsigned char *) "[]", 2, &ws)
       != 0, "not an object");

    chaindata_writeset_free(&ws);
    chaindata_record_free(&rec);
}


/*
 * A rune list of 41 balances: its old chunks cleared, the header (count,
 * digest of the entries joined by newlines), then chunks 0, 1 and 2 of
 * 20, 20 and 1 entries keyed (address key, chunk number), each inflating
 * to its entries joined by commas (lmdb-schema/runes.md).
 */

static void
test_record_rune_chunks(void)
{
    int                    good;
    char                  *p;
    size_t                 key_len, ckey_len, len;
    unsigned               i, k, n;
    chaindata_chunk_t      c;
    chaindata_listh_t      h;
    chaindata_digest_t     d;
    chaindata_record_t     rec;
    chaindata_write_t     *w;
    chaindata_writeset_t   ws;
    chaindata_inflater_t  *in;
    unsigned char          key[CHAINDATA_LIST_KEY_MAX];
    unsigned char          ckey[CHAINDATA_LIST_ENTRY_KEY_MAX];
    unsigned char          sha[CHAINDATA_SHA256_LEN];
    char                   entry[41][96];
    char                   line[8192], want[4096];
    unsigned char          plain[4096];
    const char  *addr = "bc1qa667e6hcnwx2p4rm2vr08cla79ka8g2mkvvcd9";

    memset(&ws, 0, sizeof(ws));
    chaindata_record_init(&rec);
    chaindata_digest_init(&d);

    p = line + sprintf(line, "{\"kind\":\"rune_balances\",\"address\":"
                             "\"%s\",\"results\":[", addr);

    for (i = 0; i < 41; i++) {
        sprintf(entry[i], "{\"rune\":{\"id\":\"840000:%u\",\"name\":"
                "\"AB\",\"spaced_name\":\"A\xe2\x80\xa2" "B\"},"
                "\"balance\":\"%u\"}", i, 1000 - i);
        p += sprintf(p, "%s%s", i ? "," : "", entry[i]);
        chaindata_digest_add(&d, (unsigned char *) entry[i],
                             strlen(entry[i]));
    }

    strcpy(p, "]}");
    chaindata_digest_final(&d, sha);

    ok(chaindata_record_parse(&rec, (unsigned char *) line, strlen(line),
                              &ws)
       == 0 && ws.nwrites == 4,
       "runes: 41 balances, writes: clear, header with chunk 0, two chunks");

    key_len = chaindata_address_key(key, (unsigned char *) addr,
                                    strlen(addr));
    w = &ws.writes[1];
    ok(w->db == CHAINDATA_DBI_RUNE_BALANCES
       && chaindata_listh_decode(&h, ws.buf + w->val_off, w->val_len) == 0
       && h.count == 41 && memcmp(h.digest, sha, CHAINDATA_DIGEST_LEN) == 0
       && h.chunk0_len > 0
       && h.chunk0 + h.chunk0_len == ws.buf + w->val_off + w->val_len,
       "runes: the header counts 41, the digest, chunk 0 inside");

    in = chaindata_inflater_create();
    good = in != NULL;

    for (k = 0; k < 3 && good; k++) {
        w = &ws.writes[1 + k];
        n = k < 2 ? 20 : 1;
        ckey_len = chaindata_list_entry_key(ckey, key, key_len, k);

        for (p = want, i = 20 * k; i < 20 * k + n; i++) {
            p += sprintf(p, "%s%s", i > 20 * k ? "," : "", entry[i]);
        }

        len = p - want;

        good = (k == 0
                ? chaindata_chunk_decode(&c, h.chunk0, h.chunk0_len) == 0
                : w->db == CHAINDATA_DBI_RUNE_BALANCE_ENTRY
                  && w->key_len == ckey_len
                  && memcmp(ws.buf + w->key_off, ckey, ckey_len) == 0
                  && chaindata_chunk_decode(&c, ws.buf + w->val_off,
                                            w->val_len) == 0)
               && c.n == n && c.piece.plain_len == len
               && chaindata_piece_inflate(in, &c.piece, plain) == 0
               && memcmp(plain, want, len) == 0
               && (n == 1
                   || chaindata_chunk_item_start(&c, 19)
                      == (uint32_t) (len - strlen(entry[20 * k + 19])));
    }

    ok(good, "runes: chunk 0 inline, 1, 2 keyed by number, 20, 20, 1 entries");

    chaindata_inflater_destroy(in);
    chaindata_writeset_free(&ws);
    chaindata_record_free(&rec);
}


static void
test_utf8(void)
{
    size_t  i;

    static const struct {
        const char  *s;
        size_t       len;
        size_t       valid;
        const char  *name;
    } cases[] = {
        { "", 0, 0, "utf8: empty" },
        { "abc\r\n\"", 6, 6, "utf8: ASCII and controls" },
        { "a\0b", 3, 3, "utf8: NUL is ASCII" },
        { "\xcf\x80\xe2\x80\xa2", 5, 5, "utf8: 2 and 3 bytes" },
        { "\xf0\x9f\x90\xb8\xf4\x8f\xbf\xbf", 8, 8,
          "utf8: 4 bytes up to U+10FFFF" },
        { "ab\x80", 3, 2, "utf8: lone continuation byte" },
        { "a\xc0\xaf", 3, 1, "utf8: overlong 2 bytes" },
        { "\xc1\xbf", 2, 0, "utf8: overlong C1" },
        { "\xe0\x9f\xbf", 3, 0, "utf8: overlong 3 bytes" },
        { "\xf0\x8f\xbf\xbf", 4, 0, "utf8: overlong 4 bytes" },
        { "\xed\xa0\x80", 3, 0, "utf8: surrogate" },
        { "\xed\x9f\xbf", 3, 3, "utf8: U+D7FF" },
        { "\xf4\x90\x80\x80", 4, 0, "utf8: above U+10FFFF" },
        { "\xf5\x80\x80\x80", 4, 0, "utf8: F5" },
        { "\xff", 1, 0, "utf8: FF" },
        { "x\xe2\x80", 3, 1, "utf8: truncated at the end" },
        { "\xe2\x80x", 3, 0, "utf8: ASCII inside a sequence" },
        { "0123456789abcdef\xcf\x80", 18, 18,
          "utf8: 2 bytes after two ASCII words" },
        { "0123456\xe2\x80\xa2" "abcdefghij", 20, 20,
          "utf8: a sequence across a word's end" },
        { "01234567\x80" "abcdefgh", 17, 8,
          "utf8: continuation byte after an ASCII word" },
        { "0123456789abcde\xff", 16, 15, "utf8: FF ending a word" },
        { "0123456789abcdefghi\xe2\x80", 21, 19,
          "utf8: truncated after ASCII words" },
    };

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ok(chaindata_utf8_valid_len(
               (const unsigned char *) cases[i].s, cases[i].len)
           == cases[i].valid, cases[i].name);
    }
}


static void
test_unescape(void)
{
    size_t          i, n;
    unsigned char   out[32];

    /* what nginx's ngx_unescape_uri(..., 0) makes of them */
    static const struct {
        const char  *in;
        const char  *out;
    } cases[] = {
        { "%41%62", "Ab" }, { "1%", "1" }, { "1%2", "1" }, { "%4z1", "1" },
        { "%z1", "z1" }, { "%%31", "%31" }, { "%3%31", "31" },
        { "2%3g", "2" }, { "+", "+" }, { "%2F%2f", "//" }, { "%", "" },
    };

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        n = chaindata_unescape(out, (const unsigned char *)
                               cases[i].in, strlen(cases[i].in));
        ok(n == strlen(cases[i].out) && memcmp(out, cases[i].out, n) == 0,
           cases[i].in);
    }

    n = chaindata_unescape(out, (const unsigned char *) "a%00b", 5);
    ok(n == 3 && out[1] == '\0', "unescape: %00 is a NUL byte");
}


static chaindata_target_e
page(const char *path, const char *args, chaindata_page_params_t *p,
    chaindata_query_t *q)
{
    static unsigned char  buf[256];

    chaindata_query_init(q, (const unsigned char *) args,
                         strlen(args), buf);
    memset(p, 0, sizeof(*p));

    return chaindata_page_target((const unsigned char *) path,
                                 strlen(path), "balances",
                                 chaindata_address_key,
                                 q, p);
}


static void
test_targets(void)
{
    unsigned char            buf[256], path[128];
    chaindata_query_t        q;
    chaindata_tx_params_t    tx;
    chaindata_page_params_t  p;
    const char              *addr, *id;

    addr = "/runes/v1/addresses/bc1qa667e6hcnwx2p4rm2vr08cla79ka8g2mkvvcd9"
           "/balances";
    id = "/extended/v1/tx/0xabcdef0123456789abcdef0123456789"
         "abcdef0123456789abcdef0123456789";

    ok(page(addr, "offset=-000&limit=60", &p, &q)
       == CHAINDATA_TARGET_OK
       && p.offset == 0 && p.offset_text.len == 1
       && p.offset_text.data[0] == '0' && p.limit == 60,
       "page: -000 is offset 0, echoed as 0");
    ok(page(addr, "offset=0018446744073709551616", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == UINT64_MAX
       && p.offset_text.len == 20 && p.limit == 20,
       "page: an offset past 2^64 saturates, echoed without zeros");
    ok(page(addr, "limit=1&limit=1", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY
       && strcmp(q.name, "limit") == 0
       && q.rc == CHAINDATA_ARG_NOT_INTEGER,
       "page: a repeated limit is not an integer");
    ok(page(addr, "limit=-0", &p, &q) == CHAINDATA_TARGET_BAD_QUERY
       && q.rc == CHAINDATA_ARG_TOO_SMALL && q.bound == 1,
       "page: limit -0 is below 1");
    ok(page(addr, "offset=%2B2&limit=1.0", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == 2 && p.limit == 1
       && p.offset_text.len == 1 && p.offset_text.data[0] == '2',
       "page: +2 and 1.0 are integers, the offset echoed as 2");
    ok(page(addr, "offset=0x10&limit=%205", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == 16 && p.limit == 5
       && p.offset_text.len == 2 && memcmp(p.offset_text.data, "16", 2) == 0,
       "page: 0x10 is 16, a leading space is trimmed");
    ok(page(addr, "offset=1e21&limit=1e1", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == UINT64_MAX && p.limit == 10
       && p.offset_text.len == 5
       && memcmp(p.offset_text.data, "1e+21", 5) == 0,
       "page: offset 1e21 echoed as JavaScript writes it");
    ok(page(addr, "%6F%66fset=3&%6Cimit=4", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == 3 && p.limit == 4,
       "page: parameter names percent-decoded");
    ok(page(addr, "limit=1&%6Cimit=1", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY && q.rc == CHAINDATA_ARG_NOT_INTEGER,
       "page: a limit given twice under two spellings");
    ok(page(addr, "limit=Infinity", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY && q.rc == CHAINDATA_ARG_NOT_INTEGER,
       "page: Infinity is no integer");
    ok(page(addr, "offset=%20", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY && q.rc == CHAINDATA_ARG_NOT_INTEGER,
       "page: an offset of white space only is refused");
    ok(page(addr, "x=1&limit", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY && q.rc == CHAINDATA_ARG_NOT_INTEGER
       && q.used <= 9,
       "page: a bare limit is empty, and has room");
    ok(page("/balances", "", &p, &q) == CHAINDATA_TARGET_NO_ROUTE,
       "page: no parameter segment");
    ok(page("/x//balances", "", &p, &q)
       == CHAINDATA_TARGET_BAD_PARAM, "page: an empty parameter");

    chaindata_query_init(&q, (const unsigned char *)
                         "event_limit=18446744073709551616", 32,
                         buf);
    ok(chaindata_tx_target((const unsigned char *) id, strlen(id),
                           &q, &tx)
       == CHAINDATA_TARGET_BAD_QUERY
       && q.rc == CHAINDATA_ARG_TOO_LARGE && q.bound == 100,
       "tx: event_limit 2^64 is above 100, without overflow");

    chaindata_query_init(&q, (const unsigned char *)
                         "unanchored=TRUE", 15, buf);
    ok(chaindata_tx_target((const unsigned char *) id, strlen(id),
                           &q, &tx)
       == CHAINDATA_TARGET_BAD_QUERY
       && strcmp(q.name, "unanchored") == 0, "tx: booleans are lowercase");

    chaindata_query_init(&q, (const unsigned char *)
                         "event%5Flimit=1000", 18, buf);
    ok(chaindata_tx_target((const unsigned char *) id, strlen(id),
                           &q, &tx)
       == CHAINDATA_TARGET_BAD_QUERY
       && q.rc == CHAINDATA_ARG_TOO_LARGE
       && strcmp(q.name, "event_limit") == 0,
       "tx: event%5Flimit is event_limit");

    chaindata_query_init(&q, (const unsigned char *)
                         "event_offset=+3&event_limit=0x10", 32, buf);
    ok(chaindata_tx_target((const unsigned char *) id, strlen(id),
                           &q, &tx)
       == CHAINDATA_TARGET_OK && tx.offset == 3 && tx.limit == 16,
       "tx: event_offset +3, event_limit 0x10");

    chaindata_query_init(&q, NULL, 0, NULL);
    ok(chaindata_tx_target((const unsigned char *) id,
                           strlen(id) - 1, &q, &tx)
       == CHAINDATA_TARGET_BAD_PARAM, "tx: 63 digits");

    memcpy(path, id, strlen(id));
    memcpy(path + strlen(id), "//", 3);
    ok(chaindata_tx_target(path, strlen(id) + 1, &q, &tx)
       == CHAINDATA_TARGET_OK && tx.id.len == 66,
       "tx: a trailing slash is ignored");
    ok(chaindata_tx_target(path, strlen(id) + 2, &q, &tx)
       == CHAINDATA_TARGET_BAD_PARAM, "tx: two are not");
    ok(chaindata_tx_target((const unsigned char *) "/", 1, &q, &tx)
       == CHAINDATA_TARGET_BAD_PARAM, "tx: nor is a slash alone");
}


static void
test_chainhook_paths(void)
{
    size_t                  n, len;
    unsigned char           out[128];
    const char             *t;
    chaindata_span_t        key;
    chaindata_chh_params_t  p;

    t = "/v1/ext/K%2Fey/chainhooks/1F6E2C3A-0B4D-4E5F-8A9B-0C1D2E3F4A01"
        "/status?k=/v1/ext/x";

    ok(chaindata_chh_target((const unsigned char *) t, strlen(t),
                            1, &p)
       == CHAINDATA_CHH_OK && p.key.len == 4
       && memcmp(p.key.data, "K/ey", 4) == 0 && p.uuid[0] == 0x1f,
       "chainhook: key decoded, UUID in any case, query ignored");

    n = chaindata_key_pieces((const unsigned char *) t, strlen(t),
                             &key);
    len = chaindata_redact(out, (const unsigned char *) t,
                           strlen(t), n);
    ok(n == 1 && key.len == 6 && len == 78
       && memcmp(out, "/v1/ext/***/chainhooks/", 23) == 0
       && memcmp(out + len - 12, "?k=/v1/ext/x", 12) == 0,
       "chainhook: the key piece redacted, the query kept");

    t = "/v1/ext/%/chainhooks/1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01/status";
    ok(chaindata_chh_target((const unsigned char *) t, strlen(t),
                            1, &p)
       == CHAINDATA_CHH_KEY_EMPTY,
       "chainhook: a key decoding to nothing is empty");

    t = "/hooks/abc";
    len = chaindata_redact(out, (const unsigned char *) t,
                           strlen(t), 0);
    ok(len == 4 && memcmp(out, "/***", 4) == 0,
       "chainhook: without a key piece the whole path");
}


/* a log line and what its redacted copy must be */
typedef struct {
    const char  *line;
    const char  *want;
    const char  *name;
} line_case_t;


static const line_case_t  line_cases[] = {

    { " [error] 1#0: *1 open() \"/srv/www/v1/ext/KEY/chainhooks/U/status\""
      " failed (2: No such file or directory), client: 127.0.0.1, server:"
      " , request: \"GET /v1/ext/***/chainhooks/U/status HTTP/1.1\"",
      " [error] 1#0: *1 open() \"/srv/www/v1/ext/***/chainhooks/U/status\""
      " failed (2: No such file or directory), client: 127.0.0.1, server:"
      " , request: \"GET /v1/ext/***/chainhooks/U/status HTTP/1.1\"",
      "log line: a decoded path, the request line already redacted" },

    { " open() \"/w/v1/ext/odd/key?with space%and+plus/chainhooks/U/s\"",
      " open() \"/w/v1/ext/***/chainhooks/U/s\"",
      "log line: a decoded key with a slash and a space" },

    { " open() \"/w/v1/ext/KEY\" failed, request: \"GET /v1/ext/KEY?a=1"
      " HTTP/1.1\"",
      " open() \"/w/v1/ext/***\" failed, request: \"GET /v1/ext/***"
      " HTTP/1.1\"",
      "log line: another shape, up to the quote or the space" },

    { " open() \"/w/V1/%45xt/KEY/other/thing\"",
      " open() \"/w/V1/%45xt/***/other/thing\"",
      "log line: another shape, encoded and in capitals" },

    { " upstream: \"http://127.0.0.1:1/p/KEY/%43HAINHOOKS/U/status\"",
      " upstream: \"http://127.0.0.1:1/p/***/%43HAINHOOKS/U/status\"",
      "log line: any prefix, the piece before chainhooks" },

    { " GET /hooks/KEY/chainhooks HTTP/1.1",
      " GET /hooks/***/chainhooks HTTP/1.1",
      "log line: \"chainhooks\" before a space" },

    { " http uri: \"/chainhooks/x\", \"/v1/ext\"",
      " http uri: \"/chainhooks/x\", \"/v1/ext\"",
      "log line: no piece before chainhooks, no key after v1/ext" },

    { " \"/v1/ext/a/chainhooks/b/chainhooks/U/status\" \"/v1/ext//x\"",
      " \"/v1/ext/***/chainhooks/U/status\" \"/v1/ext/***/x\"",
      "log line: up to the last chainhooks, an empty key" },

    { "2024/01/02 10:00:00 [debug] 1#0: *1 no path here",
      "2024/01/02 10:00:00 [debug] 1#0: *1 no path here",
      "log line: a line without a path is left alone" },
};


static void
test_redact_line(void)
{
    size_t              i, len, want;
    unsigned char       out[512];
    const char         *line;
    const line_case_t  *c;

    for (i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
        c = &line_cases[i];

        len = chaindata_redact_line(out, sizeof(out),
                                    (const unsigned char *) c->line,
                                    strlen(c->line));

        ok(len == strlen(c->want) && memcmp(out, c->want, len) == 0,
           c->name);

        if (len != strlen(c->want) || memcmp(out, c->want, len) != 0) {
            printf("# got:  %.*s\n# want: %s\n", (int) len, out, c->want);
        }
    }

    line = " \"/v1/ext/KEY/chainhooks\"";
    want = strlen(" \"/v1/ext/***");
    len = chaindata_redact_line(out, want, (const unsigned char *) line,
                                strlen(line));
    ok(len == want && memcmp(out, " \"/v1/ext/***", want) == 0,
       "log line: a copy cut at the size given");
}


static void
test_migration_map(void)
{
    size_t                 n;
    unsigned char          out[64];
    chaindata_span_t       sub;
    chaindata_mig_match_t  m;
    const char            *path;

    path = "/ordinals/v1/inscriptions/block-height/840000";

    ok(chaindata_mig_subpath((const unsigned char *) path,
                             strlen(path),
                             (const unsigned char *) "/ordinals/",
                             10, &sub) == 0
       && chaindata_mig_match(&sub, &m) == 0
       && strcmp(m.row->path, "/inscriptions/block-height/{blockHeight}")
          == 0
       && m.nparams == 1 && m.params[0].value.len == 6,
       "migration: block-height matched, its parameter taken");

    n = chaindata_mig_expand(out, m.row->replacement, &m);
    ok(n == 26 && memcmp(out, "/inscriptions/block/840000", 26) == 0,
       "migration: the replacement path");

    n = chaindata_mig_escape_query(out, (const unsigned char *)
                                   "a=%41&b=%\x18\x18 ", 12);
    ok(n == 20 && memcmp(out, "a=%41&b=%25%18%18%20", 20) == 0,
       "migration: a query escaped for a Location, control bytes too");
}


/* a gzip member inflated with zlib (header, CRC and ISIZE checked) */

static size_t
gunzip(const unsigned char *z, size_t zlen, unsigned char *out, size_t cap)
{
    int       rc;
    size_t    n;
    z_stream  zs;

    memset(&zs, 0, sizeof(z_stream));

    if (inflateInit2(&zs, 16 + 15) != Z_OK) {
        return (size_t) -1;
    }

    zs.next_in = (unsigned char *) z;
    zs.avail_in = (uInt) zlen;
    zs.next_out = out;
    zs.avail_out = (uInt) cap;

    rc = inflate(&zs, Z_FINISH);
    n = zs.total_out;
    inflateEnd(&zs);

    return (rc == Z_STREAM_END && zs.avail_in == 0) ? n : (size_t) -1;
}


/* text that compresses like JSON, and some that does not */

static void
piece_text(unsigned char *p, size_t len, unsigned seed)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        seed = seed * 1103515245 + 12345;
        p[i] = (seed >> 16) % 7 ? "{\"event_index\":12,\"tx_id\":}"[i % 27]
                                : (unsigned char) (seed >> 8);
    }
}


/*
 * A member of pieces (plain lengths 0, 1, small, 100 KiB) and stored
 * bytes (empty, a comma, 70,000 bytes: two stored blocks) in turn, as a
 * page is assembled; it must inflate to exactly their concatenation.
 */

static void
test_pieces(void)
{
    int                    good;
    size_t                 i, n, used, zlen, plen, got;
    unsigned char         *plain, *enc, *z, *out, *q, *e;
    chaindata_piece_t      p;
    chaindata_deflater_t  *d;
    chaindata_inflater_t  *in;
    chaindata_gzip_sum_t   sum;
    uint32_t               seed, crc;
    static const size_t    sizes[] = { 0, 1, 17, 300, 4096, 100000, 70000 };

    d = chaindata_deflater_create(6);
    in = chaindata_inflater_create();
    plain = malloc(1 << 20);
    enc = malloc(1 << 20);
    z = malloc(1 << 20);
    out = malloc(1 << 20);

    if (d == NULL || in == NULL || !plain || !enc || !z || !out) {
        ok(0, "pieces: memory");
        return;
    }

    plen = 0;
    chaindata_gzip_sum_init(&sum);
    q = chaindata_gzip_header(z);
    good = 1;

    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        piece_text(plain + plen, sizes[i], (unsigned) i);

        if (i % 2 == 0) {
            n = chaindata_piece_make(d, plain + plen, sizes[i], enc);

            if (n == 0 || n > chaindata_piece_bound(sizes[i])
                || chaindata_piece_decode(&p, enc, n, &used) != 0
                || used != n || p.plain_len != sizes[i]
                || chaindata_piece_inflate(in, &p, out) != 0
                || memcmp(out, plain + plen, sizes[i]) != 0)
            {
                good = 0;
                continue;
            }

            chaindata_gzip_sum_piece(&sum, &p);
            q = chaindata_gzip_piece(q, &p);

        } else {
            e = chaindata_gzip_stored(q, plain + plen, sizes[i]);
            good &= (size_t) (e - q) == chaindata_gzip_stored_len(sizes[i]);
            chaindata_gzip_sum_bytes(&sum, plain + plen, sizes[i]);
            q = e;
        }

        plen += sizes[i];
    }

    q = chaindata_gzip_trailer(q, &sum);
    zlen = q - z;

    ok(good, "pieces: made, decoded, each inflates on its own");
    got = gunzip(z, zlen, out, 1 << 20);
    ok(got == plen && memcmp(out, plain, plen) == 0,
       "pieces: the member inflates to exactly the plain concatenation");

    /* the CRCs of pieces of lengths up to 64 KiB (all below 64), combined */
    for (i = 0, seed = 7; i < 65536; i++) {
        seed = seed * 1103515245 + 12345;
        plain[i] = (unsigned char) (seed >> 16);
    }

    chaindata_gzip_sum_init(&sum);
    crc = 0;
    plen = 0;
    good = 1;

    for (i = 0; i < 65536; i += 1 + i / 64) {
        p.crc = (uint32_t) libdeflate_crc32(0, plain, i);
        p.plain_len = i;
        chaindata_gzip_sum_piece(&sum, &p);
        crc = (uint32_t) libdeflate_crc32(crc, plain, i);
        plen += i;
        good &= sum.crc == crc;
    }

    ok(good && sum.len == plen,
       "pieces: CRCs combined as the CRC of the concatenation");

    /* an empty member: header and trailer */
    chaindata_gzip_sum_init(&sum);
    q = chaindata_gzip_trailer(chaindata_gzip_header(z), &sum);
    ok(gunzip(z, q - z, out, 16) == 0, "pieces: an empty member");

    /*
     * a piece of over 8 KiB compressed is inflated where it lies, a
     * smaller one from a copy ending in a stored final block: both whole
     */
    for (i = 0, seed = 13; i < 200000; i++) {
        seed = seed * 1103515245 + 12345;
        plain[i] = (unsigned char) (seed >> 16);
    }

    n = chaindata_piece_make(d, plain, 200000, enc);
    ok(n > 0 && chaindata_piece_decode(&p, enc, n, &used) == 0
       && p.deflate_len > 8192
       && chaindata_piece_inflate(in, &p, out) == 0
       && memcmp(out, plain, 200000) == 0
       && (n = chaindata_piece_make(d, plain, 3000, enc)) > 0
       && chaindata_piece_decode(&p, enc, n, &used) == 0
       && p.deflate_len < 8192
       && chaindata_piece_inflate(in, &p, out) == 0
       && memcmp(out, plain, 3000) == 0,
       "pieces: over 8 KiB compressed and under, each inflates whole");

    /* hostile pieces: cut short, lengths that lie, a wrong CRC */
    n = chaindata_piece_make(d, plain, 4096, enc);
    good = 1;

    for (i = 0; i < n; i++) {
        good &= chaindata_piece_decode(&p, enc, i, &used) != 0;
    }

    ok(good && n > 0, "pieces: a cut piece never decodes");

    chaindata_put_u32le(enc + 8, 0xfffffff0);
    ok(chaindata_piece_decode(&p, enc, n, &used) != 0,
       "pieces: a deflate length past the value");

    n = chaindata_piece_make(d, plain, 4096, enc);
    chaindata_put_u32le(enc + 4, 4095);
    ok(chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_inflate(in, &p, out) != 0,
       "pieces: a plain length that lies does not inflate");

    n = chaindata_piece_make(d, plain, 4096, enc);
    enc[0] ^= 1;
    ok(chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_inflate(in, &p, out) != 0,
       "pieces: a wrong CRC does not inflate");

    n = chaindata_piece_make(d, plain, 4096, enc);
    enc[CHAINDATA_PIECE_HEAD_SIZE + 5] ^= 0x55;
    ok(chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_inflate(in, &p, out) != 0,
       "pieces: damaged deflate bytes do not inflate");

    ok(chaindata_accept_encoding_takes_gzip((const unsigned char *) "br, GZip;Q=0.5", 14)
       && chaindata_accept_encoding_takes_gzip((const unsigned char *) "*", 1)
       && !chaindata_accept_encoding_takes_gzip((const unsigned char *) "gzip;q=0, *", 11)
       && !chaindata_accept_encoding_takes_gzip((const unsigned char *) "gzip;q=1.5", 10)
       && !chaindata_accept_encoding_takes_gzip((const unsigned char *) "gzip;q=", 7)
       && !chaindata_accept_encoding_takes_gzip((const unsigned char *) "gzip;", 5)
       && !chaindata_accept_encoding_takes_gzip((const unsigned char *) ",,", 2)
       && chaindata_accept_encoding_takes_gzip((const unsigned char *) ", x-gzip ,", 10),
       "Accept-Encoding: q-values, *, refusals, hostile lists");

    chaindata_deflater_destroy(d);
    chaindata_inflater_destroy(in);
    free(plain);
    free(enc);
    free(z);
    free(out);
}


/* items "[i,…]" of lengths 1 … 40 joined with commas into plain */

static unsigned
chunk_items(unsigned char *plain, size_t *len, uint32_t *start, unsigned n,
    unsigned seed)
{
    unsigned  i, j, k;
    size_t    at;

    at = 0;

    for (i = 0; i < n; i++) {
        if (i) {
            plain[at++] = ',';
        }

        start[i] = (uint32_t) at;
        k = 1 + (seed + i * 7) % 40;

        for (j = 0; j < k; j++) {
            plain[at++] = "0123456789abcdef"[(seed + i + j) % 16];
        }
    }

    *len = at;

    return n;
}


/*
 * Chunks: made and decoded, the plan of pages aligned, cut at both
 * ends, past the end, and each span's bytes those of its items; hostile
 * chunks (cut, a start past the piece, starts that do not ascend, a
 * wrong CRC) refused.
 */

static void
test_chunks(void)
{
    int                     good;
    size_t                  len, n, i;
    uint32_t                start[64], s, l;
    unsigned                k, ns;
    unsigned char           plain[4096], enc[8192], out[4096];
    chaindata_chunk_t       c;
    chaindata_chunk_span_t  sp[8];
    chaindata_deflater_t   *d;
    chaindata_inflater_t   *in;

    d = chaindata_deflater_create(6);
    in = chaindata_inflater_create();

    if (d == NULL || in == NULL) {
        ok(0, "chunks: memory");
        return;
    }

    chunk_items(plain, &len, start, 20, 3);
    n = chaindata_chunk_make(d, plain, len, start, 20, enc);

    ok(n > 0 && n <= chaindata_chunk_bound(len, 20)
       && chaindata_chunk_decode(&c, enc, n) == 0 && c.n == 20
       && c.piece.plain_len == len
       && chaindata_piece_inflate(in, &c.piece, out) == 0
       && memcmp(out, plain, len) == 0,
       "chunks: 20 items made, decoded, inflated");

    good = 1;

    for (k = 0; k < 20; k++) {
        good &= chaindata_chunk_item_start(&c, k) == start[k]
                && chaindata_chunk_item_end(&c, k)
                   == (k == 19 ? len : start[k + 1] - 1);
    }

    ok(good, "chunks: each item's start and end from the table");

    ns = chaindata_chunk_plan(45, 20, 0, 20, sp, 8);
    ok(ns == 1 && sp[0].chunk == 0 && sp[0].from == 0 && sp[0].to == 20,
       "chunks plan: the default page, one whole chunk");

    ns = chaindata_chunk_plan(45, 20, 20, 40, sp, 8);
    ok(ns == 2 && sp[0].chunk == 1 && sp[0].to == 20
       && sp[1].chunk == 2 && sp[1].from == 0 && sp[1].to == 5,
       "chunks plan: aligned, the last chunk short");

    ns = chaindata_chunk_plan(100, 20, 7, 50, sp, 8);
    ok(ns == 3 && sp[0].chunk == 0 && sp[0].from == 7 && sp[0].to == 20
       && sp[1].chunk == 1 && sp[1].from == 0 && sp[1].to == 20
       && sp[2].chunk == 2 && sp[2].from == 0 && sp[2].to == 17,
       "chunks plan: cut at both ends");

    ns = chaindata_chunk_plan(330000, 20, 123457, 3, sp, 8);
    ok(ns == 1 && sp[0].chunk == 6172 && sp[0].from == 17
       && sp[0].to == 20, "chunks plan: inside one chunk, far in");

    ok(chaindata_chunk_plan(45, 20, 45, 20, sp, 8) == 0
       && chaindata_chunk_plan(45, 20, 1000, 20, sp, 8) == 0
       && chaindata_chunk_plan(0, 20, 0, 20, sp, 8) == 0,
       "chunks plan: a page past the end is empty");

    ok(chaindata_chunk_plan(1000, 20, 19, 100, sp, 8) == 6,
       "chunks plan: limit / per + 2 spans at most");

    good = 1;
    sp[0].chunk = 0;

    for (sp[0].from = 0; sp[0].from < 20; sp[0].from++) {
        for (sp[0].to = sp[0].from + 1; sp[0].to <= 20; sp[0].to++) {
            chaindata_chunk_span_bytes(&c, &sp[0], &s, &l);
            good &= s == start[sp[0].from]
                    && s + l == (sp[0].to == 20 ? len
                                                : start[sp[0].to] - 1)
                    && (s + l == len || plain[s + l] == ',');
        }
    }

    ok(good, "chunks: a span's bytes are its items and their commas");

    chunk_items(plain, &len, start, 1, 5);
    n = chaindata_chunk_make(d, plain, len, start, 1, enc);
    ok(n > 0 && chaindata_chunk_decode(&c, enc, n) == 0 && c.n == 1
       && chaindata_chunk_item_end(&c, 0) == len,
       "chunks: one item, no table");

    start[0] = 0;
    start[1] = 0;
    ok(chaindata_chunk_make(d, plain, len, start, 0, enc) == 0
       && chaindata_chunk_make(d, plain, len, start, 2, enc) == 0,
       "chunks: no items, or starts that do not ascend, refused");

    /* hostile values */
    chunk_items(plain, &len, start, 20, 9);
    n = chaindata_chunk_make(d, plain, len, start, 20, enc);
    good = 1;

    for (i = 0; i < n; i++) {
        good &= chaindata_chunk_decode(&c, enc, i) != 0;
    }

    ok(good, "chunks: a cut chunk never decodes");

    chaindata_put_u32le(enc + 2 + 4 * 18, (uint32_t) len);
    ok(chaindata_chunk_decode(&c, enc, n) != 0,
       "chunks: a start past the piece refused");

    chaindata_put_u32le(enc + 2 + 4 * 18, start[19]);
    chaindata_put_u32le(enc + 2 + 4 * 5, start[3]);
    ok(chaindata_chunk_decode(&c, enc, n) != 0,
       "chunks: starts that do not ascend refused");

    chaindata_put_u32le(enc + 2 + 4 * 5, start[6]);
    enc[0] = 21;
    ok(chaindata_chunk_decode(&c, enc, n) != 0,
       "chunks: a count that does not match the table refused");

    enc[0] = 20;
    enc[2 + 4 * 19] ^= 1;
    ok(chaindata_chunk_decode(&c, enc, n) == 0
       && chaindata_piece_inflate(in, &c.piece, out) != 0,
       "chunks: a wrong CRC does not inflate");

    chaindata_deflater_destroy(d);
    chaindata_inflater_destroy(in);
}


/* the documents of t/fixtures/ one after the other; NULL if missing */

static unsigned char *
piece_documents(size_t *len)
{
    size_t          i, n, cap;
    FILE           *f;
    unsigned char  *all;
    static const char  *names[] = {
        "t/fixtures/tx.ndjson", "t/fixtures/tx-many-events.ndjson",
        "t/fixtures/runes.ndjson", "t/fixtures/chainhook.ndjson"
    };

    cap = 1 << 20;
    all = malloc(cap);
    *len = 0;

    for (i = 0; all && i < sizeof(names) / sizeof(names[0]); i++) {
        f = fopen(names[i], "rb");
        if (f == NULL) {
            free(all);
            return NULL;
        }

        n = fread(all + *len, 1, cap - *len, f);
        *len += n;
        fclose(f);
    }

    return all;
}


/*
 * Which tail a single final block takes, found the slow way: its first
 * bit cleared, only one of the two sync-flush tails inflates it whole to
 * src.  1 when the zero padding holds the stored header (3 bits or
 * more), 0 when a zero byte must complete it, -1 when neither inflates.
 */

static int
piece_tail_by_inflating(struct libdeflate_decompressor *dd,
    unsigned char *z, size_t n, const unsigned char *src, size_t len,
    unsigned char *check)
{
    int                         fits;
    size_t                      k, m, in, out;
    static const unsigned char  tail[] = { 0, 0, 0, 0xff, 0xff, 3, 0 };

    fits = -1;
    z[0] &= ~1;

    for (k = 0; k < 2; k++) {
        m = n + sizeof(tail) - 1 + k;
        memcpy(z + n, tail + 1 - k, sizeof(tail) - 1 + k);

        if (libdeflate_deflate_decompress_ex(dd, z, m, check, len, &in, &out)
            == LIBDEFLATE_SUCCESS
            && in == m && out == len && memcmp(check, src, len) == 0)
        {
            fits = k == 0;
            break;
        }
    }

    z[0] |= 1;

    return fits;
}


/*
 * Pieces cut from real documents (t/fixtures/) and from random bytes, of
 * 512 bytes to 24 KiB, at the loader's level and others: where the block
 * ends, read from its header, is what inflating finds, and every piece
 * made inflates on its own and in a gzip member to exactly its source.
 */

static void
test_piece_ends(void)
{
    int                              pad, fits, level;
    size_t                           i, k, len, n, dlen, used, mlen;
    size_t                           decided, agree, good, pads[8];
    unsigned                         seed;
    unsigned char                   *docs, *src, *rnd, *z, *enc, *out;
    unsigned char                   *member, *q, *plain;
    chaindata_piece_t                p;
    chaindata_gzip_sum_t             sum;
    chaindata_deflater_t            *d[3];
    chaindata_inflater_t            *in;
    struct libdeflate_compressor    *c[3];
    struct libdeflate_decompressor  *dd;
    static const int                 levels[3] = {
        CHAINDATA_PIECE_LEVEL, 6, 12
    };

    docs = piece_documents(&dlen);
    rnd = malloc((1 << 16) + 24 * 1024);
    z = malloc(1 << 17);
    enc = malloc(1 << 17);
    out = malloc(1 << 19);
    member = malloc(1 << 20);
    plain = malloc(1 << 19);
    in = chaindata_inflater_create();
    dd = libdeflate_alloc_decompressor();

    for (k = 0; k < 3; k++) {
        d[k] = chaindata_deflater_create(levels[k]);
        c[k] = libdeflate_alloc_compressor(levels[k]);
    }

    if (docs == NULL || dlen < (1 << 17) || !rnd || !z || !enc || !out
        || !member || !plain || !in || !dd || !d[0] || !d[1] || !d[2] || !c[0]
        || !c[1] || !c[2])
    {
        ok(0, "piece ends: memory and t/fixtures/ (run from the top)");
        return;
    }

    for (seed = 7, i = 0; i < (1 << 16); i++) {
        seed = seed * 1103515245 + 12345;
        rnd[i] = (unsigned char) (seed >> 16);
    }

    memset(rnd + (1 << 16), 'x', 24 * 1024);

    memset(pads, 0, sizeof(pads));
    decided = 0;
    agree = 0;
    good = 0;
    mlen = 0;
    chaindata_gzip_sum_init(&sum);
    q = chaindata_gzip_header(member);

    for (i = 0; i < 6000; i++) {
        seed = seed * 1103515245 + 12345;
        len = 512 + (seed >> 8) % (24 * 1024 - 512);
        seed = seed * 1103515245 + 12345;

        /* one in six of random bytes, one in 12 of one repeated byte */
        if (i % 6 == 5) {
            src = rnd + (seed >> 4) % ((1 << 16) - len);

        } else if (i % 12 == 4) {
            src = rnd + (1 << 16);

        } else {
            src = docs + (seed >> 4) % (dlen - len);
        }

        level = (int) (i % 3);

        /* the header's answer against inflating's */
        n = libdeflate_deflate_compress(c[level], src, len, z, 1 << 16);
        pad = chaindata_piece_padding(z, n, len);

        if (pad >= 0) {
            decided++;
            pads[pad]++;
            fits = piece_tail_by_inflating(dd, z, n, src, len,
                                           enc + (1 << 16));
            agree += fits == (pad >= 3);
        }

        /* the piece made, inflated on its own, and into the member */
        n = chaindata_piece_make(d[level], src, len, enc);

        if (n == 0 || chaindata_piece_decode(&p, enc, n, &used) != 0
            || used != n || chaindata_piece_inflate(in, &p, out) != 0
            || memcmp(out, src, len) != 0)
        {
            continue;
        }

        good++;

        if (mlen + len < (1 << 19)) {
            chaindata_gzip_sum_piece(&sum, &p);
            q = chaindata_gzip_piece(q, &p);
            memcpy(plain + mlen, src, len);
            mlen += len;
        }
    }

    q = chaindata_gzip_trailer(q, &sum);

    ok(good == 6000, "piece ends: 6000 pieces of documents and random "
                     "bytes each inflate to their source");
    ok(agree == decided && decided > 5000,
       "piece ends: the header tells where the block ends, as inflating "
       "finds, for all but fixed Huffman blocks");

    for (k = 0, n = 0; k < 8; k++) {
        n += pads[k] > 100;
    }

    ok(n == 8, "piece ends: all 8 paddings met");
    ok(mlen > (1 << 18)
       && gunzip(member, q - member, out, 1 << 19) == mlen
       && memcmp(out, plain, mlen) == 0,
       "piece ends: a gzip member of the pieces inflates (zlib) to "
       "exactly their sources");

    free(docs);
    free(rnd);
    free(z);
    free(enc);
    free(out);
    free(member);
    free(plain);
    chaindata_inflater_destroy(in);
    libdeflate_free_decompressor(dd);

    for (k = 0; k < 3; k++) {
        chaindata_deflater_destroy(d[k]);
        libdeflate_free_compressor(c[k]);
    }
}


int
main(void)
{
    test_hex_and_ids();
    test_hex_table();
    test_listh();
    test_writeset_join();
    test_digest();
    test_js_number();
    test_js_integer_text();
    test_json_escape();
    test_txh();
    test_jdoc();
    test_record_tx();
    test_record_rune_chunks();
    test_utf8();
    test_unescape();
    test_targets();
    test_chainhook_paths();
    test_redact_line();
    test_migration_map();
    test_pieces();
    test_piece_ends();
    test_chunks();

    printf("1..%d\n", tests);

    return failed ? 1 : 0;
}
