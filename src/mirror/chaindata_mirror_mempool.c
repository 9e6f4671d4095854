
/*
 * chaindata-mirror: the Stacks mempool (hirosystems/stacks-blockchain-api,
 * src/api/routes/tx.ts):
 *
 *   GET /extended/v1/tx/mempool?limit=50&offset=N   pending transactions,
 *       {limit,offset,total,results}, each as parseDbMempoolTx makes it,
 *       which is what GET /extended/v1/tx/{tx_id} serves for them
 *   GET /extended/v1/tx/{tx_id}                     a transaction that
 *       left the mempool: confirmed (its block brings it), dropped or
 *       replaced (tx_status "dropped_…"), or 404
 *
 * Each pass writes the pending transactions the index does not hold yet,
 * and for those it holds as pending that upstream's mempool no longer
 * lists, what upstream serves now: the dropped document, or a delete.  A
 * confirmed transaction is never overwritten by a pending one.  The
 * pending ones the index holds are found at start by a scan of "tx".
 */


#define _GNU_SOURCE             /* memmem */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"


#define CHAINDATA_MEMPOOL_PAGE   50


static int
chaindata_id_cmp(const void *a, const void *b)
{
    return memcmp(a, b, CHAINDATA_TXID_LEN);
}


static int
chaindata_ids_add(unsigned char **ids, size_t *n, const unsigned char *id)
{
    unsigned char  *p;

    if ((*n & 255) == 0) {
        p = realloc(*ids, (*n + 256) * CHAINDATA_TXID_LEN);
        if (p == NULL) {
            return -1;
        }

        *ids = p;
    }

    memcpy(*ids + *n * CHAINDATA_TXID_LEN, id, CHAINDATA_TXID_LEN);
    (*n)++;

    return 0;
}


static int
chaindata_ids_has(const unsigned char *ids, size_t n, const unsigned char *id)
{
    return n && bsearch(id, ids, n, CHAINDATA_TXID_LEN, chaindata_id_cmp);
}


/* 1: the document has the pending status; value is a "tx" record's */

static int
chaindata_stored_pending(const MDB_val *v)
{
    chaindata_txh_t  h;

    return chaindata_txh_decode(&h, v->mv_data, v->mv_size) == 0
           && (h.flags & CHAINDATA_TXH_PENDING);
}


/* the pending transactions of the index, in key order (sorted) */

static int
chaindata_mempool_scan(chaindata_mirror_t *m)
{
    int          rc;
    MDB_txn     *txn;
    MDB_val      key, val;
    MDB_cursor  *cur;

    rc = mdb_txn_begin(m->in.ix.env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) {
        return -1;
    }

    rc = mdb_cursor_open(txn, m->in.ix.dbi[CHAINDATA_DBI_TX], &cur);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return -1;
    }

    for (rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST);
         rc == 0;
         rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT))
    {
        if (key.mv_size == CHAINDATA_TXID_LEN && chaindata_stored_pending(&val)
            && chaindata_ids_add(&m->pending, &m->npending, key.mv_data) != 0)
        {
            rc = ENOMEM;
            break;
        }
    }

    mdb_cursor_close(cur);
    mdb_txn_abort(txn);

    return rc == MDB_NOTFOUND ? 0 : -1;
}


/* 1 when the index holds the transaction with its events (confirmed) */

static int
chaindata_stored_confirmed(chaindata_mirror_t *m, const unsigned char *id)
{
    int              confirmed;
    MDB_txn         *txn;
    MDB_val          key, val;
    chaindata_txh_t  h;

    if (mdb_txn_begin(m->in.ix.env, NULL, MDB_RDONLY, &txn) != 0) {
        return 0;
    }

    key.mv_data = (void *) id;
    key.mv_size = CHAINDATA_TXID_LEN;

    confirmed = mdb_get(txn, m->in.ix.dbi[CHAINDATA_DBI_TX], &key, &val) == 0
                && chaindata_txh_decode(&h, val.mv_data, val.mv_size) == 0
                && (h.flags & CHAINDATA_TXH_EVENTS);

    mdb_txn_abort(txn);

    return confirmed;
}


static int
chaindata_doc_id(const chaindata_jv_t *doc, unsigned char *id)
{
    int                    prefixed;
    const chaindata_jv_t  *v;

    v = doc->type == CHAINDATA_JV_OBJECT ? chaindata_jv_get(doc, "tx_id")
                                         : NULL;

    return v && v->type == CHAINDATA_JV_STRING
           && chaindata_txid_parse(v->str, v->len, id, &prefixed) == 0
           && prefixed ? 0 : -1;
}


/* a page of the mempool: the mempool moves, so only its shape is held */

