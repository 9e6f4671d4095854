
/*
 * chaindata: request targets taken apart without nginx: percent-decoding
 * as nginx does it, path segments, query arguments and their checks, and
 * the parameters of the transaction and rune routes.  The handlers call
 * these, and so do the fuzz targets (t/fuzz/fuzz_tx.c, fuzz_runes.c).
 *
 * No nginx headers here: the unit tests and the fuzz targets link this
 * file on its own.
 */


#ifndef _CHAINDATA_PATHS_H_INCLUDED_
#define _CHAINDATA_PATHS_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_jsnum.h"
#include "chaindata_layout.h"


/* a part of a request target, or a decoded copy of one */
typedef struct {
    size_t                len;
    const unsigned char  *data;
} chaindata_span_t;


/* what a query argument check found wrong */
typedef enum {
    CHAINDATA_ARG_OK = 0,
    CHAINDATA_ARG_NOT_INTEGER,    /* "must be integer" */
    CHAINDATA_ARG_TOO_SMALL,      /* "must be >= bound" */
    CHAINDATA_ARG_TOO_LARGE,      /* "must be <= bound" */
    CHAINDATA_ARG_NOT_BOOLEAN     /* "must be boolean" */
} chaindata_arg_e;


/*
 * The query string of a request and the room its values are decoded into:
 * buf holds len bytes, enough for the first value of every name and a NUL
 * after each, since each takes its name and more of the query.  Look each
 * name up once.  The first failed check is kept in name, rc and bound.
 */
typedef struct {
    const unsigned char  *args;
    size_t                len;
    unsigned char        *buf;
    size_t                used;
    const char           *name;
    chaindata_arg_e       rc;
    uint64_t              bound;
} chaindata_query_t;


/* what a route makes of its request target */
typedef enum {
    CHAINDATA_TARGET_OK = 0,
    CHAINDATA_TARGET_NO_ROUTE,    /* 404: another path shape */
    CHAINDATA_TARGET_BAD_PARAM,   /* 400: the path parameter */
    CHAINDATA_TARGET_ADD_PREFIX,  /* 302: a tx id without "0x" */
    CHAINDATA_TARGET_BAD_QUERY,   /* 400: see the query's rc */
    CHAINDATA_TARGET_ERROR        /* no room (a misuse) */
} chaindata_target_e;


/* GET {prefix}/{tx_id}?event_limit=&event_offset=&exclude_function_args= */
typedef struct {
    chaindata_span_t  id;         /* the last path segment */
    unsigned char     txid[CHAINDATA_TXID_LEN];
    uint64_t          offset;
    uint64_t          limit;
    unsigned          exclude_fargs;
} chaindata_tx_params_t;


#define CHAINDATA_EVENT_LIMIT      20
#define CHAINDATA_EVENT_LIMIT_MAX  100

#define CHAINDATA_PAGE_LIMIT       20
#define CHAINDATA_PAGE_LIMIT_MAX   60


/* the list key of a path parameter; 0 when it is not one */
typedef size_t (*chaindata_list_key_pt)(unsigned char *key,
    const unsigned char *s, size_t len);


/* GET {prefix}/{param}/{segment}?offset=&limit= (the rune routes) */
typedef struct {
    unsigned char     key[CHAINDATA_LIST_KEY_MAX];
    size_t            key_len;
    uint64_t          offset;       /* saturated at 2^64 - 1 */
    chaindata_span_t  offset_text;  /* as upstream echoes it */
    uint64_t          limit;
    unsigned char     offset_buf[CHAINDATA_JS_TEXT_LEN];
} chaindata_page_params_t;


/*
 * Percent-decoding exactly as nginx's ngx_unescape_uri(&dst, &src, len, 0)
 * does it: "%" and two hex digits is the byte; a "%" before a non-hex
 * character is dropped, the character kept; "%" and one hex digit before
 * a non-hex character are dropped with that character; a "%" (and a
 * digit) at the end is dropped.  Returns the decoded length, at most len.
 */
size_t chaindata_unescape(unsigned char *dst,
    const unsigned char *src, size_t len);

/* the last segment of a path: what follows its last "/", or all of it */
void chaindata_segment_last(const unsigned char *path, size_t len,
    chaindata_span_t  *seg);

/*
 * The segment before the last one when the last one is "last"
 * ("…/{param}/last"); -1 for any other shape.
 */
int chaindata_segment_before(const unsigned char *path, size_t len,
    const char *last, chaindata_span_t *param);

void chaindata_query_init(chaindata_query_t *q,
    const unsigned char *args, size_t len, unsigned char *buf);

/*
 * How often name is given (0, 1, or 2 for "more than once"), names
 * compared percent-decoded; its first value decoded into the query's
 * buffer, a NUL after it; -1 when that has no room left.
 */
int chaindata_query_value(chaindata_query_t *q,
    const char *name, chaindata_span_t *value);

/*
 * An integer from min to max, dflt when absent: 0; 1 when it is not (the
 * query's name, rc and bound tell why); -1 on no room.  The value is
 * coerced as upstream does it, with JavaScript's Number() (see
 * chaindata_jsnum.h: "+2", "0x10", "1.0", "1e1", " 5" are integers, "1.5"
 * and "Infinity" are not), then checked.  A value given twice is not an
 * integer (upstream sees an array); "-0" is zero; values past max are "too
 * large", or saturate at 2^64 - 1 when max is UINT64_MAX.
 */
int chaindata_query_uint(chaindata_query_t *q,
    const char *name, uint64_t min, uint64_t max, uint64_t dflt,
    uint64_t *out);

/* "true" or "false", false when absent; as query_uint */
int chaindata_query_bool(chaindata_query_t *q,
    const char *name, unsigned *out);

/*
 * The transaction route: the id is the path's last segment, one trailing
 * slash ignored as upstream ignores it.
 */
chaindata_target_e chaindata_tx_target(
    const unsigned char *path, size_t len, chaindata_query_t *q,
    chaindata_tx_params_t  *p);

/* 64 hex digits in any case, no "0x": the binary id is the list key */
size_t chaindata_txid_list_key(unsigned char *key,
    const unsigned char *s, size_t len);

/* the rune routes: "…/{param}/{last}", offset then limit */
chaindata_target_e chaindata_page_target(
    const unsigned char *path, size_t len, const char *last,
    chaindata_list_key_pt key, chaindata_query_t *q,
    chaindata_page_params_t  *p);

/* a page's query alone: offset then limit (p's key is left as it is) */
chaindata_target_e chaindata_page_query(chaindata_query_t *q,
    chaindata_page_params_t  *p);


#endif /* _CHAINDATA_PATHS_H_INCLUDED_ */
