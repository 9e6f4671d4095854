
/*
 * chaindata-mirror: the Runes feed's catch-up fill (--catch-up,
 * doc/mirror.md, doc/first-fill.md).
 *
 * Following (--catch-up replay) costs a block: its activity's pages, the
 * activity of each of its transactions (transaction route), the whole
 * balance list of each address it names, refetched every block that names
 * it (5 requests a transaction on issue 25's data set), and the etching
 * of each rune it names, each block its own write transaction.  The fill
 * fetches the same blocks, but:
 *
 *   - A transaction's activity is taken from its block's activity, not
 *     asked for again.  Upstream (hirosystems/bitcoin-indexer,
 *     api/runes/src/pg/pg-store.ts) serves both routes from one function,
 *     getActivity(): the same SELECT (l.*, r.name, r.number,
 *     r.spaced_name, r.divisibility, COUNT(*) OVER()) of ledger joined to
 *     runes, the same ORDER BY block_height DESC, tx_index DESC,
 *     event_index DESC; only the WHERE differs (l.block_height = H, or
 *     the block's hash, against l.tx_id = T).  Both routes (api/routes/
 *     blocks.ts, transactions.ts) map the rows with parseActivityResponse()
 *     and serialize them with the one response schema
 *     PaginatedResponse(ActivityResponseSchema).  A transaction is in one
 *     block, so its rows are the block's rows of that tx_id, in the same
 *     order (a total order: the indexer numbers a transaction's entries,
 *     components/runes/src/db/cache/transaction_cache.rs
 *     next_event_index).  The entries are grouped by location.tx_id, each
 *     group in the order the block's pages served it: the records are
 *     those the transaction route gives, byte for byte once written.
 *
 *   - An address's balances are fetched once a window, not once a block.
 *     Upstream's balances are not a function of a height: the route
 *     answers the address's balances at upstream's tip whenever it is
 *     asked (getAddressBalances(), DISTINCT ON (rune_id) of
 *     balance_changes, newest first), so a list fetched at the window's
 *     end is the list a replay fetches for the window's last block naming
 *     the address (upstream answers the same from that block on); ties of
 *     equal balances are ordered as chaindata_mirror_balances.c says
 *     (upstream has no tie-breaker: the index holds the first order any
 *     page served).  A list served at a tip above the window is kept by
 *     that tip until the index holds it (chaindata_mirror_runes_tip.c):
 *     reorganised away first, the list is fetched again.  A rune's
 *     etching likewise (getEtching(): its supply at upstream's tip).
 *
 * The algorithm, from the position's next block "from" to upstream's tip
 * H read at the start of the pass ("to"), a window at a time:
 *
 *   1. The activity of the next CHAINDATA_FILL_CHUNK blocks (their pages
 *      asked for together), then each of them, in order, into the write
 *      set as following writes it (block record, undo, position: the
 *      framing records of lmdb-schema/feed.md): its rune_block record
 *      (its activity, as a replay's), its transactions' activity records
 *      in tx_id order, then for each address it names in address order an
 *      empty balance list, for each rune in rune id order a null etching,
 *      which put them in the block's undo as a replay's records do (the
 *      undo record depends on neither).  The pages are freed; the
 *      addresses and runes are kept.  Again, until --catch-up-window
 *      blocks (default CHAINDATA_FILL_BLOCKS) or CHAINDATA_FILL_BYTES of
 *      writes are held, or H.
 *   2. The window's addresses, sorted, each once, fetched
 *      CHAINDATA_FILL_GROUP at a time and their lists written after the
 *      window's last block (records outside blocks, as a rollback writes
 *      the lists it fetches again), then its runes' etchings, each once:
 *      the last write of each address and rune in the write set is its
 *      list, its etching.
 *   3. The write set committed: the window's blocks, their records and
 *      the lists, one write transaction (published first with --nats, one
 *      unit; a stream follower applies it as one too).  The next window.
 *   4. At H, the pass ends not caught up, so the feed polls again at
 *      once: the reorg check from the position, then the blocks that came
 *      during the fill (followed, or filled again when still more than
 *      CHAINDATA_FILL_BEHIND behind); only a pass that ends at upstream's
 *      tip reports the feed current.
 *
 * What the index holds equals a replay's, but for the feed's own records
 * (the commit times, the state:'s counts, the tip:'s time,
 * lmdb-schema/feed.md): each block's block record (hash, parent, time,
 * undo) is a replay's byte for byte, each block's activity and each
 * transaction's is, and each address's list and rune's etching is
 * upstream's at some moment after the last block naming it, as a
 * replay's.  A later rollback undoes a filled block as a followed one
 * (its undo deletes the lists and etchings it names; the rollback fetches
 * them again).  t/56-mirror-runes-fill.t compares the two by mdb_dump.
 *
 * A failure part way (upstream failing, a refused answer, a kill): the
 * window's write set is dropped, nothing of it is visible; the index is
 * at the last committed window, complete, and the next pass resumes from
 * there.  A reorg during the fill is seen as when following, by the next
 * pass's check from the position (the Runes API says no parent hash: a
 * replay cannot see it sooner either), and rolled back.
 *
 * When: --catch-up fill always; replay never (following block by block,
 * the benchmark's reference); auto (the default) fills when a pass starts
 * more than CHAINDATA_FILL_BEHIND blocks behind upstream's tip.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"


#define CHAINDATA_FILL_BEHIND     144      /* a day of Bitcoin blocks */
#define CHAINDATA_FILL_CHUNK      64       /* blocks asked for at once */
#define CHAINDATA_FILL_BYTES      (256 * 1024 * 1024)  /* writes a window */
#define CHAINDATA_FILL_GROUP      256      /* addresses asked for at once */
#define CHAINDATA_FILL_FREE       16       /* free pages worth compacting */


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
    switch (m->runes.catch_up) {

    case CHAINDATA_CATCHUP_FILL:
        return 1;

    case CHAINDATA_CATCHUP_REPLAY:
        return 0;

    default:
        return behind > CHAINDATA_FILL_BEHIND;
    }
}


