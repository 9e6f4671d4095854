
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
 *   GET /extended/v3/mempool/transactions            the same, newest
 *       ?limit=50&cursor=C                          first, as v3 sums
 *       them up: each one's receipt_block_height    (only when new ones
 *                                                   are to be written)
 *
 * Each pass writes the pending transactions the index does not hold yet
 * (with their receipt_block_height, which their v3 document needs and
 * their v1 one lacks: lmdb-schema/README.md, "tx"), and for those it
 * holds as pending that upstream's mempool no longer lists, what
 * upstream serves now: the dropped document, or a delete.  A
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
#include "chaindata_mirror_block.h"


#define CHAINDATA_MEMPOOL_PAGE   50
/* pages asked at once, as the first page's total suggests */
#define CHAINDATA_MEMPOOL_ROUND  16


/* what a pass finds, 32-byte ids */
typedef struct {
    unsigned char       *listed;   /* the pages' transactions, sorted */
    size_t               nlisted;
    unsigned char       *next;     /* the pending ones the index holds */
    size_t               nnext;
    unsigned char       *wait;     /* of those, the ones waiting (below) */
    size_t               nwait;
    unsigned char       *docs;     /* their documents: "[d,d,..." */
    size_t               ndocs;    /* bytes, and room for a "]" */
} chaindata_mp_pass_t;


/*
 * A pending transaction waiting for a batch: its id in wait, its
 * document in docs, for the run's end (chaindata_mempool_end())
 */

static int
chaindata_mempool_wait(chaindata_mp_pass_t *pass, const unsigned char *id,
    const chaindata_jv_t *doc)
{
    unsigned char  *p;

    if (chaindata_ids_add(&pass->wait, &pass->nwait, id) != 0) {
        return -1;
    }

    p = realloc(pass->docs, pass->ndocs + chaindata_jv_size(doc) + 2);
    if (p == NULL) {
        return -1;
    }

    p[pass->ndocs] = pass->ndocs ? ',' : '[';
    pass->ndocs = chaindata_jv_write(p + pass->ndocs + 1, doc) - p;
    pass->docs = p;

    return 0;
}


/* 1: the document has the pending status; value is a "tx" record's */

static int
chaindata_stored_pending(const MDB_val *v)
{
    return chaindata_txh_has(v->mv_data, v->mv_size, CHAINDATA_TXH_PENDING);
}


/*
 * The pending transactions of the index, in key order (sorted); those
 * without a v3 document wait for a v3 lookup (written in a batch too
 * small for one, or before a restart)
 */

static int
chaindata_mempool_scan(chaindata_mirror_t *m)
{
    int          rc;
    MDB_txn     *txn;
    MDB_val      key, val, v3;
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
        if (key.mv_size != CHAINDATA_TXID_LEN
            || !chaindata_stored_pending(&val))
        {
            continue;
        }

        if (chaindata_ids_add(&m->pending.ids, &m->pending.n, key.mv_data)
            != 0
            || (mdb_get(txn, m->in.ix.dbi[CHAINDATA_DBI_TX_V3], &key, &v3)
                == MDB_NOTFOUND
                && chaindata_ids_add(&m->pending.waiting,
                                     &m->pending.nwaiting, key.mv_data)
                   != 0))
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
    int       confirmed;
    MDB_txn  *txn;
    MDB_val   key, val;

    if (mdb_txn_begin(m->in.ix.env, NULL, MDB_RDONLY, &txn) != 0) {
        return 0;
    }

    key.mv_data = (void *) id;
    key.mv_size = CHAINDATA_TXID_LEN;

    confirmed = mdb_get(txn, m->in.ix.dbi[CHAINDATA_DBI_TX], &key, &val) == 0
                && chaindata_txh_has(val.mv_data, val.mv_size,
                                     CHAINDATA_TXH_EVENTS);

    mdb_txn_abort(txn);

    return confirmed;
}


/* a page of the mempool: the mempool moves, so only its shape is held */

