
/*
 * chaindata-mirror: main, its options' table and usage (doc/mirror.md),
 * the top room: nothing calls into it.  The polling loop is
 * chaindata_mirror_follow.c.
 */


#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "chaindata_envfile.h"
#include "chaindata_index_files.h"
#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"
#include "chaindata_mirror_exec.h"
#include "chaindata_options.h"
#include "chaindata_secret.h"
#include "chaindata_signal.h"


/* an http:// or https:// base URL, trailing slashes dropped */

static int
chaindata_mirror_url(void *conf, const chaindata_opt_t *o, char *url,
    const char *prog)
{
    size_t  n;

    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
    {
        fprintf(stderr, "%s: --%s wants an http:// or https:// URL\n", prog,
                o->name);
        return -1;
    }

    n = strlen(url);

    while (n > 8 && url[n - 1] == '/') {
        url[--n] = '\0';
    }

    return 0;
}


/* 1: the URL's host is this machine (a loopback address, localhost) */

static int
chaindata_mirror_local(const char *url)
{
    size_t       n;
    const char  *host;

    if (url == NULL) {
        return 1;
    }

    host = strstr(url, "://") + 3;
    n = strcspn(host, "/?#");

    if (memchr(host, '@', n)) {
        host = (const char *) memchr(host, '@', n) + 1;
    }

    return strncmp(host, "127.", 4) == 0
           || strncmp(host, "[::1]", 5) == 0
           || (strncasecmp(host, "localhost", 9) == 0
               && (host[9] == '\0' || strchr(":/?#", host[9])));
}


/*
 * Without --rate: any pace for upstreams on this host (the operator's
 * own), CHAINDATA_PUBLIC_RATE a second as soon as one is elsewhere, so
 * that a public API's limit (tens to hundreds a minute) is not met with
 * endless 429s; said at start either way.
 */

static void
chaindata_mirror_default_rate(chaindata_mirror_t *m)
{
    if (m->http.rate >= 0) {
        return;
    }

    if (chaindata_mirror_local(m->stacks_api)
        && chaindata_mirror_local(m->runes_api)
        && chaindata_mirror_local(m->platform_api))
    {
        m->http.rate = 0;
        return;
    }

    m->http.rate = CHAINDATA_PUBLIC_RATE;

    chaindata_mirror_log(m, "info", "at most %.2f requests a second, the "
                         "default for an upstream on another host: --rate "
                         "R lifts it (--rate 0: any)", m->http.rate);
}


static int
chaindata_mirror_from(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    chaindata_mirror_t  *m = conf;

    *(o->offset == offsetof(chaindata_mirror_t, from_height)
      ? &m->has_from : &m->runes.has_from) = 1;

    return 0;
}


static int
chaindata_mirror_catch_up(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    chaindata_mirror_t  *m = conf;

    if (chaindata_runes_catch_up_mode(arg, &m->runes.catch_up) != 0) {
        fprintf(stderr, "%s: --catch-up: \"%s\" is not auto, fill or "
                "replay\n", prog, arg);
        return -1;
    }

    return 0;
}


static int
chaindata_mirror_version(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    /* CHAINDATA_VERSION: the Makefile's, from debian/changelog */
    printf("chaindata-mirror %s\n", CHAINDATA_VERSION);
    exit(CHAINDATA_EXIT_OK);
}


/* --help: its head and its tail, the options between from the table */
static const char  chaindata_mirror_head[] =
    "usage: chaindata-mirror --db DIR [--stacks-api URL]\n"
    "       [--runes-api URL] [--platform-api URL --chainhooks FILE]\n"
    "       [options]\n"
    "       chaindata-mirror --config FILE [options]\n"
    "\n"
    "Keeps the chaindata index at DIR current from the upstream APIs:\n"
    "each upstream block is committed whole, with the feed position.\n";

static const char  chaindata_mirror_tail[] =
    "exit status: 0 caught up (--once) or stopped by a signal,\n"
    "1 upstream answered wrongly or with a 4xx, persistently,\n"
    "2 usage, 3 index or system error (another mirror runs on DIR)\n";


