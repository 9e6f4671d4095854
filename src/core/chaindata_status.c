
/*
 * chaindata: the index's status (see the header; doc/module.md
 * "Status").
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_sbuf.h"
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
 * The name after prefix in a key of "feed" (a stream's, a source's): NULL
 * when the key is not the prefix then a name.
 */

static const char *
chaindata_status_key_name(const MDB_val *key, const char *prefix,
    size_t *len)
{
    size_t  n;

    n = strlen(prefix);

    if (key->mv_size <= n || memcmp(key->mv_data, prefix, n) != 0) {
        return NULL;
    }

    *len = key->mv_size - n;

    return (const char *) key->mv_data + n;
}


/* a listed name (NUL-terminated) is the key's */

static int
chaindata_status_is_named(const char *listed, const char *name, size_t len)
{
    return strlen(listed) == len && memcmp(listed, name, len) == 0;
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

    name = chaindata_status_key_name(key, CHAINDATA_STREAM_KEY, &n);

    if (name == NULL || n > CHAINDATA_STREAM_NAME_MAX
        || chaindata_streamseq_decode(&seq, CHAINDATA_STREAM_FORMAT,
                                      val->mv_data, val->mv_size) != 0)
    {
        return 0;
    }

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


/*
 * The publisher's last sequence (CHAINDATA_STREAMTIP_KEY then the name):
 * 1 when the key is one; "streamtip:" sorts after every "stream:", so its
 * stream is listed already.
 */

static int
chaindata_status_streamtip(const MDB_val *key, const MDB_val *val,
    chaindata_status_t *st)
{
    size_t       i, n;
    uint64_t     seq;
    const char  *name;

    name = chaindata_status_key_name(key, CHAINDATA_STREAMTIP_KEY, &n);

    if (name == NULL) {
        return 0;
    }

    if (chaindata_streamseq_decode(&seq, CHAINDATA_STREAMTIP_FORMAT,
                                   val->mv_data, val->mv_size)
        != 0)
    {
        return 1;
    }

    for (i = 0; i < st->nstreams; i++) {
        if (chaindata_status_is_named(st->streams[i].name, name, n)) {
            st->streams[i].has_published = 1;
            st->streams[i].published = seq;
        }
    }

    return 1;
}


/*
 * A feed's upstream tip (key CHAINDATA_TIP_KEY then the source): 1 when
 * the key is one.  Keys sort bytewise, so its feed, listed before it
 * ("tip:" sorts after every source), takes it.
 */

static int
chaindata_status_tip(const MDB_val *key, const MDB_val *val,
    chaindata_status_t *st)
{
    size_t                    i, n;
    const char               *source;
    chaindata_feedtip_t       tip;
    chaindata_status_feed_t  *f;

    source = chaindata_status_key_name(key, CHAINDATA_TIP_KEY, &n);

    if (source == NULL) {
        return 0;
    }

    if (chaindata_feedtip_decode(&tip, val->mv_data, val->mv_size) != 0) {
        return 1;
    }

    for (i = 0; i < st->nfeeds; i++) {
        f = &st->feeds[i];

        if (chaindata_status_is_named(f->source, source, n)) {
            f->has_tip = 1;
            f->tip = tip;
            break;
        }
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


/*
 * The feeds' states (keys CHAINDATA_STATE_KEY then the source, for every
 * feed of the writer, the mempool and the chainhooks too, which have no
 * position), read by their own range.
 */

static int
chaindata_status_states(MDB_cursor *cur, chaindata_status_t *st)
{
    int                        rc;
    size_t                     n;
    MDB_val                    key, val;
    chaindata_status_state_t  *s;

    n = sizeof(CHAINDATA_STATE_KEY) - 1;
    key.mv_data = CHAINDATA_STATE_KEY;
    key.mv_size = n;

    for (rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
         rc == 0 && key.mv_size > n
         && memcmp(key.mv_data, CHAINDATA_STATE_KEY, n) == 0;
         rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT))
    {
        if (st->nstates == CHAINDATA_STATUS_FEEDS
            || key.mv_size - n > CHAINDATA_FEED_SOURCE_MAX)
        {
            continue;
        }

        s = &st->states[st->nstates];

        if (chaindata_feedstate_decode(&s->state, val.mv_data, val.mv_size)
            != 0)
        {
            continue;
        }

        memcpy(s->source, (const char *) key.mv_data + n, key.mv_size - n);
        s->source[key.mv_size - n] = '\0';
        st->nstates++;
    }

    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}


static int
chaindata_status_feeds(MDB_cursor *cur, chaindata_status_t *st)
{
    int      rc;
    MDB_val  key, val;

    for (rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST);
         rc == 0;
         rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT))
    {
        if (!chaindata_status_stream(&key, &val, st)
            && !chaindata_status_streamtip(&key, &val, st)
            && !chaindata_status_tip(&key, &val, st))
        {
            chaindata_status_feed(&key, &val, st);
        }
    }

    if (rc == MDB_NOTFOUND) {
        rc = chaindata_status_states(cur, st);
    }

    return rc;
}


