
/*
 * chaindata-load --bulk: the first fill of an index from large NDJSON
 * (doc/loader.md "Bulk load").  Parser threads, one a core, take batches of the
 * input in turn and validate their records into write sets (upserts put
 * in key order), while the main thread commits the batches in the order
 * of the input, each in one write transaction as without --bulk, and
 * prints their messages then.  Commits are not synced (MDB_NOSYNC): the
 * index is synced once at the end, and a mark file in the index
 * directory says a bulk run is under way until then, so that a run cut
 * short is seen and rerun (chaindata_load_mark.c).
 */


#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lmdb.h>

#include "chaindata_ingest.h"
#include "chaindata_load.h"


/* parser threads: one a processor, up to this */
#define CHAINDATA_BULK_PARSERS  4

/*
 * Parser threads run this much nicer than the committer: the committer
 * then takes a core whenever a batch is ready, and no backlog of parsed
 * batches is left to commit on one core after the parsers are done
 * (bench/RESULTS.md)
 */
#define CHAINDATA_BULK_PARSER_NICE  5

/* a batch ends at this much input whatever its records */
#define CHAINDATA_BULK_RAW      ((size_t) 128 * 1024 * 1024)


typedef enum {
    CHAINDATA_BULK_FREE = 0,
    CHAINDATA_BULK_FILLING,
    CHAINDATA_BULK_READY
} chaindata_bulk_state_e;


typedef struct {
    size_t                  off;
    size_t                  len;
    size_t                  lineno;
} chaindata_bulk_line_t;


typedef struct {
    chaindata_bulk_state_e  state;

    /* its input, read under the run's lock */
    char                   *raw;
    size_t                  raw_len;
    size_t                  raw_cap;
    chaindata_bulk_line_t  *lines;
    size_t                  nlines;
    size_t                  lines_cap;
    const char             *file;
    size_t                  first_line;
    size_t                  last_line;
    size_t                  bytes;      /* of input, blank lines too */
    int                     last;       /* the input ends with it */
    int                     rc;         /* reading failed: not OK */

    /* what its parser made of it */
    chaindata_writeset_t    ws;
    size_t                  pending[CHAINDATA_REC_KINDS];
    size_t                  bad;
    size_t                  skipped;
    size_t                  unknown;    /* records with what is new */
    char                   *msg;        /* its messages, printed in turn */
    size_t                  msg_len;
    size_t                  msg_cap;
} chaindata_bulk_batch_t;


typedef struct {
    chaindata_bulk_t       *bk;
    int                     nfiles;
    char                  **files;

    pthread_mutex_t         lock;
    pthread_cond_t          changed;
    chaindata_bulk_batch_t  slot[CHAINDATA_BULK_PARSERS + 2];
    size_t                  nslots;
    size_t                  next;       /* the next batch to read */
    size_t                  head;       /* the next batch to commit */
    int                     stop;       /* the committer is done */

    /* the input, under the lock */
    int                     file;       /* files[] opened so far */
    FILE                   *in;
    const char             *name;
    size_t                  lineno;
    char                   *line;
    size_t                  line_cap;
    int                     done;       /* read to its end, or failed */
} chaindata_bulk_run_t;


/* a parser thread's own */
typedef struct {
    chaindata_bulk_run_t   *run;
    pthread_t               tid;
    chaindata_ingest_t      in;         /* no index: parses, never reads */
} chaindata_bulk_parser_t;


static int
chaindata_bulk_grow(void **p, size_t *cap, size_t need, size_t size)
{
    void    *n;
    size_t   c;

    if (need <= *cap) {
        return 0;
    }

    for (c = *cap ? *cap : 4096; c < need; c *= 2) { /* void */ }

    n = realloc(*p, c * size);
    if (n == NULL) {
        return -1;
    }

    *p = n;
    *cap = c;

    return 0;
}


/* a message for the committer to print when the batch's turn comes */

