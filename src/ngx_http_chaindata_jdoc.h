
/*
 * chaindata: a JSON document tree for the loader, parsed with yajl's
 * streaming parser into an arena and written back compactly.
 *
 * Lossless where the index needs it: member order and duplicate members
 * are kept as parsed, numbers keep their text (yajl's number callback),
 * strings are decoded to UTF-8 and re-escaped as JSON.stringify does.
 */


#ifndef _NGX_HTTP_CHAINDATA_JDOC_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_JDOC_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


#define NGX_HTTP_CHAINDATA_MAX_DEPTH  64


typedef enum {
    NGX_HTTP_CHAINDATA_JV_NULL = 0,
    NGX_HTTP_CHAINDATA_JV_FALSE,
    NGX_HTTP_CHAINDATA_JV_TRUE,
    NGX_HTTP_CHAINDATA_JV_NUMBER,
    NGX_HTTP_CHAINDATA_JV_STRING,
    NGX_HTTP_CHAINDATA_JV_OBJECT,
    NGX_HTTP_CHAINDATA_JV_ARRAY
} ngx_http_chaindata_jv_type_e;


typedef struct ngx_http_chaindata_jv_s  ngx_http_chaindata_jv_t;

struct ngx_http_chaindata_jv_s {
    ngx_http_chaindata_jv_t       *next;      /* next sibling */
    ngx_http_chaindata_jv_t       *child;     /* first member or element */
    ngx_http_chaindata_jv_t       *last;      /* last member or element */
    const unsigned char           *key;       /* member name, in an object */
    size_t                         key_len;
    const unsigned char           *str;       /* string bytes, number text */
    size_t                         len;
    size_t                         n;         /* members or elements */
    ngx_http_chaindata_jv_type_e   type;
};


typedef struct ngx_http_chaindata_arena_s  ngx_http_chaindata_arena_t;


ngx_http_chaindata_arena_t *ngx_http_chaindata_arena_create(void);
void *ngx_http_chaindata_arena_alloc(ngx_http_chaindata_arena_t *a,
    size_t size);
void ngx_http_chaindata_arena_reset(ngx_http_chaindata_arena_t *a);
void ngx_http_chaindata_arena_destroy(ngx_http_chaindata_arena_t *a);

/* returns the root, or NULL with a reason in err */
ngx_http_chaindata_jv_t *ngx_http_chaindata_jdoc_parse(
    ngx_http_chaindata_arena_t *a, const unsigned char *text, size_t len,
    char *err, size_t err_len);

ngx_http_chaindata_jv_t *ngx_http_chaindata_jv_get(
    const ngx_http_chaindata_jv_t *obj, const char *name);
int ngx_http_chaindata_jv_is(const ngx_http_chaindata_jv_t *v,
    const char *s);
int ngx_http_chaindata_jv_is_integer(const ngx_http_chaindata_jv_t *v);
int ngx_http_chaindata_jv_to_u64(const ngx_http_chaindata_jv_t *v,
    uint64_t *out);
const ngx_http_chaindata_jv_t *ngx_http_chaindata_jv_duplicate(
    const ngx_http_chaindata_jv_t *obj);

/* compact JSON: the size, then the bytes (returns the end) */
size_t ngx_http_chaindata_jv_size(const ngx_http_chaindata_jv_t *v);
unsigned char *ngx_http_chaindata_jv_write(unsigned char *p,
    const ngx_http_chaindata_jv_t *v);
size_t ngx_http_chaindata_jv_member_size(const ngx_http_chaindata_jv_t *m);
unsigned char *ngx_http_chaindata_jv_write_key(unsigned char *p,
    const ngx_http_chaindata_jv_t *m);


#endif /* _NGX_HTTP_CHAINDATA_JDOC_H_INCLUDED_ */
