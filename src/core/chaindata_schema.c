
/*
 * chaindata: the named databases and the schema version (see the header).
 */


#include <stdio.h>
#include <string.h>

#include "chaindata_schema.h"


#define CHAINDATA_DB_NAME(id, name, flags, part)   name,
#define CHAINDATA_DB_FLAGS(id, name, flags, part)  flags,

const char *chaindata_db_names[CHAINDATA_DBI_COUNT] = {
    CHAINDATA_DB_LIST(CHAINDATA_DB_NAME)
};

const unsigned  chaindata_db_flags[CHAINDATA_DBI_COUNT] = {
    CHAINDATA_DB_LIST(CHAINDATA_DB_FLAGS)
};


static const char *
chaindata_schema_fail(char *err, int *mdb_rc, int rc, const char *reason)
{
    *mdb_rc = rc;
    snprintf(err, CHAINDATA_SCHEMA_ERR_LEN, "%s", reason);

    return err;
}


/* an index without a version: a new one gets it, others are refused */

static const char *
chaindata_schema_stamp(MDB_txn *txn, unsigned flags, MDB_dbi *dbi,
    int *mdb_rc, char *err)
{
    int       rc;
    MDB_val   key, val;
    MDB_stat  st;

    if (!(flags & CHAINDATA_SCHEMA_WRITE)) {
        return chaindata_schema_fail(err, mdb_rc, 0,
                   "not a chaindata index (no schema version)");
    }

    if (mdb_stat(txn, dbi[CHAINDATA_DBI_TX], &st) == 0
        && st.ms_entries != 0)
    {
        return chaindata_schema_fail(err, mdb_rc, 0,
                   "the index holds transactions but no schema version: "
                   "not a chaindata index");
    }

    key.mv_data = CHAINDATA_META_SCHEMA;
    key.mv_size = sizeof(CHAINDATA_META_SCHEMA) - 1;
    val.mv_data = CHAINDATA_SCHEMA_VERSION;
    val.mv_size = sizeof(CHAINDATA_SCHEMA_VERSION) - 1;

    rc = mdb_put(txn, dbi[CHAINDATA_DBI_META], &key, &val, 0);

    if (rc != 0) {
        return chaindata_schema_fail(err, mdb_rc, rc,
                                     "cannot write the schema version");
    }

    return NULL;
}


const char *
chaindata_schema_open(MDB_txn *txn, unsigned flags, MDB_dbi *dbi,
    int *mdb_rc, char *err)
{
    int       rc, i;
    MDB_val   key, val;
    unsigned  create;

    *mdb_rc = 0;
    create = (flags & CHAINDATA_SCHEMA_WRITE) ? MDB_CREATE : 0;

    for (i = 0; i < CHAINDATA_DBI_COUNT; i++) {
        rc = mdb_dbi_open(txn, chaindata_db_names[i],
                          chaindata_db_flags[i] | create, &dbi[i]);

        if (rc == MDB_NOTFOUND) {
            return chaindata_schema_fail(err, mdb_rc, 0,
                       "not a chaindata index of this version (a named "
                       "database is missing; chaindata-load creates it)");
        }

        if (rc != 0) {
            return chaindata_schema_fail(err, mdb_rc, rc,
                                         "cannot open a named database");
        }
    }

    key.mv_data = CHAINDATA_META_SCHEMA;
    key.mv_size = sizeof(CHAINDATA_META_SCHEMA) - 1;

    rc = mdb_get(txn, dbi[CHAINDATA_DBI_META], &key, &val);

    if (rc == MDB_NOTFOUND) {
        return chaindata_schema_stamp(txn, flags, dbi, mdb_rc, err);
    }

    if (rc != 0) {
        return chaindata_schema_fail(err, mdb_rc, rc,
                                     "cannot read the schema version");
    }

    if (val.mv_size == sizeof(CHAINDATA_SCHEMA_VERSION) - 1
        && memcmp(val.mv_data, CHAINDATA_SCHEMA_VERSION, val.mv_size) == 0)
    {
        return NULL;
    }

    if (flags & CHAINDATA_SCHEMA_WRITE) {
        snprintf(err, CHAINDATA_SCHEMA_ERR_LEN,
                 "the index has schema version %.*s, this loader writes "
                 "version " CHAINDATA_SCHEMA_VERSION "; rebuild the index "
                 "into a new directory",
                 (int) (val.mv_size > 16 ? 16 : val.mv_size),
                 (char *) val.mv_data);
        return err;
    }

    return chaindata_schema_fail(err, mdb_rc, 0,
               "the index has another schema version than this module "
               "reads (" CHAINDATA_SCHEMA_VERSION "): rebuild it with the "
               "chaindata-load of this release");
}
