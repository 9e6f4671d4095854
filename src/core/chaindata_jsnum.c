
/*
 * chaindata: query integers as upstream's validator (Node.js) sees them:
 * a string made a number as JavaScript's Number() does it, and a number
 * written back as JavaScript writes it.  See the header.
 */


#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_jsnum.h"


/*
 * JavaScript's white space and line terminators beyond ASCII (ECMAScript
 * StrWhiteSpaceChar), in UTF-8.
 */

static const char  *chaindata_js_spaces[] = {
    "\xc2\xa0",                                      /* U+00A0 */
    "\xe1\x9a\x80",                                  /* U+1680 */
    "\xe2\x80\x80", "\xe2\x80\x81", "\xe2\x80\x82",  /* U+2000 ... */
    "\xe2\x80\x83", "\xe2\x80\x84", "\xe2\x80\x85",
    "\xe2\x80\x86", "\xe2\x80\x87", "\xe2\x80\x88",
    "\xe2\x80\x89", "\xe2\x80\x8a",                  /* ... U+200A */
    "\xe2\x80\xa8", "\xe2\x80\xa9",                  /* U+2028, U+2029 */
    "\xe2\x80\xaf",                                  /* U+202F */
    "\xe2\x81\x9f",                                  /* U+205F */
    "\xe3\x80\x80",                                  /* U+3000 */
    "\xef\xbb\xbf",                                  /* U+FEFF */
    NULL
};


/* the length of the white space s starts with, or ends with when at_end */

static size_t
chaindata_js_space(const unsigned char *s, size_t len, int at_end)
{
    size_t         n;
    unsigned char  c;
    const char   **sp;

    if (len == 0) {
        return 0;
    }

    c = at_end ? s[len - 1] : s[0];

    if (c == ' ' || (c >= '\t' && c <= '\r')) {
        return 1;
    }

    for (sp = chaindata_js_spaces; *sp; sp++) {
        n = strlen(*sp);

        if (n <= len && memcmp(at_end ? s + len - n : s, *sp, n) == 0) {
            return n;
        }
    }

    return 0;
}


static size_t
chaindata_js_digits(const unsigned char *p, const unsigned char *end)
{
    const unsigned char  *s;

    for (s = p; p < end && *p >= '0' && *p <= '9'; p++) { /* void */ }

    return p - s;
}


/*
 * ECMAScript's StrDecimalLiteral without "Infinity": a sign, digits with
 * a decimal point somewhere (at least one digit), an exponent.
 */

static int
chaindata_js_decimal(const unsigned char *p, size_t len)
{
    size_t                n, frac;
    const unsigned char  *end;

    end = p + len;

    if (p < end && (*p == '+' || *p == '-')) {
        p++;
    }

    n = chaindata_js_digits(p, end);
    p += n;

    if (p < end && *p == '.') {
        p++;
        frac = chaindata_js_digits(p, end);
        p += frac;
        n += frac;
    }

    if (n == 0) {
        return 0;
    }

    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;

        if (p < end && (*p == '+' || *p == '-')) {
            p++;
        }

        n = chaindata_js_digits(p, end);

        if (n == 0) {
            return 0;
        }

        p += n;
    }

    return p == end;
}


/*
 * Digits in base 2^bits ("0x", "0o", "0b" literals) to the nearest double,
 * as JavaScript rounds them: the leading 64 bits are kept in m, the rest
 * only counted (e) and remembered when set (sticky).  -1 when there are
 * no digits or another character.
 */