static void chaindata_bulk_say(chaindata_bulk_batch_t *b,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;


static void
chaindata_bulk_say(chaindata_bulk_batch_t *b, const char *fmt, ...)
{
    int      n;
    va_list  args;

    va_start(args, fmt);
    n = vsnprintf(NULL, 0, fmt, args);
    va_end(args);

    if (n < 0 || chaindata_bulk_grow((void **) &b->msg, &b->msg_cap,
                                     b->msg_len + n + 1, 1)
                 != 0)
    {
        return;
    }

    va_start(args, fmt);
    b->msg_len += vsnprintf(b->msg + b->msg_len, n + 1, fmt, args);
    va_end(args);
}


/* the next input, opened; -1 at the end of the input or on a failure */

static int
chaindata_bulk_open(chaindata_bulk_run_t *run, chaindata_bulk_batch_t *b)
{
    const char  *name;

    if (run->file == (run->nfiles ? run->nfiles : 1)) {
        return -1;
    }

    name = run->nfiles ? run->files[run->file] : "-";
    run->file++;
    run->lineno = 0;

    if (strcmp(name, "-") == 0) {
        run->in = stdin;
        run->name = "<stdin>";
        return 0;
    }

    run->in = fopen(name, "r");
    run->name = name;

    if (run->in == NULL) {
        chaindata_bulk_say(b, "chaindata-load: cannot open %s: %s\n", name,
                           strerror(errno));
        b->rc = CHAINDATA_EXIT_SYSTEM;
        return -1;
    }

    return 0;
}


/* a batch's lines, under the lock: a file's end ends the batch too */

static void
chaindata_bulk_read(chaindata_bulk_run_t *run, chaindata_bulk_batch_t *b)
{
    ssize_t                 n;
    chaindata_bulk_line_t  *l;

    if (run->in == NULL && chaindata_bulk_open(run, b) != 0) {
        run->done = 1;
        b->last = 1;
        return;
    }

    b->file = run->name;
    b->first_line = run->lineno + 1;

    while (b->nlines < run->bk->batch && b->raw_len < CHAINDATA_BULK_RAW) {
        n = getline(&run->line, &run->line_cap, run->in);

        if (n == -1) {
            break;
        }

        run->lineno++;
        b->bytes += n;

        if (chaindata_load_is_blank(run->line, n)) {
            continue;
        }

        if (chaindata_bulk_grow((void **) &b->raw, &b->raw_cap,
                                b->raw_len + n, 1) != 0
            || chaindata_bulk_grow((void **) &b->lines, &b->lines_cap,
                                   b->nlines + 1,
                                   sizeof(chaindata_bulk_line_t)) != 0)
        {
            chaindata_bulk_say(b, "chaindata-load: %s:%zu: %s\n",
                               run->name, run->lineno, "out of memory");
            b->rc = CHAINDATA_EXIT_SYSTEM;
            break;
        }

        l = &b->lines[b->nlines++];
        l->off = b->raw_len;
        l->len = n;
        l->lineno = run->lineno;

        memcpy(b->raw + b->raw_len, run->line, n);
        b->raw_len += n;
    }

    b->last_line = run->lineno;

    if (b->rc == 0 && ferror(run->in)) {
        chaindata_bulk_say(b, "chaindata-load: %s: read error: %s\n",
                           run->name, strerror(errno));
        b->rc = CHAINDATA_EXIT_SYSTEM;
    }

    if (b->rc || feof(run->in)) {
        if (run->in != stdin) {
            fclose(run->in);
        }

        run->in = NULL;

        /* the input's end: no other file comes */
        if (b->rc || run->file == (run->nfiles ? run->nfiles : 1)) {
            run->done = 1;
            b->last = 1;
        }
    }
}


/* one line into the batch's writes, or counted as invalid */

static void
chaindata_bulk_line(chaindata_bulk_parser_t *p, chaindata_bulk_batch_t *b,
    const chaindata_bulk_line_t *l)
{
    const char  *err;

    b->ws.label = l->lineno;

    if (chaindata_ingest_record(&p->in,
                                (const unsigned char *) b->raw + l->off,
                                l->len, &b->ws)
        == 0)
    {
        b->pending[p->in.rec.kind]++;
        b->unknown += p->in.rec.unknown != 0;
        return;
    }

    err = p->in.frame > CHAINDATA_FRAME_NONE
          ? "block framing (lmdb-schema/feed.md) is loaded without --bulk"
          : p->in.err;

    chaindata_bulk_say(b, "chaindata-load: %s:%zu: %s\n", b->file,
                       l->lineno, err);

    if (p->run->bk->skip_invalid && p->in.frame <= CHAINDATA_FRAME_NONE) {
        b->skipped++;

    } else {
        b->bad++;
    }
}


/* qsort_r()'s: by database, then key, then place in the batch */

static int
chaindata_bulk_write_cmp(const void *a, const void *b, void *arg)
{
    int                       c;
    size_t                    n;
    const unsigned char      *buf;
    const chaindata_write_t  *x, *y;

    x = a;
    y = b;
    buf = arg;

    if (x->db != y->db) {
        return x->db < y->db ? -1 : 1;
    }

    n = x->key_len < y->key_len ? x->key_len : y->key_len;
    c = memcmp(buf + x->key_off, buf + y->key_off, n);

    if (c == 0 && x->key_len != y->key_len) {
        c = x->key_len < y->key_len ? -1 : 1;
    }

    if (c == 0) {
        /* the same key twice: the later write stays the later one */
        c = x->key_off < y->key_off ? -1 : 1;
    }

    return c;
}


/*
 * Puts the batch's writes in key order, as LMDB compares keys (memcmp,
 * shorter first): each put then lands beside the one before, on pages
 * just touched.  A batch with a delete keeps its order.
 */

static void
chaindata_bulk_sort(chaindata_writeset_t *ws)
{
    size_t  i;

    if (ws->nwrites < 2) {
        return;
    }

    for (i = 0; i < ws->nwrites; i++) {
        if (ws->writes[i].action != CHAINDATA_WRITE_PUT) {
            return;
        }
    }

    qsort_r(ws->writes, ws->nwrites, sizeof(chaindata_write_t),
            chaindata_bulk_write_cmp, ws->buf);
}


/*
 * A parser thread: takes the next free slot in turn, reads a batch into
 * it under the lock, and parses it into writes while the other threads
 * read, parse or commit theirs.
 */

static void *
chaindata_bulk_parser(void *arg)
{
    size_t                   i;
    chaindata_bulk_run_t    *run;
    chaindata_bulk_batch_t  *b;
    chaindata_bulk_parser_t *p;

    p = arg;
    run = p->run;

    /* this thread's own nice value (Linux); the committer's unchanged */
    (void) setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid),
                       getpriority(PRIO_PROCESS, 0)
                       + CHAINDATA_BULK_PARSER_NICE);

    for ( ;; ) {
        pthread_mutex_lock(&run->lock);

        for ( ;; ) {
            b = &run->slot[run->next % run->nslots];

            if (run->stop || run->done
                || b->state == CHAINDATA_BULK_FREE)
            {
                break;
            }

            pthread_cond_wait(&run->changed, &run->lock);
        }

        if (run->stop || run->done) {
            pthread_mutex_unlock(&run->lock);
            return NULL;
        }

        run->next++;
        b->state = CHAINDATA_BULK_FILLING;

        chaindata_bulk_read(run, b);

        pthread_mutex_unlock(&run->lock);

        for (i = 0; i < b->nlines; i++) {
            chaindata_bulk_line(p, b, &b->lines[i]);
        }

        chaindata_bulk_sort(&b->ws);

        pthread_mutex_lock(&run->lock);
        b->state = CHAINDATA_BULK_READY;
        pthread_cond_broadcast(&run->changed);
        pthread_mutex_unlock(&run->lock);
    }
}


