/*
 * chaindata: answers made of precompressed pieces (lmdb-schema/pieces.md),
 * gzip or plain, and the pages of lists stored in chunks, for the routes
 * whose ngx_http_chaindata_route_t has pieces (ngx_http_chaindata_reply.h).
 */


#ifndef _NGX_HTTP_CHAINDATA_GZIP_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_GZIP_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <lmdb.h>

#include "chaindata_codec.h"
#include "chaindata_piece.h"
#include "chaindata_chunks.h"


/* an answer made of pieces, gzip or plain */
typedef struct {
    chaindata_gzip_sum_t          sum;
    unsigned                      gzip:1;
    unsigned                      failed:1;
} ngx_http_chaindata_gz_t;

ngx_int_t ngx_http_chaindata_gzip_init(ngx_log_t *log);
void ngx_http_chaindata_gzip_done(void);
ngx_uint_t ngx_http_chaindata_accepts_gzip(ngx_http_request_t *r);
ngx_int_t ngx_http_chaindata_set_encoding(ngx_http_request_t *r,
    ngx_uint_t gzip);
u_char *ngx_http_chaindata_etag_begin(ngx_http_request_t *r, ngx_str_t *etag,
    const u_char *digest, size_t len);
void ngx_http_chaindata_etag_end(ngx_str_t *etag, u_char *p,
    ngx_uint_t gzip);

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


/*
 * A page of a list stored in chunks (chaindata_chunks.h): its plan and
 * the chunks read (in the map).  A chunk that a span cuts is inflated
 * when the body is written, into the pool, and freed at once (a HEAD
 * never inflates it).  Enough spans for a page of at most 5 × per items
 * (limit / per + 2).
 */
#define NGX_HTTP_CHAINDATA_SPANS_MAX  7

typedef struct {
    chaindata_chunk_span_t        span[NGX_HTTP_CHAINDATA_SPANS_MAX];
    chaindata_chunk_t             chunk[NGX_HTTP_CHAINDATA_SPANS_MAX];
    MDB_val                       val[NGX_HTTP_CHAINDATA_SPANS_MAX];
    ngx_uint_t                    n;
    ngx_pool_t                   *pool;
} ngx_http_chaindata_chunks_t;

ngx_int_t ngx_http_chaindata_chunks_read(ngx_http_request_t *r,
    ngx_http_chaindata_chunks_t *ch, chaindata_dbi_e db, u_char *list,
    size_t list_len, const MDB_val *chunk0, uint64_t count, unsigned per,
    uint64_t offset, uint64_t limit, const char *what);
size_t ngx_http_chaindata_chunks_len(ngx_http_chaindata_gz_t *gz,
    ngx_http_chaindata_chunks_t *ch);
u_char *ngx_http_chaindata_chunks_write(ngx_http_chaindata_gz_t *gz,
    u_char *p, ngx_http_chaindata_chunks_t *ch);


#endif /* _NGX_HTTP_CHAINDATA_GZIP_H_INCLUDED_ */
