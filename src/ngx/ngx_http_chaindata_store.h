
/*
 * chaindata: the index as the module sees it.  One environment per
 * worker, opened read-only in init_process (and again, between requests,
 * when another index was renamed over it), and one read transaction that
 * each request renews and resets; values must be copied out before the
 * reset.
 */


#ifndef _NGX_HTTP_CHAINDATA_STORE_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_STORE_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>

#include <lmdb.h>

#include "chaindata_history.h"
#include "chaindata_schema.h"
#include "chaindata_status.h"
#include "ngx_http_chaindata_read.h"

/*
 * routes: the chains the configured routes serve (1 << each
 * chaindata_history_source_e), told once when the index first opens
 * when one has no feed behind it
 */
ngx_int_t ngx_http_chaindata_store_open(ngx_log_t *log, ngx_str_t *db,
    ngx_uint_t max_readers, ngx_uint_t routes);
void ngx_http_chaindata_store_close(void);

/* NGX_OK, or NGX_DECLINED when the index cannot be read now (logged) */
ngx_int_t ngx_http_chaindata_store_begin(ngx_log_t *log);
void ngx_http_chaindata_store_end(void);
/* whether the last read that could not begin found the reader table full */
ngx_uint_t ngx_http_chaindata_store_readers_full(void);
/*
 * why the index at chaindata_db cannot be read, as last logged (the one
 * open may serve meanwhile), or NULL when it can
 */
const char *ngx_http_chaindata_store_failure(void);

/*
 * Between begin and end, a route's read (ngx_http_chaindata_read.h): the
 * record, NGX_OK, NGX_DECLINED when absent, NGX_ERROR (logged), and where
 * it lies in the map for chaindata_threads' hints (at[2], when not NULL:
 * the value, or the first part and the others of one kept in parts, then
 * joined in pool); the chunks of the record's list that the page takes,
 * when the record holds count items and maybe the first chunk (chunk0),
 * NGX_OK or NGX_ERROR (logged), and where the first of them read lies
 * (*at, when at is not NULL: its value, or its first part; left as it is
 * when none is read).
 */
ngx_int_t ngx_http_chaindata_store_read(ngx_log_t *log, ngx_pool_t *pool,
    const ngx_http_chaindata_read_t *read, MDB_val *record, MDB_val *at);
ngx_int_t ngx_http_chaindata_store_chunks(ngx_log_t *log, ngx_pool_t *pool,
    const ngx_http_chaindata_read_t *read, uint64_t count,
    const MDB_val *chunk0, ngx_http_chaindata_plan_t *plan, MDB_val *at);


/*
 * For chaindata_threads: the environment open and its databases (NULL
 * when none is), and the number of the opening, which changes with each
 * (and when the map moves).
 */
MDB_env *ngx_http_chaindata_store_env(MDB_dbi **dbi, ngx_uint_t *generation);


/*
 * Between begin and end: the read transaction and the databases' handles,
 * for a route that walks several of them with cursors of its own (closed
 * before end); NULL outside.
 */
MDB_txn *ngx_http_chaindata_store_txn(MDB_dbi **dbi);


/*
 * Between begin and end: which history the index holds of a chain (read
 * once a snapshot).  NGX_OK or NGX_ERROR (logged).
 */
ngx_int_t ngx_http_chaindata_store_history(ngx_log_t *log,
    chaindata_history_source_e source, chaindata_history_t *h);


/* between begin and end: counts, sizes and feed positions */
ngx_int_t ngx_http_chaindata_store_status(ngx_log_t *log,
    chaindata_status_t *status);


#endif /* _NGX_HTTP_CHAINDATA_STORE_H_INCLUDED_ */
