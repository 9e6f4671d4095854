
/*
 * chaindata-mirror: the Stacks follower's poll: upstream's tip, the
 * blocks above the index's position fetched in a window
 * (chaindata_mirror_stacks_window.c) and committed in height order, a
 * reorg rolled back.  Its routes and their checks:
 * chaindata_mirror_stacks_routes.c; a block's stages:
 * chaindata_mirror_stacks_block.c.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"
#include "chaindata_mirror_stacks.h"


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
        chaindata_follow_saw_tip(m, CHAINDATA_STACKS, *tip, t);
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
            return chaindata_follow_too_deep(m, CHAINDATA_STACKS, top,
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
