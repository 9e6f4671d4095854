
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
#include "ngx_http_chaindata_read.h"
#include "ngx_http_chaindata_reply.h"


/*
 * A page of a list stored in chunks (chaindata_chunks.h): its plan, the
 * chunks read (in the map), and their items.  A chunk that a span cuts is
 * inflated when the body is written, into the pool, and freed at once (a
 * HEAD never inflates it).
 */

typedef struct {
    ngx_http_chaindata_plan_t     plan;
    chaindata_chunk_t             chunk[NGX_HTTP_CHAINDATA_SPANS_MAX];
    ngx_pool_t                   *pool;
} ngx_http_chaindata_chunks_t;

/*
 * The page the route's read names (reply->read, ngx_http_chaindata_read.h)
 * of its record's list of count items, whose first chunk the record may
 * hold (chunk0): read and checked, and where the first chunk read lies
 * left in reply->at[2] for chaindata_threads' hints; what names the
 * record in an alert.
 */
ngx_int_t ngx_http_chaindata_chunks_read(ngx_http_request_t *r,
    ngx_http_chaindata_chunks_t *ch, ngx_http_chaindata_reply_t *reply,
    uint64_t count, const MDB_val *chunk0, const char *what);
size_t ngx_http_chaindata_chunks_len(ngx_http_chaindata_gz_t *gz,
    ngx_http_chaindata_chunks_t *ch);
u_char *ngx_http_chaindata_chunks_write(ngx_http_chaindata_gz_t *gz,
    u_char *p, ngx_http_chaindata_chunks_t *ch);


#endif /* _NGX_HTTP_CHAINDATA_CHUNKS_H_INCLUDED_ */
