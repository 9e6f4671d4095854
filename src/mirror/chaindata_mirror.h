
/*
 * chaindata-mirror: keeps an index current from the upstream APIs (README
 * "Keeping the index current").  Nginx-free, like the loader: it writes
 * through the same ingest code (src/ingest) in block-atomic commits.
 */


#ifndef _CHAINDATA_MIRROR_H_INCLUDED_
#define _CHAINDATA_MIRROR_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "chaindata_address.h"
#include "chaindata_feed.h"
#include "chaindata_index.h"
#include "chaindata_jdoc.h"
#include "chaindata_nats.h"
#include "chaindata_record.h"


#define CHAINDATA_MIRROR_OK        0
#define CHAINDATA_MIRROR_UPSTREAM  1    /* upstream answered wrongly */
#define CHAINDATA_MIRROR_USAGE     2
#define CHAINDATA_MIRROR_SYSTEM    3    /* index or system error */

#define CHAINDATA_URL_MAX          2048


/* one GET; check() says whether a 2xx answer is what it should be */
typedef struct chaindata_req_s  chaindata_req_t;

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
    chaindata_arena_t   *arena;
    chaindata_jv_t      *root;      /* the body parsed, for check() */
    char                 why[256];

    unsigned             tries;
    double               not_before;
    CURL                *easy;
    unsigned             done:1;
    unsigned             active:1;
    unsigned             gone_ok:1;  /* a 404 answers: root stays NULL */
};


/* a list upstream serves in pages (chaindata_mirror_pages.c) */
typedef struct chaindata_plist_s  chaindata_plist_t;

struct chaindata_plist_s {
    char                 base[CHAINDATA_URL_MAX];   /* up to the '?' */
    unsigned             limit;
    const char        *(*entry)(chaindata_plist_t *l,
                                const chaindata_jv_t *e);
    uint64_t             total;
    size_t               npages;
    chaindata_req_t    **pages;

    /* what its entries are checked against */
    uint64_t             height;
    char                 id[CHAINDATA_ADDRESS_MAX_LEN + 1];  /* tx, address */
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

typedef struct {
    CURLM               *multi;
    struct curl_slist   *headers;        /* --header: not bound yet */
    const char          *base[CHAINDATA_SOURCES];        /* the URLs */
    struct curl_slist   *bound[CHAINDATA_SOURCES];
    unsigned             parallel;
    double               rate;         /* requests per second, 0: any */
    unsigned             retries;
    long                 timeout_ms;
    double               next_start;
    uint64_t             requests;
    uint64_t             retried;
} chaindata_http_t;


typedef struct {
    const char          *db_path;
    const char          *stacks_api;
    const char          *runes_api;
    const char          *platform_api;
    const char          *chainhooks_file;
    uint64_t             from_height;
    int                  has_from;
    uint64_t             runes_from_height;
    int                  has_runes_from;
    int                  no_mempool;

    /* the chainhooks file's lines: uuid, then the key (never logged) */
    char               **hooks;
    size_t               nhooks;
    double               hooks_interval;
    double               hooks_next;

    /* the pending transactions the index holds (32-byte ids, sorted) */
    unsigned char       *pending;
    size_t               npending;
    int                  pending_read;

    int                  once;
    double               interval;

    chaindata_http_t     http;
    chaindata_index_t    ix;
    chaindata_feed_t     feed;
    chaindata_record_t   rec;
    chaindata_writeset_t ws;

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
} chaindata_mirror_t;


extern volatile int  chaindata_mirror_stop;


double chaindata_now(void);
void chaindata_mirror_log(chaindata_mirror_t *m, const char *level,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 3, 4)))
#endif
    ;
void chaindata_mirror_progress(chaindata_mirror_t *m, int force);

int chaindata_http_init(chaindata_http_t *h);
void chaindata_http_free(chaindata_http_t *h);
/* an option of CHAINDATA_HTTP_OPTIONS: 1 taken, 0 not one, -1 wrong */
int chaindata_http_option(chaindata_http_t *h, int c, char *arg);
/* after the options: every header bound to its source's URL, or -1 */
int chaindata_http_bind(chaindata_http_t *h);
chaindata_req_t *chaindata_req_new(int (*check)(chaindata_req_t *r),
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;
void chaindata_req_free(chaindata_req_t *r);
int chaindata_req_json(chaindata_req_t *r);
int chaindata_req_fail(chaindata_req_t *r, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;
/*
 * 0 when every request got a good answer; -1 one failed for good (*failed
 * tells, its why says why), -2 stopped by a signal, -3 a system error
 */
int chaindata_http_run(chaindata_http_t *h, chaindata_req_t **reqs,
    size_t n, chaindata_req_t **failed);

/* the block being mirrored, committed whole (chaindata_mirror_block.c) */
int chaindata_block_open(chaindata_mirror_t *m, const char *source,
    uint64_t height, const unsigned char *hash, size_t hash_len,
    const unsigned char *parent, size_t parent_len, uint64_t t);
int chaindata_block_record(chaindata_mirror_t *m, const unsigned char *line,
    size_t len);
int chaindata_block_commit(chaindata_mirror_t *m);
/* commits the write set (records outside blocks): 0, or -1 logged */
int chaindata_block_write(chaindata_mirror_t *m);
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

/* a member of obj: an integer from 0 to 2^64-1, a block hash; 0 or -1 */
int chaindata_jv_u64(const chaindata_jv_t *obj, const char *name,
    uint64_t *v);
int chaindata_jv_hash(const chaindata_jv_t *obj, const char *name,
    unsigned char *out, size_t *len);

/*
 * Runs the requests (a NULL one: out of memory) and logs a failure:
 * CHAINDATA_MIRROR_OK, _UPSTREAM, _SYSTEM, or -1 when stopped by a signal
 */
int chaindata_mirror_fetch(chaindata_mirror_t *m, chaindata_req_t **reqs,
    size_t n);

int chaindata_plist_fetch(chaindata_mirror_t *m, chaindata_plist_t **lists,
    size_t n);
int chaindata_plist_each(chaindata_plist_t *l,
    int (*each)(void *ctx, const chaindata_jv_t *e), void *ctx);
void chaindata_plist_free(chaindata_plist_t *l);
int chaindata_list_record(chaindata_mirror_t *m, const char *head,
    const chaindata_jv_t **entries, size_t n);

/* the rune_balances records of addresses (chaindata_mirror_balances.c) */
int chaindata_balances_records(chaindata_mirror_t *m, char **addresses,
    size_t n);

int chaindata_stacks_poll(chaindata_mirror_t *m, int *caught_up);
int chaindata_runes_poll(chaindata_mirror_t *m, int *caught_up);
int chaindata_mempool_poll(chaindata_mirror_t *m);
int chaindata_chainhooks_read(chaindata_mirror_t *m);
int chaindata_chainhooks_poll(chaindata_mirror_t *m);
void chaindata_chainhooks_free(chaindata_mirror_t *m);
void chaindata_mempool_free(chaindata_mirror_t *m);


#endif /* _CHAINDATA_MIRROR_H_INCLUDED_ */
