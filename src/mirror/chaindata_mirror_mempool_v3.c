
/*
 * chaindata-mirror: what the v3 document of a pending transaction needs
 * and its v1 one lacks, its receipt_block_height, from upstream's v3
 * mempool listing (hirosystems/stacks-blockchain-api,
 * src/api/routes/v3/mempool.ts):
 *
 *   GET /extended/v3/mempool/transactions?limit=50&cursor=C
 *       {limit,total,cursor:{next,previous,current},results}, newest
 *       first, each result with its tx_id and receipt_block_height
 *
 * The mempool follower (chaindata_mirror_mempool.c) asks it for a batch
 * of transactions at a time, so that it costs one request for
 * --mempool-v3-batch of them at most.
 */


#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"


/* the most pages of the v3 listing one lookup reads */
#define CHAINDATA_MEMPOOL_V3_PAGES  20


/* a page of the v3 listing: results, each an object; its shape only */

static int
chaindata_mempool_v3_check(chaindata_req_t *r)
{
    const chaindata_jv_t  *res;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    res = chaindata_jv_get(r->root, "results");

    if (res == NULL || res->type != CHAINDATA_JV_ARRAY
        || res->n > CHAINDATA_MEMPOOL_PAGE)
    {
        return chaindata_req_fail(r, "not a page of the v3 mempool "
                                  "(results, %d at most)",
                                  CHAINDATA_MEMPOOL_PAGE);
    }

    return 0;
}


/*
 * The page's heights of the new transactions it lists (found ones
 * counted out of *left), and its cursor.next into next (digits, ":",
 * "0x" and 64 hex digits; empty when there is none or it is not one).
 */

static void
chaindata_mempool_v3_heights(const chaindata_jv_t *root,
    chaindata_mp_new_t *news, size_t n, size_t *left, char *next)
{
    size_t                 i, k;
    uint64_t               height;
    unsigned char          id[CHAINDATA_TXID_LEN];
    const chaindata_jv_t  *tx, *c;

    for (tx = chaindata_jv_get(root, "results")->child; tx; tx = tx->next) {
        if (chaindata_doc_txid(tx, id) != 0
            || chaindata_jv_u64(tx, "receipt_block_height", &height) != 0)
        {
            continue;
        }

        for (k = 0; k < n; k++) {
            if (!news[k].found
                && memcmp(news[k].id, id, CHAINDATA_TXID_LEN) == 0)
            {
                news[k].height = height;
                news[k].found = 1;
                (*left)--;
            }
        }
    }

    next[0] = '\0';
    c = chaindata_jv_get(chaindata_jv_get(root, "cursor"), "next");

    if (c == NULL || c->type != CHAINDATA_JV_STRING || c->len > 100) {
        return;
    }

    for (i = 0; i < c->len; i++) {
        if (!((c->str[i] >= '0' && c->str[i] <= '9')
              || (c->str[i] >= 'a' && c->str[i] <= 'f')
              || (c->str[i] >= 'A' && c->str[i] <= 'F')
              || c->str[i] == ':' || c->str[i] == 'x'))
        {
            return;
        }
    }

    memcpy(next, c->str, c->len);
    next[c->len] = '\0';
}


/*
 * The transactions' receipt_block_height, from the v3 listing, newest
 * first, until each is found, the listing ends, or max pages are read
 * (at most CHAINDATA_MEMPOOL_V3_PAGES).  An upstream without it (before
 * 9.0), or one failing, leaves them without (their v3 documents then are
 * upstream's to serve).
 */

int
chaindata_mempool_v3_find(chaindata_mirror_t *m, chaindata_mp_new_t *news,
    size_t n, size_t max)
{
    int               rc;
    char              next[101];
    size_t            left, page;
    chaindata_req_t  *r;

    left = n;
    next[0] = '\0';
    max = max > CHAINDATA_MEMPOOL_V3_PAGES ? CHAINDATA_MEMPOOL_V3_PAGES : max;

    for (page = 0; left && page < max && (page == 0 || next[0]); page++) {
        r = chaindata_req_new(chaindata_mempool_v3_check,
                              "%s/extended/v3/mempool/transactions?limit=%d"
                              "%s%s", m->stacks_api, CHAINDATA_MEMPOOL_PAGE,
                              next[0] ? "&cursor=" : "", next);
        if (r == NULL) {
            return CHAINDATA_EXIT_SYSTEM;
        }

        r->gone_ok = 1;
        r->may_fail = 1;

        rc = chaindata_mirror_fetch(m, &r, 1);

        if (rc != CHAINDATA_EXIT_OK || r->root == NULL || r->why[0]) {
            chaindata_req_free(r);
            return rc;
        }

        chaindata_mempool_v3_heights(r->root, news, n, &left, next);
        chaindata_req_free(r);
    }

    return CHAINDATA_EXIT_OK;
}
