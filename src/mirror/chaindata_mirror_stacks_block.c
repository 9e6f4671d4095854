
/*
 * chaindata-mirror: a Stacks block's stages (chaindata_sstage_e in
 * chaindata_mirror_stacks.h): the requests of each stage made, and
 * checked against the block's claims as its answers come, until the
 * block is fetched whole and ready to commit.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"
#include "chaindata_mirror_stacks.h"


/* the stage's requests are its own (the transactions' pages are theirs) */

static int
chaindata_sblock_owns(const chaindata_sblock_t *b)
{
    return b->stage < CHAINDATA_SB_TXS || b->stage == CHAINDATA_SB_V3;
}


void
chaindata_sblock_free(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t  i, j;

    if (b == NULL) {
        return;
    }

    chaindata_http_cancel(&m->http, b->reqs, b->nreqs);

    for (i = 0; chaindata_sblock_owns(b) && i < b->nreqs; i++) {
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

int
chaindata_sblock_stage(chaindata_mirror_t *m, chaindata_sblock_t *b,
    chaindata_sstage_e stage, size_t n)
{
    size_t  i;

    for (i = 0; chaindata_sblock_owns(b) && i < b->nreqs; i++) {
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


int
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


/* the rows of a page of the listing taken: their ids in the block's list */

static int
chaindata_sblock_take(chaindata_mirror_t *m, chaindata_sblock_t *b,
    const chaindata_jv_t *rows)
{
    size_t                 cap;
    chaindata_stx_t       *txs;
    const chaindata_jv_t  *tx, *id;

    if (b->ntxs + rows->n > b->txs_cap) {
        cap = b->txs_cap ? 2 * b->txs_cap : CHAINDATA_TXS_PAGE;

        while (cap < b->ntxs + rows->n) {
            cap *= 2;
        }

        txs = realloc(b->txs, (cap + 1) * sizeof(chaindata_stx_t));
        if (txs == NULL) {
            chaindata_mirror_log(m, "error", "block %llu: out of memory for "
                                 "%llu transactions",
                                 (unsigned long long) b->height,
                                 (unsigned long long) cap);
            return -1;
        }

        memset(txs + b->txs_cap, 0,
               (cap + 1 - b->txs_cap) * sizeof(chaindata_stx_t));
        b->txs = txs;
        b->txs_cap = cap;
    }

    for (tx = rows->child; tx; tx = tx->next) {
        id = chaindata_jv_get(tx, "tx_id");
        memcpy(b->txs[b->ntxs++].tx_id, id->str, 66);
    }

    return 0;
}


/*
 * Upstream's claims of how many transactions the block has, its tx_count
 * and its listing's total (upstream's SQL takes the one from the other),
 * compared with the rows listed, which are what is mirrored: the first
 * block of a run where they differ is logged (the genesis block lists 9
 * rows under a tx_count of 1).
 */

static void
chaindata_sblock_claims(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    if ((b->ntxs == b->tx_count && b->ntxs == b->total)
        || m->stacks_claims_logged)
    {
        return;
    }

    m->stacks_claims_logged = 1;

    chaindata_mirror_log(m, "warn", "block %llu: tx_count %llu, listing "
                         "total %llu, but %llu transactions listed; the "
                         "listing is mirrored (counts are claims: further "
                         "differences this run are not logged)",
                         (unsigned long long) b->height,
                         (unsigned long long) b->tx_count,
                         (unsigned long long) b->total,
                         (unsigned long long) b->ntxs);
}


/*
 * The pages of the listing asked so far answered, in offset order: their
 * rows taken.  The listing ends at its first page short of a full one (a
 * 404 holds none); a page after it that holds rows means the listing
 * changed under its pages (the block failed, to be fetched again).
 * Until it ends, the next pages are asked: as many as the claims leave
 * (CHAINDATA_TXS_PAGES_ROUND at most), one at least, so that a claim
 * short of the rows never ends the list; past CHAINDATA_BLOCK_TXS_MAX
 * rows the block fails, loudly.
 */

int
chaindata_sblock_listed(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    int               rc;
    size_t            i, n, rows;
    uint64_t          claim, offset;
    chaindata_req_t  *r;

    for (i = 0; i < b->nreqs; i++) {
        r = b->reqs[i];
        rows = r->root ? r->list->n : 0;

        if (r->arg == 0 && r->root) {
            (void) chaindata_jv_u64(r->root, "total", &b->total);
        }

        if (b->listed) {
            if (rows) {
                b->failed = r;
                (void) chaindata_req_fail(r, "%zu transactions after the "
                                          "end of the listing at %llu: it "
                                          "changed between pages", rows,
                                          (unsigned long long) b->ntxs);
                return 0;
            }

            continue;
        }

        if (b->ntxs + rows > CHAINDATA_BLOCK_TXS_MAX) {
            b->failed = r;
            (void) chaindata_req_fail(r, "the listing goes on past %llu "
                                      "transactions, more than a block may "
                                      "have: refused",
                                      (unsigned long long)
                                      CHAINDATA_BLOCK_TXS_MAX);
            return 0;
        }

        if (rows && chaindata_sblock_take(m, b, r->list) != 0) {
            return -1;
        }

        b->listed = rows < CHAINDATA_TXS_PAGE;
    }

    if (b->listed) {
        chaindata_sblock_claims(m, b);
        return 0;
    }

    offset = b->ntxs;
    claim = b->total > b->tx_count ? b->total : b->tx_count;
    claim = claim > CHAINDATA_BLOCK_TXS_MAX ? CHAINDATA_BLOCK_TXS_MAX : claim;
    n = claim > offset ? (claim - offset + CHAINDATA_TXS_PAGE - 1)
                         / CHAINDATA_TXS_PAGE : 1;
    n = n > CHAINDATA_TXS_PAGES_ROUND ? CHAINDATA_TXS_PAGES_ROUND : n;
    n = n ? n : 1;

    if (chaindata_sblock_stage(m, b, CHAINDATA_SB_PAGES, n) != 0) {
        return -1;
    }

    for (i = 0, rc = 0; rc == 0 && i < n; i++) {
        rc = chaindata_sblock_add(m, b, chaindata_stacks_txs_req(m, b,
                                      offset + i * CHAINDATA_TXS_PAGE));
    }

    return rc;
}


/* every transaction's first page of events */

static int
chaindata_sblock_txs(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t            i;
    chaindata_stx_t  *t;

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


/*
 * The chain's first block (with index hashes: an upstream serving v3):
 * each transaction's v3 document (chaindata_mirror_stacks_routes.c)
 */

static int
chaindata_sblock_v3(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t  i;

    if (chaindata_sblock_stage(m, b, CHAINDATA_SB_V3, b->ntxs) != 0) {
        return -1;
    }

    for (i = 0; i < b->ntxs; i++) {
        if (chaindata_sblock_add(m, b,
                                 chaindata_stacks_v3_req(m, b, &b->txs[i]))
            != 0)
        {
            return -1;
        }
    }

    return 0;
}


/* fetched: the answers' bytes counted, the stage's own requests freed */

static void
chaindata_sblock_ready(chaindata_sblock_t *b)
{
    size_t  i;

    for (i = 0; i < b->nreqs; i++) {
        if (chaindata_sblock_owns(b)) {
            chaindata_req_free(b->reqs[i]);

        } else {
            b->bytes += b->reqs[i]->len;
        }
    }

    free(b->reqs);
    b->reqs = NULL;
    b->nreqs = 0;
    b->stage = CHAINDATA_SB_READY;
}


/* the block's stage fetched: the next one's requests (several may be
 * empty) */

int
chaindata_sblock_next(chaindata_mirror_t *m, chaindata_sblock_t *b)
{
    size_t  i;

    while (b->pending == 0 && b->stage != CHAINDATA_SB_READY
           && b->failed == NULL)
    {
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
        case CHAINDATA_SB_PAGES:
            if (b->listed) {
                if (chaindata_sblock_txs(m, b) != 0) {
                    return -1;
                }

            } else if (chaindata_sblock_listed(m, b) != 0) {
                return -1;
            }
            break;

        case CHAINDATA_SB_TXS:
            if (chaindata_sblock_events(m, b) != 0) {
                return -1;
            }
            break;

        case CHAINDATA_SB_EVENTS:
            if (b->height == 1 && b->index_hash[0] && b->ntxs) {
                for (i = 0; i < b->nreqs; i++) {
                    b->bytes += b->reqs[i]->len;
                }

                if (chaindata_sblock_v3(m, b) != 0) {
                    return -1;
                }

                break;
            }

            /* fall through */

        default:
            chaindata_sblock_ready(b);
        }
    }

    return 0;
}
