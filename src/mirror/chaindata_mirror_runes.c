
/*
 * chaindata-mirror: the Runes follower.  Upstream's routes
 * (hirosystems/runehook, api/src/api/routes/, 60 entries a page at most,
 * api/src/api/schemas.ts LimitSchema):
 *
 *   GET /runes/v1/                              status.ts: block_height,
 *                                               the tip
 *   GET /runes/v1/blocks/{height}/activity      blocks.ts: a block's
 *       ?offset=N&limit=60                      activity, location.block_hash
 *   GET /runes/v1/transactions/{tx_id}/activity transactions.ts
 *   GET /runes/v1/addresses/{address}/balances  addresses.ts
 *   GET /runes/v1/etchings/{id}                 etchings.ts: a rune
 *
 * Each block's activity is its rune_block record, and names its
 * transactions, addresses and runes: every transaction's activity becomes
 * its rune_activity list as upstream pages it, every address's balances
 * its rune_balances list, refetched whole (chaindata_mirror_balances.c),
 * every rune's etching its rune_etching record
 * (chaindata_mirror_runes_etchings.c), all committed with the block (a
 * list or etching served at another tip is checked later:
 * chaindata_mirror_runes_tip.c).  A rollback refetches the balance lists
 * and etchings the orphaned blocks wrote and commits them with the
 * rollback (lmdb-schema/feed.md).
 *
 * The Runes API serves no block without activity: such a block is
 * recorded with the hash "none" (lmdb-schema/feed.md), its parent is the
 * previous recorded block, its time that block's.  Such a block cannot
 * tell a reorg: the check walks down to a block with a hash.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"


#define CHAINDATA_RUNES_EMPTY_DEPTH 6


/* a block's activity, every page; its hash (or "none") and time */

static int
chaindata_runes_block(chaindata_mirror_t *m, uint64_t height,
    chaindata_plist_t **out)
{
    int                 rc;
    chaindata_plist_t  *l;

    l = chaindata_runes_block_list(m, height);
    if (l == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = chaindata_plist_fetch(m, &l, 1);

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_plist_free(l);
        return rc;
    }

    chaindata_runes_block_fetched(l);
    *out = l;

    return CHAINDATA_EXIT_OK;
}


/* every transaction's activity list, handed to the open block */

static int
chaindata_runes_activity(chaindata_mirror_t *m, chaindata_plist_t **lists,
    size_t n)
{
    int                 rc;
    size_t              i;
    chaindata_nodes_t   nodes;

    rc = chaindata_plist_fetch(m, lists, n);

    for (i = 0; rc == CHAINDATA_EXIT_OK && i < n; i++) {
        memset(&nodes, 0, sizeof(nodes));

        if (chaindata_plist_each(lists[i], chaindata_nodes_add, &nodes)
            != 0)
        {
            free(nodes.v);
            return CHAINDATA_EXIT_SYSTEM;
        }

        if (chaindata_list_record(m, "rune_activity", "tx_id", lists[i]->id,
                                  nodes.v, nodes.n)
            != 0)
        {
            rc = CHAINDATA_EXIT_INPUT;
        }

        free(nodes.v);
    }

    return rc;
}


static void
chaindata_runes_free(chaindata_plist_t **lists, size_t n)
{
    size_t  i;

    for (i = 0; lists && i < n; i++) {
        chaindata_plist_free(lists[i]);
    }

    free(lists);
}


/*
 * A fetched block's records, as it is followed (--catch-up replay): its
 * activity (rune_block), its transactions' activity from the transaction
 * route, its balances, its runes' etchings.
 */

static int
chaindata_runes_records(chaindata_mirror_t *m, chaindata_plist_t *blk,
    size_t *ntxs)
{
    int                  rc;
    size_t               i;
    chaindata_plist_t  **lists;
    chaindata_rnames_t   names;

    lists = NULL;
    rc = CHAINDATA_EXIT_SYSTEM;

    if (chaindata_runes_names(blk, &names) != 0) {
        return rc;
    }

    lists = calloc(names.txs.n + 1, sizeof(chaindata_plist_t *));
    if (lists == NULL) {
        goto done;
    }

    for (i = 0; i < names.txs.n; i++) {
        lists[i] = chaindata_runes_list("%s/runes/v1/transactions/%s/"
                                        "activity", m->runes_api,
                                        names.txs.items[i],
                                        chaindata_tx_entry);
        if (lists[i] == NULL) {
            goto done;
        }
    }

    rc = chaindata_runes_block_record(m, blk);

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_runes_activity(m, lists, names.txs.n);
    }

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_balances_records(m, names.addresses.items,
                                        names.addresses.n);
    }

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_etchings_records(m, names.runes.items,
                                        names.runes.n);
    }

    *ntxs = names.txs.n;

