
/*
 * chaindata: the mapping of the deprecated Bitcoin-layer endpoints to
 * their replacements (doc/module.md, "The mapping") and what a request
 * target makes of it, without nginx: the path below the location matched
 * against the table, the path parameters checked and put into the
 * replacement's path, the query parameter names sorted, the query string
 * made safe for a Location.  The module's migration route answers
 * with it; t/fuzz/fuzz_migration.c fuzzes it.
 *
 * No nginx headers here.
 */


#ifndef _CHAINDATA_MIGRATION_MAP_H_INCLUDED_
#define _CHAINDATA_MIGRATION_MAP_H_INCLUDED_


#include <stddef.h>

#include "chaindata_paths.h"


/* the longest path of the tables has four segments */
#define CHAINDATA_MIG_SEGMENTS     4

/* a path parameter longer than this is refused (ids are under 100) */
#define CHAINDATA_MIG_PARAM_MAX    256

/* query parameter names listed in one answer, at most */
#define CHAINDATA_MIG_QUERY_MAX    64

/* the base URL a replacement is served from */
#define CHAINDATA_MIG_BASE         0
#define CHAINDATA_MIG_BASE_BRC20   1

/* differences that the other columns of a row do not already say */
#define CHAINDATA_MIG_RAW_CONTENT  0x01
#define CHAINDATA_MIG_PRICE_DATA   0x02
#define CHAINDATA_MIG_FULL_LIST    0x04

/* a NULL-terminated list of names */
#define chaindata_mig_list(...)                                     \
    ((const char *const []) { __VA_ARGS__, NULL })


typedef struct {
    const char          *section;      /* doc/module.md's: "9.2", "9.3" */
    const char          *path;         /* after the location prefix */
    const char *const   *query;        /* the endpoint's query parameters */
    const char          *replacement;  /* path template, NULL: none */
    unsigned             base;         /* CHAINDATA_MIG_BASE* */
    const char *const   *supported;    /* query the replacement supports */
    const char *const   *ignored;      /* it accepts, but ignores */
    unsigned             changes;      /* CHAINDATA_MIG_* flags */
    unsigned             redirect;     /* "same path" or "none": 308 fits */
    const char          *alternative;  /* where the data went instead */
    const char          *field;        /* ... in this field */
    const char          *text;         /* the table's differences column */
} chaindata_mig_row_t;


typedef struct {
    const char          *name;
    const char *const   *operations;
    const char          *text;
} chaindata_mig_extra_t;


typedef struct {
    chaindata_span_t  name;   /* in the row's template */
    chaindata_span_t  value;  /* in the request's path */
} chaindata_mig_param_t;


/* what a request's path matched */
typedef struct {
    const chaindata_mig_row_t  *row;
    chaindata_mig_param_t       params[
                                             CHAINDATA_MIG_SEGMENTS];
    size_t                               nparams;
} chaindata_mig_match_t;


/* query parameter names, each once, in the order given */
typedef struct {
    chaindata_span_t  names[CHAINDATA_MIG_QUERY_MAX];
    size_t            n;
} chaindata_mig_names_t;


/* what is wrong with a path parameter */
typedef enum {
    CHAINDATA_MIG_PARAM_OK = 0,
    CHAINDATA_MIG_PARAM_LONG,     /* over MIG_PARAM_MAX bytes */
    CHAINDATA_MIG_PARAM_UTF8      /* not UTF-8 */
} chaindata_mig_param_e;


extern const chaindata_mig_row_t    chaindata_mig_rows[];
extern const size_t                          chaindata_mig_nrows;
extern const chaindata_mig_extra_t  chaindata_mig_extras[];
extern const size_t                          chaindata_mig_nextras;


/* RFC 3986 unreserved: ALPHA DIGIT - . _ ~ */
int chaindata_mig_unreserved(unsigned char c);

int chaindata_mig_in_list(const char *const *list,
    const chaindata_span_t  *name);

/*
 * The path after the location's prefix (name, or NULL for a location with
 * none to take: a regular expression, a named location), without the
 * version segment "v1"; without a prefix, /ordinals and then /v1 are
 * skipped where present.  -1: the URI is not below the prefix at all.
 */
int chaindata_mig_subpath(const unsigned char *uri, size_t len,
    const unsigned char *name, size_t name_len,
    chaindata_span_t  *sub);

/* the row the path matches, parameters taken from it: 0, or -1 for none */
int chaindata_mig_match(const chaindata_span_t *sub,
    chaindata_mig_match_t  *m);

/* the first parameter that is wrong (*which) and why */
chaindata_mig_param_e chaindata_mig_check(
    const chaindata_mig_match_t  *m, size_t *which);

/*
 * A path template with the match's parameters put in, each
 * percent-encoded down to the unreserved characters: safe in a URL, a
 * Location and a Link header alike.  Writes into out unless NULL, and
 * returns the length; (size_t) -1 when the template names a parameter the
 * match lacks.
 */
size_t chaindata_mig_expand(unsigned char *out, const char *tpl,
    const chaindata_mig_match_t  *m);

/*
 * The names of a query's parameters (percent-decoded into buf, which holds
 * len bytes; each once, in order) that the row's replacement does not
 * support, and those it accepts but ignores.
 */
void chaindata_mig_query(const chaindata_mig_row_t *row,
    const unsigned char *args, size_t len, unsigned char *buf,
    chaindata_mig_names_t *unsupported,
    chaindata_mig_names_t  *ignored);

/*
 * A query string for a Location: its bytes outside RFC 3986's query
 * characters (and a "%" not before two hex digits) percent-encoded.  out
 * holds 3 * len bytes; returns the length written.
 */
size_t chaindata_mig_escape_query(unsigned char *out,
    const unsigned char *args, size_t len);


#endif /* _CHAINDATA_MIGRATION_MAP_H_INCLUDED_ */
