
/*
 * chaindata: LMDB access for the module (see the header).
 */


#include <ngx_config.h>
#include <ngx_core.h>

#include <grp.h>

#include "chaindata_data_file.h"
#include "chaindata_history.h"
#include "chaindata_schema.h"
#include "chaindata_status.h"
#include "ngx_http_chaindata_metrics.h"
#include "ngx_http_chaindata_store.h"
#include "ngx_http_chaindata_threads.h"


/*
 * How often, in seconds, a worker looks at the index's path again: to try
 * an index it cannot read, and to notice one renamed over the one open.
 */
#define NGX_HTTP_CHAINDATA_RECHECK  1

/* the longest reason the index cannot be read that is kept */
#define NGX_HTTP_CHAINDATA_FAILURE_LEN  256

/* how much of a value is fetched ahead of its reading */
#define NGX_HTTP_CHAINDATA_PREFETCH  4096


/* which file a path names */
typedef struct {
    dev_t        dev;
    ino_t        ino;
} ngx_http_chaindata_file_id_t;


typedef struct {
    MDB_env                       *env;
    MDB_txn                       *txn;
    MDB_dbi                        dbi[CHAINDATA_DBI_COUNT];
    MDB_cursor                    *cursor[CHAINDATA_DBI_COUNT];
    ngx_str_t                      path;
    ngx_uint_t                     max_readers;

    /* the files of the environment open */
    ngx_http_chaindata_file_id_t   data;
    ngx_http_chaindata_file_id_t   lock;

    /* the last data.mdb renamed over it that could not be opened */
    ngx_http_chaindata_file_id_t   refused;

    time_t                         retry;
    time_t                         look;

    /* which opening this is, and the first value a request found */
    ngx_uint_t                     generation;
    MDB_val                        first;

    /*
     * why the index at the path cannot be read, as last logged (empty
     * when it can), and whether the one open serves meanwhile: another
     * renamed over it that cannot be opened leaves it in place
     */
    u_char                         failure[NGX_HTTP_CHAINDATA_FAILURE_LEN];
    int                            failure_rc;
    unsigned                       stale:1;

    unsigned                       active:1;

    /*
     * the history of each chain as a miss found it, for the opening and
     * the snapshot (the read transaction's id) it was read in; and the
     * chains the configured routes serve, told once when the index first
     * opens
     */
    chaindata_history_t            history[CHAINDATA_HISTORY_SOURCES];
    ngx_uint_t                     history_generation;
    size_t                         history_txn;
    ngx_uint_t                     history_read;
    ngx_uint_t                     routes;
    unsigned                       told:1;
} ngx_http_chaindata_store_t;


static ngx_http_chaindata_store_t  ngx_http_chaindata_store;

static void ngx_http_chaindata_store_tell(ngx_log_t *log);


/*
 * Opens the index read-only as every reader of the module does: the
 * first process to open lock.mdb while nobody has it open sizes its
 * reader table with max_readers.  Returns 0 or LMDB's error.
 */

static int
ngx_http_chaindata_env_open(MDB_env **env, u_char *path,
    ngx_uint_t max_readers, unsigned flags)
{
    int  rc;

    rc = mdb_env_create(env);
    if (rc != 0) {
        *env = NULL;
        return rc;
    }

    rc = mdb_env_set_maxdbs(*env, CHAINDATA_MAX_DBS);

    if (rc == 0) {
        rc = mdb_env_set_maxreaders(*env, (unsigned int) max_readers);
    }

    if (rc == 0) {
        rc = mdb_env_open(*env, (char *) path,
                          MDB_RDONLY|MDB_NOTLS|MDB_NORDAHEAD|flags, 0644);
    }

    if (rc != 0) {
        mdb_env_close(*env);
        *env = NULL;
    }

    return rc;
}


/*
 * Opens the named databases and checks the schema version, in a read
 * transaction that is committed so the handles stay with the environment.
 * Returns NULL, or why the index cannot be used.
 */

static const char *
ngx_http_chaindata_store_attach(MDB_env *env, MDB_dbi *dbi, int *mdb_rc)
{
    int          rc;
    MDB_txn     *txn;
    const char  *failure;

    static char  err[CHAINDATA_SCHEMA_ERR_LEN];

    *mdb_rc = 0;

    rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) {
        *mdb_rc = rc;
        return "cannot begin a read transaction";
    }

    failure = chaindata_schema_open(txn, 0, dbi, mdb_rc, err);
    if (failure) {
        mdb_txn_abort(txn);
        return failure;
    }

    rc = mdb_txn_commit(txn);
    if (rc != 0) {
        *mdb_rc = rc;
        return "cannot end a read transaction";
    }

    return NULL;
}


