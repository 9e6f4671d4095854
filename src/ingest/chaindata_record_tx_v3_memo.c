
/*
 * chaindata: a v3 memo's text, as upstream writes the "repr" of a token
 * transfer's memo (lmdb-schema/README.md, "tx_v3"): UTF-8 read as
 * upstream reads it, and upstream's white space and printable tests.
 */


#include <stddef.h>
#include <stdint.h>

#include "chaindata_record_tx_v3_shape.h"


/* the code point of a well-formed UTF-8 sequence at p, its length in *n */

static uint32_t
chaindata_v3_utf8(const unsigned char *p, size_t len, size_t *n)
{
    uint32_t  c;
    size_t    need, i;

    c = p[0];
    *n = 1;

    if (c < 0x80) {
        return c;
    }

    if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
        c &= 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        c &= 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        c &= 0x07;
    } else {
        return 0xfffd;
    }

    /* the maximal subpart of a bad sequence is one replacement */
    for (i = 1; i <= need; i++) {
        if (i >= len || (p[i] & 0xc0) != 0x80
            || (i == 1 && ((p[0] == 0xe0 && p[1] < 0xa0)
                           || (p[0] == 0xed && p[1] > 0x9f)
                           || (p[0] == 0xf0 && p[1] < 0x90)
                           || (p[0] == 0xf4 && p[1] > 0x8f))))
        {
            *n = i;
            return 0xfffd;
        }

        c = c << 6 | (p[i] & 0x3f);
    }

    *n = need + 1;

    return c;
}


/* Unicode White_Space, what Rust's \s and trim() take */

static int
chaindata_v3_space(uint32_t c)
{
    return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85
           || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a)
           || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f
           || c == 0x3000;
}


/* what upstream's printable test refuses: controls and format marks */

static int
chaindata_v3_unprintable(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xad
           || (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e)
           || (c >= 0x2060 && c <= 0x2064) || c == 0xfeff;
}


static unsigned char *
chaindata_v3_put_utf8(unsigned char *p, uint32_t c)
{
    if (c < 0x80) {
        *p++ = (unsigned char) c;
    } else if (c < 0x800) {
        *p++ = (unsigned char) (0xc0 | c >> 6);
        *p++ = (unsigned char) (0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        *p++ = (unsigned char) (0xe0 | c >> 12);
        *p++ = (unsigned char) (0x80 | (c >> 6 & 0x3f));
        *p++ = (unsigned char) (0x80 | (c & 0x3f));
    } else {
        *p++ = (unsigned char) (0xf0 | c >> 18);
        *p++ = (unsigned char) (0x80 | (c >> 12 & 0x3f));
        *p++ = (unsigned char) (0x80 | (c >> 6 & 0x3f));
        *p++ = (unsigned char) (0x80 | (c & 0x3f));
    }

    return p;
}


/*
 * The text of a memo's bytes as upstream's memoToString makes it
 * (@stacks/codec's memo_normalize): the bytes as UTF-8, each bad sequence
 * one U+FFFD; a character that is not printable a space; every run of
 * U+FFFD and white space one space; trimmed.  Exact for every memo whose
 * characters are not combined into grapheme clusters with a control or
 * format mark (upstream keeps those clusters whole):
 * lmdb-schema/README.md.  Written at out (room for 3 * len bytes); its
 * length.
 */

size_t
chaindata_v3_memo_text(unsigned char *out, const unsigned char *bytes,
    size_t len)
{
    size_t          i, n;
    uint32_t        c;
    unsigned char  *p;
    int             gap;

    p = out;
    gap = 0;

    for (i = 0; i < len; i += n) {
        c = chaindata_v3_utf8(bytes + i, len - i, &n);

        if (c != 0xfffd && chaindata_v3_unprintable(c)
            && !chaindata_v3_space(c))
        {
            c = ' ';
        }

        if (c == 0xfffd || chaindata_v3_space(c)) {
            gap = 1;
            continue;
        }

        if (gap && p != out) {
            *p++ = ' ';
        }

        gap = 0;
        p = chaindata_v3_put_utf8(p, c);
    }

    return (size_t) (p - out);
}
