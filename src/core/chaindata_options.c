
/*
 * The tools' command lines read by their tables (chaindata_options.h).
 */


#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_options.h"


/* getopt's value of the i-th option of a table: above any letter */
#define CHAINDATA_OPTIONS_VAL  0x1000


int
chaindata_options_size(const char *s, size_t *out)
{
    char                *end;
    unsigned long long   v, mult;

    errno = 0;
    v = strtoull(s, &end, 10);

    if (errno || end == s || s[0] == '-') {
        return -1;
    }

    switch (*end) {
    case '\0': mult = 1; break;
    case 'K': case 'k': mult = 1ULL << 10; end++; break;
    case 'M': case 'm': mult = 1ULL << 20; end++; break;
    case 'G': case 'g': mult = 1ULL << 30; end++; break;
    case 'T': case 't': mult = 1ULL << 40; end++; break;
    default: return -1;
    }

    if (*end != '\0' || v == 0 || v > SIZE_MAX / mult) {
        return -1;
    }

    *out = (size_t) (v * mult);

    return 0;
}


static void
chaindata_options_store(const chaindata_opt_t *o, void *p, double v)
{
    switch (o->type) {

    case CHAINDATA_OPT_U64:
        *(uint64_t *) p = (uint64_t) v;
        break;

    case CHAINDATA_OPT_UINT:
        *(unsigned *) p = (unsigned) v;
        break;

    case CHAINDATA_OPT_SIZE_T:
        *(size_t *) p = (size_t) v;
        break;

    case CHAINDATA_OPT_MSEC:
        *(long *) p = (long) (v * 1000);
        break;

    default:
        *(double *) p = v;
    }
}


/* a number from min to max (strtod's syntax) */

static int
chaindata_options_number(const char *prog, const chaindata_opt_t *o,
    const char *arg, void *p)
{
    char    *end;
    double   v;

    errno = 0;
    v = strtod(arg, &end);

    if (errno || end == arg || *end || v < o->min || v > o->max) {
        fprintf(stderr, "%s: --%s wants a number from %g to %g, not "
                "\"%s\"\n", prog, o->name, o->min, o->max, arg);
        return -1;
    }

    chaindata_options_store(o, p, v);

    return 0;
}


/* a whole number from 1, digits only, to max if any */

static int
chaindata_options_count(const char *prog, const chaindata_opt_t *o,
    const char *arg, void *p)
{
    char           *end;
    unsigned long   n;

    errno = 0;
    n = strtoul(arg, &end, 10);

    if (errno || *end || n == 0 || arg[0] == '-'
        || (o->max > 0 && n > o->max))
    {
        if (o->max > 0) {
            fprintf(stderr, "%s: --%s wants a number from 1 to %.0f, not "
                    "\"%s\"\n", prog, o->name, o->max, arg);

        } else {
            fprintf(stderr, "%s: --%s wants a positive number, not \"%s\"\n",
                    prog, o->name, arg);
        }

        return -1;
    }

    /* exact, past 2^53 too */
    switch (o->type) {

    case CHAINDATA_OPT_U64:
        *(uint64_t *) p = n;
        break;

    case CHAINDATA_OPT_SIZE_T:
        *(size_t *) p = n;
        break;

    default:
        chaindata_options_store(o, p, (double) n);
    }

    return 0;
}


static int
chaindata_options_seconds(const char *prog, const chaindata_opt_t *o,
    const char *arg, void *p)
{
    char    *end;
    double   v;

    errno = 0;
    v = strtod(arg, &end);

    if (errno || *end || !(v > 0)) {
        fprintf(stderr, "%s: --%s wants a positive number of seconds, not "
                "\"%s\"\n", prog, o->name, arg);
        return -1;
    }

    *(double *) p = v;

    return 0;
}


