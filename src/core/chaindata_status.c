
/*
 * chaindata: the index's status (see the header; README "Keeping the
 * index current").
 */


#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_index_files.h"
#include "chaindata_schema.h"
#include "chaindata_status.h"


/* mdb_reader_list calls this once a line: a header, then a slot a line */

static int
chaindata_status_reader(const char *msg, void *ctx)
{
    unsigned  *n;

    n = ctx;

    while (*msg == ' ') {
        msg++;
    }

    if (*msg >= '0' && *msg <= '9') {
        (*n)++;
    }

    return 0;
}


/*
 * A stream's position (key CHAINDATA_STREAM_KEY then the name): 1 when
 * the record is one, listed while there is room.  A name that JSON or a
 * Prometheus label would need to escape is left out: the follower's names
 * have no backslash, blank or control character, and a '"' in one is absurd.
 */

static int
chaindata_status_stream(const MDB_val *key, const MDB_val *val,
    chaindata_status_t *st)
{
    size_t                      i, n;
    uint64_t                    seq;
    const char                 *name;
    chaindata_status_stream_t  *s;

    n = sizeof(CHAINDATA_STREAM_KEY) - 1;

    if (key->mv_size <= n || key->mv_size - n > CHAINDATA_STREAM_NAME_MAX
        || memcmp(key->mv_data, CHAINDATA_STREAM_KEY, n) != 0
        || chaindata_streampos_decode(&seq, val->mv_data, val->mv_size) != 0)
    {
        return 0;
    }

    name = (const char *) key->mv_data + n;
    n = key->mv_size - n;

    for (i = 0; i < n; i++) {
        if (name[i] <= ' ' || name[i] > '~' || name[i] == '"'
            || name[i] == '\\')
        {
            return 1;
        }
    }

    if (st->nstreams < CHAINDATA_STATUS_STREAMS) {
        s = &st->streams[st->nstreams++];
        memcpy(s->name, name, n);
        s->name[n] = '\0';
        s->sequence = seq;
    }

    return 1;
}


/* a source's position: listed while there is room */

static void
chaindata_status_feed(const MDB_val *key, const MDB_val *val,
    chaindata_status_t *st)
{
    chaindata_feedpos_t       pos;
    chaindata_status_feed_t  *f;

    if (st->nfeeds == CHAINDATA_STATUS_FEEDS
        || key->mv_size > CHAINDATA_FEED_SOURCE_MAX
        || chaindata_feedpos_decode(&pos, val->mv_data, val->mv_size) != 0)
    {
        return;
    }

    f = &st->feeds[st->nfeeds++];
    memcpy(f->source, key->mv_data, key->mv_size);
    f->source[key->mv_size] = '\0';
    f->height = pos.height;
    f->time = pos.time;
    f->committed = pos.committed;
    memcpy(f->hash, pos.hash, pos.hash_len);
    f->hash[pos.hash_len] = '\0';
}


static int
chaindata_status_feeds(MDB_txn *txn, MDB_dbi dbi, chaindata_status_t *st)
{
    int          rc;
    MDB_val      key, val;
    MDB_cursor  *cur;

    rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc != 0) {
        return rc;
    }

    for (rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST);
         rc == 0;
         rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT))
    {
        if (!chaindata_status_stream(&key, &val, st)) {
            chaindata_status_feed(&key, &val, st);
        }
    }

    mdb_cursor_close(cur);

    return rc == MDB_NOTFOUND ? 0 : rc;
}


int
chaindata_status_gather(MDB_env *env, MDB_txn *txn, const MDB_dbi *dbi,
    chaindata_status_t *st)
{
    int           rc, i;
    MDB_val       key, val;
    MDB_stat      ms;
    MDB_envinfo   info;

    memset(st, 0, sizeof(*st));

    key.mv_data = CHAINDATA_META_SCHEMA;
    key.mv_size = sizeof(CHAINDATA_META_SCHEMA) - 1;

    rc = mdb_get(txn, dbi[CHAINDATA_DBI_META], &key, &val);
    if (rc != 0) {
        return rc;
    }

    memcpy(st->schema, val.mv_data,
           val.mv_size < sizeof(st->schema) ? val.mv_size
                                            : sizeof(st->schema) - 1);

    for (i = 0; i < CHAINDATA_DBI_COUNT; i++) {
        rc = mdb_stat(txn, dbi[i], &ms);
        if (rc != 0) {
            return rc;
        }

        st->entries[i] = ms.ms_entries;
    }

    rc = mdb_env_info(env, &info);
    if (rc != 0) {
        return rc;
    }

    rc = mdb_env_stat(env, &ms);
    if (rc != 0) {
        return rc;
    }

    st->map_size = info.me_mapsize;
    st->used = (info.me_last_pgno + 1) * (size_t) ms.ms_psize;
    st->max_readers = info.me_maxreaders;

    (void) mdb_reader_list(env, chaindata_status_reader, &st->readers);

    return chaindata_status_feeds(txn, dbi[CHAINDATA_DBI_FEED], st);
}


