
/*
 * chaindata-mirror: the Stacks follower.  Upstream's routes
 * (hirosystems/stacks-blockchain-api, src/api/routes/v2/blocks.ts and
 * src/api/routes/tx.ts):
 *
 *   GET /extended/v2/blocks?limit=1                 the tip
 *   GET /extended/v2/blocks/{height}                a block: hash, parent
 *   GET /extended/v2/blocks/{height}/transactions   its transactions,
 *       ?limit=50&offset=N                          50 a page (the most)
 *   GET /extended/v1/tx/{tx_id}                     a transaction with a
 *       ?event_limit=100&event_offset=N             page of its events
 *
 * Every transaction of a block is fetched with all its event pages,
 * checked (the pages continue each other's event_index), made into one
 * "tx" record and committed with the block (chaindata_mirror_block.c).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chaindata_mirror.h"


#define CHAINDATA_STACKS            "stacks"
#define CHAINDATA_TXS_PAGE          50
#define CHAINDATA_EVENTS_PAGE       100
/* requests made at once for the pages of a block; more wait a round */
#define CHAINDATA_ROUND             256


typedef struct {
    char               tx_id[67];
    uint64_t           event_count;
    int                confirmed;
    size_t             npages;
    chaindata_req_t  **pages;
} chaindata_stx_t;


typedef struct {
    uint64_t           height;
    uint64_t           time;
    uint64_t           tx_count;     /* claimed by the block */
    uint64_t           ntxs;         /* listed, what is mirrored */
    unsigned char      hash[CHAINDATA_FEED_HASH_MAX];
    size_t             hash_len;
    unsigned char      parent[CHAINDATA_FEED_HASH_MAX];
    size_t             parent_len;
    chaindata_stx_t   *txs;          /* ntxs, their ids as listed */
} chaindata_sblock_t;


static int
chaindata_stacks_check_tip(chaindata_req_t *r)
{
    uint64_t               h;
    const chaindata_jv_t  *res;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    res = chaindata_jv_get(r->root, "results");

    if (res != NULL && res->type == CHAINDATA_JV_ARRAY && res->n == 0) {
        r->arg = UINT64_MAX;            /* upstream has no block yet */
        return 0;
    }

    if (res == NULL || res->type != CHAINDATA_JV_ARRAY
        || res->child->type != CHAINDATA_JV_OBJECT
        || chaindata_jv_u64(res->child, "height", &h) != 0
        || h == UINT64_MAX)
    {
        return chaindata_req_fail(r, "not a list of blocks with a height");
    }

    r->arg = h;

    /* the tip's time, for the feed's state (0 when it has none) */
    if (chaindata_jv_u64(res->child, "block_time", r->ctx) != 0) {
        *(uint64_t *) r->ctx = 0;
    }

    return 0;
}


static int
chaindata_stacks_check_block(chaindata_req_t *r)
{
    uint64_t             h;
    chaindata_sblock_t  *b;

    b = r->ctx;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    if (chaindata_jv_u64(r->root, "height", &h) != 0 || h != r->arg
        || chaindata_jv_hash(r->root, "hash", b->hash, &b->hash_len) != 0
        || b->hash_len == 0
        || chaindata_jv_hash(r->root, "parent_block_hash", b->parent,
                             &b->parent_len) != 0
        || chaindata_jv_u64(r->root, "block_time", &b->time) != 0
        || chaindata_jv_u64(r->root, "tx_count", &b->tx_count) != 0)
    {
        return chaindata_req_fail(r, "not block %llu (height, hash, "
                                  "parent_block_hash, block_time, "
                                  "tx_count)", (unsigned long long) r->arg);
    }

    b->height = h;

    return 0;
}


/*
 * A page of a block's transactions: as many as the listing's total leaves
 * from the page's offset, each tx_id taken into the block's list.  The
 * first page's total sizes the list (capped), never the block's tx_count.
 */

