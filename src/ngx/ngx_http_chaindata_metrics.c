
/*
 * chaindata: the traffic counters and the health limits (doc/operations.md
 * "Monitoring").  A module of its own beside ngx_http_chaindata_module,
 * so that its configuration stays out of the routes':
 *
 *   chaindata_metrics on | off;              http; default on
 *   chaindata_status_max_behind off | N;     http, server, location
 *   chaindata_status_max_lag off | TIME;     http, server, location
 *
 * The counters live in the shared memory zone "chaindata_metrics", which
 * every worker adds to with atomic increments from the log phase: no
 * lock.  nginx keeps a zone's memory across reloads when its name, size
 * and module stay, so a reload keeps counting; a restart, or a binary
 * upgrade (a new master), starts from zero, and says when it started
 * (chaindata_traffic_start_timestamp_seconds).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <time.h>

#include "chaindata_metrics.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_metrics.h"


#define NGX_HTTP_CHAINDATA_METRICS_ZONE  "chaindata_metrics"

/*
 * chaindata_status_max_behind's default: an edge more blocks than this
 * behind the tip its writer stored is unhealthy wherever its status is
 * asked (the scrape's chaindata_healthy, the health check's 503), unless
 * a location says otherwise.  A feed without a stored tip (a follower's)
 * is not judged by blocks.
 */
#define NGX_HTTP_CHAINDATA_MAX_BEHIND  6


typedef struct {
    ngx_flag_t       enable;       /* chaindata_metrics */
    ngx_shm_zone_t  *zone;
    ngx_int_t        fallback;     /* $chaindata_fallback's index */
} ngx_http_chaindata_metrics_main_conf_t;


static ngx_str_t  ngx_http_chaindata_fallback_name =
    ngx_string("chaindata_fallback");


/*
 * a request of a chaindata route: when its handling began, and the path
 * its family's handler found (CHAINDATA_ROUTES: none yet)
 */
typedef struct {
    uint64_t           start_us;
    chaindata_route_e  path;
} ngx_http_chaindata_metrics_ctx_t;


typedef struct {
    ngx_uint_t       max_behind;   /* chaindata_status_max_behind, blocks */
    ngx_uint_t       max_lag;      /* chaindata_status_max_lag, seconds */
} ngx_http_chaindata_metrics_loc_conf_t;


static ngx_int_t ngx_http_chaindata_metrics_preconfiguration(
    ngx_conf_t *cf);
static ngx_int_t ngx_http_chaindata_metrics_postconfiguration(
    ngx_conf_t *cf);
static void *ngx_http_chaindata_metrics_create_main_conf(ngx_conf_t *cf);
static void *ngx_http_chaindata_metrics_create_loc_conf(ngx_conf_t *cf);
static char *ngx_http_chaindata_metrics_merge_loc_conf(ngx_conf_t *cf,
    void *parent, void *child);
static char *ngx_http_chaindata_health_limit(ngx_conf_t *cf,
    ngx_command_t *cmd, void *conf);


/* what a health limit is counted in (cmd->post) */
static ngx_str_t  ngx_http_chaindata_blocks = ngx_string("blocks");
static ngx_str_t  ngx_http_chaindata_seconds =
    ngx_string("seconds (\"90s\", \"10m\")");


static ngx_command_t  ngx_http_chaindata_metrics_commands[] = {

    { ngx_string("chaindata_metrics"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_chaindata_metrics_main_conf_t, enable),
      NULL },

    { ngx_string("chaindata_status_max_behind"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_health_limit,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_metrics_loc_conf_t, max_behind),
      &ngx_http_chaindata_blocks },

    { ngx_string("chaindata_status_max_lag"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_health_limit,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_metrics_loc_conf_t, max_lag),
      &ngx_http_chaindata_seconds },

      ngx_null_command
};


