
/*
 * chaindata-mirror: keeps an index current from the upstream APIs
 * (doc/mirror.md).  Nginx-free, like the loader: it writes through the same
 * ingest code (src/ingest) in block-atomic commits.
 */


#ifndef _CHAINDATA_MIRROR_H_INCLUDED_
#define _CHAINDATA_MIRROR_H_INCLUDED_


#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <curl/curl.h>

#include "chaindata_address.h"
#include "chaindata_eta.h"
#include "chaindata_exit.h"
#include "chaindata_feedstate.h"
#include "chaindata_feedtip.h"
#include "chaindata_ingest.h"
#include "chaindata_jdoc.h"
#include "chaindata_nats.h"


/*
 * What the mirror's functions return, one convention a family:
 *
 *   a poll and its steps (chaindata_*_poll(), chaindata_mirror_fetch(),
 *   chaindata_plist_fetch(), chaindata_balances_records(),
 *   chaindata_pub_start()): a CHAINDATA_EXIT_ code, the exit status the
 *   mirror ends with (_INPUT: upstream answered wrongly),
 *   CHAINDATA_MIRROR_STOPPED when a signal stopped it, or (a poll)
 *   CHAINDATA_MIRROR_REFUSED when its upstream is another chain;
 *
 *   writing (the block writer chaindata_block_*(), the emitter
 *   chaindata_mirror_emit(), the publisher chaindata_pub_*()) and the
 *   rest: 0, or -1 after a message (nothing is committed then);
 *
 *   the answers' checks (chaindata_req_t's check(), chaindata_req_json()):
 *   0, or -1 with the reason in the request's why, logged by
 *   chaindata_mirror_fetch() when no retry helps.
 */
#define CHAINDATA_MIRROR_STOPPED   (-1)
/* a list that changed between attempts: paged again (balances.c) */
#define CHAINDATA_MIRROR_AGAIN     (-2)
/* a poll's answer that stops its feed for good (chaindata_mirror_follow.c) */
#define CHAINDATA_MIRROR_REFUSED   (-3)

#define CHAINDATA_URL_MAX          2048

/* --catch-up: how the runes feed catches up (chaindata_mirror_runes_fill.c) */
typedef enum {
    CHAINDATA_CATCHUP_AUTO = 0,
    CHAINDATA_CATCHUP_FILL,
    CHAINDATA_CATCHUP_REPLAY
} chaindata_catchup_e;

/* the most blocks a fill window holds (--catch-up-window's default) */
#define CHAINDATA_FILL_BLOCKS      2048

/*
 * --parallel's default: enough requests in flight to hide a link's round
 * trip to an upstream on another host (doc/first-fill.md: over 50 ms, 8
 * gave 1.8-2.5x one block at a time, 64 gave 4.5-7.1x, bound by upstream),
 * few enough for a shared upstream and the mirror's bodies in memory
 */
#define CHAINDATA_PARALLEL         16

/* --rate's default for an upstream elsewhere: 45 a minute (doc/mirror.md) */
#define CHAINDATA_PUBLIC_RATE      0.75

/* the Runes API's largest page (api/runes/src/env.ts API_RESULTS_MAX_LIMIT) */
#define CHAINDATA_RUNES_PAGE       60

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

/* the entries a paged list may have: upstream's claim is refused beyond */
#define CHAINDATA_LIST_MAX         1000000
/* times a list that changes while it is paged is paged again, per pass */
#define CHAINDATA_PAGES_RESTARTS   5


/*
 * One GET; check() says whether a 2xx answer is what it should be and
 * takes from it what the caller uses: validated and extracted at once.
 */
typedef struct chaindata_req_s  chaindata_req_t;
typedef struct chaindata_http_s  chaindata_http_t;

struct chaindata_req_s {
    char                 url[CHAINDATA_URL_MAX];
    char                 label[96];     /* logged for url when set */
    int                (*check)(chaindata_req_t *r);
    void                *ctx;
    uint64_t             arg;

