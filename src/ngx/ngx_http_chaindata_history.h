
/*
 * chaindata: what the feeds' history lets the configured routes answer
 * of what the index does not hold (lmdb-schema/feed.md, "The history a
 * feed holds"), said by the configuration's check (ngx_http_chaindata_env.c)
 * and by a worker when it first opens the index (ngx_http_chaindata_store.c).
 */


#ifndef _NGX_HTTP_CHAINDATA_HISTORY_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_HISTORY_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>

#include <lmdb.h>


/*
 * In txn, for each chain of routes (1 << each chaindata_history_source_e)
 * whose feed cannot tell a miss, logs what its routes answer of one, the
 * index at db
 */
void ngx_http_chaindata_history_tell(ngx_log_t *log, MDB_txn *txn,
    MDB_dbi *dbi, ngx_str_t *db, ngx_uint_t routes);


#endif /* _NGX_HTTP_CHAINDATA_HISTORY_H_INCLUDED_ */
