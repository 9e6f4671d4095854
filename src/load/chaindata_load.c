
/*
 * chaindata-load: builds and updates the LMDB index from NDJSON records
 * while nginx serves it.
 *
 * Every record of a batch is validated before the batch's single write
 * transaction begins; a bad line rejects its whole batch, so readers only
 * ever see whole batches.  See lmdb-schema/README.md for the format.
 */


#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <lmdb.h>

#include "chaindata_codec.h"
#include "chaindata_record.h"
#include "chaindata_schema.h"


#define CHAINDATA_EXIT_OK        0
#define CHAINDATA_EXIT_INPUT     1
#define CHAINDATA_EXIT_USAGE     2
#define CHAINDATA_EXIT_SYSTEM    3

#define CHAINDATA_BATCH_BYTES    ((size_t) 256 * 1024 * 1024)


typedef struct {
    const char                     *db_path;
    size_t                          batch;
    size_t                          map_size;
    size_t                          max_map_size;
    unsigned int                    max_readers;
    int                             skip_invalid;
    int                             quiet;

    MDB_env                        *env;
    MDB_dbi                         dbi[CHAINDATA_DBI_COUNT];

    chaindata_record_t    rec;
    chaindata_writeset_t  ws;

    /* the batch being collected */
    const char                     *file;
    size_t                          first_line;
    size_t                          records;
    size_t                          bad;

    /* totals */
    size_t                          applied[CHAINDATA_REC_KINDS];
    size_t                          pending[CHAINDATA_REC_KINDS];
    size_t                          batches;
    size_t                          skipped;
} chaindata_loader_t;


static void
chaindata_usage(FILE *out)
{
    fprintf(out,
        "usage: chaindata-load --db DIR [options] [FILE ...]\n"
        "\n"
        "Loads NDJSON ingest records (lmdb-schema/README.md) into the\n"
        "chaindata index at DIR; no FILE or \"-\" reads standard input.\n"
        "\n"
        "  --db DIR             index directory, created if missing\n"
        "  --batch N            records per write transaction "
        "(default 1000)\n"
        "  --skip-invalid       report invalid lines and load the rest\n"
        "  --map-size SIZE      map size to start with (default 1G, or the\n"
        "                       index's own if larger); K, M, G, T suffixes\n"
        "  --max-map-size SIZE  the map doubles when full, up to this\n"
        "                       (default 1T)\n"
        "  --max-readers N      LMDB reader slots, when this loader is the\n"
        "                       first to open the index (default %d)\n"
        "  --quiet              no summary on standard error\n"
        "  --help, --version    this text; the version\n"
        "\n"
        "exit status: 0 loaded, 1 input rejected, 2 usage, "
        "3 index or system error\n", CHAINDATA_MAX_READERS);
}


static int
chaindata_parse_size(const char *s, size_t *out)
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


static int
chaindata_mdb_fail(const char *what, int rc)
{
    fprintf(stderr, "chaindata-load: %s: %s\n", what, mdb_strerror(rc));

    return CHAINDATA_EXIT_SYSTEM;
}


/*
 * Begins a write transaction.  LMDB lets one writer in at a time: another
 * loader may have grown the map while this one waited (MDB_MAP_RESIZED),
 * so its size is adopted and the transaction begun again.
 */

static int
chaindata_write_begin(chaindata_loader_t *ld, MDB_txn **txn)
{
    int  rc;

    rc = mdb_txn_begin(ld->env, NULL, 0, txn);

    while (rc == MDB_MAP_RESIZED) {
        rc = mdb_env_set_mapsize(ld->env, 0);

        if (rc == 0) {
            rc = mdb_txn_begin(ld->env, NULL, 0, txn);
        }
    }

    return rc;
}


/*
 * Opens the named databases and checks (or, in a new index, writes) the
 * schema version.
 */

