
/*
 * chaindata-mirror: the Runes feed's catch-up fill (--catch-up, README
 * "Mirroring an upstream", doc/first-fill.md).
 *
 * Following (--catch-up replay) costs a block: its activity's pages, the
 * activity of each of its transactions (transaction route), and the whole
 * balance list of each address it names, refetched every block that names
 * it.  Far behind upstream's tip that is a replay of history at several
 * requests a transaction.  The fill fetches the same blocks, but:
 *
 *   - A transaction's activity is taken from its block's activity, not
 *     asked for again.  Upstream (hirosystems/bitcoin-indexer,
 *     api/runes/src/pg/pg-store.ts) serves both routes from one function,
 *     getActivity(): the same SELECT (l.*, r.name, r.number,
 *     r.spaced_name, r.divisibility, COUNT(*) OVER()) of ledger joined to
 *     runes, the same ORDER BY block_height DESC, tx_index DESC,
 *     event_index DESC; only the WHERE differs (l.block_height = H or
 *     block_hash, against l.tx_id = T).  Both routes (api/routes/
 *     blocks.ts, transactions.ts) map the rows with parseActivityResponse()
 *     and serialize them with the one response schema
 *     PaginatedResponse(ActivityResponseSchema).  A transaction is in one
 *     block, so its rows are the block's rows of that tx_id, in the same
 *     order (the order is total: the indexer numbers a transaction's
 *     entries, components/runes/src/db/cache/transaction_cache.rs
 *     next_event_index).  The entries are grouped by location.tx_id,
 *     each group in the order the block's pages served it: the records
 *     are those the transaction route gives, byte for byte once written.
 *
 *   - An address's balances are fetched once a window (below), not once
 *     a block.  Upstream's balances are not a function of a height: the
 *     route answers the address's balances at upstream's tip whenever it
 *     is asked (getAddressBalances(), DISTINCT ON (rune_id) of
 *     balance_changes, newest first), so every block naming the address
 *     writes the same list whether it was fetched for that block or for
 *     the window; ties of equal balances are ordered as
 *     chaindata_mirror_balances.c says (upstream has no tie-breaker).
 *
 * The algorithm, from the position's next block "from" to upstream's tip
 * H read at the start of the pass ("to"):
 *
 *   1. A window: the activity of the next blocks, CHAINDATA_FILL_CHUNK
 *      blocks a round, until --catch-up-window blocks (default
 *      CHAINDATA_FILL_BLOCKS, chaindata_mirror.h) or
 *      CHAINDATA_FILL_ENTRIES entries are held (memory stays bounded
 *      whatever the blocks hold; the window ends at H).
 *   2. The addresses the window's blocks name, sorted, each once: their
 *      balance lists fetched once, kept as records.
 *   3. Each block of the window, in order, committed as following does
 *      (chaindata_runes_commit(): block record, position, undo): its
 *      transactions' activity records in tx_id order, then the kept
 *      balance records of the addresses it names in address order: the
 *      same records in the same order as a replay writes, so the block
 *      records (their undo lists) are the same bytes too.
 *   4. The next window, until H; then the pass ends not caught up, so
 *      the feed polls again at once: the reorg check from the position,
 *      then the blocks that came during the fill (followed, or filled
 *      again when still more than CHAINDATA_FILL_BEHIND behind), and only
 *      a pass that ends at upstream's tip reports the feed current.
 *
 * What the index holds equals a replay's: each block's records and undo
 * are a replay's; an address's list is upstream's at some moment after
 * the last block that names it (fetched at the window's end, or later
 * when a later block names it again), which is the list a replay writes,
 * upstream answering the same from that block on.  Only the feed's own
 * records differ (the commit times, the state:'s counts, the tip:'s time,
 * lmdb-schema/feed.md).  t/56-mirror-runes-fill.t compares the two by
 * mdb_dump.
 *
 * A failure part way: every block is its own commit, as when following,
 * so the index is at the last committed block, every list it holds
 * complete (never half a window is visible: a block is committed only
 * with its activity and its addresses' lists); the next pass resumes from
 * there.  A reorg during the fill is seen as when following: by the next
 * pass's check from the position, which rolls back what is no longer
 * upstream's (the Runes API says no parent hash, a replay cannot see it
 * sooner either).
 *
 * When: --catch-up fill always; replay never (today's following, block by
 * block, the benchmark's reference); auto (the default) fills when the
 * pass starts more than CHAINDATA_FILL_BEHIND blocks behind upstream's
 * tip.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"


#define CHAINDATA_FILL_BEHIND     144      /* a day of Bitcoin blocks */
#define CHAINDATA_FILL_CHUNK      64       /* blocks asked for a round */
#define CHAINDATA_FILL_ENTRIES    40000    /* activity entries a window */


