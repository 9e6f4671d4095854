
/*
 * Unit tests: numbers as JavaScript reads and writes them (chaindata_jsnum.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_jsnum.h"
#include "unit.h"


/* Number(s) as JavaScript makes it; -1 for NaN (and an empty s) */

static int
js_number(const char *s, double *d)
{
    return chaindata_js_number((const unsigned char *) s, strlen(s), d);
}


void
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


void
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