static ngx_http_module_t  ngx_http_chaindata_metrics_module_ctx = {
    ngx_http_chaindata_metrics_preconfiguration,  /* preconfiguration */
    ngx_http_chaindata_metrics_postconfiguration, /* postconfiguration */

    ngx_http_chaindata_metrics_create_main_conf,  /* create main conf */
    NULL,                                         /* init main conf */

    NULL,                                         /* create server conf */
    NULL,                                         /* merge server conf */

    ngx_http_chaindata_metrics_create_loc_conf,   /* create location conf */
    ngx_http_chaindata_metrics_merge_loc_conf     /* merge location conf */
};


ngx_module_t  ngx_http_chaindata_metrics_module = {
    NGX_MODULE_V1,
    &ngx_http_chaindata_metrics_module_ctx,  /* module context */
    ngx_http_chaindata_metrics_commands,     /* module directives */
    NGX_HTTP_MODULE,                         /* module type */
    NULL,                                    /* init master */
    NULL,                                    /* init module */
    NULL,                                    /* init process */
    NULL,                                    /* init thread */
    NULL,                                    /* exit thread */
    NULL,                                    /* exit process */
    NULL,                                    /* exit master */
    NGX_MODULE_V1_PADDING
};


/*
 * $chaindata_fallback: the route whose miss went to
 * chaindata_miss_fallback (the request's own variable slot, set there:
 * an internal redirect keeps it), not found otherwise
 */

static ngx_int_t
ngx_http_chaindata_fallback_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    v->not_found = 1;

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_metrics_preconfiguration(ngx_conf_t *cf)
{
    ngx_http_variable_t  *var;

    var = ngx_http_add_variable(cf, &ngx_http_chaindata_fallback_name, 0);
    if (var == NULL) {
        return NGX_ERROR;
    }

    var->get_handler = ngx_http_chaindata_fallback_variable;

    return NGX_OK;
}


static void *
ngx_http_chaindata_metrics_create_main_conf(ngx_conf_t *cf)
{
    ngx_http_chaindata_metrics_main_conf_t  *mmcf;

    mmcf = ngx_pcalloc(cf->pool,
                       sizeof(ngx_http_chaindata_metrics_main_conf_t));
    if (mmcf == NULL) {
        return NULL;
    }

    mmcf->enable = NGX_CONF_UNSET;

    return mmcf;
}


static void *
ngx_http_chaindata_metrics_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_chaindata_metrics_loc_conf_t  *mlcf;

    mlcf = ngx_palloc(cf->pool, sizeof(ngx_http_chaindata_metrics_loc_conf_t));
    if (mlcf == NULL) {
        return NULL;
    }

    mlcf->max_behind = NGX_CONF_UNSET_UINT;
    mlcf->max_lag = NGX_CONF_UNSET_UINT;

    return mlcf;
}


static char *
ngx_http_chaindata_metrics_merge_loc_conf(ngx_conf_t *cf, void *parent,
    void *child)
{
    ngx_http_chaindata_metrics_loc_conf_t  *prev = parent;
    ngx_http_chaindata_metrics_loc_conf_t  *conf = child;

    ngx_conf_merge_uint_value(conf->max_behind, prev->max_behind,
                              NGX_HTTP_CHAINDATA_MAX_BEHIND);
    ngx_conf_merge_uint_value(conf->max_lag, prev->max_lag, 0);

    return NGX_CONF_OK;
}


/*
 * "off", or a limit of at least 1: a number of blocks, or a time ("90s",
 * "10m"; plain seconds too)
 */

static char *
ngx_http_chaindata_health_limit(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
{
    char  *p = conf;

    ngx_int_t    n;
    ngx_str_t   *value;
    ngx_uint_t  *limit;

    limit = (ngx_uint_t *) (p + cmd->offset);

    if (*limit != NGX_CONF_UNSET_UINT) {
        return "is duplicate";
    }

    value = cf->args->elts;

    if (ngx_strcmp(value[1].data, "off") == 0) {
        *limit = 0;
        return NGX_CONF_OK;
    }

    if (cmd->post == &ngx_http_chaindata_blocks) {
        n = ngx_atoi(value[1].data, value[1].len);

    } else {
        n = ngx_parse_time(&value[1], 1);
    }

    if (n == NGX_ERROR || n == 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"%V\" takes \"off\" or a number of %V of at "
                           "least 1, not \"%V\"",
                           &cmd->name, (ngx_str_t *) cmd->post, &value[1]);
        return NGX_CONF_ERROR;
    }

    *limit = n;

    return NGX_CONF_OK;
}


