
/*
 * chaindata: pages of lists stored in chunks (chaindata_chunks.h,
 * lmdb-schema/pieces.md "Chunks"), read from the index and written in
 * the answer's encoding (ngx_http_chaindata_gzip.h).
 */


#ifndef _NGX_HTTP_CHAINDATA_CHUNKS_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_CHUNKS_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <lmdb.h>

#include "chaindata_chunks.h"
#include "chaindata_schema.h"
#include "ngx_http_chaindata_gzip.h"


/*
 * A page of a list stored in chunks (chaindata_chunks.h): its plan and
 * the chunks read (in the map).  A chunk that a span cuts is inflated
 * when the body is written, into the pool, and freed at once (a HEAD
 * never inflates it).  A page of at most max items of a list stored per
 * items a chunk spans at most NGX_HTTP_CHAINDATA_SPANS(max, per) chunks;
 * each route checks that its largest page fits in SPANS_MAX.
 */
#define NGX_HTTP_CHAINDATA_SPANS_MAX  7
#define NGX_HTTP_CHAINDATA_SPANS(max, per)  ((max) / (per) + 2)

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


#endif /* _NGX_HTTP_CHAINDATA_CHUNKS_H_INCLUDED_ */
