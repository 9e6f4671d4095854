
/*
 * chaindata: JSON bodies for the errors nginx answers itself, before or
 * instead of a route's handler (a request line it cannot parse, a target
 * or headers too large, a body too large, a method it refuses, a rate
 * limit, a 500), with the texts of the error statuses
 * (ngx_http_chaindata_send.c):
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

    if (status == NGX_HTTP_NOT_ALLOWED) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    return ngx_http_chaindata_send_status(r, status);
}