/* the window being filled */

typedef struct {
    chaindata_names_t     addresses; /* the blocks' addresses */
    chaindata_names_t     runes;     /* and rune ids */
    size_t                blocks;
    size_t                txs;
    uint64_t              from;      /* its first block */
    uint64_t              to;        /* the last it may reach: the fill's */
    uint64_t              height;    /* of the last block */
    unsigned char        *posh;      /* the position, moved along */
    chaindata_feedpos_t  *pos;
} chaindata_window_t;


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


/*
 * The block's addresses and runes: an empty balance list and a null
 * etching each, which put them in the block's undo as a replay's records
 * do (the undo record depends on neither), kept for the window's end
 */

static int
chaindata_fill_names(chaindata_mirror_t *m, chaindata_window_t *w,
    chaindata_rnames_t *names)
{
    size_t  i;

    for (i = 0; i < names->addresses.n; i++) {
        if (chaindata_list_record(m, "rune_balances", "address",
                                  names->addresses.items[i], NULL, 0)
            != 0)
        {
            return CHAINDATA_EXIT_INPUT;
        }
    }

    for (i = 0; i < names->runes.n; i++) {
        if (chaindata_etching_record(m, names->runes.items[i], NULL)
            != CHAINDATA_EXIT_OK)
        {
            return CHAINDATA_EXIT_INPUT;
        }
    }

    if (chaindata_names_join(&w->addresses, &names->addresses) != 0
        || chaindata_names_join(&w->runes, &names->runes) != 0)
    {
        return CHAINDATA_EXIT_SYSTEM;
    }

    return CHAINDATA_EXIT_OK;
}


/* a fetched block into the write set, as a replay writes it (step 1) */

