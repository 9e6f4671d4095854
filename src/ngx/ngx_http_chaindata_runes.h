
/*
 * chaindata: chaindata_runes, the Runes API's read routes (doc/module.md,
 * "chaindata_runes"): what its paths' files share.  The family's handler
 * (ngx_http_chaindata_runes_paths.c) finds the path; each path's handler
 * checks its parameters and answers with ngx_http_chaindata_runes_answer()
 * (ngx_http_chaindata_runes_answer.c), which reads the index in one read
 * transaction with the path's read callback, and makes the ETag, the
 * conditionals, the miss rule and gzip the same for every path.  The two
 * lists chaindata_rune_activity and chaindata_rune_balances serve
 * (ngx_http_chaindata_runes.c) keep their own reading.
 */


#ifndef _NGX_HTTP_CHAINDATA_RUNES_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_RUNES_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <lmdb.h>

#include "chaindata_paths_runes.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_routes.h"


/* a body made in the request's pool, grown as needed */
typedef struct {
    ngx_pool_t   *pool;
    u_char       *data;
    size_t        len;
    size_t        cap;
    ngx_uint_t    failed;
} ngx_http_chaindata_runes_body_t;


typedef struct ngx_http_chaindata_runes_req_s  ngx_http_chaindata_runes_req_t;

/*
 * A path's read, in the read transaction: NGX_OK with the body made (a
 * 200), NGX_DECLINED when the index does not hold what the path names
 * (the miss rule: with the whole history, a page's answer is the empty
 * page, another's upstream's 404), NGX_ERROR (logged).
 */
typedef ngx_int_t (*ngx_http_chaindata_runes_read_pt)(
    ngx_http_chaindata_runes_req_t *rq);

struct ngx_http_chaindata_runes_req_s {
    ngx_http_request_t                *r;
    const ngx_http_chaindata_path_t   *path;
    const chaindata_path_params_t     *params;
    ngx_http_chaindata_runes_read_pt   read;
    void                              *data;     /* the path's own */
    chaindata_page_params_t            q;        /* a page's query */
    unsigned                           page:1;
    MDB_txn                           *txn;
    MDB_dbi                           *dbi;
    ngx_http_chaindata_runes_body_t    body;
};


/* the 400s, 404s and 500s of the paths, upstream's */
extern const ngx_http_chaindata_route_t  ngx_http_chaindata_runes_route;

/* the etching parameter's 400, or its 500 (a number past a bigint) */
ngx_int_t ngx_http_chaindata_runes_bad_etching(ngx_http_request_t *r,
    const chaindata_etching_t *e, const chaindata_span_t *param);

/*
 * The answer of a path: rq's r, path, params, read (and data) set, page
 * when it is a page (its query is read here); serve makes rq of them;
 * serve_etching checks the etching parameter (params' first) before, its
 * chaindata_etching_t the read's data.
 */
ngx_int_t ngx_http_chaindata_runes_answer(ngx_http_chaindata_runes_req_t *rq);
ngx_int_t ngx_http_chaindata_runes_serve(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params,
    ngx_http_chaindata_runes_read_pt read, void *data, ngx_uint_t page);
ngx_int_t ngx_http_chaindata_runes_serve_etching(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params,
    ngx_http_chaindata_runes_read_pt read, ngx_uint_t page);

/* the body: bytes appended, and a page's envelope around its entries */
void ngx_http_chaindata_runes_add(ngx_http_chaindata_runes_body_t *b,
    const void *data, size_t len);
#define ngx_http_chaindata_runes_add_str(b, s)                               \
    ngx_http_chaindata_runes_add(b, s, sizeof(s) - 1)
void ngx_http_chaindata_runes_page_head(ngx_http_chaindata_runes_req_t *rq,
    uint64_t total);
void ngx_http_chaindata_runes_page_tail(ngx_http_chaindata_runes_req_t *rq);
/* the separator before an entry of a page but its first */
void ngx_http_chaindata_runes_next(ngx_http_chaindata_runes_req_t *rq,
    ngx_uint_t i);

/*
 * In the read transaction: the value of key in db (NGX_OK), NGX_DECLINED
 * when there is none, NGX_ERROR (logged)
 */
ngx_int_t ngx_http_chaindata_runes_get(ngx_http_chaindata_runes_req_t *rq,
    chaindata_dbi_e db, const u_char *key, size_t key_len, MDB_val *val);

/* a cursor of db in the read transaction (NULL: logged), closed by its user */
MDB_cursor *ngx_http_chaindata_runes_cursor(
    ngx_http_chaindata_runes_req_t *rq, chaindata_dbi_e db);

/* a value that cannot be decoded (logged); NGX_ERROR */
ngx_int_t ngx_http_chaindata_runes_damaged(
    ngx_http_chaindata_runes_req_t *rq, chaindata_dbi_e db,
    const MDB_val *val);

/*
 * The rune an etching parameter names (ngx_http_chaindata_runes_etchings.c):
 * its rune id key, and its document (doc: its JSON, NULL when not asked
 * for); NGX_DECLINED when the index holds no such rune.
 */
ngx_int_t ngx_http_chaindata_runes_etching(ngx_http_chaindata_runes_req_t *rq,
    const chaindata_etching_t *e, const chaindata_span_t *param,
    u_char *id_key, MDB_val *doc);

/*
 * The count of a list of rune_list (ngx_http_chaindata_runes_lists.c):
 * NGX_OK, NGX_DECLINED when the index holds none, NGX_ERROR
 */
ngx_int_t ngx_http_chaindata_runes_count(ngx_http_chaindata_runes_req_t *rq,
    const u_char *key, size_t key_len, uint32_t *count);

/*
 * A page of a ledger list (ngx_http_chaindata_runes_lists.c): the list of
 * kind and key (lmdb-schema/runes.md, rune_list), its entries with their
 * rune or without
 */
ngx_int_t ngx_http_chaindata_runes_list_page(
    ngx_http_chaindata_runes_req_t *rq, const u_char *key, size_t key_len,
    ngx_uint_t with_rune);


#endif /* _NGX_HTTP_CHAINDATA_RUNES_H_INCLUDED_ */
