
/*
 * chaindata: the module's configuration, which its files share; each
 * file's functions are declared in its own header.
 */


#ifndef _NGX_HTTP_CHAINDATA_MODULE_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_MODULE_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_routes.h"


typedef struct {
    ngx_str_t    db;              /* chaindata_db */
    ngx_int_t    max_readers;     /* chaindata_max_readers */
    void        *thread_pool;     /* chaindata_threads, or NULL */
    ngx_int_t    thread_nice;     /* chaindata_threads nice= */
    ngx_uint_t   handlers;        /* locations that read the index */
    ngx_uint_t   chainhook;       /* of them, those whose paths carry a key */
    ngx_uint_t   chains;          /* the chains the routes serve, 1 << each
                                     chaindata_history_source_e */
    ngx_array_t  error_logs;      /* ngx_log_t *: the servers' and locations' */
    ngx_array_t  fallbacks;       /* ngx_http_chaindata_fallback_t */
    ngx_shm_zone_t  *budget_zone; /* chaindata_body_budget's counts */
} ngx_http_chaindata_main_conf_t;


/* a chaindata_miss_fallback, checked once the named locations are known */
typedef struct {
    ngx_str_t                  name;
    ngx_http_core_srv_conf_t  *cscf;
    ngx_str_t                  file;
    ngx_uint_t                 line;
} ngx_http_chaindata_fallback_t;


/* a date that is not set (NGX_CONF_UNSET is "not configured") */
#define NGX_HTTP_CHAINDATA_NO_DATE  ((time_t) -2)


typedef struct {
    time_t       deprecation;     /* chaindata_deprecation */
    time_t       sunset;          /* chaindata_sunset */
    ngx_str_t    deprecation_link;
    ngx_str_t    successor_link;

    ngx_flag_t   migration_redirect;
    ngx_str_t    migration_base;
    ngx_str_t    migration_base_brc20;

    size_t       body_budget;     /* chaindata_body_budget */

    ngx_flag_t   cors;            /* chaindata_cors */

    /* the route served here, or ngx_http_chaindata_no_route (not inherited) */
    const ngx_http_chaindata_route_desc_t  *route;

    ngx_str_t    miss_fallback;   /* chaindata_miss_fallback: "@name" */
} ngx_http_chaindata_loc_conf_t;


/* chaindata_body_budget's default: bodies the workers hold at a time */
#define NGX_HTTP_CHAINDATA_BODY_BUDGET  (256 * 1024 * 1024)


extern ngx_module_t  ngx_http_chaindata_module;


#endif /* _NGX_HTTP_CHAINDATA_MODULE_H_INCLUDED_ */
