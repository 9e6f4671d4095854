
/*
 * chaindata-mirror: keeps an index current from the upstream APIs
 * (doc/mirror.md).  Nginx-free, like the loader: it writes through the same
 * ingest code (src/ingest) in block-atomic commits.  The program's state,
 * made of what its rooms' headers declare: the client's
 * (chaindata_mirror_http.h), the followers' (chaindata_mirror_follow.h),
 * the Runes feed's (chaindata_mirror_runes.h), the chainhooks'
 * (chaindata_mirror_chainhooks.h), the mempool's
 * (chaindata_mirror_mempool.h); the emitter and block
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

#include "chaindata_envfile.h"
#include "chaindata_eta.h"
#include "chaindata_exit.h"
#include "chaindata_ingest.h"
#include "chaindata_mirror_chainhooks.h"
#include "chaindata_mirror_follow.h"
#include "chaindata_mirror_http.h"
#include "chaindata_mirror_log.h"
#include "chaindata_mirror_mempool.h"
#include "chaindata_mirror_runes.h"
#include "chaindata_nats.h"
#include "chaindata_stream_publish.h"


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
    const char          *config_file;  /* --config: its words kept */
    chaindata_envfile_t  config;
    const char          *db_path;
    const char          *stacks_api;
    const char          *runes_api;
    const char          *platform_api;
    const char          *chainhooks_file;
    uint64_t             from_height;
    int                  has_from;
    uint64_t             max_reorg;      /* blocks a rollback may undo */
    int                  no_mempool;
    chaindata_runes_state_t  runes;    /* the Runes feed's */
    chaindata_hooks_t    hooks;        /* the chainhooks' */
    uint64_t             unknown_stored; /* documents with what is new */
    int                  stacks_claims_logged;  /* a block's counts differ */
    chaindata_pending_t  pending;      /* the mempool's */

    int                  once;
    double               interval;
    unsigned             ahead;        /* --blocks-ahead */
    chaindata_follow_t   follow;       /* the followers' */

    chaindata_http_t     http;
    chaindata_ingest_t   in;           /* the working index, its writes */

    /* --nats: the connection, the publisher (chaindata_stream_publish.h) */
    chaindata_nats_t     nats;
    chaindata_pub_t     *pub;

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
