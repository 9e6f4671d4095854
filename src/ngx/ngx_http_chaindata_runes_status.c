
/*
 * chaindata: chaindata_runes' status path, GET {prefix}/ (doc/module.md,
 * "chaindata_runes"): the API's status, its block height the newest
 * block of the runes ledger the index holds (rune_block, lmdb-schema/
 * runes.md); none when it holds no block, as upstream leaves it out.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_int.h"
#include "ngx_http_chaindata_runes.h"


#define NGX_HTTP_CHAINDATA_RUNES_VERSION                                     \
    "{\"server_version\":\"chaindata " CHAINDATA_VERSION                     \
    " (runes-api v3.0.2)\",\"status\":\"ready\""


/* the newest 'h' key of rune_block: the key after them all, one back */

static ngx_int_t
ngx_http_chaindata_runes_status_read(ngx_http_chaindata_runes_req_t *rq)
{
    int          rc;
    u_char       buf[sizeof(",\"block_height\":}") + NGX_INT64_LEN];
    u_char       after[1], *p;
    MDB_val      key, val;
    MDB_cursor  *cur;

    cur = ngx_http_chaindata_runes_cursor(rq, CHAINDATA_DBI_RUNE_BLOCK);
    if (cur == NULL) {
        return NGX_ERROR;
    }

    after[0] = CHAINDATA_RUNE_BLOCK_HEIGHT + 1;
    key.mv_data = after;
    key.mv_size = 1;

    rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
    rc = mdb_cursor_get(cur, &key, &val, rc == 0 ? MDB_PREV : MDB_LAST);

    mdb_cursor_close(cur);

    ngx_http_chaindata_runes_add_str(&rq->body,
                                     NGX_HTTP_CHAINDATA_RUNES_VERSION);

    if (rc == 0 && key.mv_size == CHAINDATA_RUNE_BLOCK_KEY_LEN
        && *(u_char *) key.mv_data == CHAINDATA_RUNE_BLOCK_HEIGHT)
    {
        p = ngx_sprintf(buf, ",\"block_height\":%uL",
                        chaindata_get_u64be((u_char *) key.mv_data + 1));
        ngx_http_chaindata_runes_add(&rq->body, buf, p - buf);

    } else if (rc != 0 && rc != MDB_NOTFOUND) {
        return NGX_ERROR;
    }

    ngx_http_chaindata_runes_add_str(&rq->body, "}");

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_runes_status_handler(ngx_http_request_t *r,
    const ngx_http_chaindata_path_t *path,
    const chaindata_path_params_t *params)
{
    return ngx_http_chaindata_runes_serve(r, path, params,
                                   ngx_http_chaindata_runes_status_read,
                                   NULL, 0);
}
