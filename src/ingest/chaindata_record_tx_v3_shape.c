
/*
 * chaindata: the v3 shapes of a transaction and of its events, built at
 * ingest from the v1 document of its "tx" record and the members v1 lacks
 * (lmdb-schema/README.md, "tx_v3"): trees made of the v1 document's own
 * values (shallow copies, renamed) and a few new ones.
 */


#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_jdoc.h"
#include "chaindata_record_tx_v3_shape.h"


static chaindata_jv_t  chaindata_v3_null = { .type = CHAINDATA_JV_NULL };


static chaindata_jv_t *
chaindata_v3_node(chaindata_v3b_t *b, chaindata_jv_type_e type)
{
    chaindata_jv_t  *v;

    v = chaindata_arena_alloc(b->arena, sizeof(chaindata_jv_t));
    if (v == NULL) {
        b->failed = 1;
        return NULL;
    }

    memset(v, 0, sizeof(chaindata_jv_t));
    v->type = type;

    return v;
}


static chaindata_jv_t *
chaindata_v3_str(chaindata_v3b_t *b, const char *s, size_t len)
{
    chaindata_jv_t  *v;

    v = chaindata_v3_node(b, CHAINDATA_JV_STRING);
    if (v) {
        v->str = (const unsigned char *) s;
        v->len = len;
    }

    return v;
}


/*
 * Appends a copy of value (its children shared; null when absent) to the
 * object or array to, as name (NULL in an array); the copy, or NULL.
 */

static chaindata_jv_t *
chaindata_v3_append(chaindata_v3b_t *b, chaindata_jv_t *to, const char *name,
    const chaindata_jv_t *value)
{
    chaindata_jv_t  *m;

    if (to == NULL) {
        b->failed = 1;
        return NULL;
    }

    m = chaindata_v3_node(b, CHAINDATA_JV_NULL);
    if (m == NULL) {
        return NULL;
    }

    *m = value ? *value : chaindata_v3_null;
    m->next = NULL;
    m->key = (const unsigned char *) name;
    m->key_len = name ? strlen(name) : 0;

    if (to->last) {
        to->last->next = m;
    } else {
        to->child = m;
    }

    to->last = m;
    to->n++;

    return m;
}


#define chaindata_v3_add(b, obj, name, value)                              \
    chaindata_v3_append(b, obj, name, value)


/* an array's next element: a value made already (NULL: out of memory) */

static void
chaindata_v3_push(chaindata_v3b_t *b, chaindata_jv_t *arr,
    chaindata_jv_t *v)
{
    if (v == NULL) {
        b->failed = 1;
        return;
    }

    (void) chaindata_v3_append(b, arr, NULL, v);
}


/* adds v1's member from to obj as name */

static void
chaindata_v3_take(chaindata_v3b_t *b, chaindata_jv_t *obj, const char *name,
    const chaindata_jv_t *v1, const char *from)
{
    (void) chaindata_v3_add(b, obj, name, chaindata_jv_get(v1, from));
}


static chaindata_jv_t *
chaindata_v3_obj(chaindata_v3b_t *b, chaindata_jv_t *parent,
    const char *name)
{
    chaindata_jv_t  *o;

    o = chaindata_v3_node(b, CHAINDATA_JV_OBJECT);
    if (o == NULL) {
        return NULL;
    }

    return parent ? chaindata_v3_add(b, parent, name, o) : o;
}


/* a memo's "repr" (chaindata_record_tx_v3_memo.c) */

static chaindata_jv_t *
chaindata_v3_memo_repr(chaindata_v3b_t *b, const chaindata_jv_t *hex)
{
    size_t          len, out_len;
    unsigned char  *bytes, *out;

    if (hex->len < 2 || (hex->len & 1)) {
        return chaindata_v3_str(b, "", 0);
    }

    len = (hex->len - 2) / 2;

    bytes = chaindata_arena_alloc(b->arena, len + 1);
    out = chaindata_arena_alloc(b->arena, 3 * len + 1);
    if (bytes == NULL || out == NULL) {
        b->failed = 1;
        return NULL;
    }

    if (chaindata_hex_decode(bytes, hex->str + 2, hex->len - 2) != 0) {
        return chaindata_v3_str(b, "", 0);
    }

    out_len = chaindata_v3_memo_text(out, bytes, len);

    return chaindata_v3_str(b, (const char *) out, out_len);
}