static int
chaindata_open_dbs(chaindata_loader_t *ld)
{
    int          rc;
    char         err[CHAINDATA_SCHEMA_ERR_LEN];
    MDB_txn     *txn;
    const char  *failure;

    rc = chaindata_write_begin(ld, &txn);
    if (rc != 0) {
        return chaindata_mdb_fail("cannot begin a transaction", rc);
    }

    failure = chaindata_schema_open(txn, CHAINDATA_SCHEMA_WRITE, ld->dbi,
                                    &rc, err);
    if (failure) {
        mdb_txn_abort(txn);
        fprintf(stderr, "chaindata-load: %s: %s%s%s\n", ld->db_path,
                failure, rc ? ": " : "", rc ? mdb_strerror(rc) : "");
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = mdb_txn_commit(txn);
    if (rc != 0) {
        return chaindata_mdb_fail("cannot commit", rc);
    }

    return CHAINDATA_EXIT_OK;
}


static int
chaindata_open_env(chaindata_loader_t *ld)
{
    int           rc, dead;
    MDB_envinfo   info;

    if (mkdir(ld->db_path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "chaindata-load: cannot create %s: %s\n",
                ld->db_path, strerror(errno));
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = mdb_env_create(&ld->env);
    if (rc == 0) {
        rc = mdb_env_set_maxdbs(ld->env, CHAINDATA_MAX_DBS);
    }

    if (rc == 0) {
        rc = mdb_env_set_maxreaders(ld->env, ld->max_readers);
    }

    if (rc == 0) {
        rc = mdb_env_open(ld->env, ld->db_path, 0, 0644);
    }

    if (rc != 0) {
        fprintf(stderr, "chaindata-load: cannot open the index at %s: %s\n",
                ld->db_path, mdb_strerror(rc));
        return CHAINDATA_EXIT_SYSTEM;
    }

    /* reader slots of killed workers would keep old pages from reuse */
    (void) mdb_reader_check(ld->env, &dead);

    rc = mdb_env_info(ld->env, &info);
    if (rc != 0) {
        return chaindata_mdb_fail("cannot read the map size", rc);
    }

    if (info.me_mapsize < ld->map_size) {
        rc = mdb_env_set_mapsize(ld->env, ld->map_size);
        if (rc != 0) {
            return chaindata_mdb_fail("cannot set the map size", rc);
        }
    }

    return chaindata_open_dbs(ld);
}


static int
chaindata_delete_prefix(MDB_txn *txn, MDB_dbi dbi,
    const MDB_val *prefix)
{
    int          rc;
    MDB_val      key, val;
    MDB_cursor  *cur;

    rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc != 0) {
        return rc;
    }

    for ( ;; ) {
        key = *prefix;

        rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
        if (rc == MDB_NOTFOUND) {
            rc = 0;
            break;
        }

        if (rc != 0) {
            break;
        }

        if (key.mv_size < prefix->mv_size
            || memcmp(key.mv_data, prefix->mv_data, prefix->mv_size) != 0)
        {
            break;
        }

        rc = mdb_cursor_del(cur, 0);
        if (rc != 0) {
            break;
        }
    }

    mdb_cursor_close(cur);

    return rc;
}


static int
chaindata_apply_writes(chaindata_loader_t *ld,
    MDB_txn *txn)
{
    int                 rc;
    size_t              i;
    MDB_val             key, val;
    chaindata_write_t  *w;

    for (i = 0; i < ld->ws.nwrites; i++) {
        w = &ld->ws.writes[i];

        key.mv_data = ld->ws.buf + w->key_off;
        key.mv_size = w->key_len;

        switch (w->action) {

        case CHAINDATA_WRITE_PUT:
            val.mv_data = ld->ws.buf + w->val_off;
            val.mv_size = w->val_len;
            rc = mdb_put(txn, ld->dbi[w->db], &key, &val, 0);
            break;

        case CHAINDATA_WRITE_DEL:
            rc = mdb_del(txn, ld->dbi[w->db], &key, NULL);
            if (rc == MDB_NOTFOUND) {
                rc = 0;
            }
            break;

        default: /* CHAINDATA_WRITE_DEL_PREFIX */
            rc = chaindata_delete_prefix(txn, ld->dbi[w->db], &key);
            break;
        }

        if (rc != 0) {
            return rc;
        }
    }

    return 0;
}


static int
chaindata_grow_map(chaindata_loader_t *ld)
{
    int           rc;
    size_t        size;
    MDB_envinfo   info;

    rc = mdb_env_info(ld->env, &info);
    if (rc != 0) {
        return rc;
    }

    if (info.me_mapsize >= ld->max_map_size) {
        return MDB_MAP_FULL;
    }

    size = info.me_mapsize > ld->max_map_size / 2
           ? ld->max_map_size : info.me_mapsize * 2;

    return mdb_env_set_mapsize(ld->env, size);
}


/* applies the collected writes in one transaction, growing the map */

static int
chaindata_commit_batch(chaindata_loader_t *ld)
{
    int           rc;
    size_t        i;
    MDB_txn      *txn;
    MDB_envinfo   info;

    for ( ;; ) {
        rc = chaindata_write_begin(ld, &txn);
        if (rc != 0) {
            return chaindata_mdb_fail("cannot begin a write "
                                      "transaction", rc);
        }

        rc = chaindata_apply_writes(ld, txn);

        if (rc == 0) {
            rc = mdb_txn_commit(txn);

        } else {
            mdb_txn_abort(txn);
        }

        if (rc != MDB_MAP_FULL) {
            break;
        }

        rc = chaindata_grow_map(ld);
        if (rc != 0) {
            (void) mdb_env_info(ld->env, &info);
            fprintf(stderr, "chaindata-load: %s: lines %zu-: the index is "
                    "full at its map size of %zu bytes (--max-map-size); "
                    "batch not applied\n", ld->file, ld->first_line,
                    (size_t) info.me_mapsize);
            return CHAINDATA_EXIT_SYSTEM;
        }
    }

    if (rc != 0) {
        /* LMDB reports a failed write, a full disk included, as EIO */
        fprintf(stderr, "chaindata-load: %s: batch from line %zu not "
                "applied: %s%s\n", ld->file, ld->first_line,
                mdb_strerror(rc),
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

    } else if (ld->ws.nwrites) {
        rc = chaindata_commit_batch(ld);
    }

    chaindata_writeset_reset(&ld->ws);
    memset(ld->pending, 0, sizeof(ld->pending));
    ld->records = 0;
    ld->bad = 0;
    ld->first_line = line + 1;

    return rc;
}


static int
chaindata_is_blank(const char *s, size_t len)
{
    while (len--) {
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
            return 0;
        }

        s++;
    }

    return 1;
}


static int
chaindata_load_stream(chaindata_loader_t *ld, FILE *in,
    const char *name)
{
    int       rc;
    char     *line;
    size_t    cap, lineno;
    ssize_t   n;

    line = NULL;
    cap = 0;
    lineno = 0;
    rc = CHAINDATA_EXIT_OK;

    ld->file = name;
    ld->first_line = 1;

    while ((n = getline(&line, &cap, in)) != -1) {
        lineno++;

        if (chaindata_is_blank(line, n)) {
            continue;
        }

        if (chaindata_record_parse(&ld->rec, (unsigned char *) line,
                                   n, &ld->ws)
            != 0)
        {
            fprintf(stderr, "chaindata-load: %s:%zu: %s\n", name, lineno,
                    ld->rec.err);

            if (ld->skip_invalid) {
                ld->skipped++;

            } else {
                ld->bad++;
            }

        } else {
            ld->pending[ld->rec.kind]++;
        }

        if (++ld->records >= ld->batch
            || ld->ws.len >= CHAINDATA_BATCH_BYTES)
        {
            rc = chaindata_end_batch(ld, lineno);
            if (rc != CHAINDATA_EXIT_OK) {
                break;
            }
        }
    }

    if (rc == CHAINDATA_EXIT_OK && ferror(in)) {
        fprintf(stderr, "chaindata-load: %s: read error: %s\n", name,
                strerror(errno));
        rc = CHAINDATA_EXIT_SYSTEM;
        chaindata_writeset_reset(&ld->ws);
    }

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_end_batch(ld, lineno);
    }

    free(line);

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

    if (ld->skipped) {
        fprintf(stderr, ", %zu invalid lines skipped", ld->skipped);
    }

    fprintf(stderr, "\n");
}


