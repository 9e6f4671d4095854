
/*
 * chaindata: a route's read of the index, described once: the record of
 * a key in a database, and the chunks of the record's list that a page
 * [offset, offset + limit) of it takes (lmdb-schema/pieces.md, "Chunks").
 * The event loop (ngx_http_chaindata_store.c) and the thread pool
 * (ngx_http_chaindata_threads.c) run the same description, as nginx's
 * ngx_thread_read() and ngx_read_file() read the same file chunk: one
 * function finds the record, one walks the list's chunks, and both find
 * a value's parts.  Both only read LMDB: they allocate nothing and log
 * nothing (a thread may run them); what keeps a value is the caller's.
 */


#ifndef _NGX_HTTP_CHAINDATA_READ_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_READ_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>

#include <lmdb.h>

#include "chaindata_chunks.h"
#include "chaindata_schema.h"


/*
 * A page of at most max items of a list stored per items a chunk spans at
 * most NGX_HTTP_CHAINDATA_SPANS(max, per) chunks; each route checks that
 * its largest page fits in SPANS_MAX.
 */
#define NGX_HTTP_CHAINDATA_SPANS_MAX  7
#define NGX_HTTP_CHAINDATA_SPANS(max, per)  ((max) / (per) + 2)


/*
 * A record's list: its item count, and its first chunk when the record
 * holds it (chunk0->mv_size 0 when not); NGX_ERROR when the record is not
 * one.  May run in a thread: it only decodes.
 */
typedef ngx_int_t (*ngx_http_chaindata_list_pt)(const MDB_val *record,
    uint64_t *count, MDB_val *chunk0);

/*
 * The read: the record of key in db, and in list_db (CHAINDATA_DBI_COUNT:
 * none) the chunks of its list, per items each, that the page takes.
 */
typedef struct {
    chaindata_dbi_e               db;
    u_char                       *key;
    size_t                        key_len;
    chaindata_dbi_e               list_db;
    ngx_http_chaindata_list_pt    list;
    unsigned                      per;
    uint64_t                      offset;
    uint64_t                      limit;
} ngx_http_chaindata_read_t;

/* a route's description of its read, from the request's ctx */
typedef void (*ngx_http_chaindata_describe_pt)(void *ctx,
    ngx_http_chaindata_read_t *read);


/*
 * The chunks the page takes (n, at most SPANS_MAX), and the values of
 * those found (got): the record's own first chunk, then those after it.
 */
typedef struct {
    chaindata_chunk_span_t        span[NGX_HTTP_CHAINDATA_SPANS_MAX];
    MDB_val                       val[NGX_HTTP_CHAINDATA_SPANS_MAX];
    ngx_uint_t                    n;
    ngx_uint_t                    got;
} ngx_http_chaindata_plan_t;

/*
 * Told each value found (data is the caller's): val as it lies under its
 * key, and when it is kept in parts (chaindata_parts.h) its n parts after
 * that first one, len bytes in all.  The loop prefetches a value and
 * joins one in parts into its pool, making val the whole value; a thread
 * touches their pages.  0, or an error (ENOMEM).
 */
typedef int (*ngx_http_chaindata_found_pt)(void *data, MDB_val *val,
    const MDB_val *part, size_t n, size_t len);


/*
 * The record, its parts found with kept (a cursor of the read's db in txn)
 * when it has some, or with a cursor opened for them when kept is NULL:
 * 0, MDB_NOTFOUND, LMDB's error, or CHAINDATA_PARTS_DAMAGED.
 */
int ngx_http_chaindata_read_record(MDB_txn *txn, MDB_dbi *dbi,
    MDB_cursor *kept, const ngx_http_chaindata_read_t *read, MDB_val *record,
    ngx_http_chaindata_found_pt found, void *data);

/*
 * The chunks the page of a list of count items takes, when its record
 * holds chunk0 (the first chunk, mv_size 0 when not): 1 when some after
 * chunk0 are to be read, with chunks.  chunks reads them with cur (of
 * list_db), from the first the page takes on: 0 or LMDB's error; fewer
 * found than planned is the caller's to tell.
 */
ngx_uint_t ngx_http_chaindata_read_plan(const ngx_http_chaindata_read_t *read,
    uint64_t count, const MDB_val *chunk0, ngx_http_chaindata_plan_t *plan);
int ngx_http_chaindata_read_chunks(MDB_cursor *cur,
    const ngx_http_chaindata_read_t *read, ngx_http_chaindata_plan_t *plan,
    ngx_http_chaindata_found_pt found, void *data);


#endif /* _NGX_HTTP_CHAINDATA_READ_H_INCLUDED_ */
