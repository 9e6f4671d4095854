
/*
 * chaindata_threads: lookups likely to fault leave the event loop.
 *
 * A route's lookup that would read pages not in memory blocks the worker
 * on the disk, and every other connection of that worker with it.  With
 * chaindata_threads, such a lookup first runs in nginx's thread pool
 * (ngx_thread_task_post, as "aio threads" reads files): a thread descends
 * the B-tree to the request's record in a read transaction of its own and
 * touches the record's pages, and then the event loop answers as it
 * always does, from memory.  The thread only warms: the answer is always
 * made in the event loop, in its own read transaction, so it is the one
 * the route gives without the pool.
 *
 * Whether a lookup will fault is guessed per worker: a table of the keys
 * lately answered remembers where their record was in the map, and
 * mincore() says whether those pages are still in memory.  A key never
 * seen, or whose pages left, goes to the pool; a resident one is answered
 * inline.  The table is set-associative (a key has four places, the one
 * least lately answered is taken): two hot keys whose hashes meet do not
 * send each other to the pool turn by turn.
 *
 * The environments the threads read are counted: an index renamed over
 * the one open (ngx_http_chaindata_store.c) is closed only when the last
 * task reading it has ended, and the map is not remapped (a grown map)
 * while a thread reads it.  Each thread's read transaction is one reader
 * slot, kept (reset) for the next task of any thread, and aborted with
 * its environment.
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

#include "chaindata_chunks.h"
#include "chaindata_layout.h"
#include "ngx_http_chaindata_chunks.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"
#include "ngx_http_chaindata_threads.h"


#if (NGX_THREADS)

#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <ngx_thread_pool.h>


/* the keys a worker remembers where their record was (a power of 2) */
#define NGX_HTTP_CHAINDATA_HINTS       65536

/* the places a key may have in that table */
#define NGX_HTTP_CHAINDATA_HINT_WAYS   4

/* the "seen" guess: a key answered within this many seconds is in memory */
#define NGX_HTTP_CHAINDATA_SEEN        10

/*
 * how long, in milliseconds, a record mincore() found in memory is taken
 * to stay there without asking again: a hot key costs one system call a
 * second, not one per request
 */
#define NGX_HTTP_CHAINDATA_RESIDENT_MS  1000

/* the pages of a record mincore() looks at, and a thread touches */
#define NGX_HTTP_CHAINDATA_HINT_PAGES  64

/* reset read transactions an environment keeps for the threads */
#define NGX_HTTP_CHAINDATA_TXNS        64

/* LMDB's largest key */
#define NGX_HTTP_CHAINDATA_KEY_MAX     511


typedef enum {
    NGX_HTTP_CHAINDATA_GUESS_PAGES = 0,   /* mincore of the record's pages */
    NGX_HTTP_CHAINDATA_GUESS_SEEN,        /* answered in the last 10 s */
    NGX_HTTP_CHAINDATA_GUESS_ALL          /* every lookup to the pool */
} ngx_http_chaindata_guess_e;


/* where a key's record was when it was last answered (32 bytes) */
typedef struct {
    u_char              *addr;
    uint32_t             hash;
    uint32_t             len;
    uint32_t             generation;
    uint32_t             seen;      /* ngx_time(), 0: never */
    uint32_t             resident;  /* ngx_current_msec mincore() said so */
} ngx_http_chaindata_hint_t;


/* an environment the threads read, counted */
typedef struct ngx_http_chaindata_held_s  ngx_http_chaindata_held_t;

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