done:

    chaindata_runes_free(lists, names.txs.n);
    chaindata_runes_names_free(&names);

    return rc;
}


/* block blk (fetched) after the block of hash parent: one commit */

static int
chaindata_runes_mirror(chaindata_mirror_t *m, chaindata_plist_t *blk,
    const unsigned char *parent, size_t parent_len)
{
    int     rc;
    size_t  ntxs;

    if (chaindata_block_open(m, CHAINDATA_RUNES, blk->height, blk->hash,
                             blk->hash_len, parent, parent_len, blk->time)
        != 0)
    {
        return CHAINDATA_EXIT_SYSTEM;
    }

    chaindata_runes_above_begin(m);
    chaindata_runes_above_seen(m, blk->hash, blk->hash_len);
    chaindata_runes_at(m, blk->hash, blk->hash_len, blk->height,
                       blk->height);

    ntxs = 0;
    rc = chaindata_runes_records(m, blk, &ntxs);

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_block_abandon(m);
        return rc;
    }

    if (chaindata_block_commit(m) != 0) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    chaindata_runes_above_committed(m);

    m->blocks++;
    m->txs += ntxs;
    m->height = blk->height;
    m->block_time = blk->time;
    strcpy(m->source, CHAINDATA_RUNES);

    return CHAINDATA_EXIT_OK;
}


/*
 * One write transaction: the orphaned blocks above height undone, then
 * the balance lists and etchings they wrote as upstream serves them now,
 * so that a mirror stopped at any moment leaves no address without its
 * list, no rune without its etching.
 */

static int
chaindata_runes_rollback(chaindata_mirror_t *m, uint64_t height,
    uint64_t top)
{
    int                rc;
    size_t             len;
    unsigned char      hash[CHAINDATA_FEED_HASH_MAX];
    chaindata_names_t  addresses, runes;

    memset(&addresses, 0, sizeof(addresses));
    memset(&runes, 0, sizeof(runes));

    /* the lists are written with the block rolled back to */
    rc = chaindata_feed_block_hash(&m->in.ix, CHAINDATA_RUNES, height, hash,
                                   &len);
    chaindata_runes_at(m, hash, rc == 0 ? len : 0, 1, 0);

    if (rc < 0
        || chaindata_runes_undone(m, height, top, &addresses, &runes) != 0
        || chaindata_block_undo(m, CHAINDATA_RUNES, height) != 0)
    {
        chaindata_names_free(&addresses);
        chaindata_names_free(&runes);
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = chaindata_balances_records(m, addresses.items, addresses.n);

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_etchings_records(m, runes.items, runes.n);
    }

    chaindata_names_free(&addresses);
    chaindata_names_free(&runes);

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_block_reset(m);
        return rc;
    }

    return chaindata_block_write(m) == 0 ? CHAINDATA_EXIT_OK
                                         : CHAINDATA_EXIT_SYSTEM;
}


static int
chaindata_runes_empty(const unsigned char *hash, size_t len)
{
    return len == sizeof(CHAINDATA_RUNES_NO_HASH) - 1
           && memcmp(hash, CHAINDATA_RUNES_NO_HASH, len) == 0;
}


/*
 * *same: upstream's block at height has the recorded hash.  The status
 * route's ETag names upstream's newest block (chaindata_runes_tip()): when
 * it is the recorded hash, upstream holds that block and nothing is
 * asked, so that an idle pass asks only the status.  Otherwise the first
 * page of the block's activity says its hash (or that it has none): one
 * request, whatever the block's size.  An ETag that differs is never
 * taken as a disagreement: the status' height and ETag are two queries
 * of upstream's, and a block may come between them.
 */

