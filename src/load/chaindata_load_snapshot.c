
/*
 * chaindata-load --snapshot OUT: a compact, consistent copy of the index
 * while it is served and written (doc/loader.md
 * "Snapshots").  LMDB's compacting
 * copy reads one read transaction, so the copy holds whole batches and
 * the feed positions of the same moment.  It is written into a directory
 * beside OUT, synced, and renamed to OUT, so OUT never names a copy half
 * written; OUT is an index directory holding data.mdb alone (its first
 * opener makes lock.mdb).
 */


#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <lmdb.h>

#include "chaindata_index_files.h"
#include "chaindata_load.h"
#include "chaindata_schema.h"


static int
chaindata_snapshot_fail(const char *what, const char *path, int err)
{
    fprintf(stderr, "chaindata-load: %s %s: %s%s\n", what, path,
            err > 0 ? strerror(err) : mdb_strerror(err),
            err == ENOSPC || err == EIO || err == EDQUOT
            ? " (is its disk full?)" : "");

    return CHAINDATA_EXIT_SYSTEM;
}


/* opens the index read-only and checks it is one of ours */

static int
chaindata_snapshot_open(const char *db, unsigned max_readers, MDB_env **env)
{
    int                      rc, mrc;
    char                     path[PATH_MAX], err[CHAINDATA_SCHEMA_ERR_LEN];
    char                     ferr[CHAINDATA_INDEX_FILES_ERR_LEN];
    MDB_txn                 *txn;
    MDB_dbi                  dbi[CHAINDATA_DBI_COUNT];
    const char              *failure;
    struct stat              st;
    chaindata_index_owner_t  own;

    if ((size_t) snprintf(path, sizeof(path), "%s/data.mdb", db)
        >= sizeof(path))
    {
        return chaindata_snapshot_fail("cannot read", db, ENAMETOOLONG);
    }

    if (stat(path, &st) != 0) {
        return chaindata_snapshot_fail("no index to copy at", path, errno);
    }

    if (chaindata_index_files_prepare(db, 0, &own, ferr, sizeof(ferr)) != 0)
    {
        fprintf(stderr, "chaindata-load: %s\n", ferr);
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = mdb_env_create(env);
    if (rc == 0) {
        rc = mdb_env_set_maxdbs(*env, CHAINDATA_MAX_DBS);
    }

    if (rc == 0 && max_readers) {
        rc = mdb_env_set_maxreaders(*env, max_readers);
    }

    if (rc == 0) {
        rc = mdb_env_open(*env, db, MDB_RDONLY, CHAINDATA_INDEX_DATA_MODE);
    }

    chaindata_index_owner_end(&own);

    if (rc == 0) {
        rc = mdb_txn_begin(*env, NULL, MDB_RDONLY, &txn);
    }

    if (rc != 0) {
        return chaindata_snapshot_fail("cannot open the index at", db, rc);
    }

    failure = chaindata_schema_open(txn, 0, dbi, &mrc, err);
    mdb_txn_abort(txn);

    if (failure) {
        fprintf(stderr, "chaindata-load: %s: %s%s%s\n", db, failure,
                mrc ? ": " : "", mrc ? mdb_strerror(mrc) : "");
        return CHAINDATA_EXIT_SYSTEM;
    }

    return CHAINDATA_EXIT_OK;
}


/* fsync() of a file or a directory by its name */

static int
chaindata_snapshot_sync(const char *path)
{
    int  fd, rc;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        return errno;
    }

    rc = fsync(fd) == 0 ? 0 : errno;
    (void) close(fd);

    return rc;
}


/* the directory a path is in, for syncing the rename into it */

static void
chaindata_snapshot_parent(const char *path, char *parent, size_t size)
{
    char  *slash;

    (void) snprintf(parent, size, "%s", path);

    /* "OUT/" names OUT */
    slash = parent + strlen(parent);
    while (slash > parent + 1 && slash[-1] == '/') {
        *--slash = '\0';
    }

    slash = strrchr(parent, '/');

    if (slash == NULL) {
        (void) snprintf(parent, size, ".");

    } else if (slash == parent) {
        parent[1] = '\0';

    } else {
        *slash = '\0';
    }
}


