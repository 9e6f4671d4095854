
/*
 * The history the index holds of each chain (src/core/chaindata_history.c,
 * lmdb-schema/feed.md "The history a feed holds"): nothing, a writer's
 * state: record alone, records loaded without blocks, the lowest block
 * record of the source (its own, not a source whose name starts alike)
 * against the chain's first block; and the feeds' one list
 * (src/core/chaindata_feeds.h) it reads them from.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "chaindata_feed.h"
#include "chaindata_feeds.h"
#include "chaindata_history.h"
#include "chaindata_schema.h"
#include "unit.h"


static int
put(MDB_txn *txn, MDB_dbi dbi, const void *key, size_t klen)
{
    MDB_val  k, v;

    k.mv_data = (void *) key;
    k.mv_size = klen;
    v.mv_data = "x";
    v.mv_size = 1;

    return mdb_put(txn, dbi, &k, &v, 0);
}


static int
put_block(MDB_txn *txn, MDB_dbi *dbi, const char *source, uint64_t height)
{
    size_t         len;
    unsigned char  key[1 + 32 + 8];

    len = chaindata_block_key(key, source, height);

    return put(txn, dbi[CHAINDATA_DBI_BLOCK], key, len);
}


/* the history of a source is of that kind, from that block */

static void
is_history(MDB_txn *txn, MDB_dbi *dbi, chaindata_history_source_e source,
    chaindata_history_e kind, uint64_t first, const char *name)
{
    chaindata_history_t  h;

    ok(chaindata_history_read(txn, dbi, source, &h) == 0
       && h.kind == kind && h.first == first
       && chaindata_history_whole(&h)
          == (kind == CHAINDATA_HISTORY_WHOLE
              || kind == CHAINDATA_HISTORY_LOADED),
       name);
}


void
test_history(void)
{
    int        rc, mdb_rc;
    char       dir[64], err[CHAINDATA_SCHEMA_ERR_LEN], path[96];
    MDB_env   *env;
    MDB_txn   *txn;
    MDB_dbi    dbi[CHAINDATA_DBI_COUNT];

    unsigned char  key[8];

    snprintf(dir, sizeof(dir), "/tmp/chaindata-unit-XXXXXX");

    rc = mkdtemp(dir) == NULL;
    rc = rc ? rc : mdb_env_create(&env);
    rc = rc ? rc : mdb_env_set_maxdbs(env, CHAINDATA_MAX_DBS);
    rc = rc ? rc : mdb_env_set_mapsize(env, 16 << 20);
    rc = rc ? rc : mdb_env_open(env, dir, 0, 0600);
    rc = rc ? rc : mdb_txn_begin(env, NULL, 0, &txn);

    if (rc != 0 || chaindata_schema_open(txn, CHAINDATA_SCHEMA_WRITE, dbi,
                                         &mdb_rc, err) != NULL)
    {
        ok(0, "history: an index to read");
        return;
    }

    is_history(txn, dbi, CHAINDATA_HISTORY_STACKS, CHAINDATA_HISTORY_NONE,
               0, "history: nothing of stacks, no feed");
    is_history(txn, dbi, CHAINDATA_HISTORY_RUNES, CHAINDATA_HISTORY_NONE,
               0, "history: nothing of runes, no feed");

    /* a rune list loaded without blocks: taken as the whole history */
    memset(key, 1, sizeof(key));
    put(txn, dbi[CHAINDATA_DBI_RUNE_BALANCES], key, sizeof(key));
    is_history(txn, dbi, CHAINDATA_HISTORY_RUNES, CHAINDATA_HISTORY_LOADED,
               0, "history: rune records without blocks: loaded, whole");

    /* a mirror that follows stacks and committed nothing yet */
    put(txn, dbi[CHAINDATA_DBI_TX], key, sizeof(key));
    put(txn, dbi[CHAINDATA_DBI_FEED], "state:stacks", 12);
    is_history(txn, dbi, CHAINDATA_HISTORY_STACKS, CHAINDATA_HISTORY_EMPTY,
               0, "history: a state: record and no block: empty");

    /* sources whose names start alike are not the feed's */
    put_block(txn, dbi, "stacksx", 1);
    put_block(txn, dbi, "stack", 1);
    is_history(txn, dbi, CHAINDATA_HISTORY_STACKS, CHAINDATA_HISTORY_EMPTY,
               0, "history: the blocks of another source are not stacks'");

    put_block(txn, dbi, "stacks", 2000);
    put_block(txn, dbi, "stacks", 1000);
    is_history(txn, dbi, CHAINDATA_HISTORY_STACKS, CHAINDATA_HISTORY_PARTIAL,
               1000, "history: stacks from 1000: partial, its lowest block");

    put_block(txn, dbi, "stacks", 1);
    is_history(txn, dbi, CHAINDATA_HISTORY_STACKS, CHAINDATA_HISTORY_WHOLE,
               1, "history: stacks from block 1: whole");

    put_block(txn, dbi, "runes", 870000);
    is_history(txn, dbi, CHAINDATA_HISTORY_RUNES, CHAINDATA_HISTORY_PARTIAL,
               870000, "history: runes from 870000: partial, records or not");

    put_block(txn, dbi, "runes", 840000);
    is_history(txn, dbi, CHAINDATA_HISTORY_RUNES, CHAINDATA_HISTORY_WHOLE,
               840000, "history: runes from the activation, 840000: whole");

    mdb_txn_abort(txn);
    mdb_env_close(env);

    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", dir);
    unlink(path);
    rmdir(dir);
}


/*
 * The feeds, one list (src/core/chaindata_feeds.h): in the order the
 * mirror polls them, the history's names for those of blocks, the
 * upstream each reads, and the reorg depths lmdb-schema/feed.md gives
 * ("Reorg depth": runes 100, stacks and any other source 1000).
 */

void
test_feeds(void)
{
    size_t  i;
    char    names[64];

    names[0] = '\0';

    for (i = 0; i < CHAINDATA_FEEDS; i++) {
        strcat(names, i ? " " : "");
        strcat(names, chaindata_feeds[i].source);
    }

    ok(strcmp(names, "stacks mempool runes chainhooks") == 0,
       "feeds: stacks, mempool, runes, chainhooks, in the mirror's order");

    ok(strcmp(chaindata_feeds[CHAINDATA_HISTORY_STACKS].source, "stacks")
       == 0
       && strcmp(chaindata_feeds[CHAINDATA_HISTORY_RUNES].source, "runes")
          == 0,
       "feeds: the history's names are the Stacks and Runes feeds");

    ok(chaindata_feeds[CHAINDATA_FEED_MEMPOOL].upstream
       == CHAINDATA_SOURCE_STACKS
       && strcmp(chaindata_source_names[
                     chaindata_feeds[CHAINDATA_FEED_CHAINHOOKS].upstream],
                 "platform") == 0,
       "feeds: the mempool reads the Stacks API, chainhooks the platform");

    ok(chaindata_feed_reorg_default("runes") == 100
       && chaindata_feed_reorg_default("stacks") == 1000
       && chaindata_feed_reorg_default("mempool") == 1000
       && chaindata_feed_reorg_default("testnet") == 1000,
       "feeds: reorg depths, runes 100, stacks and any other source 1000");

    ok(chaindata_feed_named("runes") == &chaindata_feeds[CHAINDATA_FEED_RUNES]
       && chaindata_feed_named("rune") == NULL,
       "feeds: a feed found by its whole name only");
}
