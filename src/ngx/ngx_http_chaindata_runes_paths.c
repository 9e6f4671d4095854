
/*
 * chaindata: chaindata_runes' family handler (doc/module.md,
 * "chaindata_runes"): the request's decoded path under one of the Runes
 * API's prefixes, matched against the templates of the paths' lines
 * (src/core/chaindata_routes.h, CHAINDATA_PATH_LIST); the request is
 * counted under the path it is, and that path's handler answers it.  A
 * path of none is fastify's 404, as upstream answers it.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_path.h"
#include "ngx_http_chaindata_metrics.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_runes.h"


/* upstream mounts its routes under both (api/runes/src/api/init.ts) */
static const char *const  ngx_http_chaindata_runes_prefixes[] = {
    "/runes", "/runes/v1", NULL
};


/*
 * fastify's answer to a path it has no route for, its method and target
 * as the request gave them
 */

static ngx_int_t
ngx_http_chaindata_runes_no_route(ngx_http_request_t *r)
{
    u_char     *p;
    size_t      len;
    ngx_str_t   body;

    len = r->unparsed_uri.len
          + ngx_escape_json(NULL, r->unparsed_uri.data, r->unparsed_uri.len);

    p = ngx_pnalloc(r->pool, sizeof("{\"message\":\"Route : not found\","
                                    "\"error\":\"Not Found\","
                                    "\"statusCode\":404}")
                             + r->method_name.len + len);
    if (p == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    body.data = p;
    p = ngx_sprintf(p, "{\"message\":\"Route %V:", &r->method_name);
    p = (u_char *) ngx_escape_json(p, r->unparsed_uri.data,
                                   r->unparsed_uri.len);
    p = ngx_cpymem(p, " not found\",\"error\":\"Not Found\","
                   "\"statusCode\":404}",
                   sizeof(" not found\",\"error\":\"Not Found\","
                          "\"statusCode\":404}") - 1);
    body.len = p - body.data;

    return ngx_http_chaindata_send_json(r, NGX_HTTP_NOT_FOUND, &body, NULL,
                                        NGX_HTTP_CHAINDATA_CACHE_NONE);
}


ngx_int_t
ngx_http_chaindata_runes_handler(ngx_http_request_t *r)
{
    ngx_int_t                         rc;
    chaindata_span_t                  rest;
    chaindata_path_params_t           params;
    ngx_http_chaindata_loc_conf_t    *lcf;
    const ngx_http_chaindata_path_t  *path;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    path = NULL;

    if (chaindata_path_prefix(ngx_http_chaindata_runes_prefixes,
                              r->uri.data, r->uri.len, &rest)
        == 0)
    {
        path = ngx_http_chaindata_path_find(lcf->route, rest.data, rest.len,
                                            &params);
    }

    if (path == NULL) {
        rc = ngx_http_discard_request_body(r);
        if (rc != NGX_OK) {
            return rc;
        }

        return ngx_http_chaindata_runes_no_route(r);
    }

    ngx_http_chaindata_metrics_path(r, path->desc.metrics);

    if (!ngx_http_chaindata_method_allowed(r)) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    return path->handler(r, path, &params);
}
