
/*
 * chaindata: which history the index holds of each chain the routes
 * serve (lmdb-schema/feed.md "The history a feed holds"), read from what
 * is stored already: the lowest block record of the source, its state:
 * record, the records of its routes.  The block database's keys are
 * made here, for every writer and reader.
 */


#ifndef _CHAINDATA_HISTORY_H_INCLUDED_
#define _CHAINDATA_HISTORY_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include <lmdb.h>

#include "chaindata_feeds.h"
#include "chaindata_schema.h"


/*
 * A key of "block": the source's length (1 byte), the source, the height
 * (8 bytes be); key holds 1 + strlen(source) + 8 bytes.
 */
size_t chaindata_block_key(unsigned char *key, const char *source,
    uint64_t height);


/*
 * The chains whose records the routes serve: the feeds of blocks
 * (CHAINDATA_FEED_LIST, chaindata_feeds.h), by these names too; a route's
 * bit in a set of them is 1 << its feed.
 */
typedef chaindata_feed_e  chaindata_history_source_e;

#define CHAINDATA_HISTORY_STACKS   CHAINDATA_FEED_STACKS
#define CHAINDATA_HISTORY_RUNES    CHAINDATA_FEED_RUNES
#define CHAINDATA_HISTORY_SOURCES  CHAINDATA_FEEDS


typedef enum {
    CHAINDATA_HISTORY_NONE = 0,     /* no feed, none of its records */
    CHAINDATA_HISTORY_EMPTY,        /* a writer follows it, no block yet */
    CHAINDATA_HISTORY_PARTIAL,      /* from first on, after chain_first */
    CHAINDATA_HISTORY_WHOLE,        /* from the chain's first block */
    CHAINDATA_HISTORY_LOADED        /* records without blocks: whole */
} chaindata_history_e;


typedef struct {
    chaindata_history_e   kind;
    uint64_t              first;    /* the first block held: PARTIAL, WHOLE */
} chaindata_history_t;


/* whether the index answers a miss of the feed's routes truthfully */
#define chaindata_history_whole(h)                                         \
    ((h)->kind == CHAINDATA_HISTORY_WHOLE                                  \
     || (h)->kind == CHAINDATA_HISTORY_LOADED)


/* in a read transaction: 0, or LMDB's error */
int chaindata_history_read(MDB_txn *txn, const MDB_dbi *dbi,
    chaindata_history_source_e source, chaindata_history_t *h);


#endif /* _CHAINDATA_HISTORY_H_INCLUDED_ */
