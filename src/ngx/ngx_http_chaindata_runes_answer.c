
/*
 * chaindata: the answer of a chaindata_runes path (see
 * ngx_http_chaindata_runes.h; doc/module.md, "chaindata_runes"): its
 * query, its read in one transaction, the miss rule, the ETag made from
 * the runes state, the conditionals, gzip made per request.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_runes_layout.h"
#include "ngx_http_chaindata_gzip.h"
#include "ngx_http_chaindata_runes.h"
#include "ngx_http_chaindata_store.h"


#define NGX_HTTP_CHAINDATA_RUNES_ETCHING_INVALID                             \
    "params/etching must match pattern \"^[0-9]+:[0-9]+$\", "                \
    "params/etching must match pattern \"^[0-9]+$\", "                       \
    "params/etching must match pattern \"^[A-Z]+$\", "                       \
    "params/etching must match pattern \"^[A-Za-z]+(\xe2\x80\xa2"            \
    "[A-Za-z]+)+$\", params/etching must match a schema in anyOf"

#define NGX_HTTP_CHAINDATA_RUNES_NOT_FOUND  "{\"error\":\"Not found\"}"


const ngx_http_chaindata_route_t  ngx_http_chaindata_runes_route = {
    .invalid = NGX_HTTP_CHAINDATA_RUNES_ETCHING_INVALID,
    .no_route = "Route not found",
    .not_found = "Not found",
    .unreadable = "the runes index could not be read",
    .cache_control = NGX_HTTP_CHAINDATA_CACHE_PUBLIC
};


/*
 * upstream's 500 of a number past PostgreSQL's bigint, its body as it is
 * (an error: no ETag, not stored)
 */

