
/*
 * chaindata: opening the index's named databases and checking its schema
 * version, the one check both the module and the loader make before they
 * use an index (lmdb-schema/README.md, "Versioning").
 *
 * No nginx headers here; LMDB only.
 */


#ifndef _CHAINDATA_SCHEMA_H_INCLUDED_
#define _CHAINDATA_SCHEMA_H_INCLUDED_


#include <lmdb.h>


/* the loader: create what is missing, write the version into a new index */
#define CHAINDATA_SCHEMA_WRITE     0x01

/* room for the reason chaindata_schema_open gives */
#define CHAINDATA_SCHEMA_ERR_LEN   160


/*
 * Opens the named databases in txn into dbi (CHAINDATA_DBI_COUNT handles)
 * and checks the schema version.  Returns NULL, or why the index cannot
 * be used, written into err (CHAINDATA_SCHEMA_ERR_LEN bytes); *mdb_rc is
 * the LMDB error behind it, or 0.  The caller aborts txn on a failure.
 */
const char *chaindata_schema_open(MDB_txn *txn, unsigned flags,
    MDB_dbi *dbi, int *mdb_rc, char *err);


#endif /* _CHAINDATA_SCHEMA_H_INCLUDED_ */
