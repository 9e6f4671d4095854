
/*
 * chaindata: JSON replies and request helpers (see the header).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_schema.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_gzip.h"
#include "ngx_http_chaindata_metrics.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"
#include "ngx_http_chaindata_threads.h"




ngx_table_elt_t *
ngx_http_chaindata_push_header(ngx_http_request_t *r, const char *name,
    ngx_str_t *value)
{
    ngx_table_elt_t  *h;

    h = ngx_list_push(&r->headers_out.headers);
    if (h == NULL) {
        return NULL;
    }

    h->hash = 1;
    h->key.data = (u_char *) name;
    h->key.len = ngx_strlen(name);
    h->value = *value;
#if (nginx_version >= 1023000)
    h->next = NULL;
#endif

    return h;
}


ngx_int_t
ngx_http_chaindata_add_header(ngx_http_request_t *r, const char *name,
    ngx_str_t *value)
{
    return ngx_http_chaindata_push_header(r, name, value) ? NGX_OK
                                                          : NGX_ERROR;
}


static ngx_int_t
ngx_http_chaindata_set_cache(ngx_http_request_t *r, ngx_str_t *etag,
    const char *cache_control)
{
    ngx_str_t         cc;
    ngx_table_elt_t  *h;

    if (etag && etag->len) {
        h = ngx_http_chaindata_push_header(r, "ETag", etag);
        if (h == NULL) {
            return NGX_ERROR;
        }

        r->headers_out.etag = h;
    }

    if (cache_control) {
        cc.data = (u_char *) cache_control;
        cc.len = ngx_strlen(cache_control);

        if (ngx_http_chaindata_add_header(r, "Cache-Control", &cc) != NGX_OK) {
            return NGX_ERROR;
        }
    }

    return NGX_OK;
}


/*
 * A body of NULL data (HEAD) sends the headers of that body alone: its
 * length, and what the filters make of it (gzip among them) as for GET.
 */

ngx_int_t
ngx_http_chaindata_send_json(ngx_http_request_t *r, ngx_uint_t status,
    ngx_str_t *body, ngx_str_t *etag, const char *cache_control)
{
    return ngx_http_chaindata_send_body(r, status, body, etag, cache_control,
                                        NGX_HTTP_CHAINDATA_CONTENT_TYPE);
}


ngx_int_t
ngx_http_chaindata_send_body(ngx_http_request_t *r, ngx_uint_t status,
    ngx_str_t *body, ngx_str_t *etag, const char *cache_control,
    const char *content_type)
{
    u_char       *semi;
    ngx_int_t     rc;
    ngx_buf_t    *b;
    ngx_chain_t   out;

    if (status == NGX_HTTP_OK && !ngx_http_chaindata_if_match(r, etag)) {
        return ngx_http_chaindata_send_status(r,
                                              NGX_HTTP_PRECONDITION_FAILED);
    }

    /* the conditionals are evaluated here (conditional.c), not by nginx */
    r->disable_not_modified = 1;

    r->headers_out.status = status;
    r->headers_out.content_length_n = body->len;
    r->headers_out.content_type.data = (u_char *) content_type;
    r->headers_out.content_type.len = ngx_strlen(content_type);
    semi = ngx_strlchr(r->headers_out.content_type.data,
                       r->headers_out.content_type.data
                       + r->headers_out.content_type.len, ';');
    r->headers_out.content_type_len = semi
        ? (size_t) (semi - r->headers_out.content_type.data)
        : r->headers_out.content_type.len;
    r->headers_out.content_type_lowcase = NULL;

    if (ngx_http_chaindata_set_cache(r, etag, cache_control) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (body->len == 0) {
        r->header_only = 1;
    }

    rc = ngx_http_send_header(r);

    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only) {
        return rc;
    }

    if (body->data == NULL) {
        /* no body was made: only for HEAD, whose header sets header_only */
        return NGX_ERROR;
    }

    b = ngx_calloc_buf(r->pool);
    if (b == NULL) {
        return NGX_ERROR;
    }

    b->pos = body->data;
    b->last = body->data + body->len;
    b->memory = 1;
    b->last_buf = (r == r->main) ? 1 : 0;
    b->last_in_chain = 1;

    out.buf = b;
    out.next = NULL;

    return ngx_http_output_filter(r, &out);
}


