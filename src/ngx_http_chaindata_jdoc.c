
/*
 * chaindata: JSON document tree for the loader (see the header).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "ngx_http_chaindata_codec.h"
#include "ngx_http_chaindata_jdoc.h"


#define NGX_HTTP_CHAINDATA_ARENA_CHUNK  (1024 * 1024)


typedef struct ngx_http_chaindata_chunk_s  ngx_http_chaindata_chunk_t;

struct ngx_http_chaindata_chunk_s {
    ngx_http_chaindata_chunk_t  *next;
    size_t                       size;
    size_t                       used;
    unsigned char                data[];
};


struct ngx_http_chaindata_arena_s {
    ngx_http_chaindata_chunk_t  *chunks;
};


typedef struct {
    ngx_http_chaindata_arena_t  *arena;
    ngx_http_chaindata_jv_t     *root;
    ngx_http_chaindata_jv_t     *stack[NGX_HTTP_CHAINDATA_MAX_DEPTH];
    unsigned                     depth;
    const unsigned char         *key;
    size_t                       key_len;
    const char                  *failure;
    const ngx_http_chaindata_jv_t  *dup;
} ngx_http_chaindata_jparse_t;


static unsigned char *
ngx_http_chaindata_cpymem(unsigned char *p, const void *s, size_t n)
{
    memcpy(p, s, n);

    return p + n;
}


ngx_http_chaindata_arena_t *
ngx_http_chaindata_arena_create(void)
{
    return calloc(1, sizeof(ngx_http_chaindata_arena_t));
}


void *
ngx_http_chaindata_arena_alloc(ngx_http_chaindata_arena_t *a, size_t size)
{
    size_t                       chunk;
    ngx_http_chaindata_chunk_t  *c;

    size = (size + 15) & ~(size_t) 15;
    c = a->chunks;

    if (c == NULL || c->size - c->used < size) {
        chunk = size > NGX_HTTP_CHAINDATA_ARENA_CHUNK
                ? size : NGX_HTTP_CHAINDATA_ARENA_CHUNK;

        c = malloc(sizeof(ngx_http_chaindata_chunk_t) + chunk);
        if (c == NULL) {
            return NULL;
        }

        c->size = chunk;
        c->used = 0;
        c->next = a->chunks;
        a->chunks = c;
    }

    c->used += size;

    return c->data + c->used - size;
}


/* keeps one chunk for the next record, frees the rest */

void
ngx_http_chaindata_arena_reset(ngx_http_chaindata_arena_t *a)
{
    ngx_http_chaindata_chunk_t  *c, *next;

    if (a->chunks == NULL) {
        return;
    }

    for (c = a->chunks->next; c; c = next) {
        next = c->next;
        free(c);
    }

    a->chunks->next = NULL;
    a->chunks->used = 0;
}


void
ngx_http_chaindata_arena_destroy(ngx_http_chaindata_arena_t *a)
{
    if (a == NULL) {
        return;
    }

    ngx_http_chaindata_arena_reset(a);
    free(a->chunks);
    free(a);
}


static ngx_http_chaindata_jv_t *
ngx_http_chaindata_jparse_add(ngx_http_chaindata_jparse_t *jp,
    ngx_http_chaindata_jv_type_e type)
{
    ngx_http_chaindata_jv_t  *v, *parent;

    v = ngx_http_chaindata_arena_alloc(jp->arena, sizeof(*v));
    if (v == NULL) {
        jp->failure = "out of memory";
        return NULL;
    }

    memset(v, 0, sizeof(*v));
    v->type = type;

    if (jp->depth == 0) {
        jp->root = v;
        return v;
    }

    parent = jp->stack[jp->depth - 1];

    if (parent->type == NGX_HTTP_CHAINDATA_JV_OBJECT) {
        v->key = jp->key;
        v->key_len = jp->key_len;
    }

    if (parent->last) {
        parent->last->next = v;

    } else {
        parent->child = v;
    }

    parent->last = v;
    parent->n++;

    return v;
}


static const unsigned char *
ngx_http_chaindata_jparse_copy(ngx_http_chaindata_jparse_t *jp,
    const unsigned char *s, size_t len)
{
    unsigned char  *p;

    p = ngx_http_chaindata_arena_alloc(jp->arena, len + 1);
    if (p == NULL) {
        jp->failure = "out of memory";
        return NULL;
    }

    memcpy(p, s, len);
    p[len] = '\0';

    return p;
}