static int
chaindata_fill_block(chaindata_mirror_t *m, chaindata_window_t *w,
    chaindata_plist_t *blk)
{
    int                   rc;
    unsigned char        *posh;
    chaindata_rnames_t    names;
    chaindata_feedpos_t  *pos;

    posh = w->posh;
    pos = w->pos;

    if (blk->time == 0) {
        blk->time = pos->time;
    }

    if (chaindata_runes_names(blk, &names) != 0) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    chaindata_runes_above_seen(m, blk->hash, blk->hash_len);
    rc = CHAINDATA_EXIT_OK;

    if (chaindata_block_append(m, CHAINDATA_RUNES, blk->height, blk->hash,
                               blk->hash_len, posh, pos->hash_len, blk->time)
        != 0)
    {
        rc = CHAINDATA_EXIT_SYSTEM;

    } else {
        rc = chaindata_runes_block_record(m, blk);
    }

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_fill_activity(m, blk, &w->txs);
    }

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_fill_names(m, w, &names);
    }

    if (rc == CHAINDATA_EXIT_OK && chaindata_block_end(m) != 0) {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    chaindata_runes_names_free(&names);

    if (rc == CHAINDATA_EXIT_OK) {
        memcpy(posh, blk->hash, blk->hash_len);
        pos->hash_len = blk->hash_len;
        pos->time = blk->time;
        w->height = blk->height;
        w->blocks++;
    }

    return rc;
}


/* step 1: the next blocks, a chunk's pages at a time, into the write set */

static int
chaindata_fill_chunk(chaindata_mirror_t *m, chaindata_window_t *w,
    uint64_t from, size_t n)
{
    int                 rc;
    size_t              i;
    chaindata_plist_t  *blks[CHAINDATA_FILL_CHUNK];

    memset(blks, 0, sizeof(blks));
    rc = CHAINDATA_EXIT_OK;

    for (i = 0; i < n; i++) {
        blks[i] = chaindata_runes_block_list(m, from + i);
        if (blks[i] == NULL) {
            rc = CHAINDATA_EXIT_SYSTEM;
        }
    }

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_plist_fetch(m, blks, n);
    }

    for (i = 0; rc == CHAINDATA_EXIT_OK && i < n; i++) {
        chaindata_runes_block_fetched(blks[i]);
        rc = chaindata_fill_block(m, w, blks[i]);
    }

    for (i = 0; i < n; i++) {
        chaindata_plist_free(blks[i]);
    }

    return rc;
}


/*
 * step 2: the window's addresses, once each, their lists after its
 * blocks; then its runes' etchings, once each
 */

static int
chaindata_fill_lists(chaindata_mirror_t *m, chaindata_window_t *w)
{
    int     rc;
    size_t  i, n;

    chaindata_names_unique(&w->addresses);
    chaindata_names_unique(&w->runes);

    for (i = 0; i < w->addresses.n; i += n) {
        n = w->addresses.n - i;

        if (n > CHAINDATA_FILL_GROUP) {
            n = CHAINDATA_FILL_GROUP;
        }

        rc = chaindata_balances_records(m, w->addresses.items + i, n);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }
    }

    return chaindata_etchings_records(m, w->runes.items, w->runes.n);
}


/* steps 1 to 3: a window from its first block, at most up to w->to */

