
/*
 * chaindata-mirror: keeps an index current from the upstream APIs
 * (doc/mirror.md).  Nginx-free, like the loader: it writes through the same
 * ingest code (src/ingest) in block-atomic commits.  The program's state,
 * made of what its rooms' headers declare: the client's
 * (chaindata_mirror_http.h), the followers' (chaindata_mirror_follow.h),
 * the Runes feed's (chaindata_mirror_runes.h); the emitter and block
 * writer (chaindata_mirror_block.h), the paged lists
 * (chaindata_mirror_pages.h) and the Stacks follower's rooms
 * (chaindata_mirror_stacks.h) are included where they are used.
 */


#ifndef _CHAINDATA_MIRROR_H_INCLUDED_
#define _CHAINDATA_MIRROR_H_INCLUDED_


#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <curl/curl.h>

#include "chaindata_eta.h"
#include "chaindata_exit.h"
#include "chaindata_ingest.h"
#include "chaindata_mirror_follow.h"
#include "chaindata_mirror_http.h"
#include "chaindata_mirror_log.h"
#include "chaindata_mirror_runes.h"
#include "chaindata_nats.h"


/*
 * What an upstream may claim (doc/mirror.md "Counts are claims"): the
 * largest Stacks transaction known has about 330,000 events, a block some
 * thousands of transactions, the mempool tens of thousands; each cap
 * leaves headroom.  An event_count beyond is refused, never allocated
 * for; a block's listing and the mempool are paged to their end whatever
 * their "total" says (a claim, a hint bounded by the cap), and one going
 * on past its cap fails loudly.
 */
#define CHAINDATA_TX_EVENTS_MAX     1000000
#define CHAINDATA_BLOCK_TXS_MAX     100000
#define CHAINDATA_MEMPOOL_MAX       1000000


struct chaindata_mirror_s {
    const char          *db_path;
    const char          *stacks_api;
    const char          *runes_api;
    const char          *platform_api;
    const char          *chainhooks_file;
    uint64_t             from_height;
    int                  has_from;
    uint64_t             runes_from_height;
    int                  has_runes_from;
    uint64_t             runes_behind;   /* the tip last logged below */
    /* the hash of the runes block the lists being fetched are written
       with, and the tip's as the status route's ETag last said */
    unsigned char        runes_at[CHAINDATA_FEED_HASH_MAX];
    size_t               runes_at_len;
    uint64_t             runes_at_lo;    /* the blocks written, if any */
    uint64_t             runes_at_hi;
    unsigned char        runes_tip_tag[CHAINDATA_FEED_HASH_MAX];
    size_t               runes_tip_tag_len;
    chaindata_above_t   *runes_above;
    size_t               runes_nabove;
    uint64_t             max_reorg;      /* blocks a rollback may undo, */
    uint64_t             runes_max_reorg;  /* as followers' by default */
    chaindata_catchup_e  runes_catch_up;   /* --catch-up */
    size_t               runes_fill_window; /* --catch-up-window: blocks */
    int                  no_mempool;

    /* the chainhooks file's lines: uuid, then the key (never logged) */
    char               **hooks;
    size_t               nhooks;
    double               hooks_interval;
    double               hooks_next;
    uint64_t             hooks_skipped;  /* statuses failed and skipped */
    uint64_t             unknown_stored; /* documents with what is new */
    int                  stacks_claims_logged;  /* a block's counts differ */

    /* the pending transactions the index holds (32-byte ids, sorted) */
    unsigned char       *pending;
    size_t               npending;
    int                  pending_read;

    int                  once;
    double               interval;
    unsigned             ahead;        /* --blocks-ahead */
    chaindata_follower_t followers[CHAINDATA_MIRROR_FOLLOWERS];
    chaindata_follower_t   *polled;       /* the feed whose pass runs */
    double               followers_stored;  /* when their state was stored */

    chaindata_http_t     http;
    chaindata_ingest_t   in;           /* the working index, its writes */

    /* --nats: the publisher (chaindata_mirror_nats.c) */
    chaindata_nats_t     nats;
    struct chaindata_pub_s  *pub;

    /* progress */
    int                  tty;
    double               started;
    double               last_report;
    uint64_t             blocks;
    uint64_t             txs;
    uint64_t             height;
    uint64_t             block_time;
    char                 source[CHAINDATA_FEED_SOURCE_MAX + 1];
    chaindata_eta_t      eta;          /* of the source last mirrored */
    char                 eta_source[CHAINDATA_FEED_SOURCE_MAX + 1];
};


#endif /* _CHAINDATA_MIRROR_H_INCLUDED_ */
