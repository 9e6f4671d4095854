
/*
 * The tools' option tables (src/core/chaindata_options.c): every kind
 * stored where its entry says, bounds and syntax refused with -1, an
 * option of another table handed on, a one-letter form, operands left
 * at optind.
 */


#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chaindata_options.h"
#include "unit.h"


typedef struct {
    const char  *name;
    int          flag;
    double       number;
    uint64_t     height;
    unsigned     count;
    long         ms;
    size_t       size;
    double       seconds;
    int          called;
    struct {
        const char  *url;
    }            part;
} conf_t;


static int
set_called(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    ((conf_t *) conf)->called++;

    return arg && strcmp(arg, "no") == 0 ? -1 : 0;
}


/* another room's table, taken in as a part */
static const chaindata_opt_t  part[] = {
    { .name = "nats", .kind = CHAINDATA_OPT_STRING, .offset = 0 },
    { .name = NULL }
};


#define C(field)  offsetof(conf_t, field)

static const chaindata_opt_t  opts[] = {
    { .name = "name", .kind = CHAINDATA_OPT_STRING, .offset = C(name) },
    { .name = "flag", .kind = CHAINDATA_OPT_FLAG, .offset = C(flag),
      .value = 7 },
    { .name = "number", .kind = CHAINDATA_OPT_NUMBER, .offset = C(number),
      .min = 0.5, .max = 2 },
    { .name = "height", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = C(height), .min = 0, .max = 1e15,
      .set = set_called },
    { .name = "count", .kind = CHAINDATA_OPT_COUNT,
      .type = CHAINDATA_OPT_UINT, .offset = C(count), .max = 10 },
    { .name = "timeout", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_MSEC, .offset = C(ms), .min = 0.1, .max = 60 },
    { .name = "size", .kind = CHAINDATA_OPT_SIZE, .offset = C(size),
      .min = 65536 },
    { .name = "every", .kind = CHAINDATA_OPT_SECONDS, .offset = C(seconds) },
    { .name = "call", .kind = CHAINDATA_OPT_CALL, .set = set_called },
    { .name = "act", .kind = CHAINDATA_OPT_ACTION, .key = 'a',
      .set = set_called },
    { .name = "part", .kind = CHAINDATA_OPT_PART, .offset = C(part),
      .part = part },
    { .name = NULL }
};


/* argv from a string of words; the parse's result */

static int
parse(conf_t *c, const char *line, int *rest)
{
    int          argc, rc;
    char        *argv[32], *p;
    static char  buf[512];

    chaindata_opt_parse_t  op;

    memset(c, 0, sizeof(conf_t));
    snprintf(buf, sizeof(buf), "prog %s", line);
    argc = 0;

    for (p = strtok(buf, " "); p && argc < 31; p = strtok(NULL, " ")) {
        argv[argc++] = p;
    }

    argv[argc] = NULL;
    opterr = 0;

    memset(&op, 0, sizeof(op));
    op.prog = "unit";
    op.opts = opts;
    op.conf = c;

    rc = chaindata_options_parse(&op, argc, argv);
    *rest = argc - optind;

    return rc;
}


/*
 * The command line, then a file's words: the file's --count is not
 * taken, the command line's is kept; its --number is.
 */

static int
second(conf_t *c)
{
    char                  *argv[] = { "prog", "--count", "3", NULL };
    char                  *file[] = { "prog", "--count", "5", "--number",
                                      "1", "--flag", NULL };
    char                  *where[] = { "f", "f:1", "f:1", "f:2", "f:2",
                                       "f:3", NULL };
    chaindata_opt_parse_t  op;

    memset(c, 0, sizeof(conf_t));
    memset(&op, 0, sizeof(op));
    op.prog = "unit";
    op.opts = opts;
    op.conf = c;

    if (chaindata_options_parse(&op, 3, argv) != 0) {
        return -1;
    }

    op.where = where;

    return chaindata_options_parse(&op, 6, file);
}


/* the refusals' messages on standard error kept out of the TAP run */

static int
quiet(int fd)
{
    int  null;

    fflush(stderr);

    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
        return -1;
    }

    fd = dup(2);
    null = open("/dev/null", O_WRONLY);

    if (null >= 0) {
        dup2(null, 2);
        close(null);
    }

    return fd;
}


void
test_options(void)
{
    int     rest, saved;
    conf_t  c;

    ok(parse(&c, "--name x --flag --number 1.5 --height 840000 --count 3 "
                 "--timeout 2.5 --size 1M --every 0.25 --nats u -a a b",
             &rest) == 0
       && strcmp(c.name, "x") == 0 && c.flag == 7 && c.number == 1.5
       && c.height == 840000 && c.count == 3 && c.ms == 2500
       && c.size == 1024 * 1024 && c.seconds == 0.25 && c.called == 2
       && c.part.url && strcmp(c.part.url, "u") == 0 && rest == 2,
       "options: every kind stored, set() called, a part's option at its "
       "offset, operands left");

    saved = quiet(-1);
    ok(parse(&c, "--number 2.5", &rest) == -1
       && parse(&c, "--number x", &rest) == -1
       && parse(&c, "--count 0", &rest) == -1
       && parse(&c, "--count 11", &rest) == -1
       && parse(&c, "--count 1.5", &rest) == -1
       && parse(&c, "--size 64", &rest) == -1
       && parse(&c, "--size 1Q", &rest) == -1
       && parse(&c, "--every 0", &rest) == -1
       && parse(&c, "--call no", &rest) == -1 && c.called == 1
       && parse(&c, "--bogus", &rest) == -1
       && parse(&c, "--name", &rest) == -1,
       "options: out of bounds, bad syntax, a refused call, an unknown "
       "option, a missing argument: -1");
    (void) quiet(saved);

    ok(parse(&c, "--size 64K --count 10 --height 0", &rest) == 0
       && c.size == 65536 && c.count == 10 && c.height == 0,
       "options: the bounds themselves taken");

    ok(second(&c) == 0 && c.count == 3 && c.number == 1 && c.flag == 7,
       "options: a second parse (a file's) takes what the first did not, "
       "not what it took");

    ok(chaindata_options_size("2G", &c.size) == 0
       && c.size == (size_t) 2 << 30
       && chaindata_options_size("0", &c.size) == -1
       && chaindata_options_size("-1K", &c.size) == -1,
       "options: sizes");
}