static int
chaindata_options_bytes(const char *prog, const chaindata_opt_t *o,
    const char *arg, void *p)
{
    size_t  v;

    if (chaindata_options_size(arg, &v) == 0 && v >= o->min) {
        *(size_t *) p = v;
        return 0;
    }

    if (o->min > 0) {
        fprintf(stderr, "%s: --%s wants a size of %.0fK or more (K, M, G "
                "suffixes)\n", prog, o->name, o->min / 1024);

    } else {
        fprintf(stderr, "%s: bad size \"%s\"\n", prog, arg);
    }

    return -1;
}


/* option o given with arg: its value stored by its kind, then set() */

static int
chaindata_options_take(const char *prog, const chaindata_opt_t *o,
    void *conf, char *arg)
{
    int    rc;
    void  *p;

    p = (char *) conf + o->offset;
    rc = 0;

    switch (o->kind) {

    case CHAINDATA_OPT_FLAG:
        *(int *) p = o->value;
        break;

    case CHAINDATA_OPT_STRING:
        *(char **) p = arg;
        break;

    case CHAINDATA_OPT_NUMBER:
        rc = chaindata_options_number(prog, o, arg, p);
        break;

    case CHAINDATA_OPT_COUNT:
        rc = chaindata_options_count(prog, o, arg, p);
        break;

    case CHAINDATA_OPT_SECONDS:
        rc = chaindata_options_seconds(prog, o, arg, p);
        break;

    case CHAINDATA_OPT_SIZE:
        rc = chaindata_options_bytes(prog, o, arg, p);
        break;

    default: /* _CALL, _ACTION */
        break;
    }

    if (rc == 0 && o->set) {
        rc = o->set(conf, o, arg);
    }

    return rc;
}


/* getopt_long's table and short options of opts and more */

static struct option *
chaindata_options_getopt(const chaindata_opt_t *opts,
    const struct option *more, char *keys, size_t nkeys)
{
    size_t          n, nmore, i, k;
    struct option  *lo;

    for (n = 0; opts[n].name; n++) { /* void */ }
    for (nmore = 0; more && more[nmore].name; nmore++) { /* void */ }

    lo = calloc(n + nmore + 1, sizeof(struct option));
    if (lo == NULL) {
        return NULL;
    }

    for (i = 0, k = 0; i < n; i++) {
        lo[i].name = opts[i].name;
        lo[i].has_arg = (opts[i].kind == CHAINDATA_OPT_FLAG
                         || opts[i].kind == CHAINDATA_OPT_ACTION)
                        ? no_argument : required_argument;
        lo[i].val = CHAINDATA_OPTIONS_VAL + (int) i;

        if (opts[i].key && k + 1 < nkeys) {
            keys[k++] = (char) opts[i].key;
        }
    }

    keys[k] = '\0';

    if (nmore) {
        memcpy(&lo[n], more, nmore * sizeof(struct option));
    }

    return lo;
}


int
chaindata_options_parse(const char *prog, const chaindata_opt_t *opts,
    const struct option *more, int (*other)(void *conf, int c, char *arg),
    void *conf, int argc, char **argv)
{
    int                     c, rc;
    char                    keys[16];
    size_t                  i, n;
    struct option          *lo;
    const chaindata_opt_t  *o;

    for (n = 0; opts[n].name; n++) { /* void */ }

    lo = chaindata_options_getopt(opts, more, keys, sizeof(keys));
    if (lo == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return -1;
    }

    rc = 0;

    while (rc == 0 && (c = getopt_long(argc, argv, keys, lo, NULL)) != -1) {
        o = NULL;

        if (c >= CHAINDATA_OPTIONS_VAL
            && (size_t) (c - CHAINDATA_OPTIONS_VAL) < n)
        {
            o = &opts[c - CHAINDATA_OPTIONS_VAL];
        }

        for (i = 0; o == NULL && c != '?' && opts[i].name; i++) {
            if (opts[i].key == c) {
                o = &opts[i];
            }
        }

        if (o) {
            rc = chaindata_options_take(prog, o, conf, optarg);

        } else {
            /* '?': getopt_long said what is wrong */
            rc = (c != '?' && other && other(conf, c, optarg) == 1) ? 0 : -1;
        }
    }

    free(lo);

    return rc;
}