/* {"hex":memo,"repr":…}, or null when there is no memo */

static void
chaindata_v3_memo(chaindata_v3b_t *b, chaindata_jv_t *obj,
    const chaindata_jv_t *memo)
{
    chaindata_jv_t  *m;

    if (memo == NULL || memo->type != CHAINDATA_JV_STRING || memo->len == 0)
    {
        (void) chaindata_v3_add(b, obj, "memo", NULL);
        return;
    }

    m = chaindata_v3_obj(b, obj, "memo");
    (void) chaindata_v3_add(b, m, "hex", memo);
    (void) chaindata_v3_add(b, m, "repr", chaindata_v3_memo_repr(b, memo));
}


/* an object's listed members, as they are, those present only */

static void
chaindata_v3_members(chaindata_v3b_t *b, chaindata_jv_t *obj,
    const chaindata_jv_t *from, const char *const *names)
{
    const chaindata_jv_t  *v;

    for ( /* void */ ; *names; names++) {
        v = chaindata_jv_get(from, *names);

        if (v) {
            (void) chaindata_v3_add(b, obj, *names, v);
        }
    }
}


/* a post condition in v3's member order */

static chaindata_jv_t *
chaindata_v3_post_condition(chaindata_v3b_t *b, const chaindata_jv_t *pc)
{
    chaindata_jv_t        *o, *m;
    const chaindata_jv_t  *v;

    static const char *const  principal[] = {
        "type_id", "address", "contract_name", NULL
    };
    static const char *const  asset[] = {
        "asset_name", "contract_address", "contract_name", NULL
    };
    static const char *const  tail[] = {
        "condition_code", "amount", "type", NULL
    };

    if (pc->type != CHAINDATA_JV_OBJECT) {
        return (chaindata_jv_t *) pc;
    }

    o = chaindata_v3_obj(b, NULL, NULL);

    v = chaindata_jv_get(pc, "principal");
    if (v && v->type == CHAINDATA_JV_OBJECT) {
        m = chaindata_v3_obj(b, o, "principal");
        chaindata_v3_members(b, m, v, principal);
    }

    chaindata_v3_members(b, o, pc, tail);

    /* a non-fungible condition's asset_value comes before its asset */
    v = chaindata_jv_get(pc, "asset_value");
    if (v && v->type == CHAINDATA_JV_OBJECT) {
        m = chaindata_v3_obj(b, o, "asset_value");
        chaindata_v3_take(b, m, "hex", v, "hex");
        chaindata_v3_take(b, m, "repr", v, "repr");
    }

    v = chaindata_jv_get(pc, "asset");
    if (v && v->type == CHAINDATA_JV_OBJECT) {
        m = chaindata_v3_obj(b, o, "asset");
        chaindata_v3_members(b, m, v, asset);
    }

    return o;
}


static chaindata_jv_t *
chaindata_v3_array(chaindata_v3b_t *b)
{
    return chaindata_v3_node(b, CHAINDATA_JV_ARRAY);
}


static chaindata_jv_t *
chaindata_v3_post_conditions(chaindata_v3b_t *b, const chaindata_jv_t *v1)
{
    chaindata_jv_t        *arr;
    const chaindata_jv_t  *pcs, *pc;

    arr = chaindata_v3_array(b);
    pcs = chaindata_jv_get(v1, "post_conditions");

    if (pcs && pcs->type == CHAINDATA_JV_ARRAY) {
        for (pc = pcs->child; pc; pc = pc->next) {
            chaindata_v3_push(b, arr, chaindata_v3_post_condition(b, pc));
        }
    }

    return arr;
}


