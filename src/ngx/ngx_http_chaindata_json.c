
/*
 * chaindata: the JSON writer of the module's bodies (see the header).
 */


#include <ngx_config.h>
#include <ngx_core.h>

#include "ngx_http_chaindata_json.h"


/*
 * yajl allocates without checking the result in a few places and hands
 * realloc no old size.  Every block therefore carries its size, and a
 * failed allocation returns a static scratch block (large enough for the
 * small structures yajl allocates unchecked) after marking the output
 * failed, so the request ends with a 500 instead of a NULL dereference.
 * With the print callback set, yajl allocates nothing else.
 */

typedef struct {
    size_t  size;
    size_t  pad;
} ngx_http_chaindata_json_block_t;


static u_char  ngx_http_chaindata_json_scratch[256];


static void *
ngx_http_chaindata_json_malloc(void *ctx, size_t size)
{
    ngx_http_chaindata_json_t        *j = ctx;
    ngx_http_chaindata_json_block_t  *b;

    b = ngx_palloc(j->pool, sizeof(ngx_http_chaindata_json_block_t) + size);

    if (b == NULL) {
        j->failed = 1;

        if (size > sizeof(ngx_http_chaindata_json_scratch)) {
            return NULL;
        }

        return ngx_http_chaindata_json_scratch;
    }

    b->size = size;

    return b + 1;
}


static void *
ngx_http_chaindata_json_realloc(void *ctx, void *ptr, size_t size)
{
    void                             *p;
    ngx_http_chaindata_json_block_t  *b;

    p = ngx_http_chaindata_json_malloc(ctx, size);

    if (ptr == NULL || ptr == ngx_http_chaindata_json_scratch
        || p == ngx_http_chaindata_json_scratch || p == NULL)
    {
        return p;
    }

    b = (ngx_http_chaindata_json_block_t *) ptr - 1;
    ngx_memcpy(p, ptr, ngx_min(b->size, size));

    return p;
}


static void
ngx_http_chaindata_json_free(void *ctx, void *ptr)
{
    /* the pool frees everything with the request */
}


static void
ngx_http_chaindata_json_print(void *ctx, const char *s, size_t len)
{
    ngx_http_chaindata_json_t  *j = ctx;

    size_t   cap;
    u_char  *buf;

    if (j->failed) {
        return;
    }

    if (j->cap - j->len < len) {
        cap = ngx_max(j->cap * 2, j->len + len);
        cap = ngx_max(cap, 256);

        buf = ngx_pnalloc(j->pool, cap);
        if (buf == NULL) {
            j->failed = 1;
            return;
        }

        if (j->len) {
            ngx_memcpy(buf, j->buf, j->len);
        }

        j->buf = buf;
        j->cap = cap;
    }

    ngx_memcpy(j->buf + j->len, s, len);
    j->len += len;
}


ngx_int_t
ngx_http_chaindata_json_init(ngx_http_chaindata_json_t *j, ngx_pool_t *pool)
{
    yajl_alloc_funcs  afs;

    ngx_memzero(j, sizeof(ngx_http_chaindata_json_t));
    j->pool = pool;

    afs.malloc = ngx_http_chaindata_json_malloc;
    afs.realloc = ngx_http_chaindata_json_realloc;
    afs.free = ngx_http_chaindata_json_free;
    afs.ctx = j;

    j->gen = yajl_gen_alloc(&afs);
    if (j->gen == NULL) {
        return NGX_ERROR;
    }

    if (!yajl_gen_config(j->gen, yajl_gen_print_callback,
                         ngx_http_chaindata_json_print, j)
        || !yajl_gen_config(j->gen, yajl_gen_validate_utf8, 1))
    {
        j->failed = 1;
    }

    return j->failed ? NGX_ERROR : NGX_OK;
}


void
ngx_http_chaindata_json_key(ngx_http_chaindata_json_t *j, const char *key)
{
    ngx_http_chaindata_json_str(j, (u_char *) key, ngx_strlen(key));
}


void
ngx_http_chaindata_json_str(ngx_http_chaindata_json_t *j, const u_char *s,
    size_t len)
{
    if (yajl_gen_string(j->gen, s, len) != yajl_gen_status_ok) {
        j->failed = 1;
    }
}


void
ngx_http_chaindata_json_int(ngx_http_chaindata_json_t *j, int64_t n)
{
    if (yajl_gen_integer(j->gen, n) != yajl_gen_status_ok) {
        j->failed = 1;
    }
}


void
ngx_http_chaindata_json_bool(ngx_http_chaindata_json_t *j, ngx_uint_t b)
{
    if (yajl_gen_bool(j->gen, b ? 1 : 0) != yajl_gen_status_ok) {
        j->failed = 1;
    }
}


void
ngx_http_chaindata_json_null(ngx_http_chaindata_json_t *j)
{
    if (yajl_gen_null(j->gen) != yajl_gen_status_ok) {
        j->failed = 1;
    }
}


void
ngx_http_chaindata_json_map_open(ngx_http_chaindata_json_t *j)
{
    if (yajl_gen_map_open(j->gen) != yajl_gen_status_ok) {
        j->failed = 1;
    }
}


void
ngx_http_chaindata_json_map_close(ngx_http_chaindata_json_t *j)
{
    if (yajl_gen_map_close(j->gen) != yajl_gen_status_ok) {
        j->failed = 1;
    }
}


void
ngx_http_chaindata_json_array_open(ngx_http_chaindata_json_t *j)
{
    if (yajl_gen_array_open(j->gen) != yajl_gen_status_ok) {
        j->failed = 1;
    }
}


void
ngx_http_chaindata_json_array_close(ngx_http_chaindata_json_t *j)
{
    if (yajl_gen_array_close(j->gen) != yajl_gen_status_ok) {
        j->failed = 1;
    }
}


ngx_int_t
ngx_http_chaindata_json_done(ngx_http_chaindata_json_t *j, ngx_str_t *out)
{
    yajl_gen_free(j->gen);
    j->gen = NULL;

    if (j->failed) {
        return NGX_ERROR;
    }

    out->data = j->buf;
    out->len = j->len;

    return NGX_OK;
}
