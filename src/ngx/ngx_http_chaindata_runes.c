
/*
 * chaindata: the rune queries, GET {prefix}/{tx_id}/activity and GET
 * {prefix}/{address}/balances: a page of a stored list in the envelope
 * {"limit":L,"offset":O,"total":T,"results":[...]} (doc/module.md, Rune
 * activity and balances).  Both are deprecated Bitcoin-layer routes: every
 * response carries the deprecation headers (doc/module.md,
 * chaindata_deprecation).  chaindata_runes serves the same lists at its
 * paths runes_tx_activity and runes_balances, through the same reading,
 * without those headers and with upstream's parameters: a tx id matched as
 * stored (lowercase), any string an address.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_address.h"
#include "chaindata_layout.h"
#include "chaindata_paths.h"
#include "chaindata_schema.h"
#include "ngx_http_chaindata_chunks.h"
#include "ngx_http_chaindata_deprecation.h"
#include "chaindata_paths_runes.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_threads.h"


/* the largest page's chunks: the API's limit against the stored layout */
#if (NGX_HTTP_CHAINDATA_SPANS(CHAINDATA_PAGE_LIMIT_MAX,                     \
                              CHAINDATA_RUNE_CHUNK)                         \
     > NGX_HTTP_CHAINDATA_SPANS_MAX)
#error "NGX_HTTP_CHAINDATA_SPANS_MAX is too small for the largest limit"
#endif


/* what tells the routes apart */
typedef struct {
    ngx_http_chaindata_route_t              route;
    const ngx_http_chaindata_route_desc_t  *desc;      /* its list line's,
                                                          or NULL: a path's */
    const char                             *segment;
    chaindata_list_key_pt                   key;
    chaindata_dbi_e                         head_db;
    chaindata_dbi_e                         entry_db;
} ngx_http_chaindata_rune_route_t;


/*
 * What the read callbacks share: the page of entries read as chunks, in
 * the map (lmdb-schema/runes.md), and the envelope's head made per request.
 */
typedef struct {
    const ngx_http_chaindata_rune_route_t  *rune;
    const ngx_http_chaindata_route_desc_t  *desc;
    chaindata_page_params_t                 q;
    chaindata_listh_t                       h;
    ngx_http_chaindata_chunks_t             entries;
    ngx_str_t                               head;
    ngx_http_chaindata_gz_t                 gz;
} ngx_http_chaindata_rune_page_t;


/* the envelope around the entries: its head is made per page */
#define NGX_HTTP_CHAINDATA_PAGE_HEAD                                      \
    "{\"limit\":,\"offset\":,\"total\":,\"results\":["
#define NGX_HTTP_CHAINDATA_PAGE_TAIL  "]}"


static void ngx_http_chaindata_page_describe(void *ctx,
    ngx_http_chaindata_read_t *read);
static ngx_int_t ngx_http_chaindata_page_lookup(ngx_http_request_t *r,
    void *ctx, const MDB_val *record, ngx_http_chaindata_reply_t *reply);
