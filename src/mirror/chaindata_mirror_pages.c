
/*
 * chaindata-mirror: lists upstream serves a page at a time, as the Runes
 * API does ({"limit","offset","total","results"}, 60 entries a page at
 * most): the first page of every list, then every further page of all of
 * them at once.  Each page is checked: its offset, a total that stays the
 * same, as many entries as the total leaves, each entry as its list wants.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"


static int
chaindata_page_check(chaindata_req_t *r)
{
    uint64_t               total, limit, offset, want;
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

    if (r->arg != 0 && total != l->total) {
        return chaindata_req_fail(r, "the total changed between pages");
    }

    want = total > offset ? total - offset : 0;
    want = want > limit ? limit : want;

    if (res->n != want) {
        return chaindata_req_fail(r, "%zu entries on a page that has %llu",
                                  res->n, (unsigned long long) want);
    }

    for (e = res->child; e; e = e->next) {
        why = e->type == CHAINDATA_JV_OBJECT ? l->entry(l, e)
                                             : "not an object";
        if (why) {
            return chaindata_req_fail(r, "an entry: %s", why);
        }
    }

    if (r->arg == 0) {
        l->total = total;
    }

    r->list = res;

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


int
chaindata_plist_fetch(chaindata_mirror_t *m, chaindata_plist_t **lists,
    size_t n)
{
    int                rc;
    size_t             i, j, k, more;
    chaindata_plist_t *l;
    chaindata_req_t  **reqs;

    reqs = calloc(n + 1, sizeof(chaindata_req_t *));
    if (reqs == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0; i < n; i++) {
        l = lists[i];
        l->pages = calloc(1, sizeof(chaindata_req_t *));
        reqs[i] = l->pages ? chaindata_page_req(l, 0) : NULL;

        if (l->pages) {
            l->pages[0] = reqs[i];
            l->npages = 1;
        }
    }

    rc = chaindata_mirror_fetch(m, reqs, n);
    free(reqs);

    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    for (i = 0, more = 0; i < n; i++) {
        l = lists[i];
        l->npages = l->total ? (l->total + l->limit - 1) / l->limit : 1;
        more += l->npages - 1;

        reqs = realloc(l->pages, l->npages * sizeof(chaindata_req_t *));
        if (reqs == NULL) {
            l->npages = 1;
            return CHAINDATA_EXIT_SYSTEM;
        }

        l->pages = reqs;
        memset(l->pages + 1, 0, (l->npages - 1) * sizeof(chaindata_req_t *));
    }

    reqs = calloc(more + 1, sizeof(chaindata_req_t *));
    if (reqs == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0, k = 0; i < n; i++) {
        for (j = 1; j < lists[i]->npages; j++) {
            lists[i]->pages[j] = chaindata_page_req(lists[i],
                                                    j * lists[i]->limit);
            reqs[k++] = lists[i]->pages[j];
        }
    }

    rc = chaindata_mirror_fetch(m, reqs, more);
    free(reqs);

    return rc;
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
    size_t  j;

    if (l == NULL) {
        return;
    }

    for (j = 0; l->pages && j < l->npages; j++) {
        chaindata_req_free(l->pages[j]);
    }

    free(l->pages);
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
