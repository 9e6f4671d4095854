
/*
 * chaindata: what the v1 transaction route (ngx_http_chaindata_tx.c) lends
 * the v3 one; its handler is declared with the other routes'
 * (ngx_http_chaindata_routes.h).
 */


#ifndef _NGX_HTTP_CHAINDATA_TX_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_TX_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>


/* a 302 to the request's path with "0x" before the id, then tail */
ngx_int_t ngx_http_chaindata_tx_add_prefix(ngx_http_request_t *r,
    const u_char *id, size_t len, const char *tail, ngx_str_t *etag);


#endif /* _NGX_HTTP_CHAINDATA_TX_H_INCLUDED_ */
