
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

#include "chaindata_index_files.h"
#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"
#include "chaindata_options.h"
#include "chaindata_secret.h"
#include "chaindata_signal.h"


static void
chaindata_mirror_usage(FILE *out)
{
    fprintf(out,
        "usage: chaindata-mirror --db DIR [--stacks-api URL]\n"
        "       [--runes-api URL] [--platform-api URL --chainhooks FILE]\n"
        "       [options]\n"
        "\n"
        "Keeps the chaindata index at DIR current from the upstream APIs:\n"
        "each upstream block is committed whole, with the feed position.\n"
        "\n"
        "  --db DIR            index directory, created if missing\n"
        "  --stacks-api URL    a Stacks API (stacks-blockchain-api)\n"
        "  --runes-api URL     a Runes API (runehook, bitcoin-indexer)\n"
        "  --from-height H     the first Stacks block, when DIR has no\n"
        "                      position (default: upstream's tip)\n"
        "  --runes-from-height H   the same for the first Bitcoin block\n"
        "  --max-reorg-depth N  Stacks blocks a reorg may undo (default\n"
        "                      1000); upstream disagreeing deeper stops\n"
        "                      the feed, the index unchanged\n"
        "  --runes-max-reorg-depth N   the same for Bitcoin blocks (100)\n"
        "  --catch-up MODE     how the runes feed catches up: fill (every\n"
        "                      transaction and address once, then follow),\n"
        "                      replay (block by block), auto (the default:\n"
        "                      fill when more than 144 blocks behind)\n"
        "  --catch-up-window N   blocks a fill holds at once at most\n"
        "                      (default 2048; none added past 256 MB\n"
        "                      of writes, the balance lists on top)\n"
        "  --no-mempool        Stacks blocks only, not the mempool\n"
        "  --mempool-v3-batch N   new pending transactions whose v3\n"
        "                      receipt_block_height is asked at once,\n"
        "                      one request for N at most (default 20)\n"
        "  --platform-api URL  the platform API serving chainhook statuses\n"
        "  --chainhooks FILE   its chainhooks, \"uuid api_key\" lines; the\n"
        "                      file must not be readable by group or others\n"
        "  --chainhooks-interval S   seconds between status polls (30)\n"
        "  --once              catch up, then exit\n"
        "  --follow            catch up, then poll (the default)\n"
        "  --interval S        seconds between polls (default 5)\n"
        "  --parallel N        concurrent requests (default 16), across\n"
        "                      the blocks in flight\n"
        "  --max-body-bytes SIZE   the answers being received, all\n"
        "                      together, decoded, at most (default 128M;\n"
        "                      K, M, G): one larger fails\n"
        "  --blocks-ahead N    Stacks blocks in flight: fetched while the\n"
        "                      ones below commit (default 64; 1: one at\n"
        "                      a time)\n"
        "  --rate R            requests per second at most; 0: any\n"
        "                      (default: any for upstreams on this host,\n"
        "                      0.75 for others, a public API's pace)\n"
        "  --stacks-header 'H: V'   a request header for the Stacks API\n"
        "                      alone, e.g. its API key (repeatable;\n"
        "                      never logged); --runes-header and\n"
        "                      --platform-header for the others\n"
        "  --stacks-header-file F   its headers from a file, one a line\n"
        "                      (chmod 600; a bare name is a systemd\n"
        "                      credential); --runes-header-file and\n"
        "                      --platform-header-file for the others\n"
        "  --header 'H: V'     a header for the one source there is\n"
        "  --retries N         tries again after a 429, a 5xx, a timeout\n"
        "                      or a wrong answer (default 8)\n"
        "  --timeout S         per request (default 30)\n"
        "  --max-wait S        the longest wait: a 429's Retry-After, a\n"
        "                      retry's or a failing feed's backoff\n"
        "                      (default 60; those two also at most\n"
        "                      --interval, at least 1 s)\n"
        "  --map-size SIZE, --max-map-size SIZE   as chaindata-load\n"
        "\n"
        "Publishing to a fan-out stream (chaindata-mirror(1)): each\n"
        "block is published, then committed to DIR, the working index:\n"
        CHAINDATA_NATS_HELP
        "  --max-msgs N        when it creates the stream: keep N messages\n"
        "                      (default: all)\n"
        "  --nats-sign-key FILE   sign each unit with this Ed25519 private\n"
        "                      key (PEM, chmod 600; followers verify with\n"
        "                      its public key: lmdb-schema/feed.md)\n"
        "\n"
        "  --help, --version   this text; the version\n"
        "\n"
        "exit status: 0 caught up (--once) or stopped by a signal,\n"
        "1 upstream answered wrongly or with a 4xx, persistently,\n"
        "2 usage, 3 index or system error (another mirror runs on DIR)\n");
}


