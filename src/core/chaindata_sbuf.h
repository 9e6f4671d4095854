
/*
 * chaindata: a text growing in a malloc()ed buffer, for the status and
 * metrics answers.  A failed allocation is remembered: later appends do
 * nothing, and the writer checks "failed" once at the end.
 */


#ifndef _CHAINDATA_SBUF_H_INCLUDED_
#define _CHAINDATA_SBUF_H_INCLUDED_


#include <stddef.h>


typedef struct {
    char    *p;
    size_t   len;
    size_t   cap;
    int      failed;
} chaindata_sbuf_t;


/* 0, or -1 when the first allocation fails */
int chaindata_sbuf_init(chaindata_sbuf_t *b, size_t cap);

void chaindata_sbuf_printf(chaindata_sbuf_t *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;


#endif /* _CHAINDATA_SBUF_H_INCLUDED_ */
