
/*
 * chaindata-load: builds and updates the LMDB index from NDJSON records
 * while nginx serves it.
 *
 * Every record of a batch is validated before the batch's single write
 * transaction begins; a bad line rejects its whole batch, so readers only
 * ever see whole batches.  See lmdb-schema/README.md for the format.
 */


#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>

#include "chaindata_index_files.h"
#include "chaindata_ingest.h"
#include "chaindata_schema.h"
#include "chaindata_load.h"
#include "chaindata_load_nats.h"
#include "chaindata_options.h"
#include "chaindata_progress.h"
#include "chaindata_secret.h"
#include "chaindata_status.h"


#define CHAINDATA_BATCH_BYTES    ((size_t) 256 * 1024 * 1024)


typedef struct {
    const char                     *db_path;
    size_t                          batch;
    size_t                          map_size;
    size_t                          max_map_size;
    unsigned int                    max_readers;
    int                             skip_invalid;
    int                             quiet;
    int                             follow;
    int                             stats;
    int                             once;
    uint64_t                        max_depth;  /* --max-reorg-depth */
    chaindata_nats_t                nats;     /* --nats: the follower */
    int                             bulk;
    const char                     *snapshot;
    double                          progress_interval;
    chaindata_progress_t            progress;

    chaindata_ingest_t              in;

    /* the batch being collected */
    const char                     *file;
    size_t                          first_line;
    size_t                          records;
    size_t                          bad;

    /* totals */
    size_t                          applied[CHAINDATA_REC_KINDS];
    size_t                          pending[CHAINDATA_REC_KINDS];
    size_t                          batches;
    size_t                          blocks;
    size_t                          rollbacks;
    size_t                          skipped;
    size_t                          unknown;  /* records with new things */
} chaindata_loader_t;


/* applies the collected writes in one transaction, growing the map */

static int
chaindata_commit_batch(chaindata_loader_t *ld, size_t line)
{
    int           rc;
    size_t        i;
    MDB_envinfo   info;

    rc = chaindata_index_commit(&ld->in.ix, &ld->in.ws);

    if (rc == CHAINDATA_INDEX_REFUSED) {
        fprintf(stderr, "chaindata-load: %s:%llu: %s\n"
                "chaindata-load: %s: batch of lines %zu-%zu rejected; none "
                "of it was applied\n", ld->file,
                (unsigned long long) ld->in.ix.refused_label,
                ld->in.ix.refused, ld->file, ld->first_line, line);
        return CHAINDATA_EXIT_INPUT;
    }

    if (rc == MDB_MAP_FULL) {
        (void) mdb_env_info(ld->in.ix.env, &info);
        fprintf(stderr, "chaindata-load: %s: lines %zu-: the index is "
                "full at its map size of %zu bytes (--max-map-size); "
                "batch not applied\n", ld->file, ld->first_line,
                (size_t) info.me_mapsize);
        return CHAINDATA_EXIT_SYSTEM;
    }

    if (rc != 0) {
        /* LMDB reports a failed write, a full disk included, as EIO */
        fprintf(stderr, "chaindata-load: %s: batch from line %zu not "
                "applied: %s%s\n", ld->file, ld->first_line,
                chaindata_index_strerror(rc),
                rc == EIO || rc == ENOSPC
                ? " (writing the index failed: is its disk full?)" : "");
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0; i < CHAINDATA_REC_KINDS; i++) {
        ld->applied[i] += ld->pending[i];
    }

    ld->batches++;

    return CHAINDATA_EXIT_OK;
}


/* ends the batch: applies it, or reports it rejected */

static int
chaindata_end_batch(chaindata_loader_t *ld, size_t line)
{
    int  rc;

    rc = CHAINDATA_EXIT_OK;

    if (ld->bad) {
        fprintf(stderr, "chaindata-load: %s: batch of lines %zu-%zu "
                "rejected (%zu invalid); none of it was applied\n",
                ld->file, ld->first_line, line, ld->bad);
        rc = CHAINDATA_EXIT_INPUT;

    } else if (ld->in.ws.nwrites) {
        rc = chaindata_commit_batch(ld, line);
    }

    chaindata_writeset_reset(&ld->in.ws);
    memset(ld->pending, 0, sizeof(ld->pending));
    ld->records = 0;
    ld->bad = 0;
    ld->first_line = line + 1;

    return rc;
}


