
/*
 * chaindata: chaindata_runes' etchings (doc/module.md, "chaindata_runes"):
 * GET {prefix}/etchings, every rune newest first, and GET
 * {prefix}/etchings/{etching}, one rune by id, number, name or spaced
 * name; and the rune an etching parameter names, for the paths under it
 * (rune_etching and rune_name, lmdb-schema/runes.md).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_runes.h"


/* the etching document of a rune number (its value's JSON), and its id */

static ngx_int_t
ngx_http_chaindata_runes_numbered(ngx_http_chaindata_runes_req_t *rq,
    uint64_t number, const u_char **id_key, MDB_val *doc)
{
    u_char        key[CHAINDATA_RUNE_NUMBER_LEN];
    size_t        len;
    MDB_val       val;
    ngx_int_t     rc;
    const u_char *json;

    chaindata_rune_number_key(key, number);

    rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_ETCHING, key,
                                      CHAINDATA_RUNE_NUMBER_LEN, &val);
    if (rc != NGX_OK) {
        return rc;
    }

    if (chaindata_rune_id_value_parse(val.mv_data, val.mv_size, id_key,
                                      &json, &len)
        != 0)
    {
        return ngx_http_chaindata_runes_damaged(rq,
                                                CHAINDATA_DBI_RUNE_ETCHING,
                                                &val);
    }

    doc->mv_data = (void *) json;
    doc->mv_size = len;

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_runes_etching(ngx_http_chaindata_runes_req_t *rq,
    const chaindata_etching_t *e, const chaindata_span_t *param,
    u_char *id_key, MDB_val *doc)
{
    u_char         key[CHAINDATA_RUNE_NAME_KEY_MAX];
    size_t         n;
    MDB_val        val, json;
    ngx_int_t      rc;
    const u_char  *id;

    switch (e->form) {

    case CHAINDATA_ETCHING_ID:
        if (doc == NULL) {
            /* a list of the rune's: its id is its key */
            ngx_memcpy(id_key, e->id_key, CHAINDATA_RUNE_ID_KEY_LEN);
            return NGX_OK;
        }

        n = chaindata_rune_name_id_key(key, e->id_key);
        break;

    case CHAINDATA_ETCHING_NUMBER:
        n = 0;
        break;

    case CHAINDATA_ETCHING_NAME:
    case CHAINDATA_ETCHING_SPACED:
        n = chaindata_rune_name_key(key, e->name, e->name_len);
        break;

    default:
        return NGX_DECLINED;
    }

    if (n == 0) {
        rc = ngx_http_chaindata_runes_numbered(rq, e->number, &id, &json);

    } else {
        rc = ngx_http_chaindata_runes_get(rq, CHAINDATA_DBI_RUNE_NAME, key, n,
                                          &val);
        if (rc != NGX_OK) {
            return rc;
        }

        if (val.mv_size != CHAINDATA_RUNE_NUMBER_LEN) {
            return ngx_http_chaindata_runes_damaged(rq,
                                                    CHAINDATA_DBI_RUNE_NAME,
                                                    &val);
        }

        rc = ngx_http_chaindata_runes_numbered(rq,
                                 chaindata_rune_number(val.mv_data), &id,
                                 &json);
    }

    if (rc != NGX_OK) {
        return rc;
    }

    if (e->form == CHAINDATA_ETCHING_SPACED
        && !chaindata_etching_spaced_is(json.mv_data, json.mv_size,
                                        param->data, param->len))
    {
        return NGX_DECLINED;
    }

    ngx_memcpy(id_key, id, CHAINDATA_RUNE_ID_KEY_LEN);

    if (doc) {
        *doc = json;
    }

    return NGX_OK;
}


/*
 * Every rune, newest number first: the page at offset O starts at the
 * number highest - O (numbers are dense: upstream's total is the highest
 * one plus one), one cursor step an entry.
 */

static ngx_int_t
ngx_http_chaindata_runes_etchings_read(ngx_http_chaindata_runes_req_t *rq)
{
    int           rc;
    u_char        start[CHAINDATA_RUNE_NUMBER_LEN];
    size_t        len;
    uint64_t      highest;
    MDB_val       key, val;
    ngx_uint_t    i;
    MDB_cursor   *cur;
    const u_char *id, *json;

    cur = ngx_http_chaindata_runes_cursor(rq, CHAINDATA_DBI_RUNE_ETCHING);
    if (cur == NULL) {
        return NGX_ERROR;
    }

    rc = mdb_cursor_get(cur, &key, &val, MDB_LAST);

    if (rc != 0 || key.mv_size != CHAINDATA_RUNE_NUMBER_LEN) {
        mdb_cursor_close(cur);
        return rc == MDB_NOTFOUND ? NGX_DECLINED : NGX_ERROR;
    }

    highest = chaindata_rune_number(key.mv_data);
    ngx_http_chaindata_runes_page_head(rq, highest + 1);

    if (rq->q.offset <= highest) {
        chaindata_rune_number_key(start, highest - rq->q.offset);
        key.mv_data = start;
        key.mv_size = CHAINDATA_RUNE_NUMBER_LEN;

        rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);

        if (rc == 0 && ngx_memcmp(key.mv_data, start, key.mv_size) > 0) {
            rc = mdb_cursor_get(cur, &key, &val, MDB_PREV);
        }

    } else {
        rc = MDB_NOTFOUND;
    }

    for (i = 0; i < rq->q.limit && rc == 0; i++) {

        if (chaindata_rune_id_value_parse(val.mv_data, val.mv_size, &id,
                                          &json, &len)
            != 0)
        {
            mdb_cursor_close(cur);
            return ngx_http_chaindata_runes_damaged(rq,
                                                 CHAINDATA_DBI_RUNE_ETCHING,
                                                 &val);
        }

        ngx_http_chaindata_runes_next(rq, i);
        ngx_http_chaindata_runes_add(&rq->body, json, len);

        rc = mdb_cursor_get(cur, &key, &val, MDB_PREV);
    }

    mdb_cursor_close(cur);

    if (rc != 0 && rc != MDB_NOTFOUND) {
        return NGX_ERROR;
    }

    ngx_http_chaindata_runes_page_tail(rq);

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_runes_etchings_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_runes_serve(r, path, params,
                                   ngx_http_chaindata_runes_etchings_read,
                                   NULL, 1);
}


static ngx_int_t
ngx_http_chaindata_runes_etching_read(ngx_http_chaindata_runes_req_t *rq)
{
    u_char     id[CHAINDATA_RUNE_ID_KEY_LEN];
    MDB_val    doc;
    ngx_int_t  rc;

    rc = ngx_http_chaindata_runes_etching(rq, rq->data, &rq->params->param[0],
                                          id, &doc);
    if (rc != NGX_OK) {
        return rc;
    }

    ngx_http_chaindata_runes_add(&rq->body, doc.mv_data, doc.mv_size);

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_runes_etching_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_runes_serve_etching(r, path, params,
                                   ngx_http_chaindata_runes_etching_read, 0);
}
