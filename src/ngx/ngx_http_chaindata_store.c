
/*
 * chaindata: LMDB access for the module (see the header).
 */


#include <ngx_config.h>
#include <ngx_core.h>

#include "chaindata_history.h"
#include "chaindata_parts.h"
#include "chaindata_schema.h"
#include "chaindata_status.h"
#include "ngx_http_chaindata_env.h"
#include "ngx_http_chaindata_history.h"
#include "ngx_http_chaindata_metrics.h"
#include "ngx_http_chaindata_read.h"
#include "ngx_http_chaindata_store.h"


/*
 * How often, in seconds, a worker looks at the index's path again: to try
 * an index it cannot read, and to notice one renamed over the one open.
 */
#define NGX_HTTP_CHAINDATA_RECHECK  1

/* how much of a value is fetched ahead of its reading */
#define NGX_HTTP_CHAINDATA_PREFETCH  4096


typedef struct {
    MDB_env                       *env;
    MDB_txn                       *txn;
    MDB_dbi                        dbi[CHAINDATA_DBI_COUNT];
    MDB_cursor                    *cursor[CHAINDATA_DBI_COUNT];
    ngx_str_t                      path;
    ngx_uint_t                     max_readers;

    /* the files of the environment open */
    ngx_http_chaindata_env_files_t files;

    /* the last data.mdb renamed over it that could not be opened */
    ngx_http_chaindata_file_id_t   refused;

    time_t                         retry;
    time_t                         look;

    /* which opening this is (the map may have moved since the last) */
    ngx_uint_t                     generation;

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
        p = ngx_http_chaindata_env_denied(text, text + sizeof(text) - 1);

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


/*
 * Whether another index was renamed over the one open: looks at most once
 * a second (ngx_http_chaindata_env_replaced()).
 */

static ngx_uint_t
ngx_http_chaindata_store_replaced(ngx_http_chaindata_store_t *st)
{
    if (ngx_time() < st->look) {
        return 0;
    }

    st->look = ngx_time() + NGX_HTTP_CHAINDATA_RECHECK;

    return ngx_http_chaindata_env_replaced(&st->path, &st->files);
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
    if (ngx_http_chaindata_env_check_data(&st->path, err, sizeof(err))
        != NGX_OK)
    {
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

    ngx_http_chaindata_env_files(st->env, &st->path, &st->files);
    st->look = ngx_time() + NGX_HTTP_CHAINDATA_RECHECK;
    st->generation++;

    /* the reader slots of killed workers are freed here */
    (void) mdb_reader_check(st->env, &dead);

    if (dead) {
        ngx_log_error(NGX_LOG_NOTICE, log, 0,
                      "chaindata: cleared %d stale LMDB reader slots", dead);
    }

    failure = ngx_http_chaindata_env_attach(st->env, st->dbi, &mdb_rc);
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
    char                           err[NGX_HTTP_CHAINDATA_FAILURE_LEN];
    const char                    *failure;
    ngx_http_chaindata_store_t    *st;
    ngx_http_chaindata_file_id_t   id;

    st = &ngx_http_chaindata_store;

    failure = ngx_http_chaindata_env_try(&st->path, st->max_readers, &mdb_rc,
                                         err);

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
        ngx_http_chaindata_env_close(st->env);
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
            ngx_http_chaindata_store_readable(log);
            return NGX_OK;
        }

        if (tries == 2) {
            break;
        }

        if (rc == MDB_MAP_RESIZED) {
            /* the loader grew the map: adopt its size and try again */
            rc = ngx_http_chaindata_env_remap(st->env);

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


typedef struct {
    ngx_pool_t  *pool;
    MDB_val     *at;        /* a record's place: at[0], at[1] */
    MDB_val     *first;     /* the first chunk's place, when unset */
} ngx_http_chaindata_store_found_t;


/*
 * Where a value lies in the map, for chaindata_threads' hints (whose
 * mincore() then asks about every page it takes): at[0] the value, or its
 * first part, and at[1] its other parts, the stretch from their lowest
 * byte to their highest (they are the next keys: on one leaf page or the
 * next ones, in either order), or the first of them when they lie farther
 * apart than that; mv_data NULL when there are none.
 */

static void
ngx_http_chaindata_store_at(MDB_val *at, const MDB_val *val,
    const MDB_val *part, size_t n)
{
    u_char  *lo, *hi, *p;
    size_t   i;

    at[0] = *val;
    at[1].mv_data = NULL;
    at[1].mv_size = 0;

    if (n == 0) {
        return;
    }

    at[1] = part[0];
    lo = part[0].mv_data;
    hi = lo + part[0].mv_size;

    for (i = 1; i < n; i++) {
        p = part[i].mv_data;
        lo = ngx_min(lo, p);
        hi = ngx_max(hi, p + part[i].mv_size);
    }

    if ((size_t) (hi - lo) <= (n + 1) * ngx_pagesize) {
        at[1].mv_data = lo;
        at[1].mv_size = hi - lo;
    }
}


/* a value found: prefetched, or when in parts joined into the pool */

static int
ngx_http_chaindata_store_found(void *data, MDB_val *val, const MDB_val *part,
    size_t n, size_t len)
{
    ngx_http_chaindata_store_found_t *f = data;

    u_char  *p;

    if (f->at) {
        ngx_http_chaindata_store_at(f->at, val, part, n);
    }

    if (f->first && f->first->mv_data == NULL) {
        *f->first = *val;
    }

    if (n == 0) {
        ngx_http_chaindata_store_prefetch(val);
        return 0;
    }

    p = ngx_pnalloc(f->pool, len);
    if (p == NULL) {
        return ENOMEM;
    }

    chaindata_parts_join(p, val, part, n);

    val->mv_data = p;
    val->mv_size = len;

    return 0;
}


/* the worker's cursor of db, kept and renewed in the read transaction */

static int
ngx_http_chaindata_store_cursor(chaindata_dbi_e db, MDB_cursor **cur)
{
    int                          rc;
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;

    if (st->cursor[db]) {
        *cur = st->cursor[db];
        return mdb_cursor_renew(st->txn, *cur);
    }

    rc = mdb_cursor_open(st->txn, st->dbi[db], cur);

    if (rc == 0) {
        st->cursor[db] = *cur;
    }

    return rc;
}


/* the record the read names: NGX_OK, NGX_DECLINED when absent, NGX_ERROR */

ngx_int_t
ngx_http_chaindata_store_read(ngx_log_t *log, ngx_pool_t *pool,
    const ngx_http_chaindata_read_t *read, MDB_val *record, MDB_val *at)
{
    int                               rc;
    MDB_cursor                       *cur;
    ngx_http_chaindata_store_t       *st;
    ngx_http_chaindata_store_found_t  f;

    st = &ngx_http_chaindata_store;
    f.pool = pool;
    f.at = at;
    f.first = NULL;

    /* the kept cursor finds a value's parts: no cursor allocated a request */
    rc = ngx_http_chaindata_store_cursor(read->db, &cur);

    if (rc == 0) {
        rc = ngx_http_chaindata_read_record(st->txn, st->dbi, cur, read,
                                            record,
                                            ngx_http_chaindata_store_found,
                                            &f);
    }

    if (rc == 0) {
        return NGX_OK;
    }

    if (rc == MDB_NOTFOUND) {
        return NGX_DECLINED;
    }

    ngx_log_error(NGX_LOG_ERR, log, 0, "chaindata: reading \"%s\" failed: %s",
                  chaindata_db_names[read->db], chaindata_parts_strerror(rc));

    return NGX_ERROR;
}


/*
 * The chunks of the page the read names, of the record's list of count
 * items, whose first chunk the record may hold (chunk0): NGX_OK or
 * NGX_ERROR (logged); no allocation here but a chunk's parts joined.
 */

ngx_int_t
ngx_http_chaindata_store_chunks(ngx_log_t *log, ngx_pool_t *pool,
    const ngx_http_chaindata_read_t *read, uint64_t count,
    const MDB_val *chunk0, ngx_http_chaindata_plan_t *plan, MDB_val *at)
{
    int                               rc;
    MDB_cursor                       *cur;
    ngx_http_chaindata_store_found_t  f;

    if (!ngx_http_chaindata_read_plan(read, count, chunk0, plan)) {
        return NGX_OK;
    }

    f.pool = pool;
    f.at = NULL;
    f.first = at;

    rc = ngx_http_chaindata_store_cursor(read->list_db, &cur);

    if (rc == 0) {
        rc = ngx_http_chaindata_read_chunks(cur, read, plan,
                                            ngx_http_chaindata_store_found,
                                            &f);
    }

    if (rc == 0) {
        return NGX_OK;
    }

    ngx_log_error(NGX_LOG_ERR, log, 0, "chaindata: reading \"%s\" failed: %s",
                  chaindata_db_names[read->list_db],
                  chaindata_parts_strerror(rc));

    return NGX_ERROR;
}


MDB_env *
ngx_http_chaindata_store_env(MDB_dbi **dbi, ngx_uint_t *generation)
{
    *dbi = ngx_http_chaindata_store.dbi;
    *generation = ngx_http_chaindata_store.generation;

    return ngx_http_chaindata_store.env;
}


MDB_txn *
ngx_http_chaindata_store_txn(MDB_dbi **dbi)
{
    *dbi = ngx_http_chaindata_store.dbi;

    return ngx_http_chaindata_store.active ? ngx_http_chaindata_store.txn
                                           : NULL;
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
                          "failed: %s", chaindata_feeds[source].source,
                          mdb_strerror(rc));
            return NGX_ERROR;
        }

        st->history_read |= 1 << source;
    }

    *h = st->history[source];

    return NGX_OK;
}


/*
 * Once, when the index first opens: what the configuration's check said
 * (ngx_http_chaindata_history_tell()), in the error log as configured.
 */

static void
ngx_http_chaindata_store_tell(ngx_log_t *log)
{
    ngx_http_chaindata_store_t  *st;

    st = &ngx_http_chaindata_store;
    st->told = 1;

    ngx_http_chaindata_history_tell(log, st->txn, st->dbi, &st->path,
                                    st->routes);
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
