
/*
 * chaindata: a route's read of the index, run (see the header).
 */


#include <ngx_config.h>
#include <ngx_core.h>

#include "chaindata_chunks.h"
#include "chaindata_layout.h"
#include "chaindata_parts.h"
#include "ngx_http_chaindata_read.h"


/* a value found under key, cur on it: its parts, if it has some, found */

static int
ngx_http_chaindata_read_found(MDB_cursor *cur, chaindata_dbi_e db,
    const MDB_val *key, MDB_val *val, ngx_http_chaindata_found_pt found,
    void *data)
{
    int      rc;
    size_t   n, len;
    MDB_val  part[CHAINDATA_PARTS_MAX - 1];

    if (!chaindata_parts_has(db, key->mv_size, val->mv_size)) {
        return found(data, val, NULL, 0, val->mv_size);
    }

    rc = chaindata_parts_read(cur, db, key, part, &n, &len);
    if (rc != 0) {
        return rc;
    }

    return found(data, val, part, n, len);
}


int
ngx_http_chaindata_read_record(MDB_txn *txn, MDB_dbi *dbi, MDB_cursor *kept,
    const ngx_http_chaindata_read_t *read, MDB_val *record,
    ngx_http_chaindata_found_pt found, void *data)
{
    int          rc;
    MDB_val      k;
    MDB_cursor  *cur;

    k.mv_data = read->key;
    k.mv_size = read->key_len;

    rc = mdb_get(txn, dbi[read->db], &k, record);

    if (rc != 0 || !chaindata_parts_has(read->db, k.mv_size, record->mv_size))
    {
        return rc ? rc : found(data, record, NULL, 0, record->mv_size);
    }

    /* its parts are the keys after it: a cursor, only for such a value */

    cur = kept;

    if (cur == NULL) {
        rc = mdb_cursor_open(txn, dbi[read->db], &cur);
        if (rc != 0) {
            return rc;
        }
    }

    rc = mdb_cursor_get(cur, &k, record, MDB_SET);

    if (rc == 0) {
        rc = ngx_http_chaindata_read_found(cur, read->db, &k, record, found,
                                           data);
    }

    if (kept == NULL) {
        mdb_cursor_close(cur);
    }

    return rc;
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
    ngx_http_chaindata_found_pt found, void *data)
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

        rc = ngx_http_chaindata_read_found(cur, read->list_db, &k, v, found,
                                           data);
        if (rc != 0) {
            return rc;
        }

        plan->got++;
        op = MDB_NEXT;
    }

    return 0;
}
