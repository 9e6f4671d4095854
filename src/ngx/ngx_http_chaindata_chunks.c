
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
 * chunks of per items under list (lmdb-schema/pieces.md, "Chunks"): the
 * chunks it needs read and checked.  chunk0 is the first chunk when its
 * header holds it (chunk0->mv_size 0 when not): then only the chunks
 * after it are looked up, none for a page of the first chunk.
 */

ngx_int_t
ngx_http_chaindata_chunks_read(ngx_http_request_t *r,
    ngx_http_chaindata_chunks_t *ch, chaindata_dbi_e db, u_char *list,
    size_t list_len, const MDB_val *chunk0, uint64_t count, unsigned per,
    uint64_t offset, uint64_t limit, const char *what)
{
    size_t              key_len;
    uint64_t            left;
    ngx_uint_t          i, got, first;
    chaindata_chunk_t  *c;
    u_char              key[CHAINDATA_LIST_ENTRY_KEY_MAX];

    ch->pool = r->pool;
    ch->n = chaindata_chunk_plan(count, per, offset, limit, ch->span,
                                 NGX_HTTP_CHAINDATA_SPANS_MAX);
    if (ch->n == 0) {
        return NGX_OK;
    }

    first = 0;

    if (chunk0->mv_size && ch->span[0].chunk == 0) {
        ch->val[0] = *chunk0;
        first = 1;
    }

    got = 0;

    if (first < ch->n) {
        key_len = chaindata_list_entry_key(key, list, list_len,
                                           ch->span[first].chunk);

        if (ngx_http_chaindata_store_range(r->connection->log, db, list,
                                           list_len, key, key_len,
                                           ch->val + first, ch->n - first,
                                           &got)
            != NGX_OK)
        {
            return NGX_ERROR;
        }
    }

    if (first + got != ch->n) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: %s counts %uL entries but \"%s\" holds "
                      "fewer", what, count, chaindata_db_names[db]);
        return NGX_ERROR;
    }

    for (i = 0; i < ch->n; i++) {
        c = &ch->chunk[i];
        left = count - (uint64_t) ch->span[i].chunk * per;

        if (chaindata_chunk_decode(c, ch->val[i].mv_data, ch->val[i].mv_size)
            != 0
            || c->n != (left < per ? left : per))
        {
            ngx_http_chaindata_log_damaged(r->connection->log, db,
                                           ch->val[i].mv_data,
                                           ch->val[i].mv_size);
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

    for (i = 0; i < ch->n; i++) {
        if (i) {
            len += ngx_http_chaindata_gz_bytes_len(gz, 1);
        }

        if (chaindata_chunk_span_whole(&ch->chunk[i], &ch->span[i])) {
            len += ngx_http_chaindata_gz_piece_len(gz, &ch->chunk[i].piece);
            continue;
        }

        chaindata_chunk_span_bytes(&ch->chunk[i], &ch->span[i], &start, &n);
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

    for (i = 0; i < ch->n && !gz->failed; i++) {
        if (i) {
            p = ngx_http_chaindata_gz_bytes(gz, p, (u_char *) ",", 1);
        }

        if (chaindata_chunk_span_whole(&ch->chunk[i], &ch->span[i])) {
            p = ngx_http_chaindata_gz_piece(gz, p, &ch->chunk[i].piece);
            continue;
        }

        p = ngx_http_chaindata_chunk_cut(gz, p, ch->pool, &ch->chunk[i],
                                         &ch->span[i]);
    }

    return p;
}
