
/*
 * chaindata: a yajl generator bound to a pool: its memory and its output
 * come from the pool, and any failure (of yajl or of an allocation) is
 * remembered in "failed" until ngx_http_chaindata_json_done() reports it.
 */


#ifndef _NGX_HTTP_CHAINDATA_JSON_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_JSON_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>

#include <yajl/yajl_gen.h>


/* a yajl generator whose memory and output come from a pool */
typedef struct {
    yajl_gen      gen;
    ngx_pool_t   *pool;
    u_char       *buf;
    size_t        len;
    size_t        cap;
    ngx_uint_t    failed;
} ngx_http_chaindata_json_t;


ngx_int_t ngx_http_chaindata_json_init(ngx_http_chaindata_json_t *j,
    ngx_pool_t *pool);

/* a map, whose members are a key, then its value */
void ngx_http_chaindata_json_map_open(ngx_http_chaindata_json_t *j);
void ngx_http_chaindata_json_map_close(ngx_http_chaindata_json_t *j);
void ngx_http_chaindata_json_key(ngx_http_chaindata_json_t *j,
    const char *key);

/* an array, whose members are values */
void ngx_http_chaindata_json_array_open(ngx_http_chaindata_json_t *j);
void ngx_http_chaindata_json_array_close(ngx_http_chaindata_json_t *j);

/* the values */
void ngx_http_chaindata_json_str(ngx_http_chaindata_json_t *j,
    const u_char *s, size_t len);
void ngx_http_chaindata_json_int(ngx_http_chaindata_json_t *j, int64_t n);
void ngx_http_chaindata_json_bool(ngx_http_chaindata_json_t *j,
    ngx_uint_t b);
void ngx_http_chaindata_json_null(ngx_http_chaindata_json_t *j);

/* the text made, in out; NGX_ERROR when anything failed */
ngx_int_t ngx_http_chaindata_json_done(ngx_http_chaindata_json_t *j,
    ngx_str_t *out);


#endif /* _NGX_HTTP_CHAINDATA_JSON_H_INCLUDED_ */
