
/*
 * chaindata: a run of keys in an LMDB database (see the header).
 */


#include <string.h>

#include "chaindata_key_run.h"


static int
chaindata_key_run_holds(const MDB_val *key, const MDB_val *from, size_t same,
    size_t len)
{
    if (key->mv_size < same || (len != 0 && key->mv_size != len)) {
        return 0;
    }

    return memcmp(key->mv_data, from->mv_data, same) == 0;
}


int
chaindata_key_run_delete(MDB_txn *txn, MDB_dbi dbi, const MDB_val *from,
    size_t same, size_t len)
{
    int          rc;
    MDB_val      key, val;
    MDB_cursor  *cur;

    rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc != 0) {
        return rc;
    }

    for ( ;; ) {
        key = *from;

        rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
        if (rc != 0) {
            break;
        }

        if (!chaindata_key_run_holds(&key, from, same, len)) {
            break;
        }

        rc = mdb_cursor_del(cur, 0);
        if (rc != 0) {
            break;
        }
    }

    mdb_cursor_close(cur);

    return rc == MDB_NOTFOUND ? 0 : rc;
}
