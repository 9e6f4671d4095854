
/*
 * chaindata: "tx" records.
 *
 *   {"kind":"tx","data":<Transaction>}    upsert by data.tx_id
 *   {"kind":"tx","delete":"0x<64 hex>"}   remove
 *
 * The document is stored compactly with its events array emptied; its
 * events go in chunks of a default page each, one record per chunk keyed
 * by its number, so that a page of events costs O(log n + page).  See
 * lmdb-schema/README.md and lmdb-schema/pieces.md.  This file writes it;
 * chaindata_record_tx_check.c checks it first.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_digest.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_record_tx_check.h"
#include "chaindata_record_tx_v3.h"


static const chaindata_field_t  chaindata_tx_put_members[] = {
    { .name = "kind" }, { .name = "data" },
    { .name = "index_block_hash" }, { .name = "parent_index_block_hash" },
    { .name = "receipt_block_height" }, { .name = "block_time" },
    { .name = NULL }
};

static const chaindata_field_t  chaindata_tx_delete_members[] = {
    { .name = "kind" }, { .name = "delete" }, { .name = NULL }
};


/*
 * Writes contract_call, noting the span of its function_args member and
 * one separating comma: exclude_function_args cuts that span out.
 */

static unsigned char *
chaindata_write_call(unsigned char *doc, unsigned char *p,
    const chaindata_jv_t *call, chaindata_txh_t *h)
{
    unsigned char         *start;
    const chaindata_jv_t  *m;

    *p++ = '{';

    for (m = call->child; m; m = m->next) {
        start = p;

        if (m != call->child) {
            *p++ = ',';
        }

        p = chaindata_jv_write_key(p, m);
        p = chaindata_jv_write(p, m);

        if (m->key_len == sizeof("function_args") - 1
            && memcmp(m->key, "function_args", m->key_len) == 0)
        {
            h->flags |= CHAINDATA_TXH_FARGS;
            h->fargs_start = (uint32_t) (start - doc);
            h->fargs_len = (uint32_t) (p - start);

            if (m == call->child && m->next) {
                h->fargs_len++;     /* the comma the next member writes */
            }
        }
    }

    *p++ = '}';

    return p;
}


static unsigned char *
chaindata_write_doc(unsigned char *doc,
    const chaindata_jv_t *data, int is_call,
    chaindata_txh_t *h)
{
    unsigned char         *p;
    const chaindata_jv_t  *m;

    p = doc;
    *p++ = '{';

    for (m = data->child; m; m = m->next) {
        if (m != data->child) {
            *p++ = ',';
        }

        p = chaindata_jv_write_key(p, m);

        if (chaindata_jv_get(data, "events") == m) {
            *p++ = '[';
            h->flags |= CHAINDATA_TXH_EVENTS;
            h->events_at = (uint32_t) (p - doc);
            *p++ = ']';

        } else if (is_call
                   && chaindata_jv_get(data, "contract_call") == m
                   && m->type == CHAINDATA_JV_OBJECT)
        {
            p = chaindata_write_call(doc, p, m, h);

        } else {
            p = chaindata_jv_write(p, m);
        }
    }

    *p++ = '}';

    return p;
}


/*
 * The document's pieces into value (room for chaindata_piece_bound() of
 * the whole document and CHAINDATA_TXH_PIECES_MAX pieces more): cut
 * where function_args begins and ends and where the events go
 * (lmdb-schema/README.md, "tx").  Returns the end, NULL on failure.
 */

static unsigned char *
chaindata_tx_pieces(chaindata_record_t *rec, unsigned char *value,
    const unsigned char *doc, size_t doc_len, const chaindata_txh_t *h)
{
    size_t    cut[CHAINDATA_TXH_PIECES_MAX];
    unsigned  ncut;

    ncut = 0;

    if (h->flags & CHAINDATA_TXH_EVENTS) {
        cut[ncut++] = h->events_at;
    }

    if (h->flags & CHAINDATA_TXH_FARGS) {
        cut[ncut++] = h->fargs_start;
        cut[ncut++] = h->fargs_start + h->fargs_len;
    }

    return chaindata_record_pieces(rec, value, doc, doc_len, cut, ncut);
}


/*
 * The document's PUT, its events emptied, written compactly in scratch
 * (its digest begun in digest), as pieces cut where function_args begins
 * and ends and where the events go: 0, or -1 with the reason in rec.
 */

static int
chaindata_tx_put_doc(chaindata_record_t *rec, const unsigned char *txid,
    const chaindata_jv_t *data, size_t doc_size, unsigned char *scratch,
    chaindata_digest_t *digest, chaindata_txh_t *h, chaindata_writeset_t *ws)
{
    int             is_call;
    unsigned char  *value, *end;

    is_call = chaindata_jv_is(chaindata_jv_get(data,
                                               "tx_type"),
                              "contract_call");

    end = chaindata_write_doc(scratch, data, is_call, h);

    if ((size_t) (end - scratch) != doc_size) {
        return chaindata_record_fail(rec,
                                     "internal error: size mismatch");
    }

    if (chaindata_jv_is(chaindata_jv_get(data, "tx_status"), "pending")) {
        h->flags |= CHAINDATA_TXH_PENDING;
    }

    chaindata_digest_add(digest, scratch, doc_size);

    value = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_TX,
                                   txid, CHAINDATA_TXID_LEN,
                                   CHAINDATA_TXH_SIZE
                                   + chaindata_piece_bound(doc_size)
                                   + CHAINDATA_TXH_PIECES_MAX
                                     * chaindata_piece_bound(0));
    if (value == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    end = chaindata_tx_pieces(rec, value + CHAINDATA_TXH_SIZE, scratch,
                              doc_size, h);
    if (end == NULL) {
        return chaindata_record_fail(rec, "internal error: deflate");
    }

    chaindata_writeset_trim(ws, end - value);

    return 0;
}


