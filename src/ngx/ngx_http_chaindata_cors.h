
/*
 * chaindata: CORS (ngx_http_chaindata_cors.c).
 */


#ifndef _NGX_HTTP_CHAINDATA_CORS_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_CORS_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>


ngx_int_t ngx_http_chaindata_cors_init(ngx_conf_t *cf);
ngx_int_t ngx_http_chaindata_cors_preflight(ngx_http_request_t *r);


#endif /* _NGX_HTTP_CHAINDATA_CORS_H_INCLUDED_ */