    long                 status;
    unsigned char       *body;
    size_t               len;
    size_t               cap;
    size_t               held;      /* of the budget: cap while active */
    chaindata_arena_t   *arena;
    chaindata_jv_t      *root;      /* the body parsed, for check() */
    chaindata_jv_t      *list;      /* the list check() found good in it */
    char                 why[256];
    /* the answer's ETag, unquoted (the Runes API's: its tip block's hash) */
    unsigned char        etag[CHAINDATA_FEED_HASH_MAX];
    size_t               etag_len;

    void                *owner;     /* the block in flight it is of */
    chaindata_http_t    *http;      /* the budget its body is counted in */
    /* called when its answer is final: the turn's that started it */
    void               (*ended)(void *ctx, chaindata_req_t *r);
    void                *ended_ctx;

    unsigned             tries;
    double               not_before;
    CURL                *easy;
    unsigned             done:1;
    unsigned             active:1;
    unsigned             gone_ok:1;  /* a 404 answers: root stays NULL */
    unsigned             may_fail:1; /* failed for good: why, the rest go on */
    unsigned             over:2;     /* past the body budget: why says */
};


/*
 * A list upstream serves in pages (chaindata_mirror_pages.c).  What a
 * page's "total" means is the route's: "counted" lists (activity) count
 * their entries in it, the others (balances) something at least as large
 * (upstream's history rows), so that they end at their first short page.
 */
typedef struct chaindata_plist_s  chaindata_plist_t;

struct chaindata_plist_s {
    char                 base[CHAINDATA_URL_MAX];   /* up to the '?' */
    unsigned             limit;
    unsigned             counted:1;   /* "total" counts the entries */
    const char        *(*entry)(chaindata_plist_t *l,
                                const chaindata_jv_t *e);
    unsigned             restarts;    /* paged again from its first page */

    /* what its entries are checked against */
    uint64_t             height;
    char                 id[CHAINDATA_ADDRESS_MAX_LEN + 1];  /* tx, address */

    /* from here on, what a fetch found: cleared before each */
    uint64_t             total;       /* as its first page says */
    uint64_t             entries;     /* how many, once complete */
    unsigned             complete;
    size_t               npages;
    chaindata_req_t    **pages;
    unsigned char        hash[CHAINDATA_FEED_HASH_MAX];
    size_t               hash_len;
    uint64_t             time;
};


/*
 * The sources, each with the request headers bound to it (an API key goes
 * to its own upstream only: chaindata_mirror_http.c).
 */
typedef enum {
    CHAINDATA_SOURCE_STACKS = 0,
    CHAINDATA_SOURCE_RUNES,
    CHAINDATA_SOURCE_PLATFORM,
    CHAINDATA_SOURCES
} chaindata_source_e;

#define CHAINDATA_HTTP_OPT  0x4800

#define CHAINDATA_HTTP_OPTIONS                                               \
    { "header", required_argument, NULL, CHAINDATA_HTTP_OPT + 'H' },         \
    { "stacks-header", required_argument, NULL, CHAINDATA_HTTP_OPT + 's' },  \
    { "runes-header", required_argument, NULL, CHAINDATA_HTTP_OPT + 'r' },   \
    { "platform-header", required_argument, NULL,                            \
      CHAINDATA_HTTP_OPT + 'p' },                                            \
    { "stacks-header-file", required_argument, NULL,                         \
      CHAINDATA_HTTP_OPT + 'S' },                                            \
    { "runes-header-file", required_argument, NULL,                          \
      CHAINDATA_HTTP_OPT + 'R' },                                            \
    { "platform-header-file", required_argument, NULL,                       \
      CHAINDATA_HTTP_OPT + 'P' }


typedef struct chaindata_mirror_s  chaindata_mirror_t;

/* names, sorted and each once (chaindata_mirror_runes.c) */
typedef struct {
    char               **items;
    size_t               n;
    size_t               cap;
} chaindata_names_t;