typedef struct {
    ngx_http_request_t          *request;
    ngx_http_chaindata_held_t   *held;
    chaindata_dbi_e              db;
    chaindata_dbi_e              range_db;
    ngx_http_chaindata_list_pt   list;
    unsigned                     per;
    uint64_t                     offset;
    uint64_t                     limit;
    size_t                       key_len;
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


static ngx_http_chaindata_hint_t  *ngx_http_chaindata_hints;
static ngx_http_chaindata_held_t  *ngx_http_chaindata_held;
static ngx_http_chaindata_guess_e  ngx_http_chaindata_guess;
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


/*
 * In each worker: the table of hints, and the guess, which the benchmark
 * may change (CHAINDATA_THREADS_GUESS=seen|all, with nginx's "env").
 */

ngx_int_t
ngx_http_chaindata_threads_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf)
{
    char  *guess;

    if (mcf->thread_pool == NULL || mcf->thread_pool == NGX_CONF_UNSET_PTR) {
        return NGX_OK;
    }

    ngx_http_chaindata_hints = ngx_calloc(NGX_HTTP_CHAINDATA_HINTS
                                          * sizeof(ngx_http_chaindata_hint_t),
                                          cycle->log);
    if (ngx_http_chaindata_hints == NULL) {
        return NGX_ERROR;
    }

    ngx_http_chaindata_page_size = ngx_pagesize;
    ngx_http_chaindata_guess = NGX_HTTP_CHAINDATA_GUESS_PAGES;

    guess = getenv("CHAINDATA_THREADS_GUESS");

    if (guess && ngx_strcmp(guess, "seen") == 0) {
        ngx_http_chaindata_guess = NGX_HTTP_CHAINDATA_GUESS_SEEN;

    } else if (guess && ngx_strcmp(guess, "all") == 0) {
        ngx_http_chaindata_guess = NGX_HTTP_CHAINDATA_GUESS_ALL;
    }

    return NGX_OK;
}


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