static int chaindata_mirror_help(void *conf, const chaindata_opt_t *o,
    char *arg, const char *prog);


#define CHAINDATA_M(field)  offsetof(chaindata_mirror_t, field)

/* the options (doc/mirror.md "Options") and their usage */
static const chaindata_opt_t  chaindata_mirror_options[] = {
    { .name = "db", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(db_path), .arg = "DIR",
      .help = "index directory, created if missing" },
    { .name = "stacks-api", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(stacks_api), .set = chaindata_mirror_url,
      .arg = "URL", .help = "a Stacks API (stacks-blockchain-api)" },
    { .name = "runes-api", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(runes_api), .set = chaindata_mirror_url,
      .arg = "URL", .help = "a Runes API (runehook, bitcoin-indexer)" },
    { .name = "config", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(config_file), .arg = "FILE",
      .help = "the options from a file of NAME=VALUE lines, as systemd's "
              "EnvironmentFile= reads them (mirror.conf.example): each "
              "variable made the options the unit's ExecStart= makes of "
              "it; an option given on the command line as well wins over "
              "the file's" },
    { .name = "from-height", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_M(from_height),
      .min = 0, .max = 1e15, .set = chaindata_mirror_from, .arg = "H",
      .help = "the first Stacks block, when DIR has no position (default: "
              "upstream's tip)" },
    { .name = "runes-from-height", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_M(runes.from_height),
      .min = 0, .max = 1e15, .set = chaindata_mirror_from, .arg = "H",
      .help = "the same for the first Bitcoin block" },
    { .name = "max-reorg-depth", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_M(max_reorg),
      .min = 1, .max = 1e9, .arg = "N",
      .help = "Stacks blocks a reorg may undo (default 1000); upstream "
              "disagreeing deeper stops the feed, the index unchanged" },
    { .name = "runes-max-reorg-depth", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_M(runes.max_reorg),
      .min = 1, .max = 1e9, .arg = "N",
      .help = "the same for Bitcoin blocks (100)" },
    { .name = "catch-up", .kind = CHAINDATA_OPT_CALL,
      .set = chaindata_mirror_catch_up, .arg = "MODE",
      .help = "how the runes feed catches up: fill (every transaction and "
              "address once, then follow), replay (block by block), auto "
              "(the default: fill when more than 144 blocks behind)" },
    { .name = "catch-up-window", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_SIZE_T, .offset = CHAINDATA_M(runes.fill_window),
      .min = 1, .max = CHAINDATA_FILL_BLOCKS, .arg = "N",
      .help = "blocks a fill holds at once at most (default "
              CHAINDATA_OPT_STR(CHAINDATA_FILL_BLOCKS) "; none added past "
              "256 MB of writes, the balance lists on top)" },
    { .name = "no-mempool", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_M(no_mempool), .value = 1,
      .help = "Stacks blocks only, not the mempool" },
    { .name = "mempool-v3-batch", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_M(pending.batch),
      .min = 1, .max = 1000, .arg = "N",
      .help = "new pending transactions whose v3 receipt_block_height is "
              "asked at once, one request for N at most (default "
              CHAINDATA_OPT_STR(CHAINDATA_MEMPOOL_V3_BATCH) ")" },
    { .name = "platform-api", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(platform_api), .set = chaindata_mirror_url,
      .arg = "URL", .help = "the platform API serving chainhook statuses" },
    { .name = "chainhooks", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(chainhooks_file), .arg = "FILE",
      .help = "its chainhooks, \"uuid api_key\" lines; the file must not be "
              "readable by group or others" },
    { .name = "chainhooks-interval", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_DOUBLE, .offset = CHAINDATA_M(hooks.interval),
      .min = 0.01, .max = 86400, .arg = "S",
      .help = "seconds between status polls (30)" },
    { .name = "once", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_M(once), .value = 1,
      .help = "catch up, then exit" },
    { .name = "follow", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_M(once), .value = 0,
      .help = "catch up, then poll (the default)" },
    { .name = "interval", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_DOUBLE, .offset = CHAINDATA_M(interval),
      .min = 0.01, .max = 86400, .arg = "S",
      .help = "seconds between polls (default 5)" },
    { .name = "parallel", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_M(http.parallel),
      .min = 1, .max = 256, .arg = "N",
      .help = "concurrent requests (default "
              CHAINDATA_OPT_STR(CHAINDATA_PARALLEL) "), across the blocks "
              "in flight" },
    { .name = "max-body-bytes", .kind = CHAINDATA_OPT_SIZE,
      .offset = CHAINDATA_M(http.max_body), .min = 65536, .arg = "SIZE",
      .help = "the answers being received, all together, decoded, at most "
              "(default 128M; K, M, G): one larger fails" },
    { .name = "blocks-ahead", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_M(ahead),
      .min = 1, .max = 1024, .arg = "N",
      .help = "Stacks blocks in flight: fetched while the ones below "
              "commit (default 64; 1: one at a time)" },
    { .name = "rate", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_DOUBLE, .offset = CHAINDATA_M(http.rate),
      .min = 0, .max = 1e6, .arg = "R",
      .help = "requests per second at most; 0: any (default: any for "
              "upstreams on this host, "
              CHAINDATA_OPT_STR(CHAINDATA_PUBLIC_RATE) " for others, a "
              "public API's pace)" },
    { .name = "http", .kind = CHAINDATA_OPT_PART,
      .offset = CHAINDATA_M(http), .part = chaindata_http_options },
    { .name = "retries", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_M(http.retries),
      .min = 0, .max = 100, .arg = "N",
      .help = "tries again after a 429, a 5xx, a timeout or a wrong answer "
              "(default 8)" },
    { .name = "timeout", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_MSEC, .offset = CHAINDATA_M(http.timeout_ms),
      .min = 0.1, .max = 3600, .arg = "S",
      .help = "per request (default 30)" },
    { .name = "max-wait", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_DOUBLE, .offset = CHAINDATA_M(http.max_wait),
      .min = 0.1, .max = 86400, .arg = "S",
      .help = "the longest wait: a 429's Retry-After, a retry's or a "
              "failing feed's backoff (default 60; those two also at most "
              "--interval, at least 1 s)" },
    { .name = "map-size", .kind = CHAINDATA_OPT_SIZE,
      .offset = CHAINDATA_M(in.ix.map_size), .arg = "SIZE" },
    { .name = "max-map-size", .kind = CHAINDATA_OPT_SIZE,
      .offset = CHAINDATA_M(in.ix.max_map_size), .arg = "SIZE",
      .help = "as chaindata-load" },
    { .name = "nats", .kind = CHAINDATA_OPT_PART,
      .offset = CHAINDATA_M(nats), .part = chaindata_nats_options,
      .title = "Publishing to a fan-out stream (chaindata-mirror(1)): each "
               "block is published, then committed to DIR, the working "
               "index:" },
    { .name = "nats-publisher", .kind = CHAINDATA_OPT_PART,
      .offset = CHAINDATA_M(nats), .part = chaindata_nats_publisher_options },
    { .name = "help", .kind = CHAINDATA_OPT_ACTION, .key = 'h',
      .set = chaindata_mirror_help, .title = "" },
    { .name = "version", .kind = CHAINDATA_OPT_ACTION,
      .set = chaindata_mirror_version, .help = "this text; the version" },
    { .name = NULL }
};