/*
 * Balance lists upstream served while its tip was another block than the
 * one they were written with (chaindata_mirror_runes_tip.c): that tip's
 * hash (the answers' ETag) and the lists, until the index holds that
 * block or the lists are fetched again.  The lists of blocks are named by
 * the blocks (their undo names them), the others one by one.
 */
typedef struct {
    unsigned char        tip[CHAINDATA_FEED_HASH_MAX];
    size_t               tip_len;
    unsigned             seen:1;       /* in the write being made */
    unsigned             blocks:1;     /* lo..hi hold some of them */
    uint64_t             lo;
    uint64_t             hi;
    chaindata_names_t    addresses;    /* written outside blocks */
} chaindata_above_t;

struct chaindata_http_s {
    chaindata_mirror_t  *m;            /* whose log says what waits */
    CURLM               *multi;
    struct curl_slist   *headers;        /* --header: not bound yet */
    const char          *base[CHAINDATA_SOURCES];        /* the URLs */
    struct curl_slist   *bound[CHAINDATA_SOURCES];
    unsigned             parallel;     /* in flight at most, all blocks */
    unsigned             active;       /* in flight now */
    unsigned             most;         /* in flight at most this run */
    double               rate;         /* requests per second, 0: any */
    unsigned             retries;
    long                 timeout_ms;
    double               max_wait;     /* seconds any wait lasts at most */
    double               next_start;
    uint64_t             requests;
    uint64_t             retried;
    uint64_t             throttled;    /* 429s */
    unsigned             pass_429s;    /* 429s of the feed's pass now */
    uint64_t             refused;      /* answers a check refused */
    size_t               max_body;     /* --max-body-bytes: all at once */
    size_t               body_bytes;   /* what the transfers hold now */
    size_t               body_most;    /* and the most they held */
};

/*
 * --max-body-bytes' default: the answers being received, all together
 * (decoded: a gzip bomb is stopped at it), whatever --parallel
 */
#define CHAINDATA_BODY_BUDGET  ((size_t) 128 * 1024 * 1024)


/*
 * A feed of the mirror (stacks, mempool, runes, chainhooks), polled,
 * failing, backing off and recovering on its own
 * (chaindata_mirror_follow.c).
 */
typedef struct chaindata_follower_s  chaindata_follower_t;

struct chaindata_follower_s {
    const char          *name;
    chaindata_feedstate_e  state;      /* _NONE: the feed is off */
    int                  caught_up;
    unsigned             failures;     /* failed passes in a row */
    chaindata_feedwhy_e  why;          /* of the last failure */
    double               next;         /* not polled again before */
    double               backoff;      /* seconds, the last wait */

    /* upstream's tip as claimed, believed once its block is fetched */
    unsigned             has_claim;
    chaindata_feedtip_t  claim;

    /* stored in the index (lmdb-schema/feed.md "The feed's state") */
    unsigned             has_tip;
    chaindata_feedtip_t  tip;          /* the last verified */
    chaindata_feedstate_t  stored;     /* totals, the last good pass */
};

#define CHAINDATA_MIRROR_FOLLOWERS  4


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


extern volatile int  chaindata_mirror_stop;


/* logging and progress lines (chaindata_mirror_log.c) */
double chaindata_now(void);
void chaindata_mirror_log(chaindata_mirror_t *m, const char *level,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 3, 4)))
#endif
    ;
void chaindata_mirror_progress(chaindata_mirror_t *m, int force);

/* the feeds' loop (chaindata_mirror_follow.c) */
void chaindata_follow_init(chaindata_mirror_t *m);
/* a 429 during a pass: the first logged, the feed's state "throttled" */
void chaindata_follow_throttled(chaindata_mirror_t *m, chaindata_req_t *r);
int chaindata_follow_run(chaindata_mirror_t *m);

/* what the followers report to the loop (chaindata_mirror_follow_report.c) */
#define CHAINDATA_FOLLOW_BACKOFF    1.0
/* a poll's cost, from the totals before (done 0) and after (done 1) it */
void chaindata_follower_count(chaindata_mirror_t *m, chaindata_follower_t *f,
    int done);
