
/*
 * chaindata: a text growing in a malloc()ed buffer (see the header).
 */


#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "chaindata_sbuf.h"


int
chaindata_sbuf_init(chaindata_sbuf_t *b, size_t cap)
{
    b->cap = cap;
    b->len = 0;
    b->failed = 0;
    b->p = malloc(b->cap);

    return b->p ? 0 : -1;
}


void
chaindata_sbuf_printf(chaindata_sbuf_t *b, const char *fmt, ...)
{
    int       n;
    char     *p;
    size_t    cap;
    va_list   args;

    if (b->failed) {
        return;
    }

    for ( ;; ) {
        va_start(args, fmt);
        n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, args);
        va_end(args);

        if (n < 0) {
            b->failed = 1;
            return;
        }

        if ((size_t) n < b->cap - b->len) {
            b->len += n;
            return;
        }

        cap = b->cap * 2 + n;
        p = realloc(b->p, cap);

        if (p == NULL) {
            b->failed = 1;
            return;
        }

        b->p = p;
        b->cap = cap;
    }
}
