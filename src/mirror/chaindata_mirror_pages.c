
/*
 * chaindata-mirror: lists upstream serves a page at a time, as the Runes
 * API does ({"limit","offset","total","results"}, 60 entries a page at
 * most).  What "total" claims is read from upstream's SQL
 * (hirosystems/bitcoin-indexer, api/runes/src/pg/pg-store.ts), never
 * taken as a size:
 *
 *   - activity (getActivity): COUNT(*) OVER() of the entries, so a page
 *     holds min(limit, total - offset) of them ("counted" lists);
 *   - balances (getAddressBalances): COUNT(*) OVER() taken before
 *     DISTINCT ON, that is the address's history rows, at least as many
 *     as its entries: the list ends at its first short page;
 *   - a page with no entries says "total": 0 (results[0]?.total ?? 0).
 *
 * Pages are asked for in rounds of at most CHAINDATA_PAGES_ROUND
 * requests, so that what is in flight depends on the round, never on a
 * claimed total; the lists a round has no room for are asked for in the
 * next ones, however many they are (a block of 1,000 transactions is
 * 1,000 lists).  A list whose total changes between its pages (upstream
 * committed a block touching it) is paged again from its first page, at
 * most CHAINDATA_PAGES_RESTARTS times.
 */


#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"


#define CHAINDATA_PAGES_ROUND     64


/* a page: its shape, its offset, its entries; 0, or -1 to ask again */

static int
chaindata_page_check(chaindata_req_t *r)
{
    uint64_t               total, limit, offset;
    const char            *why;
    chaindata_jv_t        *res;
    chaindata_plist_t     *l;
    const chaindata_jv_t  *e;

    l = r->ctx;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    res = chaindata_jv_get(r->root, "results");

    if (res == NULL || res->type != CHAINDATA_JV_ARRAY
        || chaindata_jv_u64(r->root, "total", &total) != 0
        || chaindata_jv_u64(r->root, "limit", &limit) != 0
        || chaindata_jv_u64(r->root, "offset", &offset) != 0)
    {
        return chaindata_req_fail(r, "not a page (limit, offset, total, "
                                  "results)");
    }

    if (limit != l->limit || offset != r->arg) {
        return chaindata_req_fail(r, "a page of another limit or offset");
    }

    if (res->n > limit) {
        return chaindata_req_fail(r, "%zu entries on a page of %llu",
                                  res->n, (unsigned long long) limit);
    }

    if (res->n && (total < offset || total - offset < res->n)) {
        return chaindata_req_fail(r, "%zu entries at offset %llu of a "
                                  "total of %llu", res->n,
                                  (unsigned long long) offset,
                                  (unsigned long long) total);
    }

    if (l->counted && res->n
        && res->n != (total - offset < limit ? total - offset : limit))
    {
        return chaindata_req_fail(r, "%zu entries on a page that has %llu",
                                  res->n, (unsigned long long)
                                  (total - offset < limit ? total - offset
                                                          : limit));
    }

    for (e = res->child; e; e = e->next) {
        why = e->type == CHAINDATA_JV_OBJECT ? l->entry(l, e)
                                             : "not an object";
        if (why) {
            return chaindata_req_fail(r, "an entry: %s", why);
        }
    }

    r->list = res;

    return 0;
}


static size_t
chaindata_page_entries(const chaindata_req_t *r)
{
    return r->list->n;
}


static uint64_t
chaindata_page_total(const chaindata_req_t *r)
{
    uint64_t  total;

    return chaindata_jv_u64(r->root, "total", &total) == 0 ? total : 0;
}


static void
chaindata_plist_clear(chaindata_plist_t *l)
{
    size_t  j;

    for (j = 0; l->pages && j < l->npages; j++) {
        chaindata_req_free(l->pages[j]);
    }

    free(l->pages);

    memset(&l->total, 0, sizeof(chaindata_plist_t)
                         - offsetof(chaindata_plist_t, total));
}


/*
 * The pages a list wants next, after those it has: all the rest of a
 * counted list; of the others as many as run at once (--parallel), up to
 * the last page their total allows (chaindata_plist_settle() caps both).
 */

