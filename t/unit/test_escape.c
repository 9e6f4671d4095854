
/*
 * Unit tests: JSON string escaping and UTF-8 (chaindata_escape.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_escape.h"
#include "unit.h"


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


void
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


void
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
