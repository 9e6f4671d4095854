
/*
 * chaindata: the bodies the workers hold, counted in a shared zone
 * (ngx_http_chaindata_budget.c).
 */


#ifndef _NGX_HTTP_CHAINDATA_BUDGET_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_BUDGET_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_module.h"


ngx_int_t ngx_http_chaindata_budget_conf(ngx_conf_t *cf,
    ngx_http_chaindata_main_conf_t *mcf);
void ngx_http_chaindata_budget_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf);
void ngx_http_chaindata_budget_done(void);


#endif /* _NGX_HTTP_CHAINDATA_BUDGET_H_INCLUDED_ */