/* the followers' state into the index, at once when changed */
void chaindata_follow_store(chaindata_mirror_t *m, int changed);
double chaindata_follow_wait_max(chaindata_mirror_t *m);
int chaindata_follow_too_deep(chaindata_mirror_t *m, const char *source,
    uint64_t height, uint64_t max);
/*
 * upstream's tip as a poll saw it: a claim, stored with the feed's state
 * once the feed has fetched the block at that height
 */
void chaindata_follow_saw_tip(chaindata_mirror_t *m, const char *source,
    uint64_t height, uint64_t block_time);

/* fetching (chaindata_mirror_http.c) */
int chaindata_http_init(chaindata_http_t *h);
void chaindata_http_free(chaindata_http_t *h);
/* an option of CHAINDATA_HTTP_OPTIONS: 1 taken, 0 not one, -1 wrong */
int chaindata_http_option(chaindata_http_t *h, int c, char *arg);
/* after the options: every header bound to its source's URL, or -1 */
int chaindata_http_bind(chaindata_http_t *h);
/*
 * What goes into a URL from upstream is parsed first: a tx_id is "0x"
 * and 64 hex digits (1), or it is not one (0).  chaindata_http_fill()
 * refuses a URL libcurl would rewrite (dot segments, characters outside
 * a URL's plain set) before a header's scope is checked on it.
 */
int chaindata_url_txid(const chaindata_jv_t *id);
int chaindata_url_plain(const char *url, size_t *bad);

