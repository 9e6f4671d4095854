
/*
 * chaindata-mirror: a block's records go through the loader's path (the
 * framing records of lmdb-schema/feed.md, then src/ingest's validation
 * into one write set) and are committed in one write transaction with the
 * feed position.
 */


#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chaindata_mirror.h"


static int
chaindata_block_frame(chaindata_mirror_t *m, const char *line, int want)
{
    if (chaindata_feed_peek(&m->feed, (const unsigned char *) line,
                            strlen(line))
        != want)
    {
        chaindata_mirror_log(m, "error", "framing record refused: %s",
                             m->feed.err);
        return -1;
    }

    return chaindata_pub_line(m, (const unsigned char *) line,
                              strlen(line));
}


int
chaindata_block_open(chaindata_mirror_t *m, const char *source,
    uint64_t height, const unsigned char *hash, size_t hash_len,
    const unsigned char *parent, size_t parent_len, uint64_t t)
{
    char  line[600];

    chaindata_block_reset(m);

    snprintf(line, sizeof(line), "{\"kind\":\"block\",\"source\":\"%s\","
             "\"height\":%llu,\"hash\":\"%.*s\",\"parent\":\"%.*s\","
             "\"time\":%llu}", source, (unsigned long long) height,
             (int) hash_len, hash, (int) parent_len, parent,
             (unsigned long long) t);

    if (chaindata_block_frame(m, line, CHAINDATA_FRAME_BLOCK) != 0) {
        return -1;
    }

    if (chaindata_feed_begin(&m->feed, &m->ix) != 0) {
        chaindata_mirror_log(m, "error", "block %llu of %s: %s",
                             (unsigned long long) height, source,
                             m->feed.err);
        return -1;
    }

    return 0;
}


/* one data record of the open block: -1 when the ingest side refuses it */

int
chaindata_block_record(chaindata_mirror_t *m, const unsigned char *line,
    size_t len)
{
    size_t  nwrites, used;

    nwrites = m->ws.nwrites;
    used = m->ws.len;

    if (chaindata_feed_peek(&m->feed, line, len) != CHAINDATA_FRAME_NONE
        || chaindata_record_parse_root(&m->rec, m->feed.root, &m->ws)
           != 0)
    {
        chaindata_mirror_log(m, "error", "block %llu of %s: a record "
                             "upstream's answers make is refused: %s",
                             (unsigned long long) m->feed.height,
                             m->feed.source, m->rec.err);
        return -1;
    }

    if (chaindata_pub_line(m, line, len) != 0) {
        return -1;
    }

    if (m->feed.skip) {
        m->ws.nwrites = nwrites;
        m->ws.len = used;
        return 0;
    }

    if (chaindata_feed_note(&m->feed) != 0) {
        chaindata_mirror_log(m, "error", "block %llu of %s: %s",
                             (unsigned long long) m->feed.height,
                             m->feed.source, m->feed.err);
        return -1;
    }

    return 0;
}


int
chaindata_block_write(chaindata_mirror_t *m)
{
    int  rc;

    /* published first: a crash between the two is made good on start */
    if (chaindata_pub_unit(m) != 0) {
        chaindata_block_reset(m);
        return -1;
    }

    rc = chaindata_index_commit(&m->ix, &m->ws);
    chaindata_block_reset(m);

    if (rc != 0) {
        chaindata_mirror_log(m, "error", "commit failed: %s%s",
                             mdb_strerror(rc),
                             rc == EIO || rc == ENOSPC
                             ? " (is the index's disk full?)"
                             : rc == MDB_MAP_FULL
                             ? " (the map is at its maximum size)" : "");
        return -1;
    }

    return 0;
}


int
chaindata_block_commit(chaindata_mirror_t *m)
{
    char  line[128];

    snprintf(line, sizeof(line), "{\"kind\":\"block_end\",\"source\":\"%s\","
             "\"height\":%llu}", m->feed.source,
             (unsigned long long) m->feed.height);

    if (chaindata_block_frame(m, line, CHAINDATA_FRAME_END) != 0
        || chaindata_feed_end(&m->feed, &m->ws) != 0)
    {
        chaindata_mirror_log(m, "error", "%s", m->feed.err);
        chaindata_block_abandon(m);
        return -1;
    }

    return chaindata_block_write(m);
}


