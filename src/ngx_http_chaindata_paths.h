
/*
 * chaindata: request targets taken apart without nginx: percent-decoding
 * as nginx does it, path segments, query arguments and their checks, and
 * the parameters of the transaction and rune routes.  The handlers call
 * these, and so do the fuzz targets (t/fuzz/fuzz_tx.c, fuzz_runes.c).
 *
 * No nginx headers here: the unit tests and the fuzz targets link this
 * file on its own.
 */


#ifndef _NGX_HTTP_CHAINDATA_PATHS_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_PATHS_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "ngx_http_chaindata_codec.h"


/* a part of a request target, or a decoded copy of one */
typedef struct {
    size_t                len;
    const unsigned char  *data;
} ngx_http_chaindata_span_t;


/* what a query argument check found wrong */
typedef enum {
    NGX_HTTP_CHAINDATA_ARG_OK = 0,
    NGX_HTTP_CHAINDATA_ARG_NOT_INTEGER,    /* "must be integer" */
    NGX_HTTP_CHAINDATA_ARG_TOO_SMALL,      /* "must be >= bound" */
    NGX_HTTP_CHAINDATA_ARG_TOO_LARGE,      /* "must be <= bound" */
    NGX_HTTP_CHAINDATA_ARG_NOT_BOOLEAN     /* "must be boolean" */
} ngx_http_chaindata_arg_e;


/*
 * The query string of a request and the room its values are decoded into:
 * buf holds len bytes, enough for the first value of every name, since
 * those are disjoint parts of the query.  Look each name up once.  The
 * first failed check is kept in name, rc and bound.
 */
typedef struct {
    const unsigned char       *args;
    size_t                     len;
    unsigned char             *buf;
    size_t                     used;
    const char                *name;
    ngx_http_chaindata_arg_e   rc;
    uint64_t                   bound;
} ngx_http_chaindata_query_t;


/* what a route makes of its request target */
typedef enum {
    NGX_HTTP_CHAINDATA_TARGET_OK = 0,
    NGX_HTTP_CHAINDATA_TARGET_NO_ROUTE,    /* 404: another path shape */
    NGX_HTTP_CHAINDATA_TARGET_BAD_PARAM,   /* 400: the path parameter */
    NGX_HTTP_CHAINDATA_TARGET_ADD_PREFIX,  /* 302: a tx id without "0x" */
    NGX_HTTP_CHAINDATA_TARGET_BAD_QUERY,   /* 400: see the query's rc */
    NGX_HTTP_CHAINDATA_TARGET_ERROR        /* no room (a misuse) */
} ngx_http_chaindata_target_e;


/* GET {prefix}/{tx_id}?event_limit=&event_offset=&exclude_function_args= */
typedef struct {
    ngx_http_chaindata_span_t  id;         /* the last path segment */
    unsigned char              txid[NGX_HTTP_CHAINDATA_TXID_LEN];
    uint64_t                   offset;
    uint64_t                   limit;
    unsigned                   exclude_fargs;
} ngx_http_chaindata_tx_params_t;


#define NGX_HTTP_CHAINDATA_EVENT_LIMIT      20
#define NGX_HTTP_CHAINDATA_EVENT_LIMIT_MAX  100

#define NGX_HTTP_CHAINDATA_PAGE_LIMIT       20
#define NGX_HTTP_CHAINDATA_PAGE_LIMIT_MAX   60


/* the list key of a path parameter; 0 when it is not one */
typedef size_t (*ngx_http_chaindata_list_key_pt)(unsigned char *key,
    const unsigned char *s, size_t len);


/* GET {prefix}/{param}/{segment}?offset=&limit= (the rune routes) */
typedef struct {
    unsigned char              key[NGX_HTTP_CHAINDATA_LIST_KEY_MAX];
    size_t                     key_len;
    uint64_t                   offset;       /* saturated at 2^64 - 1 */
    ngx_http_chaindata_span_t  offset_text;  /* as given, normalised */
    uint64_t                   limit;
} ngx_http_chaindata_page_params_t;


/*
 * Percent-decoding exactly as nginx's ngx_unescape_uri(&dst, &src, len, 0)
 * does it: "%" and two hex digits is the byte; a "%" before a non-hex
 * character is dropped, the character kept; "%" and one hex digit before
 * a non-hex character are dropped with that character; a "%" (and a
 * digit) at the end is dropped.  Returns the decoded length, at most len.
 */
size_t ngx_http_chaindata_unescape(unsigned char *dst,
    const unsigned char *src, size_t len);

/* the last segment of a path: what follows its last "/", or all of it */
void ngx_http_chaindata_segment_last(const unsigned char *path, size_t len,
    ngx_http_chaindata_span_t *seg);

/*
 * The segment before the last one when the last one is "last"
 * ("…/{param}/last"); -1 for any other shape.
 */
int ngx_http_chaindata_segment_before(const unsigned char *path, size_t len,
    const char *last, ngx_http_chaindata_span_t *param);

void ngx_http_chaindata_query_init(ngx_http_chaindata_query_t *q,
    const unsigned char *args, size_t len, unsigned char *buf);

/*
 * How often name is given (0, 1, or 2 for "more than once"), its first
 * value decoded into the query's buffer; -1 when that has no room left.
 */
int ngx_http_chaindata_query_value(ngx_http_chaindata_query_t *q,
    const char *name, ngx_http_chaindata_span_t *value);

/*
 * A decimal integer from min to max, dflt when absent: 0; 1 when it is not
 * (the query's name, rc and bound tell why); -1 on no room.  A value given
 * twice is not an integer (upstream sees an array); "-0" is zero; values
 * past max, 2^64 and beyond included, are "too large" without overflow,
 * or saturate at 2^64 - 1 when max is UINT64_MAX.
 */
int ngx_http_chaindata_query_uint(ngx_http_chaindata_query_t *q,
    const char *name, uint64_t min, uint64_t max, uint64_t dflt,
    uint64_t *out);

/* "true" or "false", false when absent; as query_uint */
int ngx_http_chaindata_query_bool(ngx_http_chaindata_query_t *q,
    const char *name, unsigned *out);

/* the transaction route: the id is the path's last segment */
ngx_http_chaindata_target_e ngx_http_chaindata_tx_target(
    const unsigned char *path, size_t len, ngx_http_chaindata_query_t *q,
    ngx_http_chaindata_tx_params_t *p);

/* 64 hex digits in any case, no "0x": the binary id is the list key */
size_t ngx_http_chaindata_txid_list_key(unsigned char *key,
    const unsigned char *s, size_t len);

/* the rune routes: "…/{param}/{last}", offset then limit */
ngx_http_chaindata_target_e ngx_http_chaindata_page_target(
    const unsigned char *path, size_t len, const char *last,
    ngx_http_chaindata_list_key_pt key, ngx_http_chaindata_query_t *q,
    ngx_http_chaindata_page_params_t *p);


#endif /* _NGX_HTTP_CHAINDATA_PATHS_H_INCLUDED_ */