static ngx_http_chaindata_held_t *
ngx_http_chaindata_held_get(ngx_log_t *log, MDB_env *env, MDB_dbi *dbi)
{
    ngx_http_chaindata_held_t  *h;

    h = ngx_http_chaindata_held_find(env);
    if (h) {
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


/*
 * The store is done with env (another index was renamed over it, or the
 * worker exits): it closes now, or when the last task reading it ends.
 */

void
ngx_http_chaindata_threads_env_close(MDB_env *env)
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


/*
 * The worker exits: nginx's thread pools stopped first (their module
 * comes before this one), so no thread reads any environment now.
 */

void
ngx_http_chaindata_threads_exit(void)
{
    while (ngx_http_chaindata_held) {
        ngx_http_chaindata_held->tasks = 0;
        ngx_http_chaindata_held_free(ngx_http_chaindata_held, ngx_cycle->log);
    }

    if (ngx_http_chaindata_hints) {
        ngx_free(ngx_http_chaindata_hints);
        ngx_http_chaindata_hints = NULL;
    }
}


/* the map of env is remapped in between: no thread reads it then */

void
ngx_http_chaindata_threads_map_lock(MDB_env *env)
{
    ngx_http_chaindata_held_t  *h;

    h = ngx_http_chaindata_held_find(env);

    if (h) {
        (void) pthread_rwlock_wrlock(&h->map);
    }
}


void
ngx_http_chaindata_threads_map_unlock(MDB_env *env)
{
    ngx_http_chaindata_held_t  *h;

    h = ngx_http_chaindata_held_find(env);

    if (h) {
        (void) pthread_rwlock_unlock(&h->map);
    }
}


static uint32_t
ngx_http_chaindata_hint_hash(ngx_http_chaindata_warm_t *warm)
{
    return ngx_murmur_hash2(warm->key, warm->key_len)
           ^ ((uint32_t) warm->db * 0x9e3779b9);
}


/* the first of the places the key with this hash may have */

static ngx_http_chaindata_hint_t *
ngx_http_chaindata_hint_set(uint32_t hash)
{
    ngx_uint_t  set;

    set = hash & (NGX_HTTP_CHAINDATA_HINTS / NGX_HTTP_CHAINDATA_HINT_WAYS
                  - 1);

    return &ngx_http_chaindata_hints[set * NGX_HTTP_CHAINDATA_HINT_WAYS];
}


/* the key's hint in this index, or NULL */

static ngx_http_chaindata_hint_t *
ngx_http_chaindata_hint_find(uint32_t hash, ngx_uint_t generation)
{
    ngx_uint_t                  i;
    ngx_http_chaindata_hint_t  *hint;

    hint = ngx_http_chaindata_hint_set(hash);

    for (i = 0; i < NGX_HTTP_CHAINDATA_HINT_WAYS; i++) {
        if (hint[i].hash == hash && hint[i].seen
            && hint[i].generation == (uint32_t) generation)
        {
            return &hint[i];
        }
    }

    return NULL;
}


/* the place for the key's hint: its own, or the one least lately seen */

static ngx_http_chaindata_hint_t *
ngx_http_chaindata_hint_place(uint32_t hash)
{
    ngx_uint_t                  i;
    ngx_http_chaindata_hint_t  *hint, *oldest;

    hint = ngx_http_chaindata_hint_set(hash);
    oldest = hint;

    for (i = 0; i < NGX_HTTP_CHAINDATA_HINT_WAYS; i++) {
        if (hint[i].hash == hash && hint[i].seen) {
            return &hint[i];
        }

        if (hint[i].seen < oldest->seen) {
            oldest = &hint[i];
        }
    }

    oldest->hash = hash;
    oldest->addr = NULL;
    oldest->resident = 0;

    return oldest;
}


/* whether the key's record is likely in memory: 1, or 0 */

static ngx_uint_t
ngx_http_chaindata_resident(ngx_http_chaindata_threads_key_t *key,
    ngx_uint_t generation)
{
    u_char                     *start, *end;
    ngx_uint_t                  i, n;
    ngx_http_chaindata_hint_t  *hint;
    unsigned char               vec[NGX_HTTP_CHAINDATA_HINT_PAGES];

    if (ngx_http_chaindata_guess == NGX_HTTP_CHAINDATA_GUESS_ALL) {
        return 0;
    }

    hint = ngx_http_chaindata_hint_find(key->hash, generation);

    if (hint == NULL) {
        return 0;
    }

    if (ngx_http_chaindata_guess == NGX_HTTP_CHAINDATA_GUESS_SEEN
        || hint->addr == NULL)
    {
        /* a key that was absent has no record to look at */
        return (uint32_t) ngx_time() - hint->seen < NGX_HTTP_CHAINDATA_SEEN;
    }

    if (hint->resident
        && (uint32_t) ngx_current_msec - hint->resident
           < NGX_HTTP_CHAINDATA_RESIDENT_MS)
    {
        return 1;
    }

    start = ngx_align_ptr(hint->addr - (ngx_http_chaindata_page_size - 1),
                          ngx_http_chaindata_page_size);
    end = ngx_align_ptr(hint->addr + hint->len,
                        ngx_http_chaindata_page_size);

    n = (end - start) / ngx_http_chaindata_page_size;
    n = ngx_min(n, NGX_HTTP_CHAINDATA_HINT_PAGES);

    if (n == 0 || mincore(start, n * ngx_http_chaindata_page_size, vec)
                  != 0)
    {
        return 0;
    }

    for (i = 0; i < n; i++) {
        if (!(vec[i] & 1)) {
            return 0;
        }
    }

    /* 0 is "not asked": a clock at 0 only asks again next time */
    hint->resident = (uint32_t) ngx_current_msec;

    return 1;
}


/*
 * After an answer: where its record is now.  The key was hashed when the
 * request came to ngx_http_chaindata_threads_post(), unless the request
 * came back from the pool.
 */

void
ngx_http_chaindata_threads_note(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx,
    ngx_http_chaindata_threads_key_t *key)
{
    MDB_val                     val;
    ngx_uint_t                  generation;
    ngx_http_chaindata_warm_t   warm;
    ngx_http_chaindata_hint_t  *hint;

    if (ngx_http_chaindata_hints == NULL || route->warm == NULL) {
        return;
    }

    if (!key->hashed) {
        if (route->warm(ctx, &warm) != NGX_OK
            || warm.key_len > NGX_HTTP_CHAINDATA_KEY_MAX)
        {
            return;
        }

        key->hash = ngx_http_chaindata_hint_hash(&warm);
        key->hashed = 1;
    }

    if (ngx_http_chaindata_store_first(&val, &generation) != NGX_OK) {
        return;
    }

    hint = ngx_http_chaindata_hint_place(key->hash);

    if (hint->addr != val.mv_data
        || hint->generation != (uint32_t) generation)
    {
        /* another record, or it moved: mincore() asks again */
        hint->resident = 0;
    }

    hint->generation = (uint32_t) generation;
    hint->addr = val.mv_data;
    hint->len = (uint32_t) ngx_min(val.mv_size, NGX_MAX_UINT32_VALUE);
    hint->seen = (uint32_t) ngx_time();
}


/*
 * Before a route reads the index: NGX_DONE when the lookup went to the
 * pool (the request resumes when it is warm), NGX_DECLINED when the route
 * answers now: the pool is off, the request comes back from it, the
 * record is likely in memory, or the pool cannot take the task (its
 * queue is full: the answer is made inline, as without the pool).
 */

ngx_int_t
ngx_http_chaindata_threads_post(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx,
    ngx_http_chaindata_threads_key_t *key)
{
    MDB_env                           *env;
    MDB_dbi                           *dbi;
    ngx_uint_t                         generation;
    ngx_thread_task_t                 *task;
    ngx_http_chaindata_task_t         *t;
    ngx_http_chaindata_held_t         *held;
    ngx_http_chaindata_warm_t          warm;
    ngx_http_chaindata_main_conf_t    *mcf;
    ngx_http_chaindata_threads_ctx_t  *tctx;

    if (ngx_http_chaindata_hints == NULL || route->warm == NULL) {
        return NGX_DECLINED;
    }

    tctx = ngx_http_get_module_ctx(r, ngx_http_chaindata_module);

    if (tctx && tctx->resumed) {
        return NGX_DECLINED;
    }

    if (route->warm(ctx, &warm) != NGX_OK
        || warm.key_len > NGX_HTTP_CHAINDATA_KEY_MAX)
    {
        return NGX_DECLINED;
    }

    key->hash = ngx_http_chaindata_hint_hash(&warm);
    key->hashed = 1;

    env = ngx_http_chaindata_store_env(&dbi, &generation);

    if (env == NULL || ngx_http_chaindata_resident(key, generation)) {
        return NGX_DECLINED;
    }

    held = ngx_http_chaindata_held_get(r->connection->log, env, dbi);
    if (held == NULL) {
        return NGX_DECLINED;
    }

    if (tctx == NULL) {
        tctx = ngx_pcalloc(r->pool, sizeof(ngx_http_chaindata_threads_ctx_t));
        if (tctx == NULL) {
            return NGX_DECLINED;
        }

        ngx_http_set_ctx(r, tctx, ngx_http_chaindata_module);
    }

    task = ngx_thread_task_alloc(r->pool, sizeof(ngx_http_chaindata_task_t));
    if (task == NULL) {
        return NGX_DECLINED;
    }

    t = task->ctx;
    t->request = r;
    t->held = held;
    t->db = warm.db;
    t->range_db = warm.list ? warm.range_db : CHAINDATA_DBI_COUNT;
    t->list = warm.list;
    t->per = warm.per;
    t->offset = warm.offset;
    t->limit = warm.limit;
    t->key_len = warm.key_len;
    ngx_memcpy(t->key, warm.key, warm.key_len);

    mcf = ngx_http_get_module_main_conf(r, ngx_http_chaindata_module);
    t->nice = mcf->thread_nice;

    task->handler = ngx_http_chaindata_threads_warm;
    task->event.data = task;
    task->event.handler = ngx_http_chaindata_threads_done;

    if (ngx_thread_task_post(mcf->thread_pool, task) != NGX_OK) {
        /* the queue is full (nginx logged it): answered inline */
        return NGX_DECLINED;
    }

    held->tasks++;

    tctx->waiting = 1;

    r->main->blocked++;
    r->aio = 1;
    r->main->count++;
    r->write_event_handler = ngx_http_chaindata_threads_resume;

    ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "chaindata: lookup of \"%s\" to the thread pool",
                   chaindata_db_names[warm.db]);

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


/* in a thread: the pages of one record, read */

static void
ngx_http_chaindata_threads_touch(MDB_val *val)
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
 * In a thread: the chunks of the record's list that the answer's page
 * reads (ngx_http_chaindata_chunks_read() reads the same): none when the
 * page is in the record's first chunk, or past the list's end.  A record
 * that is not one is left to the event loop, which tells.
 */

static int
ngx_http_chaindata_threads_chunks(MDB_txn *txn, MDB_dbi dbi,
    ngx_http_chaindata_task_t *t, MDB_val *record)
{
    int                     rc;
    size_t                  key_len;
    MDB_val                 k, v;
    uint64_t                count;
    ngx_uint_t              i, n, first, inline0;
    MDB_cursor             *cur;
    chaindata_chunk_span_t  span[NGX_HTTP_CHAINDATA_SPANS_MAX];
    u_char                  key[CHAINDATA_LIST_ENTRY_KEY_MAX];

    if (t->list(record, &count, &inline0) != NGX_OK) {
        return 0;
    }

    n = chaindata_chunk_plan(count, t->per, t->offset, t->limit, span,
                             NGX_HTTP_CHAINDATA_SPANS_MAX);

    first = (n && inline0 && span[0].chunk == 0) ? 1 : 0;

    if (first >= n) {
        return 0;
    }

    key_len = chaindata_list_entry_key(key, t->key, t->key_len,
                                       span[first].chunk);

    rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc != 0) {
        return rc;
    }

    k.mv_data = key;
    k.mv_size = key_len;

    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);

    for (i = first; rc == 0 && i < n; i++) {
        if (k.mv_size < t->key_len
            || ngx_memcmp(k.mv_data, t->key, t->key_len) != 0)
        {
            break;
        }

        ngx_http_chaindata_threads_touch(&v);

        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }

    mdb_cursor_close(cur);

    return rc == MDB_NOTFOUND ? 0 : rc;
}


