
/*
 * chaindata: the rune queries, GET {prefix}/{tx_id}/activity and
 * GET {prefix}/{address}/balances: a page of a stored list in the envelope
 * {"limit":L,"offset":O,"total":T,"results":[...]} (README, Rune
 * queries).  Both are deprecated Bitcoin-layer routes: every response
 * carries the deprecation headers (README, Deprecation signalling).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_address.h"
#include "chaindata_codec.h"
#include "chaindata_paths.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"


/* what tells the two routes apart */
typedef struct {
    ngx_http_chaindata_route_t   route;
    const char                  *segment;
    chaindata_list_key_pt        key;
    chaindata_dbi_e              head_db;
    chaindata_dbi_e              entry_db;
} ngx_http_chaindata_rune_route_t;


/* what the read callbacks share: the page of entries read, in the map */
typedef struct {
    const ngx_http_chaindata_rune_route_t  *rune;
    chaindata_page_params_t                 q;
    chaindata_listh_t                       h;
    MDB_val                                 entries[CHAINDATA_PAGE_LIMIT_MAX];
    ngx_uint_t                              n;
} ngx_http_chaindata_rune_page_t;


static ngx_int_t ngx_http_chaindata_page_lookup(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
static ngx_int_t ngx_http_chaindata_page_size(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
static u_char *ngx_http_chaindata_page_write(void *ctx, u_char *p);


/* an unknown list is the empty list: never "not found" */

static ngx_http_chaindata_rune_route_t  ngx_http_chaindata_activity_route = {
    { ngx_http_chaindata_page_lookup,
      ngx_http_chaindata_page_size,
      ngx_http_chaindata_page_write,
      NULL,
      "params/tx_id must match pattern \"^[a-fA-F0-9]{64}$\"",
      "Route not found: the path must end in /{tx_id}/activity",
      NULL,
      "the rune activity could not be read from the index",
      NGX_HTTP_CHAINDATA_CACHE_PUBLIC,
      0 },
    "activity",
    chaindata_txid_list_key,
    CHAINDATA_DBI_RUNE_ACTIVITY,
    CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY
};


static ngx_http_chaindata_rune_route_t  ngx_http_chaindata_balances_route = {
    { ngx_http_chaindata_page_lookup,
      ngx_http_chaindata_page_size,
      ngx_http_chaindata_page_write,
      NULL,
      "params/address must be a Bitcoin address (base58, or bech32 in one "
      "case)",
      "Route not found: the path must end in /{address}/balances",
      NULL,
      "the rune balances could not be read from the index",
      NGX_HTTP_CHAINDATA_CACHE_PUBLIC,
      0 },
    "balances",
    chaindata_address_key,
    CHAINDATA_DBI_RUNE_BALANCES,
    CHAINDATA_DBI_RUNE_BALANCE_ENTRY
};


/*
 * The ETag names the stored list (the digest of all its entries, taken at
 * ingest) and the page of it, so it changes whenever the body would.
 */

static ngx_int_t
ngx_http_chaindata_page_etag(ngx_http_request_t *r,
    chaindata_listh_t *h, chaindata_page_params_t *q,
    ngx_str_t *etag)
{
    u_char  *p;

    etag->data = ngx_pnalloc(r->pool, 2 + 2 * CHAINDATA_DIGEST_LEN
                                      + 1 + q->offset_text.len
                                      + 1 + NGX_INT64_LEN);
    if (etag->data == NULL) {
        return NGX_ERROR;
    }

    p = etag->data;
    *p++ = '"';
    p = chaindata_hex_encode(p, h->digest,
                             CHAINDATA_DIGEST_LEN);
    *p++ = '-';
    p = ngx_cpymem(p, q->offset_text.data, q->offset_text.len);
    p = ngx_sprintf(p, "-%uL\"", q->limit);
    etag->len = p - etag->data;

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_page_lookup(ngx_http_request_t *r, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_rune_page_t  *page = ctx;

    ngx_int_t        rc;
    MDB_val          val;
    chaindata_dbi_e  db;

    db = page->rune->head_db;

    rc = ngx_http_chaindata_store_get(r->connection->log, db, page->q.key,
                                      page->q.key_len, &val);

    if (rc == NGX_DECLINED) {
        /* unknown: the empty list */
        page->h.count = 0;
        ngx_memcpy(page->h.digest, CHAINDATA_EMPTY_DIGEST,
                   CHAINDATA_DIGEST_LEN);

    } else if (rc != NGX_OK) {
        return NGX_ERROR;

    } else if (chaindata_listh_decode(&page->h, val.mv_data, val.mv_size)
               != 0)
    {
        ngx_http_chaindata_log_damaged(r->connection->log, db, val.mv_data,
                                       val.mv_size);
        return NGX_ERROR;
    }

    reply->status = NGX_HTTP_OK;

    return ngx_http_chaindata_page_etag(r, &page->h, &page->q, &reply->etag);
}


/* the decimal digits of n */

static size_t
ngx_http_chaindata_digits(uint64_t n)
{
    size_t  len;

    for (len = 1; n >= 10; n /= 10) {
        len++;
    }

    return len;
}


/* the page of entries, and the length of the envelope around it */

static ngx_int_t
ngx_http_chaindata_page_size(ngx_http_request_t *r, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_rune_page_t  *page = ctx;

    chaindata_page_params_t  *q;

    q = &page->q;

    if (ngx_http_chaindata_read_entries(r, page->rune->entry_db, q->key,
                                        q->key_len, page->h.count,
                                        "a rune list header", q->offset,
                                        q->limit, page->entries, &page->n)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    reply->body.len =
        sizeof("{\"limit\":,\"offset\":,\"total\":,\"results\":[]}") - 1
        + ngx_http_chaindata_digits(q->limit) + q->offset_text.len
        + ngx_http_chaindata_digits(page->h.count)
        + ngx_http_chaindata_entries_len(page->entries, page->n);

    return NGX_OK;
}


/* the envelope with the page of entries, copied out of the map */

static u_char *
ngx_http_chaindata_page_write(void *ctx, u_char *p)
{
    ngx_http_chaindata_rune_page_t  *page = ctx;

    chaindata_page_params_t  *q;

    q = &page->q;

    p = ngx_sprintf(p, "{\"limit\":%uL,\"offset\":", q->limit);
    p = ngx_cpymem(p, q->offset_text.data, q->offset_text.len);
    p = ngx_sprintf(p, ",\"total\":%uD,\"results\":[", page->h.count);
    p = ngx_http_chaindata_join_entries(p, page->entries, page->n);
    *p++ = ']';
    *p++ = '}';

    return p;
}


static ngx_int_t
ngx_http_chaindata_rune_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_rune_route_t *rune)
{
    ngx_int_t                       rc;
    chaindata_query_t               query;
    chaindata_target_e              target;
    ngx_http_chaindata_rune_page_t  page;

    /* first: every response of a deprecated route says so, errors too */
    if (ngx_http_chaindata_deprecation_headers(r) != NGX_OK) {
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

    if (ngx_http_chaindata_request_query(r, &query) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    target = chaindata_page_target(r->uri.data, r->uri.len, rune->segment,
                                   rune->key, &query, &page.q);

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
                                           &ngx_http_chaindata_activity_route);
}


ngx_int_t
ngx_http_chaindata_rune_balances_handler(ngx_http_request_t *r)
{
    return ngx_http_chaindata_rune_handler(r,
                                           &ngx_http_chaindata_balances_route);
}
