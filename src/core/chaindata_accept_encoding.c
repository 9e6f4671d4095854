
/*
 * chaindata: content negotiation, Accept-Encoding read (see the header).
 */


#include <string.h>

#include "chaindata_accept_encoding.h"


static int
chaindata_ows(int c)
{
    return c == ' ' || c == '\t';
}


/*
 * The weight of s[0, len) ("; q=0.5" and other parameters, OWS around):
 * 0 … 1000, 1000 without one, -1 when it is not a qvalue.
 */

static int
chaindata_qvalue(const unsigned char *s, size_t len)
{
    int     q, digits;
    size_t  i;

    i = 0;

    while (i < len && chaindata_ows(s[i])) {
        i++;
    }

    if (i == len) {
        return 1000;
    }

    if (s[i++] != ';') {
        return -1;
    }

    while (i < len && chaindata_ows(s[i])) {
        i++;
    }

    if (len - i < 3 || (s[i] != 'q' && s[i] != 'Q') || s[i + 1] != '=') {
        return -1;
    }

    i += 2;

    if (s[i] != '0' && s[i] != '1') {
        return -1;
    }

    q = (s[i++] - '0') * 1000;

    if (i < len && s[i] == '.') {
        i++;

        for (digits = 0; i < len && s[i] >= '0' && s[i] <= '9'; digits++) {
            if (digits == 3) {
                return -1;
            }

            q += (s[i++] - '0') * (digits == 0 ? 100 : digits == 1 ? 10 : 1);
        }
    }

    while (i < len && chaindata_ows(s[i])) {
        i++;
    }

    return (i == len && q <= 1000) ? q : -1;
}


static int
chaindata_coding_is(const unsigned char *s, size_t len, const char *name)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if (name[i] == '\0'
            || (s[i] | 0x20) != name[i])
        {
            return 0;
        }
    }

    return name[i] == '\0';
}


int
chaindata_accept_encoding_takes_gzip(const unsigned char *s, size_t len)
{
    int                   q, gzip, star;
    size_t                n;
    const unsigned char  *end, *e, *c;

    gzip = -1;
    star = -1;
    end = s + len;

    while (s < end) {
        e = memchr(s, ',', end - s);
        if (e == NULL) {
            e = end;
        }

        while (s < e && chaindata_ows(*s)) {
            s++;
        }

        for (c = s; c < e && *c != ';' && !chaindata_ows(*c); c++) {
            /* the coding */
        }

        n = c - s;
        q = chaindata_qvalue(c, e - c);

        if (q >= 0) {
            if (chaindata_coding_is(s, n, "gzip")
                || chaindata_coding_is(s, n, "x-gzip"))
            {
                gzip = q > gzip ? q : gzip;

            } else if (n == 1 && *s == '*') {
                star = q;
            }
        }

        s = e + (e < end);
    }

    if (gzip >= 0) {
        return gzip > 0;
    }

    return star > 0;
}
