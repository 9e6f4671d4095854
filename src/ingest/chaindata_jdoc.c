
/*
 * chaindata: JSON document tree for the loader, parsed with yajl into the
 * arena (chaindata_jdoc_arena.c), and its members looked up (see the
 * header).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "chaindata_escape.h"
#include "chaindata_jdoc.h"
#include "chaindata_jstr.h"


typedef struct {
    chaindata_arena_t     *arena;
    chaindata_jv_t        *root;
    chaindata_jv_t        *stack[CHAINDATA_MAX_DEPTH];
    unsigned               depth;
    const unsigned char   *key;
    size_t                 key_len;
    const char            *failure;
    const chaindata_jv_t  *dup;
    const unsigned char   *cursor;   /* the text after the last string */
    const unsigned char   *end;
} chaindata_jparse_t;


static chaindata_jv_t *
chaindata_jparse_add(chaindata_jparse_t *jp,
    chaindata_jv_type_e type)
{
    chaindata_jv_t  *v, *parent;

    v = chaindata_arena_alloc(jp->arena, sizeof(*v));
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

    if (parent->type == CHAINDATA_JV_OBJECT) {
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
chaindata_jparse_copy(chaindata_jparse_t *jp,
    const unsigned char *s, size_t len)
{
    unsigned char  *p;

    p = chaindata_arena_alloc(jp->arena, len + 1);
    if (p == NULL) {
        jp->failure = "out of memory";
        return NULL;
    }

    memcpy(p, s, len);
    p[len] = '\0';

    return p;
}


static int
chaindata_jparse_scalar(chaindata_jparse_t *jp,
    chaindata_jv_type_e type, const unsigned char *s, size_t len)
{
    chaindata_jv_t  *v;

    v = chaindata_jparse_add(jp, type);
    if (v == NULL) {
        return 0;
    }

    if (s) {
        v->str = chaindata_jparse_copy(jp, s, len);
        if (v->str == NULL) {
            return 0;
        }

        v->len = len;
    }

    return 1;
}


static int
chaindata_jparse_null(void *ctx)
{
    return chaindata_jparse_scalar(ctx, CHAINDATA_JV_NULL,
                                   NULL, 0);
}


static int
chaindata_jparse_boolean(void *ctx, int b)
{
    return chaindata_jparse_scalar(ctx,
               b ? CHAINDATA_JV_TRUE : CHAINDATA_JV_FALSE,
               NULL, 0);
}


static int
chaindata_jparse_number(void *ctx, const char *s, size_t len)
{
    return chaindata_jparse_scalar(ctx, CHAINDATA_JV_NUMBER,
                                   (const unsigned char *) s, len);
}


/*
 * A string or a member name into the arena: as yajl decoded it, or, when
 * the text has a surrogate escape, decoded from the text here (see
 * chaindata_jstr.h).  Either way valid UTF-8 but for lone surrogates.
 */

static const unsigned char *
chaindata_jparse_text(chaindata_jparse_t *jp, const unsigned char *s,
    size_t *len)
{
    int                   surrogates;
    size_t                raw_len, n;
    unsigned char        *p;
    const unsigned char  *raw;

    surrogates = 0;

    if (jp->cursor) {
        jp->cursor = chaindata_jstr_next(jp->cursor, jp->end, &raw,
                                         &raw_len, &surrogates);
        if (jp->cursor == NULL) {
            jp->failure = "a string not found in the text";
            return NULL;
        }
    }

    if (!surrogates) {
        if (chaindata_utf8_valid_len(s, *len) == *len) {
            return chaindata_jparse_copy(jp, s, *len);
        }

        n = (size_t) -1;

    } else {
        p = chaindata_arena_alloc(jp->arena, raw_len + 1);
        if (p == NULL) {
            jp->failure = "out of memory";
            return NULL;
        }

        n = chaindata_jstr_decode(p, raw, raw_len);
    }

    if (n == (size_t) -1) {
        jp->failure = "a string that is not valid UTF-8 (a surrogate, an "
                      "overlong form or a code point past U+10FFFF as bytes)";
        return NULL;
    }

    p[n] = '\0';
    *len = n;

    return p;
}


static int
chaindata_jparse_string(void *ctx, const unsigned char *s,
    size_t len)
{
    chaindata_jparse_t  *jp = ctx;

    chaindata_jv_t  *v;

    s = chaindata_jparse_text(jp, s, &len);
    if (s == NULL) {
        return 0;
    }

    v = chaindata_jparse_add(jp, CHAINDATA_JV_STRING);
    if (v == NULL) {
        return 0;
    }

    v->str = s;
    v->len = len;

    return 1;
}


static int
chaindata_jparse_open(chaindata_jparse_t *jp,
    chaindata_jv_type_e type)
{
    chaindata_jv_t  *v;

    if (jp->depth == CHAINDATA_MAX_DEPTH) {
        jp->failure = "nested deeper than 64 levels";
        return 0;
    }

    v = chaindata_jparse_add(jp, type);
    if (v == NULL) {
        return 0;
    }

    jp->stack[jp->depth++] = v;

    return 1;
}


static int
chaindata_jparse_start_map(void *ctx)
{
    return chaindata_jparse_open(ctx, CHAINDATA_JV_OBJECT);
}


static int
chaindata_jparse_start_array(void *ctx)
{
    return chaindata_jparse_open(ctx, CHAINDATA_JV_ARRAY);
}


static int
chaindata_jparse_map_key(void *ctx, const unsigned char *s,
    size_t len)
{
    chaindata_jparse_t  *jp = ctx;

    jp->key = chaindata_jparse_text(jp, s, &len);
    jp->key_len = len;

    return jp->key != NULL;
}


static int
chaindata_jv_name_cmp(const unsigned char *a, size_t a_len,
    const unsigned char *b, size_t b_len)
{
    int  rc;

    rc = memcmp(a, b, a_len < b_len ? a_len : b_len);

    if (rc) {
        return rc;
    }

    return (a_len > b_len) - (a_len < b_len);
}


static int
chaindata_jv_key_cmp(const void *a, const void *b)
{
    const chaindata_jv_t  *x, *y;

    x = *(chaindata_jv_t * const *) a;
    y = *(chaindata_jv_t * const *) b;

    return chaindata_jv_name_cmp(x->key, x->key_len, y->key, y->key_len);
}


/*
 * At the end of an object: a member given twice means two things, so the
 * document is refused; a large object gets its members sorted by name
 * (in the arena) for chaindata_jv_get.  Small objects are checked
 * pairwise and searched in order.
 */

static int
chaindata_jparse_index(chaindata_jparse_t *jp, chaindata_jv_t *obj)
{
    size_t            i;
    chaindata_jv_t   *m, *o, **sorted;

    if (obj->n <= CHAINDATA_JV_INDEX_MIN) {
        for (m = obj->child; m; m = m->next) {
            for (o = m->next; o; o = o->next) {
                if (chaindata_jv_name_cmp(m->key, m->key_len,
                                          o->key, o->key_len)
                    == 0)
                {
                    jp->dup = o;
                    jp->failure = "duplicate member";
                    return 0;
                }
            }
        }

        return 1;
    }

    sorted = chaindata_arena_alloc(jp->arena, obj->n * sizeof(*sorted));
    if (sorted == NULL) {
        jp->failure = "out of memory";
        return 0;
    }

    for (i = 0, m = obj->child; m; m = m->next) {
        sorted[i++] = m;
    }

    qsort(sorted, obj->n, sizeof(*sorted), chaindata_jv_key_cmp);

    for (i = 1; i < obj->n; i++) {
        if (chaindata_jv_key_cmp(&sorted[i - 1], &sorted[i]) == 0) {
            jp->dup = sorted[i];
            jp->failure = "duplicate member";
            return 0;
        }
    }

    obj->index = sorted;

    return 1;
}


static int
chaindata_jparse_end_map(void *ctx)
{
    chaindata_jparse_t  *jp = ctx;

    return chaindata_jparse_index(jp, jp->stack[--jp->depth]);
}


static int
chaindata_jparse_end_array(void *ctx)
{
    chaindata_jparse_t  *jp = ctx;

    jp->depth--;

    return 1;
}


static const yajl_callbacks  chaindata_jparse_callbacks = {
    chaindata_jparse_null,
    chaindata_jparse_boolean,
    NULL,
    NULL,
    chaindata_jparse_number,
    chaindata_jparse_string,
    chaindata_jparse_start_map,
    chaindata_jparse_map_key,
    chaindata_jparse_end_map,
    chaindata_jparse_start_array,
    chaindata_jparse_end_array
};


chaindata_jv_t *
chaindata_jdoc_parse(chaindata_arena_t *a,
    const unsigned char *text, size_t len, char *err, size_t err_len)
{
    char               *nl;
    yajl_handle         h;
    yajl_status         st;
    unsigned char      *msg;
    chaindata_jparse_t  jp;

    memset(&jp, 0, sizeof(jp));
    jp.arena = a;

    /* only then are strings looked at in the text: rarely */
    if (chaindata_jstr_maybe_surrogates(text, len)) {
        jp.cursor = text;
        jp.end = text + len;
    }

    h = yajl_alloc(&chaindata_jparse_callbacks, NULL, &jp);
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


/* by the index in a large object, in order in a small one */

chaindata_jv_t *
chaindata_jv_get(const chaindata_jv_t *obj,
    const char *name)
{
    int              rc;
    size_t           len, lo, hi, mid;
    chaindata_jv_t  *m;

    if (obj == NULL || obj->type != CHAINDATA_JV_OBJECT) {
        return NULL;
    }

    len = strlen(name);

    if (obj->index == NULL) {
        for (m = obj->child; m; m = m->next) {
            if (m->key_len == len && memcmp(m->key, name, len) == 0) {
                return m;
            }
        }

        return NULL;
    }

    lo = 0;
    hi = obj->n;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        m = obj->index[mid];

        rc = chaindata_jv_name_cmp(m->key, m->key_len,
                                   (const unsigned char *) name, len);
        if (rc == 0) {
            return m;
        }

        if (rc < 0) {
            lo = mid + 1;

        } else {
            hi = mid;
        }
    }

    return NULL;
}


int
chaindata_jv_is(const chaindata_jv_t *v, const char *s)
{
    size_t  len;

    len = strlen(s);

    return v && v->type == CHAINDATA_JV_STRING && v->len == len
           && memcmp(v->str, s, len) == 0;
}


int
chaindata_jv_is_integer(const chaindata_jv_t *v)
{
    size_t  i;

    if (v == NULL || v->type != CHAINDATA_JV_NUMBER) {
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
chaindata_jv_to_u64(const chaindata_jv_t *v,
    uint64_t *out)
{
    size_t    i;
    uint64_t  n, d;

    if (!chaindata_jv_is_integer(v) || v->str[0] == '-') {
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


int
chaindata_jv_u64(const chaindata_jv_t *obj, const char *name, uint64_t *v)
{
    const chaindata_jv_t  *m;

    m = chaindata_jv_get(obj, name);

    return m ? chaindata_jv_to_u64(m, v) : -1;
}
