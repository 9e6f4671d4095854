
/*
 * chaindata-mirror: one GET (chaindata_req_t) made and freed, and what
 * every check of an answer starts with: the body parsed as a JSON
 * object, a page of a list of transactions.
 */


#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "chaindata_mirror.h"


chaindata_req_t *
chaindata_req_new(int (*check)(chaindata_req_t *r), const char *fmt, ...)
{
    int               n;
    va_list           args;
    chaindata_req_t  *r;

    r = calloc(1, sizeof(chaindata_req_t));
    if (r == NULL) {
        return NULL;
    }

    va_start(args, fmt);
    n = vsnprintf(r->url, sizeof(r->url), fmt, args);
    va_end(args);

    r->arena = chaindata_arena_create();

    if (n < 0 || (size_t) n >= sizeof(r->url) || r->arena == NULL) {
        chaindata_req_free(r);
        return NULL;
    }

    r->check = check;

    return r;
}


void
chaindata_req_free(chaindata_req_t *r)
{
    if (r == NULL) {
        return;
    }

    if (r->easy) {
        curl_easy_cleanup(r->easy);
    }

    chaindata_arena_destroy(r->arena);
    free(r->body);
    free(r);
}


/* parses the body into r->root: 0, or -1 with r->why */

int
chaindata_req_json(chaindata_req_t *r)
{
    char  err[CHAINDATA_ERR_LEN];

    chaindata_arena_reset(r->arena);

    r->root = chaindata_jdoc_parse(r->arena, r->body, r->len, err,
                                   sizeof(err));
    if (r->root == NULL) {
        return chaindata_req_fail(r, "the body is not JSON (%.200s%s)", err,
                                  r->len ? "; truncated?" : "; empty");
    }

    if (r->root->type != CHAINDATA_JV_OBJECT) {
        return chaindata_req_fail(r, "the body is not a JSON object");
    }

    return 0;
}


/*
 * A page of a list of transactions (a block's, the mempool's): its
 * "results" and its "total", a claim the caller only compares or takes
 * as a hint, bounded (doc/mirror.md "Counts are claims"): NULL when the
 * page has not that shape, with r->why.
 */

const chaindata_jv_t *
chaindata_req_txs_page(chaindata_req_t *r, const char *list, uint64_t *total)
{
    const chaindata_jv_t  *res;

    if (chaindata_req_json(r) != 0) {
        return NULL;
    }

    res = chaindata_jv_get(r->root, "results");

    if (res == NULL || res->type != CHAINDATA_JV_ARRAY
        || chaindata_jv_u64(r->root, "total", total) != 0)
    {
        (void) chaindata_req_fail(r, "not a page of %s transactions", list);
        return NULL;
    }

    return res;
}