/*
 * Whether the user the workers run as may access path as want asks
 * (R_OK, W_OK, X_OK).  Only a root master switches users; otherwise the
 * workers are this very process's user and access() tells.
 */

static ngx_int_t
ngx_http_chaindata_worker_may(ngx_core_conf_t *ccf, const char *path,
    int want)
{
    int              i, n, bits;
    gid_t            groups[256];
    ngx_file_info_t  fi;

    if (geteuid() != 0) {
        return access(path, want) == 0 ? NGX_OK : NGX_ERROR;
    }

    if (ccf->user == (ngx_uid_t) NGX_CONF_UNSET_UINT || ccf->user == 0) {
        return NGX_OK;
    }

    if (ngx_file_info(path, &fi) == NGX_FILE_ERROR) {
        return NGX_ERROR;
    }

    if (fi.st_uid == ccf->user) {
        bits = fi.st_mode >> 6;

    } else {
        bits = fi.st_mode;

        n = sizeof(groups) / sizeof(groups[0]);

        if (getgrouplist(ccf->username, ccf->group, groups, &n) < 0) {
            n = 1;
            groups[0] = ccf->group;
        }

        for (i = 0; i < n; i++) {
            if (groups[i] == fi.st_gid) {
                bits = fi.st_mode >> 3;
                break;
            }
        }
    }

    if (((want & R_OK) && !(bits & 4))
        || ((want & W_OK) && !(bits & 2))
        || ((want & X_OK) && !(bits & 1)))
    {
        return NGX_ERROR;
    }

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_check_files(ngx_cycle_t *cycle, ngx_str_t *db)
{
    u_char            *user;
    u_char             data[NGX_MAX_PATH], lock[NGX_MAX_PATH];
    ngx_file_info_t    fi;
    ngx_core_conf_t   *ccf;

    ccf = (ngx_core_conf_t *) ngx_get_conf(cycle->conf_ctx, ngx_core_module);

    if (ngx_file_info(db->data, &fi) == NGX_FILE_ERROR) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                      "chaindata_db \"%V\" cannot be read; build the index "
                      "there with \"chaindata-load --db %V FILE\"", db, db);
        return NGX_ERROR;
    }

    if (!ngx_is_dir(&fi)) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "chaindata_db \"%V\" is not a directory", db);
        return NGX_ERROR;
    }

    if (db->len + sizeof("/data.mdb") > NGX_MAX_PATH) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "chaindata_db \"%V\" is too long a path", db);
        return NGX_ERROR;
    }

    ngx_sprintf(data, "%V/data.mdb%Z", db);
    ngx_sprintf(lock, "%V/lock.mdb%Z", db);

    if (ngx_file_info(data, &fi) == NGX_FILE_ERROR
        || ngx_file_info(lock, &fi) == NGX_FILE_ERROR)
    {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                      "chaindata_db \"%V\" holds no LMDB index (data.mdb "
                      "and lock.mdb); build it with "
                      "\"chaindata-load --db %V FILE\"", db, db);
        return NGX_ERROR;
    }

    user = (u_char *) (geteuid() == 0 && ccf->username
                       ? ccf->username : "this user");

    if (ngx_http_chaindata_worker_may(ccf, (char *) db->data, X_OK) != NGX_OK
        || ngx_http_chaindata_worker_may(ccf, (char *) data, R_OK) != NGX_OK)
    {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "chaindata_db \"%V\": the worker user \"%s\" cannot "
                      "read %s (the directory and every one above it must "
                      "be searchable by that user)", db, user, data);
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_worker_may(ccf, (char *) lock, R_OK|W_OK)
        != NGX_OK)
    {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "chaindata_db \"%V\": the worker user \"%s\" cannot "
                      "write %s; LMDB readers register in the lock file, so "
                      "it must be writable by the user nginx workers run as "
                      "(e.g. chown that user, or a group it is in with "
                      "mode 0664)", db, user, lock);
        return NGX_ERROR;
    }

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_store_check(ngx_cycle_t *cycle, ngx_str_t *db,
    ngx_uint_t max_readers)
{
    int          rc, mdb_rc;
    char         err[CHAINDATA_DATA_FILE_ERR_LEN];
    MDB_env     *env;
    MDB_dbi      dbi[CHAINDATA_DBI_COUNT];
    const char  *failure;

    if (ngx_http_chaindata_check_files(cycle, db) != NGX_OK) {
        return NGX_ERROR;
    }

    if (chaindata_data_file_check((char *) db->data, err, sizeof(err))
        != 0)
    {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "chaindata_db \"%V\": %s", db, err);
        return NGX_ERROR;
    }

    rc = ngx_http_chaindata_env_open(&env, db->data, max_readers, 0);

    if (rc != 0) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "chaindata_db \"%V\": cannot open the index: %s",
                      db, mdb_strerror(rc));
        return NGX_ERROR;
    }

    failure = ngx_http_chaindata_store_attach(env, dbi, &mdb_rc);

    mdb_env_close(env);

    if (failure) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "chaindata_db \"%V\": %s%s%s", db, failure,
                      mdb_rc ? ": " : "", mdb_rc ? mdb_strerror(mdb_rc) : "");
        return NGX_ERROR;
    }

    return NGX_OK;
}