static int
chaindata_mempool_check(chaindata_req_t *r)
{
    uint64_t               total;
    unsigned char          id[CHAINDATA_TXID_LEN];
    chaindata_jv_t        *res;
    const chaindata_jv_t  *tx;

    res = (chaindata_jv_t *) chaindata_req_txs_page(r, "mempool", "it",
                                                    CHAINDATA_MEMPOOL_MAX,
                                                    &total);
    if (res == NULL) {
        return -1;
    }

    if (res->n > CHAINDATA_MEMPOOL_PAGE) {
        return chaindata_req_fail(r, "more than %d transactions on a page "
                                  "of the mempool", CHAINDATA_MEMPOOL_PAGE);
    }

    for (tx = res->child; tx; tx = tx->next) {
        if (chaindata_doc_id(tx, id) != 0) {
            return chaindata_req_fail(r, "a transaction without a tx_id");
        }
    }

    r->arg = total;
    r->list = res;

    return 0;
}


/* a transaction that left the mempool: its document, or a 404 */

static int
chaindata_gone_check(chaindata_req_t *r)
{
    unsigned char  id[CHAINDATA_TXID_LEN];

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    if (chaindata_doc_id(r->root, id) != 0
        || memcmp(id, r->ctx, CHAINDATA_TXID_LEN) != 0)
    {
        return chaindata_req_fail(r, "not the transaction asked for");
    }

    return 0;
}


static chaindata_req_t *
chaindata_mempool_req(chaindata_mirror_t *m, size_t offset)
{
    return chaindata_req_new(chaindata_mempool_check,
                             "%s/extended/v1/tx/mempool?limit=%d&offset=%zu",
                             m->stacks_api, CHAINDATA_MEMPOOL_PAGE, offset);
}


static void
chaindata_reqs_free(chaindata_req_t **reqs, size_t n)
{
    size_t  i;

    for (i = 0; reqs && i < n; i++) {
        chaindata_req_free(reqs[i]);
    }

    free(reqs);
}


/* every page of upstream's mempool, as it is while they are fetched */

static int
chaindata_mempool_pages(chaindata_mirror_t *m, chaindata_req_t ***out,
    size_t *n)
{
    int                rc;
    size_t             i, npages;
    chaindata_req_t   *first, **reqs;

    first = chaindata_mempool_req(m, 0);

    rc = chaindata_mirror_fetch(m, &first, 1);
    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_req_free(first);
        return rc;
    }

    npages = first->arg ? (first->arg + CHAINDATA_MEMPOOL_PAGE - 1)
                          / CHAINDATA_MEMPOOL_PAGE : 1;

    reqs = calloc(npages, sizeof(chaindata_req_t *));
    if (reqs == NULL) {
        chaindata_req_free(first);
        return CHAINDATA_EXIT_SYSTEM;
    }

    reqs[0] = first;

    for (i = 1; i < npages; i++) {
        reqs[i] = chaindata_mempool_req(m, i * CHAINDATA_MEMPOOL_PAGE);
    }

    rc = chaindata_mirror_fetch(m, reqs + 1, npages - 1);

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_reqs_free(reqs, npages);
        return rc;
    }

    *out = reqs;
    *n = npages;

    return CHAINDATA_EXIT_OK;
}


/* a "tx" record of doc, or a delete of id when doc is NULL */

static int
chaindata_mempool_record(chaindata_mirror_t *m, const chaindata_jv_t *doc,
    const unsigned char *id)
{
    unsigned char     hex[2 + 2 * CHAINDATA_TXID_LEN];
    chaindata_line_t  l;

    chaindata_line_open(&l, "tx", doc ? chaindata_jv_size(doc) : 0);

    if (doc) {
        chaindata_line_json(&l, "data", doc);

    } else {
        hex[0] = '0';
        hex[1] = 'x';
        (void) chaindata_hex_encode(hex + 2, id, CHAINDATA_TXID_LEN);
        chaindata_line_str(&l, "delete", hex, sizeof(hex));
    }

    (void) chaindata_line_close(&l);

    return chaindata_mirror_emit(m, &l, "mempool: a record upstream's "
                                 "answers make");
}


/*
 * The transactions the index holds as pending that upstream's mempool no
 * longer lists: each as upstream serves it now.  Those still pending
 * (the pages moved under the mirror) are added to next.
 */

