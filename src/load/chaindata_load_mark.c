
/*
 * chaindata-load --bulk: the mark of a bulk run under way, a file in the
 * index directory from before its first unsynced commit until the index
 * is synced at its end (doc/loader.md "Bulk load").
 */


#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "chaindata_index_files.h"
#include "chaindata_load.h"


#define CHAINDATA_BULK_MARK     "bulk-load.unfinished"


static int
chaindata_bulk_mark_path(const char *db, char *path, size_t size)
{
    return (size_t) snprintf(path, size, "%s/%s", db, CHAINDATA_BULK_MARK)
           < size ? 0 : -1;
}


int
chaindata_bulk_check(const char *db)
{
    char  path[PATH_MAX];

    if (chaindata_bulk_mark_path(db, path, sizeof(path)) != 0
        || access(path, F_OK) != 0)
    {
        return 0;
    }

    fprintf(stderr, "chaindata-load: %s: a --bulk load into this index did "
            "not finish (%s is there): the index may lack records, or be "
            "damaged if the system went down; remove %s and run the bulk "
            "load again\n", db, path, db);

    return -1;
}


static int
chaindata_bulk_sync_dir(const char *dir)
{
    int  fd, rc;

    fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        return -1;
    }

    rc = fsync(fd);
    (void) close(fd);

    return rc;
}


/* the mark, on disk before the first unsynced commit */

int
chaindata_bulk_mark(const char *db)
{
    int   fd;
    char  path[PATH_MAX];

    if (chaindata_bulk_mark_path(db, path, sizeof(path)) != 0) {
        errno = ENAMETOOLONG;
        goto failed;
    }

    fd = chaindata_index_files_open(db, CHAINDATA_BULK_MARK,
                                    O_WRONLY | O_CREAT | O_TRUNC,
                                    CHAINDATA_INDEX_DATA_MODE);
    if (fd == -1) {
        goto failed;
    }

    if (fsync(fd) != 0) {
        (void) close(fd);
        goto failed;
    }

    (void) close(fd);

    if (chaindata_bulk_sync_dir(db) == 0) {
        return 0;
    }

failed:

    fprintf(stderr, "chaindata-load: cannot write %s/%s: %s\n", db,
            CHAINDATA_BULK_MARK, strerror(errno));

    return -1;
}


/* the index synced: the mark goes */

int
chaindata_bulk_unmark(chaindata_index_t *ix)
{
    int   rc;
    char  path[PATH_MAX];

    rc = mdb_env_sync(ix->env, 1);
    if (rc != 0) {
        fprintf(stderr, "chaindata-load: %s: cannot sync the index: %s; "
                "the bulk load must be run again\n", ix->path,
                mdb_strerror(rc));
        return -1;
    }

    (void) chaindata_bulk_mark_path(ix->path, path, sizeof(path));

    if (unlink(path) != 0 || chaindata_bulk_sync_dir(ix->path) != 0) {
        fprintf(stderr, "chaindata-load: cannot remove %s: %s\n", path,
                strerror(errno));
        return -1;
    }

    return 0;
}