static int
chaindata_stacks_check_txs(chaindata_req_t *r)
{
    uint64_t               total, want, k;
    chaindata_sblock_t    *b;
    const chaindata_jv_t  *res, *tx, *id;

    b = r->ctx;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    res = chaindata_jv_get(r->root, "results");

    if (res == NULL || res->type != CHAINDATA_JV_ARRAY
        || chaindata_jv_u64(r->root, "total", &total) != 0)
    {
        return chaindata_req_fail(r, "not a page of transactions");
    }

    if (total > CHAINDATA_BLOCK_TXS_MAX) {
        return chaindata_req_fail(r, "a block of %llu transactions claimed, "
                                  "more than the %u a block may have",
                                  (unsigned long long) total,
                                  CHAINDATA_BLOCK_TXS_MAX);
    }

    if (r->arg == 0) {
        b->ntxs = total;

    } else if (total != b->ntxs) {
        return chaindata_req_fail(r, "the block's transactions changed "
                                  "between pages (total %llu, then %llu)",
                                  (unsigned long long) b->ntxs,
                                  (unsigned long long) total);
    }

    want = total > r->arg ? total - r->arg : 0;
    want = want > CHAINDATA_TXS_PAGE ? CHAINDATA_TXS_PAGE : want;

    if (res->n != want) {
        return chaindata_req_fail(r, "%zu transactions on a page that has "
                                  "%llu", res->n, (unsigned long long) want);
    }

    for (tx = res->child, k = r->arg; tx; tx = tx->next, k++) {
        id = tx->type == CHAINDATA_JV_OBJECT
             ? chaindata_jv_get(tx, "tx_id") : NULL;

        if (id == NULL || id->type != CHAINDATA_JV_STRING || id->len != 66) {
            return chaindata_req_fail(r, "a transaction without a tx_id");
        }

        if (b->txs) {
            memcpy(b->txs[k].tx_id, id->str, 66);
        }
    }

    return 0;
}


/* a page of a transaction's events: event_index continues from offset */

static int
chaindata_stacks_check_tx(chaindata_req_t *r)
{
    uint64_t               count, idx, want, i;
    chaindata_stx_t       *t;
    chaindata_jv_t        *ev;
    const chaindata_jv_t  *id, *e;

    t = r->ctx;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    id = chaindata_jv_get(r->root, "tx_id");

    if (id == NULL || id->type != CHAINDATA_JV_STRING || id->len != 66
        || strncasecmp((const char *) id->str, t->tx_id, 66) != 0)
    {
        return chaindata_req_fail(r, "not transaction %s", t->tx_id);
    }

    ev = chaindata_jv_get(r->root, "events");

    if (ev == NULL) {
        return r->arg == 0 ? 0
               : chaindata_req_fail(r, "an events page without events");
    }

    if (ev->type != CHAINDATA_JV_ARRAY
        || chaindata_jv_u64(r->root, "event_count", &count) != 0)
    {
        return chaindata_req_fail(r, "events or event_count malformed");
    }

    if (count > CHAINDATA_TX_EVENTS_MAX) {
        return chaindata_req_fail(r, "an event_count of %llu claimed, more "
                                  "than the %u a transaction may have",
                                  (unsigned long long) count,
                                  CHAINDATA_TX_EVENTS_MAX);
    }

    want = count > r->arg ? count - r->arg : 0;
    want = want > CHAINDATA_EVENTS_PAGE ? CHAINDATA_EVENTS_PAGE : want;

    if (ev->n != want) {
        return chaindata_req_fail(r, "%zu events at offset %llu of %llu",
                                  ev->n, (unsigned long long) r->arg,
                                  (unsigned long long) count);
    }

    for (e = ev->child, i = r->arg; e; e = e->next, i++) {
        if (e->type != CHAINDATA_JV_OBJECT
            || chaindata_jv_u64(e, "event_index", &idx) != 0 || idx != i)
        {
            return chaindata_req_fail(r, "the events do not continue: "
                                      "event %llu has another event_index",
                                      (unsigned long long) i);
        }
    }

    if (r->arg == 0) {
        t->event_count = count;
        t->confirmed = 1;

    } else if (count != t->event_count) {
        return chaindata_req_fail(r, "event_count changed between pages");
    }

    r->list = ev;

    return 0;
}