static int
chaindata_mirror_help(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    chaindata_options_usage(stdout, chaindata_mirror_head,
                            chaindata_mirror_options, chaindata_mirror_tail);
    exit(CHAINDATA_EXIT_OK);
}


/*
 * --config FILE: its variables made words as the unit's ExecStart= makes
 * them (CHAINDATA_MIRROR_EXEC_START, taken from the unit by the
 * Makefile), read as options after the command line's, which win (p
 * knows what it took); a variable ExecStart= does not name is put in the
 * environment, as systemd would, unless it has one by that name.
 */

static int
chaindata_mirror_config(chaindata_mirror_t *m, chaindata_opt_parse_t *p)
{
    size_t               i;
    chaindata_envfile_t  *f;

    f = &m->config;

    if (chaindata_envfile_read(f, "chaindata-mirror", m->config_file) != 0
        || chaindata_envfile_words(f, "chaindata-mirror",
                                   CHAINDATA_MIRROR_EXEC_START)
           != 0)
    {
        return -1;
    }

    for (i = 0; i < f->n; i++) {
        if (!f->vars[i].used
            && setenv(f->vars[i].name, f->vars[i].value, 0) != 0)
        {
            fprintf(stderr, "chaindata-mirror: %s:%u: %s cannot be set\n",
                    f->path, f->vars[i].line, f->vars[i].name);
            return -1;
        }
    }

    p->where = f->where;

    if (chaindata_options_parse(p, (int) f->nwords, f->words) != 0) {
        return -1;
    }

    if ((size_t) optind != f->nwords) {
        fprintf(stderr, "%s: unexpected argument \"%s\"\n", f->where[optind],
                f->words[optind]);
        return -1;
    }

    return 0;
}


