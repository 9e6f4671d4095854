
/*
 * chaindata: "tx" records.
 *
 *   {"kind":"tx","data":<Transaction>}    upsert by data.tx_id
 *   {"kind":"tx","delete":"0x<64 hex>"}   remove
 *
 * The document is stored compactly with its events array emptied; its
 * events go in chunks of a default page each, one record per chunk keyed
 * by its number, so that a page of events costs O(log n + page).  See
 * lmdb-schema/README.md and lmdb-schema/pieces.md.
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
#include "chaindata_field_letters.h"
#include "chaindata_record_tx_v3.h"


/*
 * What one request may have to copy: the document without its events, and
 * one event (a page holds at most 100).  Larger ones are refused at ingest
 * rather than served.
 */
#define CHAINDATA_MAX_DOC      (8 * 1024 * 1024)
#define CHAINDATA_MAX_EVENT    (1024 * 1024)

/* the shapes of a transaction, where its fields are required */
#define CHAINDATA_CONFIRMED  0x02
#define CHAINDATA_MEMPOOL    0x04


typedef struct {
    const char  *name;
    const char  *payload;
} chaindata_variant_t;


typedef struct {
    uint32_t               index;
    const chaindata_jv_t  *event;
    size_t                 size;
} chaindata_event_t;


/* a transaction's members: lmdb-schema/README.md, "Ingest format", "tx" */

static const chaindata_field_t  chaindata_tx_fields[] = {

#define C  CHAINDATA_CONFIRMED
#define M  CHAINDATA_MEMPOOL

    { "tx_id", S, C|M, NULL, NULL },
    { "nonce", U, C|M, NULL, NULL },
    { "fee_rate", S, C|M, NULL, NULL },
    { "sender_address", S, C|M, NULL, NULL },
    { "sponsor_nonce", U, 0, NULL, NULL },
    { "sponsored", B, C|M, NULL, NULL },
    { "sponsor_address", S, 0, NULL, NULL },
    { "post_condition_mode", S, C|M, NULL, NULL },
    { "post_conditions", A, C|M, NULL, NULL },
    { "anchor_mode", S, C|M, NULL, NULL },
    { "block_hash", S, C, NULL, NULL },
    { "block_height", U, C, NULL, NULL },
    { "block_time", N, C, NULL, NULL },
    { "block_time_iso", S, C, NULL, NULL },
    { "burn_block_time", U, C, NULL, NULL },
    { "burn_block_height", U, C, NULL, NULL },
    { "burn_block_time_iso", S, C, NULL, NULL },
    { "parent_burn_block_time", U, C, NULL, NULL },
    { "parent_burn_block_time_iso", S, C, NULL, NULL },
    { "canonical", B, C, NULL, NULL },
    { "tx_index", U, C, NULL, NULL },
    { "tx_status", S, C|M, NULL, NULL },
    { "tx_result", O, C, NULL, NULL },
    { "event_count", U, C, NULL, NULL },
    { "parent_block_hash", S, C, NULL, NULL },
    { "is_unanchored", B, C, NULL, NULL },
    { "microblock_hash", S, C, NULL, NULL },
    { "microblock_sequence", U, C, NULL, NULL },
    { "microblock_canonical", B, C, NULL, NULL },
    { "execution_cost_read_count", U, C, NULL, NULL },
    { "execution_cost_read_length", U, C, NULL, NULL },
    { "execution_cost_runtime", U, C, NULL, NULL },
    { "execution_cost_write_count", U, C, NULL, NULL },
    { "execution_cost_write_length", U, C, NULL, NULL },
    { "vm_error", S|Z, C, NULL, NULL },
    { "events", A, C, NULL, NULL },
    { "replaced_by_tx_id", S|Z, M, NULL, NULL },
    { "receipt_time", U, M, NULL, NULL },
    { "receipt_time_iso", S, M, NULL, NULL },
    { "tx_type", S, C|M, NULL, NULL },
    { NULL, 0, 0, NULL, NULL }

#undef C
#undef M
};


