
/*
 * chaindata: a JSON document tree for the loader, parsed with yajl's
 * streaming parser into an arena and written back compactly.
 *
 * Lossless where the index needs it: member order is kept as parsed (a
 * member given twice refuses the document), numbers keep their text
 * (yajl's number callback), strings are decoded to UTF-8 (lone surrogates
 * kept: chaindata_jstr.h) and re-escaped as JSON.stringify does.  Looking
 * a member up takes O(log n) in an object of n members, so a wide document
 * loads in O(n log n).  Three rooms: the arena (chaindata_jdoc_arena.c),
 * the parser and the lookups (chaindata_jdoc.c), the writer
 * (chaindata_jdoc_write.c).
 */


#ifndef _CHAINDATA_JDOC_H_INCLUDED_
#define _CHAINDATA_JDOC_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


#define CHAINDATA_MAX_DEPTH  64

/* an object of more members than this has its members indexed by name */
#define CHAINDATA_JV_INDEX_MIN  16


typedef enum {
    CHAINDATA_JV_NULL = 0,
    CHAINDATA_JV_FALSE,
    CHAINDATA_JV_TRUE,
    CHAINDATA_JV_NUMBER,
    CHAINDATA_JV_STRING,
    CHAINDATA_JV_OBJECT,
    CHAINDATA_JV_ARRAY
} chaindata_jv_type_e;


typedef struct chaindata_jv_s  chaindata_jv_t;

struct chaindata_jv_s {
    chaindata_jv_t       *next;      /* next sibling */
    chaindata_jv_t       *child;     /* first member or element */
    chaindata_jv_t       *last;      /* last member or element */
    const unsigned char  *key;       /* member name, in an object */
    size_t                key_len;
    const unsigned char  *str;       /* string bytes, number text */
    size_t                len;
    size_t                n;         /* members or elements */
    chaindata_jv_t      **index;     /* members by name, a large object */
    chaindata_jv_type_e   type;
};


typedef struct chaindata_arena_s  chaindata_arena_t;


/* the arena: chaindata_jdoc_arena.c */
chaindata_arena_t *chaindata_arena_create(void);
void *chaindata_arena_alloc(chaindata_arena_t *a,
    size_t size);
void chaindata_arena_reset(chaindata_arena_t *a);
void chaindata_arena_destroy(chaindata_arena_t *a);

/*
 * The parser and the lookups: chaindata_jdoc.c.  The root, or NULL with
 * a reason in err.
 */
chaindata_jv_t *chaindata_jdoc_parse(
    chaindata_arena_t *a, const unsigned char *text, size_t len,
    char *err, size_t err_len);

chaindata_jv_t *chaindata_jv_get(
    const chaindata_jv_t  *obj, const char *name);
int chaindata_jv_is(const chaindata_jv_t *v,
    const char *s);
int chaindata_jv_is_integer(const chaindata_jv_t *v);
int chaindata_jv_to_u64(const chaindata_jv_t *v,
    uint64_t *out);
/* a member of obj that is an integer from 0 to 2^64-1: 0, or -1 */
int chaindata_jv_u64(const chaindata_jv_t *obj, const char *name,
    uint64_t *v);

/* the writer, compact JSON: the size, then the bytes (returns the end) */
size_t chaindata_jv_size(const chaindata_jv_t *v);
unsigned char *chaindata_jv_write(unsigned char *p,
    const chaindata_jv_t  *v);
size_t chaindata_jv_member_size(const chaindata_jv_t *m);
unsigned char *chaindata_jv_write_key(unsigned char *p,
    const chaindata_jv_t  *m);


#endif /* _CHAINDATA_JDOC_H_INCLUDED_ */
