
/*
 * chaindata: the strings of the loader's document tree (see the header).
 */


#include <string.h>

#include "chaindata_escape.h"
#include "chaindata_hex.h"
#include "chaindata_jstr.h"


/* the four hex digits of a "\u" escape, checked by yajl already */

static unsigned
chaindata_jstr_hex4(const unsigned char *p)
{
    return (unsigned) (chaindata_hex_value(p[0]) << 12
                       | chaindata_hex_value(p[1]) << 8
                       | chaindata_hex_value(p[2]) << 4
                       | chaindata_hex_value(p[3]));
}


/* p follows "\u": a surrogate, U+D800 to U+DFFF */

static int
chaindata_jstr_is_surrogate(const unsigned char *p)
{
    return (p[0] | 0x20) == 'd' && chaindata_hex_value(p[1]) >= 8;
}


int
chaindata_jstr_maybe_surrogates(const unsigned char *text, size_t len)
{
    const unsigned char  *p, *end;

    end = text + len;

    for (p = text; (p = memchr(p, '\\', end - p)) != NULL; p++) {
        if (end - p >= 6 && p[1] == 'u' && chaindata_jstr_is_surrogate(p + 2))
        {
            return 1;
        }
    }

    return 0;
}


/*
 * Between tokens there are no quotes (numbers, literals, punctuation,
 * white space), so the next one opens the next string.
 */

const unsigned char *
chaindata_jstr_next(const unsigned char *p, const unsigned char *end,
    const unsigned char **raw, size_t *raw_len, int *surrogates)
{
    p = memchr(p, '"', end - p);
    if (p == NULL) {
        return NULL;
    }

    *raw = ++p;
    *surrogates = 0;

    while (p < end && *p != '"') {
        if (*p != '\\') {
            p++;
            continue;
        }

        if (end - p < 2) {
            return NULL;
        }

        if (end - p >= 6 && p[1] == 'u' && chaindata_jstr_is_surrogate(p + 2))
        {
            *surrogates = 1;
        }

        /* the escaped character; hex digits need no skipping */
        p += 2;
    }

    if (p == end) {
        return NULL;
    }

    *raw_len = p - *raw;

    return p + 1;
}


/* a code point as UTF-8, a surrogate in the same 3-byte form */

static unsigned char *
chaindata_jstr_put(unsigned char *d, unsigned cp)
{
    if (cp < 0x80) {
        *d++ = (unsigned char) cp;

    } else if (cp < 0x800) {
        *d++ = (unsigned char) (0xc0 | cp >> 6);
        *d++ = (unsigned char) (0x80 | (cp & 0x3f));

    } else if (cp < 0x10000) {
        *d++ = (unsigned char) (0xe0 | cp >> 12);
        *d++ = (unsigned char) (0x80 | (cp >> 6 & 0x3f));
        *d++ = (unsigned char) (0x80 | (cp & 0x3f));

    } else {
        *d++ = (unsigned char) (0xf0 | cp >> 18);
        *d++ = (unsigned char) (0x80 | (cp >> 12 & 0x3f));
        *d++ = (unsigned char) (0x80 | (cp >> 6 & 0x3f));
        *d++ = (unsigned char) (0x80 | (cp & 0x3f));
    }

    return d;
}


/* one escape after its "\": the bytes it stands for, and where it ends */

static const unsigned char *
chaindata_jstr_unescape(unsigned char **dst, const unsigned char *p,
    const unsigned char *end)
{
    unsigned  cp, lo;

    switch (*p++) {
    case 'b':  *(*dst)++ = '\b'; return p;
    case 'f':  *(*dst)++ = '\f'; return p;
    case 'n':  *(*dst)++ = '\n'; return p;
    case 'r':  *(*dst)++ = '\r'; return p;
    case 't':  *(*dst)++ = '\t'; return p;
    case 'u':  break;
    default:   *(*dst)++ = p[-1]; return p;   /* '"', '\\', '/' */
    }

    cp = chaindata_jstr_hex4(p);
    p += 4;

    /* a high surrogate and a low one are one character */
    if (cp >= 0xd800 && cp <= 0xdbff
        && end - p >= 6 && p[0] == '\\' && p[1] == 'u')
    {
        lo = chaindata_jstr_hex4(p + 2);

        if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            p += 6;
        }
    }

    *dst = chaindata_jstr_put(*dst, cp);

    return p;
}


size_t
chaindata_jstr_decode(unsigned char *dst, const unsigned char *raw,
    size_t len)
{
    size_t                n;
    unsigned char        *d;
    const unsigned char  *p, *q, *end;

    d = dst;
    p = raw;
    end = raw + len;

    while (p < end) {
        if (*p == '\\') {
            p = chaindata_jstr_unescape(&d, p + 1, end);
            continue;
        }

        /* a "\" is never inside a UTF-8 sequence */
        q = memchr(p, '\\', end - p);
        n = (q ? q : end) - p;

        if (chaindata_utf8_valid_len(p, n) != n) {
            return (size_t) -1;
        }

        d = memcpy(d, p, n);
        d += n;
        p += n;
    }

    return d - dst;
}


/* the next lone surrogate (its 3-byte form) in s, or end */

static const unsigned char *
chaindata_jstr_surrogate(const unsigned char *s, const unsigned char *end)
{
    while ((s = memchr(s, 0xed, end - s)) != NULL) {
        if (end - s >= 3 && s[1] >= 0xa0 && s[1] <= 0xbf) {
            return s;
        }

        s++;
    }

    return end;
}


size_t
chaindata_jstr_escape_len(const unsigned char *s, size_t len)
{
    size_t                n;
    const unsigned char  *q, *end;

    n = 0;
    end = s + len;

    for ( ;; ) {
        q = chaindata_jstr_surrogate(s, end);
        n += chaindata_json_escape_len(s, q - s);

        if (q == end) {
            return n;
        }

        /* "\udxxx" for 3 bytes */
        n += 6;
        s = q + 3;
    }
}


unsigned char *
chaindata_jstr_escape(unsigned char *dst, const unsigned char *s,
    size_t len)
{
    unsigned              cp;
    const unsigned char  *q, *end;

    static const char  hex[] = "0123456789abcdef";

    end = s + len;

    for ( ;; ) {
        q = chaindata_jstr_surrogate(s, end);
        dst = chaindata_json_escape(dst, s, q - s);

        if (q == end) {
            return dst;
        }

        /* lowercase, as JSON.stringify writes it */
        cp = 0xd000 | (q[1] & 0x3f) << 6 | (q[2] & 0x3f);

        *dst++ = '\\';
        *dst++ = 'u';
        *dst++ = hex[cp >> 12];
        *dst++ = hex[cp >> 8 & 0xf];
        *dst++ = hex[cp >> 4 & 0xf];
        *dst++ = hex[cp & 0xf];

        s = q + 3;
    }
}