static const chaindata_variant_t  chaindata_tx_types[] = {
    { "token_transfer", "token_transfer" },
    { "smart_contract", "smart_contract" },
    { "contract_call", "contract_call" },
    { "poison_microblock", "poison_microblock" },
    { "coinbase", "coinbase_payload" },
    { "tenure_change", "tenure_change_payload" },
    { NULL, NULL }
};


static const chaindata_variant_t  chaindata_event_types[] = {
    { "smart_contract_log", "contract_log" },
    { "stx_lock", "stx_lock_event" },
    { "stx_asset", "asset" },
    { "fungible_token_asset", "asset" },
    { "non_fungible_token_asset", "asset" },
    { NULL, NULL }
};


/* tx_status values: the first four are confirmed, the rest mempool */

static const char  *chaindata_tx_statuses[] = {
    "success",
    "abort_by_response",
    "abort_by_post_condition",
    "problematic_skipped",
    "pending",
    "dropped_replace_by_fee",
    "dropped_replace_across_fork",
    "dropped_too_expensive",
    "dropped_stale_garbage_collect",
    "dropped_problematic",
    NULL
};

#define CHAINDATA_CONFIRMED_STATUSES  4


static const chaindata_field_t  chaindata_tx_put_members[] = {
    { .name = "kind" }, { .name = "data" },
    { .name = "index_block_hash" }, { .name = "parent_index_block_hash" },
    { .name = "receipt_block_height" }, { .name = "block_time" },
    { .name = NULL }
};

static const chaindata_field_t  chaindata_tx_delete_members[] = {
    { .name = "kind" }, { .name = "delete" }, { .name = NULL }
};


static const chaindata_variant_t *
chaindata_variant(const chaindata_variant_t *variants,
    const chaindata_jv_t *v)
{
    for ( /* void */ ; variants->name; variants++) {
        if (chaindata_jv_is(v, variants->name)) {
            return variants;
        }
    }

    return NULL;
}


/* the shape the status implies: confirmed or mempool, 0 if unknown */

static unsigned
chaindata_tx_shape(const chaindata_jv_t *status)
{
    unsigned  i;

    for (i = 0; chaindata_tx_statuses[i]; i++) {
        if (chaindata_jv_is(status, chaindata_tx_statuses[i]))
        {
            return i < CHAINDATA_CONFIRMED_STATUSES
                   ? CHAINDATA_CONFIRMED : CHAINDATA_MEMPOOL;
        }
    }

    return 0;
}


static int
chaindata_check_event(chaindata_record_t *rec,
    const chaindata_jv_t *ev, size_t i,
    const chaindata_jv_t *tx_id, chaindata_event_t *out)
{
    uint64_t                    index;
    const chaindata_jv_t       *v;
    const chaindata_variant_t  *t;

    if (ev->type != CHAINDATA_JV_OBJECT) {
        return chaindata_record_fail(rec,
                   "data.events[%zu] must be an object", i);
    }

    v = chaindata_jv_get(ev, "event_index");

    if (v == NULL || chaindata_jv_to_u64(v, &index) != 0
        || index > UINT32_MAX)
    {
        return chaindata_record_fail(rec,
                   "data.events[%zu].event_index must be an integer "
                   "from 0 to 4294967295", i);
    }

    v = chaindata_jv_get(ev, "event_type");
    t = v ? chaindata_variant(chaindata_event_types, v)
          : NULL;

    if (v == NULL || v->type != CHAINDATA_JV_STRING) {
        return chaindata_record_fail(rec,
                   "data.events[%zu].event_type must be one of "
                   "smart_contract_log, stx_lock, stx_asset, "
                   "fungible_token_asset, non_fungible_token_asset (or "
                   "a string upstream adds)", i);
    }

    if (t == NULL) {
        /* a type upstream added: stored as served, its payload unread */
        chaindata_record_unknown_note(rec, "data.events[%zu].event_type "
                                      "\"%.32s\"", i, v->str);
    }

    v = t ? chaindata_jv_get(ev, t->payload) : NULL;

    if (t && (v == NULL || v->type != CHAINDATA_JV_OBJECT)) {
        return chaindata_record_fail(rec,
                   "data.events[%zu].%s must be an object (event_type %s)",
                   i, t->payload, t->name);
    }

    v = chaindata_jv_get(ev, "tx_id");

    if (v == NULL || v->type != CHAINDATA_JV_STRING
        || v->len != tx_id->len || memcmp(v->str, tx_id->str, v->len) != 0)
    {
        return chaindata_record_fail(rec,
                   "data.events[%zu].tx_id must equal data.tx_id", i);
    }

    out->index = (uint32_t) index;
    out->event = ev;
    out->size = chaindata_jv_size(ev);

    if (out->size > CHAINDATA_MAX_EVENT) {
        return chaindata_record_fail(rec,
                   "data.events[%zu] is %zu bytes; an event may have at "
                   "most %d", i, out->size, CHAINDATA_MAX_EVENT);
    }

    return 0;
}