/*
 * In a thread: the descent to the record and its pages, in a read
 * transaction taken from the environment's reset ones (a new one, a new
 * reader slot, when none is free), and given back reset whatever
 * happened.  Nothing here allocates from nginx or logs.
 */

static void
ngx_http_chaindata_threads_warm(void *data, ngx_log_t *log)
{
    ngx_http_chaindata_task_t *t = data;

    int                         rc;
    MDB_val                     k, v;
    MDB_txn                    *txn;
    ngx_http_chaindata_held_t  *h;

    h = t->held;
    txn = NULL;

    if (!ngx_http_chaindata_thread_niced) {
        ngx_http_chaindata_threads_lower(t->nice);
    }

    (void) pthread_rwlock_rdlock(&h->map);

    (void) ngx_thread_mutex_lock(&h->mutex, log);

    if (h->ntxn) {
        txn = h->txn[--h->ntxn];
    }

    (void) ngx_thread_mutex_unlock(&h->mutex, log);

    if (txn) {
        rc = mdb_txn_renew(txn);

    } else {
        rc = mdb_txn_begin(h->env, NULL, MDB_RDONLY, &txn);
    }

    if (rc != 0) {
        /* a full reader table, a grown map: the loop reads it itself */
        if (txn) {
            mdb_txn_abort(txn);
        }

        t->rc = rc;
        goto done;
    }

    k.mv_data = t->key;
    k.mv_size = t->key_len;

    rc = mdb_get(txn, h->dbi[t->db], &k, &v);

    if (rc == 0) {
        ngx_http_chaindata_threads_touch(&v);
    }

    if (rc == 0 && t->range_db != CHAINDATA_DBI_COUNT) {
        rc = ngx_http_chaindata_threads_chunks(txn, h->dbi[t->range_db], t,
                                               &v);
    }

    t->rc = (rc == MDB_NOTFOUND) ? 0 : rc;

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

done:

    (void) pthread_rwlock_unlock(&h->map);
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

    if (--h->tasks == 0 && h->retired) {
        ngx_http_chaindata_held_free(h, c->log);
    }

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
ngx_http_chaindata_threads_env_close(MDB_env *env)
{
    mdb_env_close(env);
}


void
ngx_http_chaindata_threads_exit(void)
{
}


void
ngx_http_chaindata_threads_map_lock(MDB_env *env)
{
}


void
ngx_http_chaindata_threads_map_unlock(MDB_env *env)
{
}


void
ngx_http_chaindata_threads_note(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx,
    ngx_http_chaindata_threads_key_t *key)
{
}


ngx_int_t
ngx_http_chaindata_threads_post(ngx_http_request_t *r,
    const ngx_http_chaindata_route_t *route, void *ctx,
    ngx_http_chaindata_threads_key_t *key)
{
    return NGX_DECLINED;
}


ngx_uint_t
ngx_http_chaindata_threads_resumed(ngx_http_request_t *r)
{
    return 0;
}


#endif /* NGX_THREADS */