int
chaindata_load_is_blank(const char *s, size_t len)
{
    while (len--) {
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
            return 0;
        }

        s++;
    }

    return 1;
}


/* a line refused: it rejects its batch, or is skipped (--skip-invalid) */

static void
chaindata_load_refused(chaindata_loader_t *ld, size_t lineno)
{
    fprintf(stderr, "chaindata-load: %s:%zu: %s\n", ld->file, lineno,
            ld->in.err);

    if (ld->skip_invalid) {
        ld->skipped++;

    } else {
        ld->bad++;
    }
}


/*
 * A record holding a member or a value the schema does not know yet (one
 * upstream added): stored as given, said for the first few, counted.
 */

#define CHAINDATA_LOAD_UNKNOWN_SAID  10

static void
chaindata_load_unknown(chaindata_loader_t *ld, size_t lineno)
{
    if (ld->unknown++ < CHAINDATA_LOAD_UNKNOWN_SAID) {
        fprintf(stderr, "chaindata-load: %s:%zu: stored as given, with what "
                "the schema does not know yet: %s%s\n", ld->file, lineno,
                ld->in.rec.unknown_what,
                ld->in.rec.unknown > 1 ? " (and more)" : "");
    }
}


/*
 * One line.  A block is a batch of its own: the records before it are
 * committed first, its own with the feed position at its block_end.  A
 * rollback is committed with the records before it (lmdb-schema/feed.md).
 */

static int
chaindata_load_line(chaindata_loader_t *ld, const char *line, size_t n,
    size_t lineno)
{
    int  rc;

    ld->in.ws.label = lineno;
    rc = chaindata_ingest_line(&ld->in, (const unsigned char *) line, n);

    if (rc != 0) {
        chaindata_load_refused(ld, lineno);
    }

    switch (ld->in.frame) {

    case CHAINDATA_FRAME_BLOCK:
        return rc == 0 ? chaindata_end_batch(ld, lineno - 1)
                       : CHAINDATA_EXIT_OK;

    case CHAINDATA_FRAME_ROLLBACK:
        if (rc != 0) {
            return CHAINDATA_EXIT_OK;
        }

        ld->rollbacks++;

        return chaindata_end_batch(ld, lineno);

    case CHAINDATA_FRAME_END:
        if (rc == 0) {
            ld->blocks++;
        }

        return chaindata_end_batch(ld, lineno);

    default:
        break;
    }

    if (rc == 0 && !ld->in.replayed) {
        ld->pending[ld->in.rec.kind]++;

        if (ld->in.rec.unknown) {
            chaindata_load_unknown(ld, lineno);
        }
    }

    if (!ld->in.feed.open
        && (++ld->records >= ld->batch || ld->follow
            || ld->in.ws.len >= CHAINDATA_BATCH_BYTES))
    {
        return chaindata_end_batch(ld, lineno);
    }

    return CHAINDATA_EXIT_OK;
}


