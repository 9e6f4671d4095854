
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
        rc = o->set(conf, o, arg, prog);
    }

    return rc;
}


/* an option of a table, and where its table's offsets are from */
typedef struct {
    const chaindata_opt_t  *o;
    size_t                  base;
} chaindata_opt_ref_t;


/* the options of opts and of its parts, in their order: 0, or -1 */

static int
chaindata_options_unfold(const chaindata_opt_t *opts, size_t base,
    chaindata_opt_ref_t *refs, size_t *n)
{
    for ( /* void */ ; opts->name; opts++) {

        if (opts->kind == CHAINDATA_OPT_PART) {
            if (chaindata_options_unfold(opts->part, base + opts->offset,
                                         refs, n)
                != 0)
            {
                return -1;
            }

            continue;
        }

        if (*n == CHAINDATA_OPTIONS_MAX) {
            return -1;
        }

        refs[*n].o = opts;
        refs[*n].base = base;
        (*n)++;
    }

    return 0;
}


/* getopt_long's table and short options of the options */

static struct option *
chaindata_options_getopt(const chaindata_opt_ref_t *refs, size_t n,
    char *keys, size_t nkeys)
{
    size_t                  i, k;
    struct option          *lo;
    const chaindata_opt_t  *o;

    lo = calloc(n + 1, sizeof(struct option));
    if (lo == NULL) {
        return NULL;
    }

    for (i = 0, k = 0; i < n; i++) {
        o = refs[i].o;
        lo[i].name = o->name;
        lo[i].has_arg = (o->kind == CHAINDATA_OPT_FLAG
                         || o->kind == CHAINDATA_OPT_ACTION)
                        ? no_argument : required_argument;
        lo[i].val = CHAINDATA_OPTIONS_VAL + (int) i;

        if (o->key && k + 1 < nkeys) {
            keys[k++] = (char) o->key;
        }
    }

    keys[k] = '\0';

    return lo;
}


/* 1: the two store their values at the same place (--once, --follow) */

static int
chaindata_options_same(const chaindata_opt_ref_t *a,
    const chaindata_opt_ref_t *b)
{
    return a == b
           || (a->o->kind != CHAINDATA_OPT_CALL
               && a->o->kind != CHAINDATA_OPT_ACTION
               && b->o->kind != CHAINDATA_OPT_CALL
               && b->o->kind != CHAINDATA_OPT_ACTION
               && a->base + a->o->offset == b->base + b->o->offset);
}


/*
 * The option refs[i] of this parse: taken, unless an earlier parse took
 * a value for where it goes; marked taken with those that share it.
 */

static int
chaindata_options_one(chaindata_opt_parse_t *p, chaindata_opt_ref_t *refs,
    size_t n, size_t i, const char *prog)
{
    size_t  j;

    if (p->taken[i] && p->taken[i] != p->pass) {
        return 0;
    }

    for (j = 0; j < n; j++) {
        if (chaindata_options_same(&refs[i], &refs[j])) {
            p->taken[j] = p->pass;
        }
    }

    return chaindata_options_take(prog, refs[i].o,
                                  (char *) p->conf + refs[i].base, optarg);
}


/* getopt's '?' for a word of a file (its own message is for argv) */

static void
chaindata_options_unknown(const char *where, const char *word)
{
    if (optopt) {
        fprintf(stderr, "%s: %s wants a value\n", where, word);

    } else {
        fprintf(stderr, "%s: %s is no option\n", where, word);
    }
}