static double
chaindata_js_radix(const unsigned char *p, size_t len, unsigned bits)
{
    int        e, b, i, sticky;
    double     d;
    uint64_t   m, rest, half;
    unsigned   shift;

    if (len == 0) {
        return -1;
    }

    m = 0;
    e = 0;
    sticky = 0;

    for ( /* void */ ; len; p++, len--) {
        b = chaindata_hex_value(*p);

        if (b < 0 || b >= 1 << bits) {
            return -1;
        }

        for (i = bits - 1; i >= 0; i--) {
            if (m >> 63) {
                e += (e < 4096);
                sticky |= (b >> i) & 1;

            } else {
                m = m << 1 | ((b >> i) & 1);
            }
        }
    }

    /* to 53 bits, to nearest, ties to even */
    for (shift = 0; shift < 11 && m >> (53 + shift); shift++) { /* void */ }

    if (shift) {
        rest = m & (((uint64_t) 1 << shift) - 1);
        half = (uint64_t) 1 << (shift - 1);
        m >>= shift;

        if (rest > half || (rest == half && (sticky || (m & 1)))) {
            m++;
        }
    }

    /* exact until it overflows to infinity, as it should */
    for (d = (double) m, e += shift; e > 0 && d - d == 0; e--) {
        d *= 2;
    }

    return d;
}


int
chaindata_js_number(const unsigned char *s, size_t len, double *out)
{
    char                 *end;
    size_t                n;
    const unsigned char  *p;

    while ((n = chaindata_js_space(s, len, 0))) {
        s += n;
        len -= n;
    }

    while ((n = chaindata_js_space(s, len, 1))) {
        len -= n;
    }

    /* Number("") is 0, but upstream's validator refuses an empty value */
    if (len == 0) {
        return -1;
    }

    n = (len < 2 || s[0] != '0') ? 0
        : (s[1] | 0x20) == 'x' ? 4
        : (s[1] | 0x20) == 'o' ? 3
        : (s[1] | 0x20) == 'b' ? 1 : 0;

    if (n) {
        *out = chaindata_js_radix(s + 2, len - 2, n);
        return *out < 0 ? -1 : 0;
    }

    p = s + (s[0] == '+' || s[0] == '-');

    if ((size_t) (s + len - p) == 8 && memcmp(p, "Infinity", 8) == 0) {
        *out = (s[0] == '-') ? -HUGE_VAL : HUGE_VAL;
        return 0;
    }

    if (!chaindata_js_decimal(s, len)) {
        return -1;
    }

    /* the grammar is strtod's in the C locale, which nginx keeps */
    *out = strtod((const char *) s, &end);

    return (const unsigned char *) end == s + len ? 0 : -1;
}


/* every double from 2^52 on is whole */

int
chaindata_js_is_integer(double d)
{
    if (d != d || d - d != 0) {
        return 0;
    }

    if (d >= 4503599627370496.0 || d <= -4503599627370496.0) {
        return 1;
    }

    return d == (double) (int64_t) d;
}


uint64_t
chaindata_js_to_u64(double d)
{
    if (d <= 0) {
        return 0;
    }

    return d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t) d;
}


/*
 * The shortest digits that read back as d: %e rounds to the nearest at
 * each precision, and 17 significant digits always read back.
 */

size_t
chaindata_js_integer_text(unsigned char *buf, double d)
{
    int             prec, exp;
    char            text[32], *e;
    size_t          k, n;
    unsigned char  *p;

    if (d <= 0) {
        buf[0] = '0';
        return 1;
    }

    for (prec = 0; /* void */; prec++) {
        snprintf(text, sizeof(text), "%.*e", prec, d);

        if (prec == 16 || strtod(text, NULL) == d) {
            break;
        }
    }

    /* "D.DDDe+XX": the digits without the point, then the exponent */
    e = strchr(text, 'e');
    exp = atoi(e + 1);

    if (prec) {
        memmove(text + 1, text + 2, prec);
    }

    k = prec + 1;
    n = exp + 1;
    p = buf;

    if (n <= 21) {
        memcpy(p, text, k);
        memset(p + k, '0', n - k);
        return n;
    }

    *p++ = text[0];

    if (k > 1) {
        *p++ = '.';
        memcpy(p, text + 1, k - 1);
        p += k - 1;
    }

    p += snprintf((char *) p, 8, "e+%d", exp);

    return p - buf;
}
