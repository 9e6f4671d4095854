
/*
 * chaindata: pages of lists stored in chunks (lmdb-schema/pieces.md,
 * "Chunks"): the chunks a page needs read from the index and checked,
 * and the page's items written in the answer's encoding.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_layout.h"
#include "ngx_http_chaindata_chunks.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"


/*
 * The page [offset, offset + limit) of a list of count items stored in
 * chunks of per items under its record's key (lmdb-schema/pieces.md,
 * "Chunks"): the chunks it needs read and checked.  chunk0 is the first
 * chunk when the record holds it (chunk0->mv_size 0 when not): then only
 * the chunks after it are looked up, none for a page of the first chunk.
 */

ngx_int_t
ngx_http_chaindata_chunks_read(ngx_http_request_t *r,
    ngx_http_chaindata_chunks_t *ch, ngx_http_chaindata_reply_t *reply,
    uint64_t count, const MDB_val *chunk0, const char *what)
{
    uint64_t                          left;
    ngx_uint_t                        i;
    chaindata_chunk_t                *c;
    ngx_http_chaindata_plan_t        *plan;
    const ngx_http_chaindata_read_t  *read;

    ch->pool = r->pool;
    plan = &ch->plan;
    read = reply->read;

    if (ngx_http_chaindata_store_chunks(r->connection->log, r->pool, read,
                                        count, chunk0, plan, &reply->at[2])
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (plan->got != plan->n) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: %s counts %uL entries but \"%s\" holds "
                      "fewer", what, count, chaindata_db_names[read->list_db]);
        return NGX_ERROR;
    }

    for (i = 0; i < plan->n; i++) {
        c = &ch->chunk[i];
        left = count - (uint64_t) plan->span[i].chunk * read->per;

        if (chaindata_chunk_decode(c, plan->val[i].mv_data,
                                   plan->val[i].mv_size)
            != 0
            || c->n != (left < read->per ? left : read->per))
        {
            ngx_http_chaindata_log_damaged(r->connection->log, read->list_db,
                                           plan->val[i].mv_data,
                                           plan->val[i].mv_size);
            return NGX_ERROR;
        }
    }

    return NGX_OK;
}


/* the page's items in the answer's encoding: length, then bytes */

size_t
ngx_http_chaindata_chunks_len(ngx_http_chaindata_gz_t *gz,
    ngx_http_chaindata_chunks_t *ch)
{
    size_t      len;
    uint32_t    start, n;
    ngx_uint_t  i;

    len = 0;

    for (i = 0; i < ch->plan.n; i++) {
        if (i) {
            len += ngx_http_chaindata_gz_bytes_len(gz, 1);
        }

        if (chaindata_chunk_span_whole(&ch->chunk[i], &ch->plan.span[i])) {
            len += ngx_http_chaindata_gz_piece_len(gz, &ch->chunk[i].piece);
            continue;
        }

        chaindata_chunk_span_bytes(&ch->chunk[i], &ch->plan.span[i], &start,
                                   &n);
        len += ngx_http_chaindata_gz_bytes_len(gz, n);
    }

    return len;
}


/*
 * The items of a span that cuts its chunk: the chunk inflated into the
 * pool, the items' bytes written as they are (stored blocks in a gzip
 * member), the chunk freed.
 */

static u_char *
ngx_http_chaindata_chunk_cut(ngx_http_chaindata_gz_t *gz, u_char *p,
    ngx_pool_t *pool, chaindata_chunk_t *c, chaindata_chunk_span_t *s)
{
    u_char    *plain;
    uint32_t   start, n;

    plain = ngx_palloc(pool, c->piece.plain_len + 1);
    if (plain == NULL) {
        gz->failed = 1;
        return p;
    }

    if (ngx_http_chaindata_inflate(&c->piece, plain) != NGX_OK) {
        gz->failed = 1;

    } else {
        chaindata_chunk_span_bytes(c, s, &start, &n);
        p = ngx_http_chaindata_gz_bytes(gz, p, plain + start, n);
    }

    (void) ngx_pfree(pool, plain);

    return p;
}


u_char *
ngx_http_chaindata_chunks_write(ngx_http_chaindata_gz_t *gz, u_char *p,
    ngx_http_chaindata_chunks_t *ch)
{
    ngx_uint_t  i;

    for (i = 0; i < ch->plan.n && !gz->failed; i++) {
        if (i) {
            p = ngx_http_chaindata_gz_bytes(gz, p, (u_char *) ",", 1);
        }

        if (chaindata_chunk_span_whole(&ch->chunk[i], &ch->plan.span[i])) {
            p = ngx_http_chaindata_gz_piece(gz, p, &ch->chunk[i].piece);
            continue;
        }

        p = ngx_http_chaindata_chunk_cut(gz, p, ch->pool, &ch->chunk[i],
                                         &ch->plan.span[i]);
    }

    return p;
}
