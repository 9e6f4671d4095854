
/*
 * chaindata: the chainhook route's API keys kept out of logs and caches
 * (ngx_http_chaindata_redact.c).
 */


#ifndef _NGX_HTTP_CHAINDATA_REDACT_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_REDACT_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>


ngx_int_t ngx_http_chaindata_redact_add_variables(ngx_conf_t *cf);
ngx_int_t ngx_http_chaindata_redact_init(ngx_conf_t *cf);


#endif /* _NGX_HTTP_CHAINDATA_REDACT_H_INCLUDED_ */
