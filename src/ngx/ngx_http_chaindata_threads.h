
/*
 * chaindata_threads: reads likely to fault run in nginx's thread pool
 * first (ngx_http_chaindata_threads.c).
 */


#ifndef _NGX_HTTP_CHAINDATA_THREADS_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_THREADS_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <lmdb.h>

#include "ngx_http_chaindata_hints.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_read.h"


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

/*
 * Before a route reads the index (ngx_http_chaindata_read.h), and after:
 * NGX_DONE, the request resumes once the read is warm, or NGX_DECLINED;
 * note says where the record was (record[0].mv_data NULL: absent; record[1]
 * the other parts of a value kept in parts, record[2] the first chunk of
 * its list the page read: ngx_http_chaindata_hints_note()).
 */
ngx_int_t ngx_http_chaindata_threads_post(ngx_http_request_t *r,
    const ngx_http_chaindata_read_t *read, ngx_http_chaindata_hint_key_t *key);
void ngx_http_chaindata_threads_note(const ngx_http_chaindata_read_t *read,
    ngx_http_chaindata_hint_key_t *key, const MDB_val *record);
ngx_uint_t ngx_http_chaindata_threads_resumed(ngx_http_request_t *r);


#endif /* _NGX_HTTP_CHAINDATA_THREADS_H_INCLUDED_ */
