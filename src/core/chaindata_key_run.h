
/*
 * chaindata: a run of keys in an LMDB database, the keys from one on in
 * order that begin with its first bytes: the records under a prefix (a
 * block's, an address's), or a value's parts after its key
 * (chaindata_parts.h).
 *
 * No nginx headers here; LMDB only.
 */


#ifndef _CHAINDATA_KEY_RUN_H_INCLUDED_
#define _CHAINDATA_KEY_RUN_H_INCLUDED_


#include <stddef.h>

#include <lmdb.h>


/*
 * Deletes in dbi the keys from "from" on, in order, while they begin with
 * its first "same" bytes and, when len is not 0, are len bytes long.
 * 0 (none is 0 too) or LMDB's error.
 */
int chaindata_key_run_delete(MDB_txn *txn, MDB_dbi dbi, const MDB_val *from,
    size_t same, size_t len);


#endif /* _CHAINDATA_KEY_RUN_H_INCLUDED_ */