/*
 * A zone nginx kept from the configuration before (a reload) keeps its
 * counters when their layout is this module's; otherwise they start at
 * zero, now.
 */

static ngx_int_t
ngx_http_chaindata_metrics_init_zone(ngx_shm_zone_t *shm_zone, void *data)
{
    ngx_slab_pool_t      *shpool;
    chaindata_metrics_t  *m;

    m = data;

    if (m && m->layout == CHAINDATA_METRICS_LAYOUT
        && m->size == sizeof(chaindata_metrics_t))
    {
        shm_zone->data = m;
        return NGX_OK;
    }

    shpool = (ngx_slab_pool_t *) shm_zone->shm.addr;

    m = ngx_slab_calloc(shpool, sizeof(chaindata_metrics_t));
    if (m == NULL) {
        return NGX_ERROR;
    }

    m->layout = CHAINDATA_METRICS_LAYOUT;
    m->size = sizeof(chaindata_metrics_t);
    m->start = (uint64_t) ngx_time();

    shpool->data = m;
    shm_zone->data = m;

    return NGX_OK;
}


/*
 * the route a request is counted under (chaindata_route_e): the path its
 * family's handler found, else its location's (its descriptor's:
 * ngx_http_chaindata_routes.h); CHAINDATA_ROUTES: none
 */

static chaindata_route_e
ngx_http_chaindata_metrics_route(ngx_http_request_t *r)
{
    ngx_http_chaindata_loc_conf_t     *lcf;
    ngx_http_chaindata_metrics_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r, ngx_http_chaindata_metrics_module);

    if (ctx && ctx->path != CHAINDATA_ROUTES) {
        return ctx->path;
    }

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    return (chaindata_route_e) lcf->route->metrics;
}


/* whether a location's requests are counted: its route, or its paths' */

static ngx_uint_t
ngx_http_chaindata_metrics_counts(ngx_http_request_t *r)
{
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    return lcf->route->metrics != CHAINDATA_ROUTES
           || (lcf->route->flags & CHAINDATA_ROUTE_PATHS);
}


void
ngx_http_chaindata_metrics_path(ngx_http_request_t *r, ngx_uint_t route)
{
    ngx_http_chaindata_metrics_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r->main, ngx_http_chaindata_metrics_module);

    if (ctx) {
        ctx->path = (chaindata_route_e) route;
    }
}


#define ngx_http_chaindata_count(p, n)                                       \
    (void) __atomic_fetch_add(p, n, __ATOMIC_RELAXED)


/* a monotonic clock in microseconds (vDSO: no system call) */

static uint64_t
ngx_http_chaindata_metrics_now_us(void)
{
    struct timespec  ts;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);

    return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}


/*
 * The preaccess phase, its location found: a request of a chaindata
 * route notes when its handling began.  nginx's own clock is read once
 * an event and counts milliseconds, and an answer from memory takes tens
 * of microseconds.
 */

static ngx_int_t
ngx_http_chaindata_metrics_start(ngx_http_request_t *r)
{
    ngx_http_chaindata_metrics_ctx_t  *ctx;

    if (r != r->main
        || ngx_http_get_module_ctx(r, ngx_http_chaindata_metrics_module))
    {
        return NGX_DECLINED;
    }

    if (!ngx_http_chaindata_metrics_counts(r)) {
        return NGX_DECLINED;
    }

    ctx = ngx_palloc(r->pool, sizeof(ngx_http_chaindata_metrics_ctx_t));
    if (ctx == NULL) {
        return NGX_DECLINED;
    }

    ctx->start_us = ngx_http_chaindata_metrics_now_us();
    ctx->path = CHAINDATA_ROUTES;
    ngx_http_set_ctx(r, ctx, ngx_http_chaindata_metrics_module);

    return NGX_DECLINED;
}


