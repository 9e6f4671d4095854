
/*
 * chaindata: an LMDB environment's lifetime (see the header).
 *
 * The environments the threads read are counted: an index renamed over
 * the one open (ngx_http_chaindata_store.c) is closed only when the last
 * task reading it has ended, and the map is not remapped (a grown map)
 * while a thread reads it.  Each thread's read transaction is one reader
 * slot, kept (reset) for the next task of any thread, and aborted with
 * its environment.
 */


#include <ngx_config.h>
#include <ngx_core.h>

#include <grp.h>

#include "chaindata_data_file.h"
#include "chaindata_schema.h"
#include "ngx_http_chaindata_env.h"
#include "ngx_http_chaindata_history.h"


/*
 * Opens the index read-only as every reader of the module does: the
 * first process to open lock.mdb while nobody has it open sizes its
 * reader table with max_readers.  Returns 0 or LMDB's error.
 */

int
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

const char *
ngx_http_chaindata_env_attach(MDB_env *env, MDB_dbi *dbi, int *mdb_rc)
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


/*
 * The check says it too, in its own read transaction: "nginx -t" prints
 * a warning, and a start writes it where nginx logs before it has read
 * error_log (the default error log), whatever level error_log keeps.
 */

static void
ngx_http_chaindata_env_check_tell(ngx_log_t *log, MDB_env *env,
    MDB_dbi *dbi, ngx_str_t *db, ngx_uint_t routes)
{
    MDB_txn  *txn;

    if (routes == 0 || mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) != 0) {
        return;
    }

    ngx_http_chaindata_history_tell(log, txn, dbi, db, routes);

    mdb_txn_abort(txn);
}


ngx_int_t
ngx_http_chaindata_env_check(ngx_cycle_t *cycle, ngx_str_t *db,
    ngx_uint_t max_readers, ngx_uint_t routes)
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

    failure = ngx_http_chaindata_env_attach(env, dbi, &mdb_rc);

    if (failure == NULL) {
        ngx_http_chaindata_env_check_tell(cycle->log, env, dbi, db, routes);
    }

    mdb_env_close(env);

    if (failure) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "chaindata_db \"%V\": %s%s%s", db, failure,
                      mdb_rc ? ": " : "", mdb_rc ? mdb_strerror(mdb_rc) : "");
        return NGX_ERROR;
    }

    return NGX_OK;
}


/* which file DIR/name is: NGX_OK, or NGX_DECLINED when there is none */

ngx_int_t
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
 * Which files the environment just opened is made of: data.mdb by its
 * descriptor, lock.mdb by its path, which LMDB opened a moment ago.
 */

void
ngx_http_chaindata_env_files(MDB_env *env, ngx_str_t *path,
    ngx_http_chaindata_env_files_t *files)
{
    int              fd;
    ngx_file_info_t  fi;

    ngx_memzero(files, sizeof(ngx_http_chaindata_env_files_t));

    if (mdb_env_get_fd(env, &fd) == 0
        && ngx_fd_info(fd, &fi) != NGX_FILE_ERROR)
    {
        files->data.dev = fi.st_dev;
        files->data.ino = fi.st_ino;
    }

    (void) ngx_http_chaindata_file_id(path, "lock.mdb", &files->lock);
}


/*
 * Whether another index was renamed over the one open, the directory or
 * its files, as operators swap in an index built beside.  Nothing at the
 * path (between the two renames of a swap, or an index moved away) is no
 * change: the open one serves on.
 */

ngx_uint_t
ngx_http_chaindata_env_replaced(ngx_str_t *path,
    ngx_http_chaindata_env_files_t *files)
{
    ngx_http_chaindata_file_id_t  id;

    if (ngx_http_chaindata_file_id(path, "data.mdb", &id) != NGX_OK) {
        return 0;
    }

    if (id.dev != files->data.dev || id.ino != files->data.ino) {
        return 1;
    }

    if (ngx_http_chaindata_file_id(path, "lock.mdb", &id) != NGX_OK) {
        return 0;
    }

    return id.dev != files->lock.dev || id.ino != files->lock.ino;
}


/*
 * Whether this process may open the index's files as a reader does:
 * data.mdb to read, lock.mdb to write (access() asks as the real user,
 * which a worker's is), and why not, as the workers' failures say it.
 */

