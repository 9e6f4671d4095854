
/*
 * chaindata: the memory a worker holds for replies in flight (README,
 * "Operations", memory).  A reply's body is assembled in its request's
 * pool and stays there until the request ends, however slowly the client
 * reads it; the bytes of those bodies are counted per worker, and a new
 * body that would take the count over chaindata_body_budget is refused
 * (503, Retry-After: 1).  A body alone is always served, even one larger
 * than the budget, so that no document becomes unservable.
 *
 *     chaindata_body_budget  SIZE;    (default 256m)
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


/* this worker's: the bytes of bodies held by its unfinished requests */
static size_t  ngx_http_chaindata_body_held;


static void
ngx_http_chaindata_budget_release(void *data)
{
    size_t  *size = data;

    ngx_http_chaindata_body_held -= *size;
}


ngx_int_t
ngx_http_chaindata_budget_take(ngx_http_request_t *r, size_t size)
{
    size_t                         *held;
    ngx_pool_cleanup_t             *cln;
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    if (ngx_http_chaindata_body_held
        && ngx_http_chaindata_body_held + size > lcf->body_budget)
    {
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "chaindata: a body of %uz bytes is over "
                      "\"chaindata_body_budget\" %uz: %uz bytes are held "
                      "by replies in flight", size, lcf->body_budget,
                      ngx_http_chaindata_body_held);
        return NGX_BUSY;
    }

    /* given back when the request's pool goes, sent or not */
    cln = ngx_pool_cleanup_add(r->pool, sizeof(size_t));
    if (cln == NULL) {
        return NGX_ERROR;
    }

    held = cln->data;
    *held = size;
    cln->handler = ngx_http_chaindata_budget_release;

    ngx_http_chaindata_body_held += size;

    ngx_log_debug2(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "chaindata: a body of %uz bytes, %uz held in all",
                   size, ngx_http_chaindata_body_held);

    return NGX_OK;
}
