
/*
 * chaindata-mirror: an address's rune balances, whole
 * (GET /runes/v1/addresses/{address}/balances, doc/mirror.md).
 *
 * Upstream (hirosystems/bitcoin-indexer, api/runes/src/pg/pg-store.ts
 * getAddressBalances) counts the address's history rows in "total", not
 * its balances, so a list ends at its first short page
 * (chaindata_mirror_pages.c); and it orders by balance only (ORDER BY
 * balance DESC, no tie-breaker), so two pages of one list may order
 * equal balances differently: an entry can come twice and another not at
 * all.  A list of at most 60 entries is one page, one query, and
 * consistent.  A longer one is accepted when its pages hold as many
 * distinct runes as it has entries; otherwise it is paged again with
 * other page sizes, which move the page boundaries, and the entries of
 * every attempt are pooled until they hold that many distinct runes.
 * Each entry is placed by the first position any attempt served it at:
 * entries of a higher balance are before those of a lower one in every
 * attempt, so this keeps upstream's order, and ties (in any order
 * upstream-wise) are ordered by that position, then by arrival.  An
 * attempt that finds another number of entries or another total saw the
 * list change: it starts again from the first page size.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"



/* page sizes of the attempts: the first is upstream's largest */
static const unsigned  chaindata_balance_limits[] = { 60, 59, 47, 31, 23, 17 };

#define CHAINDATA_BALANCE_TRIES                                      \
    (sizeof(chaindata_balance_limits) / sizeof(unsigned))


typedef struct {
    const chaindata_jv_t  *entry;
    const unsigned char   *id;
    size_t                 id_len;
    size_t                 rank;        /* the first position served */
    size_t                 seq;         /* arrival, for ties */
} chaindata_bal_t;


typedef struct {
    chaindata_bal_t       *bals;
    size_t                 n;
    size_t                 cap;
    size_t                 rank;
    size_t                 seq;
} chaindata_pool_t;


static const char *
chaindata_balance_entry(chaindata_plist_t *l, const chaindata_jv_t *e)
{
    const chaindata_jv_t  *rune, *id, *bal;

    rune = chaindata_jv_get(e, "rune");
    id = rune && rune->type == CHAINDATA_JV_OBJECT
         ? chaindata_jv_get(rune, "id") : NULL;
    bal = chaindata_jv_get(e, "balance");

    if (id == NULL || id->type != CHAINDATA_JV_STRING || id->len == 0
        || bal == NULL || bal->type != CHAINDATA_JV_STRING)
    {
        return "a balance without rune.id or balance";
    }

    return NULL;
}


static const chaindata_jv_t *
chaindata_balance_id(const chaindata_jv_t *e)
{
    return chaindata_jv_get(chaindata_jv_get(e, "rune"), "id");
}


/* pools an entry served at pool->rank; a rune seen before keeps its rank */

static int
chaindata_pool_add(void *ctx, const chaindata_jv_t *e)
{
    size_t                 i;
    chaindata_bal_t       *b;
    chaindata_pool_t      *pool;
    const chaindata_jv_t  *id;

    pool = ctx;
    id = chaindata_balance_id(e);

    for (i = 0; i < pool->n; i++) {
        b = &pool->bals[i];

        if (b->id_len == id->len && memcmp(b->id, id->str, id->len) == 0) {
            if (pool->rank < b->rank) {
                b->rank = pool->rank;
            }

            pool->rank++;
            return 0;
        }
    }

    if (pool->n == pool->cap) {
        pool->cap = pool->cap ? pool->cap * 2 : 64;
        b = realloc(pool->bals, pool->cap * sizeof(chaindata_bal_t));
        if (b == NULL) {
            return -1;
        }

        pool->bals = b;
    }

    b = &pool->bals[pool->n++];
    b->entry = e;
    b->id = id->str;
    b->id_len = id->len;
    b->rank = pool->rank++;
    b->seq = pool->seq++;

    return 0;
}


static int
chaindata_bal_cmp(const void *a, const void *b)
{
    const chaindata_bal_t  *x = a, *y = b;

    if (x->rank != y->rank) {
        return x->rank < y->rank ? -1 : 1;
    }

    return x->seq < y->seq ? -1 : (x->seq > y->seq);
}


static chaindata_plist_t *
chaindata_balance_list(chaindata_mirror_t *m, const char *address,
    unsigned limit)
{
    chaindata_plist_t  *l;

    l = calloc(1, sizeof(chaindata_plist_t));
    if (l == NULL) {
        return NULL;
    }

    snprintf(l->base, sizeof(l->base), "%s/runes/v1/addresses/%s/balances",
             m->runes_api, address);
    snprintf(l->id, sizeof(l->id), "%s", address);
    l->limit = limit;
    l->entry = chaindata_balance_entry;

    return l;
}


static int
chaindata_balance_write(chaindata_mirror_t *m, const char *address,
    chaindata_pool_t *pool)
{
    int                     rc;
    size_t                  i;
    const chaindata_jv_t  **entries;

    if (pool->n) {
        qsort(pool->bals, pool->n, sizeof(chaindata_bal_t),
              chaindata_bal_cmp);
    }

    entries = calloc(pool->n + 1, sizeof(chaindata_jv_t *));
    if (entries == NULL) {
        return -1;
    }

    for (i = 0; i < pool->n; i++) {
        entries[i] = pool->bals[i].entry;
    }

    rc = chaindata_list_record(m, "rune_balances", "address", address,
                               entries, pool->n);
    free(entries);

    return rc;
}