static int
chaindata_parse_args(chaindata_loader_t *ld, int argc,
    char **argv)
{
    int          c;
    char        *end;
    unsigned long  n;

    static const struct option  options[] = {
        { "db", required_argument, NULL, 'd' },
        { "batch", required_argument, NULL, 'b' },
        { "skip-invalid", no_argument, NULL, 's' },
        { "map-size", required_argument, NULL, 'm' },
        { "max-map-size", required_argument, NULL, 'M' },
        { "max-readers", required_argument, NULL, 'r' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 }
    };

    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (c) {

        case 'd':
            ld->db_path = optarg;
            break;

        case 'b':
            errno = 0;
            n = strtoul(optarg, &end, 10);
            if (errno || *end || n == 0 || optarg[0] == '-') {
                fprintf(stderr, "chaindata-load: --batch wants a positive "
                        "number, not \"%s\"\n", optarg);
                return -1;
            }
            ld->batch = n;
            break;

        case 's':
            ld->skip_invalid = 1;
            break;

        case 'r':
            errno = 0;
            n = strtoul(optarg, &end, 10);
            if (errno || *end || n == 0 || n > CHAINDATA_MAX_READERS_LIMIT
                || optarg[0] == '-')
            {
                fprintf(stderr, "chaindata-load: --max-readers wants a "
                        "number from 1 to %d, not \"%s\"\n",
                        CHAINDATA_MAX_READERS_LIMIT, optarg);
                return -1;
            }
            ld->max_readers = (unsigned int) n;
            break;

        case 'm':
        case 'M':
            if (chaindata_parse_size(optarg,
                                     c == 'm' ? &ld->map_size
                                                       : &ld->max_map_size)
                != 0)
            {
                fprintf(stderr, "chaindata-load: bad size \"%s\"\n", optarg);
                return -1;
            }
            break;

        case 'q':
            ld->quiet = 1;
            break;

        case 'h':
            chaindata_usage(stdout);
            exit(CHAINDATA_EXIT_OK);

        case 'V':
            /* CHAINDATA_VERSION: the Makefile's, from debian/changelog */
            printf("chaindata-load %s\n", CHAINDATA_VERSION);
            exit(CHAINDATA_EXIT_OK);

        default:
            return -1;
        }
    }

    if (ld->db_path == NULL) {
        fprintf(stderr, "chaindata-load: --db DIR is required\n");
        return -1;
    }

    if (ld->map_size > ld->max_map_size) {
        ld->max_map_size = ld->map_size;
    }

    return 0;
}


int
main(int argc, char **argv)
{
    int                 rc;
    chaindata_loader_t  ld;

    memset(&ld, 0, sizeof(ld));
    ld.batch = 1000;
    ld.map_size = (size_t) 1 << 30;
    ld.max_map_size = (size_t) 1 << 40;
    ld.max_readers = CHAINDATA_MAX_READERS;

    if (chaindata_parse_args(&ld, argc, argv) != 0) {
        chaindata_usage(stderr);
        return CHAINDATA_EXIT_USAGE;
    }

    if (chaindata_record_init(&ld.rec) != 0) {
        fprintf(stderr, "chaindata-load: out of memory\n");
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = chaindata_open_env(&ld);

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_load_files(&ld, argc - optind, argv + optind);
        chaindata_summary(&ld);
    }

    if (ld.env) {
        mdb_env_close(ld.env);
    }

    chaindata_writeset_free(&ld.ws);
    chaindata_record_free(&ld.rec);

    return rc;
}
