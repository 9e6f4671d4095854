
/*
 * chaindata: the route template (see the header): what every route's
 * handler does with a request, above sending (ngx_http_chaindata_send.c).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_schema.h"
#include "ngx_http_chaindata_cors.h"
#include "ngx_http_chaindata_gzip.h"
#include "ngx_http_chaindata_metrics.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"
#include "ngx_http_chaindata_threads.h"


/* the index cannot be read right now (logged where it was found out) */

ngx_int_t
ngx_http_chaindata_send_unavailable(ngx_http_request_t *r)
{
    ngx_str_t  retry = ngx_string("1");

    ngx_http_chaindata_metrics_unavailable(r,
        ngx_http_chaindata_store_readers_full()
        ? CHAINDATA_UNAVAILABLE_READERS_FULL
        : CHAINDATA_UNAVAILABLE_INDEX_UNREADABLE);

    if (ngx_http_chaindata_add_header(r, "Retry-After", &retry) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_error(r, NGX_HTTP_SERVICE_UNAVAILABLE,
               NULL, "the chain data index cannot be read right now");
}


/*
 * The bodies in flight take this worker's chaindata_body_budget
 * (doc/operations.md, "Memory"); one of them ends soon.
 */

ngx_int_t
ngx_http_chaindata_send_busy(ngx_http_request_t *r)
{
    ngx_str_t  retry = ngx_string("1");

    ngx_http_chaindata_metrics_unavailable(r,
                                           CHAINDATA_UNAVAILABLE_BODY_BUDGET);

    if (ngx_http_chaindata_add_header(r, "Retry-After", &retry) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_error(r, NGX_HTTP_SERVICE_UNAVAILABLE,
               NULL, "the server is busy sending other replies, retry in a "
               "moment");
}


ngx_int_t
ngx_http_chaindata_send_not_allowed(ngx_http_request_t *r)
{
    ngx_int_t  rc;
    ngx_str_t  allow = ngx_string("GET, HEAD");

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    /* a browser's preflight, with chaindata_cors on */
    rc = ngx_http_chaindata_cors_preflight(r);
    if (rc != NGX_DECLINED) {
        return rc;
    }

    if (ngx_http_chaindata_add_header(r, "Allow", &allow) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_error(r, NGX_HTTP_NOT_ALLOWED, NULL,
               "only GET and HEAD are served here");
}


/*
 * A 400 of the route: without Cache-Control where upstream sends none
 * (route->invalid_bare: its validator answers before the hook that sets
 * "no-store", stacks-blockchain-api 9.0.2 src/api/init.ts:159-167).
 */

ngx_int_t
ngx_http_chaindata_send_invalid(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, const char *message)
{
    ngx_http_chaindata_json_t  j;

    if (ngx_http_chaindata_json_init(&j, r->pool) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_http_chaindata_error_members(&j, NGX_HTTP_BAD_REQUEST, route->code,
                                     message);
    ngx_http_chaindata_json_map_close(&j);

    return ngx_http_chaindata_send_json_done(r, &j, NGX_HTTP_BAD_REQUEST,
               route->invalid_bare ? NULL : NGX_HTTP_CHAINDATA_CACHE_NONE);
}


/*
 * The answer to a request target the route's parser refused: a path of
 * another shape is a 404, a bad path parameter or query a 400 with the
 * upstream validation message.
 */

ngx_int_t
ngx_http_chaindata_send_bad_target(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, chaindata_target_e target,
    chaindata_query_t *query)
{
    switch (target) {

    case CHAINDATA_TARGET_NO_ROUTE:
        return ngx_http_chaindata_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                                             route->no_route);

    case CHAINDATA_TARGET_BAD_PARAM:
        return ngx_http_chaindata_send_invalid(r, route, route->invalid);

    case CHAINDATA_TARGET_BAD_QUERY:
        return ngx_http_chaindata_send_invalid(r, route,
                   ngx_http_chaindata_query_message(r, query));

    default:
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }
}


/*
 * Whether a lookup's miss is upstream's answer too (the whole history of
 * its chain), or why the index cannot tell: the 503's message, from the
 * request's pool (lmdb-schema/feed.md, "The history a feed holds").
 */

ngx_int_t
ngx_http_chaindata_miss_history(ngx_http_request_t *r, ngx_int_t feed,
    ngx_http_chaindata_reply_t *reply)
{
    u_char                       *p;
    size_t                        len;
    chaindata_history_t           h;
    const chaindata_feed_desc_t  *chain;

    reply->untold = NULL;
    reply->untold_why = CHAINDATA_UNAVAILABLE_NO_HISTORY;

    if (feed == CHAINDATA_ROUTE_NO_FEED) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: a miss of a route whose line in "
                      "chaindata_routes.h names no feed");
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_store_history(r->connection->log,
                                         (chaindata_history_source_e) feed,
                                         &h)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (chaindata_history_whole(&h)) {
        return NGX_OK;
    }

    chain = &chaindata_feeds[feed];

    len = sizeof("the index's  feed holds blocks from  on, not from the "
                 "chain's first (): what this request names may be in an "
                 "earlier block") + ngx_strlen(chain->source)
          + 2 * NGX_INT64_LEN;

    p = ngx_pnalloc(r->pool, len);
    if (p == NULL) {
        return NGX_ERROR;
    }

    reply->untold = (const char *) p;

    switch (h.kind) {

    case CHAINDATA_HISTORY_PARTIAL:
        p = ngx_sprintf(p, "the index's %s feed holds blocks from %uL on, "
                        "not from the chain's first (%uL): what this "
                        "request names may be in an earlier block",
                        chain->source, h.first, chain->chain_first);
        break;

    case CHAINDATA_HISTORY_EMPTY:
        p = ngx_sprintf(p, "the index's %s feed has no block yet: it "
                        "cannot tell what upstream holds", chain->source);
        break;

    default:
        p = ngx_sprintf(p, "the index holds no %s feed: it cannot tell "
                        "what upstream holds", chain->source);
        break;
    }

    *p = '\0';

    return NGX_OK;
}


/*
 * A record the index does not hold, with chaindata_miss_fallback: the
 * request goes to that named location as it came (README.md, "In front of
 * upstream"); nothing of this route's answer was set yet.  Without one,
 * a 404, or a 503 saying why when the index cannot tell (untold).
 */

ngx_int_t
ngx_http_chaindata_send_miss(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route,
    const ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    if (lcf->miss_fallback.len == 0 && reply->untold) {
        ngx_http_chaindata_metrics_unavailable(r, reply->untold_why);

        return ngx_http_chaindata_send_error(r, NGX_HTTP_SERVICE_UNAVAILABLE,
                                             NULL, reply->untold);
    }

    if (lcf->miss_fallback.len == 0) {
        return ngx_http_chaindata_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                                             route->not_found);
    }

    ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "chaindata: not in the index, to \"%V\"",
                   &lcf->miss_fallback);

    ngx_http_chaindata_metrics_fallback(r);

    return ngx_http_named_location(r, &lcf->miss_fallback);
}


