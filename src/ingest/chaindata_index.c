
/*
 * chaindata: the writer's side of the index, shared by chaindata-load and
 * chaindata-mirror.
 */


#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "chaindata_index.h"
#include "chaindata_index_files.h"
#include "chaindata_int.h"
#include "chaindata_key_run.h"
#include "chaindata_parts.h"
#include "chaindata_runes_op.h"
#include "chaindata_schema.h"


static int
chaindata_index_fail(chaindata_index_t *ix, const char *what, int rc)
{
    fprintf(stderr, "%s: %s: %s\n", ix->prog, what, mdb_strerror(rc));

    return -1;
}


/*
 * Begins a write transaction.  LMDB lets one writer in at a time: another
 * writer may have grown the map while this one waited (MDB_MAP_RESIZED),
 * so its size is adopted and the transaction begun again.
 */

static int
chaindata_index_write_begin(chaindata_index_t *ix, MDB_txn **txn)
{
    int  rc;

    rc = mdb_txn_begin(ix->env, NULL, 0, txn);

    while (rc == MDB_MAP_RESIZED) {
        rc = mdb_env_set_mapsize(ix->env, 0);

        if (rc == 0) {
            rc = mdb_txn_begin(ix->env, NULL, 0, txn);
        }
    }

    return rc;
}


/*
 * Opens the named databases and checks (or, in a new index, writes) the
 * schema version.
 */

static int
chaindata_index_open_dbs(chaindata_index_t *ix)
{
    int          rc;
    char         err[CHAINDATA_SCHEMA_ERR_LEN];
    MDB_txn     *txn;
    const char  *failure;

    rc = chaindata_index_write_begin(ix, &txn);
    if (rc != 0) {
        return chaindata_index_fail(ix, "cannot begin a transaction", rc);
    }

    failure = chaindata_schema_open(txn, CHAINDATA_SCHEMA_WRITE, ix->dbi,
                                    &rc, err);
    if (failure) {
        mdb_txn_abort(txn);
        fprintf(stderr, "%s: %s: %s%s%s\n", ix->prog, ix->path, failure,
                rc ? ": " : "", rc ? mdb_strerror(rc) : "");
        return -1;
    }

    rc = mdb_txn_commit(txn);
    if (rc != 0) {
        return chaindata_index_fail(ix, "cannot commit", rc);
    }

    return 0;
}


/*
 * A compact copy a killed compaction left beside data.mdb (it would stay
 * for good: a caught-up index never fills again) is removed, said on
 * standard error.  Called with the shared flock on the data.mdb named
 * held (chaindata_index_hold()): a running compaction holds it exclusive
 * from before its copy is made until after it is renamed or removed, so
 * the copy found here is never a live one's.
 */

static void
chaindata_index_leftover(chaindata_index_t *ix)
{
    char  path[4096];

    snprintf(path, sizeof(path), "%s/%s", ix->path, CHAINDATA_COMPACT_NAME);

    if (unlink(path) == 0) {
        fprintf(stderr, "%s: removed %s, the copy of a compaction that did "
                "not end (killed?)\n", ix->prog, path);

    } else if (errno != ENOENT) {
        fprintf(stderr, "%s: cannot remove %s, the copy of a compaction "
                "that did not end: %s\n", ix->prog, path, strerror(errno));
    }
}


/*
 * A writer holds a shared flock on the data.mdb it opened, which
 * chaindata_index_compact() takes exclusive (or refuses): 0 (held, a
 * copy a killed compaction left removed), 1 when data.mdb was renamed
 * over while this one waited for it (open it again), or an errno.
 */

static int
chaindata_index_hold(chaindata_index_t *ix)
{
    int          fd;
    char         path[4096];
    struct stat  held, named;

    if (mdb_env_get_fd(ix->env, &fd) != 0) {
        return EINVAL;
    }

    while (flock(fd, LOCK_SH) != 0) {
        if (errno != EINTR) {
            /* no flock here: a compaction cannot take it either */
            return 0;
        }
    }

    snprintf(path, sizeof(path), "%s/data.mdb", ix->path);

    if (fstat(fd, &held) != 0 || stat(path, &named) != 0) {
        return errno;
    }

    if (held.st_dev != named.st_dev || held.st_ino != named.st_ino) {
        return 1;
    }

    chaindata_index_leftover(ix);

    return 0;
}


