
/*
 * chaindata_threads: lookups likely to fault run in nginx's thread pool
 * first (ngx_http_chaindata_threads.c).
 */


#ifndef _NGX_HTTP_CHAINDATA_THREADS_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_THREADS_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <lmdb.h>

#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


/*
 * how many nice steps below their worker the pool's threads run: the event
 * loop goes first on the core they share
 */
#define NGX_HTTP_CHAINDATA_THREAD_NICE  8


char *ngx_http_chaindata_threads(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
ngx_int_t ngx_http_chaindata_threads_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf);
void ngx_http_chaindata_threads_exit(void);

/* a request's key, hashed once, from _post() to _note(): hashed = 0 first */
typedef struct {
    uint32_t                      hash;
    unsigned                      hashed:1;
} ngx_http_chaindata_threads_key_t;

/* NGX_DONE: the request resumes once the lookup is warm; NGX_DECLINED */
ngx_int_t ngx_http_chaindata_threads_post(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx,
    ngx_http_chaindata_threads_key_t *key);
void ngx_http_chaindata_threads_note(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx,
    ngx_http_chaindata_threads_key_t *key);
ngx_uint_t ngx_http_chaindata_threads_resumed(ngx_http_request_t *r);

/* for the store: an environment the threads may be reading */
void ngx_http_chaindata_threads_env_close(MDB_env *env);
void ngx_http_chaindata_threads_map_lock(MDB_env *env);
void ngx_http_chaindata_threads_map_unlock(MDB_env *env);


#endif /* _NGX_HTTP_CHAINDATA_THREADS_H_INCLUDED_ */
