
/*
 * chaindata: sending (see the header).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_send.h"


/*
 * Every status an error body can carry: the reason phrase of Node's
 * http.STATUS_CODES, as fastify sends it in "error" (and chaindata_error
 * in the status line), and the fixed message of chaindata_error.  405
 * has its message where the Allow header is added, in
 * ngx_http_chaindata_send_not_allowed() (ngx_http_chaindata_reply.c).
 */

typedef struct {
    ngx_uint_t    status;
    const char   *reason;
    const char   *message;
} ngx_http_chaindata_status_text_t;


static ngx_http_chaindata_status_text_t  ngx_http_chaindata_status_texts[] = {
    { NGX_HTTP_BAD_REQUEST, "Bad Request",
      "the request could not be understood" },
    { NGX_HTTP_UNAUTHORIZED, "Unauthorized",
      "authentication is required" },
    { NGX_HTTP_FORBIDDEN, "Forbidden",
      "access to this resource is forbidden" },
    { NGX_HTTP_NOT_FOUND, "Not Found",
      "Route not found" },
    { NGX_HTTP_NOT_ALLOWED, "Method Not Allowed",
      NULL },
    { NGX_HTTP_REQUEST_TIME_OUT, "Request Timeout",
      "the request was not received in time" },
    { NGX_HTTP_CHAINDATA_GONE, "Gone",
      "the resource is no longer available" },
    { NGX_HTTP_LENGTH_REQUIRED, "Length Required",
      "a request body needs a Content-Length" },
    { NGX_HTTP_PRECONDITION_FAILED, "Precondition Failed",
      "a precondition of the request does not hold" },
    { NGX_HTTP_REQUEST_ENTITY_TOO_LARGE, "Payload Too Large",
      "the request body is too large" },
    { NGX_HTTP_REQUEST_URI_TOO_LARGE, "URI Too Long",
      "the request target is too long" },
    { NGX_HTTP_RANGE_NOT_SATISFIABLE, "Range Not Satisfiable",
      "the requested range cannot be served" },
    { NGX_HTTP_TOO_MANY_REQUESTS, "Too Many Requests",
      "too many requests, slow down" },
    { NGX_HTTP_CHAINDATA_HEADER_TOO_LARGE, "Request Header Fields Too Large",
      "the request headers are too large" },
    { NGX_HTTP_INTERNAL_SERVER_ERROR, "Internal Server Error",
      "the request could not be served" },
    { NGX_HTTP_NOT_IMPLEMENTED, "Not Implemented",
      "the request needs a feature this server does not have" },
    { NGX_HTTP_BAD_GATEWAY, "Bad Gateway",
      "an upstream server failed" },
    { NGX_HTTP_SERVICE_UNAVAILABLE, "Service Unavailable",
      "the service is unavailable right now" },
    { NGX_HTTP_GATEWAY_TIME_OUT, "Gateway Timeout",
      "an upstream server did not answer in time" },
    { NGX_HTTP_VERSION_NOT_SUPPORTED, "HTTP Version Not Supported",
      "this HTTP version is not served" },
    { 0, NULL, NULL }
};


/* the statuses of no row: other 4xx, other 5xx */
static ngx_http_chaindata_status_text_t  ngx_http_chaindata_client_error =
    { 0, "Client Error", "the request cannot be served" };

static ngx_http_chaindata_status_text_t  ngx_http_chaindata_server_error =
    { 0, "Server Error", "the request could not be served" };


static ngx_http_chaindata_status_text_t *
ngx_http_chaindata_status_text(ngx_uint_t status)
{
    ngx_http_chaindata_status_text_t  *t;

    for (t = ngx_http_chaindata_status_texts; t->status; t++) {
        if (t->status == status) {
            return t;
        }
    }

    return status < NGX_HTTP_INTERNAL_SERVER_ERROR
           ? &ngx_http_chaindata_client_error
           : &ngx_http_chaindata_server_error;
}


const char *
ngx_http_chaindata_reason(ngx_uint_t status)
{
    return ngx_http_chaindata_status_text(status)->reason;
}


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


/*
 * The body of an error status: the fixed text chaindata_error answers it
 * with; the routes answer their own 412 with it too.
 */

ngx_int_t
ngx_http_chaindata_send_status(ngx_http_request_t *r, ngx_uint_t status)
{
    return ngx_http_chaindata_send_error(r, status, NULL,
               ngx_http_chaindata_status_text(status)->message);
}
