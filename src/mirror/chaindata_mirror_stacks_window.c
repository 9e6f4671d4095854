
/*
 * chaindata-mirror: the Stacks blocks in flight (chaindata_swin_t in
 * chaindata_mirror_stacks.h): up to --blocks-ahead blocks fetched at a
 * time while the answers they hold stay under CHAINDATA_AHEAD_BYTES, the
 * lowest block's requests first, a failed block ending the window above
 * it.
 */


#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"
#include "chaindata_mirror_stacks.h"


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

void
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

int
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

int
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

int
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