int
chaindata_index_open(chaindata_index_t *ix)
{
    int                      rc, dead, tries;
    char                     err[CHAINDATA_INDEX_FILES_ERR_LEN];
    MDB_envinfo              info;
    chaindata_index_owner_t  own;

    tries = 0;

again:

    if (mkdir(ix->path, CHAINDATA_INDEX_DIR_MODE) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", ix->prog, ix->path,
                strerror(errno));
        return -1;
    }

    if (chaindata_index_files_prepare(ix->path, 1, &own, err, sizeof(err))
        != 0)
    {
        fprintf(stderr, "%s: %s\n", ix->prog, err);
        return -1;
    }

    rc = mdb_env_create(&ix->env);
    if (rc == 0) {
        rc = mdb_env_set_maxdbs(ix->env, CHAINDATA_MAX_DBS);
    }

    if (rc == 0 && ix->max_readers) {
        rc = mdb_env_set_maxreaders(ix->env, ix->max_readers);
    }

    if (rc == 0) {
        rc = mdb_env_open(ix->env, ix->path, 0, CHAINDATA_INDEX_DATA_MODE);
    }

    chaindata_index_owner_end(&own);

    if (rc == 0) {
        rc = chaindata_index_hold(ix);

        if (rc == 1 && ++tries < 8) {
            chaindata_index_close(ix);
            goto again;
        }

        rc = rc == 1 ? EAGAIN : rc;
    }

    if (rc != 0) {
        fprintf(stderr, "%s: cannot open the index at %s: %s\n", ix->prog,
                ix->path, mdb_strerror(rc));
        return -1;
    }

    /* reader slots of killed workers would keep old pages from reuse */
    (void) mdb_reader_check(ix->env, &dead);

    rc = mdb_env_info(ix->env, &info);
    if (rc != 0) {
        return chaindata_index_fail(ix, "cannot read the map size", rc);
    }

    if (info.me_mapsize < ix->map_size) {
        rc = mdb_env_set_mapsize(ix->env, ix->map_size);
        if (rc != 0) {
            return chaindata_index_fail(ix, "cannot set the map size", rc);
        }
    }

    return chaindata_index_open_dbs(ix);
}


void
chaindata_index_close(chaindata_index_t *ix)
{
    if (ix->env) {
        mdb_env_close(ix->env);
        ix->env = NULL;
    }
}


/*
 * The expectations of the write set, inside the transaction that applies
 * it: what was read when its writes were decided is still there, or
 * CHAINDATA_INDEX_MOVED (another writer committed meanwhile).
 */

static int
chaindata_index_expected(chaindata_index_t *ix, MDB_txn *txn,
    const chaindata_writeset_t *ws)
{
    int                        rc;
    size_t                     i;
    MDB_val                    key, val;
    const chaindata_expect_t  *e;

    for (i = 0; i < ws->nexpects; i++) {
        e = &ws->expects[i];
        key.mv_data = e->key;
        key.mv_size = e->key_len;

        rc = mdb_get(txn, ix->dbi[e->db], &key, &val);

        if (rc != 0 && rc != MDB_NOTFOUND) {
            return rc;
        }

        if (e->absent ? rc == 0
                      : rc != 0 || val.mv_size != e->val_len
                        || memcmp(val.mv_data, e->key + e->key_len,
                                  e->val_len) != 0)
        {
            return CHAINDATA_INDEX_MOVED;
        }
    }

    return 0;
}


const char *
chaindata_index_strerror(int rc)
{
    return rc == CHAINDATA_INDEX_MOVED
           ? "what it was decided on changed under it: another writer of "
             "this feed committed meanwhile (one writer per feed)"
           : rc == CHAINDATA_INDEX_REFUSED
           ? "a record was refused by what the index holds"
           : mdb_strerror(rc);
}


const char *
chaindata_index_error(const chaindata_index_t *ix, int rc)
{
    return rc == CHAINDATA_INDEX_REFUSED ? ix->refused
                                         : chaindata_index_strerror(rc);
}


/*
 * An op of a record (chaindata_runes_op.h), made from what the
 * transaction holds: a refusal names the record by its label.
 */

static int
chaindata_index_op(chaindata_index_t *ix, chaindata_runes_txn_t *t,
    const chaindata_writeset_t *ws, const chaindata_write_t *w)
{
    int                   rc;
    const unsigned char  *key;

    key = ws->buf + w->key_off;

    rc = chaindata_runes_apply(t, key[0], ws->buf + w->val_off, w->val_len);

    if (rc == CHAINDATA_RUNES_REFUSED) {
        memcpy(ix->refused, t->err, sizeof(ix->refused));
        ix->refused_label = chaindata_get_u64le(key + 1);
        rc = CHAINDATA_INDEX_REFUSED;
    }

    return rc;
}


/* one write of the write set: a put, a delete, or a delete of a prefix */