static int
chaindata_event_cmp(const void *a, const void *b)
{
    const chaindata_event_t  *x = a, *y = b;

    return (x->index > y->index) - (x->index < y->index);
}


/* checks the events and returns them sorted by event_index, as items */

static int
chaindata_collect_events(chaindata_record_t *rec,
    const chaindata_jv_t *data, chaindata_item_t **out)
{
    size_t                 i;
    uint64_t               count;
    chaindata_item_t      *items;
    chaindata_event_t     *events;
    const chaindata_jv_t  *list, *ev, *tx_id;

    list = chaindata_jv_get(data, "events");
    tx_id = chaindata_jv_get(data, "tx_id");

    if (chaindata_jv_to_u64(chaindata_jv_get(data,
                                             "event_count"),
                            &count) != 0
        || count != list->n)
    {
        return chaindata_record_fail(rec,
                   "data.event_count must equal the number of data.events "
                   "(%zu)", list->n);
    }

    if (list->n > UINT32_MAX) {
        return chaindata_record_fail(rec, "too many events");
    }

    events = chaindata_arena_alloc(rec->arena,
                                   (list->n + 1) * sizeof(*events));
    items = chaindata_arena_alloc(rec->arena,
                                  (list->n + 1) * sizeof(*items));
    if (events == NULL || items == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    for (i = 0, ev = list->child; ev; ev = ev->next, i++) {
        if (chaindata_check_event(rec, ev, i, tx_id, &events[i])
            != 0)
        {
            return -1;
        }
    }

    qsort(events, list->n, sizeof(*events), chaindata_event_cmp);

    for (i = 1; i < list->n; i++) {
        if (events[i].index == events[i - 1].index) {
            return chaindata_record_fail(rec,
                       "two events share event_index %u",
                       (unsigned) events[i].index);
        }
    }

    for (i = 0; i < list->n; i++) {
        items[i].jv = events[i].event;
        items[i].size = events[i].size;
    }

    *out = items;

    return 0;
}


static int
chaindata_check_tx(chaindata_record_t *rec,
    const chaindata_jv_t *data, unsigned *shape)
{
    chaindata_rules_t           rules;
    const chaindata_jv_t       *v;
    const chaindata_variant_t  *t;

    if (data->type != CHAINDATA_JV_OBJECT) {
        return chaindata_record_fail(rec, "data must be an object");
    }

    v = chaindata_jv_get(data, "tx_id");

    if (v == NULL || v->type != CHAINDATA_JV_STRING
        || v->len != CHAINDATA_TXID_HEX_LEN + 2
        || v->str[0] != '0' || v->str[1] != 'x'
        || !chaindata_hex_is_lower(v->str + 2, CHAINDATA_TXID_HEX_LEN))
    {
        return chaindata_record_fail(rec,
                   "data.tx_id must be \"0x\" and 64 lowercase hex digits");
    }

    v = chaindata_jv_get(data, "tx_status");
    *shape = v ? chaindata_tx_shape(v) : 0;

    if (v == NULL || v->type != CHAINDATA_JV_STRING) {
        return chaindata_record_fail(rec,
                   "data.tx_status is missing or not a string");
    }

    if (*shape == 0) {
        /*
         * a status upstream added: a transaction with events is a
         * confirmed one, without, one of the mempool (doc/loader.md)
         */
        chaindata_record_unknown_note(rec, "data.tx_status \"%.32s\"",
                                      v->str);
        *shape = chaindata_jv_get(data, "event_count") ? CHAINDATA_CONFIRMED
                                                       : CHAINDATA_MEMPOOL;
    }

    if (*shape == CHAINDATA_MEMPOOL
        && (chaindata_jv_get(data, "events")
            || chaindata_jv_get(data, "event_count")))
    {
        return chaindata_record_fail(rec,
                   "a mempool transaction (tx_status %.40s) has no events "
                   "or event_count", v->str);
    }

    rules.shape = *shape;
    rules.closed = 0;
    rules.counted = 0;
    rules.null_absent = 0;
    rules.note = (*shape == CHAINDATA_MEMPOOL)
                 ? " (required in a mempool transaction)"
                 : " (required in a confirmed transaction)";

    if (chaindata_record_fields(rec, data, chaindata_tx_fields, "data",
                                &rules)
        != 0)
    {
        return -1;
    }

    v = chaindata_jv_get(data, "tx_type");
    t = chaindata_variant(chaindata_tx_types, v);

    if (t == NULL) {
        /* a type upstream added (tx_type is a string, its field says) */
        chaindata_record_unknown_note(rec, "data.tx_type \"%.32s\"",
                                      v->str);
        return 0;
    }

    v = chaindata_jv_get(data, t->payload);

    if (v == NULL || v->type != CHAINDATA_JV_OBJECT) {
        return chaindata_record_fail(rec,
                   "data.%s must be an object (tx_type %s)",
                   t->payload, t->name);
    }

    return 0;
}


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


/* "0x" and 64 lowercase hex digits */

static int
chaindata_tx_is_hash(const chaindata_jv_t *v)
{
    return v->type == CHAINDATA_JV_STRING
           && v->len == CHAINDATA_TXID_HEX_LEN + 2
           && v->str[0] == '0' && v->str[1] == 'x'
           && chaindata_hex_is_lower(v->str + 2, CHAINDATA_TXID_HEX_LEN);
}


/*
 * What v3 needs beside the document (lmdb-schema/README.md, "tx"):
 * *x->... NULL when the record does not carry it; 1 when v3 can be
 * built, 0 when not, -1 on a bad member.
 */

static int
chaindata_tx_v3_extra(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, const chaindata_jv_t *data,
    unsigned shape, chaindata_v3_extra_t *x)
{
    uint64_t               height;
    const chaindata_jv_t  *v, *status;

    memset(x, 0, sizeof(chaindata_v3_extra_t));

    x->index_block_hash = chaindata_jv_get(envelope, "index_block_hash");
    x->parent_index_block_hash = chaindata_jv_get(envelope,
                                                  "parent_index_block_hash");
    x->receipt_block_height = chaindata_jv_get(envelope,
                                               "receipt_block_height");

    if ((x->index_block_hash && !chaindata_tx_is_hash(x->index_block_hash))
        || (x->parent_index_block_hash
            && !chaindata_tx_is_hash(x->parent_index_block_hash)))
    {
        return chaindata_record_fail(rec,
                   "index_block_hash and parent_index_block_hash must be "
                   "\"0x\" and 64 lowercase hex digits");
    }

    x->block_time = chaindata_jv_get(envelope, "block_time");

    if (x->block_time && chaindata_jv_to_u64(x->block_time, &height) != 0) {
        return chaindata_record_fail(rec,
                   "block_time must be an integer from 0 to "
                   "18446744073709551615");
    }

    v = x->receipt_block_height;

    if (v && chaindata_jv_to_u64(v, &height) != 0) {
        return chaindata_record_fail(rec,
                   "receipt_block_height must be an integer from 0 to "
                   "18446744073709551615");
    }

    status = chaindata_jv_get(data, "tx_status");
    x->mempool = (shape == CHAINDATA_MEMPOOL);

    if (x->mempool) {
        /* v3 serves a pending one; a dropped one is "not found" */
        x->gone = !chaindata_jv_is(status, "pending");
        return x->gone || v != NULL;
    }

    v = chaindata_jv_get(data, "canonical");
    x->gone = (v && v->type == CHAINDATA_JV_FALSE);
    v = chaindata_jv_get(data, "microblock_canonical");
    x->gone |= (v && v->type == CHAINDATA_JV_FALSE);

    return x->gone
           || (x->index_block_hash && x->parent_index_block_hash);
}


static int
chaindata_tx_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    int                    is_call, rc;
    size_t                 doc_size, n, scratch_len;
    unsigned               shape;
    unsigned char         *value, *end, *scratch;
    unsigned char          txid[CHAINDATA_TXID_LEN];
    const chaindata_jv_t  *data, *tx_id, *events;
    chaindata_txh_t        h;
    chaindata_v3_extra_t   x;
    int                    v3;
    chaindata_item_t      *items;
    chaindata_digest_t     digest;
    chaindata_chunked_t    list;

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
        != 0)
    {
        return -1;
    }

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
    is_call = chaindata_jv_is(chaindata_jv_get(data,
                                               "tx_type"),
                              "contract_call");

    end = chaindata_write_doc(scratch, data, is_call, &h);

    if ((size_t) (end - scratch) != doc_size) {
        free(scratch);
        return chaindata_record_fail(rec,
                                     "internal error: size mismatch");
    }

    if (chaindata_jv_is(chaindata_jv_get(data, "tx_status"), "pending")) {
        h.flags |= CHAINDATA_TXH_PENDING;
    }

    chaindata_digest_init(&digest);
    chaindata_digest_add(&digest, scratch, doc_size);

    value = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_TX,
                                   txid, sizeof(txid),
                                   CHAINDATA_TXH_SIZE
                                   + chaindata_piece_bound(doc_size)
                                   + CHAINDATA_TXH_PIECES_MAX
                                     * chaindata_piece_bound(0));
    if (value == NULL) {
        free(scratch);
        goto nomem;
    }

    end = chaindata_tx_pieces(rec, value + CHAINDATA_TXH_SIZE, scratch,
                              doc_size, &h);
    if (end == NULL) {
        free(scratch);
        return chaindata_record_fail(rec, "internal error: deflate");
    }

    chaindata_writeset_trim(ws, end - value);

    /* the header's value stays valid until the first event is added */
    value = NULL;

    list.db = CHAINDATA_DBI_TX_EVENT;
    list.items = items;
    list.n = n;
    list.per = CHAINDATA_EVENT_CHUNK;
    list.write = NULL;
    list.data = NULL;

    value = chaindata_record_list(rec, ws, &list, txid, sizeof(txid), scratch,
                                  &digest, h.digest, &h.chunk0_len);
    free(scratch);

    if (value == NULL) {
        return -1;
    }

    h.flags |= h.chunk0_len ? CHAINDATA_TXH_CHUNK0 : 0;
    chaindata_txh_encode(value, &h);

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

nomem:

    return chaindata_record_fail(rec, "out of memory");
}


static int
chaindata_tx_delete(chaindata_record_t *rec,
    const chaindata_jv_t *id, chaindata_writeset_t *ws)
{
    int            prefixed;
    unsigned char  txid[CHAINDATA_TXID_LEN];

    if (id->type != CHAINDATA_JV_STRING
        || chaindata_txid_parse(id->str, id->len, txid, &prefixed)
           != 0
        || !prefixed)
    {
        return chaindata_record_fail(rec,
                   "delete must be \"0x\" and 64 hex digits");
    }

    if (chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL,
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
