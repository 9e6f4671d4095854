
/*
 * chaindata: ingest records (one NDJSON line each) turned into the writes
 * that store them.  Parsing, validation and value layout live here, free
 * of nginx and of LMDB, so the loader, unit tests and fuzzers share them.
 */


#ifndef _NGX_HTTP_CHAINDATA_RECORD_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_RECORD_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "ngx_http_chaindata_codec.h"


#define NGX_HTTP_CHAINDATA_ERR_LEN         512


typedef enum {
    NGX_HTTP_CHAINDATA_WRITE_PUT = 0,
    NGX_HTTP_CHAINDATA_WRITE_DEL,
    NGX_HTTP_CHAINDATA_WRITE_DEL_PREFIX
} ngx_http_chaindata_write_e;


typedef struct {
    ngx_http_chaindata_write_e   action;
    ngx_http_chaindata_dbi_e     db;
    size_t                       key_off;
    size_t                       key_len;
    size_t                       val_off;
    size_t                       val_len;
} ngx_http_chaindata_write_t;


/* the writes of a batch of records, applied in order in one transaction */
typedef struct {
    ngx_http_chaindata_write_t  *writes;
    size_t                       nwrites;
    size_t                       writes_cap;
    unsigned char               *buf;
    size_t                       len;
    size_t                       cap;
} ngx_http_chaindata_writeset_t;


typedef enum {
    NGX_HTTP_CHAINDATA_REC_TX_PUT = 0,
    NGX_HTTP_CHAINDATA_REC_TX_DELETE,
    NGX_HTTP_CHAINDATA_REC_CHAINHOOK_PUT,
    NGX_HTTP_CHAINDATA_REC_CHAINHOOK_DELETE,
    NGX_HTTP_CHAINDATA_REC_RUNE_ACTIVITY_PUT,
    NGX_HTTP_CHAINDATA_REC_RUNE_ACTIVITY_DELETE,
    NGX_HTTP_CHAINDATA_REC_RUNE_BALANCES_PUT,
    NGX_HTTP_CHAINDATA_REC_RUNE_BALANCES_DELETE,
    NGX_HTTP_CHAINDATA_REC_KINDS
} ngx_http_chaindata_rec_e;


typedef struct ngx_http_chaindata_arena_s  ngx_http_chaindata_arena_t;


typedef struct {
    ngx_http_chaindata_arena_t  *arena;
    ngx_http_chaindata_rec_e     kind;
    char                         err[NGX_HTTP_CHAINDATA_ERR_LEN];
} ngx_http_chaindata_record_t;


int ngx_http_chaindata_record_init(ngx_http_chaindata_record_t *rec);
void ngx_http_chaindata_record_free(ngx_http_chaindata_record_t *rec);

/*
 * Validates one record and appends its writes to ws.  Returns 0, or -1
 * with rec->err set and ws exactly as it was before the call.
 */
int ngx_http_chaindata_record_parse(ngx_http_chaindata_record_t *rec,
    const unsigned char *line, size_t len, ngx_http_chaindata_writeset_t *ws);

/* for the record kinds */

struct ngx_http_chaindata_jv_s;

int ngx_http_chaindata_record_fail(ngx_http_chaindata_record_t *rec,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;
int ngx_http_chaindata_record_members(ngx_http_chaindata_record_t *rec,
    const struct ngx_http_chaindata_jv_s *envelope, const char *kind,
    const char **allowed);
/* a kind whose records carry either "data" (upsert) or "delete" */
typedef struct {
    const char   *kind;
    const char  **put_members;
    const char  **delete_members;
    int         (*put)(ngx_http_chaindata_record_t *rec,
                       const struct ngx_http_chaindata_jv_s *envelope,
                       const struct ngx_http_chaindata_jv_s *data,
                       ngx_http_chaindata_writeset_t *ws);
    int         (*remove)(ngx_http_chaindata_record_t *rec,
                          const struct ngx_http_chaindata_jv_s *id,
                          ngx_http_chaindata_writeset_t *ws);
} ngx_http_chaindata_upsert_t;

int ngx_http_chaindata_record_upsert(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_upsert_t *u,
    const struct ngx_http_chaindata_jv_s *envelope,
    ngx_http_chaindata_writeset_t *ws);
unsigned char *ngx_http_chaindata_writeset_add(
    ngx_http_chaindata_writeset_t *ws, ngx_http_chaindata_write_e action,
    ngx_http_chaindata_dbi_e db, const unsigned char *key, size_t key_len,
    size_t val_len);

int ngx_http_chaindata_record_tx(ngx_http_chaindata_record_t *rec,
    const struct ngx_http_chaindata_jv_s *envelope,
    ngx_http_chaindata_writeset_t *ws);

int ngx_http_chaindata_record_chainhook(ngx_http_chaindata_record_t *rec,
    const struct ngx_http_chaindata_jv_s *envelope,
    ngx_http_chaindata_writeset_t *ws);

int ngx_http_chaindata_record_rune_activity(ngx_http_chaindata_record_t *rec,
    const struct ngx_http_chaindata_jv_s *envelope,
    ngx_http_chaindata_writeset_t *ws);
int ngx_http_chaindata_record_rune_balances(ngx_http_chaindata_record_t *rec,
    const struct ngx_http_chaindata_jv_s *envelope,
    ngx_http_chaindata_writeset_t *ws);

void ngx_http_chaindata_writeset_reset(ngx_http_chaindata_writeset_t *ws);
void ngx_http_chaindata_writeset_free(ngx_http_chaindata_writeset_t *ws);


#endif /* _NGX_HTTP_CHAINDATA_RECORD_H_INCLUDED_ */