int
chaindata_status_gather(MDB_env *env, MDB_txn *txn, const MDB_dbi *dbi,
    chaindata_status_t *st)
{
    int           rc, i;
    MDB_val       key, val;
    MDB_stat      ms;
    MDB_cursor   *cur;
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

    rc = mdb_cursor_open(txn, dbi[CHAINDATA_DBI_FEED], &cur);
    if (rc != 0) {
        return rc;
    }

    rc = chaindata_status_feeds(cur, st);

    mdb_cursor_close(cur);

    st->gathered = (rc == 0);

    return rc;
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


static uint64_t
chaindata_status_lag(const chaindata_status_feed_t *f, uint64_t now)
{
    return now > f->time ? now - f->time : 0;
}


/* blocks behind the stored tip: 0 without one */

static uint64_t
chaindata_status_behind(const chaindata_status_feed_t *f)
{
    return f->has_tip && f->tip.height > f->height
           ? f->tip.height - f->height : 0;
}


/*
 * The seconds a feed is behind, for the health check: with a stored tip,
 * the tip's block time minus the committed block's, or the age of the
 * tip when that is more (a writer that stopped asking upstream); without
 * one, now minus the committed block's time (a quiet chain looks behind).
 */

static uint64_t
chaindata_status_behind_seconds(const chaindata_status_feed_t *f,
    uint64_t now)
{
    uint64_t  ahead, age;

    if (!f->has_tip) {
        return chaindata_status_lag(f, now);
    }

    ahead = f->tip.time > f->time ? f->tip.time - f->time : 0;
    age = now > f->tip.polled ? now - f->tip.polled : 0;

    return ahead > age ? ahead : age;
}


static int
chaindata_status_feed_healthy(const chaindata_status_t *st,
    const chaindata_status_feed_t *f, uint64_t now)
{
    if (st->max_behind && chaindata_status_behind(f) > st->max_behind) {
        return 0;
    }

    if (st->max_lag && chaindata_status_behind_seconds(f, now) > st->max_lag)
    {
        return 0;
    }

    return 1;
}


int
chaindata_status_healthy(const chaindata_status_t *st, uint64_t now)
{
    size_t  i;

    for (i = 0; i < st->nfeeds; i++) {
        if (!chaindata_status_feed_healthy(st, &st->feeds[i], now)) {
            return 0;
        }
    }

    return 1;
}


static void
chaindata_status_json_state(chaindata_sbuf_t *b,
    const chaindata_status_state_t *fs)
{
    const chaindata_feedstate_t  *s;

    s = &fs->state;

    chaindata_sbuf_printf(b, "{\"source\":\"%s\",\"state\":\"%s\","
                          "\"why\":\"%s\",\"failures\":%u,\"last_ok\":%llu,"
                          "\"requests\":%llu,\"retries\":%llu,"
                          "\"throttled\":%llu,\"refused\":%llu,"
                          "\"chainhooks_skipped\":%llu,"
                          "\"unknown_stored\":%llu}",
                          fs->source, chaindata_feedstate_names[s->state],
                          chaindata_feedwhy_names[s->why],
                          (unsigned) s->failures,
                          (unsigned long long) s->last_ok,
                          (unsigned long long) s->requests,
                          (unsigned long long) s->retries,
                          (unsigned long long) s->throttled,
                          (unsigned long long) s->refused,
                          (unsigned long long) s->skipped,
                          (unsigned long long) s->unknown);
}


static void
chaindata_status_json_feed(chaindata_sbuf_t *b, const chaindata_status_t *st,
    const chaindata_status_feed_t *f, uint64_t now)
{
    chaindata_sbuf_printf(b, "{\"source\":\"%s\",\"height\":%llu,"
                          "\"hash\":\"%s\",\"block_time\":%llu,"
                          "\"committed\":%llu,\"lag\":%llu",
                          f->source, (unsigned long long) f->height, f->hash,
                          (unsigned long long) f->time,
                          (unsigned long long) f->committed,
                          (unsigned long long) chaindata_status_lag(f, now));

    if (f->has_tip) {
        chaindata_sbuf_printf(b, ",\"tip\":{\"height\":%llu,"
                              "\"block_time\":%llu,\"polled\":%llu},"
                              "\"behind\":%llu",
                              (unsigned long long) f->tip.height,
                              (unsigned long long) f->tip.time,
                              (unsigned long long) f->tip.polled,
                              (unsigned long long)
                                  chaindata_status_behind(f));
    }

    chaindata_sbuf_printf(b, ",\"healthy\":%s}",
                          chaindata_status_feed_healthy(st, f, now)
                          ? "true" : "false");
}


/*
 * source names and hashes are [a-z0-9_-] and [0-9A-Za-z], stream names
 * have nothing to escape (chaindata_status_stream()), nor has the
 * version (debian/changelog's): no escaping
 */

static void
chaindata_status_json(chaindata_sbuf_t *b, const chaindata_status_t *st,
    uint64_t now)
{
    size_t  i;

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
        chaindata_sbuf_printf(b, "%s", i ? "," : "");
        chaindata_status_json_feed(b, st, &st->feeds[i], now);
    }

    chaindata_sbuf_printf(b, "],\"feed_states\":[");

    for (i = 0; i < st->nstates; i++) {
        chaindata_sbuf_printf(b, "%s", i ? "," : "");
        chaindata_status_json_state(b, &st->states[i]);
    }

    chaindata_sbuf_printf(b, "],\"streams\":[");

    for (i = 0; i < st->nstreams; i++) {
        chaindata_sbuf_printf(b, "%s{\"stream\":\"%s\",\"sequence\":%llu",
                              i ? "," : "", st->streams[i].name,
                              (unsigned long long) st->streams[i].sequence);

        if (st->streams[i].has_published) {
            chaindata_sbuf_printf(b, ",\"published\":%llu",
                                  (unsigned long long)
                                  st->streams[i].published);
        }

        chaindata_sbuf_printf(b, "}");
    }

    chaindata_sbuf_printf(b, "],\"healthy\":%s",
                          chaindata_status_healthy(st, now) ? "true"
                                                            : "false");

    if (st->version) {
        chaindata_sbuf_printf(b, ",\"version\":\"%s\"", st->version);
    }

    if (st->traffic) {
        chaindata_sbuf_printf(b, ",");
        chaindata_metrics_json(b, st->traffic);
    }

    chaindata_sbuf_printf(b, "}\n");
}


