
/*
 * chaindata: the writer's side of the index (lmdb-schema/README.md):
 * opening it, checking or writing its schema version, and committing a
 * write set in one LMDB write transaction, the map growing when full.
 * The loader and the mirror both write through it.
 */


#ifndef _CHAINDATA_INDEX_H_INCLUDED_
#define _CHAINDATA_INDEX_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include <lmdb.h>

#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_record.h"


/*
 * The compact copy chaindata_index_compact() writes beside data.mdb; one
 * a killed compaction left is removed when a writer opens the index.
 */
#define CHAINDATA_COMPACT_NAME  "data.mdb.compact"

/* the map's first size and its ceiling, unless --map-size says */
#define CHAINDATA_MAP_SIZE      ((size_t) 1 << 30)
#define CHAINDATA_MAX_MAP_SIZE  ((size_t) 1 << 40)


typedef struct {
    const char  *prog;            /* names the program in messages */
    const char  *path;
    size_t       map_size;
    size_t       max_map_size;
    unsigned     max_readers;     /* when it creates the lock file */

    MDB_env     *env;
    MDB_dbi      dbi[CHAINDATA_DBI_COUNT];

    /* CHAINDATA_INDEX_REFUSED: why, and the label of the record refused */
    char         refused[CHAINDATA_ERR_LEN];
    uint64_t     refused_label;
} chaindata_index_t;


/* 0, or -1 after a message on standard error */
int chaindata_index_open(chaindata_index_t *ix);
void chaindata_index_close(chaindata_index_t *ix);

/*
 * Applies ws in one write transaction, its expectations checked in it
 * first: 0, CHAINDATA_INDEX_MOVED when one no longer holds (nothing
 * applied), CHAINDATA_INDEX_REFUSED when an op of a record refused what
 * the index holds (nothing applied; ix->refused says why, ix->refused_label
 * names the record: chaindata_runes_op.h), or an LMDB error (MDB_MAP_FULL
 * when the map is at max_map_size already).
 */
int chaindata_index_commit(chaindata_index_t *ix,
    const chaindata_writeset_t *ws);

/*
 * The pages of the index, used (to the last page written) and free
 * (LMDB's free list): 0, or an LMDB error.
 */
int chaindata_index_pages(chaindata_index_t *ix, size_t *used, size_t *free);

/*
 * Rewrites data.mdb without its free pages, in place, safe with readers
 * open on it (chaindata_index_compact.c says how): 0 when done, the index
 * open again; 1 when refused, why in err (len bytes), the index as it was;
 * -1 when the compact index could not be opened again (err says).
 */
int chaindata_index_compact(chaindata_index_t *ix, char *err, size_t len);

/* beside LMDB's codes (MDB_KEYEXIST is -30799, the last -30780) */
#define CHAINDATA_INDEX_MOVED    (-30700)
#define CHAINDATA_INDEX_REFUSED  (-30701)

/* what a commit's code means: mdb_strerror(), or ours */
const char *chaindata_index_strerror(int rc);
/* the same, the refusal's own reason for CHAINDATA_INDEX_REFUSED */
const char *chaindata_index_error(const chaindata_index_t *ix, int rc);

/*
 * The lock of the one writer of something in DIR (DIR/name): a descriptor
 * kept open while the writer runs, or -1 after a message naming the
 * writer that holds it.  CHAINDATA_MIRROR_LOCK: one chaindata-mirror an
 * index; CHAINDATA_FEEDS_LOCK: one writer of the feeds a stream carries
 * (a mirror of Stacks or Runes, or a stream follower).
 */
int chaindata_index_writer_lock(const char *dir, const char *name,
    const char *prog);

#define CHAINDATA_MIRROR_LOCK  "mirror.lock"
#define CHAINDATA_FEEDS_LOCK   "feeds.lock"


#endif /* _CHAINDATA_INDEX_H_INCLUDED_ */