static int
chaindata_stacks_get1(chaindata_mirror_t *m, chaindata_req_t *r)
{
    return chaindata_mirror_fetch(m, &r, 1);
}


static void
chaindata_stacks_free(chaindata_req_t **reqs, size_t n, chaindata_stx_t *txs,
    size_t ntxs)
{
    size_t  i, j;

    for (i = 0; reqs && i < n; i++) {
        chaindata_req_free(reqs[i]);
    }

    for (i = 0; txs && i < ntxs; i++) {
        for (j = 1; j < txs[i].npages; j++) {
            chaindata_req_free(txs[i].pages[j]);
        }

        free(txs[i].pages);
    }

    free(reqs);
    free(txs);
}


static chaindata_req_t *
chaindata_stacks_txs_req(chaindata_mirror_t *m, chaindata_sblock_t *b,
    size_t offset)
{
    chaindata_req_t  *r;

    r = chaindata_req_new(chaindata_stacks_check_txs,
                          "%s/extended/v2/blocks/%llu/transactions"
                          "?limit=%d&offset=%zu", m->stacks_api,
                          (unsigned long long) b->height, CHAINDATA_TXS_PAGE,
                          offset);
    if (r) {
        r->ctx = b;
        r->arg = offset;
    }

    return r;
}


/*
 * The transaction ids of a block, every page of the listing: its first
 * page says how many (an honest block's tx_count can be wrong: the boot
 * block lists more; a claim is only compared, and logged when it
 * differs), the rest are asked for in rounds of CHAINDATA_ROUND.
 */

static int
chaindata_stacks_tx_ids(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_stx_t **out)
{
    int                rc;
    size_t             i, n, npages, done;
    chaindata_req_t   *first, *round[CHAINDATA_ROUND];

    b->txs = NULL;
    b->ntxs = 0;

    first = chaindata_stacks_txs_req(m, b, 0);
    rc = chaindata_mirror_fetch(m, &first, 1);

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_req_free(first);
        return rc;
    }

    b->txs = calloc(b->ntxs + 1, sizeof(chaindata_stx_t));
    if (b->txs == NULL) {
        chaindata_req_free(first);
        chaindata_mirror_log(m, "error", "block %llu: out of memory for %llu "
                             "transactions", (unsigned long long) b->height,
                             (unsigned long long) b->ntxs);
        return CHAINDATA_EXIT_SYSTEM;
    }

    /* the first page again, now that its ids have a place */
    (void) chaindata_stacks_check_txs(first);
    chaindata_req_free(first);

    npages = (b->ntxs + CHAINDATA_TXS_PAGE - 1) / CHAINDATA_TXS_PAGE;

    for (done = 1; rc == CHAINDATA_EXIT_OK && done < npages; done += n) {
        for (n = 0; n < CHAINDATA_ROUND && done + n < npages; n++) {
            round[n] = chaindata_stacks_txs_req(m, b, (done + n)
                                                      * CHAINDATA_TXS_PAGE);
        }

        rc = chaindata_mirror_fetch(m, round, n);

        for (i = 0; i < n; i++) {
            chaindata_req_free(round[i]);
        }
    }

    if (rc != CHAINDATA_EXIT_OK) {
        free(b->txs);
        b->txs = NULL;
        return rc;
    }

    if (b->ntxs != b->tx_count) {
        chaindata_mirror_log(m, "warn", "block %llu: tx_count %llu, but %llu "
                             "transactions listed; the listing is mirrored",
                             (unsigned long long) b->height,
                             (unsigned long long) b->tx_count,
                             (unsigned long long) b->ntxs);
    }

    *out = b->txs;

    return CHAINDATA_EXIT_OK;
}