typedef struct {
    chaindata_plist_t   **blks;      /* the window's blocks, fetched */
    size_t                n;
    size_t                txs;
    uint64_t              entries;
    chaindata_names_t     addresses; /* their addresses, once */
    chaindata_line_t     *bals;      /* their balance records */
} chaindata_window_t;


int
chaindata_runes_catch_up_mode(const char *s, chaindata_catchup_e *mode)
{
    if (strcmp(s, "auto") == 0) {
        *mode = CHAINDATA_CATCHUP_AUTO;

    } else if (strcmp(s, "fill") == 0) {
        *mode = CHAINDATA_CATCHUP_FILL;

    } else if (strcmp(s, "replay") == 0) {
        *mode = CHAINDATA_CATCHUP_REPLAY;

    } else {
        return -1;
    }

    return 0;
}


/* whether a pass behind upstream's tip by that many blocks fills */

int
chaindata_runes_fills(chaindata_mirror_t *m, uint64_t behind)
{
    switch (m->runes_catch_up) {

    case CHAINDATA_CATCHUP_FILL:
        return 1;

    case CHAINDATA_CATCHUP_REPLAY:
        return 0;

    default:
        return behind > CHAINDATA_FILL_BEHIND;
    }
}


static void
chaindata_window_free(chaindata_window_t *w)
{
    size_t  i;

    for (i = 0; i < w->n; i++) {
        chaindata_plist_free(w->blks[i]);
    }

    for (i = 0; w->bals && i < w->addresses.n; i++) {
        chaindata_line_free(&w->bals[i]);
    }

    free(w->blks);
    free(w->bals);
    chaindata_names_free(&w->addresses);
    memset(w, 0, sizeof(chaindata_window_t));
}


/* step 1: the window's blocks from height "from", at most up to "to" */

static int
chaindata_window_blocks(chaindata_mirror_t *m, chaindata_window_t *w,
    uint64_t from, uint64_t to)
{
    int       rc;
    size_t    i, chunk;
    uint64_t  left;

    w->blks = calloc(m->runes_fill_window, sizeof(chaindata_plist_t *));
    if (w->blks == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    while (w->n < m->runes_fill_window
           && w->entries < CHAINDATA_FILL_ENTRIES && from + w->n <= to)
    {
        left = to - (from + w->n) + 1;
        chunk = m->runes_fill_window - w->n;

        if (chunk > CHAINDATA_FILL_CHUNK) {
            chunk = CHAINDATA_FILL_CHUNK;
        }

        if (chunk > left) {
            chunk = (size_t) left;
        }

        for (i = 0; i < chunk; i++) {
            w->blks[w->n + i] = chaindata_runes_block_list(m,
                                                           from + w->n + i);
            if (w->blks[w->n + i] == NULL) {
                w->n += i;
                return CHAINDATA_EXIT_SYSTEM;
            }
        }

        rc = chaindata_plist_fetch(m, &w->blks[w->n], chunk);

        for (i = 0; i < chunk; i++) {
            chaindata_runes_block_fetched(w->blks[w->n + i]);
            w->entries += w->blks[w->n + i]->entries;
        }

        w->n += chunk;

        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }
    }

    return CHAINDATA_EXIT_OK;
}


/* step 2: the addresses of the window, once each, their lists kept */