static chaindata_jv_t *
chaindata_v3_function_args(chaindata_v3b_t *b, const chaindata_jv_t *call)
{
    chaindata_jv_t        *arr, *o;
    const chaindata_jv_t  *args, *a;

    arr = chaindata_v3_array(b);
    args = chaindata_jv_get(call, "function_args");

    if (args && args->type == CHAINDATA_JV_ARRAY) {
        for (a = args->child; a; a = a->next) {
            o = chaindata_v3_obj(b, NULL, NULL);
            chaindata_v3_take(b, o, "hex", a, "hex");
            chaindata_v3_take(b, o, "repr", a, "repr");
            chaindata_v3_push(b, arr, o);
        }
    }

    return arr;
}


/*
 * The type's payload object, its heavy member last (kept in *heavy, with
 * its part's number in *part).
 */

static void
chaindata_v3_payload(chaindata_v3b_t *b, chaindata_jv_t *doc,
    const chaindata_jv_t *v1, int mempool, chaindata_jv_t **heavy,
    unsigned *part)
{
    chaindata_jv_t        *o;
    const chaindata_jv_t  *type, *p;

    type = chaindata_jv_get(v1, "tx_type");
    (void) chaindata_v3_add(b, doc, "type", type);

    if (chaindata_jv_is(type, "token_transfer")) {
        p = chaindata_jv_get(v1, "token_transfer");
        o = chaindata_v3_obj(b, doc, "token_transfer");
        chaindata_v3_take(b, o, "recipient", p, "recipient_address");
        chaindata_v3_take(b, o, "amount", p, "amount");
        chaindata_v3_memo(b, o, chaindata_jv_get(p, "memo"));

    } else if (chaindata_jv_is(type, "smart_contract")) {
        p = chaindata_jv_get(v1, "smart_contract");
        o = chaindata_v3_obj(b, doc, "smart_contract");
        chaindata_v3_take(b, o, "contract_id", p, "contract_id");
        chaindata_v3_take(b, o, "clarity_version", p, "clarity_version");
        *heavy = chaindata_v3_add(b, o, "source_code",
                                  chaindata_jv_get(p, "source_code"));
        *part = CHAINDATA_TX3_SOURCE_CODE;

    } else if (chaindata_jv_is(type, "contract_call")) {
        p = chaindata_jv_get(v1, "contract_call");
        o = chaindata_v3_obj(b, doc, "contract_call");
        chaindata_v3_take(b, o, "contract_id", p, "contract_id");
        chaindata_v3_take(b, o, "function_name", p, "function_name");
        *heavy = chaindata_v3_add(b, o, "function_args",
                                  chaindata_v3_function_args(b, p));
        *part = CHAINDATA_TX3_FUNCTION_ARGS;

    } else if (mempool) {
        /* the mempool's coinbase and tenure change carry no payload */
        return;

    } else if (chaindata_jv_is(type, "coinbase")) {
        p = chaindata_jv_get(v1, "coinbase_payload");
        o = chaindata_v3_obj(b, doc, "coinbase");
        chaindata_v3_take(b, o, "payload", p, "data");
        chaindata_v3_take(b, o, "alt_recipient", p, "alt_recipient");
        chaindata_v3_take(b, o, "vrf_proof", p, "vrf_proof");

    } else if (chaindata_jv_is(type, "tenure_change")) {
        static const char *const  tenure[] = {
            "tenure_consensus_hash", "prev_tenure_consensus_hash",
            "burn_view_consensus_hash", "previous_tenure_end",
            "previous_tenure_blocks", "cause", "pubkey_hash", NULL
        };

        p = chaindata_jv_get(v1, "tenure_change_payload");
        o = chaindata_v3_obj(b, doc, "tenure_change");
        chaindata_v3_members(b, o, p, tenure);
    }
}


/* the v3 document of a transaction (chaindata_record_tx_v3_shape.h) */