/* the committer's side: one batch, its messages first; an exit status */

static int
chaindata_bulk_commit(chaindata_index_t *ix, chaindata_bulk_t *bk,
    chaindata_bulk_batch_t *b)
{
    int     rc;
    size_t  i;

    if (b->msg_len) {
        fwrite(b->msg, 1, b->msg_len, stderr);
    }

    bk->skipped += b->skipped;
    bk->unknown += b->unknown;

    if (b->rc) {
        return b->rc;
    }

    if (b->bad) {
        fprintf(stderr, "chaindata-load: %s: batch of lines %zu-%zu "
                "rejected (%zu invalid); none of it was applied\n",
                b->file, b->first_line, b->last_line, b->bad);
        return CHAINDATA_EXIT_INPUT;
    }

    if (b->ws.nwrites == 0) {
        return CHAINDATA_EXIT_OK;
    }

    rc = chaindata_index_commit(ix, &b->ws);

    if (rc == CHAINDATA_INDEX_REFUSED) {
        fprintf(stderr, "chaindata-load: %s:%llu: %s\n"
                "chaindata-load: %s: batch of lines %zu-%zu rejected; none "
                "of it was applied\n", b->file,
                (unsigned long long) ix->refused_label, ix->refused,
                b->file, b->first_line, b->last_line);
        return CHAINDATA_EXIT_INPUT;
    }

    if (rc != 0) {
        fprintf(stderr, "chaindata-load: %s: batch of lines %zu-%zu not "
                "applied: %s%s\n", b->file, b->first_line, b->last_line,
                chaindata_index_strerror(rc),
                rc == MDB_MAP_FULL ? " (--max-map-size)"
                : rc == EIO || rc == ENOSPC
                ? " (writing the index failed: is its disk full?)" : "");
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0; i < CHAINDATA_REC_KINDS; i++) {
        bk->applied[i] += b->pending[i];
    }

    bk->batches++;

    return CHAINDATA_EXIT_OK;
}


