
/*
 * Unit tests: hex digits, the ids written in them, and the integers of keys
 * (chaindata_hex.h, chaindata_int.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_int.h"
#include "unit.h"


void
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

void
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
       && chaindata_get_u32le(p + 4) == 0x01020304, "u32 be and le");

    chaindata_put_u64le(p, 0x8877665544332211ULL);
    ok(memcmp(p, "\x11\x22\x33\x44\x55\x66\x77\x88", 8) == 0
       && chaindata_get_u64le(p) == 0x8877665544332211ULL, "u64 le");
}
