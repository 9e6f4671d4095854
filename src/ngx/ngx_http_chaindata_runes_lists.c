
/*
 * chaindata: chaindata_runes' ledger lists (doc/module.md,
 * "chaindata_runes"): a rune's activity, a rune's activity of one
 * address, an address's activity and a block's activity, newest first.
 * A page at offset O of a list of C entries is seq C-1-O downwards
 * (rune_list, rune_list_entry, rune_ledger: lmdb-schema/runes.md), a
 * block's the ledger range of its height: one cursor seek and one step
 * an entry, whatever the offset.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_int.h"
#include "ngx_http_chaindata_runes.h"


/*
 * A ledger entry as served: with its rune, {"rune":REF, then the entry's
 * members; without, { then them (the ledger value holds them after the
 * rune's id key, without the opening brace)
 */

static ngx_int_t
ngx_http_chaindata_runes_entry(ngx_http_chaindata_runes_req_t *rq,
    const MDB_val *val, ngx_uint_t with_rune, ngx_uint_t i)
{
    size_t         len;
    MDB_val        ref;
    ngx_int_t      rc;
    const u_char  *id, *rest;

    if (chaindata_rune_id_value_parse(val->mv_data, val->mv_size, &id, &rest,
                                      &len)
        != 0)
    {
        return ngx_http_chaindata_runes_damaged(rq, CHAINDATA_DBI_RUNE_LEDGER,
                                                val);
    }

    ngx_http_chaindata_runes_next(rq, i);

    if (with_rune) {
        rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_REF, id,
                                          CHAINDATA_RUNE_ID_KEY_LEN, &ref);
        if (rc != NGX_OK) {
            /* every entry's rune has its ref */
            return NGX_ERROR;
        }

        ngx_http_chaindata_runes_add_str(&rq->body, "{\"rune\":");
        ngx_http_chaindata_runes_add(&rq->body, ref.mv_data, ref.mv_size);
        ngx_http_chaindata_runes_add_str(&rq->body, ",");

    } else {
        ngx_http_chaindata_runes_add_str(&rq->body, "{");
    }

    ngx_http_chaindata_runes_add(&rq->body, rest, len);

    return NGX_OK;
}


/* the entries of a list from seq downwards, at most the page's limit */

static ngx_int_t
ngx_http_chaindata_runes_list_walk(ngx_http_chaindata_runes_req_t *rq,
    const u_char *key, size_t key_len, uint32_t seq, ngx_uint_t with_rune)
{
    int          rc;
    u_char       ek[CHAINDATA_RUNE_LIST_ENTRY_KEY_MAX];
    MDB_val      k, v, entry;
    ngx_int_t    n;
    ngx_uint_t   i;
    MDB_cursor  *cur;

    cur = ngx_http_chaindata_runes_cursor(rq, CHAINDATA_DBI_RUNE_LIST_ENTRY);
    if (cur == NULL) {
        return NGX_ERROR;
    }

    k.mv_data = ek;
    k.mv_size = chaindata_rune_list_entry_key(ek, key, key_len, seq);

    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY);
    n = NGX_OK;

    for (i = 0; i < rq->q.limit && rc == 0 && n == NGX_OK; i++) {

        if (k.mv_size != key_len + 4 || ngx_memcmp(k.mv_data, key, key_len)
            || v.mv_size != CHAINDATA_RUNE_LEDGER_KEY_LEN)
        {
            n = ngx_http_chaindata_runes_damaged(rq,
                                            CHAINDATA_DBI_RUNE_LIST_ENTRY, &v);
            break;
        }

        n = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_LEDGER,
                                         v.mv_data, v.mv_size, &entry);

        if (n == NGX_OK) {
            n = ngx_http_chaindata_runes_entry(rq, &entry, with_rune, i);
        }

        if (seq-- == 0) {
            break;
        }

        rc = mdb_cursor_get(cur, &k, &v, MDB_PREV);
    }

    mdb_cursor_close(cur);

    if (n != NGX_OK || (rc != 0 && rc != MDB_NOTFOUND)) {
        /* a list's entry missing from the ledger is damage too */
        return NGX_ERROR;
    }

    return NGX_OK;
}


/* the count of a list (rune_list), NGX_DECLINED when it has none */

