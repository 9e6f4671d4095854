
/*
 * Unit tests: the index rewritten compact in place
 * (chaindata_index_compact()): three commits of keys spread over the
 * tree leave free pages; the compaction gives them all back, keeps every
 * record, and leaves both meta pages of the new data.mdb at the old
 * file's last commit, whose other meta page is the commit just before
 * (the schema version written again as it was): whichever meta page a
 * reader's lock file picks, in either file, names the same contents.
 * Another writer holding the index open makes it refuse, the index as
 * it was.
 */


#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chaindata_data_file.h"
#include "chaindata_index.h"
#include "unit.h"


#define COMPACT_KEYS  3000


/* the transaction ids of DIR/name's two meta pages */

static int
compact_metas(const char *dir, const char *name, size_t psize,
    uint64_t *t0, uint64_t *t1)
{
    int   rc;
    char  path[256];
    FILE  *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);

    f = fopen(path, "rb");
    if (f == NULL) {
        return -1;
    }

    rc = fseek(f, CHAINDATA_META_OFF + CHAINDATA_META_TXNID, SEEK_SET) == 0
         && fread(t0, sizeof(*t0), 1, f) == 1
         && fseek(f, psize + CHAINDATA_META_OFF + CHAINDATA_META_TXNID,
                  SEEK_SET) == 0
         && fread(t1, sizeof(*t1), 1, f) == 1 ? 0 : -1;

    fclose(f);

    return rc;
}


/* a commit of COMPACT_KEYS keys spread over the tree, values of round r */

static int
compact_commit(chaindata_index_t *ix, unsigned r)
{
    unsigned  i;
    char      k[16], v[100];
    MDB_val   key, val;
    MDB_txn  *txn;

    if (mdb_txn_begin(ix->env, NULL, 0, &txn) != 0) {
        return -1;
    }

    for (i = 0; i < COMPACT_KEYS; i++) {
        key.mv_size = snprintf(k, sizeof(k), "k%08x", i * 2654435761u);
        key.mv_data = k;
        memset(v, 'a' + r, sizeof(v));
        val.mv_size = sizeof(v);
        val.mv_data = v;

        if (mdb_put(txn, ix->dbi[CHAINDATA_DBI_META], &key, &val, 0) != 0) {
            mdb_txn_abort(txn);
            return -1;
        }
    }

    return mdb_txn_commit(txn) == 0 ? 0 : -1;
}


/* the value of key i, its first byte: 0 when not there */

static int
compact_value(chaindata_index_t *ix, unsigned i)
{
    int       c;
    char      k[16];
    MDB_val   key, val;
    MDB_txn  *txn;

    if (mdb_txn_begin(ix->env, NULL, MDB_RDONLY, &txn) != 0) {
        return 0;
    }

    key.mv_size = snprintf(k, sizeof(k), "k%08x", i * 2654435761u);
    key.mv_data = k;

    c = mdb_get(txn, ix->dbi[CHAINDATA_DBI_META], &key, &val) == 0
        && val.mv_size == 100 ? ((char *) val.mv_data)[0] : 0;

    mdb_txn_abort(txn);

    return c;
}


void
test_compact(void)
{
    int                rc;
    char               dir[] = "/tmp/chaindata-unit-XXXXXX", err[512];
    char               path[128], old[128], cmd[64];
    size_t             used, free, used2, free2;
    uint64_t           o0, o1, n0, n1, last;
    MDB_stat           st;
    MDB_envinfo        info;
    chaindata_index_t  ix, other;

    memset(&ix, 0, sizeof(ix));

    if (mkdtemp(dir) == NULL) {
        ok(0, "compact: a temporary index");
        return;
    }

    ix.prog = "chaindata-unit";
    ix.path = dir;
    ix.map_size = (size_t) 64 << 20;
    ix.max_map_size = (size_t) 64 << 20;
    other = ix;

    if (chaindata_index_open(&ix) != 0) {
        ok(0, "compact: a temporary index");
        return;
    }

    ok(compact_commit(&ix, 0) == 0 && compact_commit(&ix, 1) == 0
       && compact_commit(&ix, 2) == 0, "compact: three commits");

    rc = chaindata_index_pages(&ix, &used, &free);
    ok(rc == 0 && free > used / 4, "compact: their copies leave free pages");

    /* another writer has the index open: refused, nothing changed */
    ok(chaindata_index_open(&other) == 0, "compact: a second writer");
    mdb_env_info(ix.env, &info);
    last = info.me_last_txnid;
    rc = chaindata_index_compact(&ix, err, sizeof(err));
    ok(rc == 1 && strstr(err, "another writer") != NULL,
       "compact: refused while another writer has the index open");
    mdb_env_info(ix.env, &info);
    ok(info.me_last_txnid == last, "compact: refused, nothing committed");
    chaindata_index_close(&other);

    /* the old file kept under another name, as a reader's map keeps it */
    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    snprintf(old, sizeof(old), "%s/old.mdb", dir);
    ok(link(path, old) == 0, "compact: the old file kept");

    rc = chaindata_index_compact(&ix, err, sizeof(err));
    ok(rc == 0, "compact: done");
    if (rc != 0) {
        printf("# %s\n", err);
    }

    rc = chaindata_index_pages(&ix, &used2, &free2);
    ok(rc == 0 && free2 == 0 && used2 + free <= used + 8,
       "compact: every free page given back");
    ok(compact_value(&ix, 0) == 'c' && compact_value(&ix, COMPACT_KEYS - 1)
       == 'c', "compact: the records kept");

    mdb_env_stat(ix.env, &st);
    mdb_env_info(ix.env, &info);
    ok(compact_metas(dir, "data.mdb", st.ms_psize, &n0, &n1) == 0
       && n0 == last + 1 && n1 == last + 1
       && info.me_last_txnid == last + 1,
       "compact: both meta pages of the copy at the last commit");
    ok(compact_metas(dir, "old.mdb", st.ms_psize, &o0, &o1) == 0
       && (o0 > o1 ? o0 : o1) == last + 1 && (o0 > o1 ? o1 : o0) == last,
       "compact: the old file's at it and the commit before");
    snprintf(path, sizeof(path), "%s/data.mdb.compact", dir);
    ok(access(path, F_OK) != 0, "compact: no copy left");

    ok(compact_commit(&ix, 3) == 0 && compact_value(&ix, 7) == 'd',
       "compact: written after");

    chaindata_index_close(&ix);

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);

    if (system(cmd) != 0) {
        ok(0, "compact: the temporary index removed");
    }
}
