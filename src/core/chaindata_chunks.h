
/*
 * chaindata: a list of JSON items stored as chunks (lmdb-schema/pieces.md,
 * "Chunks").  A chunk holds the items of one default page of the list,
 * joined with commas, as ONE precompressed piece, with a small table of
 * where each item begins in the chunk's plain bytes.  A page of the list
 * is a plan of spans, one a chunk: a whole chunk is served by copying its
 * piece (gzip) or inflating it (plain); a span that cuts a chunk is the
 * chunk inflated and the bytes of its items sent as they are (stored
 * blocks in a gzip member).  Nothing here allocates.
 */


#ifndef _CHAINDATA_CHUNKS_H_INCLUDED_
#define _CHAINDATA_CHUNKS_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_piece.h"


/* the most items a chunk may hold (its count is 2 bytes) */
#define CHAINDATA_CHUNK_ITEMS_MAX     1024

/* a chunk value: item count (le), the table, then the piece */
#define CHAINDATA_CHUNK_HEAD_SIZE     2
#define CHAINDATA_CHUNK_START_SIZE    4


typedef struct {
    unsigned              n;          /* items in the chunk */
    const unsigned char  *starts;     /* n - 1 starts of items 1 … n - 1 */
    chaindata_piece_t     piece;      /* the items joined with ',' */
} chaindata_chunk_t;


/* the items [from, to) of the chunk numbered chunk, in a page's plan */
typedef struct {
    uint32_t              chunk;
    unsigned              from;
    unsigned              to;
} chaindata_chunk_span_t;


/*
 * The most bytes chaindata_chunk_make() writes for n items of plain_len
 * bytes joined (commas included).
 */
size_t chaindata_chunk_bound(size_t plain_len, unsigned n);

/*
 * A chunk value at out (room for chaindata_chunk_bound()) of the n items
 * plain[0, len): item i begins at start[i] (start[0] is 0), each item but
 * the last is followed by one ','.  Returns its length, 0 on failure (n
 * out of range, offsets that do not ascend).
 */
size_t chaindata_chunk_make(chaindata_deflater_t *d,
    const unsigned char *plain, size_t len, const uint32_t *start,
    unsigned n, unsigned char *out);

/*
 * Decodes a whole chunk value v[0, len): 0, or -1 when it is not one (the
 * table and the piece checked against len and each other, never trusted).
 */
int chaindata_chunk_decode(chaindata_chunk_t *c, const unsigned char *v,
    size_t len);

/* where item i begins in the chunk's plain bytes, and where it ends */
uint32_t chaindata_chunk_item_start(const chaindata_chunk_t *c, unsigned i);
uint32_t chaindata_chunk_item_end(const chaindata_chunk_t *c, unsigned i);

/* the plain bytes of the items [s->from, s->to) of c, commas between */
void chaindata_chunk_span_bytes(const chaindata_chunk_t *c,
    const chaindata_chunk_span_t *s, uint32_t *start, uint32_t *len);

/* 1 when the span is the whole chunk c */
#define chaindata_chunk_span_whole(c, s)                                   \
    ((s)->from == 0 && (s)->to == (c)->n)

/*
 * The plan of the page [offset, offset + limit) of a list of count items
 * stored per items a chunk: the spans in order (at most max, which
 * limit / per + 2 always covers), their number returned; 0 for a page
 * past the end.  The chunks it names are [span[0].chunk, + the number).
 */
unsigned chaindata_chunk_plan(uint64_t count, unsigned per, uint64_t offset,
    uint64_t limit, chaindata_chunk_span_t *span, unsigned max);

/* the number of chunks of a list of count items, per a chunk */
#define chaindata_chunk_count(count, per)                                  \
    ((uint32_t) (((uint64_t) (count) + (per) - 1) / (per)))


#endif /* _CHAINDATA_CHUNKS_H_INCLUDED_ */