/*
 * Logs why the index cannot be read, at level, once: not again while it
 * stays unreadable for the same reason (requests that find it so answer
 * 503, or the index open serves on, and log nothing), again when the
 * reason changes.
 */

static void
ngx_http_chaindata_store_failed(ngx_log_t *log, ngx_uint_t level,
    const char *what, int rc)
{
    u_char                      *p;
    u_char                       text[NGX_HTTP_CHAINDATA_FAILURE_LEN];
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    if (rc == EACCES) {
        p = ngx_snprintf(text, sizeof(text) - 1, "this worker (uid %d) may "
                         "not open the index; LMDB readers need read "
                         "access to data.mdb and write access to lock.mdb",
                         (int) geteuid());

    } else {
        p = ngx_snprintf(text, sizeof(text) - 1, "%s%s%s", what,
                         rc ? ": " : "", rc ? mdb_strerror(rc) : "");
    }

    *p = '\0';

    if (ngx_strcmp(st->failure, text) == 0) {
        return;
    }

    ngx_memcpy(st->failure, text, p - text + 1);
    st->failure_rc = rc;

    ngx_log_error(level, log, 0, "chaindata_db \"%V\": %s%s", &st->path,
                  st->failure,
                  st->stale ? "; the index open serves on, and the new one "
                              "is tried again each second" : "");
}


/* after a failure was logged, says once that the index can be read */

static void
ngx_http_chaindata_store_readable(ngx_log_t *log)
{
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    if (st->failure[0] == '\0' || st->stale) {
        return;
    }

    st->failure[0] = '\0';
    st->failure_rc = 0;

    ngx_log_error(NGX_LOG_NOTICE, log, 0,
                  "chaindata_db \"%V\": the index can be read again",
                  &st->path);
}


/* which file DIR/name is: NGX_OK, or NGX_DECLINED when there is none */

static ngx_int_t
ngx_http_chaindata_file_id(ngx_str_t *dir, const char *name,
    ngx_http_chaindata_file_id_t *id)
{
    u_char           path[NGX_MAX_PATH];
    ngx_file_info_t  fi;

    if (dir->len + 1 + ngx_strlen(name) + 1 > NGX_MAX_PATH) {
        return NGX_DECLINED;
    }

    ngx_sprintf(path, "%V/%s%Z", dir, name);

    if (ngx_file_info(path, &fi) == NGX_FILE_ERROR) {
        return NGX_DECLINED;
    }

    id->dev = fi.st_dev;
    id->ino = fi.st_ino;

    return NGX_OK;
}


/*
 * Notes which files the environment just opened is made of: data.mdb by
 * its descriptor, lock.mdb by its path, which LMDB opened a moment ago.
 */

static void
ngx_http_chaindata_store_note_files(ngx_http_chaindata_store_t *st)
{
    int              fd;
    ngx_file_info_t  fi;

    ngx_memzero(&st->data, sizeof(ngx_http_chaindata_file_id_t));
    ngx_memzero(&st->lock, sizeof(ngx_http_chaindata_file_id_t));

    if (mdb_env_get_fd(st->env, &fd) == 0
        && ngx_fd_info(fd, &fi) != NGX_FILE_ERROR)
    {
        st->data.dev = fi.st_dev;
        st->data.ino = fi.st_ino;
    }

    (void) ngx_http_chaindata_file_id(&st->path, "lock.mdb", &st->lock);
}


