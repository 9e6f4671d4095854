
/*
 * chaindata: "rune_balances" records.
 *
 *   {"kind":"rune_balances","address":"<address>","results":[<entry>, ...]}
 *
 * Each replaces the whole list of balances of its address, in the order
 * given, which is the order served; "results":[] deletes it.  The entries
 * are checked and stored as chaindata_record_rune.c does for both lists.
 * See lmdb-schema/runes.md.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_int.h"
#include "chaindata_record_rune.h"
#include "chaindata_runes_op.h"
#include "chaindata_field_letters.h"


typedef struct {
    const unsigned char  *id;
    size_t                len;
    size_t                index;
} chaindata_rune_ref_t;


static int chaindata_check_holder(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const unsigned char *key,
    size_t key_len, const char *path);
static int chaindata_check_unique_runes(chaindata_record_t *rec,
    const chaindata_jv_t *results);
static int chaindata_holders_op(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, const chaindata_jv_t *results,
    const unsigned char *key, size_t key_len, chaindata_writeset_t *ws);


/* lmdb-schema/runes.md, "rune_balances": an entry; the order is upstream's */
static const chaindata_field_t  chaindata_balance[] = {
    { "rune", O, R, chaindata_rune_ref, NULL },
    { "balance", S, R, NULL, chaindata_rune_check_amount },
    { "address", S, 0, NULL, chaindata_rune_check_address },
    { NULL, 0, 0, NULL, NULL }
};


static const chaindata_field_t  chaindata_balances_members[] = {
    { .name = "kind" }, { .name = "address" }, { .name = "results" },
    { .name = NULL }
};


static const chaindata_rune_list_t  chaindata_balances_list = {
    chaindata_balance,
    chaindata_check_holder,
    chaindata_check_unique_runes,
    chaindata_holders_op,
    CHAINDATA_DBI_RUNE_BALANCES,
    CHAINDATA_DBI_RUNE_BALANCE_ENTRY,
    CHAINDATA_REC_RUNE_BALANCES_PUT,
    CHAINDATA_REC_RUNE_BALANCES_DELETE
};


/* a balance's address, when given, is the record's */

static int
chaindata_check_holder(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const unsigned char *key,
    size_t key_len, const char *path)
{
    size_t                 len;
    unsigned char          own[CHAINDATA_LIST_KEY_MAX];
    const chaindata_jv_t  *address;

    address = chaindata_rune_optional(entry, "address");

    if (address == NULL) {
        return 0;
    }

    len = chaindata_address_key(own, address->str, address->len);

    if (len != key_len || memcmp(own, key, len) != 0) {
        return chaindata_record_fail(rec,
                   "%s.address must be the record's address", path);
    }

    return 0;
}


static int
chaindata_rune_ref_cmp(const void *a, const void *b)
{
    int                          rc;
    const chaindata_rune_ref_t  *x = a, *y = b;

    rc = memcmp(x->id, y->id, x->len < y->len ? x->len : y->len);

    if (rc) {
        return rc;
    }

    if (x->len != y->len) {
        return (x->len > y->len) - (x->len < y->len);
    }

    return (x->index > y->index) - (x->index < y->index);
}


/* an address holds one balance per rune */

static int
chaindata_check_unique_runes(chaindata_record_t *rec,
    const chaindata_jv_t *results)
{
    size_t                 i;
    chaindata_rune_ref_t  *refs;
    const chaindata_jv_t  *entry, *id;

    refs = chaindata_arena_alloc(rec->arena,
                                 (results->n + 1) * sizeof(*refs));
    if (refs == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    for (i = 0, entry = results->child; entry; entry = entry->next, i++) {
        id = chaindata_jv_get(chaindata_jv_get(entry,
                                               "rune"),
                              "id");
        refs[i].id = id->str;
        refs[i].len = id->len;
        refs[i].index = i;
    }

    qsort(refs, results->n, sizeof(*refs), chaindata_rune_ref_cmp);

    for (i = 1; i < results->n; i++) {
        if (refs[i].len == refs[i - 1].len
            && memcmp(refs[i].id, refs[i - 1].id, refs[i].len) == 0)
        {
            return chaindata_record_fail(rec,
                       "results[%zu] and results[%zu] are both balances of "
                       "rune %.40s", refs[i - 1].index, refs[i].index,
                       refs[i].id);
        }
    }

    return 0;
}


/*
 * The op that replaces the address's holders (chaindata_runes_op.h,
 * HOLDERS), before the list's writes: it reads the list they replace.
 */

static int
chaindata_holders_op(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, const chaindata_jv_t *results,
    const unsigned char *key, size_t key_len, chaindata_writeset_t *ws)
{
    size_t                 size;
    unsigned char         *p;
    const chaindata_jv_t  *address, *e, *id, *a, *balance;

    address = chaindata_jv_get(envelope, "address");
    size = key_len + 1 + address->len + 4;

    for (e = results->child; e; e = e->next) {
        a = chaindata_rune_optional(e, "address");
        balance = chaindata_jv_get(e, "balance");
        size += CHAINDATA_RUNE_ID_KEY_LEN + 2 + (a ? a->len : 0)
                + balance->len;
    }

    p = chaindata_writeset_op(ws, CHAINDATA_RUNES_OP_HOLDERS, size);
    if (p == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    p = (unsigned char *) memcpy(p, key, key_len) + key_len;
    *p++ = (unsigned char) address->len;
    p = (unsigned char *) memcpy(p, address->str, address->len)
        + address->len;
    chaindata_put_u32be(p, (uint32_t) results->n);
    p += 4;

    for (e = results->child; e; e = e->next) {
        id = chaindata_jv_get(chaindata_jv_get(e, "rune"), "id");
        a = chaindata_rune_optional(e, "address");
        balance = chaindata_jv_get(e, "balance");

        (void) chaindata_rune_id_key(p, id->str, id->len);
        p += CHAINDATA_RUNE_ID_KEY_LEN;
        *p++ = (unsigned char) (a ? a->len : 0);

        if (a) {
            p = (unsigned char *) memcpy(p, a->str, a->len) + a->len;
        }

        *p++ = (unsigned char) balance->len;
        p = (unsigned char *) memcpy(p, balance->str, balance->len)
            + balance->len;
    }

    return 0;
}


static int
chaindata_rune_balances_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    size_t                     key_len;
    unsigned char              key[CHAINDATA_LIST_KEY_MAX];
    const chaindata_jv_t      *address;
    chaindata_writeset_mark_t  mark;

    address = chaindata_jv_get(envelope, "address");
    key_len = 0;

    if (address && address->type == CHAINDATA_JV_STRING) {
        key_len = chaindata_address_key(key, address->str,
                                        address->len);
    }

    if (key_len == 0) {
        return chaindata_record_fail(rec,
                   "address must be a Bitcoin address (base58, or bech32 "
                   "in one case)");
    }

    chaindata_writeset_mark(ws, &mark);

    if (chaindata_rune_list(rec, &chaindata_balances_list, envelope, key,
                            key_len, ws)
        != 0)
    {
        return -1;
    }

    return chaindata_rune_mix(rec, ws, &mark, "rune_balances");
}


const chaindata_kind_t  chaindata_kind_rune_balances = {
    "rune_balances",
    chaindata_balances_members,
    NULL,
    chaindata_rune_balances_put,
    NULL
};
