
/*
 * chaindata: what the ops of the rune records share in the write
 * transaction (see chaindata_runes_op.h): reads and writes, a list's end,
 * a document parsed.
 */


#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "chaindata_int.h"
#include "chaindata_runes_op.h"


int
chaindata_runes_refuse(chaindata_runes_txn_t *t, const char *fmt, ...)
{
    va_list  args;

    va_start(args, fmt);
    vsnprintf(t->err, sizeof(t->err), fmt, args);
    va_end(args);

    return CHAINDATA_RUNES_REFUSED;
}


int
chaindata_runes_get(chaindata_runes_txn_t *t, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len, MDB_val *val)
{
    MDB_val  k;

    k.mv_data = (void *) key;
    k.mv_size = key_len;

    return mdb_get(t->txn, t->dbi[db], &k, val);
}


int
chaindata_runes_put(chaindata_runes_txn_t *t, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len, const unsigned char *val,
    size_t val_len)
{
    MDB_val  k, v;

    k.mv_data = (void *) key;
    k.mv_size = key_len;
    v.mv_data = (void *) val;
    v.mv_size = val_len;

    return mdb_put(t->txn, t->dbi[db], &k, &v, 0);
}


int
chaindata_runes_del(chaindata_runes_txn_t *t, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len)
{
    int      rc;
    MDB_val  k;

    k.mv_data = (void *) key;
    k.mv_size = key_len;

    rc = mdb_del(t->txn, t->dbi[db], &k, NULL);

    return rc == MDB_NOTFOUND ? 0 : rc;
}


/* a list's count: 0 when it has none; refused when it is not one */

static int
chaindata_runes_list_count(chaindata_runes_txn_t *t,
    const unsigned char *key, size_t key_len, uint32_t *count)
{
    int      rc;
    MDB_val  v;

    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_LIST, key, key_len, &v);

    if (rc == MDB_NOTFOUND) {
        *count = 0;
        return 0;
    }

    if (rc == 0
        && chaindata_rune_list_count(v.mv_data, v.mv_size, count) != 0)
    {
        return chaindata_runes_refuse(t, "the index is damaged: a "
                                      "rune_list count of %zu bytes",
                                      v.mv_size);
    }

    return rc;
}


static int
chaindata_runes_list_set(chaindata_runes_txn_t *t,
    const unsigned char *key, size_t key_len, uint32_t count)
{
    unsigned char  v[CHAINDATA_RUNE_LIST_VALUE_LEN];

    if (count == 0) {
        return chaindata_runes_del(t, CHAINDATA_DBI_RUNE_LIST, key, key_len);
    }

    chaindata_put_u32le(v, count);

    return chaindata_runes_put(t, CHAINDATA_DBI_RUNE_LIST, key, key_len, v,
                               sizeof(v));
}


int
chaindata_runes_list_add(chaindata_runes_txn_t *t,
    const unsigned char *list_key, size_t list_key_len,
    const unsigned char *ledger_key)
{
    int            rc;
    size_t         n;
    uint32_t       count;
    unsigned char  key[CHAINDATA_RUNE_LIST_ENTRY_KEY_MAX];

    rc = chaindata_runes_list_count(t, list_key, list_key_len, &count);
    if (rc != 0) {
        return rc;
    }

    if (count == UINT32_MAX) {
        return chaindata_runes_refuse(t, "a rune list holds 4294967295 "
                                      "entries, the most it can");
    }

    if (ledger_key) {
        n = chaindata_rune_list_entry_key(key, list_key, list_key_len,
                                          count);
        rc = chaindata_runes_put(t, CHAINDATA_DBI_RUNE_LIST_ENTRY, key, n,
                                 ledger_key, CHAINDATA_RUNE_LEDGER_KEY_LEN);
        if (rc != 0) {
            return rc;
        }
    }

    return chaindata_runes_list_set(t, list_key, list_key_len, count + 1);
}


int
chaindata_runes_list_drop(chaindata_runes_txn_t *t,
    const unsigned char *list_key, size_t list_key_len,
    const unsigned char *ledger_key)
{
    int            rc;
    size_t         n;
    MDB_val        v;
    uint32_t       count;
    unsigned char  key[CHAINDATA_RUNE_LIST_ENTRY_KEY_MAX];

    rc = chaindata_runes_list_count(t, list_key, list_key_len, &count);
    if (rc != 0) {
        return rc;
    }

    if (count == 0) {
        return chaindata_runes_refuse(t, "the index is damaged: the rune "
                                      "list '%c' an entry is taken off is "
                                      "empty (rebuild the index)",
                                      list_key[0]);
    }

    if (ledger_key) {
        n = chaindata_rune_list_entry_key(key, list_key, list_key_len,
                                          count - 1);
        rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_LIST_ENTRY, key, n,
                                 &v);

        if (rc == 0
            && (v.mv_size != CHAINDATA_RUNE_LEDGER_KEY_LEN
                || memcmp(v.mv_data, ledger_key, v.mv_size) != 0))
        {
            rc = MDB_NOTFOUND;
        }

        if (rc == MDB_NOTFOUND) {
            return chaindata_runes_refuse(t, "the index is damaged: the "
                       "rune list '%c' does not end with the entry of "
                       "block %llu at position %u taken off it (rebuild "
                       "the index)", list_key[0],
                       (unsigned long long)
                           chaindata_rune_ledger_height(ledger_key),
                       chaindata_rune_ledger_position(ledger_key));
        }

        rc = rc ? rc : chaindata_runes_del(t, CHAINDATA_DBI_RUNE_LIST_ENTRY,
                                           key, n);
        if (rc != 0) {
            return rc;
        }
    }

    return chaindata_runes_list_set(t, list_key, list_key_len, count - 1);
}


chaindata_jv_t *
chaindata_runes_parse(chaindata_runes_txn_t *t, const unsigned char *json,
    size_t len)
{
    char  err[128];

    return chaindata_jdoc_parse(t->arena, json, len, err, sizeof(err));
}