static chaindata_req_t *
chaindata_stacks_tx_req(chaindata_mirror_t *m, chaindata_stx_t *t,
    uint64_t offset)
{
    chaindata_req_t  *r;

    r = chaindata_req_new(chaindata_stacks_check_tx,
                          "%s/extended/v1/tx/%s?event_limit=%d"
                          "&event_offset=%llu", m->stacks_api, t->tx_id,
                          CHAINDATA_EVENTS_PAGE,
                          (unsigned long long) offset);
    if (r) {
        r->ctx = t;
        r->arg = offset;
    }

    return r;
}


/* every further page of events, of every transaction, in rounds */

static int
chaindata_stacks_more_events(chaindata_mirror_t *m, chaindata_stx_t *txs,
    size_t ntxs)
{
    int               rc;
    size_t            i, j, n;
    chaindata_req_t  *round[CHAINDATA_ROUND];

    for (i = 0; i < ntxs; i++) {
        txs[i].npages = txs[i].event_count <= CHAINDATA_EVENTS_PAGE ? 1
                        : (txs[i].event_count + CHAINDATA_EVENTS_PAGE - 1)
                          / CHAINDATA_EVENTS_PAGE;
    }

    i = 0;
    j = 1;

    for ( ;; ) {
        for (n = 0; n < CHAINDATA_ROUND && i < ntxs; /* void */) {
            if (j >= txs[i].npages) {
                i++;
                j = 1;
                continue;
            }

            txs[i].pages[j] = chaindata_stacks_tx_req(m, &txs[i],
                                  j * CHAINDATA_EVENTS_PAGE);
            round[n++] = txs[i].pages[j++];
        }

        if (n == 0) {
            return CHAINDATA_EXIT_OK;
        }

        rc = chaindata_mirror_fetch(m, round, n);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }
    }
}


/* the document with all its events: page 0's tree, the pages linked in */

static int
chaindata_stacks_record(chaindata_mirror_t *m, chaindata_stx_t *t)
{
    size_t            j;
    chaindata_jv_t   *ev, *more;
    chaindata_line_t  l;

    ev = t->pages[0]->list;

    for (j = 1; ev && j < t->npages; j++) {
        more = t->pages[j]->list;

        if (more->child == NULL) {
            continue;
        }

        if (ev->child == NULL) {
            ev->child = more->child;

        } else {
            ev->last->next = more->child;
        }

        ev->last = more->last;
        ev->n += more->n;
    }

    chaindata_line_open(&l, "tx", chaindata_jv_size(t->pages[0]->root));
    chaindata_line_json(&l, "data", t->pages[0]->root);
    (void) chaindata_line_close(&l);

    return chaindata_mirror_emit(m, &l, NULL);
}


static int
chaindata_stacks_txs(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_stx_t *txs, chaindata_req_t ***reqs)
{
    int     rc;
    size_t  i;

    *reqs = calloc(b->ntxs + 1, sizeof(chaindata_req_t *));
    if (*reqs == NULL) {
        chaindata_mirror_log(m, "error", "out of memory");
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0; i < b->ntxs; i++) {
        txs[i].pages = calloc(1 + 1, sizeof(chaindata_req_t *));
        if (txs[i].pages == NULL) {
            chaindata_mirror_log(m, "error", "out of memory");
            return CHAINDATA_EXIT_SYSTEM;
        }

        (*reqs)[i] = chaindata_stacks_tx_req(m, &txs[i], 0);
        txs[i].pages[0] = (*reqs)[i];
        txs[i].npages = 1;
    }

    rc = chaindata_mirror_fetch(m, *reqs, b->ntxs);
    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    for (i = 0; i < b->ntxs; i++) {
        if (txs[i].event_count > CHAINDATA_EVENTS_PAGE) {
            free(txs[i].pages);
            txs[i].pages = calloc(txs[i].event_count / CHAINDATA_EVENTS_PAGE
                                  + 2, sizeof(chaindata_req_t *));
            if (txs[i].pages == NULL) {
                chaindata_mirror_log(m, "error", "transaction %s: out of "
                                     "memory for %llu events", txs[i].tx_id,
                                     (unsigned long long)
                                     txs[i].event_count);
                return CHAINDATA_EXIT_SYSTEM;
            }

            txs[i].pages[0] = (*reqs)[i];
        }
    }

    return chaindata_stacks_more_events(m, txs, b->ntxs);
}


