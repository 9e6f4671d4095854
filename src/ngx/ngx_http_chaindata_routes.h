
/*
 * chaindata: the routes as the module serves them, made from their lists
 * (src/core/chaindata_routes.h): each route's handler, declared here and
 * defined in its own file, and its descriptor, which its location
 * directive points at (cmd->post) and the location's configuration keeps
 * (ngx_http_chaindata_loc_conf_t's route).  A path of a family is served
 * by its family's directive: the family's handler finds the path's line
 * among ngx_http_chaindata_paths and calls its handler with the path's
 * parameters.
 */


#ifndef _NGX_HTTP_CHAINDATA_ROUTES_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_ROUTES_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_history.h"
#include "chaindata_metrics.h"
#include "chaindata_path.h"
#include "chaindata_routes.h"


typedef struct {
    ngx_http_handler_pt   handler;
    ngx_uint_t            metrics;   /* chaindata_route_e; CHAINDATA_ROUTES:
                                        not counted */
    ngx_int_t             feed;      /* chaindata_history_source_e, or
                                        CHAINDATA_ROUTE_NO_FEED */
    ngx_uint_t            flags;     /* CHAINDATA_ROUTE_* */
} ngx_http_chaindata_route_desc_t;


typedef struct ngx_http_chaindata_path_s  ngx_http_chaindata_path_t;

/* a path's handler, given its line and the parameters its template matched */
typedef ngx_int_t (*ngx_http_chaindata_path_handler_pt)(
    ngx_http_request_t *r, const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params);

/* a line of CHAINDATA_PATH_LIST */
struct ngx_http_chaindata_path_s {
    const ngx_http_chaindata_route_desc_t  *family;
    const char                             *path;     /* its template */
    ngx_http_chaindata_path_handler_pt      handler;
    ngx_http_chaindata_route_desc_t         desc;     /* handler: NULL */
};

extern const ngx_http_chaindata_path_t  ngx_http_chaindata_paths[];
extern const ngx_uint_t                 ngx_http_chaindata_npaths;


#define NGX_HTTP_CHAINDATA_ROUTE_DECLARE(id, directive, feed, flags)         \
    ngx_int_t ngx_http_chaindata_##id##_handler(ngx_http_request_t *r);      \
    extern const ngx_http_chaindata_route_desc_t                             \
        ngx_http_chaindata_##id##_desc;

CHAINDATA_ROUTE_LIST(NGX_HTTP_CHAINDATA_ROUTE_DECLARE,
                     NGX_HTTP_CHAINDATA_ROUTE_DECLARE)

#define NGX_HTTP_CHAINDATA_PATH_DECLARE(id, family, tmpl, feed, flags)       \
    ngx_int_t ngx_http_chaindata_##id##_handler(ngx_http_request_t *r,       \
        const ngx_http_chaindata_path_t *path,                               \
        const chaindata_path_params_t *params);

CHAINDATA_PATH_LIST(NGX_HTTP_CHAINDATA_PATH_DECLARE)


/*
 * The descriptor of a location that serves no route: not counted, no
 * feed, no CORS.
 */
extern const ngx_http_chaindata_route_desc_t  ngx_http_chaindata_no_route;


/*
 * The family's line that the request's path matched (its params too),
 * or NULL: the family's handler.
 */
const ngx_http_chaindata_path_t *ngx_http_chaindata_path_find(
    const ngx_http_chaindata_route_desc_t *family, const u_char *path,
    size_t len, chaindata_path_params_t *params);


/*
 * The feed a route's misses ask about, by its id: the one its line names,
 * whose absence the worker tells at start.
 */
#define ngx_http_chaindata_route_feed(id)                                    \
    (ngx_http_chaindata_##id##_desc.feed)


#endif /* _NGX_HTTP_CHAINDATA_ROUTES_H_INCLUDED_ */
