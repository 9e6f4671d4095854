
/*
 * chaindata-load --bulk, its last step: the index rewritten with full
 * leaf pages (doc/loader.md "Bulk load").  LMDB splits a full leaf in the
 * middle unless a put is an append, so batches of records in key order leave
 * leaves about half full; every database is copied in key order, each
 * put an append (MDB_APPEND), into a new data.mdb beside the index, which
 * is synced and renamed over the index's own.  The copy reads inside a
 * write transaction of the index, so no other writer can commit while it
 * is made.
 */


#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

#include "chaindata_index_files.h"
#include "chaindata_schema.h"
#include "chaindata_load.h"


/* puts per write transaction of the copy: its dirty pages stay few */
#define CHAINDATA_REPACK_TXN_PUTS  65536


static int
chaindata_repack_fail(chaindata_index_t *ix, const char *what, int err)
{
    fprintf(stderr, "chaindata-load: %s: cannot repack the index (%s): "
            "%s%s\n", ix->path, what,
            err > 0 ? strerror(err) : mdb_strerror(err),
            err == ENOSPC ? " (is its disk full?)" : "");

    return -1;
}


/* every record of the database i of src appended to dst's */

static int
chaindata_repack_db(MDB_txn *src, MDB_dbi sdbi, MDB_env *dst,
    chaindata_dbi_e db, MDB_txn **wtxn, size_t *puts)
{
    int          rc;
    MDB_val      k, v;
    MDB_dbi      ddbi;
    MDB_cursor  *sc, *dc;

    rc = mdb_dbi_open(*wtxn, chaindata_db_names[db],
                      chaindata_db_flags[db] | MDB_CREATE, &ddbi);
    if (rc != 0) {
        return rc;
    }

    rc = mdb_cursor_open(src, sdbi, &sc);
    if (rc != 0) {
        return rc;
    }

    rc = mdb_cursor_open(*wtxn, ddbi, &dc);

    for (rc = rc ? rc : mdb_cursor_get(sc, &k, &v, MDB_FIRST);
         rc == 0;
         rc = mdb_cursor_get(sc, &k, &v, MDB_NEXT))
    {
        rc = mdb_cursor_put(dc, &k, &v, MDB_APPEND);
        if (rc != 0) {
            break;
        }

        if (++*puts % CHAINDATA_REPACK_TXN_PUTS) {
            continue;
        }

        rc = mdb_txn_commit(*wtxn);
        *wtxn = NULL;

        if (rc == 0) {
            rc = mdb_txn_begin(dst, NULL, 0, wtxn);
        }

        if (rc == 0) {
            rc = mdb_cursor_open(*wtxn, ddbi, &dc);
        }

        if (rc != 0) {
            break;
        }
    }

    mdb_cursor_close(sc);

    return rc == MDB_NOTFOUND ? 0 : rc;
}


/* the copy of every database into the new environment at dir */

static int
chaindata_repack_copy(chaindata_index_t *ix, MDB_txn *src, const char *dir,
    size_t map_size)
{
    int       rc;
    size_t    puts;
    MDB_env  *dst;
    MDB_txn  *wtxn;
    unsigned  i;

    rc = mdb_env_create(&dst);
    if (rc != 0) {
        return rc;
    }

    rc = mdb_env_set_maxdbs(dst, CHAINDATA_MAX_DBS);

    if (rc == 0) {
        rc = mdb_env_set_mapsize(dst, map_size);
    }

    if (rc == 0) {
        rc = mdb_env_open(dst, dir, MDB_NOSYNC, CHAINDATA_INDEX_DATA_MODE);
    }

    wtxn = NULL;
    puts = 0;

    if (rc == 0) {
        rc = mdb_txn_begin(dst, NULL, 0, &wtxn);
    }

    for (i = 0; rc == 0 && i < CHAINDATA_DBI_COUNT; i++) {
        rc = chaindata_repack_db(src, ix->dbi[i], dst, i, &wtxn, &puts);
    }

    if (rc == 0) {
        rc = mdb_txn_commit(wtxn);
        wtxn = NULL;
    }

    if (rc == 0) {
        rc = mdb_env_sync(dst, 1);
    }

    if (wtxn) {
        mdb_txn_abort(wtxn);
    }

    mdb_env_close(dst);

    return rc;
}


static int
chaindata_repack_sync_dir(const char *path)
{
    int  fd, rc;

    fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
        return -1;
    }

    rc = fsync(fd);
    close(fd);

    return rc;
}


int
chaindata_bulk_repack(chaindata_index_t *ix)
{
    int                      rc;
    char                     dir[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
    char                     lock[PATH_MAX];
    MDB_txn                 *txn;
    MDB_envinfo              info;
    chaindata_index_owner_t  own;

    if ((size_t) snprintf(dir, sizeof(dir), "%s/repack.tmp-%ld", ix->path,
                          (long) getpid())
            >= sizeof(dir)
        || (size_t) snprintf(from, sizeof(from), "%s/data.mdb", dir)
           >= sizeof(from)
        || (size_t) snprintf(lock, sizeof(lock), "%s/lock.mdb", dir)
           >= sizeof(lock)
        || (size_t) snprintf(to, sizeof(to), "%s/data.mdb", ix->path)
           >= sizeof(to))
    {
        return chaindata_repack_fail(ix, "path", ENAMETOOLONG);
    }

    rc = mdb_env_info(ix->env, &info);
    if (rc != 0) {
        return chaindata_repack_fail(ix, "map size", rc);
    }

    /* as root in a directory of another user: the new data.mdb is its */
    if (chaindata_index_owner_begin(ix->path, &own) != 0) {
        return chaindata_repack_fail(ix, "owner", errno);
    }

    if (mkdir(dir, CHAINDATA_INDEX_DIR_MODE) != 0) {
        rc = errno;
        chaindata_index_owner_end(&own);
        return chaindata_repack_fail(ix, dir, rc);
    }

    rc = mdb_txn_begin(ix->env, NULL, 0, &txn);

    if (rc == 0) {
        rc = chaindata_repack_copy(ix, txn, dir, info.me_mapsize);
        if (rc == 0 && rename(from, to) != 0) {
            rc = errno;
        }

        mdb_txn_abort(txn);
    }

    (void) unlink(from);
    (void) unlink(lock);
    (void) rmdir(dir);
    chaindata_index_owner_end(&own);

    if (rc != 0) {
        return chaindata_repack_fail(ix, "copy", rc);
    }

    if (chaindata_repack_sync_dir(ix->path) != 0) {
        return chaindata_repack_fail(ix, "sync", errno);
    }

    /* the index open is the one renamed away: open the new one */
    chaindata_index_close(ix);

    return chaindata_index_open(ix);
}
