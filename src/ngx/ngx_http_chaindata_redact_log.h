
/*
 * chaindata: the error logs' writer that hides API keys
 * (ngx_http_chaindata_redact_log.c).
 */


#ifndef _NGX_HTTP_CHAINDATA_REDACT_LOG_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_REDACT_LOG_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_module.h"


ngx_int_t ngx_http_chaindata_redact_log_note(ngx_conf_t *cf,
    ngx_http_chaindata_main_conf_t *mcf);
ngx_int_t ngx_http_chaindata_redact_log_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf);
void ngx_http_chaindata_redact_log_done(void);


#endif /* _NGX_HTTP_CHAINDATA_REDACT_LOG_H_INCLUDED_ */
