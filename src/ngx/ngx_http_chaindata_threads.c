
/*
 * chaindata_threads: reads likely to fault leave the event loop.
 *
 * A route's read that would touch pages not in memory blocks the worker
 * on the disk, and every other connection of that worker with it.  With
 * chaindata_threads, such a read first runs in nginx's thread pool
 * (ngx_thread_task_post, as "aio threads" reads files): a thread runs the
 * route's description of its read (ngx_http_chaindata_read.h) in a read
 * transaction of its own and touches the pages of what it finds, and then
 * the event loop answers as it always does, from memory.  The thread only
 * warms: the answer is always made in the event loop, in its own read
 * transaction, so it is the one the route gives without the pool.
 *
 * Whether a read will fault is guessed per worker
 * (ngx_http_chaindata_hints.c); the environments the threads read are
 * counted, and closed when the last task reading them ends
 * (ngx_http_chaindata_env.c).
 *
 * A thread runs its first task's "nice=" steps below the worker, and stays
 * there: the threads share the worker's core (its affinity is theirs),
 * and page faults cost a cold lookup's thread as much CPU as an answer
 * costs the event loop, so at the worker's own priority a cold load takes
 * the core from the hot answers.  Below it, the event loop goes first and
 * the threads take what it leaves.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_parts.h"
#include "ngx_http_chaindata_env.h"
#include "ngx_http_chaindata_hints.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_read.h"
#include "ngx_http_chaindata_store.h"
#include "ngx_http_chaindata_threads.h"


#if (NGX_THREADS)

#include <sys/resource.h>

#include <ngx_thread_pool.h>


typedef struct {
    ngx_http_request_t          *request;
    ngx_http_chaindata_held_t   *held;
    ngx_http_chaindata_read_t    read;      /* its key: key, below */
    ngx_int_t                    nice;      /* chaindata_threads nice= */
    int                          rc;        /* LMDB's, told in the loop */
    u_char                       key[NGX_HTTP_CHAINDATA_KEY_MAX];
} ngx_http_chaindata_task_t;


/* the request's state, in the module's context */
typedef struct {
    unsigned                     waiting:1;
    unsigned                     resumed:1;
} ngx_http_chaindata_threads_ctx_t;


static void ngx_http_chaindata_threads_warm(void *data, ngx_log_t *log);
static void ngx_http_chaindata_threads_done(ngx_event_t *ev);
static void ngx_http_chaindata_threads_resume(ngx_http_request_t *r);


static ngx_uint_t                  ngx_http_chaindata_page_size;
static ngx_uint_t                  ngx_http_chaindata_failure_told;

/* whether this thread of the pool took its "nice=" yet */
static __thread ngx_uint_t         ngx_http_chaindata_thread_niced;


/* "nice=N": N, 0 to 19, or NGX_ERROR */

static ngx_int_t
ngx_http_chaindata_threads_nice(ngx_str_t *arg)
{
    ngx_int_t  n;

    if (arg->len <= 5 || ngx_strncmp(arg->data, "nice=", 5) != 0) {
        return NGX_ERROR;
    }

    n = ngx_atoi(arg->data + 5, arg->len - 5);

    return (n == NGX_ERROR || n > 19) ? NGX_ERROR : n;
}


char *
ngx_http_chaindata_threads(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_chaindata_main_conf_t  *mcf = conf;

    ngx_str_t  *value;

    if (mcf->thread_pool != NGX_CONF_UNSET_PTR) {
        return "is duplicate";
    }

    value = cf->args->elts;

    if (ngx_strcmp(value[1].data, "off") == 0) {
        mcf->thread_pool = NULL;
        return cf->args->nelts == 2 ? NGX_CONF_OK
                                    : "takes no \"nice=\" when off";
    }

    if (cf->args->nelts == 3) {
        mcf->thread_nice = ngx_http_chaindata_threads_nice(&value[2]);

        if (mcf->thread_nice == NGX_ERROR) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "invalid parameter \"%V\": \"nice=\" takes "
                               "0 to 19", &value[2]);
            return NGX_CONF_ERROR;
        }
    }

    /* "on": nginx's default pool, as "aio threads" takes it */
    mcf->thread_pool = ngx_thread_pool_add(cf,
                           ngx_strcmp(value[1].data, "on") == 0
                           ? NULL : &value[1]);

    if (mcf->thread_pool == NULL) {
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


/* in each worker: the guess's table (ngx_http_chaindata_hints.c) */

ngx_int_t
ngx_http_chaindata_threads_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf)
{
    if (mcf->thread_pool == NULL || mcf->thread_pool == NGX_CONF_UNSET_PTR) {
        return NGX_OK;
    }

    ngx_http_chaindata_page_size = ngx_pagesize;

    return ngx_http_chaindata_hints_init(cycle);
}


