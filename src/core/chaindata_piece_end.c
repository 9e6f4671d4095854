
/*
 * chaindata: where the one final block libdeflate makes of a piece ends,
 * read from the block's header without inflating it (lmdb-schema/
 * pieces.md, "How a piece ends byte-aligned").
 */


#include <stdint.h>
#include <string.h>

#include "chaindata_piece.h"


/*
 * A bit reader over z[0, n), zero bits past the end.
 */

typedef struct {
    const unsigned char  *z;
    size_t                n;
    size_t                pos;     /* in bits */
} chaindata_bits_t;


/* the next count bits (at most 16), the first sent the lowest */

static unsigned
chaindata_bits_peek(chaindata_bits_t *b, unsigned count)
{
    size_t    i, at;
    uint64_t  w;

    at = b->pos >> 3;
    w = 0;

    if (at + 4 <= b->n) {
        w = (uint32_t) b->z[at] | (uint32_t) b->z[at + 1] << 8
            | (uint32_t) b->z[at + 2] << 16 | (uint32_t) b->z[at + 3] << 24;

    } else {
        for (i = 0; at + i < b->n; i++) {
            w |= (uint64_t) b->z[at + i] << (8 * i);
        }
    }

    return (unsigned) (w >> (b->pos & 7)) & ((1u << count) - 1);
}


static unsigned
chaindata_bits_get(chaindata_bits_t *b, unsigned count)
{
    unsigned  v;

    v = chaindata_bits_peek(b, count);
    b->pos += count;

    return v;
}


static unsigned
chaindata_bits_reverse(unsigned code, unsigned len)
{
    unsigned  r;

    for (r = 0; len; len--, code >>= 1) {
        r = (r << 1) | (code & 1);
    }

    return r;
}


/*
 * The code-length code (RFC 1951, 3.2.7) as a table of 128 entries read
 * by the next 7 bits: symbol | length << 8, 0 where no code (an
 * incomplete code); -1 when its lengths oversubscribe it.
 */

static int
chaindata_bits_cl_table(const unsigned char *len, uint16_t *table)
{
    unsigned  sym, l, code, k, next[8], count[8];

    memset(count, 0, sizeof(count));
    memset(table, 0, 128 * sizeof(uint16_t));

    for (sym = 0; sym < 19; sym++) {
        count[len[sym]]++;
    }

    count[0] = 0;
    code = 0;

    for (l = 1; l < 8; l++) {
        code = (code + count[l - 1]) << 1;
        next[l] = code;

        if (next[l] + count[l] > (1u << l)) {
            return -1;
        }
    }

    for (sym = 0; sym < 19; sym++) {
        l = len[sym];

        if (l == 0) {
            continue;
        }

        code = chaindata_bits_reverse(next[l]++, l);

        for (k = code; k < 128; k += 1u << l) {
            table[k] = (uint16_t) (sym | l << 8);
        }
    }

    return 0;
}


/*
 * The lengths of the literal/length code of a dynamic block (b after its
 * 3 header bits) into len[0, *hlit): 0, or -1 when the header is not
 * well formed.
 */

