
/*
 * chaindata: block framing of the ingest stream, the block, block_end and
 * rollback records (their format: lmdb-schema/feed.md, "Framing
 * records").  A block is applied in one write transaction with the
 * source's position ("feed") and a record of the block ("block"), so
 * that a rollback needs nothing but the index.
 */


#ifndef _CHAINDATA_FEED_H_INCLUDED_
#define _CHAINDATA_FEED_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_index.h"
#include "chaindata_jdoc.h"
#include "chaindata_line.h"
#include "chaindata_record.h"


typedef enum {
    CHAINDATA_FRAME_NONE = 0,       /* a data record */
    CHAINDATA_FRAME_BLOCK,
    CHAINDATA_FRAME_END,
    CHAINDATA_FRAME_ROLLBACK
} chaindata_frame_e;


#define CHAINDATA_FEED_DEPTH_DEFAULT  UINT64_MAX


typedef struct {
    chaindata_arena_t  *arena;
    chaindata_jv_t     *root;       /* the line peek() parsed, any JSON */
    chaindata_index_t  *ix;         /* the open block's, from begin() */

    int                 open;       /* inside a block */
    int                 skip;       /* the open block is committed already */
    char                source[CHAINDATA_FEED_SOURCE_MAX + 1];
    uint64_t            height;
    uint64_t            time;
    unsigned char       hash[CHAINDATA_FEED_HASH_MAX];
    size_t              hash_len;
    unsigned char       parent[CHAINDATA_FEED_HASH_MAX];
    size_t              parent_len;

    /* the open block's undo records, as JSON array elements */
    unsigned char      *undo;
    size_t              undo_len;
    size_t              undo_cap;

    uint64_t            now;        /* commit time to record; 0: time() */
    uint64_t            undone;     /* blocks rollbacks undid, in all */
    uint64_t            max_depth;  /* blocks a rollback may undo: 0 any,
                                       CHAINDATA_FEED_DEPTH_DEFAULT each
                                       source's default */
    unsigned            keep_first:1;  /* a rollback below every recorded
                                          block is refused, as the mirror
                                          refuses it (a stream follower) */
    char                err[CHAINDATA_ERR_LEN];
} chaindata_feed_t;


int chaindata_feed_init(chaindata_feed_t *f);
void chaindata_feed_free(chaindata_feed_t *f);

/*
 * Parses a line once for all: its frame kind (a data record, or any JSON
 * but an object, is CHAINDATA_FRAME_NONE: chaindata_record_parse_root()
 * takes f->root then), or -1 with f->err when it is not JSON.
 */
int chaindata_feed_peek(chaindata_feed_t *f, const unsigned char *line,
    size_t len);

/*
 * After peek(): the fields of a block record into f, of a block_end or
 * rollback into source and height; 0, or -1 with f->err.
 */
int chaindata_feed_read_block(chaindata_feed_t *f);
int chaindata_feed_read_mark(chaindata_feed_t *f, char *source,
    uint64_t *height);

/*
 * after peek(): opens a block; -1 with f->err when it cannot follow the
 * position: the one ws holds uncommitted (blocks committed several at
 * once), else the index's
 */
int chaindata_feed_begin(chaindata_feed_t *f, chaindata_index_t *ix,
    chaindata_writeset_t *ws);

/*
 * after peek() of a data record applied to ws: records its undo; -1 with
 * f->err when the block lists a transaction the index holds confirmed
 * (one transaction, one block: lmdb-schema/feed.md)
 */
int chaindata_feed_note(chaindata_feed_t *f);

/* after peek(): closes the block, appending its position writes to ws */
int chaindata_feed_end(chaindata_feed_t *f, chaindata_writeset_t *ws);

/* after peek(): appends the writes that undo the blocks above a height */
int chaindata_feed_rollback(chaindata_feed_t *f, chaindata_index_t *ix,
    chaindata_record_t *rec, chaindata_writeset_t *ws);

/*
 * The framing records written (chaindata_line_t, chaindata_line.h):
 * a block, and a block_end or rollback (frame says which); 0, or -1 out
 * of memory.
 */
int chaindata_feed_write_block(chaindata_line_t *l, const char *source,
    uint64_t height, const unsigned char *hash, size_t hash_len,
    const unsigned char *parent, size_t parent_len, uint64_t time);
int chaindata_feed_write_mark(chaindata_line_t *l, chaindata_frame_e frame,
    const char *source, uint64_t height);

/*
 * A member of obj that is a block hash, as a block record's "hash" and
 * "parent" are checked (empty too): copied to out; 0, or -1.
 */
int chaindata_jv_hash(const chaindata_jv_t *obj, const char *name,
    unsigned char *out, size_t *len);

/*
 * The most blocks of a source a rollback may undo unless told otherwise
 * (lmdb-schema/feed.md "Reorg depth"): deeper is another chain.
 */
uint64_t chaindata_feed_reorg_default(const char *source);

/* drops the open block (rejected, or the input ended inside it) */
void chaindata_feed_abandon(chaindata_feed_t *f);

/* a source's position; 0, 1 when it has none, -1 on an error */
int chaindata_feed_position(chaindata_index_t *ix, const char *source,
    chaindata_feedpos_t *pos, unsigned char *hash);

/* a source's block record at a height, malloc()ed; as above */
int chaindata_feed_block_get(chaindata_index_t *ix, const char *source,
    uint64_t height, unsigned char **v, size_t *len);

/* the hash recorded for a source's block at a height; as above */
int chaindata_feed_block_hash(chaindata_index_t *ix, const char *source,
    uint64_t height, unsigned char *hash, size_t *hash_len);


#endif /* _CHAINDATA_FEED_H_INCLUDED_ */