chaindata_req_t *chaindata_req_new(int (*check)(chaindata_req_t *r),
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;
void chaindata_req_free(chaindata_req_t *r);
int chaindata_req_json(chaindata_req_t *r);
const chaindata_jv_t *chaindata_req_txs_page(chaindata_req_t *r,
    const char *list, uint64_t *total);
/* r's why said (printf's arguments), and -1 */
#define chaindata_req_fail(r, ...)                                           \
    (snprintf((r)->why, sizeof((r)->why), __VA_ARGS__), -1)
/* runs the requests (a NULL one: out of memory), logs a failure */
int chaindata_mirror_fetch(chaindata_mirror_t *m, chaindata_req_t **reqs,
    size_t n);
/*
 * The client's loop for callers with requests of several blocks in
 * flight: one turn starts what may start of reqs (in their order, while
 * fewer than --parallel are in flight in all), waits for the transfers
 * and calls ended() for each request whose answer is final (r->done; a
 * failure's why set).  CHAINDATA_EXIT_OK, _SYSTEM or
 * CHAINDATA_MIRROR_STOPPED.
 */
int chaindata_http_turn(chaindata_http_t *h, chaindata_req_t **reqs,
    size_t n, void (*ended)(void *ctx, chaindata_req_t *r), void *ctx);
/* the requests of reqs in flight stopped (discarded) */
void chaindata_http_cancel(chaindata_http_t *h, chaindata_req_t **reqs,
    size_t n);
/* logs the failed request's why */
void chaindata_mirror_failed(chaindata_mirror_t *m, chaindata_req_t *r);

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

/* the publisher: the lines of a write transaction are one unit */
int chaindata_pub_start(chaindata_mirror_t *m);
int chaindata_pub_line(chaindata_mirror_t *m, const unsigned char *line,
    size_t len);
int chaindata_pub_unit(chaindata_mirror_t *m);
void chaindata_pub_reset(chaindata_mirror_t *m);
void chaindata_pub_free(chaindata_mirror_t *m);

/* lists upstream serves in pages (chaindata_mirror_pages.c) */
int chaindata_plist_fetch(chaindata_mirror_t *m, chaindata_plist_t **lists,
    size_t n);
int chaindata_plist_each(chaindata_plist_t *l,
    int (*each)(void *ctx, const chaindata_jv_t *e), void *ctx);
void chaindata_plist_free(chaindata_plist_t *l);
/* the record {"kind":kind,id_name:"id","results":[entries]}, emitted */
int chaindata_list_record(chaindata_mirror_t *m, const char *kind,
    const char *id_name, const char *id, const chaindata_jv_t **entries,
    size_t n);

/* the rune_balances records of addresses (chaindata_mirror_balances.c) */
int chaindata_balances_records(chaindata_mirror_t *m, char **addresses,
    size_t n);


int chaindata_names_add(chaindata_names_t *s, const unsigned char *p,
    size_t len);
void chaindata_names_unique(chaindata_names_t *s);
void chaindata_names_free(chaindata_names_t *s);

/* the transactions and addresses a block's activity names */
typedef struct {
    chaindata_names_t    txs;
    chaindata_names_t    addresses;
} chaindata_rnames_t;

#define CHAINDATA_RUNES             "runes"
#define CHAINDATA_RUNES_NO_HASH     "none"

/*
 * the Runes feed's parts the fill shares (chaindata_mirror_runes_lists.c):
 * the checks of a list's entries, a list of api's route fmt for what
 */
const char *chaindata_block_entry(chaindata_plist_t *l,
    const chaindata_jv_t *e);
const char *chaindata_tx_entry(chaindata_plist_t *l, const chaindata_jv_t *e);
chaindata_plist_t *chaindata_runes_list(const char *fmt, const char *api,
    const char *what,
    const char *(*entry)(chaindata_plist_t *l, const chaindata_jv_t *e));
chaindata_plist_t *chaindata_runes_block_list(chaindata_mirror_t *m,
    uint64_t height);
void chaindata_runes_block_fetched(chaindata_plist_t *l);
int chaindata_runes_names(chaindata_plist_t *blk, chaindata_rnames_t *names);
/* the addresses whose balance lists the blocks above height wrote */
int chaindata_runes_undone(chaindata_mirror_t *m, uint64_t height,
    uint64_t top, chaindata_names_t *addresses);
void chaindata_runes_names_free(chaindata_rnames_t *names);

/* balance lists at the height written (chaindata_mirror_runes_tip.c) */
int chaindata_runes_is_hash(const unsigned char *p, size_t len);
void chaindata_runes_at(chaindata_mirror_t *m, const unsigned char *hash,
    size_t len, uint64_t lo, uint64_t hi);
int chaindata_runes_fetched_at(chaindata_mirror_t *m, const char *address,
    const chaindata_req_t *r);
void chaindata_runes_above_begin(chaindata_mirror_t *m);
void chaindata_runes_above_seen(chaindata_mirror_t *m,
    const unsigned char *hash, size_t len);
void chaindata_runes_above_committed(chaindata_mirror_t *m);
/* (chaindata_mirror_runes_settle.c) */
int chaindata_runes_above_settle(chaindata_mirror_t *m,
    const unsigned char *posh, size_t posh_len);
void chaindata_runes_above_free(chaindata_mirror_t *m);

/* the catch-up fill (chaindata_mirror_runes_fill.c) */
int chaindata_runes_catch_up_mode(const char *s, chaindata_catchup_e *mode);
int chaindata_runes_fills(chaindata_mirror_t *m, uint64_t behind);
int chaindata_runes_fill(chaindata_mirror_t *m, uint64_t from, uint64_t to,
    unsigned char *posh, chaindata_feedpos_t *pos);

int chaindata_stacks_poll(chaindata_mirror_t *m, int *caught_up);
int chaindata_runes_poll(chaindata_mirror_t *m, int *caught_up);
int chaindata_mempool_poll(chaindata_mirror_t *m);
int chaindata_chainhooks_read(chaindata_mirror_t *m);
int chaindata_chainhooks_poll(chaindata_mirror_t *m);
void chaindata_chainhooks_free(chaindata_mirror_t *m);
void chaindata_mempool_free(chaindata_mirror_t *m);


#endif /* _CHAINDATA_MIRROR_H_INCLUDED_ */