ngx_int_t
ngx_http_chaindata_runes_count(ngx_http_chaindata_runes_req_t *rq,
    const u_char *key, size_t key_len, uint32_t *count)
{
    MDB_val    val;
    ngx_int_t  rc;

    rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_LIST, key,
                                      key_len, &val);
    if (rc != NGX_OK) {
        return rc;
    }

    if (chaindata_rune_list_count(val.mv_data, val.mv_size, count) != 0) {
        return ngx_http_chaindata_runes_damaged(rq, CHAINDATA_DBI_RUNE_LIST,
                                                &val);
    }

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_runes_list_page(ngx_http_chaindata_runes_req_t *rq,
    const u_char *key, size_t key_len, ngx_uint_t with_rune)
{
    uint32_t   count;
    ngx_int_t  rc;

    rc = ngx_http_chaindata_runes_count(rq, key, key_len, &count);
    if (rc != NGX_OK) {
        return rc;
    }

    ngx_http_chaindata_runes_page_head(rq, count);

    if (rq->q.offset < count
        && ngx_http_chaindata_runes_list_walk(rq, key, key_len,
                                    (uint32_t) (count - 1 - rq->q.offset),
                                    with_rune)
           != NGX_OK)
    {
        return NGX_ERROR;
    }

    ngx_http_chaindata_runes_page_tail(rq);

    return NGX_OK;
}


/* the rune of the path's etching, and the address of its second part */

static ngx_int_t
ngx_http_chaindata_runes_rune_list(ngx_http_chaindata_runes_req_t *rq,
    ngx_uint_t with_address)
{
    u_char     id[CHAINDATA_RUNE_ID_KEY_LEN];
    u_char     addr[CHAINDATA_RUNE_ADDRESS_KEY_MAX];
    u_char     key[CHAINDATA_RUNE_LIST_KEY_MAX];
    size_t     n;
    ngx_int_t  rc;

    rc = ngx_http_chaindata_runes_etching(rq, rq->data, &rq->params->param[0],
                                          id, NULL);
    if (rc != NGX_OK) {
        return rc;
    }

    if (!with_address) {
        n = chaindata_rune_list_key_r(key, id);
        return ngx_http_chaindata_runes_list_page(rq, key, n, 0);
    }

    n = chaindata_rune_address_key(addr, rq->params->param[1].data,
                                   rq->params->param[1].len);
    if (n == 0) {
        return NGX_DECLINED;
    }

    n = chaindata_rune_list_key_p(key, id, addr, n);

    return ngx_http_chaindata_runes_list_page(rq, key, n, 0);
}


static ngx_int_t
ngx_http_chaindata_runes_etching_activity_read(
    ngx_http_chaindata_runes_req_t *rq)
{
    return ngx_http_chaindata_runes_rune_list(rq, 0);
}


static ngx_int_t
ngx_http_chaindata_runes_etching_address_activity_read(
    ngx_http_chaindata_runes_req_t *rq)
{
    return ngx_http_chaindata_runes_rune_list(rq, 1);
}


static ngx_int_t
ngx_http_chaindata_runes_address_activity_read(
    ngx_http_chaindata_runes_req_t *rq)
{
    u_char  addr[CHAINDATA_RUNE_ADDRESS_KEY_MAX];
    u_char  key[CHAINDATA_RUNE_LIST_KEY_MAX];
    size_t  n;

    n = chaindata_rune_address_key(addr, rq->params->param[0].data,
                                   rq->params->param[0].len);
    if (n == 0) {
        return NGX_DECLINED;
    }

    n = chaindata_rune_list_key_a(key, addr, n);

    return ngx_http_chaindata_runes_list_page(rq, key, n, 1);
}


/* the height of the block the path names, by height or by hash */

static ngx_int_t
ngx_http_chaindata_runes_block_height(ngx_http_chaindata_runes_req_t *rq,
    const chaindata_block_param_t *b, uint64_t *height)
{
    u_char     key[CHAINDATA_RUNE_HASH_KEY_LEN];
    MDB_val    val;
    ngx_int_t  rc;

    if (b->form == CHAINDATA_BLOCK_HEIGHT) {
        *height = b->height;
        return NGX_OK;
    }

    if (b->form != CHAINDATA_BLOCK_HASH) {
        return NGX_DECLINED;
    }

    rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_BLOCK, key,
                                      chaindata_rune_hash_key(key, b->hash),
                                      &val);
    if (rc != NGX_OK) {
        return rc;
    }

    if (chaindata_rune_hash_value_parse(val.mv_data, val.mv_size, height)
        != 0)
    {
        return ngx_http_chaindata_runes_damaged(rq, CHAINDATA_DBI_RUNE_BLOCK,
                                                &val);
    }

    return NGX_OK;
}