static int
chaindata_load_stream(chaindata_loader_t *ld, FILE *in,
    const char *name)
{
    int       rc;
    char     *line;
    size_t    cap, lineno;
    ssize_t   n;
    int       blank;

    line = NULL;
    cap = 0;
    lineno = 0;
    rc = CHAINDATA_EXIT_OK;

    ld->file = name;
    ld->first_line = 1;

    while ((n = getline(&line, &cap, in)) != -1) {
        lineno++;

        blank = chaindata_load_is_blank(line, n);
        chaindata_progress_add(&ld->progress, !blank, (uint64_t) n);

        if (blank) {
            continue;
        }

        rc = chaindata_load_line(ld, line, n, lineno);
        if (rc != CHAINDATA_EXIT_OK) {
            break;
        }
    }

    if (rc == CHAINDATA_EXIT_OK && ferror(in)) {
        fprintf(stderr, "chaindata-load: %s: read error: %s\n", name,
                strerror(errno));
        rc = CHAINDATA_EXIT_SYSTEM;
        chaindata_writeset_reset(&ld->in.ws);
    }

    if (rc == CHAINDATA_EXIT_OK && ld->in.feed.open) {
        fprintf(stderr, "chaindata-load: %s: the input ends inside block "
                "%llu of %s (no block_end): the block was not applied\n",
                name, (unsigned long long) ld->in.feed.height,
                ld->in.feed.source);
        chaindata_feed_abandon(&ld->in.feed);
        chaindata_writeset_reset(&ld->in.ws);
        rc = CHAINDATA_EXIT_INPUT;
    }

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_end_batch(ld, lineno);
    }

    free(line);

    return rc;
}


/* --bulk: chaindata_load_bulk.c, its totals into the summary's */

static int
chaindata_load_bulk(chaindata_loader_t *ld, int nfiles, char **files)
{
    int               rc;
    size_t            i;
    chaindata_bulk_t  bk;

    memset(&bk, 0, sizeof(chaindata_bulk_t));
    bk.batch = ld->batch;
    bk.skip_invalid = ld->skip_invalid;
    bk.progress = &ld->progress;

    rc = chaindata_bulk_load(&ld->in.ix, &bk, nfiles, files);

    for (i = 0; i < CHAINDATA_REC_KINDS; i++) {
        ld->applied[i] += bk.applied[i];
    }

    ld->batches += bk.batches;
    ld->skipped += bk.skipped;
    ld->unknown += bk.unknown;

    return rc;
}


static int
chaindata_load_files(chaindata_loader_t *ld, int nfiles,
    char **files)
{
    int    i, rc;
    FILE  *in;

    /* every file is checked first: a typo must not load half the input */
    for (i = 0; i < nfiles; i++) {
        if (strcmp(files[i], "-") != 0 && access(files[i], R_OK) != 0) {
            fprintf(stderr, "chaindata-load: cannot read %s: %s\n", files[i],
                    strerror(errno));
            return CHAINDATA_EXIT_SYSTEM;
        }
    }

    /* a producer's pipe (--follow) is no long job with an end */
    chaindata_progress_init(&ld->progress, "chaindata-load", "records",
                            !ld->quiet && !ld->follow, ld->progress_interval,
                            chaindata_progress_input_size(nfiles, files));

    if (ld->bulk) {
        return chaindata_load_bulk(ld, nfiles, files);
    }

    if (nfiles == 0) {
        return chaindata_load_stream(ld, stdin, "<stdin>");
    }

    for (i = 0; i < nfiles; i++) {
        if (strcmp(files[i], "-") == 0) {
            rc = chaindata_load_stream(ld, stdin, "<stdin>");

        } else {
            in = fopen(files[i], "r");
            if (in == NULL) {
                fprintf(stderr, "chaindata-load: cannot open %s: %s\n",
                        files[i], strerror(errno));
                return CHAINDATA_EXIT_SYSTEM;
            }

            rc = chaindata_load_stream(ld, in, files[i]);
            fclose(in);
        }

        if (rc != CHAINDATA_EXIT_OK) {
            return rc;
        }
    }

    return CHAINDATA_EXIT_OK;
}


/* every input file named can be read: 0, or -1 (said) */

static int
chaindata_files_readable(int nfiles, char **files)
{
    int  i;

    for (i = 0; i < nfiles; i++) {
        if (strcmp(files[i], "-") != 0 && access(files[i], R_OK) != 0) {
            fprintf(stderr, "chaindata-load: cannot open %s: %s\n",
                    files[i], strerror(errno));
            return -1;
        }
    }

    return 0;
}


