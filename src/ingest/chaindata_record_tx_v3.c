
/*
 * chaindata: the writes of a transaction's v3 document and v3 events
 * (lmdb-schema/README.md, "tx_v3"), built from the v1 document of its
 * "tx" record (chaindata_record_tx_v3_shape.c) and written compactly like
 * every stored document, so that the module only copies pieces: nothing
 * is decoded or re-encoded per request.
 */


#include <stdlib.h>
#include <string.h>

#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_digest.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_record_tx_v3.h"
#include "chaindata_record_tx_v3_shape.h"


/*
 * Writes doc compactly at out, noting where each heavy member begins,
 * its separating comma before it, and ends.
 */

static unsigned char *
chaindata_v3_write(unsigned char *out, unsigned char *p,
    const chaindata_jv_t *v, chaindata_jv_t *const *heavy,
    chaindata_tx3h_t *h)
{
    unsigned               k;
    unsigned char         *start;
    const chaindata_jv_t  *c;

    if (v->type != CHAINDATA_JV_OBJECT) {
        return chaindata_jv_write(p, v);
    }

    *p++ = '{';

    for (c = v->child; c; c = c->next) {
        start = p;

        if (c != v->child) {
            *p++ = ',';
        }

        p = chaindata_jv_write_key(p, c);
        p = chaindata_v3_write(out, p, c, heavy, h);

        for (k = 0; k < CHAINDATA_TX3H_PARTS; k++) {
            if (heavy[k] == c) {
                h->part_at[k] = (uint32_t) (start - out);
                h->part_len[k] = (uint32_t) (p - start);
            }
        }
    }

    *p++ = '}';

    return p;
}


/* the document's pieces at value, cut where each part begins and ends */

static unsigned char *
chaindata_v3_pieces(chaindata_record_t *rec, unsigned char *value,
    const unsigned char *doc, size_t doc_len, const chaindata_tx3h_t *h)
{
    size_t    cut[2 * CHAINDATA_TX3H_PARTS];
    unsigned  i, ncut;

    ncut = 0;

    for (i = 0; i < CHAINDATA_TX3H_PARTS; i++) {
        if (h->part_len[i]) {
            cut[ncut++] = h->part_at[i];
            cut[ncut++] = h->part_at[i] + h->part_len[i];
        }
    }

    return chaindata_record_pieces(rec, value, doc, doc_len, cut, ncut);
}


/* 1 when the events' indexes are 0 … n - 1: a cursor is a position */

static int
chaindata_v3_dense(const chaindata_item_t *events, size_t n)
{
    size_t    i;
    uint64_t  index;

    for (i = 0; i < n; i++) {
        if (chaindata_jv_to_u64(chaindata_jv_get(events[i].jv,
                                                 "event_index"),
                                &index)
            != 0
            || index != i)
        {
            return 0;
        }
    }

    return 1;
}


/* what v3 does not serve: a 404 (and a 400 for its events) */

static int
chaindata_v3_put_gone(chaindata_record_t *rec, const unsigned char *txid,
    chaindata_writeset_t *ws)
{
    unsigned char     *value;
    chaindata_tx3h_t   h;

    memset(&h, 0, sizeof(h));
    h.flags = CHAINDATA_TX3H_GONE | CHAINDATA_TX3H_MEMPOOL;

    value = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT,
                                   CHAINDATA_DBI_TX_V3, txid,
                                   CHAINDATA_TXID_LEN, CHAINDATA_TX3H_SIZE);
    if (value == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    memcpy(h.digest, CHAINDATA_EMPTY_DIGEST, CHAINDATA_DIGEST_LEN);
    chaindata_tx3h_encode(value, &h);

    return 0;
}


/*
 * The v3 events of the n v1 events, when v3 keeps them (a confirmed
 * transaction whose events are dense, each with a v3 shape): flags and
 * count in h; *n set to 0 when it does not.  NULL with b->failed on no
 * memory.
 */

static chaindata_item_t *
chaindata_v3_events(chaindata_v3b_t *b, const chaindata_v3_extra_t *x,
    const chaindata_item_t *events, size_t *n, chaindata_tx3h_t *h)
{
    size_t             i;
    chaindata_item_t  *items;

    items = NULL;

    if (!x->mempool && chaindata_v3_dense(events, *n)) {
        h->flags |= CHAINDATA_TX3H_EVENTS;
        h->event_count = (uint32_t) *n;

        items = chaindata_arena_alloc(b->arena,
                                      (*n + 1) * sizeof(chaindata_item_t));
        if (items == NULL) {
            b->failed = 1;
        }

        for (i = 0; items && i < *n; i++) {
            items[i].jv = chaindata_v3_event(b, events[i].jv);

            if (items[i].jv == NULL) {
                /* an event v3 has no shape for: its events are not kept */
                h->flags &= ~CHAINDATA_TX3H_EVENTS;
                h->event_count = 0;
                break;
            }

            items[i].size = chaindata_jv_size(items[i].jv);
        }
    }

    if (x->mempool) {
        h->flags |= CHAINDATA_TX3H_MEMPOOL;
    }

    if (!(h->flags & CHAINDATA_TX3H_EVENTS)) {
        *n = 0;
    }

    return items;
}


