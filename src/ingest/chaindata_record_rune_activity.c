
/*
 * chaindata: "rune_activity" records.
 *
 *   {"kind":"rune_activity","tx_id":"<64 hex>","results":[<entry>, ...]}
 *
 * Each replaces the whole activity list of its transaction, in the order
 * given, which is the order served; "results":[] deletes it.  The entries
 * are checked and stored as chaindata_record_rune.c does for both lists.
 * See lmdb-schema/runes.md.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_record_rune.h"
#include "chaindata_field_letters.h"


static const char *chaindata_check_u32(
    const chaindata_jv_t  *v);
static const char *chaindata_check_hash(
    const chaindata_jv_t  *v);
static const char *chaindata_check_output(
    const chaindata_jv_t  *v);
static int chaindata_check_entry(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const unsigned char *txid, size_t len,
    const char *path);


/* lmdb-schema/runes.md, "rune_activity": the location object */
static const chaindata_field_t  chaindata_location[] = {
    { "block_hash", S, R, NULL, chaindata_check_hash },
    { "block_height", I, R, NULL, chaindata_check_u64 },
    { "tx_id", S, R, NULL, chaindata_check_hash },
    { "tx_index", I, R, NULL, chaindata_check_u32 },
    { "timestamp", I, R, NULL, chaindata_check_u64 },
    { "vout", I, 0, NULL, chaindata_check_u32 },
    { "output", S, 0, NULL, chaindata_check_output },
    { NULL, 0, 0, NULL, NULL }
};

/* lmdb-schema/runes.md, "rune_activity": an entry; the order is upstream's */
const chaindata_field_t  chaindata_rune_activity_entry[] = {
    { "rune", O, R, chaindata_rune_ref, NULL },
    { "operation", S, R, NULL, NULL },
    { "location", O, R, chaindata_location, NULL },
    { "address", S, 0, NULL, chaindata_rune_check_address },
    { "receiver_address", S, 0, NULL, chaindata_rune_check_address },
    { "amount", S, 0, NULL, chaindata_rune_check_amount },
    { NULL, 0, 0, NULL, NULL }
};


static const chaindata_field_t  chaindata_activity_members[] = {
    { .name = "kind" }, { .name = "tx_id" }, { .name = "results" },
    { .name = NULL }
};

static const char  *chaindata_operations[] = {
    "etching", "mint", "burn", "send", "receive", NULL
};


static const chaindata_rune_list_t  chaindata_activity_list = {
    chaindata_rune_activity_entry,
    chaindata_check_entry,
    NULL,
    NULL,
    CHAINDATA_DBI_RUNE_ACTIVITY,
    CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY,
    CHAINDATA_REC_RUNE_ACTIVITY_PUT,
    CHAINDATA_REC_RUNE_ACTIVITY_DELETE
};


static const char *
chaindata_check_u32(const chaindata_jv_t *v)
{
    uint64_t  n;

    if (chaindata_jv_to_u64(v, &n) != 0 || n > UINT32_MAX) {
        return "an integer from 0 to 4294967295";
    }

    return NULL;
}


static const char *
chaindata_check_hash(const chaindata_jv_t *v)
{
    if (v->len != CHAINDATA_TXID_HEX_LEN
        || !chaindata_hex_is_lower(v->str, v->len))
    {
        return "64 lowercase hex digits";
    }

    return NULL;
}


/* the shape only; that it names location.tx_id and .vout is checked after */

static const char *
chaindata_check_output(const chaindata_jv_t *v)
{
    uint64_t  n;

    if (v->len <= CHAINDATA_TXID_HEX_LEN + 1
        || v->str[CHAINDATA_TXID_HEX_LEN] != ':'
        || chaindata_rune_decimal(v->str + CHAINDATA_TXID_HEX_LEN + 1,
                                  v->len - CHAINDATA_TXID_HEX_LEN - 1,
                                  UINT32_MAX, &n)
           != 0)
    {
        return "\"<tx_id>:<vout>\"";
    }

    return NULL;
}


/* an operation upstream added is stored and noted (doc/loader.md) */

static void
chaindata_note_operation(chaindata_record_t *rec, const chaindata_jv_t *v,
    const char *path)
{
    const char  **op;

    for (op = chaindata_operations; *op; op++) {
        if (chaindata_jv_is(v, *op)) {
            return;
        }
    }

    chaindata_record_unknown_note(rec, "%s.operation \"%.32s\"", path,
                                  v->str);
}


/* the location's output is its tx_id and vout */

static int
chaindata_check_output_place(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const char *path)
{
    const chaindata_jv_t  *loc, *tx_id, *vout, *output;

    loc = chaindata_jv_get(entry, "location");
    tx_id = chaindata_jv_get(loc, "tx_id");
    output = chaindata_rune_optional(loc, "output");

    if (output == NULL) {
        return 0;
    }

    vout = chaindata_rune_optional(loc, "vout");

    if (vout == NULL
        || memcmp(output->str, tx_id->str, tx_id->len) != 0
        || output->len != tx_id->len + 1 + vout->len
        || memcmp(output->str + tx_id->len + 1, vout->str, vout->len) != 0)
    {
        return chaindata_record_fail(rec,
                   "%s.location.output must be \"<location.tx_id>:"
                   "<location.vout>\"%s", path,
                   vout ? "" : " (vout is missing)");
    }

    return 0;
}


int
chaindata_rune_activity_check(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const char *path)
{
    chaindata_note_operation(rec, chaindata_jv_get(entry, "operation"),
                             path);

    return chaindata_check_output_place(rec, entry, path);
}


/* the location is the listed transaction's */

static int
chaindata_check_entry(chaindata_record_t *rec, const chaindata_jv_t *entry,
    const unsigned char *txid, size_t len, const char *path)
{
    unsigned char          bin[CHAINDATA_TXID_LEN];
    const chaindata_jv_t  *tx_id;

    tx_id = chaindata_jv_get(chaindata_jv_get(entry, "location"), "tx_id");

    (void) chaindata_hex_decode(bin, tx_id->str, tx_id->len);

    if (memcmp(bin, txid, CHAINDATA_TXID_LEN) != 0) {
        return chaindata_record_fail(rec,
                   "%s.location.tx_id must be the record's tx_id", path);
    }

    return chaindata_rune_activity_check(rec, entry, path);
}


static int
chaindata_rune_activity_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    unsigned char              txid[CHAINDATA_TXID_LEN];
    const chaindata_jv_t      *id;
    chaindata_writeset_mark_t  mark;

    id = chaindata_jv_get(envelope, "tx_id");

    if (id == NULL || id->type != CHAINDATA_JV_STRING
        || id->len != CHAINDATA_TXID_HEX_LEN
        || chaindata_hex_decode(txid, id->str, id->len) != 0)
    {
        return chaindata_record_fail(rec,
                   "tx_id must be 64 hex digits (no \"0x\")");
    }

    chaindata_writeset_mark(ws, &mark);

    if (chaindata_rune_list(rec, &chaindata_activity_list, envelope, txid,
                            sizeof(txid), ws)
        != 0)
    {
        return -1;
    }

    return chaindata_rune_mix(rec, ws, &mark, "rune_activity");
}


const chaindata_kind_t  chaindata_kind_rune_activity = {
    "rune_activity",
    chaindata_activity_members,
    NULL,
    chaindata_rune_activity_put,
    NULL
};
