
/*
 * chaindata: the HTTP side every route shares: JSON replies (error bodies
 * written with ngx_http_chaindata_json.h), caching headers and conditional
 * requests, query arguments, and the one way a route reads the index.
 */


#ifndef _NGX_HTTP_CHAINDATA_REPLY_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_REPLY_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <lmdb.h>

#include "chaindata_history.h"
#include "chaindata_paths.h"
#include "chaindata_schema.h"
#include "ngx_http_chaindata_json.h"


#define NGX_HTTP_CHAINDATA_CONTENT_TYPE  "application/json; charset=utf-8"

#define NGX_HTTP_CHAINDATA_CACHE_PUBLIC  "public, no-cache, must-revalidate"
#define NGX_HTTP_CHAINDATA_CACHE_NONE    "no-store"

/* nginx names no constant for 410 */
#define NGX_HTTP_CHAINDATA_GONE              410

/* RFC 6585; nginx has none, it says 400 for its own 494 */
#define NGX_HTTP_CHAINDATA_HEADER_TOO_LARGE  431


ngx_int_t ngx_http_chaindata_send_json(ngx_http_request_t *r,
    ngx_uint_t status, ngx_str_t *body, ngx_str_t *etag,
    const char *cache_control);
/* the same with another Content-Type, "type/subtype; parameters" */
ngx_int_t ngx_http_chaindata_send_body(ngx_http_request_t *r,
    ngx_uint_t status, ngx_str_t *body, ngx_str_t *etag,
    const char *cache_control, const char *content_type);
ngx_int_t ngx_http_chaindata_send_json_done(ngx_http_request_t *r,
    ngx_http_chaindata_json_t *j, ngx_uint_t status,
    const char *cache_control);
void ngx_http_chaindata_error_members(ngx_http_chaindata_json_t *j,
    ngx_uint_t status, const char *code, const char *message);
ngx_int_t ngx_http_chaindata_send_error(ngx_http_request_t *r,
    ngx_uint_t status, const char *code, const char *message);
ngx_int_t ngx_http_chaindata_send_unavailable(ngx_http_request_t *r);
ngx_int_t ngx_http_chaindata_send_location(ngx_http_request_t *r,
    ngx_uint_t status, ngx_str_t *location, const char *cache_control);
ngx_int_t ngx_http_chaindata_send_empty(ngx_http_request_t *r,
    ngx_uint_t status);

/*
 * The reason phrase of an error status, and the body chaindata_error
 * answers that status with (ngx_http_chaindata_error.c).
 */
const char *ngx_http_chaindata_reason(ngx_uint_t status);
ngx_int_t ngx_http_chaindata_send_status(ngx_http_request_t *r,
    ngx_uint_t status);

/* every route serves GET and HEAD; others get a 405 JSON body */
#define ngx_http_chaindata_method_allowed(r)                                 \
    ((r)->method & (NGX_HTTP_GET|NGX_HTTP_HEAD))
ngx_int_t ngx_http_chaindata_send_not_allowed(ngx_http_request_t *r);

/*
 * Entity tags and conditional requests (ngx_http_chaindata_conditional.c).
 * The ETag of an answer made of pieces: the stored record's digest
 * (CHAINDATA_DIGEST_LEN bytes), then at most len bytes the route writes
 * at what begin returns (NULL: no memory), then end, which marks the
 * gzip encoding's.  Which entry of If-None-Match names the ETag: a 304
 * carries the ETag in that form.
 */
u_char *ngx_http_chaindata_etag_begin(ngx_http_request_t *r, ngx_str_t *etag,
    const u_char *digest, size_t len);
void ngx_http_chaindata_etag_end(ngx_str_t *etag, u_char *p,
    ngx_uint_t gzip);

typedef enum {
    NGX_HTTP_CHAINDATA_NO_MATCH = 0,
    NGX_HTTP_CHAINDATA_MATCH,           /* "tag", the tag unquoted, or * */
    NGX_HTTP_CHAINDATA_MATCH_WEAK       /* W/"tag" */
} ngx_http_chaindata_match_e;

ngx_http_chaindata_match_e ngx_http_chaindata_if_none_match(
    ngx_http_request_t *r, ngx_str_t *etag);
ngx_int_t ngx_http_chaindata_if_match(ngx_http_request_t *r,
    ngx_str_t *etag);
ngx_int_t ngx_http_chaindata_send_not_modified(ngx_http_request_t *r,
    ngx_str_t *etag, ngx_http_chaindata_match_e match,
    const char *cache_control);

/*
 * The bytes of bodies the workers' unfinished requests hold, against
 * chaindata_body_budget (ngx_http_chaindata_budget.c): NGX_OK with size
 * counted until the request ends, NGX_BUSY, or NGX_ERROR.
 */
ngx_int_t ngx_http_chaindata_budget_take(ngx_http_request_t *r,
    size_t size);

