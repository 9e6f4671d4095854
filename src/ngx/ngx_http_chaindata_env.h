
/*
 * chaindata: an LMDB environment's lifetime, below the store (the event
 * loop's reads) and the thread pool (chaindata_threads) alike: checked for
 * nginx -t, opened read-only, tried before it replaces another, its files
 * told apart, remapped when the loader grew its map, and closed when the
 * last reader of it is done.
 */


#ifndef _NGX_HTTP_CHAINDATA_ENV_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_ENV_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>

#include <lmdb.h>

#include "chaindata_schema.h"


/* the longest reason an index cannot be read that is kept */
#define NGX_HTTP_CHAINDATA_FAILURE_LEN  256


/* which file a path names */
typedef struct {
    dev_t        dev;
    ino_t        ino;
} ngx_http_chaindata_file_id_t;

/* the files an environment is made of */
typedef struct {
    ngx_http_chaindata_file_id_t   data;
    ngx_http_chaindata_file_id_t   lock;
} ngx_http_chaindata_env_files_t;


/*
 * Checks for nginx -t and the master: the worker user can read the index;
 * and says, as a worker does when it first opens it, what the routes (the
 * chains they serve, 1 << each chaindata_history_source_e) answer of what
 * it does not hold when a feed cannot tell (ngx_http_chaindata_history.h)
 */
ngx_int_t ngx_http_chaindata_env_check(ngx_cycle_t *cycle, ngx_str_t *db,
    ngx_uint_t max_readers, ngx_uint_t routes);

/*
 * Opens the index at path read-only, as every reader of the module does:
 * 0 or LMDB's error.  attach opens its databases and checks the schema:
 * NULL, or why it cannot be used (with LMDB's error in *mdb_rc).
 */
int ngx_http_chaindata_env_open(MDB_env **env, u_char *path,
    ngx_uint_t max_readers, unsigned flags);
const char *ngx_http_chaindata_env_attach(MDB_env *env, MDB_dbi *dbi,
    int *mdb_rc);

/*
 * Whether the index at path can be served, before the one open is let
 * go: NULL, or why not (err, of NGX_HTTP_CHAINDATA_FAILURE_LEN bytes, may
 * hold it).  check_data: its data.mdb against its meta pages, NGX_OK or
 * NGX_ERROR with why in err.
 */
const char *ngx_http_chaindata_env_try(ngx_str_t *path,
    ngx_uint_t max_readers, int *mdb_rc, char *err);
ngx_int_t ngx_http_chaindata_env_check_data(ngx_str_t *path, char *err,
    size_t len);

/*
 * Whether this process may open the files of the index at path as its
 * readers do (0, or the error); the words a worker's failure says it
 * with when it may not (EACCES), into buf, to at most last
 */
ngx_err_t ngx_http_chaindata_env_may_open(ngx_str_t *path);
u_char *ngx_http_chaindata_env_denied(u_char *buf, u_char *last);

/*
 * Which file DIR/name is (NGX_DECLINED: none); the files env is made of;
 * whether the files at its path are others now.
 */
ngx_int_t ngx_http_chaindata_file_id(ngx_str_t *dir, const char *name,
    ngx_http_chaindata_file_id_t *id);
void ngx_http_chaindata_env_files(MDB_env *env, ngx_str_t *path,
    ngx_http_chaindata_env_files_t *files);
ngx_uint_t ngx_http_chaindata_env_replaced(ngx_str_t *path,
    ngx_http_chaindata_env_files_t *files);

/*
 * The store is done with env (another index was renamed over it, the
 * worker exits): it closes now, or when the last thread reading it ends.
 */
void ngx_http_chaindata_env_close(MDB_env *env);

/* adopts the map the loader grew (no thread reads env meanwhile) */
int ngx_http_chaindata_env_remap(MDB_env *env);


/*
 * For chaindata_threads: an environment the threads read, counted.  hold
 * before a task is posted (NULL: no memory), release when it ended, in
 * the event loop; in the thread, begin gives a read transaction (one kept
 * reset, or a new reader slot) and end gives it back reset, and no
 * remapping happens in between.  exit: the worker exits, no thread runs.
 */
typedef struct ngx_http_chaindata_held_s  ngx_http_chaindata_held_t;

ngx_http_chaindata_held_t *ngx_http_chaindata_env_hold(ngx_log_t *log,
    MDB_env *env, MDB_dbi *dbi);
void ngx_http_chaindata_env_release(ngx_http_chaindata_held_t *h,
    ngx_log_t *log);
int ngx_http_chaindata_env_begin(ngx_http_chaindata_held_t *h,
    ngx_log_t *log, MDB_txn **txn, MDB_dbi **dbi);
void ngx_http_chaindata_env_end(ngx_http_chaindata_held_t *h,
    ngx_log_t *log, MDB_txn *txn);
void ngx_http_chaindata_env_exit(void);


#endif /* _NGX_HTTP_CHAINDATA_ENV_H_INCLUDED_ */
