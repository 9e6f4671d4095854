
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


static ngx_int_t
ngx_http_chaindata_status_send(ngx_http_request_t *r, ngx_str_t *body,
    ngx_uint_t prometheus)
{
    ngx_int_t     rc;
    ngx_buf_t    *b;
    ngx_str_t     no_store = ngx_string("no-store");
    ngx_chain_t   out;

    r->headers_out.status = NGX_HTTP_OK;
    r->headers_out.content_length_n = body->len;

    if (prometheus) {
        ngx_str_set(&r->headers_out.content_type,
                    "text/plain; version=0.0.4; charset=utf-8");
        r->headers_out.content_type_len = sizeof("text/plain") - 1;

    } else {
        ngx_str_set(&r->headers_out.content_type,
                    "application/json; charset=utf-8");
        r->headers_out.content_type_len = sizeof("application/json") - 1;
    }

    if (ngx_http_chaindata_add_header(r, "Cache-Control", &no_store)
        != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    rc = ngx_http_send_header(r);

    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only) {
        return rc;
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

    return ngx_http_chaindata_status_send(r, &body, prometheus);
}