/*
 * Mirrors block b (fetched already): every transaction, then one commit.
 */

static int
chaindata_stacks_block_txs(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    int                rc;
    size_t             i;
    chaindata_stx_t   *txs;
    chaindata_req_t  **reqs;

    txs = NULL;
    reqs = NULL;

    rc = chaindata_stacks_tx_ids(m, b, &txs);
    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    rc = chaindata_stacks_txs(m, b, txs, &reqs);

    if (rc == CHAINDATA_EXIT_OK
        && chaindata_block_open(m, CHAINDATA_STACKS, b->height, b->hash,
                                b->hash_len, b->parent, b->parent_len,
                                b->time)
           != 0)
    {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0; rc == CHAINDATA_EXIT_OK && i < b->ntxs; i++) {
        if (chaindata_stacks_record(m, &txs[i]) != 0) {
            chaindata_block_abandon(m);
            rc = CHAINDATA_EXIT_INPUT;
        }
    }

    if (rc == CHAINDATA_EXIT_OK && chaindata_block_commit(m) != 0) {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    if (rc == CHAINDATA_EXIT_OK) {
        m->blocks++;
        m->txs += b->ntxs;
        m->height = b->height;
        m->block_time = b->time;
        strcpy(m->source, CHAINDATA_STACKS);
    }

    chaindata_stacks_free(reqs, b->ntxs, txs, b->ntxs);

    return rc;
}


static int
chaindata_stacks_get_block(chaindata_mirror_t *m, uint64_t height,
    chaindata_sblock_t *b)
{
    int               rc;
    chaindata_req_t  *r;

    r = chaindata_req_new(chaindata_stacks_check_block,
                          "%s/extended/v2/blocks/%llu", m->stacks_api,
                          (unsigned long long) height);
    if (r == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    r->ctx = b;
    r->arg = height;

    rc = chaindata_stacks_get1(m, r);
    chaindata_req_free(r);

    return rc;
}


static int
chaindata_stacks_tip(chaindata_mirror_t *m, uint64_t *tip)
{
    int               rc;
    uint64_t          t;
    chaindata_req_t  *r;

    r = chaindata_req_new(chaindata_stacks_check_tip,
                          "%s/extended/v2/blocks?limit=1", m->stacks_api);
    if (r == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    t = 0;
    r->ctx = &t;

    rc = chaindata_stacks_get1(m, r);
    *tip = r->arg;
    chaindata_req_free(r);

    if (rc == CHAINDATA_EXIT_OK && *tip != UINT64_MAX) {
        chaindata_feeds_saw_tip(m, CHAINDATA_STACKS, *tip, t);
    }

    return rc;
}


/*
 * The recorded block at the position is no longer upstream's: walk back
 * to the last height where the recorded hash is upstream's, roll back to
 * it (the index's block records say what to undo).  Past
 * --max-reorg-depth blocks the walk stops and the feed with it.
 */

static int
chaindata_stacks_reorg(chaindata_mirror_t *m, uint64_t height)
{
    int                 rc;
    size_t              len;
    uint64_t            top;
    unsigned char       hash[CHAINDATA_FEED_HASH_MAX];
    chaindata_sblock_t  b;

    top = height;

    while (height > 0) {
        height--;

        if (top - height > m->max_reorg) {
            return chaindata_feeds_too_deep(m, CHAINDATA_STACKS, top,
                                            m->max_reorg);
        }

        rc = chaindata_feed_block_hash(&m->in.ix, CHAINDATA_STACKS, height,
                                       hash, &len);
        if (rc < 0) {
            return CHAINDATA_EXIT_SYSTEM;
        }

        if (rc == 1) {
            /* below the first recorded block: nothing agrees */
            chaindata_mirror_log(m, "error", "stacks: upstream agrees with "
                                 "none of the %llu blocks recorded up to "
                                 "%llu: is it the same chain?  Nothing was "
                                 "rolled back; the feed stops",
                                 (unsigned long long) (top - height),
                                 (unsigned long long) top);
            return CHAINDATA_MIRROR_REFUSED;
        }

        rc = chaindata_stacks_get_block(m, height, &b);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        if (b.hash_len == len && memcmp(b.hash, hash, len) == 0) {
            break;
        }
    }

    chaindata_mirror_log(m, "warn", "reorg: stacks blocks above %llu are "
                         "no longer upstream's; rolling back to it",
                         (unsigned long long) height);

    return chaindata_block_rollback(m, CHAINDATA_STACKS, height) == 0
           ? CHAINDATA_EXIT_OK : CHAINDATA_EXIT_SYSTEM;
}


/*
 * Block b does not name the recorded block below it as its parent, while
 * that block is still upstream's: upstream reorganised between two
 * requests, or contradicts itself.  The pass ends as a failure (the feed
 * backs off, --once exits 1) and the next one looks again.
 */

static int
chaindata_stacks_unlinked(chaindata_mirror_t *m, chaindata_sblock_t *b,
    const unsigned char *below, size_t below_len)
{
    chaindata_mirror_log(m, "error", "stacks block %llu names the parent "
                         "%.*s, but block %llu is %.*s (upstream reorganised "
                         "meanwhile, or contradicts itself); nothing of it "
                         "was written",
                         (unsigned long long) b->height, (int) b->parent_len,
                         b->parent, (unsigned long long) b->height - 1,
                         (int) below_len, below);

    return CHAINDATA_EXIT_INPUT;
}


/* one pass: reorg check, then every block up to upstream's tip */

int
chaindata_stacks_poll(chaindata_mirror_t *m, int *caught_up)
{
    int                  rc, have;
    uint64_t             tip, h;
    unsigned char        posh[CHAINDATA_FEED_HASH_MAX];
    chaindata_feedpos_t  pos;
    chaindata_sblock_t   b;

    *caught_up = 0;

    have = chaindata_feed_position(&m->in.ix, CHAINDATA_STACKS, &pos, posh);
    if (have < 0) {
        chaindata_mirror_log(m, "error", "cannot read the stacks position");
        return CHAINDATA_EXIT_SYSTEM;
    }

    have = (have == 0);

    rc = chaindata_stacks_tip(m, &tip);
    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    if (tip == UINT64_MAX || (have && pos.height > tip)) {
        /*
         * upstream has no block yet, or is behind the index (another
         * node, restarted): wait
         */
        *caught_up = 1;
        return CHAINDATA_EXIT_OK;
    }

    if (have) {
        rc = chaindata_stacks_get_block(m, pos.height, &b);

        if (rc == CHAINDATA_EXIT_OK
            && (b.hash_len != pos.hash_len
                || memcmp(b.hash, pos.hash, b.hash_len) != 0))
        {
            return chaindata_stacks_reorg(m, pos.height);
        }

        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        h = pos.height + 1;

    } else {
        h = m->has_from ? m->from_height : tip;
    }

    for ( /* void */ ; h <= tip; h++) {
        rc = chaindata_stacks_get_block(m, h, &b);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        if (have && (b.parent_len != pos.hash_len
                     || memcmp(b.parent, posh, b.parent_len) != 0))
        {
            return chaindata_stacks_unlinked(m, &b, posh, pos.hash_len);
        }

        rc = chaindata_stacks_block_txs(m, &b);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        have = 1;
        memcpy(posh, b.hash, b.hash_len);
        pos.hash_len = b.hash_len;
        pos.height = h;

        chaindata_mirror_progress(m, 0);
    }

    *caught_up = 1;

    return CHAINDATA_EXIT_OK;
}
