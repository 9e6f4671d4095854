
/*
 * chaindata: the index rewritten compact in place (chaindata_index.h),
 * with readers open on it.
 *
 * A fill commits a window at a time, and the keys of its largest
 * databases are hashes (transaction ids, addresses): each window writes
 * into most leaf pages of the windows before, so each commit copies them
 * (copy-on-write) and frees the old ones.  LMDB reuses a page freed by
 * a commit only two commits later, and never gives pages back to the
 * file system: a filled index ends with the pages of its last windows
 * free (bench/RESULTS.md, 2026-11-28: 40 % of a fill of 20,000
 * transactions in windows of 128 blocks).  Writing each list once would
 * need the whole fill in one transaction; instead the fill ends here.
 *
 * LMDB's compact copy (mdb_env_copyfd2, MDB_CP_COMPACT) writes the pages
 * in use, none free, but with transaction id 1 in its second meta page and
 * an empty first one: renamed over data.mdb beside the lock file in use,
 * whose transaction id is that of the index's last commit, it would be
 * read at the wrong meta page.  So:
 *
 *   1. No other writer has the index open: each writer holds a shared
 *      flock on its data.mdb descriptor (chaindata_index_open); this one
 *      takes it exclusive, or refuses.  A writer opening meanwhile waits,
 *      then finds data.mdb replaced and opens it again.
 *   2. One commit writes the schema version again, as it is: the two meta
 *      pages of data.mdb then name the same contents (commits T0 and T1).
 *   3. The compact copy of T1 into DIR/data.mdb.compact, both its meta
 *      pages made that of T1, so the lock file's transaction id (T1) picks
 *      the same contents in either file.
 *   4. Renamed over data.mdb, with the writers' mutex held (no commit
 *      between the copy and the rename), and opened again.
 *
 * A reader that opened data.mdb before the rename reads the old file
 * until it sees it replaced (the module looks once a second, as at any
 * swap): whichever meta page the lock file's transaction id picks there
 * holds T0 or T1, the same contents, and nothing writes that file again.
 * A reader opening after the rename reads the copy.  Before the rename
 * any failure leaves the index as it was (the copy is removed); after it,
 * the index is the copy.
 */


#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chaindata_data_file.h"
#include "chaindata_index.h"
#include "chaindata_index_files.h"
#include "chaindata_schema.h"


int
chaindata_index_pages(chaindata_index_t *ix, size_t *used, size_t *free)
{
    int           rc;
    size_t        n;
    MDB_val       key, val;
    MDB_txn      *txn;
    MDB_cursor   *cur;
    MDB_envinfo   info;

    rc = mdb_env_info(ix->env, &info);
    if (rc != 0) {
        return rc;
    }

    *used = info.me_last_pgno + 1;

    rc = mdb_txn_begin(ix->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) {
        return rc;
    }

    /* the free database (0): each record a count, then that many pages */
    rc = mdb_cursor_open(txn, 0, &cur);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }

    for (n = 0; rc == 0; /* void */) {
        rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);

        if (rc == 0 && val.mv_size >= sizeof(size_t)) {
            n += *(size_t *) val.mv_data;
        }
    }

    mdb_cursor_close(cur);
    mdb_txn_abort(txn);

    if (rc == MDB_NOTFOUND) {
        rc = 0;
    }

    *free = n;

    return rc;
}


/* step 2: the schema version written again as it is; T1, its commit */

static int
chaindata_compact_touch(chaindata_index_t *ix, size_t *txnid)
{
    int       rc;
    char      v[64];
    MDB_val   key, val;
    MDB_txn  *txn;

    rc = mdb_txn_begin(ix->env, NULL, 0, &txn);
    if (rc != 0) {
        return rc;
    }

    key.mv_data = (void *) CHAINDATA_META_SCHEMA;
    key.mv_size = sizeof(CHAINDATA_META_SCHEMA) - 1;

    rc = mdb_get(txn, ix->dbi[CHAINDATA_DBI_META], &key, &val);

    if (rc == 0 && val.mv_size > sizeof(v)) {
        rc = EINVAL;
    }

    if (rc == 0) {
        memcpy(v, val.mv_data, val.mv_size);
        val.mv_data = v;
        rc = mdb_put(txn, ix->dbi[CHAINDATA_DBI_META], &key, &val, 0);
    }

    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }

    *txnid = mdb_txn_id(txn);

    return mdb_txn_commit(txn);
}


/* step 3's meta pages: both that of commit txnid; 0, or an errno */