ngx_int_t
ngx_http_chaindata_runes_bad_etching(ngx_http_request_t *r,
    const chaindata_etching_t *e, const chaindata_span_t *param)
{
    u_char     *p;
    ngx_str_t   body;

    if (e->form != CHAINDATA_ETCHING_TOO_BIG) {
        return ngx_http_chaindata_send_invalid(r,
                   &ngx_http_chaindata_runes_route,
                   NGX_HTTP_CHAINDATA_RUNES_ETCHING_INVALID);
    }

    p = ngx_pnalloc(r->pool, sizeof("{\"statusCode\":500,\"code\":\"22003\","
                                    "\"error\":\"Internal Server Error\","
                                    "\"message\":\"value \\\"\\\" is out of "
                                    "range for type bigint\"}")
                             + param->len);
    if (p == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    body.data = p;
    p = ngx_sprintf(p, "{\"statusCode\":500,\"code\":\"22003\","
                    "\"error\":\"Internal Server Error\","
                    "\"message\":\"value \\\"%*s\\\" is out of range for "
                    "type bigint\"}", param->len, param->data);
    body.len = p - body.data;

    return ngx_http_chaindata_send_json(r, NGX_HTTP_INTERNAL_SERVER_ERROR,
                                        &body, NULL,
                                        NGX_HTTP_CHAINDATA_CACHE_NONE);
}


void
ngx_http_chaindata_runes_add(ngx_http_chaindata_runes_body_t *b,
    const void *data, size_t len)
{
    u_char  *p;
    size_t   cap;

    if (b->failed) {
        return;
    }

    if (b->len + len > b->cap) {
        cap = ngx_max(2 * b->cap, b->len + len);
        cap = ngx_max(cap, 4096);

        p = ngx_pnalloc(b->pool, cap);
        if (p == NULL) {
            b->failed = 1;
            return;
        }

        if (b->len) {
            ngx_memcpy(p, b->data, b->len);
        }

        b->data = p;
        b->cap = cap;
    }

    ngx_memcpy(b->data + b->len, data, len);
    b->len += len;
}


void
ngx_http_chaindata_runes_page_head(ngx_http_chaindata_runes_req_t *rq,
    uint64_t total)
{
    u_char  buf[sizeof("{\"limit\":,\"offset\":") + 2 * NGX_INT64_LEN];
    u_char *p;

    p = ngx_sprintf(buf, "{\"limit\":%uL,\"offset\":", rq->q.limit);
    ngx_http_chaindata_runes_add(&rq->body, buf, p - buf);
    ngx_http_chaindata_runes_add(&rq->body, rq->q.offset_text.data,
                                 rq->q.offset_text.len);
    p = ngx_sprintf(buf, ",\"total\":%uL,\"results\":[", total);
    ngx_http_chaindata_runes_add(&rq->body, buf, p - buf);
}


void
ngx_http_chaindata_runes_page_tail(ngx_http_chaindata_runes_req_t *rq)
{
    ngx_http_chaindata_runes_add_str(&rq->body, "]}");
}


void
ngx_http_chaindata_runes_next(ngx_http_chaindata_runes_req_t *rq,
    ngx_uint_t i)
{
    if (i) {
        ngx_http_chaindata_runes_add_str(&rq->body, ",");
    }
}


ngx_int_t
ngx_http_chaindata_runes_damaged(ngx_http_chaindata_runes_req_t *rq,
    chaindata_dbi_e db, const MDB_val *val)
{
    ngx_http_chaindata_log_damaged(rq->r->connection->log, db, val->mv_data,
                                   val->mv_size);
    return NGX_ERROR;
}


ngx_int_t
ngx_http_chaindata_runes_get(ngx_http_chaindata_runes_req_t *rq,
    chaindata_dbi_e db, const u_char *key, size_t key_len, MDB_val *val)
{
    int      rc;
    MDB_val  k;

    k.mv_data = (void *) key;
    k.mv_size = key_len;

    rc = mdb_get(rq->txn, rq->dbi[db], &k, val);

    if (rc == MDB_NOTFOUND) {
        return NGX_DECLINED;
    }

    if (rc != 0) {
        ngx_log_error(NGX_LOG_ERR, rq->r->connection->log, 0,
                      "chaindata: reading \"%s\": %s", chaindata_db_names[db],
                      mdb_strerror(rc));
        return NGX_ERROR;
    }

    return NGX_OK;
}


MDB_cursor *
ngx_http_chaindata_runes_cursor(ngx_http_chaindata_runes_req_t *rq,
    chaindata_dbi_e db)
{
    int          rc;
    MDB_cursor  *cur;

    rc = mdb_cursor_open(rq->txn, rq->dbi[db], &cur);

    if (rc != 0) {
        ngx_log_error(NGX_LOG_ERR, rq->r->connection->log, 0,
                      "chaindata: a cursor of \"%s\": %s",
                      chaindata_db_names[db], mdb_strerror(rc));
        return NULL;
    }

    return cur;
}


/* the ETag of the answer: the runes state, the path, its parameters */

static ngx_int_t
ngx_http_chaindata_runes_etag(ngx_http_chaindata_runes_req_t *rq,
    ngx_uint_t gzip, ngx_str_t *etag)
{
    u_char          *p;
    u_char           state[CHAINDATA_RUNE_STATE_LEN];
    u_char           key[1], digest[CHAINDATA_RUNE_STATE_LEN];
    MDB_val          val;
    ngx_int_t        rc;

    key[0] = CHAINDATA_RUNE_BLOCK_STATE;

    rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_BLOCK, key, 1,
                                      &val);
    if (rc == NGX_ERROR) {
        return NGX_ERROR;
    }

    ngx_memzero(state, CHAINDATA_RUNE_STATE_LEN);

    if (rc == NGX_OK) {
        if (val.mv_size != CHAINDATA_RUNE_STATE_LEN) {
            return ngx_http_chaindata_runes_damaged(rq,
                                                    CHAINDATA_DBI_RUNE_BLOCK,
                                                    &val);
        }

        ngx_memcpy(state, val.mv_data, CHAINDATA_RUNE_STATE_LEN);
    }

    chaindata_runes_etag(digest, state,
                         chaindata_route_names[rq->path->desc.metrics],
                         rq->params->param, rq->params->n,
                         rq->page ? &rq->q.offset_text : NULL, rq->q.limit);

    p = ngx_http_chaindata_etag_begin(rq->r, etag, digest, 0);
    if (p == NULL) {
        return NGX_ERROR;
    }

    ngx_http_chaindata_etag_end(etag, p, gzip);

    return NGX_OK;
}


/*
 * What the index cannot tell: NGX_DONE with reply->untold when the runes
 * history is not whole (the request is a miss), NGX_OK when it is.
 */

