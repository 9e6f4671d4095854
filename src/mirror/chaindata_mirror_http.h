
/*
 * chaindata-mirror: fetching: one GET and its check (chaindata_mirror_req.c),
 * the request headers bound to their source and the URLs checked
 * (chaindata_mirror_http_headers.c), the HTTP client
 * (chaindata_mirror_http.c).
 */


#ifndef _CHAINDATA_MIRROR_HTTP_H_INCLUDED_
#define _CHAINDATA_MIRROR_HTTP_H_INCLUDED_


#include <curl/curl.h>

#include "chaindata_feeds.h"
#include "chaindata_feedtip.h"
#include "chaindata_jdoc.h"
#include "chaindata_mirror_log.h"
#include "chaindata_options.h"


#define CHAINDATA_URL_MAX          2048

/*
 * --parallel's default: enough requests in flight to hide a link's round
 * trip to an upstream on another host (doc/first-fill.md: over 50 ms, 8
 * gave 1.8-2.5x one block at a time, 64 gave 4.5-7.1x, bound by upstream),
 * few enough for a shared upstream and the mirror's bodies in memory
 */
#define CHAINDATA_PARALLEL         16

/* --rate's default for an upstream elsewhere: 45 a minute (doc/mirror.md) */
#define CHAINDATA_PUBLIC_RATE      0.75


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
 * The request headers' options, a part of the mirror's table
 * (CHAINDATA_OPT_PART, its offset that of a chaindata_http_t):
 * chaindata_mirror_http_headers.c
 */
extern const chaindata_opt_t  chaindata_http_options[];


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


/* fetching (chaindata_mirror_http.c) */
int chaindata_http_init(chaindata_http_t *h);
void chaindata_http_free(chaindata_http_t *h);
/* after the options: every header bound to its source's URL, or -1 */
int chaindata_http_bind(chaindata_http_t *h);
/* the headers bound to the source of url (chaindata_mirror_http_headers.c) */
struct curl_slist *chaindata_http_headers(chaindata_http_t *h,
    const char *url);
/*
 * What goes into a URL from upstream is parsed first: a tx_id is "0x"
 * and 64 hex digits (1), or it is not one (0).  chaindata_http_fill()
 * refuses a URL libcurl would rewrite (dot segments, characters outside
 * a URL's plain set) before a header's scope is checked on it.
 */
int chaindata_url_txid(const chaindata_jv_t *id);
int chaindata_doc_txid(const chaindata_jv_t *doc, unsigned char *id);
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


#endif /* _CHAINDATA_MIRROR_HTTP_H_INCLUDED_ */