/*
 * The body of a 200, unless the request is HEAD: its length is all the
 * headers need, and nothing is copied.  NGX_BUSY: chaindata_body_budget
 * has no room for it now.
 */

static ngx_int_t
ngx_http_chaindata_reply_body(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    u_char     *p;
    ngx_int_t   rc;

    if (route->size(r, ctx, reply) != NGX_OK) {
        return NGX_ERROR;
    }

    if (r->header_only || (r == r->main && r->method == NGX_HTTP_HEAD)) {
        ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                       "chaindata: HEAD, a body of %uz bytes not made",
                       reply->body.len);
        return NGX_OK;
    }

    rc = ngx_http_chaindata_budget_take(r, reply->body.len);
    if (rc != NGX_OK) {
        return rc;
    }

    reply->body.data = ngx_pnalloc(r->pool, reply->body.len);
    if (reply->body.data == NULL) {
        return NGX_ERROR;
    }

    p = route->write(ctx, reply->body.data);

    if (p == NULL) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: a stored piece does not match its "
                      "CRC-32s (damaged)");
        return NGX_ERROR;
    }

    if ((size_t) (p - reply->body.data) != reply->body.len) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: a body of %uz bytes was written in %uz",
                      reply->body.len, (size_t) (p - reply->body.data));
        return NGX_ERROR;
    }

    return NGX_OK;
}


/*
 * The record the route's description names (record->mv_data NULL when
 * there is none), decoded by the route's lookup.
 */