static int
chaindata_bits_litlen(chaindata_bits_t *b, unsigned char *len,
    unsigned *hlit)
{
    unsigned                    i, n, hdist, hclen, e, sym, rep, fill;
    uint16_t                    table[128];
    unsigned char               cl[19];
    static const unsigned char  order[19] = {
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15
    };

    *hlit = chaindata_bits_get(b, 5) + 257;
    hdist = chaindata_bits_get(b, 5) + 1;
    hclen = chaindata_bits_get(b, 4) + 4;

    memset(cl, 0, sizeof(cl));

    for (i = 0; i < hclen; i++) {
        cl[order[i]] = (unsigned char) chaindata_bits_get(b, 3);
    }

    if (chaindata_bits_cl_table(cl, table) != 0) {
        return -1;
    }

    /* the distance lengths follow; only the literal/length ones count */
    n = 0;

    while (n < *hlit) {
        e = table[chaindata_bits_peek(b, 7)];

        if (e == 0) {
            return -1;
        }

        b->pos += e >> 8;
        sym = e & 0xff;

        if (sym < 16) {
            len[n++] = (unsigned char) sym;
            continue;
        }

        if (sym == 16) {
            if (n == 0) {
                return -1;
            }

            fill = len[n - 1];
            rep = 3 + chaindata_bits_get(b, 2);

        } else {
            fill = 0;
            rep = sym == 17 ? 3 + chaindata_bits_get(b, 3)
                            : 11 + chaindata_bits_get(b, 7);
        }

        if (n + rep > *hlit + hdist) {
            return -1;
        }

        while (rep-- && n < *hlit) {
            len[n++] = (unsigned char) fill;
        }
    }

    return b->pos <= 8 * b->n ? 0 : -1;
}


/*
 * The end-of-block code of a dynamic block as it lies in the stream (bit
 * i of *bits is the code's i-th bit sent) and its length; -1 when the
 * header is not well formed.
 */

static int
chaindata_bits_eob(chaindata_bits_t *b, unsigned *bits, unsigned *eob_len)
{
    unsigned       sym, l, hlit, code, count[16];
    unsigned char  len[288];

    if (chaindata_bits_litlen(b, len, &hlit) != 0 || len[256] == 0) {
        return -1;
    }

    memset(count, 0, sizeof(count));

    for (sym = 0; sym < hlit; sym++) {
        count[len[sym]]++;
    }

    /* the canonical code of symbol 256: the first of its length, plus
     * the symbols below it of the same length */
    count[0] = 0;
    code = 0;

    for (l = 1; l <= len[256]; l++) {
        code = (code + count[l - 1]) << 1;
    }

    for (sym = 0; sym < 256; sym++) {
        code += len[sym] == len[256];
    }

    *eob_len = len[256];
    *bits = chaindata_bits_reverse(code, len[256]);

    return 0;
}


/*
 * The zero bits libdeflate pads its one final block with to the byte,
 * 0 … 7; -1 when the header does not tell (a fixed Huffman block, whose
 * end-of-block code is all zero bits, or an end-of-block code of zero
 * bits only), -2 when z is not a single block (zlib makes that piece).
 *
 * After the end-of-block code come only the zero padding bits, so the
 * last 1 bit of the stream is the code's last 1 bit: the block ends as
 * many bits after it as the code has zero bits after its last 1.
 */

int
chaindata_piece_padding(const unsigned char *z, size_t n, size_t len)
{
    size_t            last, end;
    unsigned          bits, eob_len, k, t;
    chaindata_bits_t  b;

    if (n == 0 || (z[0] & 1) == 0) {
        return -2;
    }

    switch ((z[0] >> 1) & 3) {

    case 0:
        /* stored: header byte, LEN, NLEN, the bytes, ends byte-aligned */
        return n == 5 + len ? 0 : -2;

    case 2:
        break;

    case 1:
        return -1;

    default:
        return -2;
    }

    b.z = z;
    b.n = n;
    b.pos = 3;

    if (chaindata_bits_eob(&b, &bits, &eob_len) != 0 || bits == 0) {
        return -1;
    }

    for (last = n; last > 0 && z[last - 1] == 0; last--) {
        /* void */
    }

    if (last == 0) {
        return -1;
    }

    for (k = 7; (z[last - 1] >> k & 1) == 0; k--) {
        /* void */
    }

    for (t = eob_len - 1; (bits >> t & 1) == 0; t--) {
        /* void */
    }

    end = 8 * (last - 1) + k + 1 + (eob_len - 1 - t);

    if (end > 8 * n || end + 8 <= 8 * n || end < b.pos + eob_len) {
        return -1;
    }

    b.pos = end - eob_len;

    if (chaindata_bits_peek(&b, eob_len) != bits) {
        return -1;
    }

    return (int) (8 * n - end);
}
