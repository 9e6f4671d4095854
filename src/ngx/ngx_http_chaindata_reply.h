
/*
 * chaindata: the route template, what every route's handler shares
 * (ngx_http_chaindata_reply.c): the method and the query checked, a
 * refused target answered, and the one way a route reads the index and
 * replies, above sending (ngx_http_chaindata_send.h).
 */


#ifndef _NGX_HTTP_CHAINDATA_REPLY_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_REPLY_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <lmdb.h>

#include "chaindata_history.h"
#include "chaindata_metrics.h"
#include "chaindata_paths.h"
#include "chaindata_schema.h"
#include "ngx_http_chaindata_read.h"
#include "ngx_http_chaindata_send.h"


/* the index cannot be read right now (logged where it was found out) */
ngx_int_t ngx_http_chaindata_send_unavailable(ngx_http_request_t *r);

/* every route serves GET and HEAD; others get a 405 JSON body */
#define ngx_http_chaindata_method_allowed(r)                                 \
    ((r)->method & (NGX_HTTP_GET|NGX_HTTP_HEAD))
ngx_int_t ngx_http_chaindata_send_not_allowed(ngx_http_request_t *r);

/*
 * The bytes of bodies the workers' unfinished requests hold, against
 * chaindata_body_budget (ngx_http_chaindata_budget.c): NGX_OK with size
 * counted until the request ends, NGX_BUSY, or NGX_ERROR.
 */
ngx_int_t ngx_http_chaindata_budget_take(ngx_http_request_t *r,
    size_t size);
/* the 503 of a body the budget has no room for now */
ngx_int_t ngx_http_chaindata_send_busy(ngx_http_request_t *r);

/*
 * A route: its answers to a refused request target (chaindata_paths.h)
 * and its read of the index, in one read transaction:
 *
 *   describe  says what the route reads (ngx_http_chaindata_read.h), once
 *             a request: the record, and the chunks of its list a page
 *             takes; the event loop and chaindata_threads' pool both read
 *             what it says;
 *   lookup    decodes the record found (NULL: none) and leaves the reply's
 *             status (NGX_HTTP_OK or NGX_HTTP_NOT_FOUND, with
 *             reply->untold when the index cannot tell) and its ETag, if
 *             any;
 *   size      reads what the body is made of (the chunks of the page,
 *             ngx_http_chaindata_chunks_read() with the reply), and
 *             leaves its length in reply->body.len (not called for a 304
 *             or a 412);
 *   write     copies those bytes to p and returns where they end (not
 *             called for HEAD, nor when chaindata_body_budget is spent).
 *
 * Nothing may point into the map once the transaction ends.  NGX_ERROR
 * from a callback is a 500 with the route's message.
 */

typedef struct {
    ngx_uint_t                         status;
    ngx_str_t                          body;
    ngx_str_t                          etag;
    ngx_http_chaindata_match_e         match;
    const char                        *untold;    /* a miss: why not 404 */
    chaindata_unavailable_e            untold_why;  /* its metrics reason */
    const ngx_http_chaindata_read_t   *read;      /* what describe said */
    MDB_val                            at[3];     /* the record in the map:
                                                     it, or its first part
                                                     and the rest; then the
                                                     first chunk of its list
                                                     the page read (its
                                                     first part) */
    unsigned                           gzip:1;    /* of a route of pieces */
    unsigned                           fixed:1;   /* status, body: lookup's */
    const char                        *cache_control;  /* of a fixed one,
                                                          or the route's */
} ngx_http_chaindata_reply_t;

/*
 * In a lookup that found nothing: whether the index can say so, from the
 * history of the chain (chaindata_history.h) of the route's feed, as its
 * line in the list of routes names it (its descriptor's feed:
 * ngx_http_chaindata_route_feed(id)).  NGX_OK with reply->untold NULL
 * when it holds the whole history (the miss is upstream's answer too),
 * else why not; a status NOT_FOUND then goes to chaindata_miss_fallback,
 * or is a 503 saying why.  NGX_ERROR: logged (a route without a feed
 * too).
 */
ngx_int_t ngx_http_chaindata_miss_history(ngx_http_request_t *r,
    ngx_int_t feed, ngx_http_chaindata_reply_t *reply);

/*
 * A route whose bodies are made of pieces (lmdb-schema/pieces.md) answers
 * gzip to a request that accepts it, decided before lookup
 * (reply->gzip): lookup gives each encoding its own ETag, size and write
 * make that encoding, with ngx_http_chaindata_gzip.h.  A write that
 * returns NULL found a damaged piece (a 500, logged).
 */

typedef ngx_int_t (*ngx_http_chaindata_lookup_pt)(ngx_http_request_t *r,
    void *ctx, const MDB_val *record, ngx_http_chaindata_reply_t *reply);
typedef ngx_int_t (*ngx_http_chaindata_read_pt)(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
typedef u_char *(*ngx_http_chaindata_write_pt)(void *ctx, u_char *p);

typedef struct {
    ngx_http_chaindata_describe_pt  describe;
    ngx_http_chaindata_lookup_pt    lookup;
    ngx_http_chaindata_read_pt      size;
    ngx_http_chaindata_write_pt     write;
    const char                     *code;           /* of the 400s, or NULL */
    const char                     *invalid;        /* 400: path parameter */
    const char                     *no_route;       /* 404: the path's shape */
    const char                     *not_found;      /* 404: nothing stored */
    const char                     *unreadable;     /* 500 */
    const char                     *cache_control;  /* of 200 and 304 */
    unsigned                        pieces:1;       /* gzip or plain */
    unsigned                        invalid_bare:1; /* 400: no Cache-Control */
} ngx_http_chaindata_route_t;

/* the route's 400 of a refused parameter, with upstream's message */
ngx_int_t ngx_http_chaindata_send_invalid(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, const char *message);
ngx_int_t ngx_http_chaindata_send_bad_target(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, chaindata_target_e target,
    chaindata_query_t *query);
/*
 * A miss (its reply's untold said why the index cannot tell, or NULL):
 * to chaindata_miss_fallback, else a 503 saying why, or the route's 404
 */
ngx_int_t ngx_http_chaindata_send_miss(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route,
    const ngx_http_chaindata_reply_t *reply);
ngx_int_t ngx_http_chaindata_read_and_reply(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx);
ngx_int_t ngx_http_chaindata_not_modified_as(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx, ngx_str_t *etag);

/* in a read callback: a stored value that cannot be decoded (an alert) */
void ngx_http_chaindata_log_damaged(ngx_log_t *log, chaindata_dbi_e db,
    const u_char *data, size_t size);

/*
 * The request's query string, ready for the checks of
 * chaindata_paths.h (room for its values from the pool), and the
 * upstream validation message of the check that failed.
 */
ngx_int_t ngx_http_chaindata_request_query(ngx_http_request_t *r,
    chaindata_query_t  *q);
const char *ngx_http_chaindata_query_message(ngx_http_request_t *r,
    chaindata_query_t  *q);


#endif /* _NGX_HTTP_CHAINDATA_REPLY_H_INCLUDED_ */