static ngx_int_t
ngx_http_chaindata_runes_untold(ngx_http_chaindata_runes_req_t *rq,
    ngx_http_chaindata_reply_t *reply)
{
    if (ngx_http_chaindata_miss_history(rq->r, rq->path->desc.feed, reply)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    return reply->untold ? NGX_DONE : NGX_OK;
}


/*
 * In the read transaction: the status of the answer and its body, or
 * NGX_DONE for a miss the index cannot tell (reply->untold).  A list
 * derived from blocks is a miss whenever the history is not whole.
 */

static ngx_int_t
ngx_http_chaindata_runes_read(ngx_http_chaindata_runes_req_t *rq,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_int_t  rc;

    rq->txn = ngx_http_chaindata_store_txn(&rq->dbi);

    if (!(rq->path->desc.flags & CHAINDATA_ROUTE_SERVES_WHOLE)) {
        rc = ngx_http_chaindata_runes_untold(rq, reply);
        if (rc != NGX_OK) {
            return rc;
        }
    }

    rc = ngx_http_chaindata_runes_etag(rq, reply->gzip, &reply->etag);
    if (rc != NGX_OK) {
        return rc;
    }

    reply->status = NGX_HTTP_OK;

    rc = rq->read(rq);

    if (rc != NGX_DECLINED) {
        return rc;
    }

    if (rq->path->desc.flags & CHAINDATA_ROUTE_SERVES_WHOLE) {
        rc = ngx_http_chaindata_runes_untold(rq, reply);
        if (rc != NGX_OK) {
            return rc;
        }
    }

    /* the whole history holds nothing of it: upstream's answer too */
    rq->body.len = 0;

    if (rq->page) {
        ngx_http_chaindata_runes_page_head(rq, 0);
        ngx_http_chaindata_runes_page_tail(rq);
        return NGX_OK;
    }

    reply->status = NGX_HTTP_NOT_FOUND;
    ngx_http_chaindata_runes_add_str(&rq->body,
                                     NGX_HTTP_CHAINDATA_RUNES_NOT_FOUND);

    return NGX_OK;
}


/* the answer made: its conditionals, its encoding, then sent */

static ngx_int_t
ngx_http_chaindata_runes_send(ngx_http_chaindata_runes_req_t *rq,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_int_t            rc;
    ngx_str_t            body;
    ngx_http_request_t  *r;

    r = rq->r;

    if (!ngx_http_chaindata_if_match(r, &reply->etag)) {
        return ngx_http_chaindata_send_status(r,
                                              NGX_HTTP_PRECONDITION_FAILED);
    }

    if (ngx_http_chaindata_if_none_match(r, &reply->etag)
        != NGX_HTTP_CHAINDATA_NO_MATCH)
    {
        if (ngx_http_chaindata_set_encoding(r, 0) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        return ngx_http_chaindata_send_not_modified(r, &reply->etag,
                   NGX_HTTP_CHAINDATA_MATCH, NGX_HTTP_CHAINDATA_CACHE_PUBLIC);
    }

    body.data = rq->body.data;
    body.len = rq->body.len;

    if (reply->gzip
        && ngx_http_chaindata_gzip_body(r->pool, &body) != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (ngx_http_chaindata_set_encoding(r, reply->gzip) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    /* a HEAD's body is not sent: it takes nothing of the budget */
    rc = (r->method == NGX_HTTP_HEAD) ? NGX_OK
                                      : ngx_http_chaindata_budget_take(r,
                                                                  body.len);

    if (rc == NGX_BUSY) {
        return ngx_http_chaindata_send_busy(r);
    }

    if (rc != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_json(r, reply->status, &body,
                                        &reply->etag,
                                        NGX_HTTP_CHAINDATA_CACHE_PUBLIC);
}


ngx_int_t
ngx_http_chaindata_runes_answer(ngx_http_chaindata_runes_req_t *rq)
{
    ngx_int_t                    rc;
    chaindata_query_t            query;
    chaindata_target_e           target;
    ngx_http_request_t          *r;
    ngx_http_chaindata_reply_t   reply;

    r = rq->r;

    if (rq->page) {
        if (ngx_http_chaindata_request_query(r, &query) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        target = chaindata_page_query(&query, &rq->q);

        if (target != CHAINDATA_TARGET_OK) {
            return ngx_http_chaindata_send_bad_target(r,
                       &ngx_http_chaindata_runes_route, target, &query);
        }
    }

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return ngx_http_chaindata_send_unavailable(r);
    }

    ngx_memzero(&reply, sizeof(ngx_http_chaindata_reply_t));
    reply.gzip = ngx_http_chaindata_request_takes_gzip(r);
    rq->body.pool = r->pool;

    rc = ngx_http_chaindata_runes_read(rq, &reply);

    ngx_http_chaindata_store_end();

    if (rc == NGX_DONE) {
        return ngx_http_chaindata_send_miss(r,
                                            &ngx_http_chaindata_runes_route,
                                            &reply);
    }

    if (rc != NGX_OK || rq->body.failed) {
        return ngx_http_chaindata_send_error(r,
                   NGX_HTTP_INTERNAL_SERVER_ERROR, NULL,
                   ngx_http_chaindata_runes_route.unreadable);
    }

    return ngx_http_chaindata_runes_send(rq, &reply);
}


ngx_int_t
ngx_http_chaindata_runes_serve(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params,
    ngx_http_chaindata_runes_read_pt read, void *data, ngx_uint_t page)
{
    ngx_http_chaindata_runes_req_t  rq;

    ngx_memzero(&rq, sizeof(ngx_http_chaindata_runes_req_t));
    rq.r = r;
    rq.path = path;
    rq.params = params;
    rq.read = read;
    rq.data = data;
    rq.page = page;

    return ngx_http_chaindata_runes_answer(&rq);
}


ngx_int_t
ngx_http_chaindata_runes_serve_etching(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params,
    ngx_http_chaindata_runes_read_pt read, ngx_uint_t page)
{
    chaindata_etching_t  e;

    chaindata_etching_param(&e, params->param[0].data, params->param[0].len);

    if (e.form == CHAINDATA_ETCHING_BAD || e.form == CHAINDATA_ETCHING_TOO_BIG)
    {
        return ngx_http_chaindata_runes_bad_etching(r, &e, &params->param[0]);
    }

    return ngx_http_chaindata_runes_serve(r, path, params, read, &e, page);
}
