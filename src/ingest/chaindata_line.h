
/*
 * chaindata: the writer of lines, for every program that writes ingest
 * records (lmdb-schema/README.md) or framing records (chaindata_feed.h).
 */


#ifndef _CHAINDATA_LINE_H_INCLUDED_
#define _CHAINDATA_LINE_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


struct chaindata_jv_s;

/*
 * Writing a record (or a framing record, chaindata_feed.h): open() its
 * envelope, {"kind":K, then its members, each ,"name":value: a string
 * that needs no escaping, an integer, a JSON value, a list of JSON
 * values; close() ends it with }: 0, or -1 when memory ran out on the
 * way.  free() wipes it (a chainhook record holds an API key), as does
 * growing; hint: the bytes the members will take, about.
 */
typedef struct {
    unsigned char  *buf;
    size_t          len;
    size_t          cap;
    unsigned        failed:1;
} chaindata_line_t;

void chaindata_line_open(chaindata_line_t *l, const char *kind,
    size_t hint);
void chaindata_line_str(chaindata_line_t *l, const char *name,
    const void *s, size_t len);
void chaindata_line_u64(chaindata_line_t *l, const char *name,
    uint64_t v);
void chaindata_line_json(chaindata_line_t *l, const char *name,
    const struct chaindata_jv_s *v);
void chaindata_line_list(chaindata_line_t *l, const char *name,
    const struct chaindata_jv_s *const *v, size_t n);
int chaindata_line_close(chaindata_line_t *l);
void chaindata_line_free(chaindata_line_t *l);


#endif /* _CHAINDATA_LINE_H_INCLUDED_ */
