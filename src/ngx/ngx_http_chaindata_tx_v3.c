
/*
 * chaindata: GET {prefix}/{tx_id}?include=… and GET {prefix}/{tx_id}/events
 * ?limit=&cursor=, upstream's v3 transaction routes (doc/module.md,
 * "chaindata_tx_v3"), out of the "tx_v3" records the loader builds
 * (lmdb-schema/README.md): the document's pieces less the heavy parts the
 * request leaves out, or a page of the v3 events after a head made here.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_layout.h"
#include "chaindata_paths_v3.h"
#include "chaindata_schema.h"
#include "ngx_http_chaindata_chunks.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"
#include "ngx_http_chaindata_tx.h"


#if (NGX_HTTP_CHAINDATA_SPANS(CHAINDATA_V3_EVENT_LIMIT_MAX,                 \
                              CHAINDATA_EVENT_CHUNK)                        \
     > NGX_HTTP_CHAINDATA_SPANS_MAX)
#error "NGX_HTTP_CHAINDATA_SPANS_MAX: too few for the largest v3 limit"
#endif


/* the head of an events page: total, limit, the cursors, "results":[ */
#define NGX_HTTP_CHAINDATA_TX3_HEAD_LEN                                      \
    (sizeof("{\"total\":,\"limit\":,\"cursor\":{\"next\":\"\","               \
            "\"previous\":\"\",\"current\":\"\"},\"results\":[")           \
     + 5 * NGX_INT64_LEN)


typedef struct {
    chaindata_tx3_params_t       q;
    chaindata_tx3h_t             h;
    ngx_http_chaindata_chunks_t  events;
    uint64_t                     offset;
    u_char                       head[NGX_HTTP_CHAINDATA_TX3_HEAD_LEN];
    size_t                       head_len;
    ngx_http_chaindata_gz_t      gz;
} ngx_http_chaindata_tx3_t;


static void ngx_http_chaindata_tx3_describe(void *ctx,
    ngx_http_chaindata_read_t *read);
static ngx_int_t ngx_http_chaindata_tx3_lookup(ngx_http_request_t *r,
    void *ctx, const MDB_val *record, ngx_http_chaindata_reply_t *reply);