/*
 * The document's PUT, written compactly in scratch (its digest begun in
 * digest), as pieces cut at its heavy members: 0, or -1 with the reason
 * in rec.
 */

static int
chaindata_v3_put_doc(chaindata_record_t *rec, const unsigned char *txid,
    const chaindata_jv_t *doc, size_t doc_len, chaindata_jv_t **heavy,
    unsigned char *scratch, chaindata_digest_t *digest,
    chaindata_tx3h_t *h, chaindata_writeset_t *ws)
{
    unsigned char  *value, *end;

    end = chaindata_v3_write(scratch, scratch, doc, heavy, h);

    if ((size_t) (end - scratch) != doc_len) {
        return chaindata_record_fail(rec, "internal error: v3 size");
    }

    chaindata_digest_add(digest, scratch, doc_len);

    value = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT,
                                   CHAINDATA_DBI_TX_V3, txid,
                                   CHAINDATA_TXID_LEN,
                                   CHAINDATA_TX3H_SIZE
                                   + chaindata_piece_bound(doc_len)
                                   + CHAINDATA_TX3H_PIECES_MAX
                                     * chaindata_piece_bound(0));
    if (value == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    end = chaindata_v3_pieces(rec, value + CHAINDATA_TX3H_SIZE, scratch,
                              doc_len, h);
    if (end == NULL) {
        return chaindata_record_fail(rec, "internal error: deflate");
    }

    chaindata_writeset_trim(ws, end - value);

    return 0;
}


int
chaindata_tx_v3_put(chaindata_record_t *rec, const chaindata_jv_t *v1,
    const chaindata_v3_extra_t *x, const unsigned char *txid,
    const chaindata_item_t *events, size_t n, chaindata_writeset_t *ws)
{
    size_t                 doc_len, scratch_len;
    unsigned char         *scratch, *value;
    chaindata_jv_t        *doc, *heavy[CHAINDATA_TX3H_PARTS];
    chaindata_item_t      *items;
    chaindata_v3b_t        b;
    chaindata_tx3h_t       h;
    chaindata_digest_t     digest;

    b.arena = rec->arena;
    b.failed = 0;

    memset(&h, 0, sizeof(h));
    memset(heavy, 0, sizeof(heavy));

    if (chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL_PREFIX,
                                CHAINDATA_DBI_TX_V3_EVENT, txid,
                                CHAINDATA_TXID_LEN)
        != 0)
    {
        return -1;
    }

    if (x->gone) {
        return chaindata_v3_put_gone(rec, txid, ws);
    }

    doc = chaindata_v3_doc(&b, v1, x, heavy);
    items = chaindata_v3_events(&b, x, events, &n, &h);

    if (doc == NULL || b.failed) {
        return chaindata_record_fail(rec, "out of memory");
    }

    doc_len = chaindata_jv_size(doc);

    scratch_len = chaindata_chunks_scratch_len(items, n,
                                               CHAINDATA_EVENT_CHUNK);
    scratch_len = scratch_len > doc_len ? scratch_len : doc_len;

    scratch = malloc(scratch_len ? scratch_len : 1);
    if (scratch == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    chaindata_digest_init(&digest);

    if (chaindata_v3_put_doc(rec, txid, doc, doc_len, heavy, scratch,
                             &digest, &h, ws)
        != 0)
    {
        free(scratch);
        return -1;
    }

    value = chaindata_record_events(rec, ws, CHAINDATA_DBI_TX_V3_EVENT, txid,
                                    items, n, scratch, &digest, h.digest,
                                    &h.chunk0_len);
    free(scratch);

    if (value == NULL) {
        return -1;
    }

    h.flags |= h.chunk0_len ? CHAINDATA_TX3H_CHUNK0 : 0;
    chaindata_tx3h_encode(value, &h);

    return 0;
}


int
chaindata_tx_v3_delete(chaindata_record_t *rec, const unsigned char *txid,
    chaindata_writeset_t *ws)
{
    if (chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL,
                                CHAINDATA_DBI_TX_V3, txid,
                                CHAINDATA_TXID_LEN)
        != 0
        || chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL_PREFIX,
                                   CHAINDATA_DBI_TX_V3_EVENT, txid,
                                   CHAINDATA_TXID_LEN)
           != 0)
    {
        return -1;
    }

    return 0;
}
