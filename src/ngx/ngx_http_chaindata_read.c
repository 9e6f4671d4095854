
/*
 * chaindata: a route's read of the index, run (see the header).
 */


#include <ngx_config.h>
#include <ngx_core.h>

#include "chaindata_chunks.h"
#include "chaindata_layout.h"
#include "ngx_http_chaindata_read.h"


int
ngx_http_chaindata_read_record(MDB_txn *txn, MDB_dbi *dbi,
    const ngx_http_chaindata_read_t *read, MDB_val *record)
{
    MDB_val  k;

    k.mv_data = read->key;
    k.mv_size = read->key_len;

    return mdb_get(txn, dbi[read->db], &k, record);
}


/* the chunks the page takes; 1 when some are to be read with a cursor */

ngx_uint_t
ngx_http_chaindata_read_plan(const ngx_http_chaindata_read_t *read,
    uint64_t count, const MDB_val *chunk0, ngx_http_chaindata_plan_t *plan)
{
    plan->got = 0;
    plan->n = chaindata_chunk_plan(count, read->per, read->offset,
                                   read->limit, plan->span,
                                   NGX_HTTP_CHAINDATA_SPANS_MAX);

    /* the page's first chunk is the record's own: none to look up */
    if (plan->n && chunk0->mv_size && plan->span[0].chunk == 0) {
        plan->val[0] = *chunk0;
        plan->got = 1;
    }

    return plan->got < plan->n;
}


int
ngx_http_chaindata_read_chunks(MDB_cursor *cur,
    const ngx_http_chaindata_read_t *read, ngx_http_chaindata_plan_t *plan,
    ngx_http_chaindata_found_pt found)
{
    int            rc;
    MDB_val        k, *v;
    MDB_cursor_op  op;
    u_char         key[CHAINDATA_LIST_ENTRY_KEY_MAX];

    if (plan->got >= plan->n) {
        return 0;
    }

    k.mv_data = key;
    k.mv_size = chaindata_list_entry_key(key, read->key, read->key_len,
                                         plan->span[plan->got].chunk);
    op = MDB_SET_RANGE;

    while (plan->got < plan->n) {
        v = &plan->val[plan->got];

        rc = mdb_cursor_get(cur, &k, v, op);

        if (rc == MDB_NOTFOUND) {
            return 0;
        }

        if (rc != 0) {
            return rc;
        }

        if (k.mv_size < read->key_len
            || ngx_memcmp(k.mv_data, read->key, read->key_len) != 0)
        {
            return 0;
        }

        found(v);

        plan->got++;
        op = MDB_NEXT;
    }

    return 0;
}