static void
chaindata_bulk_clear(chaindata_bulk_batch_t *b)
{
    chaindata_writeset_reset(&b->ws);
    memset(b->pending, 0, sizeof(b->pending));
    b->raw_len = 0;
    b->bytes = 0;
    b->nlines = 0;
    b->msg_len = 0;
    b->bad = 0;
    b->skipped = 0;
    b->unknown = 0;
    b->last = 0;
    b->rc = 0;
}


/* commits the batches in their order until the last one or a fault */

static int
chaindata_bulk_commit_all(chaindata_bulk_run_t *run, chaindata_index_t *ix)
{
    int                      rc, last;
    chaindata_bulk_batch_t  *b;

    for ( ;; ) {
        pthread_mutex_lock(&run->lock);

        b = &run->slot[run->head % run->nslots];

        while (b->state != CHAINDATA_BULK_READY) {
            pthread_cond_wait(&run->changed, &run->lock);
        }

        pthread_mutex_unlock(&run->lock);

        rc = chaindata_bulk_commit(ix, run->bk, b);
        last = b->last;

        chaindata_progress_add(run->bk->progress, b->nlines, b->bytes);

        chaindata_bulk_clear(b);

        pthread_mutex_lock(&run->lock);

        b->state = CHAINDATA_BULK_FREE;
        run->head++;

        if (rc != CHAINDATA_EXIT_OK || last) {
            run->stop = 1;
        }

        pthread_cond_broadcast(&run->changed);
        pthread_mutex_unlock(&run->lock);

        if (rc != CHAINDATA_EXIT_OK || last) {
            return rc;
        }
    }
}


static int
chaindata_bulk_parsers(void)
{
    long  n;

    n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 1 ? 1 : n > CHAINDATA_BULK_PARSERS ? CHAINDATA_BULK_PARSERS
                                                  : (int) n;
}


