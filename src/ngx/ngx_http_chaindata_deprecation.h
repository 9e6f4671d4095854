
/*
 * chaindata: the deprecation headers and their directives
 * (ngx_http_chaindata_deprecation.c).
 */


#ifndef _NGX_HTTP_CHAINDATA_DEPRECATION_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_DEPRECATION_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_module.h"


/*
 * The deprecation of the Bitcoin-layer routes, at 00:00:00 UTC: announced
 * 6 February 2026, effective 9 March 2026 (doc/module.md,
 * chaindata_deprecation and the 410 body).  The effective date is
 * chaindata_deprecation's default.
 */
#define NGX_HTTP_CHAINDATA_DEPRECATION_ANNOUNCED  1770336000
#define NGX_HTTP_CHAINDATA_DEPRECATION_EFFECTIVE  1773014400


char *ngx_http_chaindata_deprecation(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_chaindata_sunset(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_chaindata_link(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_chaindata_merge_deprecation(ngx_conf_t *cf,
    ngx_http_chaindata_loc_conf_t *prev, ngx_http_chaindata_loc_conf_t *conf);
ngx_int_t ngx_http_chaindata_deprecation_headers(ngx_http_request_t *r);
ngx_int_t ngx_http_chaindata_deprecation_headers_with(ngx_http_request_t *r,
    ngx_str_t *successor);


#endif /* _NGX_HTTP_CHAINDATA_DEPRECATION_H_INCLUDED_ */