static void
chaindata_status_metric(chaindata_sbuf_t *b, const char *name,
    const char *help)
{
    chaindata_sbuf_printf(b, "# HELP chaindata_%s %s\n"
                          "# TYPE chaindata_%s gauge\n", name, help, name);
}


/* the feeds' gauges: one metric each, a line per feed */

static void
chaindata_status_prom_feeds(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    size_t                          i, t;
    uint64_t                        v;
    const chaindata_status_feed_t  *f;

    static const char  *metrics[][2] = {
        { "feed_height", "Height of the last committed block" },
        { "feed_block_timestamp_seconds", "Time of the last committed block" },
        { "feed_commit_timestamp_seconds",
          "When the last block was committed" },
        { "feed_lag_seconds", "Now minus the time of the last block" },
        { "feed_healthy", "1 when the feed is within the health limits" }
    };

    for (t = 0; t < sizeof(metrics) / sizeof(metrics[0]); t++) {
        chaindata_status_metric(b, metrics[t][0], metrics[t][1]);

        for (i = 0; i < st->nfeeds; i++) {
            f = &st->feeds[i];
            v = t == 0 ? f->height
                : t == 1 ? f->time
                : t == 2 ? f->committed
                : t == 3 ? chaindata_status_lag(f, now)
                : (uint64_t) chaindata_status_feed_healthy(st, f, now);

            chaindata_sbuf_printf(b, "chaindata_%s{source=\"%s\"} %llu\n",
                                  metrics[t][0], f->source,
                                  (unsigned long long) v);
        }
    }
}