static int
chaindata_compact_metas(int fd, size_t psize, uint64_t txnid)
{
    int             rc;
    uint64_t        pgno;
    unsigned char  *page;

    page = malloc(psize);
    if (page == NULL) {
        return ENOMEM;
    }

    rc = 0;

    if (pread(fd, page, psize, (off_t) psize) != (ssize_t) psize) {
        rc = errno ? errno : EIO;

    } else {
        memcpy(page + CHAINDATA_META_OFF + CHAINDATA_META_TXNID, &txnid,
               sizeof(txnid));

        if (pwrite(fd, page, psize, (off_t) psize) != (ssize_t) psize) {
            rc = errno ? errno : EIO;
        }

        /* the first page: the same, numbered 0 (mp_pgno leads the page) */
        pgno = 0;
        memcpy(page, &pgno, sizeof(pgno));

        if (rc == 0 && pwrite(fd, page, psize, 0) != (ssize_t) psize) {
            rc = errno ? errno : EIO;
        }
    }

    free(page);

    if (rc == 0 && fsync(fd) != 0) {
        rc = errno;
    }

    return rc;
}


/* step 3: the copy of the last commit, txnid, in DIR/data.mdb.compact */

static int
chaindata_compact_copy(chaindata_index_t *ix, uint64_t txnid, char *err,
    size_t len)
{
    int                      fd, rc;
    char                     path[4096];
    MDB_stat                 st;
    chaindata_index_owner_t  own;

    snprintf(path, sizeof(path), "%s/%s", ix->path, CHAINDATA_COMPACT_NAME);

    /* one a killed compaction left */
    (void) unlink(path);

    if (chaindata_index_owner_begin(ix->path, &own) != 0) {
        snprintf(err, len, "cannot take the ids of the owner of %s: %s",
                 ix->path, strerror(errno));
        return -1;
    }

    fd = chaindata_index_files_open(ix->path, CHAINDATA_COMPACT_NAME,
                                    O_RDWR | O_CREAT,
                                    CHAINDATA_INDEX_DATA_MODE);
    chaindata_index_owner_end(&own);

    if (fd == -1) {
        snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }

    rc = mdb_env_copyfd2(ix->env, fd, MDB_CP_COMPACT);

    if (rc == 0) {
        rc = mdb_env_stat(ix->env, &st);
    }

    if (rc == 0) {
        rc = chaindata_compact_metas(fd, st.ms_psize, txnid);
    }

    if (close(fd) != 0 && rc == 0) {
        rc = errno;
    }

    if (rc != 0) {
        snprintf(err, len, "cannot write %s: %s", path, mdb_strerror(rc));
        (void) unlink(path);
        return -1;
    }

    return 0;
}


/* step 4: the copy renamed over data.mdb, no commit in between */

static int
chaindata_compact_rename(chaindata_index_t *ix, uint64_t txnid, char *err,
    size_t len)
{
    int       rc, dfd;
    char      from[4096], to[4096];
    MDB_txn  *txn;

    snprintf(from, sizeof(from), "%s/%s", ix->path, CHAINDATA_COMPACT_NAME);
    snprintf(to, sizeof(to), "%s/data.mdb", ix->path);

    rc = mdb_txn_begin(ix->env, NULL, 0, &txn);
    if (rc != 0) {
        snprintf(err, len, "cannot begin a transaction: %s",
                 mdb_strerror(rc));
        (void) unlink(from);
        return -1;
    }

    if (mdb_txn_id(txn) != txnid + 1) {
        snprintf(err, len, "another writer committed meanwhile");
        rc = -1;

    } else if (rename(from, to) != 0) {
        snprintf(err, len, "cannot rename %s to %s: %s", from, to,
                 strerror(errno));
        rc = -1;
    }

    mdb_txn_abort(txn);

    if (rc != 0) {
        (void) unlink(from);
        return -1;
    }

    dfd = open(ix->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd != -1) {
        (void) fsync(dfd);
        (void) close(dfd);
    }

    return 0;
}


int
chaindata_index_compact(chaindata_index_t *ix, char *err, size_t len)
{
    int     fd, rc;
    size_t  txnid;

    /* step 1: the only writer with the index open */
    if (mdb_env_get_fd(ix->env, &fd) != 0) {
        snprintf(err, len, "no data.mdb open");
        return 1;
    }

    if (flock(fd, LOCK_EX|LOCK_NB) != 0) {
        /* a conversion refused drops the shared lock: taken again */
        (void) flock(fd, LOCK_SH);
        snprintf(err, len, "another writer (chaindata-load?) has the index "
                 "open");
        return 1;
    }

    rc = chaindata_compact_touch(ix, &txnid);

    if (rc != 0) {
        snprintf(err, len, "cannot commit: %s", mdb_strerror(rc));
        rc = 1;

    } else if (chaindata_compact_copy(ix, txnid, err, len) != 0
               || chaindata_compact_rename(ix, txnid, err, len) != 0)
    {
        rc = 1;
    }

    if (rc != 0) {
        (void) flock(fd, LOCK_SH);
        return rc;
    }

    /* the copy, opened as any writer opens it */
    chaindata_index_close(ix);

    if (chaindata_index_open(ix) != 0) {
        snprintf(err, len, "cannot open the index again");
        return -1;
    }

    return 0;
}
