
/*
 * Unit tests: values kept in parts (chaindata_parts.c).  Values of every
 * length around the edges (a first part's bytes less one, exactly, a rest
 * that ends on a part's end, the most parts, one byte more) written into
 * a "tx" and a "tx_event" database read back whole, byte for byte, with
 * no overflow page for any value in parts; a value rewritten shorter or
 * longer, or deleted, leaves no part of the old one; a part missing, or a
 * full last part with none after it, is told as damaged; a database that
 * keeps no value in parts keeps a value of a first part's length whole.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chaindata_index.h"
#include "chaindata_parts.h"
#include "unit.h"


#define PARTS_LENGTHS  9


/* the lengths to try in db under a key of key_len */

static void
parts_lengths(chaindata_dbi_e db, size_t key_len, size_t *len)
{
    size_t  first;

    first = chaindata_parts_node(db) - key_len;

    len[0] = 100;
    len[1] = first - 1;
    len[2] = first;
    len[3] = first + 1;
    len[4] = first + (first - 1);
    len[5] = first + 2 * (first - 1) - 1;
    len[6] = first + 5 * (first - 1) + 17;
    len[7] = first + (CHAINDATA_PARTS_MAX - 1) * (first - 1) - 1;
    len[8] = len[7] + 1;
}


static void
parts_key(unsigned char *key, size_t key_len, unsigned i)
{
    memset(key, 0x5a, key_len);
    key[key_len - 1] = (unsigned char) i;
}


static void
parts_value(unsigned char *v, size_t len, unsigned seed)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        v[i] = (unsigned char) (i * 131 + seed * 7 + (i >> 8));
    }
}


static int
parts_put(chaindata_index_t *ix, chaindata_dbi_e db, const unsigned char *k,
    size_t key_len, const unsigned char *v, size_t len)
{
    MDB_txn  *txn;
    MDB_val   key, val;

    if (mdb_txn_begin(ix->env, NULL, 0, &txn) != 0) {
        return -1;
    }

    key.mv_data = (void *) k;
    key.mv_size = key_len;
    val.mv_data = (void *) v;
    val.mv_size = len;

    if (chaindata_parts_put(txn, ix->dbi[db], db, &key, &val) != 0) {
        mdb_txn_abort(txn);
        return -1;
    }

    return mdb_txn_commit(txn);
}


/* the value under k read back as a reader does: 0, or the error */

static int
parts_get(chaindata_index_t *ix, chaindata_dbi_e db, const unsigned char *k,
    size_t key_len, unsigned char *out, size_t *len)
{
    int          rc;
    size_t       n;
    MDB_txn     *txn;
    MDB_val      key, val, part[CHAINDATA_PARTS_MAX - 1];
    MDB_cursor  *cur;

    rc = mdb_txn_begin(ix->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) {
        return rc;
    }

    key.mv_data = (void *) k;
    key.mv_size = key_len;

    cur = NULL;
    rc = mdb_cursor_open(txn, ix->dbi[db], &cur);

    if (rc == 0) {
        rc = mdb_cursor_get(cur, &key, &val, MDB_SET_KEY);
    }

    if (rc == 0 && chaindata_parts_has(db, key_len, val.mv_size)) {
        rc = chaindata_parts_read(cur, db, &key, part, &n, len);

        if (rc == 0) {
            chaindata_parts_join(out, &val, part, n);
        }

    } else if (rc == 0) {
        memcpy(out, val.mv_data, val.mv_size);
        *len = val.mv_size;
    }

    if (cur) {
        mdb_cursor_close(cur);
    }

    mdb_txn_abort(txn);

    return rc;
}


/* the records of db: keys of key_len + 1 bytes are parts */

static size_t
parts_count(chaindata_index_t *ix, chaindata_dbi_e db, size_t part_key_len,
    size_t *overflow)
{
    size_t       n;
    MDB_txn     *txn;
    MDB_val      key, val;
    MDB_stat     st;
    MDB_cursor  *cur;

    n = 0;

    if (mdb_txn_begin(ix->env, NULL, MDB_RDONLY, &txn) != 0) {
        return (size_t) -1;
    }

    mdb_stat(txn, ix->dbi[db], &st);
    *overflow = st.ms_overflow_pages;

    if (mdb_cursor_open(txn, ix->dbi[db], &cur) == 0) {
        while (mdb_cursor_get(cur, &key, &val, MDB_NEXT) == 0) {
            n += key.mv_size == part_key_len;
        }

        mdb_cursor_close(cur);
    }

    mdb_txn_abort(txn);

    return n;
}