/* the stored upstream tips, where a writer stores them */

static void
chaindata_status_prom_tips(chaindata_sbuf_t *b, const chaindata_status_t *st)
{
    size_t                          i, t;
    uint64_t                        v;
    const chaindata_status_feed_t  *f;

    static const char  *metrics[][2] = {
        { "feed_tip_height", "Upstream's tip height as last polled" },
        { "feed_behind_blocks", "Upstream's tip minus the committed height" },
        { "feed_poll_timestamp_seconds", "When upstream's tip was polled" }
    };

    for (t = 0; t < sizeof(metrics) / sizeof(metrics[0]); t++) {
        chaindata_status_metric(b, metrics[t][0], metrics[t][1]);

        for (i = 0; i < st->nfeeds; i++) {
            f = &st->feeds[i];

            if (!f->has_tip) {
                continue;
            }

            v = t == 0 ? f->tip.height
                : t == 1 ? chaindata_status_behind(f) : f->tip.polled;

            chaindata_sbuf_printf(b, "chaindata_%s{source=\"%s\"} %llu\n",
                                  metrics[t][0], f->source,
                                  (unsigned long long) v);
        }
    }
}


/* the feeds' states, where their writer stores them */

static uint64_t
chaindata_status_state_value(const chaindata_feedstate_t *s, size_t t)
{
    switch (t) {
    case 0:  return s->failures;
    case 1:  return s->last_ok;
    case 2:  return s->requests;
    case 3:  return s->retries;
    case 4:  return s->throttled;
    case 5:  return s->refused;
    case 6:  return s->skipped;
    default: return s->unknown;
    }
}


static void
chaindata_status_prom_states(chaindata_sbuf_t *b,
    const chaindata_status_t *st)
{
    size_t                           i, t, k;
    const chaindata_status_state_t  *fs;

    static const char  *metrics[][3] = {
        { "feed_failures", "gauge", "Failed passes of the feed in a row" },
        { "feed_last_ok_timestamp_seconds", "gauge",
          "When a pass of the feed last succeeded" },
        { "feed_requests_total", "counter",
          "Requests the feed's writer sent upstream since it started" },
        { "feed_retries_total", "counter", "Requests tried again" },
        { "feed_throttled_total", "counter", "429 answers" },
        { "feed_refused_total", "counter", "Answers a check refused" },
        { "feed_chainhooks_skipped_total", "counter",
          "Chainhook statuses that failed and were skipped" },
        { "feed_unknown_stored_total", "counter",
          "Documents stored with what the schema does not know yet" }
    };

    chaindata_sbuf_printf(b, "# HELP chaindata_feed_state The feed's state "
                          "as its writer last stored it (1: the state)\n"
                          "# TYPE chaindata_feed_state gauge\n");

    for (i = 0; i < st->nstates; i++) {
        fs = &st->states[i];

        for (k = 1; k < CHAINDATA_FEEDSTATE_COUNT; k++) {
            chaindata_sbuf_printf(b, "chaindata_feed_state{source=\"%s\","
                                  "state=\"%s\"} %d\n", fs->source,
                                  chaindata_feedstate_names[k],
                                  fs->state.state == k);
        }
    }

    chaindata_sbuf_printf(b, "# HELP chaindata_feed_why Why the feed backs "
                          "off or stopped, as its writer last stored it "
                          "(1: the reason)\n"
                          "# TYPE chaindata_feed_why gauge\n");

    for (i = 0; i < st->nstates; i++) {
        fs = &st->states[i];

        for (k = 1; k < CHAINDATA_FEEDWHY_COUNT; k++) {
            chaindata_sbuf_printf(b, "chaindata_feed_why{source=\"%s\","
                                  "why=\"%s\"} %d\n", fs->source,
                                  chaindata_feedwhy_names[k],
                                  fs->state.why == k);
        }
    }

    for (t = 0; t < sizeof(metrics) / sizeof(metrics[0]); t++) {
        chaindata_sbuf_printf(b, "# HELP chaindata_%s %s\n"
                              "# TYPE chaindata_%s %s\n", metrics[t][0],
                              metrics[t][2], metrics[t][0], metrics[t][1]);

        for (i = 0; i < st->nstates; i++) {
            fs = &st->states[i];

            chaindata_sbuf_printf(b, "chaindata_%s{source=\"%s\"} %llu\n",
                                  metrics[t][0], fs->source,
                                  (unsigned long long)
                                  chaindata_status_state_value(&fs->state,
                                                               t));
        }
    }
}