static ngx_int_t
ngx_http_chaindata_lookup(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx, MDB_val *record,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_int_t  rc;

    rc = ngx_http_chaindata_store_read(r->connection->log, r->pool,
                                       reply->read, record, reply->at);

    if (rc != NGX_OK) {
        record->mv_data = NULL;
        record->mv_size = 0;

        if (rc == NGX_ERROR) {
            return NGX_ERROR;
        }
    }

    return route->lookup(r, ctx, rc == NGX_OK ? record : NULL, reply);
}


/*
 * What the index says, in the read transaction: the status, and the body
 * of a 200.  If-Match before If-None-Match (RFC 9110, 13.2.2); both only
 * where a 200 would be.
 */

static ngx_int_t
ngx_http_chaindata_read_reply(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx, MDB_val *record,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_int_t  rc;

    if (ngx_http_chaindata_lookup(r, route, ctx, record, reply) != NGX_OK) {
        return NGX_ERROR;
    }

    if (reply->status != NGX_HTTP_OK) {
        return NGX_OK;
    }

    if (!ngx_http_chaindata_if_match(r, &reply->etag)) {
        reply->status = NGX_HTTP_PRECONDITION_FAILED;
        return NGX_OK;
    }

    if (reply->etag.len) {
        reply->match = ngx_http_chaindata_if_none_match(r, &reply->etag);

        if (reply->match != NGX_HTTP_CHAINDATA_NO_MATCH) {
            reply->status = NGX_HTTP_NOT_MODIFIED;
            return NGX_OK;
        }
    }

    rc = ngx_http_chaindata_reply_body(r, route, ctx, reply);

    if (rc == NGX_BUSY) {
        reply->status = NGX_HTTP_SERVICE_UNAVAILABLE;
        return NGX_OK;
    }

    return rc;
}


/*
 * The one way a route reads the index: the read transaction always ends
 * before anything is sent.  An index that cannot be read now is a 503
 * (ngx_http_chaindata_store_begin() logs why), and so is a body the
 * budget has no room for.
 */

ngx_int_t
ngx_http_chaindata_read_and_reply(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx)
{
    MDB_val                        record;
    ngx_int_t                      rc;
    ngx_http_chaindata_read_t      read;
    ngx_http_chaindata_reply_t     reply;
    ngx_http_chaindata_hint_key_t  key;

    route->describe(ctx, &read);
    key.hashed = 0;

    /* a read likely to fault goes to chaindata_threads' pool first */
    if (ngx_http_chaindata_threads_post(r, &read, &key) == NGX_DONE) {
        return NGX_DONE;
    }

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return ngx_http_chaindata_send_unavailable(r);
    }

    ngx_memzero(&reply, sizeof(ngx_http_chaindata_reply_t));
    reply.read = &read;
    reply.gzip = route->pieces && ngx_http_chaindata_request_takes_gzip(r);

    rc = ngx_http_chaindata_read_reply(r, route, ctx, &record, &reply);

    ngx_http_chaindata_threads_note(&read, &key, reply.at);

    ngx_http_chaindata_store_end();

    if (rc == NGX_OK && route->pieces
        && (reply.status == NGX_HTTP_OK
            || reply.status == NGX_HTTP_NOT_MODIFIED))
    {
        /* each encoding has its ETag: nginx's gzip weakens none of them */
        reply.match = NGX_HTTP_CHAINDATA_MATCH;

        if (ngx_http_chaindata_set_encoding(r, reply.status == NGX_HTTP_OK
                                               && reply.gzip)
            != NGX_OK)
        {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
    }

    if (rc == NGX_OK && reply.fixed) {
        /* an answer the record itself makes (a v3 mempool transaction) */
        return ngx_http_chaindata_send_json(r, reply.status, &reply.body,
                                            &reply.etag,
                                            reply.cache_control
                                            ? reply.cache_control
                                            : route->cache_control);
    }

    if (rc == NGX_OK) {
        switch (reply.status) {

        case NGX_HTTP_OK:
            return ngx_http_chaindata_send_json(r, NGX_HTTP_OK, &reply.body,
                                                &reply.etag,
                                                route->cache_control);

        case NGX_HTTP_NOT_MODIFIED:
            return ngx_http_chaindata_send_not_modified(r, &reply.etag,
                                                        reply.match,
                                                        route->cache_control);

        case NGX_HTTP_PRECONDITION_FAILED:
            return ngx_http_chaindata_send_status(r, reply.status);

        case NGX_HTTP_NOT_FOUND:
            return ngx_http_chaindata_send_miss(r, route, &reply);

        case NGX_HTTP_SERVICE_UNAVAILABLE:
            return ngx_http_chaindata_send_busy(r);
        }
    }

    return ngx_http_chaindata_send_error(r, NGX_HTTP_INTERNAL_SERVER_ERROR,
                                         NULL, route->unreadable);
}


