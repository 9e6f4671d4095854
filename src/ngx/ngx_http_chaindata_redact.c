
/*
 * chaindata: what keeps the API keys of the chainhook route out of logs
 * and caches (doc/operations.md, keeping API keys out of logs), for
 * every request of every server once a location serves the route:
 *
 *   $chaindata_redacted_uri     the request URI with the key as "***"
 *   $chaindata_api_key_digest   16 hex digits of the key's SHA-256
 *
 * the request line (what $request and error log lines show) redacted the
 * same way before any other module sees it, and Cache-Control: no-store
 * on every response of the route and to any path that carries a key.
 * What other modules log of the path, the error logs' writer hides
 * (ngx_http_chaindata_redact_log.c).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_chainhook_path.h"
#include "chaindata_layout.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_redact.h"
#include "ngx_http_chaindata_reply.h"


#define NGX_HTTP_CHAINDATA_LOG_DIGEST_LEN   8


static ngx_int_t ngx_http_chaindata_variable_redacted_uri(
    ngx_http_request_t *r, ngx_http_variable_value_t *v, uintptr_t data);
static ngx_int_t ngx_http_chaindata_variable_api_key_digest(
    ngx_http_request_t *r, ngx_http_variable_value_t *v, uintptr_t data);


static ngx_http_variable_t  ngx_http_chaindata_redact_vars[] = {

    /* not cached: in the route's locations it also depends on the location */
    { ngx_string("chaindata_redacted_uri"), NULL,
      ngx_http_chaindata_variable_redacted_uri, 0,
      NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("chaindata_api_key_digest"), NULL,
      ngx_http_chaindata_variable_api_key_digest, 0, 0, 0 },

      ngx_http_null_variable
};


static ngx_http_output_header_filter_pt  ngx_http_chaindata_next_header_filter;


/*
 * A copy of the request target with every key piece replaced by "***";
 * with "whole" set and no key piece found, the whole path is replaced.
 * NGX_DECLINED when there is nothing to replace.
 */

static ngx_int_t
ngx_http_chaindata_redact_uri(ngx_pool_t *pool, ngx_str_t *uri,
    ngx_uint_t whole, ngx_str_t *out)
{
    size_t  n;

    n = chaindata_key_pieces(uri->data, uri->len, NULL);

    if (n == 0 && !whole) {
        return NGX_DECLINED;
    }

    out->data = ngx_pnalloc(pool, CHAINDATA_REDACTED_SIZE(uri->len,
                                                          n));
    if (out->data == NULL) {
        return NGX_ERROR;
    }

    out->len = chaindata_redact(out->data, uri->data, uri->len, n);

    return NGX_OK;
}


static ngx_uint_t
ngx_http_chaindata_in_route(ngx_http_request_t *r)
{
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    return (lcf->route->flags & CHAINDATA_ROUTE_API_KEY) != 0;
}