/* the body written with j, sent as it is */

ngx_int_t
ngx_http_chaindata_send_json_done(ngx_http_request_t *r,
    ngx_http_chaindata_json_t *j, ngx_uint_t status, const char *cache_control)
{
    ngx_str_t  body;

    if (ngx_http_chaindata_json_done(j, &body) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_json(r, status, &body, NULL, cache_control);
}


/*
 * Opens {"statusCode":N[,"code":C],"error":"Reason","message":M}, the
 * shape the upstream (fastify) services answer errors with; the caller
 * may add members before it closes the map.
 */

void
ngx_http_chaindata_error_members(ngx_http_chaindata_json_t *j,
    ngx_uint_t status, const char *code, const char *message)
{
    ngx_http_chaindata_json_map_open(j);
    ngx_http_chaindata_json_key(j, "statusCode");
    ngx_http_chaindata_json_int(j, status);

    if (code) {
        ngx_http_chaindata_json_key(j, "code");
        ngx_http_chaindata_json_key(j, code);
    }

    ngx_http_chaindata_json_key(j, "error");
    ngx_http_chaindata_json_key(j, ngx_http_chaindata_reason(status));
    ngx_http_chaindata_json_key(j, "message");
    ngx_http_chaindata_json_key(j, message);
}


ngx_int_t
ngx_http_chaindata_send_error(ngx_http_request_t *r, ngx_uint_t status,
    const char *code, const char *message)
{
    ngx_http_chaindata_json_t  j;

    if (ngx_http_chaindata_json_init(&j, r->pool) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_http_chaindata_error_members(&j, status, code, message);
    ngx_http_chaindata_json_map_close(&j);

    return ngx_http_chaindata_send_json_done(r, &j, status,
                                             NGX_HTTP_CHAINDATA_CACHE_NONE);
}


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

static ngx_int_t
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


/*
 * Whether nginx's gzip filter would compress a 200 to this request, as
 * far as the request tells (Accept-Encoding, gzip_http_version,
 * gzip_proxied, gzip_disable); "gzip on" is the filter's own to know.
 */

static ngx_uint_t
ngx_http_chaindata_gzip_filter_compresses(ngx_http_request_t *r)
{
#if (NGX_HTTP_GZIP)
    return ngx_http_gzip_ok(r) == NGX_OK;
#else
    return 0;
#endif
}


/*
 * A 304 carries the ETag the 200 would have carried.  nginx's gzip
 * filter weakens the ETag of what it compresses (W/"tag"), so a 304 is
 * W/"tag" when the client names W/"tag" (it holds a compressed copy) and
 * would be sent one again; otherwise the ETag as it is (doc/api.md,
 * "Conditionals").
 */

ngx_int_t
ngx_http_chaindata_send_not_modified(ngx_http_request_t *r, ngx_str_t *etag,
    ngx_http_chaindata_match_e match, const char *cache_control)
{
    ngx_str_t  weak;

    if (match == NGX_HTTP_CHAINDATA_MATCH_WEAK && etag->len
        && ngx_http_chaindata_gzip_filter_compresses(r))
    {
        weak.len = 2 + etag->len;
        weak.data = ngx_pnalloc(r->pool, weak.len);
        if (weak.data == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        ngx_memcpy(ngx_cpymem(weak.data, "W/", 2), etag->data, etag->len);
        etag = &weak;
    }

    r->disable_not_modified = 1;

    /*
     * "Content-Length: 0" to HEAD, as upstream's Fastify answers HEAD
     * (lib/head-route.js: a reply without a payload), none to GET
     */
    r->headers_out.status = NGX_HTTP_NOT_MODIFIED;
    r->headers_out.content_length_n = (r->method == NGX_HTTP_HEAD) ? 0 : -1;
    r->header_only = 1;

    if (ngx_http_chaindata_set_cache(r, etag, cache_control) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_send_header(r);
}


/*
 * A relative Location, as upstream sends it: the header is added as is,
 * not through headers_out.location, which nginx would make absolute.
 * Any redirect status; the caller makes *location safe for a header.  A
 * relative Location never begins with two slashes, or a slash and a
 * backslash, which clients read as another host: a path "//host/..." (as
 * nginx passes it with merge_slashes off) or "/\host/..." (browsers take
 * a backslash for a slash).  The slashes and backslashes it begins with
 * become one slash.
 */

ngx_int_t
ngx_http_chaindata_send_location(ngx_http_request_t *r, ngx_uint_t status,
    ngx_str_t *location, const char *cache_control)
{
    ngx_str_t  safe;

    safe = *location;

    while (safe.len > 1 && safe.data[0] == '/'
           && (safe.data[1] == '/' || safe.data[1] == '\\'))
    {
        safe.data++;
        safe.len--;
        safe.data[0] = '/';
    }

    if (ngx_http_chaindata_add_header(r, "Location", &safe) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (ngx_http_chaindata_set_cache(r, NULL, cache_control) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_empty(r, status);
}


/* an answer without a body (a redirect, a preflight's 204) */

ngx_int_t
ngx_http_chaindata_send_empty(ngx_http_request_t *r, ngx_uint_t status)
{
    r->headers_out.status = status;
    r->headers_out.content_length_n = 0;
    r->header_only = 1;

    return ngx_http_send_header(r);
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
 * "no-store", stacks-blockchain-api src/api/init.ts:159-167).
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
ngx_http_chaindata_miss_history(ngx_http_request_t *r,
    chaindata_history_source_e source, ngx_http_chaindata_reply_t *reply)
{
    u_char                          *p;
    size_t                           len;
    chaindata_history_t              h;
    const chaindata_history_feed_t  *feed;

    reply->untold = NULL;

    if (ngx_http_chaindata_store_history(r->connection->log, source, &h)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (chaindata_history_whole(&h)) {
        return NGX_OK;
    }

    feed = &chaindata_history_feeds[source];

    len = sizeof("the index's  feed holds blocks from  on, not from the "
                 "chain's first (): what this request names may be in an "
                 "earlier block") + ngx_strlen(feed->source)
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
                        feed->source, h.first, feed->chain_first);
        break;

    case CHAINDATA_HISTORY_EMPTY:
        p = ngx_sprintf(p, "the index's %s feed has no block yet: it "
                        "cannot tell what upstream holds", feed->source);
        break;

    default:
        p = ngx_sprintf(p, "the index holds no %s feed: it cannot tell "
                        "what upstream holds", feed->source);
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

static ngx_int_t
ngx_http_chaindata_miss(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, const char *untold)
{
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    if (lcf->miss_fallback.len == 0 && untold) {
        ngx_http_chaindata_metrics_unavailable(r,
                                            CHAINDATA_UNAVAILABLE_NO_HISTORY);

        return ngx_http_chaindata_send_error(r, NGX_HTTP_SERVICE_UNAVAILABLE,
                                             NULL, untold);
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
                      "chaindata: a stored piece does not inflate to its "
                      "length and CRC-32 (damaged)");
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
 * What the index says, in the read transaction: the status, and the body
 * of a 200.  If-Match before If-None-Match (RFC 9110, 13.2.2); both only
 * where a 200 would be.
 */

static ngx_int_t
ngx_http_chaindata_read_reply(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_int_t  rc;

    if (route->lookup(r, ctx, reply) != NGX_OK) {
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
    ngx_int_t                         rc;
    ngx_http_chaindata_reply_t        reply;
    ngx_http_chaindata_threads_key_t  key;

    key.hashed = 0;

    /* a lookup likely to fault goes to chaindata_threads' pool first */
    if (ngx_http_chaindata_threads_post(r, route, ctx, &key) == NGX_DONE) {
        return NGX_DONE;
    }

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return ngx_http_chaindata_send_unavailable(r);
    }

    ngx_memzero(&reply, sizeof(ngx_http_chaindata_reply_t));
    reply.gzip = route->pieces && ngx_http_chaindata_request_takes_gzip(r);

    rc = ngx_http_chaindata_read_reply(r, route, ctx, &reply);

    ngx_http_chaindata_threads_note(r, route, ctx, &key);

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
            return ngx_http_chaindata_miss(r, route, reply.untold);

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
    ngx_int_t                   rc;
    ngx_http_chaindata_reply_t  reply;

    ngx_str_null(etag);

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return NGX_DECLINED;
    }

    ngx_memzero(&reply, sizeof(ngx_http_chaindata_reply_t));
    reply.gzip = route->pieces && ngx_http_chaindata_request_takes_gzip(r);

    rc = route->lookup(r, ctx, &reply);

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