static size_t
chaindata_plist_wanted(chaindata_mirror_t *m, chaindata_plist_t *l)
{
    uint64_t  last;

    if (l->npages == 0) {
        return 1;
    }

    last = l->total / l->limit;         /* the last page that can hold any */

    if (l->counted && l->total % l->limit == 0) {
        last = last ? last - 1 : 0;
    }

    if (last < l->npages) {
        return 0;
    }

    last -= l->npages - 1;              /* pages left */

    if (!l->counted && last > m->http.parallel) {
        last = m->http.parallel;
    }

    return last > CHAINDATA_PAGES_ROUND ? CHAINDATA_PAGES_ROUND
                                        : (size_t) last;
}


static int
chaindata_plist_grow(chaindata_plist_t *l, size_t more)
{
    chaindata_req_t  **pages;

    pages = realloc(l->pages, (l->npages + more) * sizeof(chaindata_req_t *));
    if (pages == NULL) {
        return -1;
    }

    memset(pages + l->npages, 0, more * sizeof(chaindata_req_t *));
    l->pages = pages;

    return 0;
}


static chaindata_req_t *
chaindata_page_req(chaindata_plist_t *l, uint64_t offset)
{
    chaindata_req_t  *r;

    r = chaindata_req_new(chaindata_page_check, "%s?offset=%llu&limit=%u",
                          l->base, (unsigned long long) offset, l->limit);
    if (r) {
        r->ctx = l;
        r->arg = offset;
    }

    return r;
}


/* this round's requests, the lists' next pages, into reqs: how many */

static int
chaindata_plist_round(chaindata_mirror_t *m, chaindata_plist_t **lists,
    size_t n, chaindata_req_t **reqs, size_t *nreqs)
{
    size_t              i, j, want;
    chaindata_plist_t  *l;

    *nreqs = 0;

    for (i = 0; i < n && *nreqs < CHAINDATA_PAGES_ROUND; i++) {
        l = lists[i];

        if (l->complete) {
            continue;
        }

        want = chaindata_plist_wanted(m, l);

        if (want > CHAINDATA_PAGES_ROUND - *nreqs) {
            want = CHAINDATA_PAGES_ROUND - *nreqs;
        }

        if (chaindata_plist_grow(l, want) != 0) {
            return -1;
        }

        for (j = 0; j < want; j++) {
            l->pages[l->npages] = chaindata_page_req(l, (uint64_t)
                                                     l->npages * l->limit);
            if (l->pages[l->npages] == NULL) {
                return -1;
            }

            reqs[(*nreqs)++] = l->pages[l->npages++];
        }
    }

    return 0;
}


/*
 * After a round: whether the list is complete, or changed under its
 * pages (then it starts again from its first page).  Pages past a short
 * one of a list that is not counted hold nothing and are dropped.  A
 * list that got no request this round (the round was full before its
 * turn) knows nothing yet: it waits for the next round, never complete.
 */

static int
chaindata_plist_settle(chaindata_mirror_t *m, chaindata_plist_t *l)
{
    size_t    j, got;
    uint64_t  total;

    if (l->npages == 0) {
        return CHAINDATA_EXIT_OK;
    }

    for (j = 0; j < l->npages; j++) {
        got = chaindata_page_entries(l->pages[j]);
        total = chaindata_page_total(l->pages[j]);

        if (j == 0) {
            l->total = got ? total : 0;

        } else if (got && total != l->total) {
            break;                      /* the list changed */
        }

        if (got == l->limit) {
            continue;
        }

        if (l->counted ? (uint64_t) j * l->limit + got != l->total
                       : j + 1 < l->npages
                         && chaindata_page_entries(l->pages[j + 1]))
        {
            break;                      /* it ended, and not here */
        }

        while (l->npages > j + 1) {
            chaindata_req_free(l->pages[--l->npages]);
        }

        l->entries = (uint64_t) j * l->limit + got;
        l->complete = 1;

        return CHAINDATA_EXIT_OK;
    }

    if (j == l->npages) {
        if ((l->counted ? l->total : (uint64_t) j * l->limit)
            > CHAINDATA_LIST_MAX)
        {
            chaindata_mirror_log(m, "error", "%s: %llu entries claimed or "
                                 "served, more than the %llu a list may "
                                 "have: refused", l->base,
                                 (unsigned long long) (l->counted
                                     ? l->total : (uint64_t) j * l->limit),
                                 (unsigned long long) CHAINDATA_LIST_MAX);
            return CHAINDATA_EXIT_INPUT;
        }

        if (l->counted && (uint64_t) j * l->limit == l->total) {
            l->entries = l->total;
            l->complete = 1;
            return CHAINDATA_EXIT_OK;
        }

        if (chaindata_plist_wanted(m, l)) {
            return CHAINDATA_EXIT_OK;
        }
    }

    if (++l->restarts > CHAINDATA_PAGES_RESTARTS) {
        chaindata_mirror_log(m, "error", "%s changed while it was paged, "
                             "%u times: given up for this pass", l->base,
                             CHAINDATA_PAGES_RESTARTS);
        return CHAINDATA_EXIT_INPUT;
    }

    chaindata_mirror_log(m, "info", "%s changed while it was paged (total "
                         "%llu); paging it again from its first page",
                         l->base, (unsigned long long) l->total);

    chaindata_plist_clear(l);

    return CHAINDATA_EXIT_OK;
}


