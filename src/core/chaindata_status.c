
/*
 * chaindata: the index's status (see the header; doc/module.md
 * "Status"): gathered from the index, and its health.  Written as JSON
 * (chaindata_status_format.c) or as Prometheus text
 * (chaindata_status_prom.c).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "chaindata_sbuf.h"
#include "chaindata_index_files.h"
#include "chaindata_schema.h"
#include "chaindata_status.h"
#include "chaindata_status_text.h"


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
 * A name JSON or a Prometheus label would not need to escape: the
 * follower's names have no backslash, blank or control character, and a
 * '"' in one is absurd.
 */

static int
chaindata_status_name_plain(const char *name, size_t len)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if (name[i] <= ' ' || name[i] > '~' || name[i] == '"'
            || name[i] == '\\')
        {
            return 0;
        }
    }

    return 1;
}


/*
 * A stream's position (key CHAINDATA_STREAM_KEY then the name): 1 when
 * the record is one, listed while there is room and its name is plain.
 */

static int
chaindata_status_stream(const MDB_val *key, const MDB_val *val,
    chaindata_status_t *st)
{
    size_t                      n;
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

    if (chaindata_status_name_plain(name, n)
        && st->nstreams < CHAINDATA_STATUS_STREAMS)
    {
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


uint64_t
chaindata_status_lag(const chaindata_status_feed_t *f, uint64_t now)
{
    return now > f->time ? now - f->time : 0;
}


/* blocks behind the stored tip: 0 without one */

uint64_t
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


int
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


/*
 * The writer stops at its next commit once the disk is full ("commit
 * failed ... is the index's disk full?"): what is left is told at each
 * scrape (doc/operations.md, ChaindataIndexDiskFull).  f_bavail: the room
 * a user other than root has, as the index's writer is.
 */

int
chaindata_status_disk(const char *path, chaindata_status_t *st)
{
    struct statvfs  fs;

    st->has_disk = 0;

    if (statvfs(path, &fs) != 0) {
        return -1;
    }

    st->disk_free = (uint64_t) fs.f_bavail * fs.f_frsize;
    st->disk_size = (uint64_t) fs.f_blocks * fs.f_frsize;
    st->has_disk = 1;

    return 0;
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
