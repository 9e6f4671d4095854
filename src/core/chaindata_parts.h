
/*
 * chaindata: a value over a leaf node kept as parts (lmdb-schema/README.md,
 * "Values in parts").  LMDB keeps a value of more than CHAINDATA_NODE_MAX
 * key and value bytes in overflow pages of its own, whole 4 KiB pages, so
 * a 2.1 KB value takes 4 KiB; and a leaf page that a big node does not
 * fit any more is left with the room it has.  In the databases that keep
 * values in parts (a part size in CHAINDATA_DB_LIST, chaindata_schema.h:
 * those of transactions and their events, all of their keys of one
 * length), a value that fills a node of the database's part size (half a
 * page, or a third) or more, up to CHAINDATA_PARTS_MAX parts, is kept as
 * its first part under its key, that node, then the rest in parts one
 * byte smaller under the key and one byte, 1, 2, ...: the next keys in
 * the tree, on the pages beside it.
 * Parts follow while they are full; the last one has fewer bytes, none
 * when the rest ends on a part's end.  A value read under its key with
 * exactly a first part's bytes has parts; any other length is the whole
 * value.
 *
 * No nginx headers here; LMDB only.  Reading allocates nothing: the
 * caller joins the parts where it keeps the value.
 */


#ifndef _CHAINDATA_PARTS_H_INCLUDED_
#define _CHAINDATA_PARTS_H_INCLUDED_


#include <stddef.h>

#include <lmdb.h>

#include "chaindata_layout.h"
#include "chaindata_schema.h"


/* a value's parts at most, its first one too */
#define CHAINDATA_PARTS_MAX           32

/* a value's parts are not what the writer leaves (a damaged index) */
#define CHAINDATA_PARTS_DAMAGED       (-30000)


/*
 * The key and value bytes of a part's node in db (its first part's bytes
 * are that less the key's), 0 when db keeps no value in parts.
 */
size_t chaindata_parts_node(chaindata_dbi_e db);

/* 1 when a value of val_len bytes under a key of key_len in db has parts */
int chaindata_parts_has(chaindata_dbi_e db, size_t key_len, size_t val_len);

/*
 * The parts after the first of the value under key in db, cur on the
 * key's node (as mdb_cursor_get() left it): part[] gets them (at most
 * CHAINDATA_PARTS_MAX - 1), *n their number, *len the whole value's
 * length; the cursor is left on the last part.  0, LMDB's error, or
 * CHAINDATA_PARTS_DAMAGED.
 */
int chaindata_parts_read(MDB_cursor *cur, chaindata_dbi_e db,
    const MDB_val *key, MDB_val *part, size_t *n, size_t *len);

/* the whole value into dst (len bytes, chaindata_parts_read()'s) */
void chaindata_parts_join(unsigned char *dst, const MDB_val *first,
    const MDB_val *part, size_t n);

/*
 * Writing, in a write transaction: put a value under key in db (as parts
 * when it has them), or delete it with its parts; parts a value had
 * before and has no more are deleted.  0 or LMDB's error.
 */
int chaindata_parts_put(MDB_txn *txn, MDB_dbi dbi, chaindata_dbi_e db,
    const MDB_val *key, const MDB_val *val);
int chaindata_parts_del(MDB_txn *txn, MDB_dbi dbi, chaindata_dbi_e db,
    const MDB_val *key);

const char *chaindata_parts_strerror(int rc);


#endif /* _CHAINDATA_PARTS_H_INCLUDED_ */
