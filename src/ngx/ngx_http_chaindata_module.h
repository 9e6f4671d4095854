
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
    ngx_int_t    max_readers;     /* chaindata_max_readers */
    void        *thread_pool;     /* chaindata_threads, or NULL */
    ngx_int_t    thread_nice;     /* chaindata_threads nice= */
    ngx_uint_t   handlers;        /* locations that read the index */
    ngx_uint_t   chainhook;       /* of them, chainhook status locations */
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


/* the CORS headers of a location's answers (ngx_http_chaindata_cors.c) */
typedef enum {
    NGX_HTTP_CHAINDATA_CORS_NONE = 0,   /* no route here, chaindata_status */
    NGX_HTTP_CHAINDATA_CORS_ROUTE,      /* the Runes API's, the others' */
    NGX_HTTP_CHAINDATA_CORS_STACKS      /* the Stacks API's: X-API-Version */
} ngx_http_chaindata_cors_e;


/* a date that is not set (NGX_CONF_UNSET is "not configured") */
#define NGX_HTTP_CHAINDATA_NO_DATE  ((time_t) -2)

/*
 * The deprecation of the Bitcoin-layer routes, at 00:00:00 UTC: announced
 * 6 February 2026, effective 9 March 2026 (doc/module.md,
 * chaindata_deprecation and the 410 body).  The effective date is
 * chaindata_deprecation's default.
 */
#define NGX_HTTP_CHAINDATA_DEPRECATION_ANNOUNCED  1770336000
#define NGX_HTTP_CHAINDATA_DEPRECATION_EFFECTIVE  1773014400


typedef struct {
    time_t       deprecation;     /* chaindata_deprecation */
    time_t       sunset;          /* chaindata_sunset */
    ngx_str_t    deprecation_link;
    ngx_str_t    successor_link;

    ngx_flag_t   migration;       /* chaindata_migration here */
    ngx_flag_t   migration_redirect;
    ngx_str_t    migration_base;
    ngx_str_t    migration_base_brc20;

    size_t       body_budget;     /* chaindata_body_budget */

    ngx_flag_t   cors;            /* chaindata_cors */
    ngx_uint_t   cors_route;      /* this location's, not inherited */
    ngx_uint_t   deprecated_v1;   /* v1's Warning: 299 (not inherited) */
    ngx_uint_t   route;           /* chaindata_route_e of this location's
                                     handler, CHAINDATA_ROUTES: none (not
                                     inherited) */
    ngx_str_t    miss_fallback;   /* chaindata_miss_fallback: "@name" */
} ngx_http_chaindata_loc_conf_t;


/* chaindata_body_budget's default: bodies the workers hold at a time */
#define NGX_HTTP_CHAINDATA_BODY_BUDGET  (256 * 1024 * 1024)


extern ngx_module_t  ngx_http_chaindata_module;


/* ngx_http_chaindata_tx.c */
ngx_int_t ngx_http_chaindata_tx_handler(ngx_http_request_t *r);
/* a 302 to the request's path with "0x" before the id, then tail */
ngx_int_t ngx_http_chaindata_tx_add_prefix(ngx_http_request_t *r,
    const u_char *id, size_t len, const char *tail, ngx_str_t *etag);

/* ngx_http_chaindata_tx_v3.c */
ngx_int_t ngx_http_chaindata_tx_v3_handler(ngx_http_request_t *r);

/* ngx_http_chaindata_runes.c */
ngx_int_t ngx_http_chaindata_rune_activity_handler(ngx_http_request_t *r);
ngx_int_t ngx_http_chaindata_rune_balances_handler(ngx_http_request_t *r);

/* ngx_http_chaindata_chainhook.c */
ngx_int_t ngx_http_chaindata_chainhook_handler(ngx_http_request_t *r);

/* ngx_http_chaindata_redact.c */
ngx_int_t ngx_http_chaindata_redact_add_variables(ngx_conf_t *cf);
ngx_int_t ngx_http_chaindata_redact_init(ngx_conf_t *cf);

/* ngx_http_chaindata_budget.c */
ngx_int_t ngx_http_chaindata_budget_conf(ngx_conf_t *cf,
    ngx_http_chaindata_main_conf_t *mcf);
void ngx_http_chaindata_budget_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf);
void ngx_http_chaindata_budget_done(void);

/* ngx_http_chaindata_redact_log.c */
ngx_int_t ngx_http_chaindata_redact_log_note(ngx_conf_t *cf,
    ngx_http_chaindata_main_conf_t *mcf);
ngx_int_t ngx_http_chaindata_redact_log_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf);
void ngx_http_chaindata_redact_log_done(void);

/* ngx_http_chaindata_error.c */
ngx_int_t ngx_http_chaindata_error_handler(ngx_http_request_t *r);

/* ngx_http_chaindata_deprecation.c */
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

/* ngx_http_chaindata_cors.c */
ngx_int_t ngx_http_chaindata_cors_init(ngx_conf_t *cf);
ngx_int_t ngx_http_chaindata_cors_preflight(ngx_http_request_t *r);

/* ngx_http_chaindata_status.c */
ngx_int_t ngx_http_chaindata_status_handler(ngx_http_request_t *r);

/* ngx_http_chaindata_migration.c */
ngx_int_t ngx_http_chaindata_migration_handler(ngx_http_request_t *r);
char *ngx_http_chaindata_migration_base(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_chaindata_merge_migration(ngx_conf_t *cf,
    ngx_http_chaindata_loc_conf_t *prev, ngx_http_chaindata_loc_conf_t *conf);

#endif /* _NGX_HTTP_CHAINDATA_MODULE_H_INCLUDED_ */