chaindata_jv_t *
chaindata_v3_doc(chaindata_v3b_t *b, const chaindata_jv_t *v1,
    const chaindata_v3_extra_t *x, chaindata_jv_t **heavy)
{
    unsigned               part;
    chaindata_jv_t        *doc, *o, *h;
    const chaindata_jv_t  *sa, *sn;

    doc = chaindata_v3_obj(b, NULL, NULL);

    chaindata_v3_take(b, doc, "tx_id", v1, "tx_id");

    o = chaindata_v3_obj(b, doc, "sender");
    chaindata_v3_take(b, o, "address", v1, "sender_address");
    chaindata_v3_take(b, o, "nonce", v1, "nonce");

    sa = chaindata_jv_get(v1, "sponsor_address");
    sn = chaindata_jv_get(v1, "sponsor_nonce");

    if (sa && sn && sa->type != CHAINDATA_JV_NULL
        && sn->type != CHAINDATA_JV_NULL)
    {
        o = chaindata_v3_obj(b, doc, "sponsor");
        (void) chaindata_v3_add(b, o, "address", sa);
        (void) chaindata_v3_add(b, o, "nonce", sn);

    } else {
        (void) chaindata_v3_add(b, doc, "sponsor", NULL);
    }

    chaindata_v3_take(b, doc, "fee_rate", v1, "fee_rate");

    if (x->mempool) {
        chaindata_v3_take(b, doc, "receipt_time", v1, "receipt_time");
        (void) chaindata_v3_add(b, doc, "receipt_block_height",
                                x->receipt_block_height);
        chaindata_v3_take(b, doc, "status", v1, "tx_status");
        chaindata_v3_take(b, doc, "replaced_by_tx_id", v1,
                          "replaced_by_tx_id");

    } else {
        o = chaindata_v3_obj(b, doc, "block");
        chaindata_v3_take(b, o, "height", v1, "block_height");
        chaindata_v3_take(b, o, "hash", v1, "block_hash");
        (void) chaindata_v3_add(b, o, "index_hash", x->index_block_hash);
        if (x->block_time) {
            (void) chaindata_v3_add(b, o, "time", x->block_time);
        } else {
            chaindata_v3_take(b, o, "time", v1, "block_time");
        }

        chaindata_v3_take(b, o, "tx_index", v1, "tx_index");

        o = chaindata_v3_obj(b, doc, "bitcoin_block");
        chaindata_v3_take(b, o, "height", v1, "burn_block_height");
        chaindata_v3_take(b, o, "time", v1, "burn_block_time");

        chaindata_v3_take(b, doc, "status", v1, "tx_status");

        o = chaindata_v3_obj(b, doc, "parent_block");
        chaindata_v3_take(b, o, "hash", v1, "parent_block_hash");
        (void) chaindata_v3_add(b, o, "index_hash",
                                x->parent_index_block_hash);

        chaindata_v3_take(b, doc, "event_count", v1, "event_count");

        o = chaindata_v3_obj(b, doc, "execution_cost");
        chaindata_v3_take(b, o, "read_count", v1,
                          "execution_cost_read_count");
        chaindata_v3_take(b, o, "read_length", v1,
                          "execution_cost_read_length");
        chaindata_v3_take(b, o, "runtime", v1, "execution_cost_runtime");
        chaindata_v3_take(b, o, "write_count", v1,
                          "execution_cost_write_count");
        chaindata_v3_take(b, o, "write_length", v1,
                          "execution_cost_write_length");

        chaindata_v3_take(b, doc, "vm_error", v1, "vm_error");
    }

    h = NULL;
    part = 0;
    chaindata_v3_payload(b, doc, v1, x->mempool, &h, &part);

    if (h) {
        heavy[part] = h;
    }

    heavy[CHAINDATA_TX3_POST_CONDITIONS] =
        chaindata_v3_add(b, doc, "post_conditions",
                         chaindata_v3_post_conditions(b, v1));

    if (!x->mempool) {
        heavy[CHAINDATA_TX3_RESULT] =
            chaindata_v3_add(b, doc, "result",
                             chaindata_jv_get(v1, "tx_result"));
    }

    return b->failed ? NULL : doc;
}


/* an event's "type", name, and its object of that name: the object */