void
ngx_http_chaindata_threads_exit(void)
{
    ngx_http_chaindata_hints_exit();
}


/*
 * After an answer: where its record is now.  The key was hashed when the
 * request came to ngx_http_chaindata_threads_post(), unless the request
 * came back from the pool.
 */

void
ngx_http_chaindata_threads_note(const ngx_http_chaindata_read_t *read,
    ngx_http_chaindata_hint_key_t *key, const MDB_val *record)
{
    MDB_dbi     *dbi;
    ngx_uint_t   generation;

    if (ngx_http_chaindata_hints_key(read, key) != NGX_OK
        || ngx_http_chaindata_store_env(&dbi, &generation) == NULL)
    {
        return;
    }

    ngx_http_chaindata_hints_note(key, record, generation);
}


/* the request's state in the pool, made at its first task (NULL: no memory) */

static ngx_http_chaindata_threads_ctx_t *
ngx_http_chaindata_threads_ctx(ngx_http_request_t *r)
{
    ngx_http_chaindata_threads_ctx_t  *tctx;

    tctx = ngx_http_get_module_ctx(r, ngx_http_chaindata_module);

    if (tctx == NULL) {
        tctx = ngx_pcalloc(r->pool, sizeof(ngx_http_chaindata_threads_ctx_t));
        if (tctx == NULL) {
            return NULL;
        }

        ngx_http_set_ctx(r, tctx, ngx_http_chaindata_module);
    }

    return tctx;
}


/*
 * Before a route reads the index: NGX_DONE when its read went to the pool
 * (the request resumes when it is warm), NGX_DECLINED when the route
 * answers now: the pool is off, the request comes back from it, the
 * record is likely in memory, or the pool cannot take the task (its
 * queue is full: the answer is made inline, as without the pool).
 */

ngx_int_t
ngx_http_chaindata_threads_post(ngx_http_request_t *r,
    const ngx_http_chaindata_read_t *read, ngx_http_chaindata_hint_key_t *key)
{
    MDB_env                           *env;
    MDB_dbi                           *dbi;
    ngx_uint_t                         generation;
    ngx_thread_task_t                 *task;
    ngx_http_chaindata_task_t         *t;
    ngx_http_chaindata_held_t         *held;
    ngx_http_chaindata_main_conf_t    *mcf;
    ngx_http_chaindata_threads_ctx_t  *tctx;

    if (ngx_http_chaindata_threads_resumed(r)
        || ngx_http_chaindata_hints_key(read, key) != NGX_OK)
    {
        return NGX_DECLINED;
    }

    env = ngx_http_chaindata_store_env(&dbi, &generation);

    if (env == NULL || ngx_http_chaindata_hints_resident(key, generation)) {
        return NGX_DECLINED;
    }

    tctx = ngx_http_chaindata_threads_ctx(r);
    if (tctx == NULL) {
        return NGX_DECLINED;
    }

    task = ngx_thread_task_alloc(r->pool, sizeof(ngx_http_chaindata_task_t));
    if (task == NULL) {
        return NGX_DECLINED;
    }

    held = ngx_http_chaindata_env_hold(r->connection->log, env, dbi);
    if (held == NULL) {
        return NGX_DECLINED;
    }

    mcf = ngx_http_get_module_main_conf(r, ngx_http_chaindata_module);

    t = task->ctx;
    t->request = r;
    t->held = held;
    t->nice = mcf->thread_nice;
    /* the key outlives the handler's ctx, which the resumed one makes anew */
    ngx_memcpy(t->key, read->key, read->key_len);
    t->read = *read;
    t->read.key = t->key;

    task->handler = ngx_http_chaindata_threads_warm;
    task->event.data = task;
    task->event.handler = ngx_http_chaindata_threads_done;

    if (ngx_thread_task_post(mcf->thread_pool, task) != NGX_OK) {
        /* the queue is full (nginx logged it): answered inline */
        ngx_http_chaindata_env_release(held, r->connection->log);
        return NGX_DECLINED;
    }

    tctx->waiting = 1;

    r->main->blocked++;
    r->aio = 1;
    r->main->count++;
    r->write_event_handler = ngx_http_chaindata_threads_resume;

    ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "chaindata: lookup of \"%s\" to the thread pool",
                   chaindata_db_names[read->db]);

    return NGX_DONE;
}