/* the copy into tmp (a new directory), synced; an exit status */

static int
chaindata_snapshot_copy(MDB_env *env, const char *tmp)
{
    int   rc;
    char  data[PATH_MAX + 64];

    (void) snprintf(data, sizeof(data), "%s/data.mdb", tmp);

    rc = mdb_env_copy2(env, tmp, MDB_CP_COMPACT);
    if (rc != 0) {
        return chaindata_snapshot_fail("cannot write the snapshot", data,
                                       rc);
    }

    rc = chmod(data, CHAINDATA_INDEX_DATA_MODE) == 0 ? 0 : errno;

    if (rc == 0) {
        rc = chaindata_snapshot_sync(data);
    }

    if (rc == 0) {
        rc = chaindata_snapshot_sync(tmp);
    }

    if (rc != 0) {
        return chaindata_snapshot_fail("cannot sync the snapshot", data, rc);
    }

    return CHAINDATA_EXIT_OK;
}


static void
chaindata_snapshot_remove(const char *tmp)
{
    char  data[PATH_MAX + 64];

    (void) snprintf(data, sizeof(data), "%s/data.mdb", tmp);
    (void) unlink(data);
    (void) rmdir(tmp);
}


int
chaindata_load_snapshot(const char *db, const char *out,
    unsigned max_readers, int quiet)
{
    int                      rc;
    char                     name[PATH_MAX], parent[PATH_MAX];
    char                     tmp[PATH_MAX + sizeof(".tmp-/data.mdb") + 20];
    size_t                   len;
    MDB_env                 *env;
    struct stat              st;
    chaindata_index_owner_t  own;

    /* "OUT/" is OUT: the temporary copy goes beside it, not into it */
    len = strlen(out);
    while (len > 1 && out[len - 1] == '/') {
        len--;
    }

    if (len >= sizeof(name) - sizeof(".tmp-/data.mdb") - 20) {
        return chaindata_snapshot_fail("cannot write", out, ENAMETOOLONG);
    }

    memcpy(name, out, len);
    name[len] = '\0';
    out = name;

    if (lstat(out, &st) == 0) {
        fprintf(stderr, "chaindata-load: --snapshot %s: it exists already; "
                "a snapshot goes to a new name\n", out);
        return CHAINDATA_EXIT_SYSTEM;
    }

    if (errno != ENOENT) {
        return chaindata_snapshot_fail("--snapshot", out, errno);
    }

    (void) snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", out, (long) getpid());

    env = NULL;

    rc = chaindata_snapshot_open(db, max_readers, &env);
    if (rc != CHAINDATA_EXIT_OK) {
        goto done;
    }

    /* as root beside an index of another user: the copy is that user's */
    chaindata_snapshot_parent(out, parent, sizeof(parent));

    if (chaindata_index_owner_begin(parent, &own) != 0) {
        rc = chaindata_snapshot_fail("cannot take the ids of the owner of",
                                     parent, errno);
        goto done;
    }

    if (mkdir(tmp, CHAINDATA_INDEX_DIR_MODE) != 0) {
        rc = chaindata_snapshot_fail("cannot create", tmp, errno);
        chaindata_index_owner_end(&own);
        goto done;
    }

    rc = chaindata_snapshot_copy(env, tmp);

    if (rc == CHAINDATA_EXIT_OK
        && renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_NOREPLACE) != 0)
    {
        rc = chaindata_snapshot_fail("cannot rename the snapshot to", out,
                                     errno);
    }

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_snapshot_remove(tmp);
        chaindata_index_owner_end(&own);
        goto done;
    }

    chaindata_index_owner_end(&own);
    (void) chaindata_snapshot_sync(parent);

    if (!quiet) {
        (void) snprintf(tmp, sizeof(tmp), "%s/data.mdb", out);
        fprintf(stderr, "chaindata-load: %s: snapshot written to %s "
                "(%lld bytes)\n", db, out,
                stat(tmp, &st) == 0 ? (long long) st.st_size : -1LL);
    }

done:

    if (env) {
        mdb_env_close(env);
    }

    return rc;
}
