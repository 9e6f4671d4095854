
/*
 * chaindata: sending, below every route and the handlers of errors,
 * CORS and encodings: JSON replies and their headers, error bodies in
 * upstream's shape (written with ngx_http_chaindata_json.h) with the
 * reason phrase of each status, redirects, empty answers, and the entity
 * tags and conditionals every answer is sent against.
 */


#ifndef _NGX_HTTP_CHAINDATA_SEND_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_SEND_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

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
ngx_int_t ngx_http_chaindata_send_location(ngx_http_request_t *r,
    ngx_uint_t status, ngx_str_t *location, const char *cache_control);
ngx_int_t ngx_http_chaindata_send_empty(ngx_http_request_t *r,
    ngx_uint_t status);

/*
 * The reason phrase of an error status, and the body chaindata_error
 * answers that status with (not 405: ngx_http_chaindata_send_not_allowed()
 * adds its Allow header).
 */
const char *ngx_http_chaindata_reason(ngx_uint_t status);
ngx_int_t ngx_http_chaindata_send_status(ngx_http_request_t *r,
    ngx_uint_t status);

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

/* a response header; push returns it (NULL: no memory) for headers_out */
ngx_table_elt_t *ngx_http_chaindata_push_header(ngx_http_request_t *r,
    const char *name, ngx_str_t *value);
ngx_int_t ngx_http_chaindata_add_header(ngx_http_request_t *r,
    const char *name, ngx_str_t *value);


#endif /* _NGX_HTTP_CHAINDATA_SEND_H_INCLUDED_ */