/* an http:// or https:// base URL, trailing slashes dropped */

static int
chaindata_mirror_url(void *conf, const chaindata_opt_t *o, char *url)
{
    size_t  n;

    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
    {
        fprintf(stderr, "chaindata-mirror: --%s wants an http:// or "
                "https:// URL\n", o->name);
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
chaindata_mirror_from(void *conf, const chaindata_opt_t *o, char *arg)
{
    chaindata_mirror_t  *m = conf;

    *(o->offset == offsetof(chaindata_mirror_t, from_height)
      ? &m->has_from : &m->runes.has_from) = 1;

    return 0;
}


static int
chaindata_mirror_catch_up(void *conf, const chaindata_opt_t *o, char *arg)
{
    chaindata_mirror_t  *m = conf;

    if (chaindata_runes_catch_up_mode(arg, &m->runes.catch_up) != 0) {
        fprintf(stderr, "chaindata-mirror: --catch-up: \"%s\" is not auto, "
                "fill or replay\n", arg);
        return -1;
    }

    return 0;
}


static int
chaindata_mirror_help(void *conf, const chaindata_opt_t *o, char *arg)
{
    chaindata_mirror_usage(stdout);
    exit(CHAINDATA_EXIT_OK);
}


static int
chaindata_mirror_version(void *conf, const chaindata_opt_t *o, char *arg)
{
    /* CHAINDATA_VERSION: the Makefile's, from debian/changelog */
    printf("chaindata-mirror %s\n", CHAINDATA_VERSION);
    exit(CHAINDATA_EXIT_OK);
}


/* the options of other rooms' tables: the request headers, NATS */

static int
chaindata_mirror_other(void *conf, int c, char *arg)
{
    int                  rc;
    chaindata_mirror_t  *m = conf;

    rc = chaindata_http_option(&m->http, c, arg);

    return rc != 0 ? rc : chaindata_nats_option(&m->nats, c, arg);
}


#define CHAINDATA_M(field)  offsetof(chaindata_mirror_t, field)

/* the options (doc/mirror.md "Options"), the usage above says them */
static const chaindata_opt_t  chaindata_mirror_options[] = {
    { .name = "db", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(db_path) },
    { .name = "stacks-api", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(stacks_api), .set = chaindata_mirror_url },
    { .name = "runes-api", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(runes_api), .set = chaindata_mirror_url },
    { .name = "platform-api", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(platform_api), .set = chaindata_mirror_url },
    { .name = "chainhooks", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_M(chainhooks_file) },
    { .name = "from-height", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_M(from_height),
      .min = 0, .max = 1e15, .set = chaindata_mirror_from },
    { .name = "runes-from-height", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_M(runes.from_height),
      .min = 0, .max = 1e15, .set = chaindata_mirror_from },
    { .name = "max-reorg-depth", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_M(max_reorg),
      .min = 1, .max = 1e9 },
    { .name = "runes-max-reorg-depth", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_M(runes.max_reorg),
      .min = 1, .max = 1e9 },
    { .name = "catch-up", .kind = CHAINDATA_OPT_CALL,
      .set = chaindata_mirror_catch_up },
    { .name = "catch-up-window", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_SIZE_T, .offset = CHAINDATA_M(runes.fill_window),
      .min = 1, .max = CHAINDATA_FILL_BLOCKS },
    { .name = "no-mempool", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_M(no_mempool), .value = 1 },
    { .name = "mempool-v3-batch", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_M(pending.batch),
      .min = 1, .max = 1000 },
    { .name = "chainhooks-interval", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_DOUBLE, .offset = CHAINDATA_M(hooks.interval),
      .min = 0.01, .max = 86400 },
    { .name = "once", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_M(once), .value = 1 },
    { .name = "follow", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_M(once), .value = 0 },
    { .name = "interval", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_DOUBLE, .offset = CHAINDATA_M(interval),
      .min = 0.01, .max = 86400 },
    { .name = "parallel", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_M(http.parallel),
      .min = 1, .max = 256 },
    { .name = "max-body-bytes", .kind = CHAINDATA_OPT_SIZE,
      .offset = CHAINDATA_M(http.max_body), .min = 65536 },
    { .name = "blocks-ahead", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_M(ahead),
      .min = 1, .max = 1024 },
    { .name = "rate", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_DOUBLE, .offset = CHAINDATA_M(http.rate),
      .min = 0, .max = 1e6 },
    { .name = "retries", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_M(http.retries),
      .min = 0, .max = 100 },
    { .name = "timeout", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_MSEC, .offset = CHAINDATA_M(http.timeout_ms),
      .min = 0.1, .max = 3600 },
    { .name = "max-wait", .kind = CHAINDATA_OPT_NUMBER,
      .type = CHAINDATA_OPT_DOUBLE, .offset = CHAINDATA_M(http.max_wait),
      .min = 0.1, .max = 86400 },
    { .name = "map-size", .kind = CHAINDATA_OPT_SIZE,
      .offset = CHAINDATA_M(in.ix.map_size) },
    { .name = "max-map-size", .kind = CHAINDATA_OPT_SIZE,
      .offset = CHAINDATA_M(in.ix.max_map_size) },
    { .name = "help", .kind = CHAINDATA_OPT_ACTION, .key = 'h',
      .set = chaindata_mirror_help },
    { .name = "version", .kind = CHAINDATA_OPT_ACTION,
      .set = chaindata_mirror_version },
    { .name = NULL }
};


static int
chaindata_mirror_args(chaindata_mirror_t *m, int argc, char **argv)
{
    static const struct option  more[] = {
        CHAINDATA_NATS_OPTIONS,
        CHAINDATA_NATS_OPTION_MAX_MSGS,
        CHAINDATA_NATS_OPTION_SIGN_KEY,
        CHAINDATA_HTTP_OPTIONS,
        { NULL, 0, NULL, 0 }
    };

    if (chaindata_options_parse("chaindata-mirror", chaindata_mirror_options,
                                more, chaindata_mirror_other, m, argc, argv)
        != 0)
    {
        return -1;
    }

    if (optind != argc) {
        fprintf(stderr, "chaindata-mirror: unexpected argument \"%s\"\n",
                argv[optind]);
        return -1;
    }

    if (m->db_path == NULL) {
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
        return CHAINDATA_EXIT_USAGE;
    }

    if (chaindata_nats_secrets(&m.nats) != 0) {
        chaindata_http_free(&m.http);
        return CHAINDATA_EXIT_USAGE;
    }

    chaindata_signal_stop(&chaindata_mirror_stop);

    srand((unsigned) time(NULL) ^ (unsigned) getpid());

    chaindata_follow_init(&m);
    m.tty = isatty(STDERR_FILENO);
    chaindata_mirror_default_rate(&m);
    m.started = chaindata_now();
    m.in.ix.path = m.db_path;

    rc = CHAINDATA_EXIT_SYSTEM;

    if (chaindata_ingest_init(&m.in) == 0
        && chaindata_http_init(&m.http) == 0
        && chaindata_index_open(&m.in.ix) == 0
        && chaindata_mirror_lock(&m) == 0)
    {
        rc = m.nats.url ? chaindata_pub_start(&m) : CHAINDATA_EXIT_OK;
        rc = rc == CHAINDATA_EXIT_OK ? chaindata_follow_run(&m)
             : rc == CHAINDATA_MIRROR_STOPPED ? CHAINDATA_EXIT_OK : rc;
    }

    if (m.tty) {
        fputc('\n', stderr);
    }

    chaindata_http_free(&m.http);
    chaindata_mempool_free(&m);
    chaindata_chainhooks_free(&m);
    chaindata_runes_above_free(&m);
    chaindata_pub_free(&m);
    chaindata_ingest_free(&m.in);
    chaindata_nats_secrets_free(&m.nats);
    curl_global_cleanup();

    return rc;
}
