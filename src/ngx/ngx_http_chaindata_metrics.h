
/*
 * chaindata: the traffic counters in shared memory and the health limits
 * of chaindata_status (ngx_http_chaindata_metrics.c; doc/operations.md
 * "Monitoring").
 */


#ifndef _NGX_HTTP_CHAINDATA_METRICS_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_METRICS_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_metrics.h"


/* counts a 503 of the module, by reason */
void ngx_http_chaindata_metrics_unavailable(ngx_http_request_t *r,
    chaindata_unavailable_e reason);

/*
 * a miss of r's route goes to chaindata_miss_fallback: its answer is
 * counted as the route's fallback, and $chaindata_fallback names the route
 */
void ngx_http_chaindata_metrics_fallback(ngx_http_request_t *r);

/*
 * r is counted under route (chaindata_route_e), the path its family's
 * handler found, not its location's
 */
void ngx_http_chaindata_metrics_path(ngx_http_request_t *r,
    ngx_uint_t route);

/* counts an index renamed over the one open that could not be opened */
void ngx_http_chaindata_metrics_swap_refused(void);

/* a copy of the counters: NGX_OK, or NGX_DECLINED with chaindata_metrics off */
ngx_int_t ngx_http_chaindata_metrics_copy(ngx_http_request_t *r,
    chaindata_metrics_t *m);

/* chaindata_status_max_behind and _max_lag of r's location (0: off) */
void ngx_http_chaindata_metrics_health(ngx_http_request_t *r,
    uint64_t *max_behind, uint64_t *max_lag);


#endif /* _NGX_HTTP_CHAINDATA_METRICS_H_INCLUDED_ */