/*
 * How long the request took, in microseconds: from the start noted, or,
 * when none was (an internal redirect clears it), from the request's
 * start by nginx's clock in milliseconds
 */

static uint64_t
ngx_http_chaindata_metrics_elapsed_us(ngx_http_request_t *r)
{
    uint64_t                           now;
    ngx_time_t                        *tp;
    ngx_msec_int_t                     ms;
    ngx_http_chaindata_metrics_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r, ngx_http_chaindata_metrics_module);

    if (ctx) {
        now = ngx_http_chaindata_metrics_now_us();
        return now > ctx->start_us ? now - ctx->start_us : 0;
    }

    tp = ngx_timeofday();
    ms = (ngx_msec_int_t) ((tp->sec - r->start_sec) * 1000
                           + (tp->msec - r->start_msec));

    return ms > 0 ? (uint64_t) ms * 1000 : 0;
}


/* the route whose miss this request is, through chaindata_miss_fallback */

static chaindata_route_e
ngx_http_chaindata_metrics_fell_back(ngx_http_request_t *r,
    ngx_http_chaindata_metrics_main_conf_t *mmcf)
{
    ngx_uint_t                  i;
    ngx_http_variable_value_t  *v;

    v = &r->variables[mmcf->fallback];

    if (!v->valid || v->not_found) {
        return CHAINDATA_ROUTES;
    }

    for (i = 0; i < CHAINDATA_ROUTES; i++) {
        if (v->data == (u_char *) chaindata_route_names[i]) {
            return i;
        }
    }

    return CHAINDATA_ROUTES;
}


/*
 * The log phase: a request of a chaindata route is done, its last byte
 * handed to nginx.  The status as $status tells it, the time in
 * microseconds, the body bytes as $body_bytes_sent.
 */

static ngx_int_t
ngx_http_chaindata_metrics_log(ngx_http_request_t *r)
{
    off_t                                    body;
    uint64_t                                 us;
    ngx_uint_t                               status;
    ngx_table_elt_t                         *ce;
    chaindata_route_e                        route;
    chaindata_metrics_t                     *m;
    chaindata_metrics_route_t               *rt;
    ngx_http_chaindata_metrics_main_conf_t  *mmcf;

    status = r->err_status ? r->err_status : r->headers_out.status;

    if (status < 100 || status > 599) {
        return NGX_OK;
    }

    mmcf = ngx_http_get_module_main_conf(r, ngx_http_chaindata_metrics_module);
    m = mmcf->zone->data;

    route = ngx_http_chaindata_metrics_route(r);

    if (route == CHAINDATA_ROUTES) {
        route = ngx_http_chaindata_metrics_fell_back(r, mmcf);

        if (route != CHAINDATA_ROUTES) {
            ngx_http_chaindata_count(
                &m->route[route].fallback[status / 100 - 1], 1);
        }

        return NGX_OK;
    }

    rt = &m->route[route];

    us = ngx_http_chaindata_metrics_elapsed_us(r);

    ngx_http_chaindata_count(&rt->requests[status / 100 - 1], 1);
    ngx_http_chaindata_count(&rt->duration[chaindata_metrics_bucket(us)], 1);
    ngx_http_chaindata_count(&rt->duration_us, us);

    if (status == NGX_HTTP_NOT_MODIFIED) {
        ngx_http_chaindata_count(&rt->not_modified, 1);
    }

    body = r->connection->sent - r->header_size;

    if (body <= 0) {
        return NGX_OK;
    }

    ce = r->headers_out.content_encoding;

    if (ce && ce->value.len == 4
        && ngx_strncasecmp(ce->value.data, (u_char *) "gzip", 4) == 0)
    {
        ngx_http_chaindata_count(&rt->bytes_gzip, (uint64_t) body);

    } else {
        ngx_http_chaindata_count(&rt->bytes_plain, (uint64_t) body);
    }

    return NGX_OK;
}


/* the zone and the log phase handler, with chaindata_metrics on */