static int
ngx_http_chaindata_jparse_scalar(ngx_http_chaindata_jparse_t *jp,
    ngx_http_chaindata_jv_type_e type, const unsigned char *s, size_t len)
{
    ngx_http_chaindata_jv_t  *v;

    v = ngx_http_chaindata_jparse_add(jp, type);
    if (v == NULL) {
        return 0;
    }

    if (s) {
        v->str = ngx_http_chaindata_jparse_copy(jp, s, len);
        if (v->str == NULL) {
            return 0;
        }

        v->len = len;
    }

    return 1;
}


static int
ngx_http_chaindata_jparse_null(void *ctx)
{
    return ngx_http_chaindata_jparse_scalar(ctx, NGX_HTTP_CHAINDATA_JV_NULL,
                                            NULL, 0);
}


static int
ngx_http_chaindata_jparse_boolean(void *ctx, int b)
{
    return ngx_http_chaindata_jparse_scalar(ctx,
               b ? NGX_HTTP_CHAINDATA_JV_TRUE : NGX_HTTP_CHAINDATA_JV_FALSE,
               NULL, 0);
}


static int
ngx_http_chaindata_jparse_number(void *ctx, const char *s, size_t len)
{
    return ngx_http_chaindata_jparse_scalar(ctx, NGX_HTTP_CHAINDATA_JV_NUMBER,
                                            (const unsigned char *) s, len);
}


static int
ngx_http_chaindata_jparse_string(void *ctx, const unsigned char *s,
    size_t len)
{
    return ngx_http_chaindata_jparse_scalar(ctx, NGX_HTTP_CHAINDATA_JV_STRING,
                                            s, len);
}


static int
ngx_http_chaindata_jparse_open(ngx_http_chaindata_jparse_t *jp,
    ngx_http_chaindata_jv_type_e type)
{
    ngx_http_chaindata_jv_t  *v;

    if (jp->depth == NGX_HTTP_CHAINDATA_MAX_DEPTH) {
        jp->failure = "nested deeper than 64 levels";
        return 0;
    }

    v = ngx_http_chaindata_jparse_add(jp, type);
    if (v == NULL) {
        return 0;
    }

    jp->stack[jp->depth++] = v;

    return 1;
}


static int
ngx_http_chaindata_jparse_start_map(void *ctx)
{
    return ngx_http_chaindata_jparse_open(ctx, NGX_HTTP_CHAINDATA_JV_OBJECT);
}


static int
ngx_http_chaindata_jparse_start_array(void *ctx)
{
    return ngx_http_chaindata_jparse_open(ctx, NGX_HTTP_CHAINDATA_JV_ARRAY);
}


static int
ngx_http_chaindata_jparse_map_key(void *ctx, const unsigned char *s,
    size_t len)
{
    ngx_http_chaindata_jparse_t  *jp = ctx;

    jp->key = ngx_http_chaindata_jparse_copy(jp, s, len);
    jp->key_len = len;

    return jp->key != NULL;
}


static int
ngx_http_chaindata_jparse_end_map(void *ctx)
{
    ngx_http_chaindata_jparse_t  *jp = ctx;

    const ngx_http_chaindata_jv_t  *obj;

    obj = jp->stack[--jp->depth];

    /* a document with a member twice means two things: refuse it */
    jp->dup = ngx_http_chaindata_jv_duplicate(obj);
    if (jp->dup) {
        jp->failure = "duplicate member";
        return 0;
    }

    return 1;
}


static int
ngx_http_chaindata_jparse_end_array(void *ctx)
{
    ngx_http_chaindata_jparse_t  *jp = ctx;

    jp->depth--;

    return 1;
}


static const yajl_callbacks  ngx_http_chaindata_jparse_callbacks = {
    ngx_http_chaindata_jparse_null,
    ngx_http_chaindata_jparse_boolean,
    NULL,
    NULL,
    ngx_http_chaindata_jparse_number,
    ngx_http_chaindata_jparse_string,
    ngx_http_chaindata_jparse_start_map,
    ngx_http_chaindata_jparse_map_key,
    ngx_http_chaindata_jparse_end_map,
    ngx_http_chaindata_jparse_start_array,
    ngx_http_chaindata_jparse_end_array
};


