
/*
 * chaindata: "rune_block" records.
 *
 *   {"kind":"rune_block","block_height":H,"block_hash":"<64 hex>",
 *    "results":[<activity entry>, ...]}
 *
 * A block's rune activity, every entry, newest first as upstream lists
 * it; "results":[] removes the block.  Its entries are checked here as
 * rune_activity's are, their location the record's block; what the index
 * holds decides the rest when the batch is applied (the op BLOCK,
 * chaindata_runes_op.h).  See lmdb-schema/runes.md.
 */


#include <stdio.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_int.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_record_rune.h"
#include "chaindata_runes_op.h"


/* what the entries' locations must say: the record's block */
typedef struct {
    const chaindata_jv_t  *height;
    const chaindata_jv_t  *hash;
    uint64_t               h;
} chaindata_rune_block_t;


static int chaindata_rune_block_entry(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const unsigned char *key, size_t key_len,
    const char *path);


static const chaindata_field_t  chaindata_rune_block_members[] = {
    { .name = "kind" }, { .name = "block_height" }, { .name = "block_hash" },
    { .name = "results" }, { .name = NULL }
};


static const chaindata_rune_list_t  chaindata_rune_block_list = {
    chaindata_rune_activity_entry,
    chaindata_rune_block_entry,
    NULL,
    NULL,
    CHAINDATA_DBI_RUNE_LEDGER,
    CHAINDATA_DBI_RUNE_LEDGER,
    CHAINDATA_REC_RUNE_BLOCK_PUT,
    CHAINDATA_REC_RUNE_BLOCK_DELETE
};


/* an entry's location is the record's block; key is the block's */

static int
chaindata_rune_block_entry(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const unsigned char *key, size_t key_len,
    const char *path)
{
    uint64_t                       h;
    const chaindata_jv_t          *loc, *v;
    const chaindata_rune_block_t  *b;

    b = (const chaindata_rune_block_t *) key;
    loc = chaindata_jv_get(entry, "location");

    v = chaindata_jv_get(loc, "block_height");

    if (chaindata_jv_to_u64(v, &h) != 0 || h != b->h) {
        return chaindata_record_fail(rec, "%s.location.block_height must "
                                     "be the record's block_height (%llu)",
                                     path, (unsigned long long) b->h);
    }

    v = chaindata_jv_get(loc, "block_hash");

    if (v->len != b->hash->len || memcmp(v->str, b->hash->str, v->len) != 0)
    {
        return chaindata_record_fail(rec, "%s.location.block_hash must be "
                                     "the record's block_hash", path);
    }

    return chaindata_rune_activity_check(rec, entry, path);
}


/* newest first: tx_index never grows from one entry to the next */

static int
chaindata_rune_block_order(chaindata_record_t *rec,
    const chaindata_jv_t *results)
{
    size_t                 i;
    uint64_t               prev, tx;
    const chaindata_jv_t  *e;

    prev = UINT64_MAX;

    for (i = 0, e = results->child; e; e = e->next, i++) {
        (void) chaindata_jv_to_u64(chaindata_jv_get(chaindata_jv_get(e,
                                                     "location"),
                                                    "tx_index"), &tx);

        if (tx > prev) {
            return chaindata_record_fail(rec, "results[%zu].location."
                                         "tx_index is above results[%zu]'s: "
                                         "a block's entries go newest first "
                                         "(tx_index descending), as upstream "
                                         "lists them", i, i - 1);
        }

        prev = tx;
    }

    return 0;
}


/* the size of an entry in the op's argument */

static size_t
chaindata_rune_block_entry_size(const chaindata_jv_t *e)
{
    const chaindata_jv_t  *a;

    a = chaindata_rune_optional(e, "address");

    return CHAINDATA_RUNE_ID_KEY_LEN + 4
           + chaindata_rune_entry_size(chaindata_jv_get(e, "rune"),
                                       chaindata_rune_ref, NULL)
           + 4
           + chaindata_rune_entry_size(e, chaindata_rune_activity_entry,
                                       "rune") - 1
           + 1 + (a && a->len <= CHAINDATA_RUNE_ADDRESS_MAX ? a->len : 0);
}


