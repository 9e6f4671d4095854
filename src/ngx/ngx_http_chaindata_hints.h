
/*
 * chaindata_threads' guess, per worker, of whether a route's read would
 * fault (ngx_http_chaindata_hints.c): where the records of the keys
 * lately answered were in the map, and whether those pages are still in
 * memory.
 */


#ifndef _NGX_HTTP_CHAINDATA_HINTS_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_HINTS_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>

#include <lmdb.h>

#include "ngx_http_chaindata_read.h"


/* the pages of a record mincore() looks at, and a thread touches */
#define NGX_HTTP_CHAINDATA_HINT_PAGES  64

/* LMDB's largest key: a longer one is never guessed, never pooled */
#define NGX_HTTP_CHAINDATA_KEY_MAX     511


/* a request's key, hashed once, from the pool to the note: hashed = 0 */
typedef struct {
    uint32_t                      hash;
    unsigned                      hashed:1;
} ngx_http_chaindata_hint_key_t;


/* the table, in each worker with chaindata_threads; NGX_OK or NGX_ERROR */
ngx_int_t ngx_http_chaindata_hints_init(ngx_cycle_t *cycle);
void ngx_http_chaindata_hints_exit(void);

/*
 * NGX_OK with the read's key hashed, and the first chunk of its list the
 * page takes (pages of one list are guessed apart); NGX_DECLINED: no
 * table, no guess
 */
ngx_int_t ngx_http_chaindata_hints_key(const ngx_http_chaindata_read_t *read,
    ngx_http_chaindata_hint_key_t *key);

/* whether the key's record is likely in memory in this opening: 1, or 0 */
ngx_uint_t ngx_http_chaindata_hints_resident(
    ngx_http_chaindata_hint_key_t *key, ngx_uint_t generation);

/*
 * after an answer: where its record is, record[0] (mv_data NULL: absent)
 * and the rest of a value kept in parts, record[1] (NULL: none), and the
 * first chunk of its list the page read, record[2] (NULL: none)
 */
void ngx_http_chaindata_hints_note(ngx_http_chaindata_hint_key_t *key,
    const MDB_val *record, ngx_uint_t generation);


#endif /* _NGX_HTTP_CHAINDATA_HINTS_H_INCLUDED_ */
