
/*
 * chaindata: GET {prefix}/{tx_id}, a Stacks transaction with one page of
 * its events (doc/module.md, Transactions).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_layout.h"
#include "chaindata_paths.h"
#include "chaindata_schema.h"
#include "ngx_http_chaindata_chunks.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_tx.h"


/* the largest page's chunks: the API's limit against the stored layout */
#if (NGX_HTTP_CHAINDATA_SPANS(CHAINDATA_EVENT_LIMIT_MAX,                    \
                              CHAINDATA_EVENT_CHUNK)                        \
     > NGX_HTTP_CHAINDATA_SPANS_MAX)
#error "NGX_HTTP_CHAINDATA_SPANS_MAX: too few for the largest event_limit"
#endif


/*
 * What the read callbacks share: the document's pieces, the page of
 * events read as chunks, all in the map, and the bytes [hs, he) of the
 * document left out (function_args, whole pieces).
 */
typedef struct {
    chaindata_tx_params_t        q;
    chaindata_txh_t              h;
    ngx_http_chaindata_chunks_t  events;
    size_t                       hs;
    size_t                       he;
    ngx_http_chaindata_gz_t      gz;
} ngx_http_chaindata_tx_t;


static void ngx_http_chaindata_tx_describe(void *ctx,
    ngx_http_chaindata_read_t *read);
static ngx_int_t ngx_http_chaindata_tx_lookup(ngx_http_request_t *r,
    void *ctx, const MDB_val *record, ngx_http_chaindata_reply_t *reply);
