
/*
 * chaindata: a path against a route's path template (chaindata_routes.h,
 * CHAINDATA_PATH_LIST), and the prefixes a family of paths is served
 * under.  A template is literal bytes and parameters: "{name}" matches
 * one path segment, empty too (a route's parameter check refuses what it
 * must), never a "/".  The template "/" is the family's root: the prefix
 * alone, or with one "/".  No nginx headers here.
 */


#ifndef _CHAINDATA_PATH_H_INCLUDED_
#define _CHAINDATA_PATH_H_INCLUDED_


#include <stddef.h>

#include "chaindata_paths.h"


/* the most parameters a template has */
#define CHAINDATA_PATH_PARAMS_MAX  2


typedef struct {
    chaindata_span_t  param[CHAINDATA_PATH_PARAMS_MAX];
    size_t            n;
} chaindata_path_params_t;


/*
 * 0 when path[0, len) has the template's shape, its parameters in p in
 * their order; -1 when it has not.
 */
int chaindata_path_match(const char *tmpl, const unsigned char *path,
    size_t len, chaindata_path_params_t *p);

/*
 * What follows the longest of the NULL-ended prefixes that path starts
 * with, whole segments ("/runes/v1" is no prefix of "/runes/v10"): 0 and
 * the rest in *rest, or -1 when none is one.
 */
int chaindata_path_prefix(const char *const *prefixes,
    const unsigned char *path, size_t len, chaindata_span_t *rest);


#endif /* _CHAINDATA_PATH_H_INCLUDED_ */