/*
 * The rollback of source to height into the write set, not committed: the
 * caller may add records to its transaction, then chaindata_block_write()
 */

int
chaindata_block_undo(chaindata_mirror_t *m, const char *source,
    uint64_t height)
{
    char  line[128];

    chaindata_block_reset(m);

    snprintf(line, sizeof(line), "{\"kind\":\"rollback\",\"source\":\"%s\","
             "\"height\":%llu}", source, (unsigned long long) height);

    if (chaindata_block_frame(m, line, CHAINDATA_FRAME_ROLLBACK) != 0) {
        return -1;
    }

    if (chaindata_feed_rollback(&m->feed, &m->ix, &m->rec, &m->ws) != 0) {
        chaindata_mirror_log(m, "error", "rollback of %s to %llu: %s",
                             source, (unsigned long long) height,
                             m->feed.err);
        chaindata_block_reset(m);
        return -1;
    }

    return 0;
}


int
chaindata_block_rollback(chaindata_mirror_t *m, const char *source,
    uint64_t height)
{
    if (chaindata_block_undo(m, source, height) != 0) {
        return -1;
    }

    return chaindata_block_write(m);
}


void
chaindata_block_abandon(chaindata_mirror_t *m)
{
    chaindata_feed_abandon(&m->feed);
    chaindata_block_reset(m);
}


void
chaindata_block_reset(chaindata_mirror_t *m)
{
    chaindata_writeset_reset(&m->ws);
    chaindata_pub_reset(m);
}


int
chaindata_jv_u64(const chaindata_jv_t *obj, const char *name, uint64_t *v)
{
    const chaindata_jv_t  *m;

    m = chaindata_jv_get(obj, name);

    return m ? chaindata_jv_to_u64(m, v) : -1;
}


int
chaindata_jv_hash(const chaindata_jv_t *obj, const char *name,
    unsigned char *out, size_t *len)
{
    size_t                 i;
    const chaindata_jv_t  *m;

    m = chaindata_jv_get(obj, name);

    if (m == NULL || m->type != CHAINDATA_JV_STRING
        || m->len > CHAINDATA_FEED_HASH_MAX)
    {
        return -1;
    }

    for (i = 0; i < m->len; i++) {
        if (!((m->str[i] >= '0' && m->str[i] <= '9')
              || (m->str[i] >= 'a' && m->str[i] <= 'z')
              || (m->str[i] >= 'A' && m->str[i] <= 'Z')))
        {
            return -1;
        }
    }

    memcpy(out, m->str, m->len);
    *len = m->len;

    return 0;
}


int
chaindata_mirror_fetch(chaindata_mirror_t *m, chaindata_req_t **reqs,
    size_t n)
{
    int               rc;
    size_t            i;
    chaindata_req_t  *failed;

    for (i = 0; i < n; i++) {
        if (reqs[i] == NULL) {
            chaindata_mirror_log(m, "error", "out of memory");
            return CHAINDATA_MIRROR_SYSTEM;
        }
    }

    failed = NULL;
    rc = chaindata_http_run(&m->http, reqs, n, &failed);

    if (rc == -1) {
        /* a URL with a key in it is named by its label instead */
        chaindata_mirror_log(m, "error", "GET %s: %s (after %u tries); "
                             "nothing of this block was written",
                             failed->label[0] ? failed->label : failed->url,
                             failed->why, failed->tries);
        return CHAINDATA_MIRROR_UPSTREAM;
    }

    if (rc == -2) {
        return -1;
    }

    if (rc != 0) {
        chaindata_mirror_log(m, "error", "the HTTP client failed");
        return CHAINDATA_MIRROR_SYSTEM;
    }

    return CHAINDATA_MIRROR_OK;
}
