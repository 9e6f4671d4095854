
/*
 * chaindata: serves a chain data read API from a memory-mapped LMDB
 * index.  This file holds the module, its directives and configuration;
 * each route and concern has a file of its own beside it.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_metrics.h"
#include "ngx_http_chaindata_budget.h"
#include "ngx_http_chaindata_cors.h"
#include "ngx_http_chaindata_deprecation.h"
#include "ngx_http_chaindata_env.h"
#include "ngx_http_chaindata_gzip.h"
#include "ngx_http_chaindata_migration.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_redact.h"
#include "ngx_http_chaindata_redact_log.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"
#include "ngx_http_chaindata_threads.h"


static ngx_int_t ngx_http_chaindata_preconfiguration(ngx_conf_t *cf);
static ngx_int_t ngx_http_chaindata_postconfiguration(ngx_conf_t *cf);
static void *ngx_http_chaindata_create_main_conf(ngx_conf_t *cf);
static char *ngx_http_chaindata_init_main_conf(ngx_conf_t *cf, void *conf);
static void *ngx_http_chaindata_create_loc_conf(ngx_conf_t *cf);
static char *ngx_http_chaindata_merge_loc_conf(ngx_conf_t *cf, void *parent,
    void *child);
static char *ngx_http_chaindata_db(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_chaindata_handler_slot(ngx_conf_t *cf,
    ngx_command_t *cmd, void *conf);
static char *ngx_http_chaindata_miss_fallback(ngx_conf_t *cf,
    ngx_command_t *cmd, void *conf);
static ngx_int_t ngx_http_chaindata_check_fallbacks(ngx_conf_t *cf,
    ngx_http_chaindata_main_conf_t *mcf);
static char *ngx_http_chaindata_check_conf(ngx_cycle_t *cycle, void *conf);
static ngx_int_t ngx_http_chaindata_init_process(ngx_cycle_t *cycle);
static void ngx_http_chaindata_exit_process(ngx_cycle_t *cycle);


static ngx_conf_num_bounds_t  ngx_http_chaindata_max_readers_bounds = {
    ngx_conf_check_num_bounds, 1, CHAINDATA_MAX_READERS_LIMIT
};


/*
 * Each route's descriptor and location directive, from the list of routes
 * (src/core/chaindata_routes.h).
 */

#define NGX_HTTP_CHAINDATA_ROUTE_DESC(id, directive, feed, flags)            \
    const ngx_http_chaindata_route_desc_t  ngx_http_chaindata_##id##_desc = { \
        ngx_http_chaindata_##id##_handler, CHAINDATA_ROUTE_##id, feed, flags  \
    };

#define NGX_HTTP_CHAINDATA_UNCOUNTED_DESC(id, directive, feed, flags)        \
    const ngx_http_chaindata_route_desc_t  ngx_http_chaindata_##id##_desc = { \
        ngx_http_chaindata_##id##_handler, CHAINDATA_ROUTES, feed, flags      \
    };

CHAINDATA_ROUTE_LIST(NGX_HTTP_CHAINDATA_ROUTE_DESC,
                     NGX_HTTP_CHAINDATA_UNCOUNTED_DESC)


/* the paths of the families, in their list's order */