int
chaindata_status_read(const char *path, chaindata_status_t *st)
{
    int          rc;
    char         err[CHAINDATA_SCHEMA_ERR_LEN];
    MDB_env     *env;
    MDB_txn     *txn;
    MDB_dbi      dbi[CHAINDATA_DBI_COUNT];
    const char               *failure;
    chaindata_index_owner_t   own;

    env = NULL;
    txn = NULL;

    if (chaindata_index_files_prepare(path, 0, &own, st->err,
                                      sizeof(st->err))
        != 0)
    {
        return -1;
    }

    rc = mdb_env_create(&env);
    if (rc == 0) {
        rc = mdb_env_set_maxdbs(env, CHAINDATA_MAX_DBS);
    }

    if (rc == 0) {
        rc = mdb_env_open(env, path, MDB_RDONLY|MDB_NOTLS,
                          CHAINDATA_INDEX_DATA_MODE);
    }

    chaindata_index_owner_end(&own);

    if (rc == 0) {
        rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    }

    failure = NULL;

    if (rc == 0) {
        failure = chaindata_schema_open(txn, 0, dbi, &rc, err);
    }

    if (failure == NULL && rc == 0) {
        rc = chaindata_status_gather(env, txn, dbi, st);
    }

    if (failure) {
        snprintf(st->err, sizeof(st->err), "%s%s%s", failure,
                 rc ? ": " : "", rc ? mdb_strerror(rc) : "");
        rc = -1;

    } else if (rc != 0) {
        snprintf(st->err, sizeof(st->err), "%s", mdb_strerror(rc));
    }

    if (txn) {
        mdb_txn_abort(txn);
    }

    if (env) {
        mdb_env_close(env);
    }

    return rc == 0 ? 0 : -1;
}


typedef struct {
    char    *p;
    size_t   len;
    size_t   cap;
    int      failed;
} chaindata_sbuf_t;


static void
chaindata_sbuf_printf(chaindata_sbuf_t *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;


static void
chaindata_sbuf_printf(chaindata_sbuf_t *b, const char *fmt, ...)
{
    int       n;
    char     *p;
    size_t    cap;
    va_list   args;

    if (b->failed) {
        return;
    }

    for ( ;; ) {
        va_start(args, fmt);
        n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, args);
        va_end(args);

        if (n < 0) {
            b->failed = 1;
            return;
        }

        if ((size_t) n < b->cap - b->len) {
            b->len += n;
            return;
        }

        cap = b->cap * 2 + n;
        p = realloc(b->p, cap);

        if (p == NULL) {
            b->failed = 1;
            return;
        }

        b->p = p;
        b->cap = cap;
    }
}


static uint64_t
chaindata_status_lag(const chaindata_status_feed_t *f, uint64_t now)
{
    return now > f->time ? now - f->time : 0;
}


/*
 * source names and hashes are [a-z0-9_-] and [0-9A-Za-z], stream names
 * have nothing to escape (chaindata_status_stream()): no escaping
 */

static void
chaindata_status_json(chaindata_sbuf_t *b, const chaindata_status_t *st,
    uint64_t now)
{
    size_t                          i;
    const chaindata_status_feed_t  *f;

    chaindata_sbuf_printf(b, "{\"schema_version\":\"%s\",\"databases\":{",
                          st->schema);

    for (i = 0; i < CHAINDATA_DBI_COUNT; i++) {
        chaindata_sbuf_printf(b, "%s\"%s\":%zu", i ? "," : "",
                              chaindata_db_names[i], st->entries[i]);
    }

    chaindata_sbuf_printf(b, "},\"map_size\":%zu,\"used_bytes\":%zu,"
                          "\"readers\":%u,\"max_readers\":%u,\"feeds\":[",
                          st->map_size, st->used, st->readers,
                          st->max_readers);

    for (i = 0; i < st->nfeeds; i++) {
        f = &st->feeds[i];
        chaindata_sbuf_printf(b, "%s{\"source\":\"%s\",\"height\":%llu,"
                              "\"hash\":\"%s\",\"block_time\":%llu,"
                              "\"committed\":%llu,\"lag\":%llu}",
                              i ? "," : "", f->source,
                              (unsigned long long) f->height, f->hash,
                              (unsigned long long) f->time,
                              (unsigned long long) f->committed,
                              (unsigned long long)
                                  chaindata_status_lag(f, now));
    }

    chaindata_sbuf_printf(b, "],\"streams\":[");

    for (i = 0; i < st->nstreams; i++) {
        chaindata_sbuf_printf(b, "%s{\"stream\":\"%s\",\"sequence\":%llu}",
                              i ? "," : "", st->streams[i].name,
                              (unsigned long long) st->streams[i].sequence);
    }

    chaindata_sbuf_printf(b, "]}\n");
}