/* the block's entries from position pos downwards, in the ledger */

static ngx_int_t
ngx_http_chaindata_runes_block_walk(ngx_http_chaindata_runes_req_t *rq,
    uint64_t height, uint32_t pos)
{
    int          rc;
    u_char       lk[CHAINDATA_RUNE_LEDGER_KEY_LEN];
    MDB_val      k, v;
    ngx_int_t    n;
    ngx_uint_t   i;
    MDB_cursor  *cur;

    cur = ngx_http_chaindata_runes_cursor(rq, CHAINDATA_DBI_RUNE_LEDGER);
    if (cur == NULL) {
        return NGX_ERROR;
    }

    chaindata_rune_ledger_key(lk, height, pos);
    k.mv_data = lk;
    k.mv_size = CHAINDATA_RUNE_LEDGER_KEY_LEN;

    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY);
    n = NGX_OK;

    for (i = 0; i < rq->q.limit && rc == 0 && n == NGX_OK; i++) {

        if (k.mv_size != CHAINDATA_RUNE_LEDGER_KEY_LEN
            || chaindata_rune_ledger_height(k.mv_data) != height)
        {
            break;
        }

        n = ngx_http_chaindata_runes_entry(rq, &v, 1, i);

        rc = mdb_cursor_get(cur, &k, &v, MDB_PREV);
    }

    mdb_cursor_close(cur);

    if (n != NGX_OK || (rc != 0 && rc != MDB_NOTFOUND)) {
        return NGX_ERROR;
    }

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_runes_block_activity_read(
    ngx_http_chaindata_runes_req_t *rq)
{
    u_char     key[CHAINDATA_RUNE_BLOCK_KEY_LEN];
    MDB_val    val;
    uint32_t   count;
    uint64_t   height;
    ngx_int_t  rc;

    rc = ngx_http_chaindata_runes_block_height(rq, rq->data, &height);
    if (rc != NGX_OK) {
        return rc;
    }

    rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_BLOCK, key,
                                      chaindata_rune_block_key(key, height),
                                      &val);
    if (rc != NGX_OK) {
        return rc;
    }

    if (chaindata_rune_block_value_parse(val.mv_data, val.mv_size, &count,
                                         NULL)
        != 0)
    {
        return ngx_http_chaindata_runes_damaged(rq, CHAINDATA_DBI_RUNE_BLOCK,
                                                &val);
    }

    ngx_http_chaindata_runes_page_head(rq, count);

    if (rq->q.offset < count
        && ngx_http_chaindata_runes_block_walk(rq, height,
                                    (uint32_t) (count - 1 - rq->q.offset))
           != NGX_OK)
    {
        return NGX_ERROR;
    }

    ngx_http_chaindata_runes_page_tail(rq);

    return NGX_OK;
}


#define NGX_HTTP_CHAINDATA_RUNES_BLOCK_INVALID                               \
    "params/block must match pattern \"^[0-9]+$\", params/block must match " \
    "pattern \"^[0]{8}[a-fA-F0-9]{56}$\", params/block must match a schema " \
    "in anyOf"


ngx_int_t
ngx_http_chaindata_runes_etching_activity_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_runes_serve_etching(r, path, params,
               ngx_http_chaindata_runes_etching_activity_read, 1);
}


ngx_int_t
ngx_http_chaindata_runes_etching_address_activity_handler(
    ngx_http_request_t *r, const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_runes_serve_etching(r, path, params,
               ngx_http_chaindata_runes_etching_address_activity_read, 1);
}


ngx_int_t
ngx_http_chaindata_runes_address_activity_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_runes_serve(r, path, params,
               ngx_http_chaindata_runes_address_activity_read, NULL, 1);
}


ngx_int_t
ngx_http_chaindata_runes_block_activity_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    chaindata_block_param_t  block;

    chaindata_block_param(&block, params->param[0].data,
                          params->param[0].len);

    if (block.form == CHAINDATA_BLOCK_BAD) {
        return ngx_http_chaindata_send_invalid(r,
                   &ngx_http_chaindata_runes_route,
                   NGX_HTTP_CHAINDATA_RUNES_BLOCK_INVALID);
    }

    return ngx_http_chaindata_runes_serve(r, path, params,
               ngx_http_chaindata_runes_block_activity_read, &block, 1);
}
