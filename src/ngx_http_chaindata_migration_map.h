
/*
 * chaindata: the mapping of the deprecated Bitcoin-layer endpoints to
 * their replacements (specification 9.2 and 9.3) and what a request
 * target makes of it, without nginx: the path below the location matched
 * against the table, the path parameters checked and put into the
 * replacement's path, the query parameter names sorted, the query string
 * made safe for a Location.  ngx_http_chaindata_migration.c answers with
 * it; t/fuzz/fuzz_migration.c fuzzes it.
 *
 * No nginx headers here.
 */


#ifndef _NGX_HTTP_CHAINDATA_MIGRATION_MAP_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_MIGRATION_MAP_H_INCLUDED_


#include <stddef.h>

#include "ngx_http_chaindata_paths.h"


/* the longest path of the tables has four segments */
#define NGX_HTTP_CHAINDATA_MIG_SEGMENTS     4

/* a path parameter longer than this is refused (ids are under 100) */
#define NGX_HTTP_CHAINDATA_MIG_PARAM_MAX    256

/* query parameter names listed in one answer, at most */
#define NGX_HTTP_CHAINDATA_MIG_QUERY_MAX    64

/* the base URL a replacement is served from */
#define NGX_HTTP_CHAINDATA_MIG_BASE         0
#define NGX_HTTP_CHAINDATA_MIG_BASE_BRC20   1

/* differences that the other columns of a row do not already say */
#define NGX_HTTP_CHAINDATA_MIG_RAW_CONTENT  0x01
#define NGX_HTTP_CHAINDATA_MIG_PRICE_DATA   0x02
#define NGX_HTTP_CHAINDATA_MIG_FULL_LIST    0x04

/* a NULL-terminated list of names */
#define ngx_http_chaindata_mig_list(...)                                     \
    ((const char *const []) { __VA_ARGS__, NULL })


typedef struct {
    const char          *section;      /* of the specification */
    const char          *path;         /* after the location prefix */
    const char *const   *query;        /* the endpoint's query parameters */
    const char          *replacement;  /* path template, NULL: none */
    unsigned             base;         /* NGX_HTTP_CHAINDATA_MIG_BASE* */
    const char *const   *supported;    /* query the replacement supports */
    const char *const   *ignored;      /* it accepts, but ignores */
    unsigned             changes;      /* NGX_HTTP_CHAINDATA_MIG_* flags */
    unsigned             redirect;     /* "same path" or "none": 308 fits */
    const char          *alternative;  /* where the data went instead */
    const char          *field;        /* ... in this field */
    const char          *text;         /* the table's differences column */
} ngx_http_chaindata_mig_row_t;


typedef struct {
    const char          *name;
    const char *const   *operations;
    const char          *text;
} ngx_http_chaindata_mig_extra_t;


typedef struct {
    ngx_http_chaindata_span_t  name;   /* in the row's template */
    ngx_http_chaindata_span_t  value;  /* in the request's path */
} ngx_http_chaindata_mig_param_t;


/* what a request's path matched */
typedef struct {
    const ngx_http_chaindata_mig_row_t  *row;
    ngx_http_chaindata_mig_param_t       params[
                                             NGX_HTTP_CHAINDATA_MIG_SEGMENTS];
    size_t                               nparams;
} ngx_http_chaindata_mig_match_t;


/* query parameter names, each once, in the order given */
typedef struct {
    ngx_http_chaindata_span_t  names[NGX_HTTP_CHAINDATA_MIG_QUERY_MAX];
    size_t                     n;
} ngx_http_chaindata_mig_names_t;


/* what is wrong with a path parameter */
typedef enum {
    NGX_HTTP_CHAINDATA_MIG_PARAM_OK = 0,
    NGX_HTTP_CHAINDATA_MIG_PARAM_LONG,     /* over MIG_PARAM_MAX bytes */
    NGX_HTTP_CHAINDATA_MIG_PARAM_UTF8      /* not UTF-8 */
} ngx_http_chaindata_mig_param_e;


extern const ngx_http_chaindata_mig_row_t    ngx_http_chaindata_mig_rows[];
extern const size_t                          ngx_http_chaindata_mig_nrows;
extern const ngx_http_chaindata_mig_extra_t  ngx_http_chaindata_mig_extras[];
extern const size_t                          ngx_http_chaindata_mig_nextras;


/* RFC 3986 unreserved: ALPHA DIGIT - . _ ~ */
int ngx_http_chaindata_mig_unreserved(unsigned char c);

int ngx_http_chaindata_mig_in_list(const char *const *list,
    const ngx_http_chaindata_span_t *name);

/*
 * The path after the location's prefix (name, or NULL for a location with
 * none to take: a regular expression, a named location), without the
 * version segment "v1"; without a prefix, /ordinals and then /v1 are
 * skipped where present.  -1: the URI is not below the prefix at all.
 */
int ngx_http_chaindata_mig_subpath(const unsigned char *uri, size_t len,
    const unsigned char *name, size_t name_len,
    ngx_http_chaindata_span_t *sub);

/* the row the path matches, parameters taken from it: 0, or -1 for none */
int ngx_http_chaindata_mig_match(const ngx_http_chaindata_span_t *sub,
    ngx_http_chaindata_mig_match_t *m);

/* the first parameter that is wrong (*which) and why */
ngx_http_chaindata_mig_param_e ngx_http_chaindata_mig_check(
    const ngx_http_chaindata_mig_match_t *m, size_t *which);

/*
 * A path template with the match's parameters put in, each
 * percent-encoded down to the unreserved characters: safe in a URL, a
 * Location and a Link header alike.  Writes into out unless NULL, and
 * returns the length; (size_t) -1 when the template names a parameter the
 * match lacks.
 */
size_t ngx_http_chaindata_mig_expand(unsigned char *out, const char *tpl,
    const ngx_http_chaindata_mig_match_t *m);

/*
 * The names of a query's parameters (percent-decoded into buf, which holds
 * len bytes; each once, in order) that the row's replacement does not
 * support, and those it accepts but ignores.
 */
void ngx_http_chaindata_mig_query(const ngx_http_chaindata_mig_row_t *row,
    const unsigned char *args, size_t len, unsigned char *buf,
    ngx_http_chaindata_mig_names_t *unsupported,
    ngx_http_chaindata_mig_names_t *ignored);

/*
 * A query string for a Location: its bytes outside RFC 3986's query
 * characters (and a "%" not before two hex digits) percent-encoded.  out
 * holds 3 * len bytes; returns the length written.
 */
size_t ngx_http_chaindata_mig_escape_query(unsigned char *out,
    const unsigned char *args, size_t len);


#endif /* _NGX_HTTP_CHAINDATA_MIGRATION_MAP_H_INCLUDED_ */
