
/*
 * chaindata: the deprecated endpoints' directives and what their handler
 * (ngx_http_chaindata_migration.c) and the writer of their bodies
 * (ngx_http_chaindata_migration_body.c) share; the handler is declared
 * with the other routes' (ngx_http_chaindata_routes.h).
 */


#ifndef _NGX_HTTP_CHAINDATA_MIGRATION_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_MIGRATION_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_migration_map.h"
#include "ngx_http_chaindata_module.h"


/*
 * 410, 308 and the table change only with the configuration: caches may
 * keep them an hour (410 and 308 are cacheable by default, RFC 9111 4.2.2,
 * and would otherwise be kept for as long as a cache sees fit).
 */
#define NGX_HTTP_CHAINDATA_MIG_CACHE        "public, max-age=3600"


/* what one request matched, and where it leads */
typedef struct {
    const chaindata_mig_row_t  *row;
    chaindata_mig_match_t       match;
    ngx_str_t                   path;      /* replacement, escaped */
    ngx_str_t                   url;       /* absolute, or empty */
    ngx_str_t                   alt_path;
    ngx_str_t                   alt_url;
    chaindata_mig_names_t       unsupported;
    chaindata_mig_names_t       ignored;
} ngx_http_chaindata_mig_t;


/* ngx_http_chaindata_migration.c */
char *ngx_http_chaindata_migration_base(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_chaindata_merge_migration(ngx_conf_t *cf,
    ngx_http_chaindata_loc_conf_t *prev, ngx_http_chaindata_loc_conf_t *conf);
ngx_str_t *ngx_http_chaindata_mig_base(ngx_http_chaindata_loc_conf_t *lcf,
    const chaindata_mig_row_t *row);
ngx_int_t ngx_http_chaindata_mig_url(ngx_pool_t *pool, ngx_str_t *base,
    ngx_str_t *path, ngx_str_t *url);

/* ngx_http_chaindata_migration_body.c */
ngx_int_t ngx_http_chaindata_mig_send_gone(ngx_http_request_t *r,
    ngx_http_chaindata_loc_conf_t *lcf, ngx_http_chaindata_mig_t *m);
ngx_int_t ngx_http_chaindata_mig_send_table(ngx_http_request_t *r,
    ngx_http_chaindata_loc_conf_t *lcf);


#endif /* _NGX_HTTP_CHAINDATA_MIGRATION_H_INCLUDED_ */
