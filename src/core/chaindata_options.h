
/*
 * The tools' command lines (chaindata-load, chaindata-mirror): each
 * program states its options once, in a table, in the spirit of nginx's
 * ngx_command_t: an option's name, its kind, where its value goes in the
 * program's state, its bounds and its line of the usage.  A table may
 * take another room's in (CHAINDATA_OPT_PART: the NATS options, the
 * request headers), so that a program has one.  One loop,
 * chaindata_options_parse(), reads argv for both with getopt_long and
 * says what is wrong with a value in the same words for every option of
 * a kind; chaindata_options_usage() writes --help's list from the table.
 */


#ifndef _CHAINDATA_OPTIONS_H_INCLUDED_
#define _CHAINDATA_OPTIONS_H_INCLUDED_


#include <getopt.h>
#include <stddef.h>
#include <stdio.h>


typedef enum {
    CHAINDATA_OPT_FLAG = 1,  /* no argument: the int at offset = value */
    CHAINDATA_OPT_STRING,    /* the argument, a char * at offset */
    CHAINDATA_OPT_NUMBER,    /* a number from min to max, stored as type */
    CHAINDATA_OPT_COUNT,     /* a whole number from 1 (to max; 0: any) */
    CHAINDATA_OPT_SECONDS,   /* a positive number of seconds, a double */
    CHAINDATA_OPT_SIZE,      /* a size (K, M, G, T), min at least, size_t */
    CHAINDATA_OPT_CALL,      /* set() alone takes the argument */
    CHAINDATA_OPT_ACTION,    /* no argument: set() alone, arg NULL */
    CHAINDATA_OPT_PART       /* part's options, their offsets from offset */
} chaindata_opt_kind_e;

/* what a CHAINDATA_OPT_NUMBER or _COUNT is stored as */
typedef enum {
    CHAINDATA_OPT_DOUBLE = 0,
    CHAINDATA_OPT_U64,       /* uint64_t */
    CHAINDATA_OPT_UINT,      /* unsigned int */
    CHAINDATA_OPT_SIZE_T,
    CHAINDATA_OPT_MSEC       /* seconds, stored as a long of milliseconds */
} chaindata_opt_type_e;

typedef struct chaindata_opt_s  chaindata_opt_t;

struct chaindata_opt_s {
    const char            *name;      /* without its "--" */
    chaindata_opt_kind_e   kind;
    chaindata_opt_type_e   type;
    size_t                 offset;    /* in the program's state */
    double                 min;
    double                 max;
    int                    value;     /* a flag's */
    int                    key;       /* its one-letter form, if any */
    /*
     * called with the argument once the value is stored (_CALL: instead
     * of storing it), conf the state its table's offsets are from: 0, or
     * -1 after a message that begins with prog (the program, or the
     * place in a file the option was read from)
     */
    int                  (*set)(void *conf, const chaindata_opt_t *o,
                                char *arg, const char *prog);

    /* the usage: its value's name (N, DIR), what it does (NULL: said
     * with the next option's, on one line), a heading above it if any */
    const char            *arg;
    const char            *help;
    const char            *title;
    const chaindata_opt_t *part;      /* _PART's table */
};


/* the options of a program, its parts' included, at most */
#define CHAINDATA_OPTIONS_MAX  128

/* a number in a usage's text: CHAINDATA_OPT_STR(CHAINDATA_PARALLEL) */
#define CHAINDATA_OPT_STR_(x)  #x
#define CHAINDATA_OPT_STR(x)   CHAINDATA_OPT_STR_(x)


/* one parse of a program's options, and what the ones before it took */
typedef struct {
    const char             *prog;     /* names the program in messages */
    const chaindata_opt_t  *opts;     /* ends with a NULL name */
    void                   *conf;     /* the state opts' offsets are in */
    /*
     * NULL, or argv's words' places (a --config file's "FILE:LINE"),
     * said in an error about the word instead of prog
     */
    char                  **where;
    /*
     * by an option's place in opts, parts unfolded: the parse that took
     * a value for where it goes (1, 2, ...).  A later parse does not
     * take it again: the command line, read first, wins over a file.
     */
    unsigned char           taken[CHAINDATA_OPTIONS_MAX];
    unsigned char           pass;
} chaindata_opt_parse_t;


/*
 * Reads argv into p->conf by the table p->opts: 0, with optind at the
 * first operand, or -1 after a message.  p is zeroed before its first
 * parse and kept for the next.
 */
int chaindata_options_parse(chaindata_opt_parse_t *p, int argc, char **argv);

/* --help: head, the options each with its value and its text, tail */
void chaindata_options_usage(FILE *out, const char *head,
    const chaindata_opt_t *opts, const char *tail);

/* a size: a whole number with a K, M, G or T suffix, not 0: 0, or -1 */
int chaindata_options_size(const char *s, size_t *out);


#endif /* _CHAINDATA_OPTIONS_H_INCLUDED_ */