/*
 * Whether another index was renamed over the one open, the directory or
 * its files, as operators swap in an index built beside: looks at most
 * once a second.  Nothing at the path (between the two renames of a
 * swap, or an index moved away) is no change: the open one serves on.
 */

static ngx_uint_t
ngx_http_chaindata_store_replaced(ngx_http_chaindata_store_t *st)
{
    ngx_http_chaindata_file_id_t  id;

    if (ngx_time() < st->look) {
        return 0;
    }

    st->look = ngx_time() + NGX_HTTP_CHAINDATA_RECHECK;

    if (ngx_http_chaindata_file_id(&st->path, "data.mdb", &id) != NGX_OK) {
        return 0;
    }

    if (id.dev != st->data.dev || id.ino != st->data.ino) {
        return 1;
    }

    if (ngx_http_chaindata_file_id(&st->path, "lock.mdb", &id) != NGX_OK) {
        return 0;
    }

    return id.dev != st->lock.dev || id.ino != st->lock.ino;
}


/* data.mdb against its meta pages: NGX_OK, or why not in err */

static ngx_int_t
ngx_http_chaindata_store_check_data(ngx_http_chaindata_store_t *st,
    char *err, size_t len)
{
    u_char  *p;
    char     why[CHAINDATA_DATA_FILE_ERR_LEN];

    if (chaindata_data_file_check((char *) st->path.data, why, sizeof(why))
        == 0)
    {
        return NGX_OK;
    }

    p = ngx_snprintf((u_char *) err, len - 1, "cannot open the index: %s",
                     why);
    *p = '\0';

    return NGX_ERROR;
}


/*
 * Whether the index renamed over the one open can be served, tried
 * before the one open is let go: its data.mdb holds the pages its meta
 * pages name, and LMDB opens it and finds the schema.  The trial opens it
 * without the lock file (MDB_NOLOCK): a second environment on the lock
 * file the open one holds would drop this process's locks in it when
 * closed (POSIX locks are the process's, per file).  NULL, or why not.
 */

static const char *
ngx_http_chaindata_store_try(ngx_http_chaindata_store_t *st, int *mdb_rc)
{
    MDB_env     *env;
    MDB_dbi      dbi[CHAINDATA_DBI_COUNT];
    const char  *failure;

    static char  err[NGX_HTTP_CHAINDATA_FAILURE_LEN];

    *mdb_rc = 0;

    if (ngx_http_chaindata_store_check_data(st, err, sizeof(err)) != NGX_OK) {
        return err;
    }

    *mdb_rc = ngx_http_chaindata_env_open(&env, st->path.data,
                                          st->max_readers, MDB_NOLOCK);
    if (*mdb_rc != 0) {
        return "cannot open the index";
    }

    failure = ngx_http_chaindata_store_attach(env, dbi, mdb_rc);

    mdb_env_close(env);

    return failure;
}


static ngx_int_t
ngx_http_chaindata_store_reopen(ngx_log_t *log)
{
    int                          rc, mdb_rc, dead;
    char                         err[NGX_HTTP_CHAINDATA_FAILURE_LEN];
    const char                  *failure;
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    /* a file shorter than its meta pages say would fault once mapped */
    if (ngx_http_chaindata_store_check_data(st, err, sizeof(err)) != NGX_OK) {
        ngx_http_chaindata_store_failed(log, NGX_LOG_ALERT, err, 0);
        goto failed;
    }

    rc = ngx_http_chaindata_env_open(&st->env, st->path.data,
                                     st->max_readers, 0);

    if (rc != 0) {
        ngx_http_chaindata_store_failed(log, NGX_LOG_ALERT,
                                        "cannot open the index", rc);
        goto failed;
    }

    ngx_http_chaindata_store_note_files(st);
    st->look = ngx_time() + NGX_HTTP_CHAINDATA_RECHECK;
    st->generation++;

    /* the reader slots of killed workers are freed here */
    (void) mdb_reader_check(st->env, &dead);

    if (dead) {
        ngx_log_error(NGX_LOG_NOTICE, log, 0,
                      "chaindata: cleared %d stale LMDB reader slots", dead);
    }

    failure = ngx_http_chaindata_store_attach(st->env, st->dbi, &mdb_rc);
    if (failure) {
        ngx_http_chaindata_store_failed(log, NGX_LOG_ALERT, failure, mdb_rc);
        goto failed;
    }

    rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &st->txn);
    if (rc != 0) {
        ngx_http_chaindata_store_failed(log, NGX_LOG_ALERT,
                                        "cannot begin a read transaction",
                                        rc);
        goto failed;
    }

    if (!st->told) {
        ngx_http_chaindata_store_tell(log);
    }

    mdb_txn_reset(st->txn);

    return NGX_OK;