static int
chaindata_index_write(chaindata_index_t *ix, MDB_txn *txn,
    const chaindata_writeset_t *ws, const chaindata_write_t *w)
{
    MDB_val  key, val;

    key.mv_data = ws->buf + w->key_off;
    key.mv_size = w->key_len;

    switch (w->action) {

    case CHAINDATA_WRITE_PUT:
        val.mv_data = ws->buf + w->val_off;
        val.mv_size = w->val_len;
        return chaindata_parts_put(txn, ix->dbi[w->db], w->db, &key, &val);

    case CHAINDATA_WRITE_DEL:
        return chaindata_parts_del(txn, ix->dbi[w->db], w->db, &key);

    default: /* CHAINDATA_WRITE_DEL_PREFIX */
        return chaindata_key_run_delete(txn, ix->dbi[w->db], &key,
                                        key.mv_size, 0);
    }
}


static int
chaindata_index_apply(chaindata_index_t *ix, MDB_txn *txn,
    const chaindata_writeset_t *ws)
{
    int                    rc;
    size_t                 i;
    const chaindata_write_t  *w;
    chaindata_runes_txn_t  t;

    memset(&t, 0, sizeof(t));
    t.txn = txn;
    t.dbi = ix->dbi;

    rc = chaindata_index_expected(ix, txn, ws);

    for (i = 0; rc == 0 && i < ws->nwrites; i++) {
        w = &ws->writes[i];
        rc = w->action == CHAINDATA_WRITE_OP
             ? chaindata_index_op(ix, &t, ws, w)
             : chaindata_index_write(ix, txn, ws, w);
    }

    chaindata_runes_txn_free(&t);

    return rc;
}


static int
chaindata_index_grow(chaindata_index_t *ix)
{
    int           rc;
    size_t        size;
    MDB_envinfo   info;

    rc = mdb_env_info(ix->env, &info);
    if (rc != 0) {
        return rc;
    }

    if (info.me_mapsize >= ix->max_map_size) {
        return MDB_MAP_FULL;
    }

    size = info.me_mapsize > ix->max_map_size / 2
           ? ix->max_map_size : info.me_mapsize * 2;

    return mdb_env_set_mapsize(ix->env, size);
}


int
chaindata_index_commit(chaindata_index_t *ix, const chaindata_writeset_t *ws)
{
    int       rc;
    MDB_txn  *txn;

    for ( ;; ) {
        rc = chaindata_index_write_begin(ix, &txn);
        if (rc != 0) {
            return rc;
        }

        rc = chaindata_index_apply(ix, txn, ws);

        if (rc == 0) {
            rc = mdb_txn_commit(txn);

        } else {
            mdb_txn_abort(txn);
        }

        if (rc != MDB_MAP_FULL) {
            return rc;
        }

        rc = chaindata_index_grow(ix);
        if (rc != 0) {
            return rc;
        }
    }
}


/*
 * One writer at a time: DIR/name, locked while it runs, holds the
 * writer's name and pid; a second is refused, naming the first (an empty
 * file is an older mirror's).  The descriptor, kept open (the lock goes
 * with the process), or -1 after a message.
 */

int
chaindata_index_writer_lock(const char *dir, const char *name,
    const char *prog)
{
    int                      fd;
    char                     path[4096], who[128], *pid;
    ssize_t                  n;
    chaindata_index_owner_t  own;

    snprintf(path, sizeof(path), "%s/%s", dir, name);

    if (chaindata_index_owner_begin(dir, &own) != 0) {
        fprintf(stderr, "%s: cannot take the ids of the owner of %s: %s\n",
                prog, dir, strerror(errno));
        return -1;
    }

    /* never through a link, nor one of another user (doc/operations.md) */
    fd = chaindata_index_files_open(dir, name, O_RDWR | O_CREAT, 0600);
    chaindata_index_owner_end(&own);

    if (fd == -1) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, path,
                strerror(errno));
        return -1;
    }

    if (flock(fd, LOCK_EX|LOCK_NB) != 0) {
        /* "NAME\nPID\n" */
        n = pread(fd, who, sizeof(who) - 1, 0);
        who[n > 0 ? n : 0] = '\0';
        pid = who + strcspn(who, "\n");

        if (*pid) {
            *pid++ = '\0';
            pid[strcspn(pid, "\n")] = '\0';
        }

        fprintf(stderr, "%s: another %s runs on %s (%s%s%s%s is locked): "
                "one writer at a time\n", prog,
                who[0] ? who : "chaindata-mirror", dir,
                *pid ? "pid " : "", pid, *pid ? "; " : "", path);
        close(fd);
        return -1;
    }

    n = snprintf(who, sizeof(who), "%s\n%ld\n", prog, (long) getpid());

    if (ftruncate(fd, 0) != 0 || pwrite(fd, who, n, 0) != n) {
        /* the lock is what counts; the name only helps the message */
    }

    return fd;
}

