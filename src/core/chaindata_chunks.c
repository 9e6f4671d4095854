
/*
 * chaindata: lists of JSON items stored as chunks (see the header and
 * lmdb-schema/pieces.md, "Chunks").
 */


#include <string.h>

#include "chaindata_chunks.h"
#include "chaindata_int.h"


static size_t
chaindata_chunk_table_size(unsigned n)
{
    return CHAINDATA_CHUNK_HEAD_SIZE
           + (size_t) (n ? n - 1 : 0) * CHAINDATA_CHUNK_START_SIZE;
}


size_t
chaindata_chunk_bound(size_t plain_len, unsigned n)
{
    return chaindata_chunk_table_size(n) + chaindata_piece_bound(plain_len);
}


size_t
chaindata_chunk_make(chaindata_deflater_t *d, const unsigned char *plain,
    size_t len, const uint32_t *start, unsigned n, unsigned char *out)
{
    size_t          used;
    unsigned        i;
    unsigned char  *p;

    if (n == 0 || n > CHAINDATA_CHUNK_ITEMS_MAX || start[0] != 0) {
        return 0;
    }

    out[0] = (unsigned char) (n & 0xff);
    out[1] = (unsigned char) (n >> 8);
    p = out + CHAINDATA_CHUNK_HEAD_SIZE;

    for (i = 1; i < n; i++) {
        if (start[i] <= start[i - 1] || start[i] >= len) {
            return 0;
        }

        chaindata_put_u32le(p, start[i]);
        p += CHAINDATA_CHUNK_START_SIZE;
    }

    used = chaindata_piece_make(d, plain, len, p);
    if (used == 0) {
        return 0;
    }

    return (p - out) + used;
}


int
chaindata_chunk_decode(chaindata_chunk_t *c, const unsigned char *v,
    size_t len)
{
    size_t    table, used;
    uint32_t  s, prev;
    unsigned  i;

    if (len < CHAINDATA_CHUNK_HEAD_SIZE) {
        return -1;
    }

    c->n = v[0] | (v[1] << 8);

    if (c->n == 0 || c->n > CHAINDATA_CHUNK_ITEMS_MAX) {
        return -1;
    }

    table = chaindata_chunk_table_size(c->n);

    if (len < table
        || chaindata_piece_decode(&c->piece, v + table, len - table, &used)
           != 0
        || used != len - table)
    {
        return -1;
    }

    c->starts = v + CHAINDATA_CHUNK_HEAD_SIZE;

    /* each item at least one byte, then its comma */
    prev = 0;

    for (i = 1; i < c->n; i++) {
        s = chaindata_chunk_item_start(c, i);

        if (s < prev + 2 || s >= c->piece.plain_len) {
            return -1;
        }

        prev = s;
    }

    return 0;
}


uint32_t
chaindata_chunk_item_start(const chaindata_chunk_t *c, unsigned i)
{
    if (i == 0) {
        return 0;
    }

    return chaindata_get_u32le(c->starts
                               + (i - 1) * CHAINDATA_CHUNK_START_SIZE);
}


/* past its last byte: the next one's comma, or the chunk's end */

uint32_t
chaindata_chunk_item_end(const chaindata_chunk_t *c, unsigned i)
{
    if (i + 1 >= c->n) {
        return c->piece.plain_len;
    }

    return chaindata_chunk_item_start(c, i + 1) - 1;
}


void
chaindata_chunk_span_bytes(const chaindata_chunk_t *c,
    const chaindata_chunk_span_t *s, uint32_t *start, uint32_t *len)
{
    *start = chaindata_chunk_item_start(c, s->from);
    *len = chaindata_chunk_item_end(c, s->to - 1) - *start;
}


unsigned
chaindata_chunk_plan(uint64_t count, unsigned per, uint64_t offset,
    uint64_t limit, chaindata_chunk_span_t *span, unsigned max)
{
    unsigned  n;
    uint64_t  end, at, chunk_end;

    if (per == 0 || offset >= count || limit == 0) {
        return 0;
    }

    end = count - offset < limit ? count : offset + limit;

    for (n = 0, at = offset; at < end && n < max; n++) {
        chunk_end = (at / per + 1) * per;

        if (chunk_end > end) {
            chunk_end = end;
        }

        span[n].chunk = (uint32_t) (at / per);
        span[n].from = (unsigned) (at % per);
        span[n].to = span[n].from + (unsigned) (chunk_end - at);
        at = chunk_end;
    }

    return n;
}