ngx_err_t
ngx_http_chaindata_env_may_open(ngx_str_t *path)
{
    u_char  data[NGX_MAX_PATH], lock[NGX_MAX_PATH];

    if (path->len + sizeof("/data.mdb") > NGX_MAX_PATH) {
        return NGX_ENAMETOOLONG;
    }

    ngx_sprintf(data, "%V/data.mdb%Z", path);
    ngx_sprintf(lock, "%V/lock.mdb%Z", path);

    if (access((char *) data, R_OK) != 0
        || access((char *) lock, R_OK|W_OK) != 0)
    {
        return ngx_errno;
    }

    return 0;
}


u_char *
ngx_http_chaindata_env_denied(u_char *buf, u_char *last)
{
    return ngx_slprintf(buf, last, "this worker (uid %d) may not open the "
                        "index; LMDB readers need read access to data.mdb "
                        "and write access to lock.mdb", (int) geteuid());
}


/* data.mdb against its meta pages: NGX_OK, or why not in err */

ngx_int_t
ngx_http_chaindata_env_check_data(ngx_str_t *path, char *err, size_t len)
{
    u_char  *p;
    char     why[CHAINDATA_DATA_FILE_ERR_LEN];

    if (chaindata_data_file_check((char *) path->data, why, sizeof(why))
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

const char *
ngx_http_chaindata_env_try(ngx_str_t *path, ngx_uint_t max_readers,
    int *mdb_rc, char *err)
{
    MDB_env     *env;
    MDB_dbi      dbi[CHAINDATA_DBI_COUNT];
    const char  *failure;

    *mdb_rc = 0;

    if (ngx_http_chaindata_env_check_data(path, err,
                                          NGX_HTTP_CHAINDATA_FAILURE_LEN)
        != NGX_OK)
    {
        return err;
    }

    *mdb_rc = ngx_http_chaindata_env_open(&env, path->data, max_readers,
                                          MDB_NOLOCK);
    if (*mdb_rc != 0) {
        return "cannot open the index";
    }

    failure = ngx_http_chaindata_env_attach(env, dbi, mdb_rc);

    mdb_env_close(env);

    return failure;
}


#if (NGX_THREADS)

#include <pthread.h>


/* reset read transactions an environment keeps for the threads */
#define NGX_HTTP_CHAINDATA_TXNS  64


/* an environment the threads read, counted */
struct ngx_http_chaindata_held_s {
    MDB_env                     *env;
    MDB_dbi                      dbi[CHAINDATA_DBI_COUNT];
    ngx_uint_t                   tasks;     /* posted, not ended */
    ngx_uint_t                   retired;   /* the store closed it */

    /* the threads' reset transactions */
    ngx_thread_mutex_t           mutex;
    MDB_txn                     *txn[NGX_HTTP_CHAINDATA_TXNS];
    ngx_uint_t                   ntxn;

    /* read by the threads, written to remap the grown map */
    pthread_rwlock_t             map;

    ngx_http_chaindata_held_t   *next;
};


static ngx_http_chaindata_held_t  *ngx_http_chaindata_held;


/* the count of the environment the store has open, or NULL */

static ngx_http_chaindata_held_t *
ngx_http_chaindata_held_find(MDB_env *env)
{
    ngx_http_chaindata_held_t  *h;

    for (h = ngx_http_chaindata_held; h; h = h->next) {
        if (h->env == env && !h->retired) {
            return h;
        }
    }

    return NULL;
}


/* the environment's count, made when a task first reads it */

ngx_http_chaindata_held_t *
ngx_http_chaindata_env_hold(ngx_log_t *log, MDB_env *env, MDB_dbi *dbi)
{
    ngx_http_chaindata_held_t  *h;

    h = ngx_http_chaindata_held_find(env);
    if (h) {
        h->tasks++;
        return h;
    }

    h = ngx_calloc(sizeof(ngx_http_chaindata_held_t), log);
    if (h == NULL) {
        return NULL;
    }

    if (ngx_thread_mutex_create(&h->mutex, log) != NGX_OK) {
        ngx_free(h);
        return NULL;
    }

    if (pthread_rwlock_init(&h->map, NULL) != 0) {
        (void) ngx_thread_mutex_destroy(&h->mutex, log);
        ngx_free(h);
        return NULL;
    }

    h->env = env;
    ngx_memcpy(h->dbi, dbi, sizeof(h->dbi));
    h->tasks = 1;

    h->next = ngx_http_chaindata_held;
    ngx_http_chaindata_held = h;

    return h;
}


/* no task reads it any more: its transactions end, and it may close */

static void
ngx_http_chaindata_held_free(ngx_http_chaindata_held_t *h, ngx_log_t *log)
{
    ngx_uint_t                  i;
    ngx_http_chaindata_held_t **hp;

    for (hp = &ngx_http_chaindata_held; *hp; hp = &(*hp)->next) {
        if (*hp == h) {
            *hp = h->next;
            break;
        }
    }

    for (i = 0; i < h->ntxn; i++) {
        mdb_txn_abort(h->txn[i]);
    }

    (void) pthread_rwlock_destroy(&h->map);
    (void) ngx_thread_mutex_destroy(&h->mutex, log);

    if (h->retired) {
        mdb_env_close(h->env);
    }

    ngx_free(h);
}


/* a task ended (or was never posted): its environment may close now */

void
ngx_http_chaindata_env_release(ngx_http_chaindata_held_t *h, ngx_log_t *log)
{
    if (--h->tasks == 0 && h->retired) {
        ngx_http_chaindata_held_free(h, log);
    }
}


void
ngx_http_chaindata_env_close(MDB_env *env)
{
    ngx_http_chaindata_held_t  *h;

    h = ngx_http_chaindata_held_find(env);

    if (h == NULL) {
        mdb_env_close(env);
        return;
    }

    h->retired = 1;

    if (h->tasks == 0) {
        ngx_http_chaindata_held_free(h, ngx_cycle->log);
        return;
    }

    ngx_log_error(NGX_LOG_NOTICE, ngx_cycle->log, 0,
                  "chaindata_threads: the index renamed over is closed when "
                  "its %ui tasks in the thread pool end", h->tasks);
}


/* the map is remapped while no thread reads it */

int
ngx_http_chaindata_env_remap(MDB_env *env)
{
    int                         rc;
    ngx_http_chaindata_held_t  *h;

    h = ngx_http_chaindata_held_find(env);

    if (h) {
        (void) pthread_rwlock_wrlock(&h->map);
    }

    rc = mdb_env_set_mapsize(env, 0);

    if (h) {
        (void) pthread_rwlock_unlock(&h->map);
    }

    return rc;
}


/*
 * In a thread: a read transaction taken from the environment's reset
 * ones (a new one, a new reader slot, when none is free), under the map's
 * read lock until end.  0, or LMDB's error (then no end).
 */

int
ngx_http_chaindata_env_begin(ngx_http_chaindata_held_t *h, ngx_log_t *log,
    MDB_txn **txn, MDB_dbi **dbi)
{
    int  rc;

    *txn = NULL;
    *dbi = h->dbi;

    (void) pthread_rwlock_rdlock(&h->map);

    (void) ngx_thread_mutex_lock(&h->mutex, log);

    if (h->ntxn) {
        *txn = h->txn[--h->ntxn];
    }

    (void) ngx_thread_mutex_unlock(&h->mutex, log);

    if (*txn) {
        rc = mdb_txn_renew(*txn);

    } else {
        rc = mdb_txn_begin(h->env, NULL, MDB_RDONLY, txn);
    }

    if (rc != 0) {
        if (*txn) {
            mdb_txn_abort(*txn);
        }

        (void) pthread_rwlock_unlock(&h->map);
    }

    return rc;
}


/* in a thread: the transaction given back reset, whatever happened */

void
ngx_http_chaindata_env_end(ngx_http_chaindata_held_t *h, ngx_log_t *log,
    MDB_txn *txn)
{
    mdb_txn_reset(txn);

    (void) ngx_thread_mutex_lock(&h->mutex, log);

    if (h->ntxn < NGX_HTTP_CHAINDATA_TXNS) {
        h->txn[h->ntxn++] = txn;
        txn = NULL;
    }

    (void) ngx_thread_mutex_unlock(&h->mutex, log);

    if (txn) {
        mdb_txn_abort(txn);
    }

    (void) pthread_rwlock_unlock(&h->map);
}


/*
 * The worker exits: nginx's thread pools stopped first (their module
 * comes before this one), so no thread reads any environment now.
 */

void
ngx_http_chaindata_env_exit(void)
{
    while (ngx_http_chaindata_held) {
        ngx_http_chaindata_held->tasks = 0;
        ngx_http_chaindata_held_free(ngx_http_chaindata_held, ngx_cycle->log);
    }
}


#else /* !(NGX_THREADS) */


void
ngx_http_chaindata_env_close(MDB_env *env)
{
    mdb_env_close(env);
}


int
ngx_http_chaindata_env_remap(MDB_env *env)
{
    return mdb_env_set_mapsize(env, 0);
}


void
ngx_http_chaindata_env_exit(void)
{
}


#endif /* NGX_THREADS */
