
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
 * The record carries the block's index_block_hash and
 * parent_index_block_hash, which the v3 document needs and the v1 one
 * lacks (lmdb-schema/README.md, "tx"): the block's answer has them, so
 * v3 costs no request.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"


#define CHAINDATA_STACKS            "stacks"
#define CHAINDATA_TXS_PAGE          50
#define CHAINDATA_EVENTS_PAGE       100


typedef struct {
    char               tx_id[67];
    uint64_t           event_count;
    int                confirmed;
    size_t             npages;
    chaindata_req_t  **pages;
} chaindata_stx_t;


typedef struct {
    int                stage;        /* chaindata_sstage_e */
    chaindata_req_t  **reqs;         /* the stage's, nreqs */
    size_t             nreqs;
    size_t             pending;      /* of them, not answered yet */
    size_t             bytes;        /* the answers held */
    chaindata_req_t   *failed;       /* the request that failed it */

    uint64_t           height;
    uint64_t           time;
    uint64_t           tx_count;     /* claimed by the block */
    uint64_t           ntxs;         /* listed, what is mirrored */
    unsigned char      hash[CHAINDATA_FEED_HASH_MAX];
    size_t             hash_len;
    unsigned char      parent[CHAINDATA_FEED_HASH_MAX];
    size_t             parent_len;
    /* the v3 document's: "0x" and 64 hex digits each, or empty */
    char               index_hash[67];
    char               parent_index_hash[67];
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


/* a block's index hash, "0x" and 64 lowercase hex digits: 0, or -1 */

static int
chaindata_stacks_index_hash(const chaindata_jv_t *block, const char *name,
    char *out)
{
    const chaindata_jv_t  *v;

    v = chaindata_jv_get(block, name);

    if (v == NULL || v->type != CHAINDATA_JV_STRING || v->len != 66
        || v->str[0] != '0' || v->str[1] != 'x'
        || !chaindata_hex_is_lower(v->str + 2, 64))
    {
        return -1;
    }

    memcpy(out, v->str, 66);
    out[66] = '\0';

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

    /* for v3: without both (an upstream that has none) the records lack
       them and the index keeps no v3 document */
    if (chaindata_stacks_index_hash(r->root, "index_block_hash",
                                    b->index_hash) != 0
        || chaindata_stacks_index_hash(r->root, "parent_index_block_hash",
                                       b->parent_index_hash) != 0)
    {
        b->index_hash[0] = '\0';
        b->parent_index_hash[0] = '\0';
    }

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
    res = chaindata_req_txs_page(r, "block", "a block",
                                 CHAINDATA_BLOCK_TXS_MAX, &total);
    if (res == NULL) {
        return -1;
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


/* a request of block b's: the check's context and argument, b its owner */

static chaindata_req_t *
chaindata_stacks_req(chaindata_sblock_t *b, int (*check)(chaindata_req_t *r),
    void *ctx, uint64_t arg, const char *url)
{
    chaindata_req_t  *r;

    r = chaindata_req_new(check, "%s", url);
    if (r) {
        r->ctx = ctx;
        r->arg = arg;
        r->owner = b;
    }

    return r;
}


static chaindata_req_t *
chaindata_stacks_txs_req(chaindata_mirror_t *m, chaindata_sblock_t *b,
    size_t offset)
{
    char  url[CHAINDATA_URL_MAX];

    snprintf(url, sizeof(url), "%s/extended/v2/blocks/%llu/transactions"
             "?limit=%d&offset=%zu", m->stacks_api,
             (unsigned long long) b->height, CHAINDATA_TXS_PAGE, offset);

    return chaindata_stacks_req(b, chaindata_stacks_check_txs, b, offset,
                                url);
}


static chaindata_req_t *
chaindata_stacks_tx_req(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_stx_t *t, uint64_t offset)
{
    char  url[CHAINDATA_URL_MAX];

    snprintf(url, sizeof(url), "%s/extended/v1/tx/%s?event_limit=%d"
             "&event_offset=%llu", m->stacks_api, t->tx_id,
             CHAINDATA_EVENTS_PAGE, (unsigned long long) offset);

    return chaindata_stacks_req(b, chaindata_stacks_check_tx, t, offset,
                                url);
}


static chaindata_req_t *
chaindata_stacks_block_req(chaindata_mirror_t *m, chaindata_sblock_t *b,
    uint64_t height)
{
    char  url[CHAINDATA_URL_MAX];

    snprintf(url, sizeof(url), "%s/extended/v2/blocks/%llu", m->stacks_api,
             (unsigned long long) height);

    return chaindata_stacks_req(b, chaindata_stacks_check_block, b, height,
                                url);
}


/* the document with all its events: page 0's tree, the pages linked in */

static int
chaindata_stacks_record(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_stx_t *t)
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

    chaindata_line_open(&l, "tx", chaindata_jv_size(t->pages[0]->root)
                                  + 2 * 100);
    chaindata_line_json(&l, "data", t->pages[0]->root);

    if (b->index_hash[0]) {
        chaindata_line_str(&l, "index_block_hash", b->index_hash, 66);
        chaindata_line_str(&l, "parent_index_block_hash",
                           b->parent_index_hash, 66);
    }

    (void) chaindata_line_close(&l);

    return chaindata_mirror_emit(m, &l, NULL);
}


/*
 * Blocks in flight.  The blocks above the position are fetched up to
 * --blocks-ahead at a time (and while the answers held stay under
 * CHAINDATA_AHEAD_BYTES), their requests sharing --parallel, the lowest
 * block's first; each is committed whole, in height order, once it is
 * fetched and every block below it is committed: while one commits, the
 * requests of those above it are in flight.  A block failing stops the
 * blocks above it (discarded, nothing of them written) and, once the
 * blocks below it are committed, the pass; a block not naming the
 * committed one below it as its parent does the same.  A block goes
 * through stages, the requests of one stage fetched together:
 */
#define CHAINDATA_AHEAD_BYTES  ((size_t) 64 * 1024 * 1024)
/* seconds between asking upstream's tip again while catching up */
#define CHAINDATA_TIP_EVERY    30.0

typedef enum {
    CHAINDATA_SB_BLOCK = 0,     /* the block */
    CHAINDATA_SB_LIST,          /* the first page of its transactions */
    CHAINDATA_SB_PAGES,         /* the listing's further pages */
    CHAINDATA_SB_TXS,           /* each transaction, with its first events */
    CHAINDATA_SB_EVENTS,        /* the transactions' further events */
    CHAINDATA_SB_READY          /* fetched, to commit in its turn */
} chaindata_sstage_e;


typedef struct {
    chaindata_mirror_t    *m;
    chaindata_sblock_t   **b;       /* b[0]: the next to commit */
    size_t                 n;
    size_t                 max;     /* --blocks-ahead */
    uint64_t               next;    /* the next height to fetch */
    uint64_t               tip;
    double                 tip_next;  /* when to ask it again */
    int                    stop;    /* a block failed: none starts above */
    chaindata_req_t      **all;     /* a turn's requests */
    size_t                 cap;
} chaindata_swin_t;


static void
chaindata_sblock_free(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t  i, j;

    if (b == NULL) {
        return;
    }

    chaindata_http_cancel(&m->http, b->reqs, b->nreqs);

    for (i = 0; b->stage < CHAINDATA_SB_TXS && i < b->nreqs; i++) {
        chaindata_req_free(b->reqs[i]);
    }

    for (i = 0; b->txs && i < b->ntxs; i++) {
        for (j = 0; b->txs[i].pages && j < b->txs[i].npages; j++) {
            chaindata_req_free(b->txs[i].pages[j]);
        }

        free(b->txs[i].pages);
    }

    free(b->txs);
    free(b->reqs);
    free(b);
}


/* the stage's requests: n places (the last stage's freed when theirs) */

static int
chaindata_sblock_stage(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_sstage_e stage, size_t n)
{
    size_t  i;

    for (i = 0; b->stage < CHAINDATA_SB_TXS && i < b->nreqs; i++) {
        chaindata_req_free(b->reqs[i]);
    }

    free(b->reqs);
    b->stage = stage;
    b->nreqs = 0;
    b->pending = 0;
    b->reqs = calloc(n + 1, sizeof(chaindata_req_t *));

    if (b->reqs == NULL) {
        chaindata_mirror_log(m, "error", "block %llu: out of memory",
                             (unsigned long long) b->height);
        return -1;
    }

    return 0;
}


static int
chaindata_sblock_add(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_req_t *r)
{
    if (r == NULL) {
        chaindata_mirror_log(m, "error", "out of memory");
        return -1;
    }

    b->reqs[b->nreqs++] = r;
    b->pending++;

    return 0;
}


/*
 * The listing's first page said how many (an honest block's tx_count can
 * be wrong: the boot block lists more; a claim is only compared, and
 * logged when it differs): a place for each id, the further pages asked.
 */

static int
chaindata_sblock_listed(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    int               rc;
    size_t            i, npages;
    chaindata_req_t  *first;

    b->txs = calloc(b->ntxs + 1, sizeof(chaindata_stx_t));
    if (b->txs == NULL) {
        chaindata_mirror_log(m, "error", "block %llu: out of memory for %llu "
                             "transactions", (unsigned long long) b->height,
                             (unsigned long long) b->ntxs);
        return -1;
    }

    /* the first page again, now that its ids have a place */
    first = b->reqs[0];
    (void) chaindata_stacks_check_txs(first);

    npages = (b->ntxs + CHAINDATA_TXS_PAGE - 1) / CHAINDATA_TXS_PAGE;

    if (chaindata_sblock_stage(m, b, CHAINDATA_SB_PAGES, npages) != 0) {
        return -1;
    }

    for (i = 1, rc = 0; rc == 0 && i < npages; i++) {
        rc = chaindata_sblock_add(m, b, chaindata_stacks_txs_req(m, b,
                                      i * CHAINDATA_TXS_PAGE));
    }

    return rc;
}


/* every transaction's first page of events */

static int
chaindata_sblock_txs(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t            i;
    chaindata_stx_t  *t;

    if (b->ntxs != b->tx_count) {
        chaindata_mirror_log(m, "warn", "block %llu: tx_count %llu, but %llu "
                             "transactions listed; the listing is mirrored",
                             (unsigned long long) b->height,
                             (unsigned long long) b->tx_count,
                             (unsigned long long) b->ntxs);
    }

    if (chaindata_sblock_stage(m, b, CHAINDATA_SB_TXS, b->ntxs) != 0) {
        return -1;
    }

    for (i = 0; i < b->ntxs; i++) {
        t = &b->txs[i];
        t->pages = calloc(1 + 1, sizeof(chaindata_req_t *));

        if (t->pages == NULL
            || chaindata_sblock_add(m, b, chaindata_stacks_tx_req(m, b, t, 0))
               != 0)
        {
            chaindata_mirror_log(m, "error", "out of memory");
            return -1;
        }

        t->pages[0] = b->reqs[i];
        t->npages = 1;
    }

    return 0;
}


/* the further pages of events, of every transaction */

static int
chaindata_sblock_events(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t            i, j, n, more;
    chaindata_stx_t  *t;
    chaindata_req_t **pages;

    for (i = 0, more = 0; i < b->ntxs; i++) {
        b->bytes += b->txs[i].pages[0]->len;
        n = b->txs[i].event_count;
        more += n > CHAINDATA_EVENTS_PAGE
                ? (n + CHAINDATA_EVENTS_PAGE - 1) / CHAINDATA_EVENTS_PAGE - 1
                : 0;
    }

    if (chaindata_sblock_stage(m, b, CHAINDATA_SB_EVENTS, more) != 0) {
        return -1;
    }

    for (i = 0; i < b->ntxs; i++) {
        t = &b->txs[i];

        if (t->event_count <= CHAINDATA_EVENTS_PAGE) {
            continue;
        }

        n = (t->event_count + CHAINDATA_EVENTS_PAGE - 1)
            / CHAINDATA_EVENTS_PAGE;
        pages = realloc(t->pages, (n + 1) * sizeof(chaindata_req_t *));

        if (pages == NULL) {
            chaindata_mirror_log(m, "error", "transaction %s: out of memory "
                                 "for %llu events", t->tx_id,
                                 (unsigned long long) t->event_count);
            return -1;
        }

        t->pages = pages;

        for (j = 1; j < n; j++) {
            if (chaindata_sblock_add(m, b, chaindata_stacks_tx_req(m, b, t,
                                         j * CHAINDATA_EVENTS_PAGE))
                != 0)
            {
                return -1;
            }

            t->pages[j] = b->reqs[b->nreqs - 1];
            t->npages = j + 1;
        }
    }

    return 0;
}


/* the block's stage fetched: the next one's requests (several may be
 * empty) */

static int
chaindata_sblock_next(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t  i;

    while (b->pending == 0 && b->stage != CHAINDATA_SB_READY) {
        switch (b->stage) {

        case CHAINDATA_SB_BLOCK:
            if (chaindata_sblock_stage(m, b, CHAINDATA_SB_LIST, 1) != 0
                || chaindata_sblock_add(m, b,
                                        chaindata_stacks_txs_req(m, b, 0))
                   != 0)
            {
                return -1;
            }
            break;

        case CHAINDATA_SB_LIST:
            if (chaindata_sblock_listed(m, b) != 0) {
                return -1;
            }
            break;

        case CHAINDATA_SB_PAGES:
            if (chaindata_sblock_txs(m, b) != 0) {
                return -1;
            }
            break;

        case CHAINDATA_SB_TXS:
            if (chaindata_sblock_events(m, b) != 0) {
                return -1;
            }
            break;

        default:
            for (i = 0; i < b->nreqs; i++) {
                b->bytes += b->reqs[i]->len;
            }

            b->stage = CHAINDATA_SB_READY;
        }
    }

    return 0;
}


static void
chaindata_swin_ended(void *ctx, chaindata_req_t *r)
{
    chaindata_sblock_t  *b;

    b = r->owner;
    b->pending--;

    if (r->why[0] && !r->may_fail && b->failed == NULL) {
        b->failed = r;
    }
}


/* the blocks from the i-th up dropped: nothing of them is written */

static void
chaindata_swin_discard(chaindata_swin_t *w, size_t i)
{
    while (w->n > i) {
        chaindata_sblock_free(w->m, w->b[--w->n]);
        w->b[w->n] = NULL;
    }
}


/*
 * The blocks' stages moved on; a failed block ends the window above it.
 * -1: out of memory.
 */

static int
chaindata_swin_advance(chaindata_swin_t *w)
{
    size_t               i;
    chaindata_sblock_t  *b;

    for (i = 0; i < w->n; i++) {
        b = w->b[i];

        if (b->failed) {
            chaindata_http_cancel(&w->m->http, b->reqs, b->nreqs);
            chaindata_swin_discard(w, i + 1);
            w->stop = 1;
            return 0;
        }

        if (chaindata_sblock_next(w->m, b) != 0) {
            return -1;
        }
    }

    return 0;
}


/*
 * The answers the window holds: its blocks' earlier stages, and what the
 * stage each is in has been answered so far.
 */

static size_t
chaindata_swin_held(chaindata_swin_t *w)
{
    size_t               i, j, held;
    chaindata_sblock_t  *b;

    for (i = 0, held = 0; i < w->n; i++) {
        b = w->b[i];
        held += b->bytes;

        for (j = 0; b->stage != CHAINDATA_SB_READY && j < b->nreqs; j++) {
            held += b->reqs[j]->done ? b->reqs[j]->len : 0;
        }
    }

    return held;
}


/* more blocks in flight, while the window and the bytes held allow */

static int
chaindata_swin_fill(chaindata_swin_t *w)
{
    size_t               bytes;
    chaindata_sblock_t  *b;

    bytes = chaindata_swin_held(w);

    while (!w->stop && w->n < w->max && w->next <= w->tip
           && (w->n == 0 || bytes < CHAINDATA_AHEAD_BYTES))
    {
        b = calloc(1, sizeof(chaindata_sblock_t));
        if (b == NULL) {
            chaindata_mirror_log(w->m, "error", "out of memory");
            return -1;
        }

        b->height = w->next;

        if (chaindata_sblock_stage(w->m, b, CHAINDATA_SB_BLOCK, 1) != 0
            || chaindata_sblock_add(w->m, b, chaindata_stacks_block_req(w->m,
                                                   b, w->next)) != 0)
        {
            chaindata_sblock_free(w->m, b);
            return -1;
        }

        w->b[w->n++] = b;
        w->next++;
    }

    return 0;
}


/*
 * One turn of the client over every request not answered yet; with the
 * window holding CHAINDATA_AHEAD_BYTES or more, over the next block to
 * commit's only (the others' requests in flight end, none starts), so
 * that what is held ahead stays bounded however large the blocks above
 * turn out to be.
 */

static int
chaindata_swin_turn(chaindata_swin_t *w)
{
    size_t               i, j, n, want, blocks;
    chaindata_req_t    **all;
    chaindata_sblock_t  *b;

    blocks = chaindata_swin_held(w) < CHAINDATA_AHEAD_BYTES ? w->n : 1;

    for (i = 0, want = 0; i < blocks; i++) {
        want += w->b[i]->pending;
    }

    if (want > w->cap) {
        all = realloc(w->all, want * sizeof(chaindata_req_t *));
        if (all == NULL) {
            chaindata_mirror_log(w->m, "error", "out of memory");
            return CHAINDATA_EXIT_SYSTEM;
        }

        w->all = all;
        w->cap = want;
    }

    for (i = 0, n = 0; i < blocks; i++) {
        b = w->b[i];

        for (j = 0; j < b->nreqs && n < want; j++) {
            if (!b->reqs[j]->done) {
                w->all[n++] = b->reqs[j];
            }
        }
    }

    return chaindata_http_turn(&w->m->http, w->all, n, chaindata_swin_ended,
                               w);
}


/* block b, fetched: every transaction, then one commit */

static int
chaindata_stacks_commit(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t  i;

    if (chaindata_block_open(m, CHAINDATA_STACKS, b->height, b->hash,
                             b->hash_len, b->parent, b->parent_len, b->time)
        != 0)
    {
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0; i < b->ntxs; i++) {
        if (chaindata_stacks_record(m, b, &b->txs[i]) != 0) {
            chaindata_block_abandon(m);
            return CHAINDATA_EXIT_INPUT;
        }
    }

    if (chaindata_block_commit(m) != 0) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    m->blocks++;
    m->txs += b->ntxs;
    m->height = b->height;
    m->block_time = b->time;
    strcpy(m->source, CHAINDATA_STACKS);

    return CHAINDATA_EXIT_OK;
}



static int
chaindata_stacks_get_block(chaindata_mirror_t *m, uint64_t height,
    chaindata_sblock_t *b)
{
    int               rc;
    chaindata_req_t  *r;

    r = chaindata_stacks_block_req(m, b, height);
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


/*
 * Upstream's tip asked again every CHAINDATA_TIP_EVERY seconds of a
 * catch-up: the pass goes on to it, and the progress line's ETA sees it
 * move (chaindata_mirror_log.c).
 */

static int
chaindata_swin_tip(chaindata_swin_t *w)
{
    int       rc;
    double    now;
    uint64_t  tip;

    now = chaindata_now();

    if (now < w->tip_next) {
        return CHAINDATA_EXIT_OK;
    }

    w->tip_next = now + CHAINDATA_TIP_EVERY;

    rc = chaindata_stacks_tip(w->m, &tip);

    if (rc == CHAINDATA_EXIT_OK && tip != UINT64_MAX && tip > w->tip) {
        w->tip = tip;
    }

    return rc;
}


/* the pass over the window: every block up to the tip, in order */

static int
chaindata_stacks_window(chaindata_mirror_t *m, chaindata_swin_t *w,
    chaindata_feedpos_t *pos, unsigned char *posh, int have)
{
    int                  rc;
    chaindata_sblock_t  *b;

    for ( ;; ) {
        if (chaindata_swin_advance(w) != 0) {
            return CHAINDATA_EXIT_SYSTEM;
        }

        /* the blocks fetched at the window's bottom, committed in order */
        while (w->n && w->b[0]->stage == CHAINDATA_SB_READY) {
            b = w->b[0];

            if (have && (b->parent_len != pos->hash_len
                         || memcmp(b->parent, posh, b->parent_len) != 0))
            {
                return chaindata_stacks_unlinked(m, b, posh, pos->hash_len);
            }

            rc = chaindata_stacks_commit(m, b);
            if (rc != CHAINDATA_EXIT_OK) {
                return rc;
            }

            have = 1;
            memcpy(posh, b->hash, b->hash_len);
            pos->hash_len = b->hash_len;
            pos->height = b->height;

            chaindata_sblock_free(m, b);
            memmove(w->b, w->b + 1, --w->n * sizeof(chaindata_sblock_t *));

            chaindata_mirror_progress(m, 0);
        }

        if (w->n && w->b[0]->failed) {
            chaindata_mirror_failed(m, w->b[0]->failed);
            return CHAINDATA_EXIT_INPUT;
        }

        rc = chaindata_swin_tip(w);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        if (chaindata_swin_fill(w) != 0) {
            return CHAINDATA_EXIT_SYSTEM;
        }

        if (w->n == 0) {
            return CHAINDATA_EXIT_OK;
        }

        rc = chaindata_swin_turn(w);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }
    }
}


/* one pass: reorg check, then every block up to upstream's tip */

int
chaindata_stacks_poll(chaindata_mirror_t *m, int *caught_up)
{
    int                  rc, have;
    uint64_t             tip;
    unsigned char        posh[CHAINDATA_FEED_HASH_MAX];
    chaindata_swin_t     w;
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

    memset(&w, 0, sizeof(w));
    w.m = m;
    w.tip = tip;
    w.tip_next = chaindata_now() + CHAINDATA_TIP_EVERY;
    w.max = m->ahead ? m->ahead : 1;

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

        w.next = pos.height + 1;

    } else {
        w.next = m->has_from ? m->from_height : tip;
    }

    w.b = calloc(w.max, sizeof(chaindata_sblock_t *));
    if (w.b == NULL) {
        chaindata_mirror_log(m, "error", "out of memory");
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = chaindata_stacks_window(m, &w, &pos, posh, have);

    /* what is still in flight was fetched ahead: dropped */
    chaindata_swin_discard(&w, 0);
    free(w.b);
    free(w.all);

    *caught_up = rc == CHAINDATA_EXIT_OK;

    return rc;
}
