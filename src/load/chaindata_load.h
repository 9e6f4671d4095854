
/*
 * chaindata-load: what its main shares with the loader's other files,
 * the snapshot (doc/loader.md "Snapshots") and the bulk load
 * (doc/loader.md "Bulk load").
 */


#ifndef _CHAINDATA_LOAD_H_INCLUDED_
#define _CHAINDATA_LOAD_H_INCLUDED_


#include <stddef.h>

#include "chaindata_exit.h"
#include "chaindata_index.h"
#include "chaindata_progress.h"
#include "chaindata_record.h"


/* records per write transaction of a --bulk load, unless --batch says */
#define CHAINDATA_BULK_BATCH     20000


/* what a bulk load is told and what it counts */
typedef struct {
    size_t   batch;                        /* records per transaction */
    int      skip_invalid;
    chaindata_progress_t  *progress;       /* told of each batch */

    size_t   applied[CHAINDATA_REC_KINDS];
    size_t   batches;
    size_t   skipped;
    size_t   unknown;       /* records with what the schema does not know */
} chaindata_bulk_t;


/* a line of nothing but blanks, which the loader passes over */
int chaindata_load_is_blank(const char *s, size_t len);

/*
 * --snapshot OUT: a compacting copy of the index at db into the new
 * directory OUT; an exit status.
 */
int chaindata_load_snapshot(const char *db, const char *out,
    unsigned max_readers, int quiet);

/*
 * --bulk: refuses an index a bulk run left unfinished (0, or -1 after a
 * message); marks one under way, syncs it and unmarks it (0, or -1 after
 * a message); and the load itself, an exit status.
 */
int chaindata_bulk_check(const char *db);
int chaindata_bulk_mark(const char *db);
int chaindata_bulk_unmark(chaindata_index_t *ix);
/*
 * The index rewritten with full leaves, in key order (MDB_APPEND), and
 * renamed over the one open, which is opened again: 0, or -1 after a
 * message (chaindata_load_repack.c).
 */
int chaindata_bulk_repack(chaindata_index_t *ix);
/*
 * The map a bulk load starts with: twice its input files, so that it is
 * not grown (a batch begun again) as the index fills; map_size when that
 * is more, max_map_size at most.
 */
size_t chaindata_bulk_map_size(size_t map_size, size_t max_map_size,
    int nfiles, char **files);
int chaindata_bulk_load(chaindata_index_t *ix, chaindata_bulk_t *bk,
    int nfiles, char **files);


#endif /* _CHAINDATA_LOAD_H_INCLUDED_ */