static int
chaindata_mirror_args(chaindata_mirror_t *m, int argc, char **argv)
{
    chaindata_opt_parse_t  p = { .prog = "chaindata-mirror",
                                 .opts = chaindata_mirror_options,
                                 .conf = m };

    /* the command line first: a --config file's options come after it */
    if (chaindata_options_parse(&p, argc, argv) != 0) {
        return -1;
    }

    if (optind != argc) {
        fprintf(stderr, "chaindata-mirror: unexpected argument \"%s\"\n",
                argv[optind]);
        return -1;
    }

    if (m->config_file && chaindata_mirror_config(m, &p) != 0) {
        return -1;
    }

    if (m->db_path == NULL || m->db_path[0] == '\0') {
        fprintf(stderr, "chaindata-mirror: --db DIR is required\n");
        return -1;
    }

    if (m->stacks_api == NULL && m->runes_api == NULL
        && m->platform_api == NULL)
    {
        fprintf(stderr, "chaindata-mirror: name a source: --stacks-api, "
                "--runes-api or --platform-api\n");
        return -1;
    }

    if ((m->platform_api == NULL) != (m->chainhooks_file == NULL)) {
        fprintf(stderr, "chaindata-mirror: --platform-api and --chainhooks "
                "go together\n");
        return -1;
    }

    if (m->chainhooks_file && chaindata_chainhooks_read(m) != 0) {
        return -1;
    }

    m->http.base[CHAINDATA_SOURCE_STACKS] = m->stacks_api;
    m->http.base[CHAINDATA_SOURCE_RUNES] = m->runes_api;
    m->http.base[CHAINDATA_SOURCE_PLATFORM] = m->platform_api;

    if (chaindata_http_bind(&m->http) != 0) {
        return -1;
    }

    m->nats.prog = "chaindata-mirror";

    if (m->nats.url && chaindata_nats_check(&m->nats) != 0) {
        return -1;
    }

    if (m->nats.key_file && m->nats.url == NULL) {
        fprintf(stderr, "chaindata-mirror: --nats-sign-key goes with "
                "--nats\n");
        return -1;
    }

    if (m->in.ix.map_size > m->in.ix.max_map_size) {
        m->in.ix.max_map_size = m->in.ix.map_size;
    }

    return 0;
}


/*
 * One mirror per index, and one writer of its Stacks and Runes feeds (a
 * mirror of either, or a stream follower; a mirror of chainhooks alone
 * runs beside a follower): locks held while it runs, released by exit.
 */

