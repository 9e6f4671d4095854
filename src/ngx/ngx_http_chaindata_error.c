
/*
 * chaindata: the texts of the error statuses (the reason phrase every
 * error body carries), and JSON bodies for the errors nginx answers
 * itself, before or instead of a route's handler (a request line it
 * cannot parse, a target or headers too large, a body too large, a method
 * it refuses, a rate limit, a 500):
 *
 *     error_page 400 403 404 405 408 411 412 413 414 416 429
 *                500 501 502 503 504 505 /_chaindata/error;
 *     error_page 494 =431 /_chaindata/error;
 *
 *     location = /_chaindata/error {
 *         internal;
 *         chaindata_error;
 *     }
 *
 * Plain error_page (no "="), so that the status nginx chose is kept: it is
 * in r->err_status.  Except for 494, nginx's "headers too large", which a
 * plain error_page turns into 400: "=431" says it the standard way (and
 * as Node answers it).  An internal URI rather than a named location: nginx
 * refuses to send a request whose line it could not parse (no URI yet) to
 * a named location ("empty URI in redirect to named location") and would
 * answer its own 500 page.  The answer is the upstream (fastify) error
 * shape with a fixed message per status, never any part of the request,
 * and Cache-Control: no-store.  Nothing here reads the index.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


/*
 * Every status an error body can carry: the reason phrase of Node's
 * http.STATUS_CODES, as fastify sends it in "error" (and chaindata_error
 * in the status line), and the fixed message of chaindata_error.  405
 * has its message where the Allow header is added, in
 * ngx_http_chaindata_send_not_allowed().
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


/*
 * The status the client is told: nginx's own codes become the standard
 * ones (494, headers too large, is 431; 495-497, TLS errors, are 400 as
 * nginx answers them); no error at all (the location reached otherwise)
 * is 404.
 */

static ngx_uint_t
ngx_http_chaindata_error_status(ngx_http_request_t *r)
{
    ngx_uint_t  status;

    status = r->err_status ? r->err_status : r->headers_out.status;

    if (status == NGX_HTTP_REQUEST_HEADER_TOO_LARGE) {
        return NGX_HTTP_CHAINDATA_HEADER_TOO_LARGE;
    }

    if (status > NGX_HTTP_REQUEST_HEADER_TOO_LARGE
        && status < NGX_HTTP_INTERNAL_SERVER_ERROR)
    {
        return NGX_HTTP_BAD_REQUEST;
    }

    if (status < NGX_HTTP_BAD_REQUEST || status > 599) {
        return NGX_HTTP_NOT_FOUND;
    }

    return status;
}


ngx_int_t
ngx_http_chaindata_error_handler(ngx_http_request_t *r)
{
    u_char      *p;
    ngx_int_t    rc;
    ngx_uint_t   status;
    const char  *reason;

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    status = ngx_http_chaindata_error_status(r);
    reason = ngx_http_chaindata_reason(status);

    /* else ngx_http_send_header() puts it back and drops the status line */
    r->err_status = 0;

    /* a status line whose reason is the body's "error" (431 has none) */
    p = ngx_pnalloc(r->pool, NGX_INT_T_LEN + 1 + ngx_strlen(reason));
    if (p == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    r->headers_out.status_line.data = p;
    r->headers_out.status_line.len = ngx_sprintf(p, "%ui %s", status, reason)
                                     - p;

    return ngx_http_chaindata_send_status(r, status);
}


/*
 * The body of an error status: the fixed text chaindata_error answers it
 * with; the routes answer their own 412 with it too.
 */

ngx_int_t
ngx_http_chaindata_send_status(ngx_http_request_t *r, ngx_uint_t status)
{
    if (status == NGX_HTTP_NOT_ALLOWED) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    return ngx_http_chaindata_send_error(r, status, NULL,
               ngx_http_chaindata_status_text(status)->message);
}