ngx_http_chaindata_jv_t *
ngx_http_chaindata_jdoc_parse(ngx_http_chaindata_arena_t *a,
    const unsigned char *text, size_t len, char *err, size_t err_len)
{
    char                         *nl;
    yajl_handle                   h;
    yajl_status                   st;
    unsigned char                *msg;
    ngx_http_chaindata_jparse_t   jp;

    memset(&jp, 0, sizeof(jp));
    jp.arena = a;

    h = yajl_alloc(&ngx_http_chaindata_jparse_callbacks, NULL, &jp);
    if (h == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }

    st = yajl_parse(h, text, len);
    if (st == yajl_status_ok) {
        st = yajl_complete_parse(h);
    }

    if (st == yajl_status_ok) {
        yajl_free(h);
        return jp.root;
    }

    if (jp.dup) {
        snprintf(err, err_len, "duplicate member \"%.*s\" in an object",
                 (int) (jp.dup->key_len > 128 ? 128 : jp.dup->key_len),
                 jp.dup->key);

    } else if (jp.failure) {
        snprintf(err, err_len, "%s", jp.failure);

    } else {
        msg = yajl_get_error(h, 0, text, len);

        if (msg) {
            nl = strchr((char *) msg, '\n');
            if (nl) {
                *nl = '\0';
            }

            snprintf(err, err_len, "malformed JSON (%s) near byte %zu",
                     (char *) msg, yajl_get_bytes_consumed(h));
            yajl_free_error(h, msg);

        } else {
            snprintf(err, err_len, "malformed JSON");
        }
    }

    yajl_free(h);

    return NULL;
}


ngx_http_chaindata_jv_t *
ngx_http_chaindata_jv_get(const ngx_http_chaindata_jv_t *obj,
    const char *name)
{
    size_t                    len;
    ngx_http_chaindata_jv_t  *m;

    if (obj == NULL || obj->type != NGX_HTTP_CHAINDATA_JV_OBJECT) {
        return NULL;
    }

    len = strlen(name);

    for (m = obj->child; m; m = m->next) {
        if (m->key_len == len && memcmp(m->key, name, len) == 0) {
            return m;
        }
    }

    return NULL;
}


int
ngx_http_chaindata_jv_is(const ngx_http_chaindata_jv_t *v, const char *s)
{
    size_t  len;

    len = strlen(s);

    return v && v->type == NGX_HTTP_CHAINDATA_JV_STRING && v->len == len
           && memcmp(v->str, s, len) == 0;
}


int
ngx_http_chaindata_jv_is_integer(const ngx_http_chaindata_jv_t *v)
{
    size_t  i;

    if (v == NULL || v->type != NGX_HTTP_CHAINDATA_JV_NUMBER) {
        return 0;
    }

    for (i = 0; i < v->len; i++) {
        if (v->str[i] == '.' || v->str[i] == 'e' || v->str[i] == 'E') {
            return 0;
        }
    }

    return 1;
}


/* a non-negative JSON integer that fits 64 bits */

int
ngx_http_chaindata_jv_to_u64(const ngx_http_chaindata_jv_t *v,
    uint64_t *out)
{
    size_t    i;
    uint64_t  n, d;

    if (!ngx_http_chaindata_jv_is_integer(v) || v->str[0] == '-') {
        return -1;
    }

    n = 0;

    for (i = 0; i < v->len; i++) {
        d = v->str[i] - '0';

        /* up to 18446744073709551615 exactly */
        if (n > UINT64_MAX / 10
            || (n == UINT64_MAX / 10 && d > UINT64_MAX % 10))
        {
            return -1;
        }

        n = n * 10 + d;
    }

    *out = n;

    return 0;
}


static int
ngx_http_chaindata_jv_key_cmp(const void *a, const void *b)
{
    int                             rc;
    size_t                          n;
    const ngx_http_chaindata_jv_t  *x, *y;

    x = *(ngx_http_chaindata_jv_t * const *) a;
    y = *(ngx_http_chaindata_jv_t * const *) b;

    n = x->key_len < y->key_len ? x->key_len : y->key_len;
    rc = memcmp(x->key, y->key, n);

    if (rc) {
        return rc;
    }

    return (x->key_len > y->key_len) - (x->key_len < y->key_len);
}


/*
 * The first member of obj whose name repeats, or NULL.  Small objects are
 * checked pairwise; a large one (only hostile input has those) is sorted.
 */

