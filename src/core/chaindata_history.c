
/*
 * chaindata: the history the index holds of each chain (see the header,
 * and lmdb-schema/feed.md "The history a feed holds").
 */


#include <string.h>

#include "chaindata_feedstate.h"
#include "chaindata_history.h"


size_t
chaindata_block_key(unsigned char *key, const char *source, uint64_t height)
{
    size_t  n;
    int     i;

    n = strlen(source);
    key[0] = (unsigned char) n;
    memcpy(key + 1, source, n);

    for (i = 0; i < 8; i++) {
        key[1 + n + i] = (unsigned char) (height >> (56 - 8 * i));
    }

    return 1 + n + 8;
}


/* the lowest block recorded of source: 0 found, MDB_NOTFOUND, or an error */

static int
chaindata_history_first_block(MDB_txn *txn, MDB_dbi dbi, const char *source,
    uint64_t *first)
{
    int             rc;
    size_t          i, len;
    MDB_val         key, val;
    MDB_cursor     *cur;
    unsigned char   k[1 + 32 + 8];
    unsigned char  *p;

    len = chaindata_block_key(k, source, 0);

    rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc != 0) {
        return rc;
    }

    key.mv_data = k;
    key.mv_size = len;

    rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);

    mdb_cursor_close(cur);

    if (rc != 0) {
        return rc;
    }

    if (key.mv_size != len || memcmp(key.mv_data, k, len - 8) != 0) {
        return MDB_NOTFOUND;
    }

    p = (unsigned char *) key.mv_data + len - 8;
    *first = 0;

    for (i = 0; i < 8; i++) {
        *first = (*first << 8) | p[i];
    }

    return 0;
}


/* whether the routes of the feed have records, of whatever writer */

static int
chaindata_history_has_records(MDB_txn *txn, const MDB_dbi *dbi,
    const chaindata_feed_desc_t *feed, int *has)
{
    int        rc;
    size_t     i;
    MDB_stat   ms;

    *has = 0;

    for (i = 0; i < 2; i++) {
        if (feed->data[i] == CHAINDATA_DBI_COUNT) {
            continue;
        }

        rc = mdb_stat(txn, dbi[feed->data[i]], &ms);
        if (rc != 0) {
            return rc;
        }

        if (ms.ms_entries) {
            *has = 1;
            return 0;
        }
    }

    return 0;
}


int
chaindata_history_read(MDB_txn *txn, const MDB_dbi *dbi,
    chaindata_history_source_e source, chaindata_history_t *h)
{
    int                           rc, has;
    size_t                        n;
    MDB_val                       key, val;
    unsigned char                 k[sizeof(CHAINDATA_STATE_KEY) + 32];
    const chaindata_feed_desc_t  *feed;

    feed = &chaindata_feeds[source];
    h->first = 0;

    /* the blocks its writers framed: the lowest is where its history starts */
    rc = chaindata_history_first_block(txn, dbi[CHAINDATA_DBI_BLOCK],
                                       feed->source, &h->first);
    if (rc == 0) {
        h->kind = (h->first <= feed->chain_first) ? CHAINDATA_HISTORY_WHOLE
                                                  : CHAINDATA_HISTORY_PARTIAL;
        return 0;
    }

    if (rc != MDB_NOTFOUND) {
        return rc;
    }

    /* a mirror follows it (its state: record) but committed no block yet */
    n = sizeof(CHAINDATA_STATE_KEY) - 1;
    memcpy(k, CHAINDATA_STATE_KEY, n);
    memcpy(k + n, feed->source, strlen(feed->source));

    key.mv_data = k;
    key.mv_size = n + strlen(feed->source);

    rc = mdb_get(txn, dbi[CHAINDATA_DBI_FEED], &key, &val);

    if (rc == 0) {
        h->kind = CHAINDATA_HISTORY_EMPTY;
        return 0;
    }

    if (rc != MDB_NOTFOUND) {
        return rc;
    }

    /* records loaded without block framing: the loader's input is whole */
    rc = chaindata_history_has_records(txn, dbi, feed, &has);
    if (rc != 0) {
        return rc;
    }

    h->kind = has ? CHAINDATA_HISTORY_LOADED : CHAINDATA_HISTORY_NONE;

    return 0;
}
