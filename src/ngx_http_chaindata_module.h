
/*
 * chaindata: what the module's files share.
 */


#ifndef _NGX_HTTP_CHAINDATA_MODULE_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_MODULE_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>


typedef struct {
    ngx_str_t    db;              /* chaindata_db */
    ngx_uint_t   handlers;        /* locations that read the index */
} ngx_http_chaindata_main_conf_t;


extern ngx_module_t  ngx_http_chaindata_module;


ngx_int_t ngx_http_chaindata_tx_handler(ngx_http_request_t *r);


#endif /* _NGX_HTTP_CHAINDATA_MODULE_H_INCLUDED_ */