static int
chaindata_mempool_gone(chaindata_mirror_t *m, const unsigned char *listed,
    size_t nlisted, unsigned char **next, size_t *nnext)
{
    int                    rc;
    char                   hex[CHAINDATA_TXID_HEX_LEN + 1];
    size_t                 i, n;
    unsigned char         *id;
    chaindata_req_t      **reqs;
    const chaindata_jv_t  *root, *st;

    reqs = calloc(m->npending + 1, sizeof(chaindata_req_t *));
    if (reqs == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0, n = 0; i < m->npending; i++) {
        id = m->pending + i * CHAINDATA_TXID_LEN;

        if (chaindata_ids_has(listed, nlisted, id)) {
            continue;
        }

        *chaindata_hex_encode((unsigned char *) hex, id, CHAINDATA_TXID_LEN)
            = '\0';

        reqs[n] = chaindata_req_new(chaindata_gone_check,
                                    "%s/extended/v1/tx/0x%s?event_limit=100"
                                    "&event_offset=0", m->stacks_api, hex);
        if (reqs[n]) {
            reqs[n]->ctx = id;
            reqs[n]->gone_ok = 1;
        }

        n++;
    }

    rc = chaindata_mirror_fetch(m, reqs, n);

    for (i = 0; rc == CHAINDATA_EXIT_OK && i < n; i++) {
        root = reqs[i]->root;
        id = reqs[i]->ctx;
        st = root ? chaindata_jv_get(root, "tx_status") : NULL;

        if (root && chaindata_jv_get(root, "events")) {
            continue;   /* confirmed: its block brings it */
        }

        if (st && chaindata_jv_is(st, "pending")) {
            if (chaindata_ids_add(next, nnext, id) != 0) {
                rc = CHAINDATA_EXIT_SYSTEM;
            }

            continue;
        }

        if (root == NULL && chaindata_stored_confirmed(m, id)) {
            continue;
        }

        if (chaindata_mempool_record(m, root, id) != 0) {
            rc = CHAINDATA_EXIT_INPUT;
        }
    }

    chaindata_reqs_free(reqs, n);

    return rc;
}


/* the pending transactions of the pages: new ones written, all in next */

static int
chaindata_mempool_listed(chaindata_mirror_t *m, chaindata_req_t **pages,
    size_t npages, unsigned char **listed, size_t *nlisted,
    unsigned char **next, size_t *nnext)
{
    size_t                 i;
    unsigned char          id[CHAINDATA_TXID_LEN];
    const chaindata_jv_t  *tx, *st;

    for (i = 0; i < npages; i++) {
        for (tx = pages[i]->list->child; tx; tx = tx->next) {
            (void) chaindata_doc_id(tx, id);
            st = chaindata_jv_get(tx, "tx_status");

            if (chaindata_ids_add(listed, nlisted, id) != 0) {
                return CHAINDATA_EXIT_SYSTEM;
            }

            if (st == NULL || !chaindata_jv_is(st, "pending")
                || chaindata_stored_confirmed(m, id))
            {
                continue;
            }

            if (chaindata_ids_add(next, nnext, id) != 0) {
                return CHAINDATA_EXIT_SYSTEM;
            }

            if (!chaindata_ids_has(m->pending, m->npending, id)
                && chaindata_mempool_record(m, tx, id) != 0)
            {
                return CHAINDATA_EXIT_INPUT;
            }
        }
    }

    if (*nlisted) {
        qsort(*listed, *nlisted, CHAINDATA_TXID_LEN, chaindata_id_cmp);
    }

    return CHAINDATA_EXIT_OK;
}


static void
chaindata_ids_unique(unsigned char *ids, size_t *n)
{
    size_t  i, k;

    if (*n == 0) {
        return;
    }

    qsort(ids, *n, CHAINDATA_TXID_LEN, chaindata_id_cmp);

    for (i = 0, k = 0; i < *n; i++) {
        if (k && memcmp(ids + (k - 1) * CHAINDATA_TXID_LEN,
                        ids + i * CHAINDATA_TXID_LEN, CHAINDATA_TXID_LEN)
                 == 0)
        {
            continue;
        }

        memmove(ids + k++ * CHAINDATA_TXID_LEN, ids + i * CHAINDATA_TXID_LEN,
                CHAINDATA_TXID_LEN);
    }

    *n = k;
}


/* one pass: the changes of upstream's mempool, in one commit */

int
chaindata_mempool_poll(chaindata_mirror_t *m)
{
    int               rc;
    size_t            npages, nlisted, nnext;
    unsigned char    *listed, *next;
    chaindata_req_t **pages;

    if (!m->pending_read) {
        if (chaindata_mempool_scan(m) != 0) {
            chaindata_mirror_log(m, "error", "cannot read the pending "
                                 "transactions of the index");
            return CHAINDATA_EXIT_SYSTEM;
        }

        m->pending_read = 1;
    }

    rc = chaindata_mempool_pages(m, &pages, &npages);
    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    chaindata_block_reset(m);
    listed = NULL;
    next = NULL;
    nlisted = 0;
    nnext = 0;

    rc = chaindata_mempool_listed(m, pages, npages, &listed, &nlisted, &next,
                                  &nnext);

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_mempool_gone(m, listed, nlisted, &next, &nnext);
    }

    if (rc == CHAINDATA_EXIT_OK && m->in.ws.nwrites
        && chaindata_block_write(m) != 0)
    {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    chaindata_block_reset(m);
    chaindata_reqs_free(pages, npages);
    free(listed);

    if (rc != CHAINDATA_EXIT_OK) {
        free(next);
        return rc;
    }

    chaindata_ids_unique(next, &nnext);
    free(m->pending);
    m->pending = next;
    m->npending = nnext;

    return CHAINDATA_EXIT_OK;
}


void
chaindata_mempool_free(chaindata_mirror_t *m)
{
    free(m->pending);
    m->pending = NULL;
    m->npending = 0;
}