/* the parser threads and the commits; an exit status */

static int
chaindata_bulk_run(chaindata_bulk_run_t *run, chaindata_index_t *ix,
    chaindata_bulk_parser_t *p, int np)
{
    int  i, rc, err, started;

    err = 0;

    for (started = 0; started < np; started++) {
        p[started].run = run;

        err = pthread_create(&p[started].tid, NULL, chaindata_bulk_parser,
                             &p[started]);
        if (err != 0) {
            break;
        }
    }

    if (started == 0) {
        fprintf(stderr, "chaindata-load: cannot start a parser thread: "
                "%s\n", strerror(err));
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = chaindata_bulk_commit_all(run, ix);

    for (i = 0; i < started; i++) {
        (void) pthread_join(p[i].tid, NULL);
    }

    return rc;
}


static void
chaindata_bulk_free(chaindata_bulk_run_t *run, chaindata_bulk_parser_t *p,
    int np)
{
    int                      i;
    chaindata_bulk_batch_t  *b;

    for (i = 0; i < np; i++) {
        chaindata_ingest_free(&p[i].in);
    }

    for (i = 0; i < (int) run->nslots; i++) {
        b = &run->slot[i];
        chaindata_writeset_free(&b->ws);
        free(b->raw);
        free(b->lines);
        free(b->msg);
    }

    if (run->in && run->in != stdin) {
        fclose(run->in);
    }

    free(run->line);
}


size_t
chaindata_bulk_map_size(size_t map_size, size_t max_map_size, int nfiles,
    char **files)
{
    int          i;
    size_t       input;
    struct stat  st;

    input = 0;

    for (i = 0; i < nfiles; i++) {
        if (stat(files[i], &st) == 0 && S_ISREG(st.st_mode)) {
            input += (size_t) st.st_size;
        }
    }

    input = input > max_map_size / 2 ? max_map_size : input * 2;

    return input > map_size ? input : map_size;
}


int
chaindata_bulk_load(chaindata_index_t *ix, chaindata_bulk_t *bk, int nfiles,
    char **files)
{
    int                       i, np, rc;
    chaindata_bulk_run_t      run;
    chaindata_bulk_parser_t   p[CHAINDATA_BULK_PARSERS];

    memset(&run, 0, sizeof(chaindata_bulk_run_t));
    memset(p, 0, sizeof(p));

    np = chaindata_bulk_parsers();

    run.bk = bk;
    run.nfiles = nfiles;
    run.files = files;
    run.nslots = np + 2;

    rc = CHAINDATA_EXIT_OK;

    for (i = 0; i < np; i++) {
        if (chaindata_ingest_init(&p[i].in) != 0) {
            fprintf(stderr, "chaindata-load: out of memory\n");
            rc = CHAINDATA_EXIT_SYSTEM;
            break;
        }
    }

    if (rc == CHAINDATA_EXIT_OK && chaindata_bulk_mark(ix->path) != 0) {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    if (rc == CHAINDATA_EXIT_OK) {
        pthread_mutex_init(&run.lock, NULL);
        pthread_cond_init(&run.changed, NULL);

        (void) mdb_env_set_flags(ix->env, MDB_NOSYNC, 1);

        rc = chaindata_bulk_run(&run, ix, p, np);

        /*
         * What was committed stays: rewritten with full leaves, synced,
         * an index like another (marked still if that fails).
         */
        if (rc != CHAINDATA_EXIT_SYSTEM && chaindata_bulk_repack(ix) != 0) {
            rc = CHAINDATA_EXIT_SYSTEM;

        } else if (chaindata_bulk_unmark(ix) != 0) {
            rc = CHAINDATA_EXIT_SYSTEM;
        }

        pthread_cond_destroy(&run.changed);
        pthread_mutex_destroy(&run.lock);
    }

    chaindata_bulk_free(&run, p, np);

    return rc;
}
