
/*
 * chaindata: GET {prefix}/{tx_id}, a Stacks transaction with one page of
 * its events (upstream-behaviour.md, section 1).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_codec.h"
#include "ngx_http_chaindata_module.h"
#include "chaindata_paths.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"


#define NGX_HTTP_CHAINDATA_TX_PATTERN                                        \
    "params/tx_id must match pattern \"^(0x)?[a-fA-F0-9]{64}$\""


typedef struct {
    ngx_uint_t   status;
    ngx_str_t    body;
    ngx_str_t    etag;
} ngx_http_chaindata_tx_reply_t;


static ngx_int_t
ngx_http_chaindata_tx_add_prefix(ngx_http_request_t *r,
    chaindata_span_t *seg)
{
    u_char     *p;
    size_t      prefix, escape;
    ngx_str_t   location;

    /* the same path with "0x" before the id, and the same query string */
    prefix = seg->data - r->uri.data;
    escape = 2 * ngx_escape_uri(NULL, r->uri.data, prefix, NGX_ESCAPE_URI);

    location.len = prefix + escape + 2 + seg->len
                   + (r->args.len ? 1 + r->args.len : 0);

    location.data = ngx_pnalloc(r->pool, location.len);
    if (location.data == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    p = (u_char *) ngx_escape_uri(location.data, r->uri.data, prefix,
                                  NGX_ESCAPE_URI);
    p = ngx_cpymem(p, "0x", 2);
    p = ngx_cpymem(p, seg->data, seg->len);

    if (r->args.len) {
        *p++ = '?';
        ngx_memcpy(p, r->args.data, r->args.len);
    }

    return ngx_http_chaindata_send_redirect(r, &location);
}


/*
 * The ETag names the stored document (its digest) and everything of the
 * request that shapes the body, so it changes whenever the body would.
 */

static ngx_int_t
ngx_http_chaindata_tx_etag(ngx_http_request_t *r,
    chaindata_txh_t *h, chaindata_tx_params_t *q,
    ngx_str_t *etag)
{
    u_char  *p;

    etag->data = ngx_pnalloc(r->pool, 2 + 2 * CHAINDATA_DIGEST_LEN
                                      + 2 * (1 + NGX_INT64_LEN) + 2);
    if (etag->data == NULL) {
        return NGX_ERROR;
    }

    p = etag->data;
    *p++ = '"';
    p = chaindata_hex_encode(p, h->digest,
                             CHAINDATA_DIGEST_LEN);

    if (h->flags & CHAINDATA_TXH_EVENTS) {
        p = ngx_sprintf(p, "-%uL-%uL", q->offset, q->limit);
    }

    if (q->exclude_fargs && (h->flags & CHAINDATA_TXH_FARGS)) {
        *p++ = '-';
        *p++ = 'x';
    }

    *p++ = '"';
    etag->len = p - etag->data;

    return NGX_OK;
}


/* the bytes of doc[from, to) without those of the hole [hs, he) */

static u_char *
ngx_http_chaindata_copy_except(u_char *p, const u_char *doc, size_t from,
    size_t to, size_t hs, size_t he)
{
    if (hs >= he || he <= from || hs >= to) {
        return ngx_cpymem(p, doc + from, to - from);
    }

    if (hs > from) {
        p = ngx_cpymem(p, doc + from, hs - from);
    }

    if (he < to) {
        p = ngx_cpymem(p, doc + he, to - he);
    }

    return p;
}


/*
 * Reads the events page and writes the body into the pool: nothing may
 * point into the map once the read transaction is reset.
 */

