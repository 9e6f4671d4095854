
/*
 * chaindata: the index's schema version and named databases, and opening
 * them with the version checked, the one check both the module and the
 * loader make before they use an index (lmdb-schema/README.md,
 * "Versioning").
 *
 * No nginx headers here; LMDB only.
 */


#ifndef _CHAINDATA_SCHEMA_H_INCLUDED_
#define _CHAINDATA_SCHEMA_H_INCLUDED_


#include <lmdb.h>


/* bump when any key or value layout changes; the module refuses others */
#define CHAINDATA_SCHEMA_VERSION      "6"

#define CHAINDATA_MAX_DBS             16

/*
 * Slots of LMDB's reader table (mdb_env_set_maxreaders), the loader's
 * and the module's default, and the most either accepts: the first
 * process to open lock.mdb while nobody has it open sizes the table.
 */
#define CHAINDATA_MAX_READERS         4096
#define CHAINDATA_MAX_READERS_LIMIT   1048576

#define CHAINDATA_DB_META             "meta"
#define CHAINDATA_DB_TX               "tx"
#define CHAINDATA_DB_TX_EVENT         "tx_event"
#define CHAINDATA_DB_CHAINHOOK        "chainhook"
#define CHAINDATA_DB_RUNE_ACTIVITY    "rune_activity"
#define CHAINDATA_DB_RUNE_ACTIVITY_ENTRY                           \
    "rune_activity_entry"
#define CHAINDATA_DB_RUNE_BALANCES    "rune_balances"
#define CHAINDATA_DB_RUNE_BALANCE_ENTRY                            \
    "rune_balance_entry"
#define CHAINDATA_DB_FEED             "feed"
#define CHAINDATA_DB_BLOCK            "block"
#define CHAINDATA_DB_TX_V3            "tx_v3"
#define CHAINDATA_DB_TX_V3_EVENT      "tx_v3_event"

#define CHAINDATA_META_SCHEMA         "schema_version"


/* the named databases, in the order chaindata_db_names lists */
typedef enum {
    CHAINDATA_DBI_META = 0,
    CHAINDATA_DBI_TX,
    CHAINDATA_DBI_TX_EVENT,
    CHAINDATA_DBI_CHAINHOOK,
    CHAINDATA_DBI_RUNE_ACTIVITY,
    CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY,
    CHAINDATA_DBI_RUNE_BALANCES,
    CHAINDATA_DBI_RUNE_BALANCE_ENTRY,
    CHAINDATA_DBI_FEED,
    CHAINDATA_DBI_BLOCK,
    CHAINDATA_DBI_TX_V3,
    CHAINDATA_DBI_TX_V3_EVENT,
    CHAINDATA_DBI_COUNT
} chaindata_dbi_e;

extern const char *chaindata_db_names[CHAINDATA_DBI_COUNT];


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
