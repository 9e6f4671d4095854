
/*
 * chaindata: the module's traffic counters (doc/operations.md
 * "Monitoring"): per
 * route, requests by status class, a latency histogram with fixed
 * buckets, 304s and body bytes plain and gzip; the 503s by reason.  The
 * module keeps them in shared memory and adds to them with atomic
 * increments (src/ngx/, its metrics file); this file names them and
 * writes them out, as JSON and in the Prometheus text format.
 */


#ifndef _CHAINDATA_METRICS_H_INCLUDED_
#define _CHAINDATA_METRICS_H_INCLUDED_


#include <stdint.h>

#include "chaindata_routes.h"
#include "chaindata_sbuf.h"


/*
 * the counted routes of chaindata_routes.h, CHAINDATA_ROUTE_<id>, in order:
 * its list of routes, then its list of paths
 */

#define CHAINDATA_ROUTE_COUNTED(id, directive, feed, flags)                  \
    CHAINDATA_ROUTE_##id,
#define CHAINDATA_ROUTE_UNCOUNTED(id, directive, feed, flags)
#define CHAINDATA_ROUTE_PATH_COUNTED(id, family, path, feed, flags)          \
    CHAINDATA_ROUTE_##id,

typedef enum {
    CHAINDATA_ROUTE_LIST(CHAINDATA_ROUTE_COUNTED, CHAINDATA_ROUTE_UNCOUNTED)
    CHAINDATA_PATH_LIST(CHAINDATA_ROUTE_PATH_COUNTED)
    CHAINDATA_ROUTES
} chaindata_route_e;


/*
 * why the module answered 503 (behind: chaindata_status's health check;
 * no_history: a miss whose feed does not reach the chain's first block;
 * no_v3: a v3 answer of a transaction the index holds without its v3
 * document, a pending one waiting for its receipt_block_height, a mined
 * one loaded without its block's index hashes)
 */
typedef enum {
    CHAINDATA_UNAVAILABLE_BODY_BUDGET = 0,
    CHAINDATA_UNAVAILABLE_READERS_FULL,
    CHAINDATA_UNAVAILABLE_INDEX_UNREADABLE,
    CHAINDATA_UNAVAILABLE_BEHIND,
    CHAINDATA_UNAVAILABLE_NO_HISTORY,
    CHAINDATA_UNAVAILABLE_NO_V3,
    CHAINDATA_UNAVAILABLE_REASONS
} chaindata_unavailable_e;


/* 1xx … 5xx */
#define CHAINDATA_METRICS_CLASSES  5

/*
 * the histogram's upper bounds, in microseconds (an answer from memory
 * takes tens of them), and one above them all
 */
#define CHAINDATA_METRICS_BOUNDS   17

/* bumped whenever chaindata_metrics_t changes: a reload keeps the memory */
#define CHAINDATA_METRICS_LAYOUT   3


typedef struct {
    uint64_t   requests[CHAINDATA_METRICS_CLASSES];
    uint64_t   duration[CHAINDATA_METRICS_BOUNDS + 1];  /* not cumulative */
    uint64_t   duration_us;                             /* their sum */
    uint64_t   not_modified;
    uint64_t   bytes_plain;
    uint64_t   bytes_gzip;
    /* misses answered by upstream (chaindata_miss_fallback), its class */
    uint64_t   fallback[CHAINDATA_METRICS_CLASSES];
} chaindata_metrics_route_t;


typedef struct {
    uint64_t                   layout;    /* CHAINDATA_METRICS_LAYOUT */
    uint64_t                   size;      /* sizeof(chaindata_metrics_t) */
    uint64_t                   start;     /* counting since (Unix seconds) */
    chaindata_metrics_route_t  route[CHAINDATA_ROUTES];
    uint64_t                   unavailable[CHAINDATA_UNAVAILABLE_REASONS];
    /* indexes renamed over the one open that could not be opened */
    uint64_t                   swaps_refused;
} chaindata_metrics_t;


/* the counted routes' labels: their ids */
extern const char      *chaindata_route_names[CHAINDATA_ROUTES];
extern const char      *chaindata_unavailable_names[
                            CHAINDATA_UNAVAILABLE_REASONS];
extern const uint32_t   chaindata_metrics_bounds_us[CHAINDATA_METRICS_BOUNDS];


/* the histogram bucket of a duration in microseconds */
unsigned chaindata_metrics_bucket(uint64_t us);

/* the "traffic" member of chaindata_status's JSON, without a comma */
void chaindata_metrics_json(chaindata_sbuf_t *b, const chaindata_metrics_t *m);

/* the traffic metrics in the Prometheus text format */
void chaindata_metrics_prometheus(chaindata_sbuf_t *b,
    const chaindata_metrics_t *m);


#endif /* _CHAINDATA_METRICS_H_INCLUDED_ */