static void
parts_db(chaindata_index_t *ix, chaindata_dbi_e db, size_t key_len,
    unsigned char *v, unsigned char *out)
{
    int             good;
    size_t          i, len[PARTS_LENGTHS], got, parts, overflow;
    unsigned char   k[64];
    char            name[96];

    parts_lengths(db, key_len, len);

    good = 1;

    for (i = 0; i < PARTS_LENGTHS; i++) {
        parts_key(k, key_len, i);
        parts_value(v, len[i], i);
        good &= parts_put(ix, db, k, key_len, v, len[i]) == 0;
    }

    snprintf(name, sizeof(name), "parts %s: values of every length written",
             chaindata_db_names[db]);
    ok(good, name);

    for (i = 0; i < PARTS_LENGTHS; i++) {
        parts_key(k, key_len, i);
        parts_value(v, len[i], i);
        good &= parts_get(ix, db, k, key_len, out, &got) == 0
                && got == len[i] && memcmp(out, v, got) == 0;
    }

    snprintf(name, sizeof(name), "parts %s: read back whole",
             chaindata_db_names[db]);
    ok(good, name);

    parts = parts_count(ix, db, key_len + 1, &overflow);

    /* 1 + 1 + 2 + 2 + 6 + 31 parts after the first ones; len[8]: whole */
    snprintf(name, sizeof(name), "parts %s: 43 parts, overflow pages only "
             "for the value over the most parts", chaindata_db_names[db]);
    ok(parts == 43 && overflow == (len[8] + 16 + 4095) / 4096, name);

    /* the one of the most parts rewritten short, then in 2 parts */
    parts_key(k, key_len, 7);
    parts_value(v, 10, 99);
    good = parts_put(ix, db, k, key_len, v, 10) == 0
           && parts_count(ix, db, key_len + 1, &overflow) == 43 - 31
           && parts_get(ix, db, k, key_len, out, &got) == 0
           && got == 10 && memcmp(out, v, 10) == 0;

    parts_value(v, len[5], 98);
    good &= parts_put(ix, db, k, key_len, v, len[5]) == 0
            && parts_count(ix, db, key_len + 1, &overflow) == 43 - 31 + 2
            && parts_get(ix, db, k, key_len, out, &got) == 0
            && got == len[5] && memcmp(out, v, got) == 0;

    snprintf(name, sizeof(name), "parts %s: rewritten, no old part left",
             chaindata_db_names[db]);
    ok(good, name);
}


static void
parts_damaged(chaindata_index_t *ix, unsigned char *v, unsigned char *out)
{
    size_t          got, first;
    MDB_txn        *txn;
    MDB_val         key;
    unsigned char   k[40];

    first = chaindata_parts_node(CHAINDATA_DBI_TX) - 32;

    /* len[6] of "tx": 6 parts after the first; its third one taken away */
    parts_key(k, 32, 6);
    k[32] = 3;
    key.mv_data = k;
    key.mv_size = 33;

    ok(mdb_txn_begin(ix->env, NULL, 0, &txn) == 0
       && mdb_del(txn, ix->dbi[CHAINDATA_DBI_TX], &key, NULL) == 0
       && mdb_txn_commit(txn) == 0, "parts: a part taken away");
    ok(parts_get(ix, CHAINDATA_DBI_TX, k, 32, out, &got)
       == CHAINDATA_PARTS_DAMAGED, "parts: a missing part is damage");

    /* a value of exactly a first part with a full part and none after */
    parts_key(k, 32, 4);
    k[32] = 2;
    ok(mdb_txn_begin(ix->env, NULL, 0, &txn) == 0
       && mdb_del(txn, ix->dbi[CHAINDATA_DBI_TX], &key, NULL) == 0
       && mdb_txn_commit(txn) == 0, "parts: an empty last part taken away");
    ok(parts_get(ix, CHAINDATA_DBI_TX, k, 32, out, &got)
       == CHAINDATA_PARTS_DAMAGED, "parts: a full last part is damage");

    /* deleted: its parts too */
    parts_key(k, 32, 5);
    key.mv_size = 32;
    ok(mdb_txn_begin(ix->env, NULL, 0, &txn) == 0
       && chaindata_parts_del(txn, ix->dbi[CHAINDATA_DBI_TX], CHAINDATA_DBI_TX,
                              &key) == 0
       && mdb_txn_commit(txn) == 0
       && parts_get(ix, CHAINDATA_DBI_TX, k, 32, out, &got) == MDB_NOTFOUND,
       "parts: deleted");

    /* "meta" keeps no value in parts: a first part's length is whole */
    parts_value(v, first, 7);
    ok(parts_put(ix, CHAINDATA_DBI_META, k, 32, v, first) == 0
       && !chaindata_parts_has(CHAINDATA_DBI_META, 32, first)
       && parts_get(ix, CHAINDATA_DBI_META, k, 32, out, &got) == 0
       && got == first && memcmp(out, v, first) == 0,
       "parts: none in a database that keeps none");
}


void
test_parts(void)
{
    char               dir[] = "/tmp/chaindata-unit-parts.XXXXXX";
    char               cmd[64];
    unsigned char     *v, *out;
    chaindata_index_t  ix;

    memset(&ix, 0, sizeof(ix));

    v = malloc(1 << 17);
    out = malloc(1 << 17);

    if (v == NULL || out == NULL || mkdtemp(dir) == NULL) {
        ok(0, "parts: a temporary index");
        free(v);
        free(out);
        return;
    }

    ix.prog = "chaindata-unit";
    ix.path = dir;
    ix.map_size = (size_t) 64 << 20;
    ix.max_map_size = (size_t) 64 << 20;

    if (chaindata_index_open(&ix) != 0) {
        ok(0, "parts: a temporary index");

    } else {
        parts_db(&ix, CHAINDATA_DBI_TX, 32, v, out);
        parts_db(&ix, CHAINDATA_DBI_TX_EVENT, 36, v, out);
        parts_damaged(&ix, v, out);
        chaindata_index_close(&ix);
    }

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);

    if (system(cmd) != 0) {
        ok(0, "parts: the temporary index removed");
    }

    free(v);
    free(out);
}
