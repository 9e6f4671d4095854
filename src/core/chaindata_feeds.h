
/*
 * chaindata: the feeds, one list (lmdb-schema/feed.md): what
 * chaindata-mirror follows, each a source of the index's positions,
 * block records and states, with the history the routes read of it, and
 * the upstream APIs they come from.  A new feed is one line here.
 *
 * No nginx headers here.
 */


#ifndef _CHAINDATA_FEEDS_H_INCLUDED_
#define _CHAINDATA_FEEDS_H_INCLUDED_


#include <stdint.h>

#include "chaindata_schema.h"


/*
 * The upstream APIs, X(id, name): CHAINDATA_SOURCE_<id>, each with its
 * URL and the request headers bound to it (chaindata-mirror's --NAME-api,
 * --NAME-header).
 */
#define CHAINDATA_UPSTREAM_LIST(X)                                          \
    X(STACKS, "stacks")                                                     \
    X(RUNES, "runes")                                                       \
    X(PLATFORM, "platform")

/*
 * The feeds, in the order chaindata-mirror polls them:
 *
 *   X(id, name, upstream, chain_first, data, data2, routes, reorg)
 *
 * id: CHAINDATA_FEED_<id>; name: the source its blocks, position and
 * state: record are stored under; upstream: the API it reads; chain_first:
 * the chain's first block of records, 0 for a feed of no blocks (Stacks'
 * is 1, stacks-blockchain-api's genesis block; Runes activated at Bitcoin
 * block 840,000 and the Runes API holds nothing before it); data, data2:
 * the databases of its routes' records (COUNT: none); routes: the routes,
 * as a log line names them; reorg: the most blocks a rollback undoes
 * unless told otherwise (lmdb-schema/feed.md "Reorg depth": Bitcoin's
 * deepest reorgs were 53 blocks in 2010 and 24 in 2013, none deeper
 * than a few since; a Stacks fork follows Bitcoin's, and one Bitcoin
 * block holds a tenure of up to hundreds of Stacks blocks), 0 for a feed
 * of no blocks.
 */
#define CHAINDATA_FEED_LIST(X)                                              \
    X(STACKS, "stacks", STACKS, 1, TX, COUNT, "transaction", 1000)          \
    X(MEMPOOL, "mempool", STACKS, 0, COUNT, COUNT, NULL, 0)                 \
    X(RUNES, "runes", RUNES, 840000, RUNE_ACTIVITY, RUNE_BALANCES, "rune",  \
      100)                                                                  \
    X(CHAINHOOKS, "chainhooks", PLATFORM, 0, COUNT, COUNT, NULL, 0)


#define CHAINDATA_UPSTREAM_ID(id, name)  CHAINDATA_SOURCE_##id,
#define CHAINDATA_FEED_LIST_ID(id, name, upstream, chain_first, data,      \
    data2, routes, reorg)                                                   \
    CHAINDATA_FEED_##id,

typedef enum {
    CHAINDATA_UPSTREAM_LIST(CHAINDATA_UPSTREAM_ID)
    CHAINDATA_SOURCES
} chaindata_source_e;

typedef enum {
    CHAINDATA_FEED_LIST(CHAINDATA_FEED_LIST_ID)
    CHAINDATA_FEEDS
} chaindata_feed_e;

#undef CHAINDATA_UPSTREAM_ID
#undef CHAINDATA_FEED_LIST_ID


typedef struct {
    const char          *source;       /* the feed's name */
    chaindata_source_e   upstream;
    uint64_t             chain_first;  /* 0: no blocks */
    chaindata_dbi_e      data[2];      /* its routes' records (COUNT: none) */
    const char          *routes;       /* as a log line names them */
    uint64_t             reorg;        /* the default depth, 0: no blocks */
} chaindata_feed_desc_t;


extern const char *const           chaindata_source_names[CHAINDATA_SOURCES];
extern const chaindata_feed_desc_t  chaindata_feeds[CHAINDATA_FEEDS];


/* the feed of a source's name, or NULL */
const chaindata_feed_desc_t *chaindata_feed_named(const char *source);


#endif /* _CHAINDATA_FEEDS_H_INCLUDED_ */