static ngx_int_t
ngx_http_chaindata_variable_redacted_uri(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_int_t  rc;
    ngx_str_t  out;

    /* nothing of the target is known (a request line nginx refused) */
    if (r->unparsed_uri.len == 0) {
        v->not_found = 1;
        return NGX_OK;
    }

    rc = ngx_http_chaindata_redact_uri(r->pool, &r->unparsed_uri,
                                       ngx_http_chaindata_in_route(r), &out);

    if (rc == NGX_ERROR) {
        return NGX_ERROR;
    }

    if (rc == NGX_DECLINED) {
        out = r->unparsed_uri;
    }

    v->len = out.len;
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;
    v->data = out.data;

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_variable_api_key_digest(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_str_t         key;
    chaindata_span_t  raw;
    u_char            digest[CHAINDATA_KEY_DIGEST_LEN];

    if (r->unparsed_uri.len == 0
        || chaindata_key_pieces(r->unparsed_uri.data,
                                r->unparsed_uri.len, &raw) == 0
        || raw.len == 0)
    {
        v->not_found = 1;
        return NGX_OK;
    }

    key.data = ngx_pnalloc(r->pool, raw.len);
    if (key.data == NULL) {
        return NGX_ERROR;
    }

    key.len = chaindata_unescape(key.data, raw.data, raw.len);

    v->data = ngx_pnalloc(r->pool, 2 * NGX_HTTP_CHAINDATA_LOG_DIGEST_LEN);
    if (v->data == NULL) {
        return NGX_ERROR;
    }

    chaindata_key_digest(key.data, key.len, digest);
    ngx_hex_dump(v->data, digest, NGX_HTTP_CHAINDATA_LOG_DIGEST_LEN);

    ngx_explicit_memzero(key.data, key.len);

    v->len = 2 * NGX_HTTP_CHAINDATA_LOG_DIGEST_LEN;
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_redact_add_variables(ngx_conf_t *cf)
{
    ngx_http_variable_t  *var, *v;

    for (v = ngx_http_chaindata_redact_vars; v->name.len; v++) {
        var = ngx_http_add_variable(cf, &v->name, v->flags);
        if (var == NULL) {
            return NGX_ERROR;
        }

        var->get_handler = v->get_handler;
        var->data = v->data;
    }

    return NGX_OK;
}


/*
 * The request line (what $request and every error log line of the
 * request, as request: "...", show) with the key as "***".  The request
 * target itself ($request_uri, $uri) is left alone: routing and proxying
 * need it.
 */

static ngx_int_t
ngx_http_chaindata_redact_request_line(ngx_http_request_t *r,
    ngx_uint_t whole)
{
    u_char     *p, *line_end;
    ngx_int_t   rc;
    ngx_str_t   uri, line;

    if (r != r->main || r->unparsed_uri.len == 0) {
        return NGX_DECLINED;
    }

    rc = ngx_http_chaindata_redact_uri(r->pool, &r->unparsed_uri, whole, &uri);

    if (rc == NGX_DECLINED) {
        return NGX_DECLINED;
    }

    if (rc == NGX_ERROR) {
        /* better no answer than a key in the logs */
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    line_end = r->request_line.data + r->request_line.len;

    if (r->request_line.len
        && r->unparsed_uri.data >= r->request_line.data
        && r->unparsed_uri.data + r->unparsed_uri.len <= line_end)
    {
        /* HTTP/1: the target lies in the line, absolute-form or not */
        line.len = r->request_line.len - r->unparsed_uri.len + uri.len;

        line.data = ngx_pnalloc(r->pool, line.len);
        if (line.data == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        p = ngx_cpymem(line.data, r->request_line.data,
                       r->unparsed_uri.data - r->request_line.data);
        p = ngx_cpymem(p, uri.data, uri.len);
        ngx_memcpy(p, r->unparsed_uri.data + r->unparsed_uri.len,
                   line_end - (r->unparsed_uri.data + r->unparsed_uri.len));

    } else {
        /* HTTP/2 builds the line apart: method, target, protocol */
        line.len = r->method_name.len + 1 + uri.len
                   + (r->http_protocol.len ? 1 + r->http_protocol.len : 0);

        line.data = ngx_pnalloc(r->pool, line.len);
        if (line.data == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        p = ngx_cpymem(line.data, r->method_name.data, r->method_name.len);
        *p++ = ' ';
        p = ngx_cpymem(p, uri.data, uri.len);

        if (r->http_protocol.len) {
            *p++ = ' ';
            ngx_memcpy(p, r->http_protocol.data, r->http_protocol.len);
        }
    }

    r->request_line = line;

    return NGX_DECLINED;
}


/* post-read phase: before any module can log the line, on every server */

static ngx_int_t
ngx_http_chaindata_redact_line_early(ngx_http_request_t *r)
{
    return ngx_http_chaindata_redact_request_line(r, 0);
}


/*
 * Pre-access phase, ahead of limit_req and the access modules: in the
 * route's own locations a path of another shape, where no piece could
 * be told to be the key, is hidden whole (as $chaindata_redacted_uri
 * does).
 */

static ngx_int_t
ngx_http_chaindata_redact_line_in_route(ngx_http_request_t *r)
{
    if (!ngx_http_chaindata_in_route(r)
        || r->unparsed_uri.len == 0
        || chaindata_key_pieces(r->unparsed_uri.data,
                                r->unparsed_uri.len, NULL))
    {
        return NGX_DECLINED;
    }

    return ngx_http_chaindata_redact_request_line(r, 1);
}


/*
 * Cache-Control: no-store on every response of the route, and on any
 * response to a path that carries a key, whoever made it (limit_req's
 * 503, nginx's own error pages): such a response is per-key data.
 * Another Cache-Control already set is dropped.
 */

static ngx_int_t
ngx_http_chaindata_no_store(ngx_http_request_t *r)
{
    ngx_str_t         value = ngx_string(NGX_HTTP_CHAINDATA_CACHE_NONE);
    ngx_uint_t        i, found;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    found = 0;
    part = &r->headers_out.headers.part;
    h = part->elts;

    for (i = 0; /* void */; i++) {

        if (i >= part->nelts) {
            if (part->next == NULL) {
                break;
            }

            part = part->next;
            h = part->elts;
            i = 0;
        }

        if (h[i].hash == 0
            || h[i].key.len != sizeof("Cache-Control") - 1
            || ngx_strncasecmp(h[i].key.data, (u_char *) "Cache-Control",
                               sizeof("Cache-Control") - 1) != 0)
        {
            continue;
        }

        if (!found && h[i].value.len == value.len
            && ngx_strncmp(h[i].value.data, value.data, value.len) == 0)
        {
            found = 1;
            continue;
        }

        h[i].hash = 0;
    }

    if (found) {
        return NGX_OK;
    }

    return ngx_http_chaindata_add_header(r, "Cache-Control", &value);
}


static ngx_int_t
ngx_http_chaindata_redact_header_filter(ngx_http_request_t *r)
{
    if (r == r->main
        && (ngx_http_chaindata_in_route(r)
            || (r->unparsed_uri.len
                && chaindata_key_pieces(r->unparsed_uri.data,
                                        r->unparsed_uri.len,
                                        NULL))))
    {
        if (ngx_http_chaindata_no_store(r) != NGX_OK) {
            return NGX_ERROR;
        }
    }

    return ngx_http_chaindata_next_header_filter(r);
}


ngx_int_t
ngx_http_chaindata_redact_init(ngx_conf_t *cf)
{
    ngx_http_handler_pt        *h;
    ngx_http_core_main_conf_t  *cmcf;

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);

    h = ngx_array_push(&cmcf->phases[NGX_HTTP_POST_READ_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_chaindata_redact_line_early;

    /* a phase runs the handlers added last first: this one before limit_req */
    h = ngx_array_push(&cmcf->phases[NGX_HTTP_PREACCESS_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_chaindata_redact_line_in_route;

    ngx_http_chaindata_next_header_filter = ngx_http_top_header_filter;
    ngx_http_top_header_filter = ngx_http_chaindata_redact_header_filter;

    return NGX_OK;
}