int
chaindata_options_parse(chaindata_opt_parse_t *p, int argc, char **argv)
{
    int                   c, rc, err;
    char                  keys[16];
    size_t                i, n;
    const char           *prog, *optstring;
    struct option        *lo;
    chaindata_opt_ref_t   refs[CHAINDATA_OPTIONS_MAX];

    n = 0;

    if (chaindata_options_unfold(p->opts, 0, refs, &n) != 0) {
        fprintf(stderr, "%s: more than %d options\n", p->prog,
                CHAINDATA_OPTIONS_MAX);
        return -1;
    }

    lo = chaindata_options_getopt(refs, n, keys + 1, sizeof(keys) - 1);
    if (lo == NULL) {
        fprintf(stderr, "%s: out of memory\n", p->prog);
        return -1;
    }

    /* a file's words kept in their order: their places are by index */
    keys[0] = '+';
    optstring = p->where ? keys : keys + 1;

    p->pass++;
    optind = 0;
    err = opterr;
    opterr = (p->where == NULL);
    rc = 0;

    while (rc == 0
           && (c = getopt_long(argc, argv, optstring, lo, NULL)) != -1)
    {
        prog = p->where ? p->where[optind - 1] : p->prog;

        if (c >= CHAINDATA_OPTIONS_VAL) {
            i = (size_t) (c - CHAINDATA_OPTIONS_VAL);

        } else {
            for (i = 0; c != '?' && i < n && refs[i].o->key != c; i++) {
                /* void */
            }

            i = c == '?' ? n : i;
        }

        if (i < n) {
            rc = chaindata_options_one(p, refs, n, i, prog);
            continue;
        }

        /* '?': getopt_long said what is wrong, for argv */
        if (p->where) {
            chaindata_options_unknown(prog, argv[optind - 1]);
        }

        rc = -1;
    }

    opterr = err;
    free(lo);

    return rc;
}


/* the usage: where an option's text starts, and the lines' width */
#define CHAINDATA_OPTIONS_COL    23
#define CHAINDATA_OPTIONS_WIDTH  78


/* text from column col (at col already), wrapped at spaces to indent */

static void
chaindata_options_wrap(FILE *out, const char *text, size_t col,
    size_t indent)
{
    size_t  len, first;

    first = 1;

    while (*text) {
        len = strcspn(text, " ");

        if (!first && col + 1 + len > CHAINDATA_OPTIONS_WIDTH) {
            fprintf(out, "\n%*s", (int) indent, "");
            col = indent;
            first = 1;
        }

        col += fprintf(out, "%s%.*s", first ? "" : " ", (int) len, text);
        first = 0;
        text += len;
        text += strspn(text, " ");
    }

    fputc('\n', out);
}


/* an option's line(s): its names (with those said with it), its text */

static void
chaindata_options_line(FILE *out, const char *names, const char *help)
{
    int  col;

    col = fprintf(out, "  %s", names);

    if (col > CHAINDATA_OPTIONS_WIDTH / 2) {
        col = fprintf(out, "\n%*s", CHAINDATA_OPTIONS_COL, "") - 1;

    } else if (col > CHAINDATA_OPTIONS_COL - 2) {
        col += fprintf(out, "   ");

    } else {
        col += fprintf(out, "%*s", CHAINDATA_OPTIONS_COL - col, "");
    }

    chaindata_options_wrap(out, help, (size_t) col, CHAINDATA_OPTIONS_COL);
}


static void
chaindata_options_list(FILE *out, const chaindata_opt_t *o, char *names,
    size_t size)
{
    size_t  len;

    for ( /* void */ ; o->name; o++) {

        if (o->title) {
            fputc('\n', out);

            if (o->title[0]) {
                chaindata_options_wrap(out, o->title, 0, 0);
            }
        }

        if (o->kind == CHAINDATA_OPT_PART) {
            chaindata_options_list(out, o->part, names, size);
            continue;
        }

        len = strlen(names);
        snprintf(names + len, size - len, "%s--%s%s%s", len ? ", " : "",
                 o->name, o->arg ? " " : "", o->arg ? o->arg : "");

        if (o->help) {
            chaindata_options_line(out, names, o->help);
            names[0] = '\0';
        }
    }
}


void
chaindata_options_usage(FILE *out, const char *head,
    const chaindata_opt_t *opts, const char *tail)
{
    char  names[256];

    names[0] = '\0';
    fprintf(out, "%s\n", head);
    chaindata_options_list(out, opts, names, sizeof(names));
    fprintf(out, "\n%s", tail);
}
