
/*
 * chaindata-mirror: the Stacks follower's rooms, from the bottom: its
 * routes and their checks (chaindata_mirror_stacks_routes.c), a block's
 * stages (chaindata_mirror_stacks_block.c), the blocks in flight
 * (chaindata_mirror_stacks_window.c), the poll
 * (chaindata_mirror_stacks.c).
 */


#ifndef _CHAINDATA_MIRROR_STACKS_H_INCLUDED_
#define _CHAINDATA_MIRROR_STACKS_H_INCLUDED_


#include "chaindata_mirror.h"


/* the feed's name (CHAINDATA_FEED_LIST) */
#define CHAINDATA_STACKS                                                    \
    (chaindata_feeds[CHAINDATA_FEED_STACKS].source)
#define CHAINDATA_TXS_PAGE          50
#define CHAINDATA_EVENTS_PAGE       100
/* pages of a block's listing asked at once, as its claims suggest */
#define CHAINDATA_TXS_PAGES_ROUND   16


typedef struct {
    char               tx_id[67];
    uint64_t           event_count;
    int                confirmed;
    size_t             npages;
    chaindata_req_t  **pages;
    /* the chain's first block: what its v3 document says (v3 set) */
    char               v3_parent_index[67];
    uint64_t           v3_time;
    unsigned           v3:1;
} chaindata_stx_t;


typedef struct {
    int                stage;        /* chaindata_sstage_e */
    chaindata_req_t  **reqs;         /* the stage's, nreqs */
    size_t             nreqs;
    size_t             pending;      /* of them, not answered yet */
    size_t             bytes;        /* the answers held */
    chaindata_req_t   *failed;       /* the request that failed it */

    uint64_t           height;
    uint64_t           time;
    uint64_t           tx_count;     /* claimed by the block */
    uint64_t           total;        /* claimed by its listing's first page */
    uint64_t           ntxs;         /* listed, what is mirrored */
    size_t             txs_cap;      /* places in txs */
    int                listed;       /* its listing ended */
    unsigned char      hash[CHAINDATA_FEED_HASH_MAX];
    size_t             hash_len;
    unsigned char      parent[CHAINDATA_FEED_HASH_MAX];
    size_t             parent_len;
    /* the v3 document's: "0x" and 64 hex digits each, or empty */
    char               index_hash[67];
    char               parent_index_hash[67];
    chaindata_stx_t   *txs;          /* ntxs, their ids as listed */
} chaindata_sblock_t;


/*
 * Blocks in flight.  The blocks above the position are fetched up to
 * --blocks-ahead at a time (and while the answers held stay under
 * CHAINDATA_AHEAD_BYTES), their requests sharing --parallel, the lowest
 * block's first; each is committed whole, in height order, once it is
 * fetched and every block below it is committed: while one commits, the
 * requests of those above it are in flight.  A block failing stops the
 * blocks above it (discarded, nothing of them written) and, once the
 * blocks below it are committed, the pass; a block not naming the
 * committed one below it as its parent does the same.  A block goes
 * through stages, the requests of one stage fetched together:
 */
#define CHAINDATA_AHEAD_BYTES  ((size_t) 64 * 1024 * 1024)
/* seconds between asking upstream's tip again while catching up */
#define CHAINDATA_TIP_EVERY    30.0

typedef enum {
    CHAINDATA_SB_BLOCK = 0,     /* the block */
    CHAINDATA_SB_LIST,          /* the first page of its transactions */
    CHAINDATA_SB_PAGES,         /* the listing's further pages, in rounds */
    CHAINDATA_SB_TXS,           /* each transaction, with its first events */
    CHAINDATA_SB_EVENTS,        /* the transactions' further events */
    CHAINDATA_SB_V3,            /* the chain's first block alone: each
                                   transaction's v3 document */
    CHAINDATA_SB_READY          /* fetched, to commit in its turn */
} chaindata_sstage_e;


typedef struct {
    chaindata_mirror_t    *m;
    chaindata_sblock_t   **b;       /* b[0]: the next to commit */
    size_t                 n;
    size_t                 max;     /* --blocks-ahead */
    uint64_t               next;    /* the next height to fetch */
    uint64_t               tip;
    double                 tip_next;  /* when to ask it again */
    int                    stop;    /* a block failed: none starts above */
    chaindata_req_t      **all;     /* a turn's requests */
    size_t                 cap;
} chaindata_swin_t;


/* the routes and their checks (chaindata_mirror_stacks_routes.c) */
int chaindata_stacks_check_tip(chaindata_req_t *r);
int chaindata_stacks_get1(chaindata_mirror_t *m, chaindata_req_t *r);
chaindata_req_t *chaindata_stacks_block_req(chaindata_mirror_t *m,
    chaindata_sblock_t *b, uint64_t height);
chaindata_req_t *chaindata_stacks_txs_req(chaindata_mirror_t *m,
    chaindata_sblock_t *b, size_t offset);
chaindata_req_t *chaindata_stacks_tx_req(chaindata_mirror_t *m,
    chaindata_sblock_t *b, chaindata_stx_t *t, uint64_t offset);
chaindata_req_t *chaindata_stacks_v3_req(chaindata_mirror_t *m,
    chaindata_sblock_t *b, chaindata_stx_t *t);
/* a fetched transaction's "tx" record, emitted */
int chaindata_stacks_record(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_stx_t *t);

/* a block's stages (chaindata_mirror_stacks_block.c) */
void chaindata_sblock_free(chaindata_mirror_t *m, chaindata_sblock_t *b);
int chaindata_sblock_stage(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_sstage_e stage, size_t n);
int chaindata_sblock_add(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_req_t *r);
int chaindata_sblock_listed(chaindata_mirror_t *m, chaindata_sblock_t *b);
int chaindata_sblock_next(chaindata_mirror_t *m, chaindata_sblock_t *b);

/* the blocks in flight (chaindata_mirror_stacks_window.c) */
void chaindata_swin_discard(chaindata_swin_t *w, size_t i);
int chaindata_swin_advance(chaindata_swin_t *w);
int chaindata_swin_fill(chaindata_swin_t *w);
int chaindata_swin_turn(chaindata_swin_t *w);


#endif /* _CHAINDATA_MIRROR_STACKS_H_INCLUDED_ */