static int
chaindata_mirror_lock(chaindata_mirror_t *m)
{
    if (chaindata_index_writer_lock(m->db_path, CHAINDATA_MIRROR_LOCK,
                                    "chaindata-mirror")
        == -1)
    {
        return -1;
    }

    if ((m->stacks_api || m->runes_api)
        && chaindata_index_writer_lock(m->db_path, CHAINDATA_FEEDS_LOCK,
                                       "chaindata-mirror")
           == -1)
    {
        return -1;
    }

    return 0;
}


int
main(int argc, char **argv)
{
    int                  rc;
    chaindata_mirror_t   m;

    /* it holds API keys: no core dump, no ptrace by the same user */
    chaindata_secret_nodump();
    chaindata_index_files_umask();

    memset(&m, 0, sizeof(m));
    m.interval = 5;
    m.hooks.interval = 30;
    m.max_reorg = chaindata_feed_reorg_default("stacks");
    m.runes.max_reorg = chaindata_feed_reorg_default("runes");
    m.runes.fill_window = CHAINDATA_FILL_BLOCKS;
    m.http.m = &m;
    m.http.parallel = CHAINDATA_PARALLEL;
    m.http.max_body = CHAINDATA_BODY_BUDGET;
    m.ahead = 64;
    m.pending.batch = CHAINDATA_MEMPOOL_V3_BATCH;
    m.http.retries = 8;
    m.http.timeout_ms = 30000;
    m.http.rate = -1;
    m.http.max_wait = 60;
    m.in.ix.prog = "chaindata-mirror";
    m.in.ix.map_size = CHAINDATA_MAP_SIZE;
    m.in.ix.max_map_size = CHAINDATA_MAX_MAP_SIZE;
    m.in.ix.max_readers = CHAINDATA_MAX_READERS;

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        fprintf(stderr, "chaindata-mirror: cannot initialise libcurl\n");
        return CHAINDATA_EXIT_SYSTEM;
    }

    if (chaindata_mirror_args(&m, argc, argv) != 0) {
        /* the error is said above: where to read more, not all of it */
        fprintf(stderr, "Try \"chaindata-mirror --help\" for more.\n");
        chaindata_http_free(&m.http);       /* what was taken so far */
        chaindata_chainhooks_free(&m);
        chaindata_envfile_free(&m.config);
        return CHAINDATA_EXIT_USAGE;
    }

    if (chaindata_nats_secrets(&m.nats) != 0) {
        chaindata_http_free(&m.http);
        chaindata_envfile_free(&m.config);
        return CHAINDATA_EXIT_USAGE;
    }

    chaindata_signal_stop(&chaindata_mirror_stop);

    srand((unsigned) time(NULL) ^ (unsigned) getpid());

    chaindata_follow_init(&m);
    m.tty = isatty(STDERR_FILENO);
    m.nats.tty = m.tty;
    m.nats.stop = &chaindata_mirror_stop;
    chaindata_mirror_default_rate(&m);
    m.started = chaindata_now();
    m.in.ix.path = m.db_path;

    rc = CHAINDATA_EXIT_SYSTEM;

    if (chaindata_ingest_init(&m.in) == 0
        && chaindata_http_init(&m.http) == 0
        && chaindata_index_open(&m.in.ix) == 0
        && chaindata_mirror_lock(&m) == 0)
    {
        rc = m.nats.url ? chaindata_pub_start(&m.pub, &m.nats, &m.in)
                        : CHAINDATA_EXIT_OK;
        rc = rc == CHAINDATA_EXIT_OK && !chaindata_mirror_stop
             ? chaindata_follow_run(&m) : rc;
    }

    if (m.tty) {
        fputc('\n', stderr);
    }

    chaindata_http_free(&m.http);
    chaindata_mempool_free(&m);
    chaindata_chainhooks_free(&m);
    chaindata_runes_above_free(&m);
    chaindata_pub_free(m.pub);
    chaindata_nats_close(&m.nats);
    chaindata_ingest_free(&m.in);
    chaindata_nats_secrets_free(&m.nats);
    chaindata_envfile_free(&m.config);
    curl_global_cleanup();

    return rc;
}