/*
 * In a thread, at its first task: "nice=" steps below the priority it
 * has (the worker's).  A thread's priority is its own on Linux; one that
 * cannot be changed stays as it is.
 */

static void
ngx_http_chaindata_threads_lower(ngx_int_t nice)
{
    int        prio;
    ngx_tid_t  tid;

    ngx_http_chaindata_thread_niced = 1;

    if (nice == 0) {
        return;
    }

    tid = ngx_thread_tid();

    errno = 0;
    prio = getpriority(PRIO_PROCESS, (id_t) tid);

    if (prio == -1 && errno != 0) {
        return;
    }

    (void) setpriority(PRIO_PROCESS, (id_t) tid,
                       (int) ngx_min(prio + nice, 19));
}


/* in a thread: the pages of one value, read */

static void
ngx_http_chaindata_threads_touch_one(const MDB_val *val)
{
    u_char           *p, *last;
    volatile u_char   sink;

    p = val->mv_data;
    last = p + ngx_min(val->mv_size, NGX_HTTP_CHAINDATA_HINT_PAGES
                                     * ngx_http_chaindata_page_size);

    for ( /* void */ ; p < last; p += ngx_http_chaindata_page_size) {
        sink = *p;
    }

    if (val->mv_size) {
        sink = last[-1];
    }

    (void) sink;
}


/*
 * A value found (ngx_http_chaindata_found_pt): its pages and its parts'
 * touched; a record in parts joined too (data: where, freed by the
 * caller), its list's chunks being found from the whole of it.
 */

static int
ngx_http_chaindata_threads_touch(void *data, MDB_val *val,
    const MDB_val *part, size_t n, size_t len)
{
    u_char  **joined = data;

    size_t  i;

    ngx_http_chaindata_threads_touch_one(val);

    for (i = 0; i < n; i++) {
        ngx_http_chaindata_threads_touch_one(&part[i]);
    }

    if (joined == NULL || n == 0) {
        return 0;
    }

    /* malloc(): a thread neither allocates from nginx nor logs */
    *joined = malloc(len);
    if (*joined == NULL) {
        return ENOMEM;
    }

    chaindata_parts_join(*joined, val, part, n);

    val->mv_data = *joined;
    val->mv_size = len;

    return 0;
}


/*
 * In a thread: the chunks of the record's list that the answer's page
 * reads, as the event loop reads them (ngx_http_chaindata_read.c): none
 * when the page is in the record's first chunk, or past the list's end.
 * A record that is not one is left to the event loop, which tells.
 */

static int
ngx_http_chaindata_threads_chunks(MDB_txn *txn, MDB_dbi *dbi,
    ngx_http_chaindata_task_t *t, MDB_val *record)
{
    int                        rc;
    MDB_val                    chunk0;
    uint64_t                   count;
    MDB_cursor                *cur;
    ngx_http_chaindata_plan_t  plan;

    if (t->read.list(record, &count, &chunk0) != NGX_OK
        || !ngx_http_chaindata_read_plan(&t->read, count, &chunk0, &plan))
    {
        return 0;
    }

    rc = mdb_cursor_open(txn, dbi[t->read.list_db], &cur);
    if (rc != 0) {
        return rc;
    }

    rc = ngx_http_chaindata_read_chunks(cur, &t->read, &plan,
                                        ngx_http_chaindata_threads_touch,
                                        NULL);

    mdb_cursor_close(cur);

    return rc;
}


/*
 * In a thread: the route's read, in a read transaction of the
 * environment's (ngx_http_chaindata_env_begin()), and the pages of what
 * it finds touched.  Nothing here allocates from nginx or logs.
 */