static chaindata_jv_t *
chaindata_v3_event_typed(chaindata_v3b_t *b, chaindata_jv_t *e,
    const char *name)
{
    (void) chaindata_v3_add(b, e, "type",
                            chaindata_v3_str(b, name, strlen(name)));

    return chaindata_v3_obj(b, e, name);
}


/* one v3 event of a v1 event (chaindata_record_tx_v3_shape.h) */

chaindata_jv_t *
chaindata_v3_event(chaindata_v3b_t *b, const chaindata_jv_t *ev)
{
    chaindata_jv_t        *e, *o, *val;
    const chaindata_jv_t  *type, *p, *at;
    const char            *name;

    type = chaindata_jv_get(ev, "event_type");

    e = chaindata_v3_obj(b, NULL, NULL);
    chaindata_v3_take(b, e, "event_index", ev, "event_index");

    if (chaindata_jv_is(type, "smart_contract_log")) {
        p = chaindata_jv_get(ev, "contract_log");
        o = chaindata_v3_event_typed(b, e, "contract_log");
        chaindata_v3_take(b, o, "contract_id", p, "contract_id");
        (void) chaindata_v3_add(b, o, "topic",
                                chaindata_v3_str(b, "print", 5));
        chaindata_v3_take(b, o, "value", p, "value");
        return e;
    }

    if (chaindata_jv_is(type, "stx_lock")) {
        p = chaindata_jv_get(ev, "stx_lock_event");
        o = chaindata_v3_event_typed(b, e, "stx_lock");
        chaindata_v3_take(b, o, "amount", p, "locked_amount");
        chaindata_v3_take(b, o, "unlock_bitcoin_height", p, "unlock_height");
        chaindata_v3_take(b, o, "address", p, "locked_address");
        return e;
    }

    if (chaindata_jv_is(type, "stx_asset")) {
        name = "stx_asset";
    } else if (chaindata_jv_is(type, "fungible_token_asset")) {
        name = "ft_asset";
    } else if (chaindata_jv_is(type, "non_fungible_token_asset")) {
        name = "nft_asset";
    } else {
        return NULL;
    }

    p = chaindata_jv_get(ev, "asset");
    at = chaindata_jv_get(p, "asset_event_type");

    if (!chaindata_jv_is(at, "transfer") && !chaindata_jv_is(at, "mint")
        && !chaindata_jv_is(at, "burn"))
    {
        return NULL;
    }

    o = chaindata_v3_event_typed(b, e, name);
    (void) chaindata_v3_add(b, o, "type", at);

    val = NULL;

    if (name[0] == 'n') {
        val = chaindata_v3_obj(b, NULL, NULL);
        at = chaindata_jv_get(p, "value");
        chaindata_v3_take(b, val, "hex", at, "hex");
        chaindata_v3_take(b, val, "repr", at, "repr");
        at = chaindata_jv_get(p, "asset_event_type");
    }

    /* the members in upstream's order for each type of each asset */
    if (chaindata_jv_is(at, "transfer")) {
        if (name[0] != 's') {
            chaindata_v3_take(b, o, "asset_identifier", p, "asset_id");
        }

        chaindata_v3_take(b, o, "sender", p, "sender");
        chaindata_v3_take(b, o, "recipient", p, "recipient");

    } else if (chaindata_jv_is(at, "mint")) {
        chaindata_v3_take(b, o, "recipient", p, "recipient");

        if (name[0] != 's') {
            chaindata_v3_take(b, o, "asset_identifier", p, "asset_id");
        }

    } else {
        chaindata_v3_take(b, o, "sender", p, "sender");

        if (name[0] != 's') {
            chaindata_v3_take(b, o, "asset_identifier", p, "asset_id");
        }
    }

    if (val) {
        (void) chaindata_v3_add(b, o, "value", val);
        return e;
    }

    chaindata_v3_take(b, o, "amount", p, "amount");

    if (name[0] == 's' && chaindata_jv_is(at, "transfer")) {
        chaindata_v3_memo(b, o, chaindata_jv_get(p, "memo"));
    }

    return e;
}
