
/*
 * The tools' command lines (chaindata-load, chaindata-mirror): each
 * program states its options once, in a table, in the spirit of nginx's
 * ngx_command_t: an option's name, its kind, where its value goes in the
 * program's state and its bounds.  One loop, chaindata_options_parse(),
 * reads argv for both with getopt_long and says what is wrong with a
 * value in the same words for every option of a kind.
 */


#ifndef _CHAINDATA_OPTIONS_H_INCLUDED_
#define _CHAINDATA_OPTIONS_H_INCLUDED_


#include <getopt.h>
#include <stddef.h>


typedef enum {
    CHAINDATA_OPT_FLAG = 1,  /* no argument: the int at offset = value */
    CHAINDATA_OPT_STRING,    /* the argument, a char * at offset */
    CHAINDATA_OPT_NUMBER,    /* a number from min to max, stored as type */
    CHAINDATA_OPT_COUNT,     /* a whole number from 1 (to max; 0: any) */
    CHAINDATA_OPT_SECONDS,   /* a positive number of seconds, a double */
    CHAINDATA_OPT_SIZE,      /* a size (K, M, G, T), min at least, size_t */
    CHAINDATA_OPT_CALL,      /* set() alone takes the argument */
    CHAINDATA_OPT_ACTION     /* no argument: set() alone, arg NULL */
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
     * of storing it): 0, or -1 after a message
     */
    int                  (*set)(void *conf, const chaindata_opt_t *o,
                                char *arg);
};


/*
 * Reads argv into conf by the table opts (ending with a NULL name):
 * options of more (getopt's entries, ending with a NULL name; NULL: none)
 * go to other(), which returns 1 taken, 0 not one, -1 wrong.  prog names
 * the program in messages.  0, with optind at the first operand, or -1
 * after a message.
 */
int chaindata_options_parse(const char *prog, const chaindata_opt_t *opts,
    const struct option *more, int (*other)(void *conf, int c, char *arg),
    void *conf, int argc, char **argv);

/* a size: a whole number with a K, M, G or T suffix, not 0: 0, or -1 */
int chaindata_options_size(const char *s, size_t *out);


#endif /* _CHAINDATA_OPTIONS_H_INCLUDED_ */