static ngx_int_t ngx_http_chaindata_tx_size(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
static u_char *ngx_http_chaindata_tx_write(void *ctx, u_char *p);
static ngx_int_t ngx_http_chaindata_tx_events(const MDB_val *record,
    uint64_t *count, MDB_val *chunk0);


static ngx_http_chaindata_route_t  ngx_http_chaindata_tx_route = {
    .describe = ngx_http_chaindata_tx_describe,
    .lookup = ngx_http_chaindata_tx_lookup,
    .size = ngx_http_chaindata_tx_size,
    .write = ngx_http_chaindata_tx_write,
    .code = "FST_ERR_VALIDATION",
    .invalid = "params/tx_id must match pattern \"^(0x)?[a-fA-F0-9]{64}$\"",
    .not_found = "could not find transaction by ID",
    .unreadable = "the transaction could not be read from the index",
    .cache_control = NGX_HTTP_CHAINDATA_CACHE_PUBLIC,
    .pieces = 1,
    .invalid_bare = 1
};


/*
 * The redirect carries the ETag of what its target serves this request,
 * with that answer's Cache-Control and Vary, as upstream's carries the
 * transaction's (its route's preHandler sets them before the handler
 * redirects: stacks-blockchain-api 9.0.2 src/api/routes/v1/tx.ts:443-470,
 * src/api/controllers/cache-controller.ts:184-186); without one (nothing
 * stored, the index unreadable now) "no-store", its default
 * (src/api/init.ts:166).
 */

ngx_int_t
ngx_http_chaindata_tx_add_prefix(ngx_http_request_t *r, const u_char *id,
    size_t len, const char *tail, ngx_str_t *etag)
{
    u_char     *p;
    size_t      prefix, escape, tail_len;
    ngx_str_t   location;

    /*
     * the same path with "0x" before the id, then tail (v3's "/events"),
     * and the same query string
     */
    prefix = id - r->uri.data;
    escape = 2 * ngx_escape_uri(NULL, r->uri.data, prefix, NGX_ESCAPE_URI);
    tail_len = ngx_strlen(tail);

    location.len = prefix + escape + 2 + len + tail_len
                   + (r->args.len ? 1 + r->args.len : 0);

    location.data = ngx_pnalloc(r->pool, location.len);
    if (location.data == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    p = (u_char *) ngx_escape_uri(location.data, r->uri.data, prefix,
                                  NGX_ESCAPE_URI);
    p = ngx_cpymem(p, "0x", 2);
    p = ngx_cpymem(p, id, len);
    p = ngx_cpymem(p, tail, tail_len);

    if (r->args.len) {
        *p++ = '?';
        ngx_memcpy(p, r->args.data, r->args.len);
    }

    if (etag->len == 0) {
        return ngx_http_chaindata_send_location(r, NGX_HTTP_MOVED_TEMPORARILY,
                   &location, NGX_HTTP_CHAINDATA_CACHE_NONE);
    }

    r->headers_out.etag = ngx_http_chaindata_push_header(r, "ETag", etag);

    if (r->headers_out.etag == NULL
        || ngx_http_chaindata_set_encoding(r, 0) != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_location(r, NGX_HTTP_MOVED_TEMPORARILY,
               &location, NGX_HTTP_CHAINDATA_CACHE_PUBLIC);
}


/*
 * The ETag names the stored document (its digest) and everything of the
 * request that shapes the body, so it changes whenever the body would:
 * the page of events, function_args left out, the encoding.
 */

static ngx_int_t
ngx_http_chaindata_tx_etag(ngx_http_request_t *r,
    chaindata_txh_t *h, chaindata_tx_params_t *q, ngx_uint_t gzip,
    ngx_str_t *etag)
{
    u_char  *p;

    p = ngx_http_chaindata_etag_begin(r, etag, h->digest,
                                      2 * (1 + NGX_INT64_LEN) + 2);
    if (p == NULL) {
        return NGX_ERROR;
    }

    if (h->flags & CHAINDATA_TXH_EVENTS) {
        p = ngx_sprintf(p, "-%uL-%uL", q->offset, q->limit);
    }

    if (q->exclude_fargs && (h->flags & CHAINDATA_TXH_FARGS)) {
        *p++ = '-';
        *p++ = 'x';
    }

    ngx_http_chaindata_etag_end(etag, p, gzip);

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_tx_lookup(ngx_http_request_t *r, void *ctx,
    const MDB_val *record, ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_tx_t  *tx = ctx;

    if (record == NULL) {
        reply->status = NGX_HTTP_NOT_FOUND;
        return ngx_http_chaindata_miss_history(r,
                   ngx_http_chaindata_route_feed(tx), reply);
    }

    if (chaindata_txh_decode(&tx->h, record->mv_data, record->mv_size) != 0)
    {
        ngx_http_chaindata_log_damaged(r->connection->log, CHAINDATA_DBI_TX,
                                       record->mv_data, record->mv_size);
        return NGX_ERROR;
    }

    reply->status = NGX_HTTP_OK;

    ngx_http_chaindata_gz_init(&tx->gz, reply->gzip);

    return ngx_http_chaindata_tx_etag(r, &tx->h, &tx->q, reply->gzip,
                                      &reply->etag);
}


/*
 * The read: the transaction's record, then the chunks of events of the
 * page (lmdb-schema/pieces.md, "Chunks").
 */

static void
ngx_http_chaindata_tx_describe(void *ctx, ngx_http_chaindata_read_t *read)
{
    ngx_http_chaindata_tx_t  *tx = ctx;

    read->db = CHAINDATA_DBI_TX;
    read->key = tx->q.txid;
    read->key_len = sizeof(tx->q.txid);
    read->list_db = CHAINDATA_DBI_TX_EVENT;
    read->list = ngx_http_chaindata_tx_events;
    read->per = CHAINDATA_EVENT_CHUNK;
    read->offset = tx->q.offset;
    read->limit = tx->q.limit;
}


/* the record's events, for chaindata_threads */

static ngx_int_t
ngx_http_chaindata_tx_events(const MDB_val *record, uint64_t *count,
    MDB_val *chunk0)
{
    chaindata_txh_t  h;

    if (chaindata_txh_decode(&h, record->mv_data, record->mv_size) != 0) {
        return NGX_ERROR;
    }

    *count = h.event_count;
    chunk0->mv_data = (void *) h.chunk0;
    chunk0->mv_size = h.chunk0_len;

    return NGX_OK;
}


/* 1 when the piece i of the document is left out */

static ngx_uint_t
ngx_http_chaindata_tx_hole(ngx_http_chaindata_tx_t *tx, ngx_uint_t i)
{
    return tx->h.at[i] >= tx->hs
           && tx->h.at[i] + tx->h.piece[i].plain_len <= tx->he
           && tx->hs < tx->he;
}


/* 1 when the events go after the piece i */

static ngx_uint_t
ngx_http_chaindata_tx_events_after(ngx_http_chaindata_tx_t *tx,
    ngx_uint_t i)
{
    return (tx->h.flags & CHAINDATA_TXH_EVENTS)
           && tx->h.at[i] + tx->h.piece[i].plain_len == tx->h.events_at;
}


/*
 * The page of events (chunks: lmdb-schema/pieces.md), and the length of
 * the answer made of them.
 */

static ngx_int_t
ngx_http_chaindata_tx_size(ngx_http_request_t *r, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_tx_t  *tx = ctx;

    size_t                  len;
    MDB_val                 chunk0;
    ngx_uint_t              i;
    chaindata_txh_t        *h;
    chaindata_tx_params_t  *q;

    h = &tx->h;
    q = &tx->q;

    chunk0.mv_data = (void *) h->chunk0;
    chunk0.mv_size = h->chunk0_len;

    if (ngx_http_chaindata_chunks_read(r, &tx->events, reply,
                                       h->event_count, &chunk0,
                                       "a transaction record")
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    tx->hs = 0;
    tx->he = 0;

    if (q->exclude_fargs && (h->flags & CHAINDATA_TXH_FARGS)) {
        tx->hs = h->fargs_start;
        tx->he = h->fargs_start + h->fargs_len;
    }

    len = ngx_http_chaindata_gz_frame_len(&tx->gz);

    for (i = 0; i < h->npieces; i++) {
        if (!ngx_http_chaindata_tx_hole(tx, i)) {
            len += ngx_http_chaindata_gz_piece_len(&tx->gz, &h->piece[i]);
        }
    }

    len += ngx_http_chaindata_chunks_len(&tx->gz, &tx->events);

    reply->body.len = len;

    return NGX_OK;
}


/*
 * The document with the page of events put in, in the reply's encoding,
 * out of the map: gzip copies the pieces, plain inflates them.
 */

static u_char *
ngx_http_chaindata_tx_write(void *ctx, u_char *p)
{
    ngx_http_chaindata_tx_t  *tx = ctx;

    ngx_uint_t                i;
    chaindata_txh_t          *h;
    ngx_http_chaindata_gz_t  *gz;

    h = &tx->h;
    gz = &tx->gz;

    p = ngx_http_chaindata_gz_begin(gz, p);

    for (i = 0; i < h->npieces; i++) {
        if (!ngx_http_chaindata_tx_hole(tx, i)) {
            p = ngx_http_chaindata_gz_piece(gz, p, &h->piece[i]);
        }

        if (!ngx_http_chaindata_tx_events_after(tx, i)) {
            continue;
        }

        p = ngx_http_chaindata_chunks_write(gz, p, &tx->events);
    }

    p = ngx_http_chaindata_gz_end(gz, p);

    return gz->failed ? NULL : p;
}


/*
 * An id without "0x": a 302 to the same path with it, carrying the ETag
 * of the document that path serves for the same query, unless the
 * request's If-None-Match names that ETag (upstream evaluates the
 * conditional first): then the 304 that path would answer.
 */

static ngx_int_t
ngx_http_chaindata_tx_redirect(ngx_http_request_t *r,
    ngx_http_chaindata_tx_t *tx, chaindata_query_t *query)
{
    u_char            target[2 + CHAINDATA_TXID_HEX_LEN];
    ngx_int_t         rc;
    ngx_str_t         etag;
    chaindata_span_t  id;

    id = tx->q.id;
    ngx_str_null(&etag);

    if (id.len == CHAINDATA_TXID_HEX_LEN) {

        /* the target of the redirect, for its page */
        ngx_memcpy(ngx_cpymem(target, "0x", 2), id.data, id.len);

        if (chaindata_tx_target(target, sizeof(target), query, &tx->q)
            == CHAINDATA_TARGET_OK)
        {
            rc = ngx_http_chaindata_not_modified_as(r,
                     &ngx_http_chaindata_tx_route, tx, &etag);

            if (rc != NGX_DECLINED) {
                return rc;
            }
        }
    }

    return ngx_http_chaindata_tx_add_prefix(r, id.data, id.len, "", &etag);
}


ngx_int_t
ngx_http_chaindata_tx_handler(ngx_http_request_t *r)
{
    ngx_int_t                rc;
    chaindata_query_t        query;
    chaindata_target_e       target;
    ngx_http_chaindata_tx_t  tx;

    ngx_memzero(&tx, sizeof(ngx_http_chaindata_tx_t));

    if (!ngx_http_chaindata_method_allowed(r)) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    if (ngx_http_chaindata_request_query(r, &query) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    target = chaindata_tx_target(r->uri.data, r->uri.len, &query, &tx.q);

    if (target == CHAINDATA_TARGET_ADD_PREFIX) {
        return ngx_http_chaindata_tx_redirect(r, &tx, &query);
    }

    if (target != CHAINDATA_TARGET_OK) {
        return ngx_http_chaindata_send_bad_target(r,
                                                  &ngx_http_chaindata_tx_route,
                                                  target, &query);
    }

    return ngx_http_chaindata_read_and_reply(r, &ngx_http_chaindata_tx_route,
                                             &tx);
}