failed:

    if (st->env) {
        mdb_env_close(st->env);
        st->env = NULL;
    }

    st->retry = ngx_time() + NGX_HTTP_CHAINDATA_RECHECK;

    return NGX_ERROR;
}


/*
 * Another index was renamed over the one open: it is opened when it can
 * be served; otherwise the one open serves on ([alert], counted), and the
 * new one is tried again at the next look, a second later.
 */

static void
ngx_http_chaindata_store_swap(ngx_log_t *log)
{
    int                            mdb_rc;
    const char                    *failure;
    ngx_http_chaindata_store_t    *st;
    ngx_http_chaindata_file_id_t   id;

    st = &ngx_http_chaindata_store;

    failure = ngx_http_chaindata_store_try(st, &mdb_rc);

    if (failure) {
        /* each file refused counts once, not each second it stays */
        if (ngx_http_chaindata_file_id(&st->path, "data.mdb", &id) == NGX_OK
            && (id.dev != st->refused.dev || id.ino != st->refused.ino))
        {
            st->refused = id;
            ngx_http_chaindata_metrics_swap_refused();
        }

        st->stale = 1;
        ngx_http_chaindata_store_failed(log, NGX_LOG_ALERT, failure, mdb_rc);
        return;
    }

    ngx_log_error(NGX_LOG_NOTICE, log, 0,
                  "chaindata_db \"%V\": another index was renamed over "
                  "the one open; opening it", &st->path);

    st->stale = 0;
    ngx_http_chaindata_store_close();
    st->retry = 0;
}


ngx_int_t
ngx_http_chaindata_store_open(ngx_log_t *log, ngx_str_t *db,
    ngx_uint_t max_readers, ngx_uint_t routes)
{
    ngx_http_chaindata_store.path = *db;
    ngx_http_chaindata_store.max_readers = max_readers;
    ngx_http_chaindata_store.routes = routes;

    /* a failure is logged and retried by the requests that need it */
    (void) ngx_http_chaindata_store_reopen(log);

    return NGX_OK;
}


void
ngx_http_chaindata_store_close(void)
{
    ngx_uint_t                   i;
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    for (i = 0; i < CHAINDATA_DBI_COUNT; i++) {
        if (st->cursor[i]) {
            mdb_cursor_close(st->cursor[i]);
            st->cursor[i] = NULL;
        }
    }

    if (st->txn) {
        mdb_txn_abort(st->txn);
        st->txn = NULL;
    }

    if (st->env) {
        /* closed when no thread reads it any more (chaindata_threads) */
        ngx_http_chaindata_threads_env_close(st->env);
        st->env = NULL;
    }
}


ngx_int_t
ngx_http_chaindata_store_begin(ngx_log_t *log)
{
    int                          rc, dead;
    ngx_uint_t                   tries;
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    /* between requests no read is active: the environment may change */
    if (st->env && !st->active && ngx_http_chaindata_store_replaced(st)) {
        ngx_http_chaindata_store_swap(log);
    }

    if (st->env == NULL) {
        if (st->path.len == 0 || ngx_time() < st->retry
            || ngx_http_chaindata_store_reopen(log) != NGX_OK)
        {
            return NGX_DECLINED;
        }
    }

    for (tries = 0; /* void */; tries++) {
        rc = mdb_txn_renew(st->txn);

        if (rc == 0) {
            st->active = 1;
            st->first.mv_data = NULL;
            ngx_http_chaindata_store_readable(log);
            return NGX_OK;
        }

        if (tries == 2) {
            break;
        }

        if (rc == MDB_MAP_RESIZED) {
            /* the loader grew the map: adopt its size and try again */
            ngx_http_chaindata_threads_map_lock(st->env);
            rc = mdb_env_set_mapsize(st->env, 0);
            ngx_http_chaindata_threads_map_unlock(st->env);

            /* the map may have moved: what was where is told again */
            st->generation++;
            if (rc != 0) {
                break;
            }

            continue;
        }

        if (rc == MDB_READERS_FULL || rc == MDB_BAD_RSLOT) {
            (void) mdb_reader_check(st->env, &dead);
            continue;
        }

        break;
    }

    ngx_http_chaindata_store_failed(log, NGX_LOG_ERR,
                                    "cannot begin a read transaction", rc);

    if (rc == MDB_PANIC || rc == MDB_VERSION_MISMATCH || rc == MDB_INVALID) {
        ngx_http_chaindata_store_close();
        st->retry = ngx_time() + NGX_HTTP_CHAINDATA_RECHECK;
    }

    return NGX_DECLINED;
}