static void
chaindata_summary(chaindata_loader_t *ld)
{
    size_t  i;

    if (ld->quiet) {
        return;
    }

    fprintf(stderr, "chaindata-load: %s: %zu batches committed (",
            ld->db_path, ld->batches);

    for (i = 0; i < CHAINDATA_REC_KINDS; i++) {
        fprintf(stderr, "%s%zu %s", i ? ", " : "", ld->applied[i],
                chaindata_rec_names[i]);
    }

    fprintf(stderr, ")");

    if (ld->blocks || ld->rollbacks) {
        fprintf(stderr, ", %zu blocks, %zu rollbacks", ld->blocks,
                ld->rollbacks);
    }

    if (ld->skipped) {
        fprintf(stderr, ", %zu invalid lines skipped", ld->skipped);
    }

    if (ld->unknown) {
        fprintf(stderr, ", %zu records with what the schema does not know "
                "yet, stored as given", ld->unknown);
    }

    fprintf(stderr, "\n");
}


static int
chaindata_load_version(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    /* CHAINDATA_VERSION: the Makefile's, from debian/changelog */
    printf("chaindata-load %s\n", CHAINDATA_VERSION);
    exit(CHAINDATA_EXIT_OK);
}


/* --help: its head and its tail, the options between from the table */
static const char  chaindata_load_head[] =
    "usage: chaindata-load --db DIR [options] [FILE ...]\n"
    "\n"
    "Loads NDJSON ingest records (lmdb-schema/README.md) into the\n"
    "chaindata index at DIR; no FILE or \"-\" reads standard input.\n";

static const char  chaindata_load_tail[] =
    "exit status: 0 loaded, 1 input rejected, 2 usage, "
    "3 index or system error\n";


static int chaindata_load_help(void *conf, const chaindata_opt_t *o,
    char *arg, const char *prog);


#define CHAINDATA_L(field)  offsetof(chaindata_loader_t, field)

/* the options (doc/loader.md "Options") and their usage */
static const chaindata_opt_t  chaindata_load_options[] = {
    { .name = "db", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_L(db_path), .arg = "DIR",
      .help = "index directory, created if missing" },
    { .name = "batch", .kind = CHAINDATA_OPT_COUNT,
      .type = CHAINDATA_OPT_SIZE_T, .offset = CHAINDATA_L(batch),
      .arg = "N", .help = "records per write transaction (default 1000)" },
    { .name = "skip-invalid", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_L(skip_invalid), .value = 1,
      .help = "report invalid lines and load the rest" },
    { .name = "map-size", .kind = CHAINDATA_OPT_SIZE,
      .offset = CHAINDATA_L(map_size), .arg = "SIZE",
      .help = "map size to start with (default 1G, or the index's own if "
              "larger); K, M, G, T suffixes" },
    { .name = "max-map-size", .kind = CHAINDATA_OPT_SIZE,
      .offset = CHAINDATA_L(max_map_size), .arg = "SIZE",
      .help = "the map doubles when full, up to this (default 1T)" },
    { .name = "max-readers", .kind = CHAINDATA_OPT_COUNT,
      .type = CHAINDATA_OPT_UINT, .offset = CHAINDATA_L(max_readers),
      .max = CHAINDATA_MAX_READERS_LIMIT, .arg = "N",
      .help = "LMDB reader slots, when this loader is the first to open "
              "the index (default "
              CHAINDATA_OPT_STR(CHAINDATA_MAX_READERS) ")" },
    { .name = "quiet", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_L(quiet), .value = 1,
      .help = "no summary and no progress on standard error" },
    { .name = "progress-interval", .kind = CHAINDATA_OPT_SECONDS,
      .offset = CHAINDATA_L(progress_interval), .arg = "SECONDS",
      .help = "seconds between progress lines when standard error is no "
              "terminal (default "
              CHAINDATA_OPT_STR(CHAINDATA_PROGRESS_INTERVAL) "; on a "
              "terminal the line is redrawn)" },
    { .name = "follow", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_L(follow), .value = 1,
      .help = "commit every record and every block as soon as it is read "
              "(a producer's pipe)" },
    { .name = "stats", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_L(stats), .value = 1,
      .help = "print the index's status as JSON (what chaindata_status "
              "serves) and exit" },
    { .name = "snapshot", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_L(snapshot), .arg = "OUT",
      .help = "write a compact copy of the index, taken while it is "
              "served and written, to the new directory OUT (data.mdb) "
              "and exit" },
    { .name = "bulk", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_L(bulk), .value = 1,
      .help = "a fast first fill: records parsed on every core, larger "
              "batches (default " CHAINDATA_OPT_STR(CHAINDATA_BULK_BATCH)
              ") of upserts in key order, the index synced once at the "
              "end; a run cut short leaves DIR/bulk-load.unfinished and "
              "is rerun into a new DIR; no block framing" },
    { .name = "max-reorg-depth", .kind = CHAINDATA_OPT_COUNT,
      .type = CHAINDATA_OPT_U64, .offset = CHAINDATA_L(max_depth),
      .arg = "N",
      .help = "refuse a rollback undoing more than N blocks of a source "
              "(default: stacks 1000, runes 100; lmdb-schema/feed.md)" },
    { .name = "nats", .kind = CHAINDATA_OPT_PART,
      .offset = CHAINDATA_L(nats), .part = chaindata_nats_options,
      .title = "Following a fan-out stream (chaindata-load(1)), no FILE:" },
    { .name = "once", .kind = CHAINDATA_OPT_FLAG,
      .offset = CHAINDATA_L(once), .value = 1,
      .help = "up to the stream's last message, then exit" },
    { .name = "nats-follower", .kind = CHAINDATA_OPT_PART,
      .offset = CHAINDATA_L(nats), .part = chaindata_nats_follower_options },
    { .name = "help", .kind = CHAINDATA_OPT_ACTION, .key = 'h',
      .set = chaindata_load_help, .title = "" },
    { .name = "version", .kind = CHAINDATA_OPT_ACTION,
      .set = chaindata_load_version,
      .help = "this text; the version" },
    { .name = NULL }
};