static void
chaindata_status_prom_positions(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    size_t  i;

    chaindata_status_prom_feeds(b, st, now);
    chaindata_status_prom_tips(b, st);
    chaindata_status_prom_states(b, st);

    chaindata_status_metric(b, "stream_sequence",
                            "Stream sequence of the last unit applied");
    for (i = 0; i < st->nstreams; i++) {
        chaindata_sbuf_printf(b, "chaindata_stream_sequence{stream=\"%s\"} "
                              "%llu\n", st->streams[i].name,
                              (unsigned long long) st->streams[i].sequence);
    }

    chaindata_status_metric(b, "stream_published_sequence",
                            "The stream's last sequence as its follower "
                            "last saw it");
    for (i = 0; i < st->nstreams; i++) {
        if (st->streams[i].has_published) {
            chaindata_sbuf_printf(b, "chaindata_stream_published_sequence"
                                  "{stream=\"%s\"} %llu\n",
                                  st->streams[i].name,
                                  (unsigned long long)
                                  st->streams[i].published);
        }
    }

    chaindata_status_metric(b, "healthy",
                            "1 when every feed is within the health limits");
    chaindata_sbuf_printf(b, "chaindata_healthy %d\n",
                          chaindata_status_healthy(st, now));
}


/* a label's value: backslash, double quote and new line escaped */

static void
chaindata_status_label(chaindata_sbuf_t *b, const char *v)
{
    for ( /* void */ ; *v; v++) {
        switch (*v) {
        case '\\':
            chaindata_sbuf_printf(b, "\\\\");
            break;
        case '"':
            chaindata_sbuf_printf(b, "\\\"");
            break;
        case '\n':
            chaindata_sbuf_printf(b, "\\n");
            break;
        default:
            chaindata_sbuf_printf(b, "%c", *v);
        }
    }
}


/*
 * Whether the index at its path can be read, and why not: a scrape is
 * answered either way, so the series stay and the rules see it
 */

static void
chaindata_status_prom_index_up(chaindata_sbuf_t *b,
    const chaindata_status_t *st)
{
    chaindata_status_metric(b, "index_up",
                            "1 when the index at chaindata_db can be read");
    chaindata_sbuf_printf(b, "chaindata_index_up %d\n",
                          st->index_down == NULL);

    if (st->index_down == NULL) {
        return;
    }

    chaindata_status_metric(b, "index_down_info",
                            "Always 1: why the index cannot be read");
    chaindata_sbuf_printf(b, "chaindata_index_down_info{reason=\"");
    chaindata_status_label(b, st->index_down);
    chaindata_sbuf_printf(b, "\"} 1\n");
}


/* the index's own gauges: what it holds, its map, readers and feeds */

static void
chaindata_status_prom_index(chaindata_sbuf_t *b,
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


static void
chaindata_status_prometheus(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    chaindata_status_metric(b, "build_info",
                            "Always 1: the version and the index schema");
    chaindata_sbuf_printf(b, "chaindata_build_info{version=\"%s\","
                          "schema=\"%s\"} 1\n",
                          st->version ? st->version : "", st->schema);

    chaindata_status_prom_index_up(b, st);

    if (st->gathered) {
        chaindata_status_prom_index(b, st, now);

    } else {
        chaindata_status_metric(b, "healthy",
                                "1 when every feed is within the health "
                                "limits");
        chaindata_sbuf_printf(b, "chaindata_healthy 0\n");
    }

    if (st->traffic) {
        chaindata_metrics_prometheus(b, st->traffic);
    }
}


char *
chaindata_status_format(const chaindata_status_t *st, uint64_t now,
    int prometheus)
{
    chaindata_sbuf_t  b;

    if (chaindata_sbuf_init(&b, 4096) != 0) {
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
