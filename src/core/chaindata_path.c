
/*
 * chaindata: paths against route templates (see the header).
 */


#include <string.h>

#include "chaindata_path.h"


/* the root template: nothing, or one "/" */

static int
chaindata_path_root(size_t len, const unsigned char *path,
    chaindata_path_params_t *p)
{
    p->n = 0;

    return (len == 0 || (len == 1 && path[0] == '/')) ? 0 : -1;
}


int
chaindata_path_match(const char *tmpl, const unsigned char *path,
    size_t len, chaindata_path_params_t *p)
{
    size_t                i;
    const unsigned char  *start;

    if (strcmp(tmpl, "/") == 0) {
        return chaindata_path_root(len, path, p);
    }

    p->n = 0;
    i = 0;

    while (*tmpl) {

        if (*tmpl != '{') {
            if (i == len || path[i] != (unsigned char) *tmpl) {
                return -1;
            }

            i++;
            tmpl++;
            continue;
        }

        tmpl = strchr(tmpl, '}');

        if (tmpl == NULL || p->n == CHAINDATA_PATH_PARAMS_MAX) {
            return -1;
        }

        tmpl++;
        start = path + i;

        while (i < len && path[i] != '/') {
            i++;
        }

        p->param[p->n].data = start;
        p->param[p->n].len = (size_t) (path + i - start);
        p->n++;
    }

    return i == len ? 0 : -1;
}


int
chaindata_path_prefix(const char *const *prefixes,
    const unsigned char *path, size_t len, chaindata_span_t *rest)
{
    size_t  n, best;
    int     found;

    found = 0;
    best = 0;

    for ( /* void */ ; *prefixes; prefixes++) {
        n = strlen(*prefixes);

        if (n > len || memcmp(path, *prefixes, n) != 0
            || (n < len && path[n] != '/'))
        {
            continue;
        }

        if (!found || n > best) {
            best = n;
            found = 1;
        }
    }

    if (!found) {
        return -1;
    }

    rest->data = path + best;
    rest->len = len - best;

    return 0;
}