static void
ngx_http_chaindata_threads_warm(void *data, ngx_log_t *log)
{
    ngx_http_chaindata_task_t *t = data;

    int       rc;
    u_char   *joined;
    MDB_val   v;
    MDB_dbi  *dbi;
    MDB_txn  *txn;

    if (!ngx_http_chaindata_thread_niced) {
        ngx_http_chaindata_threads_lower(t->nice);
    }

    rc = ngx_http_chaindata_env_begin(t->held, log, &txn, &dbi);

    if (rc != 0) {
        /* a full reader table, a grown map: the loop reads it itself */
        t->rc = rc;
        return;
    }

    joined = NULL;

    rc = ngx_http_chaindata_read_record(txn, dbi, NULL, &t->read, &v,
                                        ngx_http_chaindata_threads_touch,
                                        &joined);

    if (rc == 0 && t->read.list_db != CHAINDATA_DBI_COUNT) {
        rc = ngx_http_chaindata_threads_chunks(txn, dbi, t, &v);
    }

    t->rc = (rc == MDB_NOTFOUND) ? 0 : rc;

    free(joined);

    ngx_http_chaindata_env_end(t->held, log, txn);
}


/* in the event loop: the task ended; the request resumes */

static void
ngx_http_chaindata_threads_done(ngx_event_t *ev)
{
    ngx_thread_task_t *task = ev->data;

    ngx_connection_t           *c;
    ngx_http_request_t         *r;
    ngx_http_chaindata_task_t  *t;
    ngx_http_chaindata_held_t  *h;

    t = task->ctx;
    r = t->request;
    c = r->connection;
    h = t->held;

    ngx_http_set_log_request(c->log, r);

    /* a grown map is routine: the loop adopts it at its next read */
    if (t->rc && t->rc != MDB_MAP_RESIZED
        && !ngx_http_chaindata_failure_told)
    {
        ngx_http_chaindata_failure_told = 1;
        ngx_log_error(NGX_LOG_WARN, c->log, 0,
                      "chaindata_threads: a thread could not read the "
                      "index (%s); such lookups are answered in the event "
                      "loop (told once)", mdb_strerror(t->rc));
    }

    ngx_http_chaindata_env_release(h, c->log);

    r->main->blocked--;
    r->aio = 0;

    r->write_event_handler(r);

    ngx_http_run_posted_requests(c);
}


/* the route's handler again, from the start: the record is warm now */

static void
ngx_http_chaindata_threads_resume(ngx_http_request_t *r)
{
    ngx_http_chaindata_threads_ctx_t  *tctx;

    if (r->aio) {
        /* a write event while the task runs */
        return;
    }

    tctx = ngx_http_get_module_ctx(r, ngx_http_chaindata_module);

    if (tctx == NULL || !tctx->waiting) {
        return;
    }

    tctx->waiting = 0;
    tctx->resumed = 1;

    r->write_event_handler = ngx_http_request_empty_handler;

    ngx_http_finalize_request(r, r->content_handler(r));
}


/* whether the handler runs again after its lookup went to the pool */

ngx_uint_t
ngx_http_chaindata_threads_resumed(ngx_http_request_t *r)
{
    ngx_http_chaindata_threads_ctx_t  *tctx;

    tctx = ngx_http_get_module_ctx(r, ngx_http_chaindata_module);

    return tctx && tctx->resumed;
}


#else /* !(NGX_THREADS) */


char *
ngx_http_chaindata_threads(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_str_t  *value;

    value = cf->args->elts;

    if (ngx_strcmp(value[1].data, "off") == 0 && cf->args->nelts == 2) {
        return NGX_CONF_OK;
    }

    return "needs nginx built with --with-threads";
}


ngx_int_t
ngx_http_chaindata_threads_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf)
{
    return NGX_OK;
}


void
ngx_http_chaindata_threads_exit(void)
{
}


void
ngx_http_chaindata_threads_note(const ngx_http_chaindata_read_t *read,
    ngx_http_chaindata_hint_key_t *key, const MDB_val *record)
{
}


ngx_int_t
ngx_http_chaindata_threads_post(ngx_http_request_t *r,
    const ngx_http_chaindata_read_t *read, ngx_http_chaindata_hint_key_t *key)
{
    return NGX_DECLINED;
}


ngx_uint_t
ngx_http_chaindata_threads_resumed(ngx_http_request_t *r)
{
    return 0;
}


#endif /* NGX_THREADS */