/*
 * The v1 writes: the document, then its n events in chunks (the header's
 * value stays valid until the first event is added, then is found
 * again): 0, or -1 with the reason in rec.
 */

static int
chaindata_tx_put_v1(chaindata_record_t *rec, const unsigned char *txid,
    const chaindata_jv_t *data, size_t doc_size, chaindata_item_t *items,
    size_t n, chaindata_writeset_t *ws)
{
    size_t                 scratch_len;
    unsigned char         *value, *scratch;
    chaindata_txh_t        h;
    chaindata_digest_t     digest;

    /* the plain document and each chunk of events are written here first */
    scratch_len = chaindata_chunks_scratch_len(items, n,
                                               CHAINDATA_EVENT_CHUNK);
    scratch_len = scratch_len > doc_size ? scratch_len : doc_size;

    scratch = malloc(scratch_len ? scratch_len : 1);
    if (scratch == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    memset(&h, 0, sizeof(h));
    h.event_count = (uint32_t) n;
    chaindata_digest_init(&digest);

    if (chaindata_tx_put_doc(rec, txid, data, doc_size, scratch, &digest,
                             &h, ws)
        != 0)
    {
        free(scratch);
        return -1;
    }

    value = chaindata_record_events(rec, ws, CHAINDATA_DBI_TX_EVENT, txid,
                                    items, n, scratch, &digest, h.digest,
                                    &h.chunk0_len);
    free(scratch);

    if (value == NULL) {
        return -1;
    }

    h.flags |= h.chunk0_len ? CHAINDATA_TXH_CHUNK0 : 0;
    chaindata_txh_encode(value, &h);

    return 0;
}


static int
chaindata_tx_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    int                    rc, v3;
    size_t                 doc_size, n;
    unsigned               shape;
    unsigned char          txid[CHAINDATA_TXID_LEN];
    const chaindata_jv_t  *data, *tx_id, *events;
    chaindata_item_t      *items;
    chaindata_v3_extra_t   x;

    data = chaindata_jv_get(envelope, "data");
    shape = 0;

    if (chaindata_check_tx(rec, data, &shape) != 0) {
        return -1;
    }

    v3 = chaindata_tx_v3_extra(rec, envelope, data, shape, &x);
    if (v3 < 0) {
        return -1;
    }

    events = chaindata_jv_get(data, "events");
    items = NULL;
    n = 0;

    if (events) {
        if (chaindata_collect_events(rec, data, &items) != 0) {
            return -1;
        }

        n = events->n;
    }

    tx_id = chaindata_jv_get(data, "tx_id");
    (void) chaindata_hex_decode(txid, tx_id->str + 2,
                                CHAINDATA_TXID_HEX_LEN);

    doc_size = chaindata_jv_size(data);

    if (events) {
        doc_size -= chaindata_jv_size(events) - 2;
    }

    if (doc_size > CHAINDATA_MAX_DOC) {
        return chaindata_record_fail(rec,
                   "data is %zu bytes without its events; a transaction "
                   "may have at most %d", doc_size,
                   CHAINDATA_MAX_DOC);
    }

    if (chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL_PREFIX,
                                CHAINDATA_DBI_TX_EVENT, txid, sizeof(txid))
        != 0
        || chaindata_tx_put_v1(rec, txid, data, doc_size, items, n, ws) != 0)
    {
        return -1;
    }

    /* v3: built of the v1 document, or none when it cannot be */
    if (v3) {
        rc = chaindata_tx_v3_put(rec, data, &x, txid, items, n, ws);

    } else {
        rc = chaindata_tx_v3_delete(rec, txid, ws);
    }

    if (rc != 0) {
        return -1;
    }

    rec->kind = CHAINDATA_REC_TX_PUT;

    return 0;
}


/* the transaction a delete names: "0x" and 64 hex digits */

static int
chaindata_tx_delete_id(chaindata_record_t *rec, const chaindata_jv_t *id,
    unsigned char *txid)
{
    int  prefixed;

    if (id->type != CHAINDATA_JV_STRING
        || chaindata_txid_parse(id->str, id->len, txid, &prefixed) != 0
        || !prefixed)
    {
        return chaindata_record_fail(rec,
                   "delete must be \"0x\" and 64 hex digits");
    }

    return 0;
}


static int
chaindata_tx_delete(chaindata_record_t *rec,
    const chaindata_jv_t *id, chaindata_writeset_t *ws)
{
    unsigned char  txid[CHAINDATA_TXID_LEN];

    if (chaindata_tx_delete_id(rec, id, txid) != 0
        || chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL,
                                   CHAINDATA_DBI_TX, txid, sizeof(txid))
           != 0
        || chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL_PREFIX,
                                   CHAINDATA_DBI_TX_EVENT, txid,
                                   sizeof(txid))
           != 0
        || chaindata_tx_v3_delete(rec, txid, ws) != 0)
    {
        return -1;
    }

    rec->kind = CHAINDATA_REC_TX_DELETE;

    return 0;
}


const chaindata_kind_t  chaindata_kind_tx = {
    "tx",
    chaindata_tx_put_members,
    chaindata_tx_delete_members,
    chaindata_tx_put,
    chaindata_tx_delete
};
