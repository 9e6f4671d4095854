
/*
 * chaindata: the HTTP side every route shares: JSON replies (error bodies
 * written with a yajl generator bound to the request pool), caching
 * headers and conditional requests, query arguments.
 */


#ifndef _NGX_HTTP_CHAINDATA_REPLY_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_REPLY_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <yajl/yajl_gen.h>

#include "chaindata_paths.h"


#define NGX_HTTP_CHAINDATA_CACHE_PUBLIC  "public, no-cache, must-revalidate"
#define NGX_HTTP_CHAINDATA_CACHE_NONE    "no-store"

/* RFC 6585; nginx has none, it says 400 for its own 494 */
#define NGX_HTTP_CHAINDATA_HEADER_TOO_LARGE  431


/* a yajl generator whose memory and output come from a pool */
typedef struct {
    yajl_gen      gen;
    ngx_pool_t   *pool;
    u_char       *buf;
    size_t        len;
    size_t        cap;
    ngx_uint_t    failed;
} ngx_http_chaindata_json_t;


ngx_int_t ngx_http_chaindata_json_init(ngx_http_chaindata_json_t *j,
    ngx_pool_t *pool);
void ngx_http_chaindata_json_key(ngx_http_chaindata_json_t *j,
    const char *key);
void ngx_http_chaindata_json_str(ngx_http_chaindata_json_t *j,
    const u_char *s, size_t len);
void ngx_http_chaindata_json_int(ngx_http_chaindata_json_t *j, int64_t n);
void ngx_http_chaindata_json_bool(ngx_http_chaindata_json_t *j,
    ngx_uint_t b);
void ngx_http_chaindata_json_null(ngx_http_chaindata_json_t *j);
void ngx_http_chaindata_json_map_open(ngx_http_chaindata_json_t *j);
void ngx_http_chaindata_json_map_close(ngx_http_chaindata_json_t *j);
void ngx_http_chaindata_json_array_open(ngx_http_chaindata_json_t *j);
void ngx_http_chaindata_json_array_close(ngx_http_chaindata_json_t *j);
ngx_int_t ngx_http_chaindata_json_done(ngx_http_chaindata_json_t *j,
    ngx_str_t *out);

ngx_int_t ngx_http_chaindata_send_json(ngx_http_request_t *r,
    ngx_uint_t status, ngx_str_t *body, ngx_str_t *etag,
    const char *cache_control);
/* the reason phrase of an error status (ngx_http_chaindata_error.c) */
const char *ngx_http_chaindata_reason(ngx_uint_t status);
ngx_int_t ngx_http_chaindata_send_error(ngx_http_request_t *r,
    ngx_uint_t status, const char *code, const char *message);
ngx_int_t ngx_http_chaindata_send_unavailable(ngx_http_request_t *r);
ngx_int_t ngx_http_chaindata_send_not_modified(ngx_http_request_t *r,
    ngx_str_t *etag, const char *cache_control);
ngx_int_t ngx_http_chaindata_send_redirect(ngx_http_request_t *r,
    ngx_str_t *location);
ngx_int_t ngx_http_chaindata_send_location(ngx_http_request_t *r,
    ngx_uint_t status, ngx_str_t *location, const char *cache_control);

/* every route serves GET and HEAD; others get a 405 JSON body */
#define ngx_http_chaindata_method_allowed(r)                                 \
    ((r)->method & (NGX_HTTP_GET|NGX_HTTP_HEAD))
ngx_int_t ngx_http_chaindata_send_not_allowed(ngx_http_request_t *r);

ngx_int_t ngx_http_chaindata_etag_matches(ngx_http_request_t *r,
    ngx_str_t *etag);
ngx_int_t ngx_http_chaindata_add_header(ngx_http_request_t *r,
    const char *name, ngx_str_t *value);

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
