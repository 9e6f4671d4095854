
/*
 * chaindata: a "tx" record's checks (chaindata_record_tx.c writes it):
 * its transaction's members by the shape its status implies, its events,
 * sorted by event_index, and the members v3 needs beside the document.
 * lmdb-schema/README.md, "Ingest format", "tx".
 */


#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_layout.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_record_tx_check.h"
#include "chaindata_field_letters.h"


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

int
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


int
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

int
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