/*
 * Pages an address's balances again with other page sizes, pooling the
 * entries, until the pool holds every entry; the attempts' lists are
 * kept in tries[] (the pool points into them) for the caller to free.
 * CHAINDATA_MIRROR_AGAIN: the list changed between attempts.
 */


static int
chaindata_balance_reconcile(chaindata_mirror_t *m, chaindata_plist_t *first,
    chaindata_pool_t *pool, chaindata_plist_t **tries)
{
    int                 rc;
    size_t              t;
    chaindata_plist_t  *l;

    for (t = 1; t < CHAINDATA_BALANCE_TRIES; t++) {
        l = chaindata_balance_list(m, first->id,
                                   chaindata_balance_limits[t]);
        tries[t] = l;

        rc = l ? chaindata_plist_fetch(m, &tries[t], 1)
               : CHAINDATA_EXIT_SYSTEM;
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        if (l->total != first->total || l->entries != first->entries) {
            chaindata_mirror_log(m, "info", "the rune balances of %s "
                                 "changed while they were paged (%llu "
                                 "entries, total %llu, then %llu, %llu)",
                                 first->id,
                                 (unsigned long long) first->entries,
                                 (unsigned long long) first->total,
                                 (unsigned long long) l->entries,
                                 (unsigned long long) l->total);
            return CHAINDATA_MIRROR_AGAIN;
        }

        pool->rank = 0;

        if (chaindata_plist_each(l, chaindata_pool_add, pool) != 0) {
            return CHAINDATA_EXIT_SYSTEM;
        }

        if (pool->n == first->entries) {
            chaindata_mirror_log(m, "info", "the rune balances of %s: "
                                 "pages of equal balances overlapped; "
                                 "complete after %zu page sizes", first->id,
                                 t + 1);
            return CHAINDATA_EXIT_OK;
        }
    }

    chaindata_mirror_log(m, "error", "the rune balances of %s: %zu of %llu "
                         "runes after paging with %zu page sizes",
                         first->id, pool->n,
                         (unsigned long long) first->entries,
                         (size_t) CHAINDATA_BALANCE_TRIES);

    return CHAINDATA_EXIT_INPUT;
}


static int
chaindata_balance_pool(chaindata_mirror_t *m, chaindata_plist_t *first,
    chaindata_plist_t **tries)
{
    int               rc;
    size_t            t;
    chaindata_pool_t  pool;

    memset(&pool, 0, sizeof(pool));

    rc = CHAINDATA_EXIT_OK;

    if (chaindata_plist_each(first, chaindata_pool_add, &pool) != 0) {
        rc = CHAINDATA_EXIT_SYSTEM;

    } else if (pool.n != first->entries) {
        rc = chaindata_balance_reconcile(m, first, &pool, tries);
    }

    if (rc == CHAINDATA_EXIT_OK
        && chaindata_balance_write(m, first->id, &pool) != 0)
    {
        rc = CHAINDATA_EXIT_INPUT;
    }

    /* at the height written, or kept by the tip it was served at */
    if (rc == CHAINDATA_EXIT_OK
        && chaindata_runes_fetched_at(m, first->id, 0,
                                      first->npages ? first->pages[0] : NULL)
           != 0)
    {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    for (t = 0; t < CHAINDATA_BALANCE_TRIES; t++) {
        chaindata_plist_free(tries[t]);
        tries[t] = NULL;
    }

    free(pool.bals);

    return rc;
}


/* one address's list, paged again from the start while it changes */

static int
chaindata_balance_one(chaindata_mirror_t *m, chaindata_plist_t *first)
{
    int                 rc;
    unsigned            again;
    chaindata_plist_t  *tries[CHAINDATA_BALANCE_TRIES];

    memset(tries, 0, sizeof(tries));

    for (again = 0; /* void */; again++) {
        rc = chaindata_balance_pool(m, first, tries);

        if (rc != CHAINDATA_MIRROR_AGAIN) {
            return rc;
        }

        if (again == CHAINDATA_PAGES_RESTARTS) {
            chaindata_mirror_log(m, "error", "the rune balances of %s "
                                 "changed while they were paged, %u times: "
                                 "given up for this pass", first->id,
                                 CHAINDATA_PAGES_RESTARTS);
            return CHAINDATA_EXIT_INPUT;
        }

        rc = chaindata_plist_fetch(m, &first, 1);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }
    }
}


/* fetches and hands every address's list to the open block */

int
chaindata_balances_records(chaindata_mirror_t *m, char **addresses,
    size_t n)
{
    int                  rc;
    size_t               i;
    chaindata_plist_t  **lists;

    lists = calloc(n + 1, sizeof(chaindata_plist_t *));
    if (lists == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = CHAINDATA_EXIT_OK;

    for (i = 0; i < n; i++) {
        lists[i] = chaindata_balance_list(m, addresses[i],
                                          CHAINDATA_RUNES_PAGE);
        if (lists[i] == NULL) {
            rc = CHAINDATA_EXIT_SYSTEM;
        }
    }

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_plist_fetch(m, lists, n);
    }

    for (i = 0; rc == CHAINDATA_EXIT_OK && i < n; i++) {
        rc = chaindata_balance_one(m, lists[i]);
    }

    for (i = 0; i < n; i++) {
        chaindata_plist_free(lists[i]);
    }

    free(lists);

    return rc;
}