static int
chaindata_fill_window(chaindata_mirror_t *m, chaindata_window_t *w)
{
    int       rc;
    size_t    n;
    uint64_t  left, from;

    from = w->from;

    chaindata_block_reset(m);
    chaindata_runes_above_begin(m);

    while (w->blocks < m->runes.fill_window
           && m->in.ws.len < CHAINDATA_FILL_BYTES
           && from + w->blocks <= w->to)
    {
        left = w->to - (from + w->blocks) + 1;
        n = m->runes.fill_window - w->blocks;

        if (n > CHAINDATA_FILL_CHUNK) {
            n = CHAINDATA_FILL_CHUNK;
        }

        if (n > left) {
            n = (size_t) left;
        }

        rc = chaindata_fill_chunk(m, w, from + w->blocks, n);
        if (rc != CHAINDATA_EXIT_OK) {
            chaindata_block_abandon(m);
            return rc;
        }
    }

    /* the lists are written with the window's last block */
    chaindata_runes_at(m, w->posh, w->pos->hash_len, from, w->height);

    rc = chaindata_fill_lists(m, w);

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_block_reset(m);
        return rc;
    }

    chaindata_mirror_log(m, "info", "runes: blocks %llu to %llu filled: "
                         "%zu transactions, %zu addresses, %zu runes, "
                         "%zu MB written",
                         (unsigned long long) from,
                         (unsigned long long) w->height, w->txs,
                         w->addresses.n, w->runes.n, m->in.ws.len >> 20);

    if (chaindata_block_write(m) != 0) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    chaindata_runes_above_committed(m);

    m->blocks += w->blocks;
    m->txs += w->txs;
    m->height = w->height;
    m->block_time = w->pos->time;
    strcpy(m->source, CHAINDATA_RUNES);

    chaindata_mirror_progress(m, 0);

    return CHAINDATA_EXIT_OK;
}


/*
 * The end of a fill: the pages its windows freed given back
 * (chaindata_index_compact(): the index rewritten compact in place, safe
 * with the edge's readers open), when they are more than a
 * CHAINDATA_FILL_FREE-th of the index; refused, the index keeps them and
 * the log says why.
 */

static int
chaindata_fill_compact(chaindata_mirror_t *m)
{
    int       rc;
    char      err[512];
    size_t    used, free, after, gone;
    double    t;

    if (chaindata_index_pages(&m->in.ix, &used, &free) != 0
        || free <= used / CHAINDATA_FILL_FREE)
    {
        return CHAINDATA_EXIT_OK;
    }

    t = chaindata_now();
    rc = chaindata_index_compact(&m->in.ix, err, sizeof(err));

    if (rc == 1) {
        chaindata_mirror_log(m, "warn", "runes: the index keeps the %zu "
                             "free pages of the fill (of %zu): not "
                             "compacted: %s (chaindata-load --snapshot "
                             "writes a compact copy)", free, used, err);
        return CHAINDATA_EXIT_OK;
    }

    if (rc != 0) {
        chaindata_mirror_log(m, "error", "runes: the index compacted: %s",
                             err);
        return CHAINDATA_EXIT_SYSTEM;
    }

    gone = chaindata_index_pages(&m->in.ix, &after, &free) == 0
           && after < used ? used - after : 0;

    chaindata_mirror_log(m, "info", "runes: the index compacted after the "
                         "fill: %zu pages of %zu given back (%.1f s)",
                         gone, used, chaindata_now() - t);

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
    txs = 0;
    rc = CHAINDATA_EXIT_OK;

    for (h = from, windows = 0; rc == CHAINDATA_EXIT_OK && h <= to;
         windows++)
    {
        memset(&w, 0, sizeof(w));
        w.posh = posh;
        w.pos = pos;
        w.from = h;
        w.to = to;

        rc = chaindata_fill_window(m, &w);

        h += w.blocks;
        txs += w.txs;
        chaindata_names_free(&w.addresses);
        chaindata_names_free(&w.runes);
    }

    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    requests = m->http.requests - requests;

    chaindata_mirror_log(m, "info", "runes: filled blocks %llu to %llu in "
                         "%zu windows: %llu transactions, %llu requests "
                         "(%.2f a transaction)",
                         (unsigned long long) from, (unsigned long long) to,
                         windows, (unsigned long long) txs,
                         (unsigned long long) requests,
                         txs ? (double) requests / txs : 0.0);

    return chaindata_fill_compact(m);
}
