
/*
 * chaindata: JSON string escaping and UTF-8 validation (see the header).
 */


#include <stdint.h>
#include <string.h>

#include "chaindata_escape.h"
#include "chaindata_hex.h"


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
 * The runs s starts with, read 8 bytes at a time: a word goes whole while
 * none of its bytes ends the run (a zero byte of w - 0x0101..., exact for
 * "any"), then byte by byte to the first that does.  Two runs: the bytes
 * JSON escapes nothing in (none below 0x20, '"' or '\\'), and ASCII.
 * Each caller names its run, a constant: the compiler makes one loop of
 * each.
 */

#define CHAINDATA_ONES   0x0101010101010101ULL
#define CHAINDATA_HIGHS  0x8080808080808080ULL

#define chaindata_has_below(w, c)                                          \
    (((w) - CHAINDATA_ONES * (c)) & ~(w) & CHAINDATA_HIGHS)
#define chaindata_has_byte(w, c)                                           \
    chaindata_has_below((w) ^ (CHAINDATA_ONES * (c)), 1)


typedef enum {
    CHAINDATA_RUN_JSON_PLAIN,
    CHAINDATA_RUN_ASCII
} chaindata_run_e;


static inline int
chaindata_run_word(uint64_t w, chaindata_run_e run)
{
    if (run == CHAINDATA_RUN_ASCII) {
        return !(w & CHAINDATA_HIGHS);
    }

    return !(chaindata_has_below(w, 0x20) || chaindata_has_byte(w, '"')
             || chaindata_has_byte(w, '\\'));
}


static inline int
chaindata_run_byte(unsigned char c, chaindata_run_e run)
{
    if (run == CHAINDATA_RUN_ASCII) {
        return c < 0x80;
    }

    return c >= 0x20 && c != '"' && c != '\\';
}


static inline size_t
chaindata_run_len(const unsigned char *s, size_t len, chaindata_run_e run)
{
    size_t    i;
    uint64_t  w;

    for (i = 0; len - i >= sizeof(w); i += sizeof(w)) {
        memcpy(&w, s + i, sizeof(w));

        if (!chaindata_run_word(w, run)) {
            break;
        }
    }

    while (i < len && chaindata_run_byte(s[i], run)) {
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
        run = chaindata_run_len(s, len, CHAINDATA_RUN_JSON_PLAIN);
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
        run = chaindata_run_len(s, len, CHAINDATA_RUN_JSON_PLAIN);
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
            i += chaindata_run_len(s + i, len - i, CHAINDATA_RUN_ASCII);
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