/*
 * For a request answered otherwise (the redirect of a transaction id
 * without "0x"): a 304 when its If-None-Match names the ETag the route's
 * lookup gives, as the route itself would answer; NGX_DECLINED when it
 * does not, or when that cannot be told (nothing stored, the index
 * unreadable now).  *etag is that ETag when there is one, else empty.
 */

ngx_int_t
ngx_http_chaindata_not_modified_as(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx, ngx_str_t *etag)
{
    MDB_val                     record;
    ngx_int_t                   rc;
    ngx_http_chaindata_read_t   read;
    ngx_http_chaindata_reply_t  reply;

    ngx_str_null(etag);

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return NGX_DECLINED;
    }

    route->describe(ctx, &read);

    ngx_memzero(&reply, sizeof(ngx_http_chaindata_reply_t));
    reply.read = &read;
    reply.gzip = route->pieces && ngx_http_chaindata_request_takes_gzip(r);

    rc = ngx_http_chaindata_lookup(r, route, ctx, &record, &reply);

    ngx_http_chaindata_store_end();

    if (rc != NGX_OK || reply.status != NGX_HTTP_OK || reply.etag.len == 0) {
        return NGX_DECLINED;
    }

    *etag = reply.etag;

    if (r->headers_in.if_none_match == NULL) {
        return NGX_DECLINED;
    }

    reply.match = ngx_http_chaindata_if_none_match(r, &reply.etag);

    if (reply.match == NGX_HTTP_CHAINDATA_NO_MATCH) {
        return NGX_DECLINED;
    }

    if (route->pieces) {
        reply.match = NGX_HTTP_CHAINDATA_MATCH;

        if (ngx_http_chaindata_set_encoding(r, 0) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
    }

    return ngx_http_chaindata_send_not_modified(r, &reply.etag, reply.match,
                                                route->cache_control);
}


void
ngx_http_chaindata_log_damaged(ngx_log_t *log, chaindata_dbi_e db,
    const u_char *data, size_t size)
{
    ngx_log_error(NGX_LOG_ALERT, log, 0,
                  "chaindata: a \"%s\" record is damaged "
                  "(format %d, %uz bytes)",
                  chaindata_db_names[db], size ? *data : -1, size);
}


ngx_int_t
ngx_http_chaindata_request_query(ngx_http_request_t *r,
    chaindata_query_t *q)
{
    u_char  *buf;

    buf = NULL;

    if (r->args.len) {
        buf = ngx_pnalloc(r->pool, r->args.len);
        if (buf == NULL) {
            return NGX_ERROR;
        }
    }

    chaindata_query_init(q, r->args.data, r->args.len, buf);

    return NGX_OK;
}


/* "querystring/NAME must be integer", "… must be >= N" and so on */

const char *
ngx_http_chaindata_query_message(ngx_http_request_t *r,
    chaindata_query_t *q)
{
    u_char      *msg;
    size_t       len;
    const char  *what;

    switch (q->rc) {

    case CHAINDATA_ARG_TOO_SMALL:
        what = "must be >=";
        break;

    case CHAINDATA_ARG_TOO_LARGE:
        what = "must be <=";
        break;

    case CHAINDATA_ARG_NOT_BOOLEAN:
        what = "must be boolean";
        break;

    default:
        what = "must be integer";
        break;
    }

    len = sizeof("querystring/") + ngx_strlen(q->name) + ngx_strlen(what)
          + NGX_INT64_LEN + 2;

    msg = ngx_pnalloc(r->pool, len);
    if (msg == NULL) {
        return "invalid query";
    }

    if (q->rc == CHAINDATA_ARG_TOO_SMALL
        || q->rc == CHAINDATA_ARG_TOO_LARGE)
    {
        ngx_sprintf(msg, "querystring/%s %s %uL%Z", q->name, what, q->bound);

    } else {
        ngx_sprintf(msg, "querystring/%s %s%Z", q->name, what);
    }

    return (const char *) msg;
}
