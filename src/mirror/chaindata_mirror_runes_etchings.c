
/*
 * chaindata-mirror: a Runes block's own records (lmdb-schema/runes.md):
 * its activity as one rune_block record, and the etching of each rune it
 * names (GET /runes/v1/etchings/{id}, doc/mirror.md).
 *
 * The rune_block record is the block's activity pages, every entry in the
 * order upstream served them (newest first): nothing more is asked for
 * it.  An etching is upstream's document as it serves it at its tip (the
 * supply counts every mint and burn up to there, api/runes/src/pg/
 * pg-store.ts getEtching()), like an address's balances: fetched for a
 * block being written, its answer's ETag says at which tip
 * (chaindata_mirror_runes_tip.c keeps it when that is another block); a
 * 404 ({"error":"Not found"}) is a rune upstream does not hold (a reorg
 * took its etching away): "etching":null, which deletes it.  A block's
 * undo names the etchings it wrote; a rollback fetches them again
 * (chaindata_mirror_runes.c), as it does the balance lists.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"


/* etchings asked for at once: their answers are held until written */
#define CHAINDATA_ETCHINGS_GROUP  256


/*
 * A fetched block's rune_block record: every entry, in the order served.
 * A block without activity writes none (the index holds no such block).
 */

int
chaindata_runes_block_record(chaindata_mirror_t *m, chaindata_plist_t *blk)
{
    int                rc;
    size_t             i, hint;
    chaindata_line_t   l;
    chaindata_nodes_t  all;

    if (blk->entries == 0) {
        return CHAINDATA_EXIT_OK;
    }

    memset(&all, 0, sizeof(all));

    if (chaindata_plist_each(blk, chaindata_nodes_add, &all) != 0) {
        free(all.v);
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (hint = blk->hash_len + 64, i = 0; i < all.n; i++) {
        hint += chaindata_jv_size(all.v[i]) + 1;
    }

    chaindata_line_open(&l, "rune_block", hint);
    chaindata_line_u64(&l, "block_height", blk->height);
    chaindata_line_str(&l, "block_hash", blk->hash, blk->hash_len);
    chaindata_line_list(&l, "results", all.v, all.n);
    (void) chaindata_line_close(&l);

    free(all.v);

    rc = chaindata_mirror_emit(m, &l, NULL);

    return rc == 0 ? CHAINDATA_EXIT_OK : CHAINDATA_EXIT_INPUT;
}


/* {"kind":"rune_etching","id":ID,"etching":doc}, doc NULL: null */

int
chaindata_etching_record(chaindata_mirror_t *m, const char *id,
    const chaindata_jv_t *doc)
{
    chaindata_line_t  l;

    static const chaindata_jv_t  null;  /* CHAINDATA_JV_NULL */

    if (doc == NULL) {
        doc = &null;
    }

    chaindata_line_open(&l, "rune_etching",
                        strlen(id) + chaindata_jv_size(doc) + 32);
    chaindata_line_str(&l, "id", id, strlen(id));
    chaindata_line_json(&l, "etching", doc);
    (void) chaindata_line_close(&l);

    return chaindata_mirror_emit(m, &l, NULL) == 0 ? CHAINDATA_EXIT_OK
                                                   : CHAINDATA_EXIT_INPUT;
}


/* an etching's answer: the document of the rune asked for (its ctx) */

static int
chaindata_etching_check(chaindata_req_t *r)
{
    const char            *id;
    const chaindata_jv_t  *v;

    id = r->ctx;

    if (chaindata_req_json(r) != 0) {
        return -1;
    }

    v = r->root->type == CHAINDATA_JV_OBJECT
        ? chaindata_jv_get(r->root, "id") : NULL;

    if (v == NULL || v->type != CHAINDATA_JV_STRING
        || v->len != strlen(id) || memcmp(v->str, id, v->len) != 0)
    {
        return chaindata_req_fail(r, "not the etching of %s (id)", id);
    }

    return 0;
}


static void
chaindata_etchings_free(chaindata_req_t **reqs, size_t n)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        chaindata_req_free(reqs[i]);
        reqs[i] = NULL;
    }
}


/* the etchings of ids (each a rune id, checked), n at most a group */

static int
chaindata_etchings_group(chaindata_mirror_t *m, char **ids, size_t n,
    chaindata_req_t **reqs)
{
    int     rc;
    size_t  i;

    for (i = 0; i < n; i++) {
        reqs[i] = chaindata_req_new(chaindata_etching_check,
                                    "%s/runes/v1/etchings/%s", m->runes_api,
                                    ids[i]);
        if (reqs[i]) {
            reqs[i]->ctx = ids[i];
            reqs[i]->gone_ok = 1;
        }
    }

    rc = chaindata_mirror_fetch(m, reqs, n);

    for (i = 0; rc == CHAINDATA_EXIT_OK && i < n; i++) {
        rc = chaindata_etching_record(m, ids[i], reqs[i]->root);

        /* at the height written, or kept by the tip it was served at */
        if (rc == CHAINDATA_EXIT_OK
            && chaindata_runes_fetched_at(m, ids[i], 1, reqs[i]) != 0)
        {
            rc = CHAINDATA_EXIT_SYSTEM;
        }
    }

    chaindata_etchings_free(reqs, n);

    return rc;
}


/* fetches and hands every rune's etching to the open block */

int
chaindata_etchings_records(chaindata_mirror_t *m, char **ids, size_t n)
{
    int               rc;
    size_t            i, k;
    chaindata_req_t  *reqs[CHAINDATA_ETCHINGS_GROUP];

    memset(reqs, 0, sizeof(reqs));

    for (i = 0; i < n; i += k) {
        k = n - i < CHAINDATA_ETCHINGS_GROUP ? n - i
                                             : CHAINDATA_ETCHINGS_GROUP;

        rc = chaindata_etchings_group(m, ids + i, k, reqs);
        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }
    }

    return CHAINDATA_EXIT_OK;
}