/* a response header; push returns it (NULL: no memory) for headers_out */
ngx_table_elt_t *ngx_http_chaindata_push_header(ngx_http_request_t *r,
    const char *name, ngx_str_t *value);
ngx_int_t ngx_http_chaindata_add_header(ngx_http_request_t *r,
    const char *name, ngx_str_t *value);

/*
 * A route: its answers to a refused request target (chaindata_paths.h)
 * and its read of the index, in one read transaction:
 *
 *   lookup finds the stored record and leaves the reply's status
 *          (NGX_HTTP_OK or NGX_HTTP_NOT_FOUND, with reply->untold when
 *          the index cannot tell) and its ETag, if any;
 *   size   reads what the body is made of, and leaves its length in
 *          reply->body.len (not called for a 304 or a 412);
 *   write  copies those bytes to p and returns where they end (not
 *          called for HEAD, nor when chaindata_body_budget is spent).
 *
 * Nothing may point into the map once the transaction ends.  NGX_ERROR
 * from a callback is a 500 with the route's message.
 */

typedef struct {
    ngx_uint_t                   status;
    ngx_str_t                    body;
    ngx_str_t                    etag;
    ngx_http_chaindata_match_e   match;
    const char                  *untold;    /* a miss: why it is not a 404 */
    unsigned                     gzip:1;    /* of a route with pieces */
    unsigned                     fixed:1;   /* status and body: lookup's */
    const char                  *cache_control;  /* of a fixed one, or
                                                    the route's */
} ngx_http_chaindata_reply_t;

/*
 * In a lookup that found nothing: whether the index can say so, from the
 * history of the chain (chaindata_history.h).  NGX_OK with reply->untold
 * NULL when it holds the whole history (the miss is upstream's answer
 * too), else why not; a status NOT_FOUND then goes to
 * chaindata_miss_fallback, or is a 503 saying why.  NGX_ERROR: logged.
 */
ngx_int_t ngx_http_chaindata_miss_history(ngx_http_request_t *r,
    chaindata_history_source_e source, ngx_http_chaindata_reply_t *reply);

/*
 * A route whose bodies are made of pieces (lmdb-schema/pieces.md) answers
 * gzip to a request that accepts it, decided before lookup
 * (reply->gzip): lookup gives each encoding its own ETag, size and write
 * make that encoding, with ngx_http_chaindata_gzip.h.  A write that
 * returns NULL found a damaged piece (a 500, logged).
 */

typedef ngx_int_t (*ngx_http_chaindata_read_pt)(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
typedef u_char *(*ngx_http_chaindata_write_pt)(void *ctx, u_char *p);

/*
 * A record's list, for chaindata_threads: its item count, and whether its
 * first chunk is in the record; NGX_ERROR when the record is not one.
 * Called in a thread: it only decodes.
 */
typedef ngx_int_t (*ngx_http_chaindata_list_pt)(const MDB_val *record,
    uint64_t *count, ngx_uint_t *chunk0_inline);

/*
 * What a route's lookup reads first, for chaindata_threads
 * (ngx_http_chaindata_threads.c): the record of key in db, and in
 * range_db (CHAINDATA_DBI_COUNT: none) the chunks of the record's list,
 * per items each, that the page [offset, offset + limit) takes: those the
 * answer reads (lmdb-schema/pieces.md, "Chunks").  warm fills it from the
 * route's ctx before the lookup.
 */
typedef struct {
    chaindata_dbi_e               db;
    chaindata_dbi_e               range_db;
    u_char                       *key;
    size_t                        key_len;
    ngx_http_chaindata_list_pt    list;
    unsigned                      per;
    uint64_t                      offset;
    uint64_t                      limit;
} ngx_http_chaindata_warm_t;

typedef ngx_int_t (*ngx_http_chaindata_warm_pt)(void *ctx,
    ngx_http_chaindata_warm_t *warm);

typedef struct {
    ngx_http_chaindata_read_pt    lookup;
    ngx_http_chaindata_read_pt    size;
    ngx_http_chaindata_write_pt   write;
    const char                   *code;           /* of the 400s, or NULL */
    const char                   *invalid;        /* 400: path parameter */
    const char                   *no_route;       /* 404: the path's shape */
    const char                   *not_found;      /* 404: nothing stored */
    const char                   *unreadable;     /* 500 */
    const char                   *cache_control;  /* of 200 and 304 */
    ngx_uint_t                    pieces;         /* gzip or plain */
    ngx_uint_t                    invalid_bare;   /* 400: no Cache-Control */
    ngx_http_chaindata_warm_pt    warm;           /* or NULL: never pooled */
} ngx_http_chaindata_route_t;

/* the route's 400 of a refused parameter, with upstream's message */
ngx_int_t ngx_http_chaindata_send_invalid(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, const char *message);
ngx_int_t ngx_http_chaindata_send_bad_target(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, chaindata_target_e target,
    chaindata_query_t *query);
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