#define NGX_HTTP_CHAINDATA_PATH_LINE(id, family, tmpl, feed, flags)          \
    { &ngx_http_chaindata_##family##_desc, tmpl,                             \
      ngx_http_chaindata_##id##_handler,                                     \
      { NULL, CHAINDATA_ROUTE_##id, feed, flags } },

const ngx_http_chaindata_path_t  ngx_http_chaindata_paths[] = {
    CHAINDATA_PATH_LIST(NGX_HTTP_CHAINDATA_PATH_LINE)
};

const ngx_uint_t  ngx_http_chaindata_npaths =
    sizeof(ngx_http_chaindata_paths) / sizeof(ngx_http_chaindata_path_t);


const ngx_http_chaindata_path_t *
ngx_http_chaindata_path_find(const ngx_http_chaindata_route_desc_t *family,
    const u_char *path, size_t len, chaindata_path_params_t *params)
{
    ngx_uint_t  i;

    for (i = 0; i < ngx_http_chaindata_npaths; i++) {
        if (ngx_http_chaindata_paths[i].family == family
            && chaindata_path_match(ngx_http_chaindata_paths[i].path, path,
                                    len, params)
               == 0)
        {
            return &ngx_http_chaindata_paths[i];
        }
    }

    return NULL;
}


const ngx_http_chaindata_route_desc_t  ngx_http_chaindata_no_route = {
    NULL, CHAINDATA_ROUTES, CHAINDATA_ROUTE_NO_FEED, CHAINDATA_ROUTE_NO_CORS
};


#define NGX_HTTP_CHAINDATA_ROUTE_COMMAND(id, directive, feed, flags)         \
    { ngx_string(directive),                                                 \
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,                                     \
      ngx_http_chaindata_handler_slot,                                       \
      NGX_HTTP_LOC_CONF_OFFSET,                                              \
      0,                                                                     \
      (void *) &ngx_http_chaindata_##id##_desc },


static ngx_command_t  ngx_http_chaindata_commands[] = {

    CHAINDATA_ROUTE_LIST(NGX_HTTP_CHAINDATA_ROUTE_COMMAND,
                         NGX_HTTP_CHAINDATA_ROUTE_COMMAND)

    { ngx_string("chaindata_db"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_db,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("chaindata_max_readers"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_num_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_chaindata_main_conf_t, max_readers),
      &ngx_http_chaindata_max_readers_bounds },

    { ngx_string("chaindata_threads"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE12,
      ngx_http_chaindata_threads,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("chaindata_body_budget"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_loc_conf_t, body_budget),
      NULL },

    { ngx_string("chaindata_deprecation"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_deprecation,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("chaindata_deprecation_link"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_link,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_loc_conf_t, deprecation_link),
      NULL },

    { ngx_string("chaindata_successor_link"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_link,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_loc_conf_t, successor_link),
      NULL },

    { ngx_string("chaindata_sunset"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_sunset,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("chaindata_migration_base"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_migration_base,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_loc_conf_t, migration_base),
      NULL },

    { ngx_string("chaindata_migration_base_brc20"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_migration_base,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_loc_conf_t, migration_base_brc20),
      NULL },

    { ngx_string("chaindata_migration_redirect"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_loc_conf_t, migration_redirect),
      NULL },

    { ngx_string("chaindata_cors"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_chaindata_loc_conf_t, cors),
      NULL },

    { ngx_string("chaindata_miss_fallback"),
      NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_chaindata_miss_fallback,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

      ngx_null_command
};


static ngx_http_module_t  ngx_http_chaindata_module_ctx = {
    ngx_http_chaindata_preconfiguration,   /* preconfiguration */
    ngx_http_chaindata_postconfiguration,  /* postconfiguration */

    ngx_http_chaindata_create_main_conf,   /* create main configuration */
    ngx_http_chaindata_init_main_conf,     /* init main configuration */

    NULL,                                  /* create server configuration */
    NULL,                                  /* merge server configuration */

    ngx_http_chaindata_create_loc_conf,    /* create location configuration */
    ngx_http_chaindata_merge_loc_conf      /* merge location configuration */
};


ngx_module_t  ngx_http_chaindata_module = {
    NGX_MODULE_V1,
    &ngx_http_chaindata_module_ctx,        /* module context */
    ngx_http_chaindata_commands,           /* module directives */
    NGX_HTTP_MODULE,                       /* module type */
    NULL,                                  /* init master */
    NULL,                                  /* init module */
    ngx_http_chaindata_init_process,       /* init process */
    NULL,                                  /* init thread */
    NULL,                                  /* exit thread */
    ngx_http_chaindata_exit_process,       /* exit process */
    NULL,                                  /* exit master */
    NGX_MODULE_V1_PADDING
};


/*
 * A core module for its init_conf alone, which checks the index.  Core
 * modules' configurations are initialised once the whole file is read, so
 * the worker user is final (nginx's default included), and a failure
 * there refuses the configuration: "nginx -t" says "test failed", and a
 * refused reload leaves the running configuration serving.
 */

static ngx_core_module_t  ngx_http_chaindata_check_module_ctx = {
    ngx_string("chaindata_check"),
    NULL,
    ngx_http_chaindata_check_conf
};


ngx_module_t  ngx_http_chaindata_check_module = {
    NGX_MODULE_V1,
    &ngx_http_chaindata_check_module_ctx,  /* module context */
    NULL,                                  /* module directives */
    NGX_CORE_MODULE,                       /* module type */
    NULL,                                  /* init master */
    NULL,                                  /* init module */
    NULL,                                  /* init process */
    NULL,                                  /* init thread */
    NULL,                                  /* exit thread */
    NULL,                                  /* exit process */
    NULL,                                  /* exit master */
    NGX_MODULE_V1_PADDING
};


/* variables exist before the configuration that uses them is read */

static ngx_int_t
ngx_http_chaindata_preconfiguration(ngx_conf_t *cf)
{
    return ngx_http_chaindata_redact_add_variables(cf);
}


/*
 * The key redaction of the chainhook route looks at every request of
 * every server: installed only where a location serves that route.
 */

static ngx_int_t
ngx_http_chaindata_postconfiguration(ngx_conf_t *cf)
{
    ngx_http_chaindata_main_conf_t  *mcf;

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_chaindata_module);

    if (ngx_http_chaindata_check_fallbacks(cf, mcf) != NGX_OK) {
        return NGX_ERROR;
    }

    if (mcf->handlers
        && ngx_http_chaindata_budget_conf(cf, mcf) != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_cors_init(cf) != NGX_OK) {
        return NGX_ERROR;
    }

    if (mcf->chainhook == 0) {
        return NGX_OK;
    }

    return ngx_http_chaindata_redact_init(cf);
}


static void *
ngx_http_chaindata_create_main_conf(ngx_conf_t *cf)
{
    ngx_http_chaindata_main_conf_t  *mcf;

    mcf = ngx_pcalloc(cf->pool, sizeof(ngx_http_chaindata_main_conf_t));
    if (mcf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     mcf->db = { 0, NULL };
     *     mcf->handlers = 0;
     *     mcf->chainhook = 0;
     *     mcf->chains = 0;
     */

    if (ngx_array_init(&mcf->error_logs, cf->pool, 4, sizeof(ngx_log_t *))
        != NGX_OK)
    {
        return NULL;
    }

    if (ngx_array_init(&mcf->fallbacks, cf->pool, 2,
                       sizeof(ngx_http_chaindata_fallback_t))
        != NGX_OK)
    {
        return NULL;
    }

    mcf->max_readers = NGX_CONF_UNSET;
    mcf->thread_pool = NGX_CONF_UNSET_PTR;
    mcf->thread_nice = NGX_CONF_UNSET;

    return mcf;
}


static char *
ngx_http_chaindata_init_main_conf(ngx_conf_t *cf, void *conf)
{
    ngx_http_chaindata_main_conf_t  *mcf = conf;

    if (mcf->handlers && mcf->db.len == 0) {
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0,
                      "chaindata: a location serves chain data but no "
                      "\"chaindata_db\" is set at the http level");
        return NGX_CONF_ERROR;
    }

    ngx_conf_init_value(mcf->max_readers, CHAINDATA_MAX_READERS);
    ngx_conf_init_ptr_value(mcf->thread_pool, NULL);
    ngx_conf_init_value(mcf->thread_nice, NGX_HTTP_CHAINDATA_THREAD_NICE);

    return NGX_CONF_OK;
}


static void *
ngx_http_chaindata_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_pcalloc(cf->pool, sizeof(ngx_http_chaindata_loc_conf_t));
    if (lcf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     lcf->deprecation_link = { 0, NULL };
     *     lcf->successor_link = { 0, NULL };
     *     lcf->migration_base = { 0, NULL };
     *     lcf->migration_base_brc20 = { 0, NULL };
     *     lcf->miss_fallback = { 0, NULL };
     */

    lcf->route = &ngx_http_chaindata_no_route;
    lcf->deprecation = NGX_CONF_UNSET;
    lcf->sunset = NGX_CONF_UNSET;
    lcf->migration_redirect = NGX_CONF_UNSET;
    lcf->body_budget = NGX_CONF_UNSET_SIZE;
    lcf->cors = NGX_CONF_UNSET;

    return lcf;
}


static char *
ngx_http_chaindata_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_http_chaindata_loc_conf_t  *prev = parent;
    ngx_http_chaindata_loc_conf_t  *conf = child;

    ngx_http_chaindata_main_conf_t  *mcf;

    /* every server and location passes here, nested, regex and named too */
    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_chaindata_module);

    if (ngx_http_chaindata_redact_log_note(cf, mcf) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    ngx_conf_merge_size_value(conf->body_budget, prev->body_budget,
                              NGX_HTTP_CHAINDATA_BODY_BUDGET);

    /* upstream sends CORS by default; the route is the location's own */
    ngx_conf_merge_value(conf->cors, prev->cors, 1);
    ngx_conf_merge_str_value(conf->miss_fallback, prev->miss_fallback, "");

    if (ngx_http_chaindata_merge_deprecation(cf, prev, conf)
        != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    return ngx_http_chaindata_merge_migration(cf, prev, conf);
}


static char *
ngx_http_chaindata_db(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_chaindata_main_conf_t  *mcf = conf;

    ngx_str_t   db, *value;

    value = cf->args->elts;
    db = value[1];

    while (db.len > 1 && db.data[db.len - 1] == '/') {
        db.len--;
    }

    if (db.len == 0) {
        return "needs a directory";
    }

    /* a relative path is relative to the prefix; the result ends in NUL */
    if (ngx_conf_full_name(cf->cycle, &db, 0) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    /*
     * The same directory again is no conflict: a snippet of conf.d that
     * an earlier README had operators write names it beside the packaged
     * site (doc/operations.md, "Upgrading from 0.1.0").
     */
    if (mcf->db.data) {
        if (mcf->db.len == db.len
            && ngx_strncmp(mcf->db.data, db.data, db.len) == 0)
        {
            return NGX_CONF_OK;
        }

        return "is duplicate, naming another directory";
    }

    mcf->db = db;

    return NGX_CONF_OK;
}


/*
 * The location directives of the routes: cmd->post is the route's
 * descriptor, which says all there is to know of it here.
 */

static char *
ngx_http_chaindata_handler_slot(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
{
    ngx_http_chaindata_loc_conf_t  *lcf = conf;

    ngx_http_core_loc_conf_t               *clcf;
    ngx_http_chaindata_main_conf_t         *mcf;
    const ngx_http_chaindata_route_desc_t  *route;

    route = cmd->post;
    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);

    if (clcf->handler) {
        return "conflicts with another content handler in this location";
    }

    clcf->handler = route->handler;
    lcf->route = route;

    if (!(route->flags & CHAINDATA_ROUTE_READS_INDEX)) {
        return NGX_CONF_OK;
    }

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_chaindata_module);
    mcf->handlers++;

    if (route->flags & CHAINDATA_ROUTE_API_KEY) {
        mcf->chainhook++;
    }

    if (route->feed != CHAINDATA_ROUTE_NO_FEED) {
        mcf->chains |= 1 << route->feed;
    }

    return NGX_CONF_OK;
}


/*
 * chaindata_miss_fallback @name | off: a request for a record the index
 * does not hold goes to that named location (README.md, "In front of
 * upstream").  The name is checked once the server's named locations are
 * known, in postconfiguration.
 */

static char *
ngx_http_chaindata_miss_fallback(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
{
    ngx_http_chaindata_loc_conf_t  *lcf = conf;

    ngx_str_t                       *value;
    ngx_http_chaindata_fallback_t   *fb;
    ngx_http_chaindata_main_conf_t  *mcf;

    if (lcf->miss_fallback.data) {
        return "is duplicate";
    }

    value = cf->args->elts;

    if (ngx_strcmp(value[1].data, "off") == 0) {
        ngx_str_set(&lcf->miss_fallback, "");
        return NGX_CONF_OK;
    }

    if (value[1].len < 2 || value[1].data[0] != '@') {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"chaindata_miss_fallback\" takes a named "
                           "location (\"@name\") or \"off\", not \"%V\"",
                           &value[1]);
        return NGX_CONF_ERROR;
    }

    lcf->miss_fallback = value[1];

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_chaindata_module);

    fb = ngx_array_push(&mcf->fallbacks);
    if (fb == NULL) {
        return NGX_CONF_ERROR;
    }

    fb->name = value[1];
    fb->cscf = ngx_http_conf_get_module_srv_conf(cf, ngx_http_core_module);
    fb->file = cf->conf_file->file.name;
    fb->line = cf->conf_file->line;

    return NGX_CONF_OK;
}


/* every chaindata_miss_fallback names a named location of its server */

static ngx_int_t
ngx_http_chaindata_check_fallbacks(ngx_conf_t *cf,
    ngx_http_chaindata_main_conf_t *mcf)
{
    ngx_uint_t                      i;
    ngx_http_core_loc_conf_t      **clcfp;
    ngx_http_chaindata_fallback_t  *fb;

    fb = mcf->fallbacks.elts;

    for (i = 0; i < mcf->fallbacks.nelts; i++) {

        clcfp = fb[i].cscf->named_locations;

        while (clcfp && *clcfp) {
            if ((*clcfp)->name.len == fb[i].name.len
                && ngx_strncmp((*clcfp)->name.data, fb[i].name.data,
                               fb[i].name.len)
                   == 0)
            {
                break;
            }

            clcfp++;
        }

        if (clcfp == NULL || *clcfp == NULL) {
            ngx_log_error(NGX_LOG_EMERG, cf->log, 0,
                          "\"chaindata_miss_fallback\" names \"%V\", which "
                          "is no named location of its server in %V:%ui",
                          &fb[i].name, &fb[i].file, fb[i].line);
            return NGX_ERROR;
        }
    }

    return NGX_OK;
}


static ngx_http_chaindata_main_conf_t *
ngx_http_chaindata_cycle_conf(ngx_cycle_t *cycle)
{
    if (cycle->conf_ctx == NULL
        || cycle->conf_ctx[ngx_http_module.index] == NULL)
    {
        return NULL;
    }

    return ngx_http_cycle_get_module_main_conf(cycle,
                                               ngx_http_chaindata_module);
}


/*
 * Runs in the master, at every start and reload, and in "nginx -t": the
 * index must be there, of this schema version, and readable by the user
 * the workers will run as.  The environment is closed again; every worker
 * opens its own.
 */

static char *
ngx_http_chaindata_check_conf(ngx_cycle_t *cycle, void *conf)
{
    ngx_http_chaindata_main_conf_t  *mcf;

    /* "nginx -s" only signals the master, which checks for itself */
    if (ngx_process == NGX_PROCESS_SIGNALLER) {
        return NGX_CONF_OK;
    }

    mcf = ngx_http_chaindata_cycle_conf(cycle);

    if (mcf == NULL || mcf->db.len == 0) {
        return NGX_CONF_OK;
    }

    if (ngx_http_chaindata_env_check(cycle, &mcf->db, mcf->max_readers,
                                     mcf->chains)
        != NGX_OK)
    {
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


static ngx_int_t
ngx_http_chaindata_init_process(ngx_cycle_t *cycle)
{
    ngx_http_chaindata_main_conf_t  *mcf;

    mcf = ngx_http_chaindata_cycle_conf(cycle);

    if (mcf == NULL) {
        return NGX_OK;
    }

    if (ngx_http_chaindata_redact_log_init(cycle, mcf) != NGX_OK) {
        return NGX_ERROR;
    }

    ngx_http_chaindata_budget_init(cycle, mcf);

    if (ngx_http_chaindata_gzip_init(cycle->log) != NGX_OK) {
        return NGX_ERROR;
    }

    if (mcf->db.len == 0) {
        return NGX_OK;
    }

    if (ngx_http_chaindata_threads_init(cycle, mcf) != NGX_OK) {
        return NGX_ERROR;
    }

    return ngx_http_chaindata_store_open(cycle->log, &mcf->db,
                                         mcf->max_readers, mcf->chains);
}


static void
ngx_http_chaindata_exit_process(ngx_cycle_t *cycle)
{
    ngx_http_chaindata_redact_log_done();
    ngx_http_chaindata_budget_done();
    ngx_http_chaindata_store_close();
    ngx_http_chaindata_env_exit();
    ngx_http_chaindata_threads_exit();
    ngx_http_chaindata_gzip_done();
}
