
/*
 * chaindata: the rune queries, GET {prefix}/{tx_id}/activity and
 * GET {prefix}/{address}/balances: a page of a stored list in the envelope
 * {"limit":L,"offset":O,"total":T,"results":[...]} (upstream-behaviour.md,
 * sections 2 to 4).  Both are deprecated Bitcoin-layer routes: every
 * response carries the deprecation headers (specification 9.1).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_address.h"
#include "chaindata_codec.h"
#include "ngx_http_chaindata_module.h"
#include "chaindata_paths.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"


typedef struct {
    ngx_uint_t   status;
    ngx_str_t    body;
    ngx_str_t    etag;
} ngx_http_chaindata_page_reply_t;


/* what tells the two routes apart */
typedef struct {
    const char            *segment;
    chaindata_dbi_e        head_db;
    chaindata_dbi_e        entry_db;
    chaindata_list_key_pt  key;
    const char            *invalid;
    const char            *no_route;
    const char            *unreadable;
} ngx_http_chaindata_rune_route_t;


static ngx_http_chaindata_rune_route_t  ngx_http_chaindata_activity_route = {
    "activity",
    CHAINDATA_DBI_RUNE_ACTIVITY,
    CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY,
    chaindata_txid_list_key,
    "params/tx_id must match pattern \"^[a-fA-F0-9]{64}$\"",
    "Route not found: the path must end in /{tx_id}/activity",
    "the rune activity could not be read from the index"
};


static ngx_http_chaindata_rune_route_t  ngx_http_chaindata_balances_route = {
    "balances",
    CHAINDATA_DBI_RUNE_BALANCES,
    CHAINDATA_DBI_RUNE_BALANCE_ENTRY,
    chaindata_address_key,
    "params/address must be a Bitcoin address (base58, or bech32 in one "
    "case)",
    "Route not found: the path must end in /{address}/balances",
    "the rune balances could not be read from the index"
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


/*
 * Reads the page's entries and writes the body into the pool: nothing may
 * point into the map once the read transaction is reset.
 */

static ngx_int_t
ngx_http_chaindata_page_body(ngx_http_request_t *r,
    const ngx_http_chaindata_rune_route_t *route,
    chaindata_listh_t *h, chaindata_page_params_t *q,
    ngx_str_t *body)
{
    u_char      *p;
    size_t       size, key_len;
    MDB_val      entries[CHAINDATA_PAGE_LIMIT_MAX];
    ngx_uint_t   i, n, got;
    u_char       key[CHAINDATA_LIST_ENTRY_KEY_MAX];

    n = 0;

    if (q->offset < h->count) {
        n = (ngx_uint_t) ngx_min(q->limit, h->count - q->offset);

        key_len = chaindata_list_entry_key(key, q->key, q->key_len,
                                           (uint32_t) q->offset);

        if (ngx_http_chaindata_store_range(r->connection->log,
                                           route->entry_db,
                                           q->key, q->key_len, key, key_len,
                                           entries, n, &got)
            != NGX_OK)
        {
            return NGX_ERROR;
        }

        if (got != n) {
            ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                          "chaindata: a rune list header counts %uD entries "
                          "but \"%s\" holds fewer", h->count,
                          chaindata_db_names[route->entry_db]);
            return NGX_ERROR;
        }
    }

    size = sizeof("{\"limit\":,\"offset\":,\"total\":,\"results\":[]}") - 1
           + NGX_INT64_LEN + q->offset_text.len + NGX_INT32_LEN
           + (n ? n - 1 : 0);

    for (i = 0; i < n; i++) {
        size += entries[i].mv_size;
    }

    body->data = ngx_pnalloc(r->pool, size);
    if (body->data == NULL) {
        return NGX_ERROR;
    }

    p = ngx_sprintf(body->data, "{\"limit\":%uL,\"offset\":", q->limit);
    p = ngx_cpymem(p, q->offset_text.data, q->offset_text.len);
    p = ngx_sprintf(p, ",\"total\":%uD,\"results\":[", h->count);

    for (i = 0; i < n; i++) {
        if (i) {
            *p++ = ',';
        }

        p = ngx_cpymem(p, entries[i].mv_data, entries[i].mv_size);
    }

    *p++ = ']';
    *p++ = '}';

    body->len = p - body->data;

    return NGX_OK;
}


/* everything that needs the read transaction; the reply is in the pool */

static ngx_int_t
ngx_http_chaindata_page_read(ngx_http_request_t *r,
    const ngx_http_chaindata_rune_route_t *route,
    chaindata_page_params_t *q, ngx_http_chaindata_page_reply_t *reply)
{
    ngx_int_t          rc;
    MDB_val            val;
    chaindata_listh_t  h;

    rc = ngx_http_chaindata_store_get(r->connection->log, route->head_db,
                                      q->key, q->key_len, &val);

    if (rc == NGX_DECLINED) {
        /* unknown: the empty list */
        h.count = 0;
        ngx_memcpy(h.digest, CHAINDATA_EMPTY_DIGEST,
                   CHAINDATA_DIGEST_LEN);

    } else if (rc != NGX_OK) {
        return NGX_ERROR;

    } else if (chaindata_listh_decode(&h, val.mv_data, val.mv_size)
               != 0)
    {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: a \"%s\" record is damaged "
                      "(format %d, %uz bytes)",
                      chaindata_db_names[route->head_db],
                      val.mv_size ? *(u_char *) val.mv_data : -1,
                      val.mv_size);
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_page_etag(r, &h, q, &reply->etag) != NGX_OK) {
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_etag_matches(r, &reply->etag)) {
        reply->status = NGX_HTTP_NOT_MODIFIED;
        return NGX_OK;
    }

    if (ngx_http_chaindata_page_body(r, route, &h, q, &reply->body)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    reply->status = NGX_HTTP_OK;

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_rune_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_rune_route_t *route)
{
    ngx_int_t                        rc;
    chaindata_query_t                query;
    chaindata_page_params_t          q;
    ngx_http_chaindata_page_reply_t  reply;

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

    if (ngx_http_chaindata_request_query(r, &query) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_memzero(&q, sizeof(q));

    switch (chaindata_page_target(r->uri.data, r->uri.len,
                                  route->segment, route->key,
                                  &query, &q))
    {
    case CHAINDATA_TARGET_OK:
        break;

    case CHAINDATA_TARGET_NO_ROUTE:
        return ngx_http_chaindata_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                                             route->no_route);

    case CHAINDATA_TARGET_BAD_PARAM:
        return ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST, NULL,
                                             route->invalid);

    case CHAINDATA_TARGET_BAD_QUERY:
        return ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST, NULL,
                   ngx_http_chaindata_query_message(r, &query));

    default:
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return ngx_http_chaindata_send_unavailable(r);
    }

    ngx_memzero(&reply, sizeof(reply));

    rc = ngx_http_chaindata_page_read(r, route, &q, &reply);

    ngx_http_chaindata_store_end();

    if (rc != NGX_OK) {
        return ngx_http_chaindata_send_error(r,
                   NGX_HTTP_INTERNAL_SERVER_ERROR, NULL, route->unreadable);
    }

    if (reply.status == NGX_HTTP_NOT_MODIFIED) {
        return ngx_http_chaindata_send_not_modified(r, &reply.etag,
                   NGX_HTTP_CHAINDATA_CACHE_PUBLIC);
    }

    return ngx_http_chaindata_send_json(r, NGX_HTTP_OK, &reply.body,
                                        &reply.etag,
                                        NGX_HTTP_CHAINDATA_CACHE_PUBLIC);
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
