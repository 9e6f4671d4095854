
/*
 * chaindata_threads' guess of whether a read would fault (see the
 * header).  A table of the keys lately answered remembers where their
 * record was in the map, and mincore() says whether those pages are still
 * in memory.  A key never seen, or whose pages left, goes to the pool; a
 * resident one is answered inline.  The table is set-associative (a key
 * has four places, the one least lately answered is taken): two hot keys
 * whose hashes meet do not send each other to the pool turn by turn.
 */


#include <ngx_config.h>
#include <ngx_core.h>

#include <sys/mman.h>

#include "ngx_http_chaindata_hints.h"


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


typedef enum {
    NGX_HTTP_CHAINDATA_GUESS_PAGES = 0,   /* mincore of the record's pages */
    NGX_HTTP_CHAINDATA_GUESS_SEEN,        /* answered in the last 10 s */
    NGX_HTTP_CHAINDATA_GUESS_ALL          /* every lookup to the pool */
} ngx_http_chaindata_guess_e;


/*
 * where a key's record was when it was last answered (56 bytes): its
 * value, or the first part and the rest of a value kept in parts, and the
 * first chunk of its list that the page read: a list's chunks are other
 * pages, which may leave memory while the record stays
 */
typedef struct {
    u_char              *addr;
    u_char              *rest;      /* NULL: a whole value */
    u_char              *list;      /* NULL: no chunk read */
    uint32_t             hash;
    uint32_t             len;
    uint32_t             rest_len;
    uint32_t             list_len;
    uint32_t             generation;
    uint32_t             seen;      /* ngx_time(), 0: never */
    uint32_t             resident;  /* ngx_current_msec mincore() said so */
} ngx_http_chaindata_hint_t;


static ngx_http_chaindata_hint_t  *ngx_http_chaindata_hints;
static ngx_http_chaindata_guess_e  ngx_http_chaindata_guess;
static ngx_uint_t                  ngx_http_chaindata_page_size;


/*
 * In each worker: the table of hints, and the guess, which the benchmark
 * may change (CHAINDATA_THREADS_GUESS=seen|all, with nginx's "env").
 */

ngx_int_t
ngx_http_chaindata_hints_init(ngx_cycle_t *cycle)
{
    char  *guess;

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


void
ngx_http_chaindata_hints_exit(void)
{
    if (ngx_http_chaindata_hints) {
        ngx_free(ngx_http_chaindata_hints);
        ngx_http_chaindata_hints = NULL;
    }
}


ngx_int_t
ngx_http_chaindata_hints_key(const ngx_http_chaindata_read_t *read,
    ngx_http_chaindata_hint_key_t *key)
{
    if (ngx_http_chaindata_hints == NULL
        || read->key_len > NGX_HTTP_CHAINDATA_KEY_MAX)
    {
        return NGX_DECLINED;
    }

    if (!key->hashed) {
        key->hash = ngx_murmur_hash2(read->key, read->key_len)
                    ^ ((uint32_t) read->db * 0x9e3779b9);

        if (read->list_db != CHAINDATA_DBI_COUNT && read->per) {
            key->hash ^= (uint32_t) (read->offset / read->per) * 0x85ebca6b;
        }

        key->hashed = 1;
    }

    return NGX_OK;
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
    oldest->rest = NULL;
    oldest->list = NULL;
    oldest->resident = 0;

    return oldest;
}


/* 1 when mincore() says the pages of len bytes at addr are in memory */

static ngx_uint_t
ngx_http_chaindata_hints_in_memory(u_char *addr, size_t len)
{
    u_char         *start, *end;
    ngx_uint_t      i, n;
    unsigned char   vec[NGX_HTTP_CHAINDATA_HINT_PAGES];

    start = ngx_align_ptr(addr - (ngx_http_chaindata_page_size - 1),
                          ngx_http_chaindata_page_size);
    end = ngx_align_ptr(addr + len, ngx_http_chaindata_page_size);

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

    return 1;
}


/* whether the key's record is likely in memory: 1, or 0 */

ngx_uint_t
ngx_http_chaindata_hints_resident(ngx_http_chaindata_hint_key_t *key,
    ngx_uint_t generation)
{
    ngx_http_chaindata_hint_t  *hint;

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

    if (!ngx_http_chaindata_hints_in_memory(hint->addr, hint->len)
        || (hint->rest
            && !ngx_http_chaindata_hints_in_memory(hint->rest,
                                                   hint->rest_len))
        || (hint->list
            && !ngx_http_chaindata_hints_in_memory(hint->list,
                                                   hint->list_len)))
    {
        return 0;
    }

    /* 0 is "not asked": a clock at 0 only asks again next time */
    hint->resident = (uint32_t) ngx_current_msec;

    return 1;
}


void
ngx_http_chaindata_hints_note(ngx_http_chaindata_hint_key_t *key,
    const MDB_val *record, ngx_uint_t generation)
{
    ngx_http_chaindata_hint_t  *hint;

    hint = ngx_http_chaindata_hint_place(key->hash);

    if (hint->addr != record[0].mv_data
        || hint->list != record[2].mv_data
        || hint->generation != (uint32_t) generation)
    {
        /* another record or chunk, or it moved: mincore() asks again */
        hint->resident = 0;
    }

    hint->generation = (uint32_t) generation;
    hint->addr = record[0].mv_data;
    hint->len = (uint32_t) ngx_min(record[0].mv_size, NGX_MAX_UINT32_VALUE);
    hint->rest = record[1].mv_data;
    hint->rest_len = (uint32_t) ngx_min(record[1].mv_size,
                                        NGX_MAX_UINT32_VALUE);
    hint->list = record[2].mv_data;
    hint->list_len = (uint32_t) ngx_min(record[2].mv_size,
                                        NGX_MAX_UINT32_VALUE);
    hint->seen = (uint32_t) ngx_time();
}
