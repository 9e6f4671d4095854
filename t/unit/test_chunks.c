
/*
 * Unit tests: lists stored in chunks (chaindata_chunks.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "chaindata_chunks.h"
#include "chaindata_int.h"
#include "chaindata_piece.h"
#include "unit.h"


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

void
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
