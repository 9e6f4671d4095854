
/*
 * chaindata: the writer of lines (chaindata_line.h), every program's way
 * to write an ingest record or a framing record.
 */


#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_jdoc.h"
#include "chaindata_line.h"


/*
 * The writer of lines: its buffer grows by a copy, the old one wiped (a
 * chainhook record holds an API key).
 */

static unsigned char *
chaindata_line_room(chaindata_line_t *l, size_t n)
{
    size_t          cap;
    unsigned char  *buf;

    if (l->failed) {
        return NULL;
    }

    if (l->cap - l->len >= n) {
        return l->buf + l->len;
    }

    for (cap = l->cap ? l->cap : 256; cap - l->len < n; cap *= 2) {
        if (cap > SIZE_MAX / 4) {
            l->failed = 1;
            return NULL;
        }
    }

    buf = malloc(cap);
    if (buf == NULL) {
        l->failed = 1;
        return NULL;
    }

    if (l->buf) {
        memcpy(buf, l->buf, l->len);
        memset(l->buf, 0, l->cap);
        free(l->buf);
    }

    l->buf = buf;
    l->cap = cap;

    return buf + l->len;
}


static void
chaindata_line_put(chaindata_line_t *l, const void *s, size_t n)
{
    unsigned char  *p;

    p = chaindata_line_room(l, n);

    if (p) {
        memcpy(p, s, n);
        l->len += n;
    }
}


/* ,"name": */

static void
chaindata_line_name(chaindata_line_t *l, const char *name)
{
    chaindata_line_put(l, ",\"", 2);
    chaindata_line_put(l, name, strlen(name));
    chaindata_line_put(l, "\":", 2);
}


void
chaindata_line_open(chaindata_line_t *l, const char *kind, size_t hint)
{
    memset(l, 0, sizeof(*l));

    (void) chaindata_line_room(l, hint + 64);
    chaindata_line_put(l, "{\"kind\":\"", 9);
    chaindata_line_put(l, kind, strlen(kind));
    chaindata_line_put(l, "\"", 1);
}


void
chaindata_line_str(chaindata_line_t *l, const char *name,
    const void *s, size_t len)
{
    chaindata_line_name(l, name);
    chaindata_line_put(l, "\"", 1);
    chaindata_line_put(l, s, len);
    chaindata_line_put(l, "\"", 1);
}


void
chaindata_line_u64(chaindata_line_t *l, const char *name, uint64_t v)
{
    char  num[24];

    chaindata_line_name(l, name);
    chaindata_line_put(l, num, snprintf(num, sizeof(num), "%llu",
                                        (unsigned long long) v));
}


void
chaindata_line_json(chaindata_line_t *l, const char *name,
    const chaindata_jv_t *v)
{
    unsigned char  *p;

    chaindata_line_name(l, name);

    p = chaindata_line_room(l, chaindata_jv_size(v));

    if (p) {
        l->len = chaindata_jv_write(p, v) - l->buf;
    }
}


void
chaindata_line_list(chaindata_line_t *l, const char *name,
    const chaindata_jv_t *const *v, size_t n)
{
    size_t          i;
    unsigned char  *p;

    chaindata_line_name(l, name);
    chaindata_line_put(l, "[", 1);

    for (i = 0; i < n; i++) {
        p = chaindata_line_room(l, chaindata_jv_size(v[i]) + 1);

        if (p) {
            *p = ',';
            l->len = chaindata_jv_write(p + (i > 0), v[i]) - l->buf;
        }
    }

    chaindata_line_put(l, "]", 1);
}


int
chaindata_line_close(chaindata_line_t *l)
{
    chaindata_line_put(l, "}", 1);

    return l->failed ? -1 : 0;
}


void
chaindata_line_free(chaindata_line_t *l)
{
    if (l->buf) {
        memset(l->buf, 0, l->cap);
        free(l->buf);
    }

    l->buf = NULL;
    l->len = 0;
    l->cap = 0;
}
