
/*
 * chaindata-mirror: the Stacks follower.  Upstream's routes
 * (hirosystems/stacks-blockchain-api, src/api/routes/v2/blocks.ts and
 * src/api/routes/tx.ts):
 *
 *   GET /extended/v2/blocks?limit=1                 the tip
 *   GET /extended/v2/blocks/{height}                a block: hash, parent
 *   GET /extended/v2/blocks/{height}/transactions   its transactions,
 *       ?limit=50&offset=N                          50 a page (the most);
 *       404 past its last row (src/datastore/pg-store-v2.ts,
 *       getBlockTransactions: "Block not found" when no row is left, so a
 *       block without transactions answers 404 at offset 0 too)
 *   GET /extended/v1/tx/{tx_id}                     a transaction with a
 *       ?event_limit=100&event_offset=N             page of its events
 *   GET /extended/v3/transactions/{tx_id}           the chain's first
 *                                                   block's, each
 *
 * Every transaction of a block is fetched with all its event pages,
 * checked (the pages continue each other's event_index), made into one
 * "tx" record and committed with the block (chaindata_mirror_block.c).
 * The record carries the block's index_block_hash and
 * parent_index_block_hash, which the v3 document needs and the v1 one
 * lacks (lmdb-schema/README.md, "tx"): the block's answer has them, so
 * v3 costs no request, but in the chain's first block: upstream's
 * transactions there carry the parent index hash and the time their
 * event payload named (the boot transactions' differ from the block's),
 * which only their v3 documents say, so each is asked once.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"
#include "chaindata_mirror_stacks.h"


int
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
 * A page of a block's transactions: the offset and limit asked, at most
 * a page of rows, each with a tx_id; a 404 (gone_ok) is a page past the
 * listing's last row.  Its "total" is a claim (the block's tx_count
 * column upstream, not its rows): read by chaindata_sblock_listed() as a
 * hint of how many pages to ask at once, never as a size.
 */

static int
chaindata_stacks_check_txs(chaindata_req_t *r)
{
    uint64_t               total, limit, offset;
    const chaindata_jv_t  *res, *tx, *id;

    res = chaindata_req_txs_page(r, "block", &total);
    if (res == NULL) {
        return -1;
    }

    if (chaindata_jv_u64(r->root, "limit", &limit) != 0
        || chaindata_jv_u64(r->root, "offset", &offset) != 0
        || limit != CHAINDATA_TXS_PAGE || offset != r->arg)
    {
        return chaindata_req_fail(r, "not the page asked for (limit %d, "
                                  "offset %llu)", CHAINDATA_TXS_PAGE,
                                  (unsigned long long) r->arg);
    }

    if (res->n > CHAINDATA_TXS_PAGE) {
        return chaindata_req_fail(r, "%zu transactions on a page of %d",
                                  res->n, CHAINDATA_TXS_PAGE);
    }

    for (tx = res->child; tx; tx = tx->next) {
        id = tx->type == CHAINDATA_JV_OBJECT
             ? chaindata_jv_get(tx, "tx_id") : NULL;

        if (!chaindata_url_txid(id)) {
            return chaindata_req_fail(r, "a transaction without a tx_id "
                                      "(0x and 64 hex digits)");
        }
    }

    r->list = (chaindata_jv_t *) res;

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


/*
 * A transaction's v3 document, of the chain's first block: its
 * parent_block.index_hash and block.time, which its record then carries
 * (a 404, gone_ok: an upstream before 9.0, the block's are kept)
 */

static int
chaindata_stacks_check_v3(chaindata_req_t *r)
{
    chaindata_stx_t       *t;
    const chaindata_jv_t  *id, *block, *parent;

    t = r->ctx;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    id = chaindata_jv_get(r->root, "tx_id");
    block = chaindata_jv_get(r->root, "block");
    parent = chaindata_jv_get(r->root, "parent_block");

    if (id == NULL || id->type != CHAINDATA_JV_STRING || id->len != 66
        || strncasecmp((const char *) id->str, t->tx_id, 66) != 0
        || block == NULL || block->type != CHAINDATA_JV_OBJECT
        || chaindata_jv_u64(block, "time", &t->v3_time) != 0
        || parent == NULL || parent->type != CHAINDATA_JV_OBJECT
        || chaindata_stacks_index_hash(parent, "index_hash",
                                       t->v3_parent_index) != 0)
    {
        return chaindata_req_fail(r, "not the v3 document of transaction "
                                  "%s (block.time, parent_block.index_hash)",
                                  t->tx_id);
    }

    t->v3 = 1;

    return 0;
}


int
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


chaindata_req_t *
chaindata_stacks_txs_req(chaindata_mirror_t *m, chaindata_sblock_t *b,
    size_t offset)
{
    char              url[CHAINDATA_URL_MAX];
    chaindata_req_t  *r;

    snprintf(url, sizeof(url), "%s/extended/v2/blocks/%llu/transactions"
             "?limit=%d&offset=%zu", m->stacks_api,
             (unsigned long long) b->height, CHAINDATA_TXS_PAGE, offset);

    r = chaindata_stacks_req(b, chaindata_stacks_check_txs, b, offset, url);
    if (r) {
        r->gone_ok = 1;                 /* past the last row */
    }

    return r;
}


chaindata_req_t *
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


chaindata_req_t *
chaindata_stacks_v3_req(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_stx_t *t)
{
    char              url[CHAINDATA_URL_MAX];
    chaindata_req_t  *r;

    snprintf(url, sizeof(url), "%s/extended/v3/transactions/%s",
             m->stacks_api, t->tx_id);

    r = chaindata_stacks_req(b, chaindata_stacks_check_v3, t, 0, url);
    if (r) {
        r->gone_ok = 1;
    }

    return r;
}


chaindata_req_t *
chaindata_stacks_block_req(chaindata_mirror_t *m, chaindata_sblock_t *b,
    uint64_t height)
{
    char  url[CHAINDATA_URL_MAX];

    snprintf(url, sizeof(url), "%s/extended/v2/blocks/%llu", m->stacks_api,
             (unsigned long long) height);

    return chaindata_stacks_req(b, chaindata_stacks_check_block, b, height,
                                url);
}


/* v3's block.time, when it is not the document's block_time */

static void
chaindata_stacks_v3_time(chaindata_line_t *l, chaindata_stx_t *t)
{
    uint64_t  v1;

    if (chaindata_jv_u64(t->pages[0]->root, "block_time", &v1) != 0
        || v1 != t->v3_time)
    {
        chaindata_line_u64(l, "block_time", t->v3_time);
    }
}


/* the document with all its events: page 0's tree, the pages linked in */

int
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
                           t->v3 ? t->v3_parent_index : b->parent_index_hash,
                           66);
    }

    if (b->index_hash[0] && t->v3) {
        chaindata_stacks_v3_time(&l, t);
    }

    (void) chaindata_line_close(&l);

    return chaindata_mirror_emit(m, &l, NULL);
}