void
ngx_http_chaindata_store_end(void)
{
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    if (st->active) {
        mdb_txn_reset(st->txn);
        st->active = 0;
    }
}


ngx_uint_t
ngx_http_chaindata_store_readers_full(void)
{
    return ngx_http_chaindata_store.failure_rc == MDB_READERS_FULL;
}


const char *
ngx_http_chaindata_store_failure(void)
{
    u_char  *failure;

    failure = ngx_http_chaindata_store.failure;

    return failure[0] ? (const char *) failure : NULL;
}


/*
 * The lines of a value just found are asked for at once: the answer reads
 * them all, and one after the other each would be a miss of its own
 * (bench/RESULTS.md, "2026-11-23 (third)": gzip answers 3-15 % cheaper).
 */

static void
ngx_http_chaindata_store_prefetch(MDB_val *val)
{
#if (defined __GNUC__)
    u_char  *p, *last;

    p = val->mv_data;
    last = p + ngx_min(val->mv_size, NGX_HTTP_CHAINDATA_PREFETCH);

    for ( /* void */ ; p < last; p += NGX_CPU_CACHE_LINE) {
        __builtin_prefetch(p);
    }
#endif
}


ngx_int_t
ngx_http_chaindata_store_get(ngx_log_t *log, chaindata_dbi_e db,
    u_char *key, size_t key_len, MDB_val *val)
{
    int                          rc;
    MDB_val                      k;
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    k.mv_data = key;
    k.mv_size = key_len;

    rc = mdb_get(st->txn, st->dbi[db], &k, val);

    if (rc == 0) {
        if (st->first.mv_data == NULL) {
            st->first = *val;
        }

        ngx_http_chaindata_store_prefetch(val);
        return NGX_OK;
    }

    if (rc == MDB_NOTFOUND) {
        return NGX_DECLINED;
    }

    ngx_log_error(NGX_LOG_ERR, log, 0, "chaindata: reading \"%s\" failed: %s",
                  chaindata_db_names[db], mdb_strerror(rc));

    return NGX_ERROR;
}


ngx_int_t
ngx_http_chaindata_store_range(ngx_log_t *log, chaindata_dbi_e db,
    u_char *prefix, size_t prefix_len, u_char *start, size_t start_len,
    MDB_val *vals, ngx_uint_t n, ngx_uint_t *got)
{
    int                          rc;
    MDB_val                      k;
    MDB_cursor                  *cur;
    MDB_cursor_op                op;
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;
    *got = 0;

    if (n == 0) {
        return NGX_OK;
    }

    /* one cursor per database, kept and renewed: no allocation here */
    cur = st->cursor[db];

    if (cur) {
        rc = mdb_cursor_renew(st->txn, cur);

    } else {
        rc = mdb_cursor_open(st->txn, st->dbi[db], &cur);
        st->cursor[db] = cur;
    }

    if (rc != 0) {
        goto failed;
    }

    k.mv_data = start;
    k.mv_size = start_len;
    op = MDB_SET_RANGE;

    while (*got < n) {
        rc = mdb_cursor_get(cur, &k, &vals[*got], op);

        if (rc == MDB_NOTFOUND) {
            rc = 0;
            break;
        }

        if (rc != 0) {
            break;
        }

        if (k.mv_size < prefix_len
            || ngx_memcmp(k.mv_data, prefix, prefix_len) != 0)
        {
            break;
        }

        ngx_http_chaindata_store_prefetch(&vals[*got]);

        (*got)++;
        op = MDB_NEXT;
    }

    if (rc == 0) {
        return NGX_OK;
    }

failed:

    ngx_log_error(NGX_LOG_ERR, log, 0, "chaindata: reading \"%s\" failed: %s",
                  chaindata_db_names[db], mdb_strerror(rc));

    return NGX_ERROR;
}


