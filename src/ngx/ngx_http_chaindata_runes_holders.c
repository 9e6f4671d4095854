
/*
 * chaindata: chaindata_runes' holders (doc/module.md, "chaindata_runes"):
 * GET {prefix}/etchings/{etching}/holders, a rune's holders by balance,
 * largest first, ties by address (upstream has no tie-breaker), and GET
 * {prefix}/etchings/{etching}/holders/{address}, one holder's balance
 * (rune_holder, rune_holding, lmdb-schema/runes.md).  A page walks the
 * holders before its offset: O(offset), as the ordered keys hold no
 * counts.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_runes.h"


/* the holders of the rune from its key on: offset skipped, then a page */

static ngx_int_t
ngx_http_chaindata_runes_holders_walk(ngx_http_chaindata_runes_req_t *rq,
    const u_char *id)
{
    int          rc;
    MDB_val      k, v;
    uint64_t     skip;
    ngx_uint_t   i;
    MDB_cursor  *cur;

    cur = ngx_http_chaindata_runes_cursor(rq, CHAINDATA_DBI_RUNE_HOLDER);
    if (cur == NULL) {
        return NGX_ERROR;
    }

    k.mv_data = (void *) id;
    k.mv_size = CHAINDATA_RUNE_ID_KEY_LEN;

    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);

    for (skip = rq->q.offset; skip && rc == 0; skip--) {
        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }

    for (i = 0; i < rq->q.limit && rc == 0; i++) {

        if (k.mv_size <= CHAINDATA_RUNE_ID_KEY_LEN
            || ngx_memcmp(k.mv_data, id, CHAINDATA_RUNE_ID_KEY_LEN) != 0)
        {
            break;
        }

        ngx_http_chaindata_runes_next(rq, i);
        ngx_http_chaindata_runes_add(&rq->body, v.mv_data, v.mv_size);

        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }

    mdb_cursor_close(cur);

    return (rc == 0 || rc == MDB_NOTFOUND) ? NGX_OK : NGX_ERROR;
}


static ngx_int_t
ngx_http_chaindata_runes_holders_read(ngx_http_chaindata_runes_req_t *rq)
{
    u_char     id[CHAINDATA_RUNE_ID_KEY_LEN];
    u_char     key[CHAINDATA_RUNE_LIST_KEY_MAX];
    uint32_t   count;
    ngx_int_t  rc;

    rc = ngx_http_chaindata_runes_etching(rq, rq->data, &rq->params->param[0],
                                          id, NULL);
    if (rc != NGX_OK) {
        return rc;
    }

    rc = ngx_http_chaindata_runes_count(rq, key,
                                        chaindata_rune_list_key_h(key, id),
                                        &count);
    if (rc != NGX_OK) {
        return rc;
    }

    ngx_http_chaindata_runes_page_head(rq, count);

    if (rq->q.offset < count
        && ngx_http_chaindata_runes_holders_walk(rq, id) != NGX_OK)
    {
        return NGX_ERROR;
    }

    ngx_http_chaindata_runes_page_tail(rq);

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_runes_holders_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_runes_serve_etching(r, path, params,
                                   ngx_http_chaindata_runes_holders_read, 1);
}


/* the holding's sort key, then the holder record it names */

static ngx_int_t
ngx_http_chaindata_runes_holder_read(ngx_http_chaindata_runes_req_t *rq)
{
    u_char     id[CHAINDATA_RUNE_ID_KEY_LEN];
    u_char     addr[CHAINDATA_RUNE_ADDRESS_KEY_MAX];
    u_char     key[CHAINDATA_RUNE_HOLDER_KEY_MAX];
    size_t     n;
    MDB_val    sort, val;
    ngx_int_t  rc;

    rc = ngx_http_chaindata_runes_etching(rq, rq->data, &rq->params->param[0],
                                          id, NULL);
    if (rc != NGX_OK) {
        return rc;
    }

    n = chaindata_rune_address_key(addr, rq->params->param[1].data,
                                   rq->params->param[1].len);
    if (n == 0) {
        return NGX_DECLINED;
    }

    rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_HOLDING, key,
                                      chaindata_rune_holding_key(key, id,
                                                                 addr, n),
                                      &sort);
    if (rc != NGX_OK) {
        return rc;
    }

    if (sort.mv_size == 0 || sort.mv_size > CHAINDATA_RUNE_SORT_KEY_MAX) {
        return ngx_http_chaindata_runes_damaged(rq,
                                                CHAINDATA_DBI_RUNE_HOLDING,
                                                &sort);
    }

    rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_HOLDER, key,
                                      chaindata_rune_holder_key(key, id,
                                          sort.mv_data, sort.mv_size,
                                          addr, n),
                                      &val);
    if (rc != NGX_OK) {
        /* a holding without its holder is damage */
        return NGX_ERROR;
    }

    ngx_http_chaindata_runes_add(&rq->body, val.mv_data, val.mv_size);

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_runes_holder_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_runes_serve_etching(r, path, params,
                                   ngx_http_chaindata_runes_holder_read, 0);
}
