
/*
 * chaindata: CORS on the routes' answers (doc/module.md, "chaindata_cors"), as
 * upstream's Fastify servers send it by default.  stacks-blockchain-api 9.0.2
 * registers @fastify/cors 11.2.0 with { exposedHeaders: ['X-API-Version']
 * } (src/api/init.ts:157); the Runes API with its defaults (api-toolkit,
 * src/fastify/fastify.ts).  @fastify/cors 11.2.0 (index.js:9-21 its defaults,
 * 159-266 what it sends), in its onRequest hook, so on every answer:
 *
 *   Access-Control-Allow-Origin: *    (origin '*': no Vary: Origin)
 *   Access-Control-Expose-Headers: X-API-Version    (the Stacks API only)
 *
 * and to an OPTIONS request (a browser's preflight) instead of the route:
 * 400 "Invalid Preflight Request" without an Origin or an
 * Access-Control-Request-Method header (strictPreflight), else 204 with
 *
 *   Access-Control-Allow-Methods: GET, HEAD
 *   Vary: Access-Control-Request-Headers
 *   Access-Control-Allow-Headers: (the request's
 *                                  Access-Control-Request-Headers)
 *
 * Differences (doc/api.md table): the methods are the route's (upstream
 * lists cors' default GET,HEAD,POST), the 204 carries no Content-Length
 * (RFC 9110 8.6; nginx removes it), the 400 is the JSON error shape.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_cors.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_send.h"


static ngx_http_output_header_filter_pt  ngx_http_chaindata_cors_next;

static ngx_str_t  ngx_http_chaindata_cors_origin = ngx_string("*");
static ngx_str_t  ngx_http_chaindata_cors_expose = ngx_string("X-API-Version");
static ngx_str_t  ngx_http_chaindata_cors_methods = ngx_string("GET, HEAD");
static ngx_str_t  ngx_http_chaindata_cors_vary =
    ngx_string("Access-Control-Request-Headers");

/* stacks-blockchain-api 9.0.2 src/api/deprecation-plugin.ts, its text */
static ngx_str_t  ngx_http_chaindata_v1_warning = ngx_string(
    "299 - \"Deprecated: See https://docs.hiro.so/stacks/api for more "
    "information\"");


/*
 * The location's configuration when it answers with CORS: chaindata_cors
 * on, and a chaindata route (or its chaindata_error location) served
 * there; else NULL.
 */

static ngx_http_chaindata_loc_conf_t *
ngx_http_chaindata_cors_conf(ngx_http_request_t *r)
{
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    if (!lcf->cors || (lcf->route->flags & CHAINDATA_ROUTE_NO_CORS)) {
        return NULL;
    }

    return lcf;
}


static ngx_table_elt_t *
ngx_http_chaindata_cors_request_header(ngx_http_request_t *r,
    const char *name)
{
    size_t            len;
    ngx_uint_t        i;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    len = ngx_strlen(name);
    part = &r->headers_in.headers.part;
    h = part->elts;

    for (i = 0; /* void */; i++) {

        if (i >= part->nelts) {
            if (part->next == NULL) {
                return NULL;
            }

            part = part->next;
            h = part->elts;
            i = 0;
        }

        if (h[i].key.len == len
            && ngx_strncasecmp(h[i].key.data, (u_char *) name, len) == 0)
        {
            return &h[i];
        }
    }
}


/*
 * Every answer of a location that serves a chaindata route, whatever its
 * status, and of its chaindata_error location; never of another
 * location's (a proxied answer carries upstream's own).
 */

static ngx_int_t
ngx_http_chaindata_cors_header_filter(ngx_http_request_t *r)
{
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    /* upstream's v1 transaction route is deprecated: every answer says so */
    if (r == r->main && (lcf->route->flags & CHAINDATA_ROUTE_WARNS_V1)
        && ngx_http_chaindata_add_header(r, "Warning",
                                         &ngx_http_chaindata_v1_warning)
           != NGX_OK)
    {
        return NGX_ERROR;
    }

    lcf = ngx_http_chaindata_cors_conf(r);

    if (r != r->main || lcf == NULL) {
        return ngx_http_chaindata_cors_next(r);
    }

    if (ngx_http_chaindata_add_header(r, "Access-Control-Allow-Origin",
                                      &ngx_http_chaindata_cors_origin)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    if ((lcf->route->flags & CHAINDATA_ROUTE_CORS_STACKS)
        && ngx_http_chaindata_add_header(r, "Access-Control-Expose-Headers",
                                         &ngx_http_chaindata_cors_expose)
           != NGX_OK)
    {
        return NGX_ERROR;
    }

    return ngx_http_chaindata_cors_next(r);
}


/*
 * An OPTIONS request to a route, with chaindata_cors on: the preflight's
 * answer (the filter adds Access-Control-Allow-Origin).  NGX_DECLINED
 * with CORS off: the route's 405.
 */

ngx_int_t
ngx_http_chaindata_cors_preflight(ngx_http_request_t *r)
{
    ngx_table_elt_t  *headers;

    /* not an error page's 405 (chaindata_error answers it as nginx's) */
    if (r->method != NGX_HTTP_OPTIONS || r->err_status
        || ngx_http_chaindata_cors_conf(r) == NULL)
    {
        return NGX_DECLINED;
    }

    if (ngx_http_chaindata_cors_request_header(r, "Origin") == NULL
        || ngx_http_chaindata_cors_request_header(r,
               "Access-Control-Request-Method") == NULL)
    {
        return ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST, NULL,
                                             "Invalid Preflight Request");
    }

    if (ngx_http_chaindata_add_header(r, "Access-Control-Allow-Methods",
                                      &ngx_http_chaindata_cors_methods)
        != NGX_OK
        || ngx_http_chaindata_add_header(r, "Vary",
                                         &ngx_http_chaindata_cors_vary)
           != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    /* echoed as cors does: a request header's value, one line, no CR/LF */
    headers = ngx_http_chaindata_cors_request_header(r,
                  "Access-Control-Request-Headers");

    if (headers
        && ngx_http_chaindata_add_header(r,
               "Access-Control-Allow-Headers", &headers->value)
           != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_empty(r, NGX_HTTP_NO_CONTENT);
}


ngx_int_t
ngx_http_chaindata_cors_init(ngx_conf_t *cf)
{
    ngx_http_chaindata_cors_next = ngx_http_top_header_filter;
    ngx_http_top_header_filter = ngx_http_chaindata_cors_header_filter;

    return NGX_OK;
}
