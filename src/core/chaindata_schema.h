
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

#include "chaindata_layout.h"


/* bump when any key or value layout changes; the module refuses others */
#define CHAINDATA_SCHEMA_VERSION      "7"

#define CHAINDATA_MAX_DBS             32

/*
 * Slots of LMDB's reader table (mdb_env_set_maxreaders), the loader's
 * and the module's default, and the most either accepts: the first
 * process to open lock.mdb while nobody has it open sizes the table.
 */
#define CHAINDATA_MAX_READERS         4096
#define CHAINDATA_MAX_READERS_LIMIT   1048576

#define CHAINDATA_META_SCHEMA         "schema_version"


/*
 * The named databases, one line each and the one place they are written
 * (lmdb-schema/README.md, "Environment"):
 *
 *   X(id, name, flags, part)
 *
 * id names the handle, CHAINDATA_DBI_<id>; name is the database's;
 * flags are its mdb_dbi_open() flags (MDB_CREATE aside: the loader adds
 * it), none while every key is a byte string; part is the key and value
 * bytes of a part's node (chaindata_parts.h, lmdb-schema/README.md
 * "Values in parts"), 0 when the database keeps every value whole.  The
 * order is the handles', chaindata_db_names' and the status' lists'.
 */
#define CHAINDATA_DB_LIST(X)                                                \
    X(META, "meta", 0, 0)                                                   \
    X(TX, "tx", 0, CHAINDATA_NODE_MAX)                                      \
    X(TX_EVENT, "tx_event", 0, CHAINDATA_NODE_THIRD)                        \
    X(CHAINHOOK, "chainhook", 0, 0)                                         \
    X(RUNE_ACTIVITY, "rune_activity", 0, 0)                                 \
    X(RUNE_ACTIVITY_ENTRY, "rune_activity_entry", 0, 0)                     \
    X(RUNE_BALANCES, "rune_balances", 0, 0)                                 \
    X(RUNE_BALANCE_ENTRY, "rune_balance_entry", 0, 0)                       \
    X(FEED, "feed", 0, 0)                                                   \
    X(BLOCK, "block", 0, 0)                                                 \
    X(TX_V3, "tx_v3", 0, CHAINDATA_NODE_MAX)                                \
    X(TX_V3_EVENT, "tx_v3_event", 0, CHAINDATA_NODE_THIRD)                  \
    X(RUNE_ETCHING, "rune_etching", 0, 0)                                   \
    X(RUNE_NAME, "rune_name", 0, 0)                                         \
    X(RUNE_REF, "rune_ref", 0, 0)                                           \
    X(RUNE_BLOCK, "rune_block", 0, 0)                                       \
    X(RUNE_LEDGER, "rune_ledger", 0, 0)                                     \
    X(RUNE_LIST, "rune_list", 0, 0)                                         \
    X(RUNE_LIST_ENTRY, "rune_list_entry", 0, 0)                             \
    X(RUNE_HOLDER, "rune_holder", 0, 0)                                     \
    X(RUNE_HOLDING, "rune_holding", 0, 0)

#define CHAINDATA_DB_ID(id, name, flags, part)  CHAINDATA_DBI_##id,

typedef enum {
    CHAINDATA_DB_LIST(CHAINDATA_DB_ID)
    CHAINDATA_DBI_COUNT
} chaindata_dbi_e;

#undef CHAINDATA_DB_ID

#if (CHAINDATA_DBI_COUNT > CHAINDATA_MAX_DBS)
#error "more named databases than mdb_env_set_maxdbs() is given"
#endif

/* the databases' names and mdb_dbi_open() flags, by handle */
extern const char *chaindata_db_names[CHAINDATA_DBI_COUNT];
extern const unsigned  chaindata_db_flags[CHAINDATA_DBI_COUNT];


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
