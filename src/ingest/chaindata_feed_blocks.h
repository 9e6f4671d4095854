
/*
 * chaindata: what a rollback (chaindata_feed_rollback.c) takes from the
 * code that opens and closes blocks (chaindata_feed.c): a source's
 * position and its block records as stored, and the feed's error.
 */


#ifndef _CHAINDATA_FEED_BLOCKS_H_INCLUDED_
#define _CHAINDATA_FEED_BLOCKS_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_feed.h"


/* a block record's key: its source's prefix, then the height */
#define CHAINDATA_BLOCK_KEY_MAX  (1 + CHAINDATA_FEED_SOURCE_MAX + 8)


/* the reason in f->err: -1 */
int chaindata_feed_fail(chaindata_feed_t *f, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;

/* a value of db, malloc()ed: 0, 1 when there is none, -1 on an error */
int chaindata_feed_get(chaindata_index_t *ix, chaindata_dbi_e db,
    const unsigned char *k, size_t klen, unsigned char **val, size_t *len);

/*
 * The source's position as the index has it (0, 1 none, -1); with ws,
 * the write set then expects it unchanged when it is applied.
 */
int chaindata_feed_read_position(chaindata_index_t *ix, const char *source,
    chaindata_writeset_t *ws, chaindata_feedpos_t *pos, unsigned char *hash);

/* the members of a stored block record, parsed into arena */
chaindata_jv_t *chaindata_feed_block_doc(chaindata_feed_t *f,
    chaindata_arena_t *arena, const unsigned char *v, size_t len);

/*
 * The position in the write set, not committed yet: 0, 1 when the write
 * set holds none (the index's then), -1 when it deletes it.
 */
int chaindata_feed_pending(chaindata_feed_t *f, chaindata_writeset_t *ws,
    chaindata_feedpos_t *pos, unsigned char *hash);

/* the position's writes of f's source into ws: 0, or -1 with f->err */
int chaindata_feed_put_position(chaindata_feed_t *f,
    chaindata_writeset_t *ws, uint64_t height, uint64_t t,
    const unsigned char *hash, size_t hash_len);


#endif /* _CHAINDATA_FEED_BLOCKS_H_INCLUDED_ */