static ngx_int_t ngx_http_chaindata_page_size(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
static u_char *ngx_http_chaindata_page_write(void *ctx, u_char *p);
static ngx_int_t ngx_http_chaindata_page_entries(const MDB_val *record,
    uint64_t *count, MDB_val *chunk0);


/*
 * What the two routes share: a page of a stored list, gzip or plain.  An
 * unknown list is the empty list when the index holds the whole history,
 * never "not found" (not_found: the 404 is never sent).
 */
#define NGX_HTTP_CHAINDATA_ACTIVITY_ROUTE                                     \
    NGX_HTTP_CHAINDATA_RUNE_PAGES,                                           \
    .invalid = "params/tx_id must match pattern \"^[a-fA-F0-9]{64}$\"",      \
    .no_route = "Route not found: the path must end in /{tx_id}/activity",   \
    .unreadable = "the rune activity could not be read from the index"

#define NGX_HTTP_CHAINDATA_BALANCES_ROUTE                                     \
    NGX_HTTP_CHAINDATA_RUNE_PAGES,                                           \
    .invalid = "params/address must be a Bitcoin address (base58, or "       \
               "bech32 in one case)",                                        \
    .no_route = "Route not found: the path must end in "                     \
                "/{address}/balances",                                       \
    .unreadable = "the rune balances could not be read from the index"

#define NGX_HTTP_CHAINDATA_RUNE_PAGES                                        \
    .describe = ngx_http_chaindata_page_describe,                            \
    .lookup = ngx_http_chaindata_page_lookup,                                \
    .size = ngx_http_chaindata_page_size,                                    \
    .write = ngx_http_chaindata_page_write,                                  \
    .cache_control = NGX_HTTP_CHAINDATA_CACHE_PUBLIC,                        \
    .pieces = 1


static ngx_http_chaindata_rune_route_t  ngx_http_chaindata_activity_route = {
    .route = { NGX_HTTP_CHAINDATA_ACTIVITY_ROUTE },
    .desc = &ngx_http_chaindata_rune_activity_desc,
    .segment = "activity",
    .key = chaindata_txid_list_key,
    .head_db = CHAINDATA_DBI_RUNE_ACTIVITY,
    .entry_db = CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY
};


static ngx_http_chaindata_rune_route_t  ngx_http_chaindata_balances_route = {
    .route = { NGX_HTTP_CHAINDATA_BALANCES_ROUTE },
    .desc = &ngx_http_chaindata_rune_balances_desc,
    .segment = "balances",
    .key = chaindata_address_key,
    .head_db = CHAINDATA_DBI_RUNE_BALANCES,
    .entry_db = CHAINDATA_DBI_RUNE_BALANCE_ENTRY
};


/* chaindata_runes' paths of the same lists: upstream's parameters */

static ngx_http_chaindata_rune_route_t  ngx_http_chaindata_runes_tx_route = {
    .route = { NGX_HTTP_CHAINDATA_ACTIVITY_ROUTE },
    .key = chaindata_runes_txid_key,
    .head_db = CHAINDATA_DBI_RUNE_ACTIVITY,
    .entry_db = CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY
};


static ngx_http_chaindata_rune_route_t  ngx_http_chaindata_runes_balances_route
    = {
    .route = { NGX_HTTP_CHAINDATA_BALANCES_ROUTE },
    .key = chaindata_runes_address_list_key,
    .head_db = CHAINDATA_DBI_RUNE_BALANCES,
    .entry_db = CHAINDATA_DBI_RUNE_BALANCE_ENTRY
};


/*
 * The ETag names the stored list (the digest of all its entries, taken at
 * ingest), the page of it and the encoding, so it changes whenever the
 * body would.
 */

static ngx_int_t
ngx_http_chaindata_page_etag(ngx_http_request_t *r,
    chaindata_listh_t *h, chaindata_page_params_t *q, ngx_uint_t gzip,
    ngx_str_t *etag)
{
    u_char  *p;

    p = ngx_http_chaindata_etag_begin(r, etag, h->digest,
                                      1 + q->offset_text.len
                                      + 1 + NGX_INT64_LEN);
    if (p == NULL) {
        return NGX_ERROR;
    }

    *p++ = '-';
    p = ngx_cpymem(p, q->offset_text.data, q->offset_text.len);
    p = ngx_sprintf(p, "-%uL", q->limit);

    ngx_http_chaindata_etag_end(etag, p, gzip);

    return NGX_OK;
}


/* the read: the list's head, then the chunks of the page */

static void
ngx_http_chaindata_page_describe(void *ctx, ngx_http_chaindata_read_t *read)
{
    ngx_http_chaindata_rune_page_t  *page = ctx;

    read->db = page->rune->head_db;
    read->key = page->q.key;
    read->key_len = page->q.key_len;
    read->list_db = page->rune->entry_db;
    read->list = ngx_http_chaindata_page_entries;
    read->per = CHAINDATA_RUNE_CHUNK;
    read->offset = page->q.offset;
    read->limit = page->q.limit;
}


/* the head's entries, for chaindata_threads */

static ngx_int_t
ngx_http_chaindata_page_entries(const MDB_val *record, uint64_t *count,
    MDB_val *chunk0)
{
    chaindata_listh_t  h;

    if (chaindata_listh_decode(&h, record->mv_data, record->mv_size) != 0) {
        return NGX_ERROR;
    }

    *count = h.count;
    chunk0->mv_data = (void *) h.chunk0;
    chunk0->mv_size = h.chunk0_len;

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_page_lookup(ngx_http_request_t *r, void *ctx,
    const MDB_val *record, ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_rune_page_t  *page = ctx;

    if (record == NULL) {
        /*
         * unknown: the empty list, as upstream answers, when the index
         * holds the whole history; else a miss it cannot tell
         */
        if (ngx_http_chaindata_miss_history(r, page->desc->feed, reply)
            != NGX_OK)
        {
            return NGX_ERROR;
        }

        if (reply->untold) {
            reply->status = NGX_HTTP_NOT_FOUND;
            return NGX_OK;
        }

        page->h.count = 0;
        ngx_memcpy(page->h.digest, CHAINDATA_EMPTY_DIGEST,
                   CHAINDATA_DIGEST_LEN);

    } else if (chaindata_listh_decode(&page->h, record->mv_data,
                                      record->mv_size)
               != 0)
    {
        ngx_http_chaindata_log_damaged(r->connection->log,
                                       page->rune->head_db, record->mv_data,
                                       record->mv_size);
        return NGX_ERROR;
    }

    reply->status = NGX_HTTP_OK;

    ngx_http_chaindata_gz_init(&page->gz, reply->gzip);

    return ngx_http_chaindata_page_etag(r, &page->h, &page->q, reply->gzip,
                                        &reply->etag);
}


/*
 * The page of entries (chunks: lmdb-schema/pieces.md), the envelope's
 * head, and the length of the answer made of them in its encoding.
 */

static ngx_int_t
ngx_http_chaindata_page_size(ngx_http_request_t *r, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_rune_page_t  *page = ctx;

    u_char                   *p;
    MDB_val                   chunk0;
    ngx_http_chaindata_gz_t  *gz;
    chaindata_page_params_t  *q;

    q = &page->q;
    gz = &page->gz;

    chunk0.mv_data = (void *) page->h.chunk0;
    chunk0.mv_size = page->h.chunk0_len;

    if (ngx_http_chaindata_chunks_read(r, &page->entries, reply,
                                       page->h.count, &chunk0,
                                       "a rune list header")
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    p = ngx_pnalloc(r->pool, sizeof(NGX_HTTP_CHAINDATA_PAGE_HEAD) - 1
                             + 2 * NGX_INT64_LEN + q->offset_text.len);
    if (p == NULL) {
        return NGX_ERROR;
    }

    page->head.data = p;
    p = ngx_sprintf(p, "{\"limit\":%uL,\"offset\":", q->limit);
    p = ngx_cpymem(p, q->offset_text.data, q->offset_text.len);
    p = ngx_sprintf(p, ",\"total\":%uD,\"results\":[", page->h.count);
    page->head.len = p - page->head.data;

    reply->body.len = ngx_http_chaindata_gz_frame_len(gz)
        + ngx_http_chaindata_gz_bytes_len(gz, page->head.len)
        + ngx_http_chaindata_chunks_len(gz, &page->entries)
        + ngx_http_chaindata_gz_bytes_len(gz,
                                sizeof(NGX_HTTP_CHAINDATA_PAGE_TAIL) - 1);

    return NGX_OK;
}


/*
 * The envelope with the page of entries, in the reply's encoding, out of
 * the map: gzip copies the chunks' pieces, plain inflates them.
 */

static u_char *
ngx_http_chaindata_page_write(void *ctx, u_char *p)
{
    ngx_http_chaindata_rune_page_t  *page = ctx;

    ngx_http_chaindata_gz_t  *gz;

    gz = &page->gz;

    p = ngx_http_chaindata_gz_begin(gz, p);
    p = ngx_http_chaindata_gz_bytes(gz, p, page->head.data, page->head.len);
    p = ngx_http_chaindata_chunks_write(gz, p, &page->entries);
    p = ngx_http_chaindata_gz_bytes(gz, p,
                                    (u_char *) NGX_HTTP_CHAINDATA_PAGE_TAIL,
                                    sizeof(NGX_HTTP_CHAINDATA_PAGE_TAIL) - 1);
    p = ngx_http_chaindata_gz_end(gz, p);

    return gz->failed ? NULL : p;
}


/*
 * A page of a list: at a route's location (param NULL: the path is the
 * request's, taken apart here), or at chaindata_runes' path (desc), its
 * parameter matched.
 */

static ngx_int_t
ngx_http_chaindata_rune_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_rune_route_t *rune,
    const ngx_http_chaindata_route_desc_t *desc,
    const chaindata_span_t *param)
{
    ngx_int_t                       rc;
    chaindata_query_t               query;
    chaindata_target_e              target;
    ngx_http_chaindata_rune_page_t  page;

    /*
     * first: every response of a deprecated route says so, errors too
     * (once: not again when the lookup comes back from chaindata_threads)
     */
    if (param == NULL
        && !ngx_http_chaindata_threads_resumed(r)
        && ngx_http_chaindata_deprecation_headers(r) != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (!ngx_http_chaindata_method_allowed(r)) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    ngx_memzero(&page, sizeof(ngx_http_chaindata_rune_page_t));
    page.rune = rune;
    page.desc = desc;

    if (ngx_http_chaindata_request_query(r, &query) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (param == NULL) {
        target = chaindata_page_target(r->uri.data, r->uri.len,
                                       rune->segment, rune->key, &query,
                                       &page.q);

    } else {
        page.q.key_len = rune->key(page.q.key, param->data, param->len);
        target = page.q.key_len ? chaindata_page_query(&query, &page.q)
                                : CHAINDATA_TARGET_BAD_PARAM;
    }

    if (target != CHAINDATA_TARGET_OK) {
        return ngx_http_chaindata_send_bad_target(r, &rune->route, target,
                                                  &query);
    }

    return ngx_http_chaindata_read_and_reply(r, &rune->route, &page);
}


ngx_int_t
ngx_http_chaindata_rune_activity_handler(ngx_http_request_t *r)
{
    return ngx_http_chaindata_rune_handler(r,
               &ngx_http_chaindata_activity_route,
               ngx_http_chaindata_activity_route.desc, NULL);
}


ngx_int_t
ngx_http_chaindata_rune_balances_handler(ngx_http_request_t *r)
{
    return ngx_http_chaindata_rune_handler(r,
               &ngx_http_chaindata_balances_route,
               ngx_http_chaindata_balances_route.desc, NULL);
}


ngx_int_t
ngx_http_chaindata_runes_tx_activity_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_rune_handler(r,
               &ngx_http_chaindata_runes_tx_route, &path->desc,
               &params->param[0]);
}


ngx_int_t
ngx_http_chaindata_runes_balances_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_rune_handler(r,
               &ngx_http_chaindata_runes_balances_route, &path->desc,
               &params->param[0]);
}