static int
chaindata_runes_agrees(chaindata_mirror_t *m, uint64_t height,
    const unsigned char *hash, size_t len, int *same)
{
    int                 rc;
    chaindata_plist_t  *blk;

    if (chaindata_runes_is_hash(m->runes.tip_tag, m->runes.tip_tag_len)
        && m->runes.tip_tag_len == len
        && memcmp(m->runes.tip_tag, hash, len) == 0)
    {
        *same = 1;
        return CHAINDATA_EXIT_OK;
    }

    blk = chaindata_runes_block_list(m, height);
    if (blk == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = chaindata_plist_first(m, blk);

    if (rc == CHAINDATA_EXIT_OK) {
        chaindata_runes_block_fetched(blk);
        *same = blk->hash_len == len && memcmp(blk->hash, hash, len) == 0;
    }

    chaindata_plist_free(blk);

    return rc;
}


/*
 * Where the index leaves upstream's chain (lmdb-schema/feed.md, "Reorgs
 * under blocks without activity"): the recorded blocks from the position
 * down are compared with upstream's until one with a hash agrees, which
 * vouches for every block below it.  A "none" that agrees proves nothing
 * of the blocks below; one more than CHAINDATA_RUNES_EMPTY_DEPTH below
 * the position is not asked for.  *fork: the height to roll back to, top
 * when every block compared agrees.
 */

static int
chaindata_runes_fork(chaindata_mirror_t *m, uint64_t top, uint64_t *fork)
{
    int            rc, same, empty;
    size_t         len;
    uint64_t       height;
    unsigned char  hash[CHAINDATA_FEED_HASH_MAX];

    *fork = top;

    for (height = top; /* void */; height--) {
        rc = chaindata_feed_block_hash(&m->in.ix, CHAINDATA_RUNES, height,
                                       hash, &len);
        if (rc < 0) {
            return CHAINDATA_EXIT_SYSTEM;
        }

        if (rc == 1) {
            /* below the first recorded block */
            return CHAINDATA_EXIT_OK;
        }

        empty = chaindata_runes_empty(hash, len);

        if (!empty || top - height < CHAINDATA_RUNES_EMPTY_DEPTH) {
            rc = chaindata_runes_agrees(m, height, hash, len, &same);
            if (rc != CHAINDATA_EXIT_OK) {
                return rc;
            }

            if (!same) {
                *fork = height ? height - 1 : 0;

                if (top - *fork > m->runes.max_reorg) {
                    return chaindata_follow_too_deep(m, CHAINDATA_RUNES, top,
                                                    m->runes.max_reorg);
                }

            } else if (!empty) {
                return CHAINDATA_EXIT_OK;
            }
        }

        if (height == 0) {
            return CHAINDATA_EXIT_OK;
        }
    }
}


/* the status route: the height of upstream's last block, if any */

static int
chaindata_runes_check_status(chaindata_req_t *r)
{
    const chaindata_jv_t  *h;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    h = chaindata_jv_get(r->root, "block_height");

    if (h == NULL) {
        r->arg = UINT64_MAX;
        return 0;
    }

    if (chaindata_jv_to_u64(h, &r->arg) != 0 || r->arg == UINT64_MAX) {
        return chaindata_req_fail(r, "not the Runes API's status "
                                  "(block_height)");
    }

    return 0;
}


static int
chaindata_runes_tip(chaindata_mirror_t *m, uint64_t *tip)
{
    int               rc;
    chaindata_req_t  *r;

    *tip = UINT64_MAX;

    r = chaindata_req_new(chaindata_runes_check_status, "%s/runes/v1/",
                          m->runes_api);

    rc = chaindata_mirror_fetch(m, &r, 1);

    if (r) {
        *tip = r->arg;
        memcpy(m->runes.tip_tag, r->etag, r->etag_len);
        m->runes.tip_tag_len = r->etag_len;
        chaindata_req_free(r);
    }

    /* the Runes API says no time of its tip */
    if (rc == CHAINDATA_EXIT_OK && *tip != UINT64_MAX) {
        chaindata_follow_saw_tip(m, CHAINDATA_RUNES, *tip, 0);
    }

    return rc;
}


/*
 * Upstream's tip below the position.  The Runes API's tip is its last
 * block with rune activity, so a reorg that replaces blocks by fewer, or
 * by blocks with less activity, lowers it; a node that is behind lowers
 * it too.  The recorded blocks are compared from upstream's tip down: a
 * disagreement is a reorg, rolled back at once; agreement at the tip is
 * waited for (the blocks above may still come), logged once a tip.
 */

static int
chaindata_runes_below(chaindata_mirror_t *m, uint64_t tip, uint64_t height,
    int *caught_up)
{
    int       rc;
    uint64_t  fork;

    rc = chaindata_runes_fork(m, tip, &fork);
    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    if (fork != tip) {
        chaindata_mirror_log(m, "warn", "reorg: upstream's runes tip went "
                             "down to %llu (the index is at %llu) and "
                             "disagrees from %llu up; rolling back to %llu",
                             (unsigned long long) tip,
                             (unsigned long long) height,
                             (unsigned long long) fork + 1,
                             (unsigned long long) fork);

        return chaindata_runes_rollback(m, fork, height);
    }

    if (m->runes.behind != tip) {
        m->runes.behind = tip;
        chaindata_mirror_log(m, "warn", "upstream's runes tip %llu is below "
                             "the index's %llu and agrees with it there: "
                             "waiting (a node behind, or a reorg whose new "
                             "blocks have no rune activity yet)",
                             (unsigned long long) tip,
                             (unsigned long long) height);
    }

    *caught_up = 1;

    return CHAINDATA_EXIT_OK;
}


/* one pass: reorg check, then every block up to upstream's tip */

int
chaindata_runes_poll(chaindata_mirror_t *m, int *caught_up)
{
    int                  rc, have, wrote;
    uint64_t             tip, h, fork;
    unsigned char        posh[CHAINDATA_FEED_HASH_MAX];
    chaindata_plist_t   *blk;
    chaindata_feedpos_t  pos;

    *caught_up = 0;

    have = chaindata_feed_position(&m->in.ix, CHAINDATA_RUNES, &pos, posh);
    if (have < 0) {
        chaindata_mirror_log(m, "error", "cannot read the runes position");
        return CHAINDATA_EXIT_SYSTEM;
    }

    have = (have == 0);

    rc = chaindata_runes_tip(m, &tip);

    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    if (tip == UINT64_MAX) {
        /* upstream has indexed nothing yet: wait */
        *caught_up = 1;
        return CHAINDATA_EXIT_OK;
    }

    if (have && pos.height > tip) {
        return chaindata_runes_below(m, tip, pos.height, caught_up);
    }

    m->runes.behind = 0;

    if (have) {
        rc = chaindata_runes_fork(m, pos.height, &fork);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        if (fork != pos.height) {
            chaindata_mirror_log(m, "warn", "reorg: runes blocks above %llu "
                                 "are no longer upstream's; rolling back "
                                 "to it", (unsigned long long) fork);

            return chaindata_runes_rollback(m, fork, pos.height);
        }

        h = pos.height + 1;

    } else {
        h = m->runes.has_from ? m->runes.from_height : tip;
        pos.hash_len = 0;
        pos.time = 0;
    }

    if (h <= tip && chaindata_runes_fills(m, tip - h + 1)) {
        rc = chaindata_runes_fill(m, h, tip, posh, &pos);

        /* polled again at once: the blocks that came meanwhile */
        return rc;
    }

    wrote = h <= tip;

    for ( /* void */ ; h <= tip; h++) {
        rc = chaindata_runes_block(m, h, &blk);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        if (blk->time == 0) {
            blk->time = pos.time;
        }

        rc = chaindata_runes_mirror(m, blk, posh, pos.hash_len);

        memcpy(posh, blk->hash, blk->hash_len);
        pos.hash_len = blk->hash_len;
        pos.time = blk->time;
        chaindata_plist_free(blk);

        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        chaindata_mirror_progress(m, 0);
    }

    *caught_up = 1;

    if (m->runes.nabove == 0) {
        return CHAINDATA_EXIT_OK;
    }

    /*
     * upstream's tip now (the status this pass began with, when it wrote
     * no block): lists fetched at a tip it no longer has
     */
    if (wrote) {
        rc = chaindata_runes_tip(m, &tip);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }
    }

    return chaindata_runes_above_settle(m, posh, pos.hash_len);
}