const ngx_http_chaindata_jv_t *
ngx_http_chaindata_jv_duplicate(const ngx_http_chaindata_jv_t *obj)
{
    size_t                          i;
    const ngx_http_chaindata_jv_t  *m, *o, *found, **sorted;

    if (obj->n <= 32) {
        for (m = obj->child; m; m = m->next) {
            for (o = m->next; o; o = o->next) {
                if (m->key_len == o->key_len
                    && memcmp(m->key, o->key, m->key_len) == 0)
                {
                    return o;
                }
            }
        }

        return NULL;
    }

    sorted = malloc(obj->n * sizeof(*sorted));
    if (sorted == NULL) {
        return obj->child;
    }

    for (i = 0, m = obj->child; m; m = m->next) {
        sorted[i++] = m;
    }

    qsort(sorted, obj->n, sizeof(*sorted), ngx_http_chaindata_jv_key_cmp);

    found = NULL;

    for (i = 1; i < obj->n; i++) {
        if (ngx_http_chaindata_jv_key_cmp(&sorted[i - 1], &sorted[i]) == 0) {
            found = sorted[i];
            break;
        }
    }

    free(sorted);

    return found;
}


size_t
ngx_http_chaindata_jv_member_size(const ngx_http_chaindata_jv_t *m)
{
    /* "key": value */
    return ngx_http_chaindata_json_escape_len(m->key, m->key_len) + 3
           + ngx_http_chaindata_jv_size(m);
}


size_t
ngx_http_chaindata_jv_size(const ngx_http_chaindata_jv_t *v)
{
    size_t                          size;
    const ngx_http_chaindata_jv_t  *c;

    switch (v->type) {

    case NGX_HTTP_CHAINDATA_JV_NULL:
    case NGX_HTTP_CHAINDATA_JV_TRUE:
        return 4;

    case NGX_HTTP_CHAINDATA_JV_FALSE:
        return 5;

    case NGX_HTTP_CHAINDATA_JV_NUMBER:
        return v->len;

    case NGX_HTTP_CHAINDATA_JV_STRING:
        return ngx_http_chaindata_json_escape_len(v->str, v->len) + 2;

    case NGX_HTTP_CHAINDATA_JV_OBJECT:
        size = 2 + (v->n ? v->n - 1 : 0);

        for (c = v->child; c; c = c->next) {
            size += ngx_http_chaindata_jv_member_size(c);
        }

        return size;

    default: /* NGX_HTTP_CHAINDATA_JV_ARRAY */
        size = 2 + (v->n ? v->n - 1 : 0);

        for (c = v->child; c; c = c->next) {
            size += ngx_http_chaindata_jv_size(c);
        }

        return size;
    }
}


unsigned char *
ngx_http_chaindata_jv_write_key(unsigned char *p,
    const ngx_http_chaindata_jv_t *m)
{
    *p++ = '"';
    p = ngx_http_chaindata_json_escape(p, m->key, m->key_len);
    *p++ = '"';
    *p++ = ':';

    return p;
}


unsigned char *
ngx_http_chaindata_jv_write(unsigned char *p, const ngx_http_chaindata_jv_t *v)
{
    const ngx_http_chaindata_jv_t  *c;

    switch (v->type) {

    case NGX_HTTP_CHAINDATA_JV_NULL:
        return ngx_http_chaindata_cpymem(p, "null", 4);

    case NGX_HTTP_CHAINDATA_JV_TRUE:
        return ngx_http_chaindata_cpymem(p, "true", 4);

    case NGX_HTTP_CHAINDATA_JV_FALSE:
        return ngx_http_chaindata_cpymem(p, "false", 5);

    case NGX_HTTP_CHAINDATA_JV_NUMBER:
        return ngx_http_chaindata_cpymem(p, v->str, v->len);

    case NGX_HTTP_CHAINDATA_JV_STRING:
        *p++ = '"';
        p = ngx_http_chaindata_json_escape(p, v->str, v->len);
        *p++ = '"';
        return p;

    case NGX_HTTP_CHAINDATA_JV_OBJECT:
        *p++ = '{';

        for (c = v->child; c; c = c->next) {
            if (c != v->child) {
                *p++ = ',';
            }

            p = ngx_http_chaindata_jv_write_key(p, c);
            p = ngx_http_chaindata_jv_write(p, c);
        }

        *p++ = '}';
        return p;

    default: /* NGX_HTTP_CHAINDATA_JV_ARRAY */
        *p++ = '[';

        for (c = v->child; c; c = c->next) {
            if (c != v->child) {
                *p++ = ',';
            }

            p = ngx_http_chaindata_jv_write(p, c);
        }

        *p++ = ']';
        return p;
    }
}