static ngx_int_t ngx_http_chaindata_tx3_size(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
static u_char *ngx_http_chaindata_tx3_write(void *ctx, u_char *p);
static ngx_int_t ngx_http_chaindata_tx3_events_size(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
static u_char *ngx_http_chaindata_tx3_events_write(void *ctx, u_char *p);
static ngx_int_t ngx_http_chaindata_tx3_list(const MDB_val *record,
    uint64_t *count, MDB_val *chunk0);


/* what the document's route and its events' share: all but the body */
#define NGX_HTTP_CHAINDATA_TX3_ROUTE                                         \
    .describe = ngx_http_chaindata_tx3_describe,                             \
    .lookup = ngx_http_chaindata_tx3_lookup,                                 \
    .code = "FST_ERR_VALIDATION",                                            \
    .invalid = "params/tx_id must match pattern \"^(0x)?[a-fA-F0-9]{64}$\"", \
    .not_found = "Transaction not found",                                    \
    .unreadable = "the transaction could not be read from the index",        \
    .cache_control = NGX_HTTP_CHAINDATA_CACHE_PUBLIC,                        \
    .pieces = 1,                                                             \
    .invalid_bare = 1


static ngx_http_chaindata_route_t  ngx_http_chaindata_tx3_route = {
    NGX_HTTP_CHAINDATA_TX3_ROUTE,
    .size = ngx_http_chaindata_tx3_size,
    .write = ngx_http_chaindata_tx3_write
};


/* its events (a transaction not found is upstream's 400: the lookup's) */
static ngx_http_chaindata_route_t  ngx_http_chaindata_tx3_events_route = {
    NGX_HTTP_CHAINDATA_TX3_ROUTE,
    .size = ngx_http_chaindata_tx3_events_size,
    .write = ngx_http_chaindata_tx3_events_write
};


static ngx_str_t  ngx_http_chaindata_tx3_gone =
    ngx_string("{\"statusCode\":404,\"error\":\"Not Found\","
               "\"message\":\"Transaction not found\"}");

static ngx_str_t  ngx_http_chaindata_tx3_no_events =
    ngx_string("{\"statusCode\":400,\"error\":\"Bad Request\","
               "\"message\":\"Transaction not found\"}");


/*
 * The ETag: the stored document's digest, and what of the request shapes
 * the body (the heavy parts, or the page), so it changes when it would.
 */

static ngx_int_t
ngx_http_chaindata_tx3_etag(ngx_http_request_t *r,
    ngx_http_chaindata_tx3_t *tx, ngx_uint_t gzip, ngx_str_t *etag)
{
    u_char  *p;

    p = ngx_http_chaindata_etag_begin(r, etag, tx->h.digest,
                                      3 + 2 * (1 + NGX_INT64_LEN));
    if (p == NULL) {
        return NGX_ERROR;
    }

    if (tx->q.events) {
        p = ngx_sprintf(p, "-e%uL-%uL", tx->q.cursor, tx->q.limit);

    } else {
        p = ngx_sprintf(p, "-i%ui", tx->q.include);
    }

    ngx_http_chaindata_etag_end(etag, p, gzip);

    return NGX_OK;
}


/*
 * Whether the index holds the transaction in "tx" (v1), and as pending:
 * NGX_OK, NGX_DECLINED when it does not, NGX_ERROR (logged)
 */

static ngx_int_t
ngx_http_chaindata_tx3_in_v1(ngx_http_request_t *r,
    ngx_http_chaindata_tx3_t *tx, ngx_uint_t *pending)
{
    ngx_int_t                  rc;
    MDB_val                    v;
    ngx_http_chaindata_read_t  read;

    ngx_memzero(&read, sizeof(ngx_http_chaindata_read_t));
    read.db = CHAINDATA_DBI_TX;
    read.key = tx->q.txid;
    read.key_len = sizeof(tx->q.txid);
    read.list_db = CHAINDATA_DBI_COUNT;

    rc = ngx_http_chaindata_store_read(r->connection->log, r->pool, &read,
                                       &v, NULL);
    if (rc != NGX_OK) {
        return rc;
    }

    *pending = chaindata_txh_has(v.mv_data, v.mv_size, CHAINDATA_TXH_PENDING);

    return NGX_OK;
}


/*
 * Nothing stored: as chaindata_tx's miss, to chaindata_miss_fallback when
 * there is one, a 503 when the index cannot tell (its history is not the
 * chain's whole, or it holds the transaction in v1 without its v3
 * document: a pending one waiting for its receipt_block_height, a mined
 * one loaded without its block's index hashes), else a
 * 404, or for the events upstream's 400 "Transaction not found", which
 * is also what upstream answers of a pending one's events.
 */

static ngx_int_t
ngx_http_chaindata_tx3_missing(ngx_http_request_t *r,
    ngx_http_chaindata_tx3_t *tx, ngx_http_chaindata_reply_t *reply)
{
    ngx_int_t                       rc;
    ngx_uint_t                      pending;
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    reply->status = NGX_HTTP_NOT_FOUND;

    if (ngx_http_chaindata_miss_history(r,
            ngx_http_chaindata_route_feed(tx_v3), reply)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    pending = 0;
    rc = ngx_http_chaindata_tx3_in_v1(r, tx, &pending);

    if (rc == NGX_ERROR) {
        return NGX_ERROR;
    }

    if (rc == NGX_OK) {
        reply->untold = pending
                        ? "the index holds this pending transaction without "
                          "its v3 document yet: it waits for its "
                          "receipt_block_height"
                        : "the index holds this transaction without its v3 "
                          "document: it was loaded without its block's "
                          "index_block_hash and parent_index_block_hash";
        reply->untold_why = CHAINDATA_UNAVAILABLE_NO_V3;
    }

    if (tx->q.events
        && (pending || (lcf->miss_fallback.len == 0 && reply->untold == NULL)))
    {
        reply->status = NGX_HTTP_BAD_REQUEST;
        reply->body = ngx_http_chaindata_tx3_no_events;
        reply->cache_control = NGX_HTTP_CHAINDATA_CACHE_NONE;
        reply->fixed = 1;
        reply->gzip = 0;
    }

    return NGX_OK;
}


/*
 * The read: the record, then for the events route the chunks of the
 * page's events (lmdb-schema/pieces.md, "Chunks").
 */

static void
ngx_http_chaindata_tx3_describe(void *ctx, ngx_http_chaindata_read_t *read)
{
    ngx_http_chaindata_tx3_t  *tx = ctx;

    read->db = CHAINDATA_DBI_TX_V3;
    read->key = tx->q.txid;
    read->key_len = sizeof(tx->q.txid);
    read->list_db = tx->q.events ? CHAINDATA_DBI_TX_V3_EVENT
                                 : CHAINDATA_DBI_COUNT;
    read->list = ngx_http_chaindata_tx3_list;
    read->per = CHAINDATA_EVENT_CHUNK;
    read->offset = tx->q.cursor;
    read->limit = tx->q.limit;
}


static ngx_int_t
ngx_http_chaindata_tx3_lookup(ngx_http_request_t *r, void *ctx,
    const MDB_val *record, ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_tx3_t  *tx = ctx;

    if (record == NULL) {
        return ngx_http_chaindata_tx3_missing(r, tx, reply);
    }

    if (chaindata_tx3h_decode(&tx->h, record->mv_data, record->mv_size)
        != 0)
    {
        ngx_http_chaindata_log_damaged(r->connection->log,
                                       CHAINDATA_DBI_TX_V3, record->mv_data,
                                       record->mv_size);
        return NGX_ERROR;
    }

    /* what upstream answers of a transaction it holds but v3 does not */
    if (tx->q.events && (tx->h.flags & CHAINDATA_TX3H_MEMPOOL)) {
        reply->status = NGX_HTTP_BAD_REQUEST;
        reply->body = ngx_http_chaindata_tx3_no_events;
        reply->fixed = 1;
        reply->gzip = 0;

    } else if (tx->h.flags & CHAINDATA_TX3H_GONE) {
        reply->status = NGX_HTTP_NOT_FOUND;
        reply->body = ngx_http_chaindata_tx3_gone;
        reply->fixed = 1;
        reply->gzip = 0;

    } else if (tx->q.events && !(tx->h.flags & CHAINDATA_TX3H_EVENTS)) {
        /* events the index does not keep in v3's shapes: upstream's */
        return ngx_http_chaindata_tx3_missing(r, tx, reply);

    } else {
        reply->status = NGX_HTTP_OK;
    }

    ngx_http_chaindata_gz_init(&tx->gz, reply->gzip);

    return ngx_http_chaindata_tx3_etag(r, tx, reply->gzip, &reply->etag);
}


/* the record's events, for chaindata_threads */

static ngx_int_t
ngx_http_chaindata_tx3_list(const MDB_val *record, uint64_t *count,
    MDB_val *chunk0)
{
    chaindata_tx3h_t  h;

    if (chaindata_tx3h_decode(&h, record->mv_data, record->mv_size) != 0) {
        return NGX_ERROR;
    }

    *count = h.event_count;
    chunk0->mv_data = (void *) h.chunk0;
    chunk0->mv_size = h.chunk0_len;

    return NGX_OK;
}


/* the document less the parts the request leaves out */

static ngx_int_t
ngx_http_chaindata_tx3_size(ngx_http_request_t *r, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_tx3_t  *tx = ctx;

    size_t      len;
    ngx_uint_t  i;

    len = ngx_http_chaindata_gz_frame_len(&tx->gz);

    for (i = 0; i < tx->h.npieces; i++) {
        if (!chaindata_tx3h_left_out(&tx->h, i, tx->q.include)) {
            len += ngx_http_chaindata_gz_piece_len(&tx->gz, &tx->h.piece[i]);
        }
    }

    reply->body.len = len;

    return NGX_OK;
}


static u_char *
ngx_http_chaindata_tx3_write(void *ctx, u_char *p)
{
    ngx_http_chaindata_tx3_t  *tx = ctx;

    ngx_uint_t                i;
    ngx_http_chaindata_gz_t  *gz;

    gz = &tx->gz;

    p = ngx_http_chaindata_gz_begin(gz, p);

    for (i = 0; i < tx->h.npieces; i++) {
        if (!chaindata_tx3h_left_out(&tx->h, i, tx->q.include)) {
            p = ngx_http_chaindata_gz_piece(gz, p, &tx->h.piece[i]);
        }
    }

    p = ngx_http_chaindata_gz_end(gz, p);

    return gz->failed ? NULL : p;
}


/* a cursor as upstream writes it: the event index in quotes, or null */

static u_char *
ngx_http_chaindata_tx3_cursor(u_char *p, const char *name, uint64_t v,
    ngx_uint_t present)
{
    p = ngx_sprintf(p, "\"%s\":", name);

    if (!present) {
        return ngx_cpymem(p, "null", 4);
    }

    return ngx_sprintf(p, "\"%uL\"", v);
}


/*
 * A page of the events: those from the cursor's index on (the stored
 * events' indexes are their positions), and the cursors upstream
 * computes: current the first index served, previous that less the
 * limit (0 at least) when the first is not 0, next the index after the
 * page when there is one.
 */

static ngx_int_t
ngx_http_chaindata_tx3_events_size(ngx_http_request_t *r, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_tx3_t  *tx = ctx;

    u_char     *p;
    size_t      len;
    uint64_t    count, off, limit;
    MDB_val     chunk0;
    ngx_uint_t  some;

    count = tx->h.event_count;
    limit = tx->q.limit;
    off = tx->q.cursor;
    some = (off < count);

    chunk0.mv_data = (void *) tx->h.chunk0;
    chunk0.mv_size = tx->h.chunk0_len;

    if (ngx_http_chaindata_chunks_read(r, &tx->events, reply, count,
                                       &chunk0, "a v3 transaction record")
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    p = ngx_sprintf(tx->head, "{\"total\":%uL,\"limit\":%uL,\"cursor\":{",
                    count, limit);
    p = ngx_http_chaindata_tx3_cursor(p, "next", off + limit,
                                      some && count - off > limit);
    *p++ = ',';
    p = ngx_http_chaindata_tx3_cursor(p, "previous",
                                      off > limit ? off - limit : 0,
                                      some && off > 0);
    *p++ = ',';
    p = ngx_http_chaindata_tx3_cursor(p, "current", off, some);
    p = ngx_cpymem(p, "},\"results\":[", sizeof("},\"results\":[") - 1);
    tx->head_len = p - tx->head;

    len = ngx_http_chaindata_gz_frame_len(&tx->gz)
          + ngx_http_chaindata_gz_bytes_len(&tx->gz, tx->head_len)
          + ngx_http_chaindata_chunks_len(&tx->gz, &tx->events)
          + ngx_http_chaindata_gz_bytes_len(&tx->gz, 2);

    reply->body.len = len;

    return NGX_OK;
}


static u_char *
ngx_http_chaindata_tx3_events_write(void *ctx, u_char *p)
{
    ngx_http_chaindata_tx3_t  *tx = ctx;

    ngx_http_chaindata_gz_t  *gz;

    gz = &tx->gz;

    p = ngx_http_chaindata_gz_begin(gz, p);
    p = ngx_http_chaindata_gz_bytes(gz, p, tx->head, tx->head_len);
    p = ngx_http_chaindata_chunks_write(gz, p, &tx->events);
    p = ngx_http_chaindata_gz_bytes(gz, p, (u_char *) "]}", 2);
    p = ngx_http_chaindata_gz_end(gz, p);

    return gz->failed ? NULL : p;
}


/*
 * An id without "0x": upstream answers 500 (its database refuses the
 * id); a 302 to the same path with "0x", as the v1 route answers
 * (doc/api.md, the differences), with the ETag that path serves unless
 * If-None-Match names it: then that path's 304.
 */

static ngx_int_t
ngx_http_chaindata_tx3_redirect(ngx_http_request_t *r,
    ngx_http_chaindata_tx3_t *tx, const ngx_http_chaindata_route_t *route)
{
    ngx_int_t  rc;
    ngx_str_t  etag;

    rc = ngx_http_chaindata_not_modified_as(r, route, tx, &etag);

    if (rc != NGX_DECLINED) {
        return rc;
    }

    return ngx_http_chaindata_tx_add_prefix(r, tx->q.id.data, tx->q.id.len,
                                            tx->q.events ? "/events" : "",
                                            &etag);
}


ngx_int_t
ngx_http_chaindata_tx_v3_handler(ngx_http_request_t *r)
{
    ngx_int_t                          rc;
    chaindata_query_t                  query;
    chaindata_target_e                 target;
    ngx_http_chaindata_tx3_t          *tx;
    const ngx_http_chaindata_route_t  *route;

    if (!ngx_http_chaindata_method_allowed(r)) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    tx = ngx_pcalloc(r->pool, sizeof(ngx_http_chaindata_tx3_t));
    if (tx == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    /* include's values: at most one a byte of the query, and its bytes */
    tx->q.items = ngx_palloc(r->pool,
                             (r->args.len + 1) * sizeof(chaindata_v3_item_t));
    tx->q.bytes = ngx_pnalloc(r->pool, r->args.len + 1);

    if (tx->q.items == NULL || tx->q.bytes == NULL
        || ngx_http_chaindata_request_query(r, &query) != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    target = chaindata_tx3_target(r->uri.data, r->uri.len, &query, &tx->q);

    route = tx->q.events ? &ngx_http_chaindata_tx3_events_route
                         : &ngx_http_chaindata_tx3_route;

    switch (target) {

    case CHAINDATA_TARGET_OK:
        return ngx_http_chaindata_read_and_reply(r, route, tx);

    case CHAINDATA_TARGET_ADD_PREFIX:
        return ngx_http_chaindata_tx3_redirect(r, tx, route);

    case CHAINDATA_TARGET_BAD_QUERY:
        return ngx_http_chaindata_send_invalid(r, route, tx->q.message);

    default:
        return ngx_http_chaindata_send_bad_target(r, route, target, &query);
    }
}