MDB_env *
ngx_http_chaindata_store_env(MDB_dbi **dbi, ngx_uint_t *generation)
{
    *dbi = ngx_http_chaindata_store.dbi;
    *generation = ngx_http_chaindata_store.generation;

    return ngx_http_chaindata_store.env;
}


ngx_int_t
ngx_http_chaindata_store_first(MDB_val *val, ngx_uint_t *generation)
{
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    if (!st->active) {
        return NGX_DECLINED;
    }

    *val = st->first;
    *generation = st->generation;

    return NGX_OK;
}


/*
 * The history the index holds of a chain, in the read transaction: read
 * at the first miss of a snapshot, then kept until the index changes (a
 * write, another opening), so a miss costs no more than a lookup.
 */

ngx_int_t
ngx_http_chaindata_store_history(ngx_log_t *log,
    chaindata_history_source_e source, chaindata_history_t *h)
{
    int                          rc;
    size_t                       txn;
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    txn = mdb_txn_id(st->txn);

    if (st->history_generation != st->generation || st->history_txn != txn) {
        st->history_generation = st->generation;
        st->history_txn = txn;
        st->history_read = 0;
    }

    if (!(st->history_read & (1 << source))) {
        rc = chaindata_history_read(st->txn, st->dbi, source,
                                    &st->history[source]);
        if (rc != 0) {
            ngx_log_error(NGX_LOG_ERR, log, 0,
                          "chaindata: reading the history of the %s feed "
                          "failed: %s", chaindata_history_feeds[source].source,
                          mdb_strerror(rc));
            return NGX_ERROR;
        }

        st->history_read |= 1 << source;
    }

    *h = st->history[source];

    return NGX_OK;
}


/*
 * Once, when the index first opens: a configured route without a feed
 * behind it, or whose feed starts after the chain's first block, answers
 * what the index does not hold from chaindata_miss_fallback, or 503.
 */

static void
ngx_http_chaindata_store_tell(ngx_log_t *log)
{
    ngx_uint_t                       i;
    chaindata_history_t              h;
    const chaindata_history_feed_t  *feed;
    ngx_http_chaindata_store_t      *st;

    st = &ngx_http_chaindata_store;
    st->told = 1;

    for (i = 0; i < CHAINDATA_HISTORY_SOURCES; i++) {

        if (!(st->routes & (1 << i))) {
            continue;
        }

        feed = &chaindata_history_feeds[i];

        if (chaindata_history_read(st->txn, st->dbi, i, &h) != 0) {
            continue;
        }

        switch (h.kind) {

        case CHAINDATA_HISTORY_NONE:
            ngx_log_error(NGX_LOG_WARN, log, 0,
                          "chaindata_db \"%V\": the %s routes have no "
                          "feed behind them (no %s feed, none of its "
                          "records): what they ask goes to "
                          "chaindata_miss_fallback, or answers 503",
                          &st->path, feed->routes, feed->source);
            break;

        case CHAINDATA_HISTORY_EMPTY:
            ngx_log_error(NGX_LOG_WARN, log, 0,
                          "chaindata_db \"%V\": the %s feed behind the %s "
                          "routes has no block yet: what the index does not "
                          "hold goes to chaindata_miss_fallback, or answers "
                          "503", &st->path, feed->source, feed->routes);
            break;

        case CHAINDATA_HISTORY_PARTIAL:
            ngx_log_error(NGX_LOG_NOTICE, log, 0,
                          "chaindata_db \"%V\": the %s feed holds blocks "
                          "from %uL on, not from the chain's first (%uL): "
                          "what the index does not hold goes to "
                          "chaindata_miss_fallback, or answers 503",
                          &st->path, feed->source, h.first,
                          feed->chain_first);
            break;

        default:
            break;
        }
    }
}


/* chaindata_status: gathered in the request's read transaction */

ngx_int_t
ngx_http_chaindata_store_status(ngx_log_t *log, chaindata_status_t *status)
{
    int                          rc;
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    rc = chaindata_status_gather(st->env, st->txn, st->dbi, status);

    if (rc != 0) {
        ngx_log_error(NGX_LOG_ERR, log, 0,
                      "chaindata_db \"%V\": cannot read its status: %s",
                      &st->path, mdb_strerror(rc));
        return NGX_ERROR;
    }

    return NGX_OK;
}
