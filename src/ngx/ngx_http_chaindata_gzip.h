/*
 * chaindata: answers made of precompressed pieces (lmdb-schema/pieces.md),
 * gzip or plain, for the routes whose ngx_http_chaindata_route_t has
 * pieces (ngx_http_chaindata_reply.h): the encoding a request gets, its
 * headers, and a body of pieces and bytes written in it.
 */


#ifndef _NGX_HTTP_CHAINDATA_GZIP_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_GZIP_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_piece.h"


/* an answer made of pieces, gzip or plain */
typedef struct {
    chaindata_gzip_sum_t          sum;
    unsigned                      gzip:1;
    unsigned                      failed:1;
} ngx_http_chaindata_gz_t;

ngx_int_t ngx_http_chaindata_gzip_init(ngx_log_t *log);
void ngx_http_chaindata_gzip_done(void);
ngx_uint_t ngx_http_chaindata_request_takes_gzip(ngx_http_request_t *r);
ngx_int_t ngx_http_chaindata_set_encoding(ngx_http_request_t *r,
    ngx_uint_t gzip);
/* a body made per request, compressed into a gzip member in its place */
ngx_int_t ngx_http_chaindata_gzip_body(ngx_pool_t *pool, ngx_str_t *body);
/* NGX_ERROR: the piece does not inflate (damaged) */
ngx_int_t ngx_http_chaindata_inflate(const chaindata_piece_t *piece,
    u_char *out);

void ngx_http_chaindata_gz_init(ngx_http_chaindata_gz_t *gz,
    ngx_uint_t gzip);
size_t ngx_http_chaindata_gz_frame_len(ngx_http_chaindata_gz_t *gz);
size_t ngx_http_chaindata_gz_piece_len(ngx_http_chaindata_gz_t *gz,
    const chaindata_piece_t *piece);
size_t ngx_http_chaindata_gz_bytes_len(ngx_http_chaindata_gz_t *gz,
    size_t len);
u_char *ngx_http_chaindata_gz_begin(ngx_http_chaindata_gz_t *gz, u_char *p);
u_char *ngx_http_chaindata_gz_piece(ngx_http_chaindata_gz_t *gz, u_char *p,
    const chaindata_piece_t *piece);
u_char *ngx_http_chaindata_gz_bytes(ngx_http_chaindata_gz_t *gz, u_char *p,
    const u_char *data, size_t len);
u_char *ngx_http_chaindata_gz_end(ngx_http_chaindata_gz_t *gz, u_char *p);


#endif /* _NGX_HTTP_CHAINDATA_GZIP_H_INCLUDED_ */