static ngx_int_t
ngx_http_chaindata_tx_body(ngx_http_request_t *r,
    chaindata_txh_t *h, chaindata_tx_params_t *q,
    ngx_str_t *body)
{
    u_char      *p;
    size_t       size, at, hs, he;
    MDB_val      events[CHAINDATA_EVENT_LIMIT_MAX];
    ngx_uint_t   i, n, got;
    u_char       key[CHAINDATA_EVENT_KEY_LEN];

    n = 0;

    if (q->offset < h->event_count) {
        n = (ngx_uint_t) ngx_min(q->limit, h->event_count - q->offset);

        chaindata_event_key(key, q->txid, (uint32_t) q->offset);

        if (ngx_http_chaindata_store_range(r->connection->log,
                                           CHAINDATA_DBI_TX_EVENT,
                                           q->txid, sizeof(q->txid),
                                           key, sizeof(key), events, n, &got)
            != NGX_OK)
        {
            return NGX_ERROR;
        }

        if (got != n) {
            ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                          "chaindata: transaction record lists %uD events "
                          "but the index holds fewer", h->event_count);
            return NGX_ERROR;
        }
    }

    hs = 0;
    he = 0;

    if (q->exclude_fargs && (h->flags & CHAINDATA_TXH_FARGS)) {
        hs = h->fargs_start;
        he = h->fargs_start + h->fargs_len;
    }

    at = (h->flags & CHAINDATA_TXH_EVENTS) ? h->events_at
                                                   : h->doc_len;

    size = h->doc_len - (he - hs) + (n ? n - 1 : 0);

    for (i = 0; i < n; i++) {
        size += events[i].mv_size;
    }

    body->data = ngx_pnalloc(r->pool, size);
    if (body->data == NULL) {
        return NGX_ERROR;
    }

    p = ngx_http_chaindata_copy_except(body->data, h->doc, 0, at, hs, he);

    for (i = 0; i < n; i++) {
        if (i) {
            *p++ = ',';
        }

        p = ngx_cpymem(p, events[i].mv_data, events[i].mv_size);
    }

    p = ngx_http_chaindata_copy_except(p, h->doc, at, h->doc_len, hs, he);

    body->len = p - body->data;

    return NGX_OK;
}


/* everything that needs the read transaction; the reply is in the pool */

static ngx_int_t
ngx_http_chaindata_tx_read(ngx_http_request_t *r,
    chaindata_tx_params_t *q, ngx_http_chaindata_tx_reply_t *reply)
{
    ngx_int_t        rc;
    MDB_val          val;
    chaindata_txh_t  h;

    rc = ngx_http_chaindata_store_get(r->connection->log,
                                      CHAINDATA_DBI_TX,
                                      q->txid, sizeof(q->txid), &val);

    if (rc == NGX_DECLINED) {
        reply->status = NGX_HTTP_NOT_FOUND;
        return NGX_OK;
    }

    if (rc != NGX_OK) {
        return NGX_ERROR;
    }

    if (chaindata_txh_decode(&h, val.mv_data, val.mv_size) != 0) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: a transaction record is damaged "
                      "(format %d, %uz bytes)",
                      val.mv_size ? *(u_char *) val.mv_data : -1,
                      val.mv_size);
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_tx_etag(r, &h, q, &reply->etag) != NGX_OK) {
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_etag_matches(r, &reply->etag)) {
        reply->status = NGX_HTTP_NOT_MODIFIED;
        return NGX_OK;
    }

    if (ngx_http_chaindata_tx_body(r, &h, q, &reply->body) != NGX_OK) {
        return NGX_ERROR;
    }

    reply->status = NGX_HTTP_OK;

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_tx_handler(ngx_http_request_t *r)
{
    ngx_int_t                      rc;
    chaindata_query_t              query;
    chaindata_tx_params_t          q;
    ngx_http_chaindata_tx_reply_t  reply;

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

    switch (chaindata_tx_target(r->uri.data, r->uri.len, &query,
                                &q))
    {
    case CHAINDATA_TARGET_OK:
        break;

    case CHAINDATA_TARGET_BAD_PARAM:
        return ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST,
                                             "FST_ERR_VALIDATION",
                                             NGX_HTTP_CHAINDATA_TX_PATTERN);

    case CHAINDATA_TARGET_ADD_PREFIX:
        return ngx_http_chaindata_tx_add_prefix(r, &q.id);

    case CHAINDATA_TARGET_BAD_QUERY:
        return ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST,
                   "FST_ERR_VALIDATION",
                   ngx_http_chaindata_query_message(r, &query));

    default:
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return ngx_http_chaindata_send_unavailable(r);
    }

    ngx_memzero(&reply, sizeof(reply));

    rc = ngx_http_chaindata_tx_read(r, &q, &reply);

    ngx_http_chaindata_store_end();

    if (rc != NGX_OK) {
        return ngx_http_chaindata_send_error(r,
                   NGX_HTTP_INTERNAL_SERVER_ERROR, NULL,
                   "the transaction could not be read from the index");
    }

    switch (reply.status) {

    case NGX_HTTP_NOT_FOUND:
        return ngx_http_chaindata_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                                             "could not find transaction "
                                             "by ID");

    case NGX_HTTP_NOT_MODIFIED:
        return ngx_http_chaindata_send_not_modified(r, &reply.etag,
                   NGX_HTTP_CHAINDATA_CACHE_PUBLIC);

    default:
        return ngx_http_chaindata_send_json(r, NGX_HTTP_OK, &reply.body,
                                            &reply.etag,
                                            NGX_HTTP_CHAINDATA_CACHE_PUBLIC);
    }
}