static int
chaindata_load_help(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    chaindata_options_usage(stdout, chaindata_load_head,
                            chaindata_load_options, chaindata_load_tail);
    exit(CHAINDATA_EXIT_OK);
}


static int
chaindata_parse_args(chaindata_loader_t *ld, int argc,
    char **argv)
{
    chaindata_opt_parse_t  p = { .prog = "chaindata-load",
                                 .opts = chaindata_load_options,
                                 .conf = ld };

    if (chaindata_options_parse(&p, argc, argv) != 0) {
        return -1;
    }

    if (ld->db_path == NULL) {
        fprintf(stderr, "chaindata-load: --db DIR is required\n");
        return -1;
    }

    if (ld->bulk && ld->follow) {
        fprintf(stderr, "chaindata-load: --bulk and --follow exclude each "
                "other\n");
        return -1;
    }

    if (ld->snapshot && optind < argc) {
        fprintf(stderr, "chaindata-load: --snapshot takes no FILE\n");
        return -1;
    }

    if (ld->batch == 0) {
        ld->batch = ld->bulk ? CHAINDATA_BULK_BATCH : 1000;
    }

    if (ld->map_size > ld->max_map_size) {
        ld->max_map_size = ld->map_size;
    }

    ld->nats.prog = "chaindata-load";

    if (ld->nats.url && chaindata_nats_check(&ld->nats) != 0) {
        return -1;
    }

    if (ld->nats.key_file && ld->nats.url == NULL) {
        fprintf(stderr, "chaindata-load: --nats-verify-key goes with "
                "--nats\n");
        return -1;
    }

    if (ld->nats.url && (ld->bulk || ld->follow || ld->snapshot)) {
        fprintf(stderr, "chaindata-load: --nats follows a stream: not with "
                "--bulk, --follow or --snapshot\n");
        return -1;
    }
    if (ld->nats.url ? optind != argc : ld->nats.stream || ld->once) {
        fprintf(stderr, "chaindata-load: --stream and --once go with "
                "--nats URL, which reads no FILE\n");
        return -1;
    }

    return 0;
}


