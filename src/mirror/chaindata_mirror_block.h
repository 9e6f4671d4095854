
/*
 * chaindata-mirror: the emitter every line goes through and the block
 * writer (chaindata_mirror_block.c), above the publisher
 * (src/stream/chaindata_stream_publish.c).
 */


#ifndef _CHAINDATA_MIRROR_BLOCK_H_INCLUDED_
#define _CHAINDATA_MIRROR_BLOCK_H_INCLUDED_


#include "chaindata_ingest.h"
#include "chaindata_mirror_log.h"


/*
 * The emitter: the one way a line of the mirror reaches its working
 * index and the stream.  Applies the line (written and closed, or failed
 * on the way) to m->in's write set and, unless it is a chainhook record,
 * adds it to the unit to publish; frees it.  about names what it is in
 * the message (NULL: a record of the open block).
 * (chaindata_mirror_block.c)
 */
int chaindata_mirror_emit(chaindata_mirror_t *m, chaindata_line_t *l,
    const char *about);

/* the block being mirrored, committed whole (chaindata_mirror_block.c) */
int chaindata_block_open(chaindata_mirror_t *m, const char *source,
    uint64_t height, const unsigned char *hash, size_t hash_len,
    const unsigned char *parent, size_t parent_len, uint64_t t);
int chaindata_block_commit(chaindata_mirror_t *m);
/* the same, blocks several in one write transaction: then block_write() */
int chaindata_block_append(chaindata_mirror_t *m, const char *source,
    uint64_t height, const unsigned char *hash, size_t hash_len,
    const unsigned char *parent, size_t parent_len, uint64_t t);
int chaindata_block_end(chaindata_mirror_t *m);
/* publishes and commits the write set (records outside blocks too) */
int chaindata_block_write(chaindata_mirror_t *m);
/* the rollback into the write set, not committed: then block_write() */
int chaindata_block_undo(chaindata_mirror_t *m, const char *source,
    uint64_t height);
int chaindata_block_rollback(chaindata_mirror_t *m, const char *source,
    uint64_t height);
void chaindata_block_abandon(chaindata_mirror_t *m);
/* empties the write set (and the unit of lines to publish) */
void chaindata_block_reset(chaindata_mirror_t *m);


#endif /* _CHAINDATA_MIRROR_BLOCK_H_INCLUDED_ */