static ngx_int_t
ngx_http_chaindata_metrics_postconfiguration(ngx_conf_t *cf)
{
    ngx_str_t                                name;
    ngx_http_handler_pt                     *h;
    ngx_http_core_main_conf_t               *cmcf;
    ngx_http_chaindata_metrics_main_conf_t  *mmcf;

    mmcf = ngx_http_conf_get_module_main_conf(cf,
                                          ngx_http_chaindata_metrics_module);

    ngx_conf_init_value(mmcf->enable, 1);

    if (!mmcf->enable) {
        return NGX_OK;
    }

    mmcf->fallback = ngx_http_get_variable_index(cf,
                                        &ngx_http_chaindata_fallback_name);
    if (mmcf->fallback == NGX_ERROR) {
        return NGX_ERROR;
    }

    ngx_str_set(&name, NGX_HTTP_CHAINDATA_METRICS_ZONE);

    /* the smallest zone nginx's slab allocator takes */
    mmcf->zone = ngx_shared_memory_add(cf, &name, 8 * ngx_pagesize,
                                       &ngx_http_chaindata_metrics_module);
    if (mmcf->zone == NULL) {
        return NGX_ERROR;
    }

    mmcf->zone->init = ngx_http_chaindata_metrics_init_zone;

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);

    h = ngx_array_push(&cmcf->phases[NGX_HTTP_LOG_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_chaindata_metrics_log;

    h = ngx_array_push(&cmcf->phases[NGX_HTTP_PREACCESS_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_chaindata_metrics_start;

    return NGX_OK;
}


void
ngx_http_chaindata_metrics_unavailable(ngx_http_request_t *r,
    chaindata_unavailable_e reason)
{
    chaindata_metrics_t                     *m;
    ngx_http_chaindata_metrics_main_conf_t  *mmcf;

    mmcf = ngx_http_get_module_main_conf(r, ngx_http_chaindata_metrics_module);

    if (mmcf->zone == NULL) {
        return;
    }

    m = mmcf->zone->data;
    ngx_http_chaindata_count(&m->unavailable[reason], 1);
}


void
ngx_http_chaindata_metrics_fallback(ngx_http_request_t *r)
{
    chaindata_route_e                        route;
    ngx_http_variable_value_t               *v;
    ngx_http_chaindata_metrics_main_conf_t  *mmcf;

    mmcf = ngx_http_get_module_main_conf(r, ngx_http_chaindata_metrics_module);

    if (mmcf->zone == NULL) {
        return;
    }

    route = ngx_http_chaindata_metrics_route(r);

    if (route == CHAINDATA_ROUTES) {
        return;
    }

    v = &r->variables[mmcf->fallback];

    v->data = (u_char *) chaindata_route_names[route];
    v->len = ngx_strlen(v->data);
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;
}


void
ngx_http_chaindata_metrics_swap_refused(void)
{
    chaindata_metrics_t                     *m;
    ngx_http_chaindata_metrics_main_conf_t  *mmcf;

    mmcf = ngx_http_cycle_get_module_main_conf(ngx_cycle,
                                          ngx_http_chaindata_metrics_module);

    if (mmcf == NULL || mmcf->zone == NULL) {
        return;
    }

    m = mmcf->zone->data;
    ngx_http_chaindata_count(&m->swaps_refused, 1);
}


ngx_int_t
ngx_http_chaindata_metrics_copy(ngx_http_request_t *r, chaindata_metrics_t *m)
{
    ngx_http_chaindata_metrics_main_conf_t  *mmcf;

    mmcf = ngx_http_get_module_main_conf(r, ngx_http_chaindata_metrics_module);

    if (mmcf->zone == NULL) {
        return NGX_DECLINED;
    }

    /* aligned 64-bit loads: each counter is read whole */
    ngx_memcpy(m, mmcf->zone->data, sizeof(chaindata_metrics_t));

    return NGX_OK;
}


void
ngx_http_chaindata_metrics_health(ngx_http_request_t *r,
    uint64_t *max_behind, uint64_t *max_lag)
{
    ngx_http_chaindata_metrics_loc_conf_t  *mlcf;

    mlcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_metrics_module);

    *max_behind = mlcf->max_behind;
    *max_lag = mlcf->max_lag;
}