static void
chaindata_status_metric(chaindata_sbuf_t *b, const char *name,
    const char *help)
{
    chaindata_sbuf_printf(b, "# HELP chaindata_%s %s\n"
                          "# TYPE chaindata_%s gauge\n", name, help, name);
}


/* the feeds' times, in seconds: one metric each, a line per feed */

static void
chaindata_status_prom_feed_times(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    size_t                          i, t;
    uint64_t                        v;
    const chaindata_status_feed_t  *f;

    static const char  *metrics[][2] = {
        { "feed_block_time_seconds", "Time of the last committed block" },
        { "feed_commit_time_seconds", "When the last block was committed" },
        { "feed_lag_seconds", "Now minus the time of the last block" }
    };

    for (t = 0; t < sizeof(metrics) / sizeof(metrics[0]); t++) {
        chaindata_status_metric(b, metrics[t][0], metrics[t][1]);

        for (i = 0; i < st->nfeeds; i++) {
            f = &st->feeds[i];
            v = t == 0 ? f->time
                : t == 1 ? f->committed : chaindata_status_lag(f, now);

            chaindata_sbuf_printf(b, "chaindata_%s{source=\"%s\"} %llu\n",
                                  metrics[t][0], f->source,
                                  (unsigned long long) v);
        }
    }
}


static void
chaindata_status_prom_positions(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    size_t                          i;
    const chaindata_status_feed_t  *f;

    chaindata_status_metric(b, "feed_height",
                            "Height of the last committed block");
    for (i = 0; i < st->nfeeds; i++) {
        f = &st->feeds[i];
        chaindata_sbuf_printf(b, "chaindata_feed_height{source=\"%s\","
                              "hash=\"%s\"} %llu\n", f->source, f->hash,
                              (unsigned long long) f->height);
    }

    chaindata_status_prom_feed_times(b, st, now);

    chaindata_status_metric(b, "stream_sequence",
                            "Stream sequence of the last unit applied");
    for (i = 0; i < st->nstreams; i++) {
        chaindata_sbuf_printf(b, "chaindata_stream_sequence{stream=\"%s\"} "
                              "%llu\n", st->streams[i].name,
                              (unsigned long long) st->streams[i].sequence);
    }
}


static void
chaindata_status_prometheus(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    size_t  i;

    chaindata_status_metric(b, "schema_version", "Index schema version");
    chaindata_sbuf_printf(b, "chaindata_schema_version %s\n", st->schema);

    chaindata_status_metric(b, "records", "Records per named database");
    for (i = 0; i < CHAINDATA_DBI_COUNT; i++) {
        chaindata_sbuf_printf(b, "chaindata_records{database=\"%s\"} %zu\n",
                              chaindata_db_names[i], st->entries[i]);
    }

    chaindata_status_metric(b, "map_size_bytes", "LMDB map size");
    chaindata_sbuf_printf(b, "chaindata_map_size_bytes %zu\n", st->map_size);
    chaindata_status_metric(b, "used_bytes", "Bytes of the map in use");
    chaindata_sbuf_printf(b, "chaindata_used_bytes %zu\n", st->used);
    chaindata_status_metric(b, "readers", "Reader slots in use");
    chaindata_sbuf_printf(b, "chaindata_readers %u\n", st->readers);
    chaindata_status_metric(b, "readers_max", "Reader slots");
    chaindata_sbuf_printf(b, "chaindata_readers_max %u\n", st->max_readers);

    chaindata_status_prom_positions(b, st, now);
}


char *
chaindata_status_format(const chaindata_status_t *st, uint64_t now,
    int prometheus)
{
    chaindata_sbuf_t  b;

    b.cap = 4096;
    b.len = 0;
    b.failed = 0;
    b.p = malloc(b.cap);

    if (b.p == NULL) {
        return NULL;
    }

    if (prometheus) {
        chaindata_status_prometheus(&b, st, now);

    } else {
        chaindata_status_json(&b, st, now);
    }

    if (b.failed) {
        free(b.p);
        return NULL;
    }

    return b.p;
}