static int
chaindata_mempool_check(chaindata_req_t *r)
{
    uint64_t               total;
    unsigned char          id[CHAINDATA_TXID_LEN];
    chaindata_jv_t        *res;
    const chaindata_jv_t  *tx;

    res = (chaindata_jv_t *) chaindata_req_txs_page(r, "mempool", &total);
    if (res == NULL) {
        return -1;
    }

    if (res->n > CHAINDATA_MEMPOOL_PAGE) {
        return chaindata_req_fail(r, "more than %d transactions on a page "
                                  "of the mempool", CHAINDATA_MEMPOOL_PAGE);
    }

    for (tx = res->child; tx; tx = tx->next) {
        if (chaindata_doc_txid(tx, id) != 0) {
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

    if (chaindata_doc_txid(r->root, id) != 0
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


/*
 * The mempool's "total", a claim, compared with the rows its pages hold,
 * which are what is mirrored: the first listing of a run where they
 * differ is logged, as a block's tx_count (chaindata_mirror_stacks_block.c).
 * The last page's total is the one compared: paged while it moves, an
 * honest listing's last page counts the rows before it and its own.
 */

static void
chaindata_mempool_claims(chaindata_mirror_t *m, chaindata_req_t **reqs,
    size_t n)
{
    size_t  i, rows;

    for (i = 0, rows = 0; i < n; i++) {
        rows += reqs[i]->list->n;
    }

    if (n == 0 || reqs[n - 1]->arg == rows || m->pending.claims_logged) {
        return;
    }

    m->pending.claims_logged = 1;

    chaindata_mirror_log(m, "warn", "mempool: total %llu on the listing's "
                         "last page, but %llu transactions listed; the "
                         "listing is mirrored (counts are claims: further "
                         "differences this run are not logged)",
                         (unsigned long long) reqs[n - 1]->arg,
                         (unsigned long long) rows);
}


/*
 * Every page of upstream's mempool, as it is while they are fetched: up
 * to its first page short of a full one, whatever the first page's total
 * claimed (it only says how many to ask at once: the mempool grows while
 * it is paged); past CHAINDATA_MEMPOOL_MAX transactions, a failure.
 */

static int
chaindata_mempool_pages(chaindata_mirror_t *m, chaindata_req_t ***out,
    size_t *n)
{
    int                rc;
    size_t             i, npages, more, rows;
    uint64_t           claim;
    chaindata_req_t  **reqs, **p;

    reqs = NULL;
    npages = 0;
    claim = 0;
    rc = CHAINDATA_EXIT_OK;

    for ( ;; ) {
        if (npages == 0) {
            more = 1;

        } else {
            rows = reqs[npages - 1]->list->n;

            if (rows < CHAINDATA_MEMPOOL_PAGE) {
                break;
            }

            if (npages * CHAINDATA_MEMPOOL_PAGE >= CHAINDATA_MEMPOOL_MAX) {
                chaindata_mirror_log(m, "error", "mempool: the listing goes "
                                     "on past %llu transactions, more than "
                                     "it may have: refused",
                                     (unsigned long long)
                                     CHAINDATA_MEMPOOL_MAX);
                rc = CHAINDATA_EXIT_INPUT;
                break;
            }

            claim = reqs[0]->arg < CHAINDATA_MEMPOOL_MAX
                    ? reqs[0]->arg : CHAINDATA_MEMPOOL_MAX;
            more = claim > npages * CHAINDATA_MEMPOOL_PAGE
                   ? (claim - npages * CHAINDATA_MEMPOOL_PAGE
                      + CHAINDATA_MEMPOOL_PAGE - 1) / CHAINDATA_MEMPOOL_PAGE
                   : 1;
            more = more > CHAINDATA_MEMPOOL_ROUND ? CHAINDATA_MEMPOOL_ROUND
                                                  : more;
        }

        p = realloc(reqs, (npages + more) * sizeof(chaindata_req_t *));
        if (p == NULL) {
            rc = CHAINDATA_EXIT_SYSTEM;
            break;
        }

        reqs = p;

        for (i = 0; i < more; i++) {
            reqs[npages + i] = chaindata_mempool_req(m,
                                   (npages + i) * CHAINDATA_MEMPOOL_PAGE);
        }

        rc = chaindata_mirror_fetch(m, reqs + npages, more);
        npages += more;

        if (rc != CHAINDATA_EXIT_OK) {
            break;
        }

        /* a short page ends it: those asked after it are dropped */
        for (i = npages - more; i < npages - 1; i++) {
            if (reqs[i]->list->n < CHAINDATA_MEMPOOL_PAGE) {
                while (npages > i + 1) {
                    chaindata_req_free(reqs[--npages]);
                }

                break;
            }
        }
    }

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_reqs_free(reqs, npages);
        return rc;
    }

    chaindata_mempool_claims(m, reqs, npages);

    *out = reqs;
    *n = npages;

    return CHAINDATA_EXIT_OK;
}


/* a "tx" record of doc, or a delete of id when doc is NULL */

static int
chaindata_mempool_record(chaindata_mirror_t *m, const chaindata_jv_t *doc,
    const unsigned char *id, const uint64_t *height)
{
    unsigned char     hex[2 + 2 * CHAINDATA_TXID_LEN];
    chaindata_line_t  l;

    chaindata_line_open(&l, "tx", doc ? chaindata_jv_size(doc) : 0);

    if (doc) {
        chaindata_line_json(&l, "data", doc);

        if (height) {
            chaindata_line_u64(&l, "receipt_block_height", *height);
        }

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
 * (the pages moved under the mirror) are added to next, and to wait
 * when they were waiting.
 */

static int
chaindata_mempool_gone(chaindata_mirror_t *m, chaindata_mp_pass_t *pass)
{
    int                    rc;
    char                   hex[CHAINDATA_TXID_HEX_LEN + 1];
    size_t                 i, n;
    unsigned char         *id;
    chaindata_req_t      **reqs;
    const chaindata_jv_t  *root, *st;

    reqs = calloc(m->pending.n + 1, sizeof(chaindata_req_t *));
    if (reqs == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0, n = 0; i < m->pending.n; i++) {
        id = m->pending.ids + i * CHAINDATA_TXID_LEN;

        if (chaindata_ids_has(pass->listed, pass->nlisted, id)) {
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
            if (chaindata_ids_add(&pass->next, &pass->nnext, id) != 0
                || (chaindata_ids_has(m->pending.waiting, m->pending.nwaiting,
                                      id)
                    && chaindata_mempool_wait(pass, id, root) != 0))
            {
                rc = CHAINDATA_EXIT_SYSTEM;
            }

            continue;
        }

        if (root == NULL && chaindata_stored_confirmed(m, id)) {
            continue;
        }

        if (chaindata_mempool_record(m, root, id, NULL) != 0) {
            rc = CHAINDATA_EXIT_INPUT;
        }
    }

    chaindata_reqs_free(reqs, n);

    return rc;
}


/*
 * The new ones written; with the waiting ones, a batch of
 * --mempool-v3-batch or more is looked up in the v3 listing, at most one
 * page a batch, and those found written with their receipt_block_height:
 * one request for a batch of transactions at most, each asked about
 * once.  A smaller set waits (in the pass's wait, unsorted) for more;
 * at the run's end (no pass) any is looked up, at one page.
 */

static int
chaindata_mempool_write_new(chaindata_mirror_t *m, chaindata_mp_new_t *news,
    size_t n, chaindata_mp_pass_t *pass)
{
    int     rc, batch;
    size_t  k, pages;

    batch = pass ? n >= m->pending.batch : n > 0;
    pages = n / m->pending.batch ? n / m->pending.batch : 1;

    rc = batch ? chaindata_mempool_v3_find(m, news, n, pages)
               : CHAINDATA_EXIT_OK;

    for (k = 0; rc == CHAINDATA_EXIT_OK && k < n; k++) {
        if (!batch && chaindata_mempool_wait(pass, news[k].id, news[k].doc)
                      != 0)
        {
            return CHAINDATA_EXIT_SYSTEM;
        }

        if (news[k].waited && !news[k].found) {
            continue;
        }

        if (chaindata_mempool_record(m, news[k].doc, news[k].id,
                                     news[k].found ? &news[k].height : NULL)
            != 0)
        {
            rc = CHAINDATA_EXIT_INPUT;
        }
    }

    return rc;
}


/*
 * The pending transactions of the pages: new ones written, waiting ones
 * looked up with them (chaindata_mempool_write_new), all in next
 */

static int
chaindata_mempool_listed(chaindata_mirror_t *m, chaindata_req_t **pages,
    size_t npages, chaindata_mp_pass_t *pass)
{
    int                    rc;
    size_t                 i, nnew;
    unsigned char          id[CHAINDATA_TXID_LEN];
    chaindata_mp_new_t    *news;
    const chaindata_jv_t  *tx, *st;

    news = calloc(npages * CHAINDATA_MEMPOOL_PAGE + 1,
                  sizeof(chaindata_mp_new_t));
    if (news == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    nnew = 0;

    for (i = 0; i < npages; i++) {
        for (tx = pages[i]->list->child; tx; tx = tx->next) {
            (void) chaindata_doc_txid(tx, id);
            st = chaindata_jv_get(tx, "tx_status");

            if (chaindata_ids_add(&pass->listed, &pass->nlisted, id) != 0) {
                free(news);
                return CHAINDATA_EXIT_SYSTEM;
            }

            if (st == NULL || !chaindata_jv_is(st, "pending")
                || chaindata_stored_confirmed(m, id))
            {
                continue;
            }

            if (chaindata_ids_add(&pass->next, &pass->nnext, id) != 0) {
                free(news);
                return CHAINDATA_EXIT_SYSTEM;
            }

            if (!chaindata_ids_has(m->pending.ids, m->pending.n, id)) {
                news[nnew].doc = tx;
                memcpy(news[nnew++].id, id, CHAINDATA_TXID_LEN);

            } else if (chaindata_ids_has(m->pending.waiting,
                                         m->pending.nwaiting, id))
            {
                news[nnew].doc = tx;
                news[nnew].waited = 1;
                memcpy(news[nnew++].id, id, CHAINDATA_TXID_LEN);
            }
        }
    }

    rc = chaindata_mempool_write_new(m, news, nnew, pass);
    free(news);

    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    chaindata_ids_unique(pass->listed, &pass->nlisted);

    return CHAINDATA_EXIT_OK;
}


/* one pass: the changes of upstream's mempool, in one commit */

int
chaindata_mempool_poll(chaindata_mirror_t *m)
{
    int                   rc;
    size_t                npages;
    chaindata_req_t     **pages;
    chaindata_mp_pass_t   pass;

    if (!m->pending.read) {
        if (chaindata_mempool_scan(m) != 0) {
            chaindata_mirror_log(m, "error", "cannot read the pending "
                                 "transactions of the index");
            return CHAINDATA_EXIT_SYSTEM;
        }

        m->pending.read = 1;
    }

    rc = chaindata_mempool_pages(m, &pages, &npages);
    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    chaindata_block_reset(m);
    memset(&pass, 0, sizeof(chaindata_mp_pass_t));

    rc = chaindata_mempool_listed(m, pages, npages, &pass);

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_mempool_gone(m, &pass);
    }

    if (rc == CHAINDATA_EXIT_OK && m->in.ws.nwrites
        && chaindata_block_write(m) != 0)
    {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    chaindata_block_reset(m);
    chaindata_reqs_free(pages, npages);
    free(pass.listed);

    if (rc != CHAINDATA_EXIT_OK) {
        free(pass.next);
        free(pass.wait);
        free(pass.docs);
        return rc;
    }

    chaindata_mempool_free(m);
    chaindata_ids_unique(pass.next, &pass.nnext);
    chaindata_ids_unique(pass.wait, &pass.nwait);
    m->pending.ids = pass.next;
    m->pending.n = pass.nnext;
    m->pending.waiting = pass.wait;
    m->pending.nwaiting = pass.nwait;
    m->pending.docs = pass.docs;
    m->pending.ndocs = pass.ndocs;

    return CHAINDATA_EXIT_OK;
}


/*
 * The run ends (--once): the pending transactions still waiting for a
 * batch are looked up at one request, their documents those the last
 * pass read, so that none is left without its v3 document until a later
 * run.  Those the listing lacks stay waiting (in the index, for the next
 * run's scan).
 */

int
chaindata_mempool_end(chaindata_mirror_t *m)
{
    int                    rc;
    char                   err[CHAINDATA_ERR_LEN];
    size_t                 k, n, found;
    chaindata_jv_t        *list;
    chaindata_arena_t     *arena;
    chaindata_mp_new_t    *news;
    const chaindata_jv_t  *doc;

    if (m->pending.docs == NULL) {
        return CHAINDATA_EXIT_OK;
    }

    m->pending.docs[m->pending.ndocs++] = ']';

    arena = chaindata_arena_create();
    list = arena ? chaindata_jdoc_parse(arena, m->pending.docs,
                                        m->pending.ndocs, err, sizeof(err))
                 : NULL;
    news = list ? calloc(list->n + 1, sizeof(chaindata_mp_new_t)) : NULL;

    if (news == NULL) {
        chaindata_mirror_log(m, "error", "mempool: cannot read again the "
                             "documents of the transactions waiting");
        chaindata_arena_destroy(arena);
        return CHAINDATA_EXIT_SYSTEM;
    }

    /* a block may have confirmed one since: never written pending again */
    for (doc = list->child, n = 0; doc; doc = doc->next) {
        if (chaindata_doc_txid(doc, news[n].id) == 0
            && !chaindata_stored_confirmed(m, news[n].id))
        {
            news[n].doc = doc;
            news[n++].waited = 1;
        }
    }

    chaindata_block_reset(m);
    rc = chaindata_mempool_write_new(m, news, n, NULL);

    if (rc == CHAINDATA_EXIT_OK && m->in.ws.nwrites
        && chaindata_block_write(m) != 0)
    {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    chaindata_block_reset(m);

    for (k = 0, found = 0; k < n; k++) {
        found += news[k].found;
    }

    if (rc == CHAINDATA_EXIT_OK) {
        chaindata_mirror_log(m, "info", "mempool: the run ends: %zu of the "
                             "%zu pending transactions waiting for a batch "
                             "got their receipt_block_height", found, n);
    }

    free(news);
    chaindata_arena_destroy(arena);
    free(m->pending.docs);
    m->pending.docs = NULL;
    m->pending.ndocs = 0;

    return rc;
}


void
chaindata_mempool_free(chaindata_mirror_t *m)
{
    free(m->pending.ids);
    free(m->pending.waiting);
    free(m->pending.docs);
    m->pending.ids = NULL;
    m->pending.waiting = NULL;
    m->pending.docs = NULL;
    m->pending.n = 0;
    m->pending.nwaiting = 0;
    m->pending.ndocs = 0;
}
