
/*
 * chaindata_status: how current and how full the index is (README
 * "Keeping the index current"), as JSON, or in the Prometheus text format
 * with ?format=prometheus.  Counts, sizes and feed positions only: never
 * any key or chainhook data.  The gathering and the formatting are
 * src/core/chaindata_status.c, shared with chaindata-load --stats.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_status.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"


ngx_int_t
ngx_http_chaindata_status_handler(ngx_http_request_t *r)
{
    char                *text;
    ngx_int_t            rc;
    ngx_str_t            format, body;
    ngx_uint_t           prometheus;
    chaindata_status_t  *st;

    if (!ngx_http_chaindata_method_allowed(r)) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    prometheus = ngx_http_arg(r, (u_char *) "format", 6, &format) == NGX_OK
                 && format.len == 10
                 && ngx_strncmp(format.data, "prometheus", 10) == 0;

    st = ngx_palloc(r->pool, sizeof(chaindata_status_t));
    if (st == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return ngx_http_chaindata_send_unavailable(r);
    }

    rc = ngx_http_chaindata_store_status(r->connection->log, st);
    ngx_http_chaindata_store_end();

    if (rc != NGX_OK) {
        return ngx_http_chaindata_send_unavailable(r);
    }

    text = chaindata_status_format(st, (uint64_t) ngx_time(), prometheus);
    if (text == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    body.len = ngx_strlen(text);
    body.data = ngx_pnalloc(r->pool, body.len);

    if (body.data == NULL) {
        free(text);
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_memcpy(body.data, text, body.len);
    free(text);

    return ngx_http_chaindata_send_body(r, NGX_HTTP_OK, &body, NULL,
               NGX_HTTP_CHAINDATA_CACHE_NONE,
               prometheus ? "text/plain; version=0.0.4; charset=utf-8"
                          : NGX_HTTP_CHAINDATA_CONTENT_TYPE);
}