static unsigned char *
chaindata_rune_block_entry_write(unsigned char *p, const chaindata_jv_t *e)
{
    size_t                 n;
    unsigned char         *at;
    const chaindata_jv_t  *rune, *id, *a;

    rune = chaindata_jv_get(e, "rune");
    id = chaindata_jv_get(rune, "id");
    a = chaindata_rune_optional(e, "address");

    (void) chaindata_rune_id_key(p, id->str, id->len);
    p += CHAINDATA_RUNE_ID_KEY_LEN;

    at = p;
    p = chaindata_rune_entry_put(p + 4, rune, chaindata_rune_ref, NULL);
    chaindata_put_u32be(at, (uint32_t) (p - at - 4));

    /* the entry without its rune, from its first member on */
    at = p;
    p = chaindata_rune_entry_put(p + 3, e, chaindata_rune_activity_entry,
                                 "rune");
    n = p - (at + 4);                   /* the '{' at at + 3 goes */
    chaindata_put_u32be(at, (uint32_t) n);

    if (a == NULL || a->len > CHAINDATA_RUNE_ADDRESS_MAX) {
        *p++ = 0;
        return p;
    }

    *p++ = (unsigned char) a->len;

    return (unsigned char *) memcpy(p, a->str, a->len) + a->len;
}


/* the op BLOCK: the height, the count, the hash, the entries */

static int
chaindata_rune_block_op(chaindata_record_t *rec,
    const chaindata_rune_block_t *b, const chaindata_jv_t *results,
    chaindata_writeset_t *ws)
{
    size_t                 size;
    unsigned char         *p;
    const chaindata_jv_t  *e;

    size = 12 + (results->n ? CHAINDATA_RUNE_HASH_LEN : 0);

    for (e = results->child; e; e = e->next) {
        size += chaindata_rune_block_entry_size(e);
    }

    p = chaindata_writeset_op(ws, CHAINDATA_RUNES_OP_BLOCK, size);
    if (p == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    chaindata_put_u64be(p, b->h);
    chaindata_put_u32be(p + 8, (uint32_t) results->n);
    p += 12;

    if (results->n == 0) {
        return 0;
    }

    (void) chaindata_hex_decode(p, b->hash->str, b->hash->len);
    p += CHAINDATA_RUNE_HASH_LEN;

    for (e = results->child; e; e = e->next) {
        p = chaindata_rune_block_entry_write(p, e);
    }

    return 0;
}


static int
chaindata_rune_block_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    chaindata_rune_block_t     b;
    const chaindata_jv_t      *results;
    chaindata_writeset_mark_t  mark;

    b.height = chaindata_jv_get(envelope, "block_height");
    b.hash = chaindata_jv_get(envelope, "block_hash");
    results = chaindata_jv_get(envelope, "results");

    if (b.height == NULL || chaindata_jv_to_u64(b.height, &b.h) != 0) {
        return chaindata_record_fail(rec, "block_height must be an integer "
                                     "from 0 to 18446744073709551615");
    }

    if (results == NULL || results->type != CHAINDATA_JV_ARRAY) {
        return chaindata_record_fail(rec, "results is missing or not an "
                                     "array (an empty one removes the "
                                     "block)");
    }

    if ((b.hash || results->n)
        && (b.hash == NULL || b.hash->type != CHAINDATA_JV_STRING
            || b.hash->len != CHAINDATA_TXID_HEX_LEN
            || !chaindata_hex_is_lower(b.hash->str, b.hash->len)))
    {
        return chaindata_record_fail(rec, "block_hash must be 64 lowercase "
                                     "hex digits%s", b.hash ? ""
                                     : " (it may be absent only when "
                                       "results is empty)");
    }

    if (results->n > UINT32_MAX) {
        return chaindata_record_fail(rec, "too many results");
    }

    if (chaindata_rune_check_entries(rec, &chaindata_rune_block_list,
                                     results, (const unsigned char *) &b,
                                     sizeof(b))
        != 0
        || chaindata_rune_block_order(rec, results) != 0)
    {
        return -1;
    }

    chaindata_writeset_mark(ws, &mark);

    if (chaindata_rune_block_op(rec, &b, results, ws) != 0) {
        return -1;
    }

    rec->kind = results->n ? CHAINDATA_REC_RUNE_BLOCK_PUT
                           : CHAINDATA_REC_RUNE_BLOCK_DELETE;

    return chaindata_rune_mix(rec, ws, &mark, "rune_block");
}


const chaindata_kind_t  chaindata_kind_rune_block = {
    "rune_block",
    chaindata_rune_block_members,
    NULL,
    chaindata_rune_block_put,
    NULL
};