/* --stats: what chaindata_status serves, as JSON on standard output */

static int
chaindata_print_stats(chaindata_loader_t *ld)
{
    char                *out;
    chaindata_status_t   st;

    if (chaindata_status_read(ld->db_path, &st) != 0) {
        fprintf(stderr, "chaindata-load: cannot read the index at %s: %s\n",
                ld->db_path, st.err);
        return CHAINDATA_EXIT_SYSTEM;
    }

    st.version = CHAINDATA_VERSION;
    out = chaindata_status_format(&st, (uint64_t) time(NULL), 0);
    if (out == NULL) {
        fprintf(stderr, "chaindata-load: out of memory\n");
        return CHAINDATA_EXIT_SYSTEM;
    }

    fputs(out, stdout);
    free(out);

    return CHAINDATA_EXIT_OK;
}


int
main(int argc, char **argv)
{
    int                 rc;
    chaindata_loader_t  ld;

    chaindata_index_files_umask();

    memset(&ld, 0, sizeof(ld));
    ld.map_size = CHAINDATA_MAP_SIZE;
    ld.max_map_size = CHAINDATA_MAX_MAP_SIZE;
    ld.max_readers = CHAINDATA_MAX_READERS;

    if (chaindata_parse_args(&ld, argc, argv) != 0) {
        /* the error is said above: where to read more, not all of it */
        fprintf(stderr, "Try \"chaindata-load --help\" for more.\n");
        return CHAINDATA_EXIT_USAGE;
    }

    /* NATS secrets leave the environment; a holder is not dumpable */
    if (chaindata_nats_secrets(&ld.nats) != 0) {
        return CHAINDATA_EXIT_USAGE;
    }

    if (ld.nats.url || ld.nats.password || ld.nats.token) {
        chaindata_secret_nodump();
    }

    if (ld.nats.url == NULL) {
        chaindata_nats_secrets_free(&ld.nats);
    }

    /* an unfinished bulk load: --stats warns, the others refuse */
    if (chaindata_bulk_check(ld.db_path) != 0 && !ld.stats) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    if (ld.stats) {
        return chaindata_print_stats(&ld);
    }

    if (ld.snapshot) {
        return chaindata_load_snapshot(ld.db_path, ld.snapshot,
                                       ld.max_readers, ld.quiet);
    }

    /* an input that cannot be read creates no index first */
    if (chaindata_files_readable(argc - optind, argv + optind) != 0) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    if (chaindata_ingest_init(&ld.in) != 0) {
        fprintf(stderr, "chaindata-load: out of memory\n");
        return CHAINDATA_EXIT_SYSTEM;
    }

    ld.in.feed.max_depth = ld.max_depth ? ld.max_depth
                                        : CHAINDATA_FEED_DEPTH_DEFAULT;

    ld.in.ix.prog = "chaindata-load";
    ld.in.ix.path = ld.db_path;
    if (ld.bulk) {
        ld.map_size = chaindata_bulk_map_size(ld.map_size, ld.max_map_size,
                                              argc - optind, argv + optind);
    }

    ld.in.ix.map_size = ld.map_size;
    ld.in.ix.max_map_size = ld.max_map_size;
    ld.in.ix.max_readers = ld.max_readers;

    rc = chaindata_index_open(&ld.in.ix) == 0 ? CHAINDATA_EXIT_OK
                                           : CHAINDATA_EXIT_SYSTEM;

    if (rc == CHAINDATA_EXIT_OK && ld.nats.url) {
        rc = chaindata_load_nats(&ld.nats, &ld.in, ld.once);

    } else if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_load_files(&ld, argc - optind, argv + optind);
        chaindata_progress_done(&ld.progress);
        chaindata_summary(&ld);
    }

    chaindata_ingest_free(&ld.in);
    chaindata_nats_secrets_free(&ld.nats);

    return rc;
}