static int
chaindata_window_balances(chaindata_mirror_t *m, chaindata_window_t *w)
{
    size_t              i, j;
    chaindata_rnames_t  names;

    for (i = 0; i < w->n; i++) {
        if (chaindata_runes_names(w->blks[i], &names) != 0) {
            return CHAINDATA_EXIT_SYSTEM;
        }

        for (j = 0; j < names.addresses.n; j++) {
            if (chaindata_names_add(&w->addresses,
                                    (const unsigned char *)
                                    names.addresses.items[j],
                                    strlen(names.addresses.items[j]))
                != 0)
            {
                chaindata_runes_names_free(&names);
                return CHAINDATA_EXIT_SYSTEM;
            }
        }

        chaindata_runes_names_free(&names);
    }

    chaindata_names_unique(&w->addresses);

    w->bals = calloc(w->addresses.n + 1, sizeof(chaindata_line_t));
    if (w->bals == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    return chaindata_balances_keep(m, w->addresses.items, w->addresses.n,
                                   w->bals);
}


/* an activity entry with its transaction, in the order served */

typedef struct {
    const chaindata_jv_t  *entry;
    const unsigned char   *id;
    size_t                 seq;
} chaindata_fill_entry_t;


typedef struct {
    chaindata_fill_entry_t  *v;
    size_t                   n;
    size_t                   cap;
} chaindata_fill_entries_t;


static int
chaindata_fill_collect(void *ctx, const chaindata_jv_t *e)
{
    chaindata_fill_entries_t  *all;

    all = ctx;

    if (all->n == all->cap) {
        return -1;                      /* not reached: the list's entries */
    }

    /* checked by the block's page (chaindata_block_entry): a tx id */
    all->v[all->n].entry = e;
    all->v[all->n].id = chaindata_jv_get(chaindata_jv_get(e, "location"),
                                         "tx_id")->str;
    all->v[all->n].seq = all->n;
    all->n++;

    return 0;
}


static int
chaindata_fill_entry_cmp(const void *a, const void *b)
{
    int                            c;
    const chaindata_fill_entry_t  *x = a, *y = b;

    c = memcmp(x->id, y->id, CHAINDATA_TXID_HEX_LEN);

    if (c) {
        return c;
    }

    return x->seq < y->seq ? -1 : (x->seq > y->seq);
}


/*
 * The block's transactions' activity records, from its activity: grouped
 * by transaction, in tx_id order, each in the order served (the file's
 * comment says why that is what the transaction route serves).
 */

static int
chaindata_fill_activity(chaindata_mirror_t *m, chaindata_plist_t *blk,
    size_t *ntxs)
{
    int                        rc;
    char                       id[CHAINDATA_TXID_HEX_LEN + 1];
    size_t                     i, j, k;
    const chaindata_jv_t     **group;
    chaindata_fill_entries_t   all;

    memset(&all, 0, sizeof(all));

    all.cap = (size_t) blk->entries;
    all.v = calloc(all.cap + 1, sizeof(chaindata_fill_entry_t));

    if (all.v == NULL
        || chaindata_plist_each(blk, chaindata_fill_collect, &all) != 0)
    {
        free(all.v);
        return CHAINDATA_EXIT_SYSTEM;
    }

    if (all.n) {
        qsort(all.v, all.n, sizeof(chaindata_fill_entry_t),
              chaindata_fill_entry_cmp);
    }

    group = calloc(all.n + 1, sizeof(chaindata_jv_t *));
    if (group == NULL) {
        free(all.v);
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = CHAINDATA_EXIT_OK;

    for (i = 0; rc == CHAINDATA_EXIT_OK && i < all.n; i = j) {
        for (j = i, k = 0;
             j < all.n
             && memcmp(all.v[j].id, all.v[i].id, CHAINDATA_TXID_HEX_LEN) == 0;
             j++)
        {
            group[k++] = all.v[j].entry;
        }

        memcpy(id, all.v[i].id, CHAINDATA_TXID_HEX_LEN);
        id[CHAINDATA_TXID_HEX_LEN] = '\0';

        if (chaindata_list_record(m, "rune_activity", "tx_id", id, group, k)
            != 0)
        {
            rc = CHAINDATA_EXIT_INPUT;
        }

        (*ntxs)++;
    }

    free(group);
    free(all.v);

    return rc;
}


static int
chaindata_fill_name_cmp(const void *a, const void *b)
{
    return strcmp(a, *(char *const *) b);
}


/* a kept record, emitted (a copy: a record may serve several blocks) */

static int
chaindata_fill_emit(chaindata_mirror_t *m, const chaindata_line_t *kept)
{
    chaindata_line_t  l;

    memset(&l, 0, sizeof(l));
    l.failed = kept->failed;

    if (!l.failed) {
        l.buf = malloc(kept->len ? kept->len : 1);
        l.failed = l.buf == NULL;
        l.len = l.cap = kept->len;

        if (l.buf) {
            memcpy(l.buf, kept->buf, kept->len);
        }
    }

    return chaindata_mirror_emit(m, &l, NULL);
}


/* the kept balance records of the addresses a block names, in order */

static int
chaindata_fill_balances(chaindata_mirror_t *m, chaindata_window_t *w,
    const chaindata_names_t *addresses)
{
    char    **a;
    size_t    i;

    for (i = 0; i < addresses->n; i++) {
        a = bsearch(addresses->items[i], w->addresses.items, w->addresses.n,
                    sizeof(char *), chaindata_fill_name_cmp);

        if (a == NULL) {
            return CHAINDATA_EXIT_SYSTEM;   /* not reached: the window's */
        }

        if (chaindata_fill_emit(m, &w->bals[a - w->addresses.items]) != 0) {
            return CHAINDATA_EXIT_INPUT;
        }
    }

    return CHAINDATA_EXIT_OK;
}


/* step 3: a block's records, as a replay writes them */

static int
chaindata_fill_records(chaindata_mirror_t *m, chaindata_plist_t *blk,
    void *ctx, size_t *ntxs)
{
    int                 rc;
    chaindata_rnames_t  names;

    rc = chaindata_fill_activity(m, blk, ntxs);
    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    if (chaindata_runes_names(blk, &names) != 0) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = chaindata_fill_balances(m, ctx, &names.addresses);
    chaindata_runes_names_free(&names);

    return rc;
}


/* step 3 for the window: its blocks committed one by one, in order */

static int
chaindata_window_commit(chaindata_mirror_t *m, chaindata_window_t *w,
    unsigned char *posh, chaindata_feedpos_t *pos)
{
    int                 rc;
    size_t              i;
    chaindata_plist_t  *blk;

    for (i = 0; i < w->n; i++) {
        blk = w->blks[i];

        if (blk->time == 0) {
            blk->time = pos->time;
        }

        rc = chaindata_runes_commit(m, blk, posh, pos->hash_len,
                                    chaindata_fill_records, w);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        memcpy(posh, blk->hash, blk->hash_len);
        pos->hash_len = blk->hash_len;
        pos->time = blk->time;

        chaindata_mirror_progress(m, 0);
    }

    return CHAINDATA_EXIT_OK;
}


/* blocks from..to, window by window; posh, pos: the position, kept */

int
chaindata_runes_fill(chaindata_mirror_t *m, uint64_t from, uint64_t to,
    unsigned char *posh, chaindata_feedpos_t *pos)
{
    int                 rc;
    size_t              windows;
    uint64_t            h, requests, txs;
    chaindata_window_t  w;

    chaindata_mirror_log(m, "info", "runes: filling blocks %llu to %llu "
                         "(--catch-up), then following",
                         (unsigned long long) from, (unsigned long long) to);

    requests = m->http.requests;
    txs = m->txs;
    rc = CHAINDATA_EXIT_OK;

    for (h = from, windows = 0; rc == CHAINDATA_EXIT_OK && h <= to;
         windows++)
    {
        memset(&w, 0, sizeof(w));

        rc = chaindata_window_blocks(m, &w, h, to);

        if (rc == CHAINDATA_EXIT_OK) {
            rc = chaindata_window_balances(m, &w);
        }

        if (rc == CHAINDATA_EXIT_OK) {
            rc = chaindata_window_commit(m, &w, posh, pos);
        }

        h += w.n;
        chaindata_window_free(&w);
    }

    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    txs = m->txs - txs;
    requests = m->http.requests - requests;

    chaindata_mirror_log(m, "info", "runes: filled blocks %llu to %llu in "
                         "%zu windows: %llu transactions, %llu requests "
                         "(%.2f a transaction)",
                         (unsigned long long) from, (unsigned long long) to,
                         windows, (unsigned long long) txs,
                         (unsigned long long) requests,
                         txs ? (double) requests / txs : 0.0);

    return CHAINDATA_EXIT_OK;
}