int
chaindata_plist_fetch(chaindata_mirror_t *m, chaindata_plist_t **lists,
    size_t n)
{
    int               rc;
    size_t            i, nreqs;
    chaindata_req_t  *reqs[CHAINDATA_PAGES_ROUND];

    for (i = 0; i < n; i++) {
        chaindata_plist_clear(lists[i]);
        lists[i]->restarts = 0;
    }

    for ( ;; ) {
        if (chaindata_plist_round(m, lists, n, reqs, &nreqs) != 0) {
            chaindata_mirror_log(m, "error", "out of memory");
            return CHAINDATA_EXIT_SYSTEM;
        }

        if (nreqs == 0) {
            return CHAINDATA_EXIT_OK;
        }

        rc = chaindata_mirror_fetch(m, reqs, nreqs);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }

        for (i = 0; i < n; i++) {
            if (!lists[i]->complete) {
                rc = chaindata_plist_settle(m, lists[i]);
                if (rc != CHAINDATA_EXIT_OK) {
                    return rc;
                }
            }
        }
    }
}


/*
 * A list's first page only: what it begins with (a block's hash, or
 * that it has no entries), one request whatever the list's size
 */

int
chaindata_plist_first(chaindata_mirror_t *m, chaindata_plist_t *l)
{
    chaindata_plist_clear(l);

    if (chaindata_plist_grow(l, 1) != 0) {
        chaindata_mirror_log(m, "error", "out of memory");
        return CHAINDATA_EXIT_SYSTEM;
    }

    l->pages[0] = chaindata_page_req(l, 0);
    l->npages = 1;

    return chaindata_mirror_fetch(m, l->pages, 1);
}


/* the entries of a fetched list, in the order served: calls each(e) */

int
chaindata_plist_each(chaindata_plist_t *l,
    int (*each)(void *ctx, const chaindata_jv_t *e), void *ctx)
{
    size_t                 j;
    const chaindata_jv_t  *e;

    for (j = 0; j < l->npages; j++) {
        for (e = l->pages[j]->list->child; e; e = e->next) {
            if (each(ctx, e) != 0) {
                return -1;
            }
        }
    }

    return 0;
}


void
chaindata_plist_free(chaindata_plist_t *l)
{
    if (l == NULL) {
        return;
    }

    chaindata_plist_clear(l);
    free(l);
}


/* one ingest record of a list, emitted into the open block */

int
chaindata_list_record(chaindata_mirror_t *m, const char *kind,
    const char *id_name, const char *id, const chaindata_jv_t **entries,
    size_t n)
{
    size_t            i, hint;
    chaindata_line_t  l;

    for (hint = strlen(id) + n, i = 0; i < n; i++) {
        hint += chaindata_jv_size(entries[i]);
    }

    chaindata_line_open(&l, kind, hint);
    chaindata_line_str(&l, id_name, id, strlen(id));
    chaindata_line_list(&l, "results", entries, n);
    (void) chaindata_line_close(&l);

    return chaindata_mirror_emit(m, &l, NULL);
}
