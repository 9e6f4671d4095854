
/*
 * chaindata: a rollback of a feed (lmdb-schema/feed.md "Rollback"): the
 * blocks above a height undone from their per-block records
 * (chaindata_feed.c writes them), within the reorg depth a source allows.
 */


#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_feed.h"
#include "chaindata_feed_blocks.h"
#include "chaindata_history.h"
#include "chaindata_int.h"


/* a feed's own (CHAINDATA_FEED_LIST), else the Stacks feed's, the deepest */

uint64_t
chaindata_feed_reorg_default(const char *source)
{
    const chaindata_feed_desc_t  *feed;

    feed = chaindata_feed_named(source);

    return (feed && feed->reorg) ? feed->reorg
                                 : chaindata_feeds[CHAINDATA_FEED_STACKS].reorg;
}


/*
 * A rollback refused: f->err is "a rollback of SOURCE to height HEIGHT "
 * then what fmt says of it; -1.
 */

static int
chaindata_feed_rollback_refused(chaindata_feed_t *f, uint64_t height,
    const char *fmt, ...)
{
    int      n;
    va_list  args;

    n = snprintf(f->err, sizeof(f->err), "a rollback of %s to height %llu ",
                 f->source, (unsigned long long) height);

    if (n > 0 && (size_t) n < sizeof(f->err)) {
        va_start(args, fmt);
        vsnprintf(f->err + n, sizeof(f->err) - n, fmt, args);
        va_end(args);
    }

    return -1;
}


/* a rollback deeper than f->max_depth: refused, the index untouched */

static int
chaindata_feed_too_deep(chaindata_feed_t *f, chaindata_index_t *ix,
    uint64_t height)
{
    int                  rc;
    uint64_t             max;
    unsigned char        hash[CHAINDATA_FEED_HASH_MAX];
    chaindata_feedpos_t  pos;

    max = f->max_depth == CHAINDATA_FEED_DEPTH_DEFAULT
          ? chaindata_feed_reorg_default(f->source) : f->max_depth;

    if (max == 0) {
        return 0;
    }

    rc = chaindata_feed_position(ix, f->source, &pos, hash);

    if (rc < 0) {
        return chaindata_feed_fail(f, "cannot read the position of %s",
                                   f->source);
    }

    if (rc == 1 || pos.height <= height
        || pos.height - height <= max)
    {
        return 0;
    }

    return chaindata_feed_rollback_refused(f, height,
               "undoes %llu blocks (from %llu), more than the maximum %llu "
               "(--max-reorg-depth): is it the same chain?",
               (unsigned long long) (pos.height - height),
               (unsigned long long) pos.height, (unsigned long long) max);
}


/* the undo records of one stored block, applied to ws */

static int
chaindata_feed_undo_block(chaindata_feed_t *f, chaindata_record_t *rec,
    chaindata_arena_t *arena, const unsigned char *v, size_t len,
    chaindata_writeset_t *ws)
{
    size_t                 n;
    unsigned char         *buf;
    chaindata_jv_t        *root, *undo;
    const chaindata_jv_t  *u;

    root = chaindata_feed_block_doc(f, arena, v, len);
    if (root == NULL) {
        return -1;
    }

    undo = chaindata_jv_get(root, "undo");

    if (undo == NULL || undo->type != CHAINDATA_JV_ARRAY) {
        return chaindata_feed_fail(f, "a block record of the index is "
                                   "damaged");
    }

    for (u = undo->child; u; u = u->next) {
        n = chaindata_jv_size(u);
        buf = malloc(n);
        if (buf == NULL) {
            return chaindata_feed_fail(f, "out of memory");
        }

        chaindata_jv_write(buf, u);

        if (chaindata_record_parse(rec, buf, n, ws) != 0) {
            free(buf);
            return chaindata_feed_fail(f, "an undo record of the index is "
                                       "damaged: %s", rec->err);
        }

        free(buf);
    }

    return 0;
}


/* the position after a rollback: the block at height, if recorded */

static int
chaindata_feed_rewind(chaindata_feed_t *f, chaindata_index_t *ix,
    chaindata_arena_t *arena, uint64_t height, chaindata_writeset_t *ws)
{
    int                    rc;
    size_t                 klen, len, hash_len;
    unsigned char          key[CHAINDATA_BLOCK_KEY_MAX], *v;
    unsigned char          hash[CHAINDATA_FEED_HASH_MAX];
    uint64_t               t;
    chaindata_jv_t        *root;

    klen = chaindata_block_key(key, f->source, height);

    rc = chaindata_feed_get(ix, CHAINDATA_DBI_BLOCK, key, klen, &v, &len);

    if (rc < 0) {
        return chaindata_feed_fail(f, "cannot read the block records");
    }

    if (rc == 1) {
        /* before the first recorded block: the feed starts over */
        if (chaindata_writeset_add(ws, CHAINDATA_WRITE_DEL,
                                   CHAINDATA_DBI_FEED,
                                   (const unsigned char *) f->source,
                                   strlen(f->source), 0)
            == NULL)
        {
            return chaindata_feed_fail(f, "out of memory");
        }

        return 0;
    }

    root = chaindata_feed_block_doc(f, arena, v, len);

    if (root == NULL
        || chaindata_jv_hash(root, "hash", hash, &hash_len) != 0
        || chaindata_jv_u64(root, "time", &t) != 0)
    {
        free(v);
        return chaindata_feed_fail(f, "a block record of the index is "
                                   "damaged");
    }

    rc = chaindata_feed_put_position(f, ws, height, t, hash, hash_len);
    free(v);

    return rc;
}


/*
 * A rollback to below the first recorded block of the source agrees with
 * none of them: the mirror refuses such a reorg, and so does a follower
 * (f->keep_first): -1 with f->err, the index untouched; else 0.
 */

static int
chaindata_feed_below_first(chaindata_feed_t *f, MDB_cursor *cur,
    uint64_t height)
{
    size_t          klen, plen;
    uint64_t        first;
    MDB_val         key, val;
    unsigned char   k[CHAINDATA_BLOCK_KEY_MAX];
    const uint8_t  *p;
    int             i;

    klen = chaindata_block_key(k, f->source, 0);
    plen = klen - 8;
    key.mv_data = k;
    key.mv_size = klen;

    if (mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE) != 0
        || key.mv_size != klen || memcmp(key.mv_data, k, plen) != 0)
    {
        return 0;
    }

    p = (const uint8_t *) key.mv_data + plen;

    for (first = 0, i = 0; i < 8; i++) {
        first = first << 8 | p[i];
    }

    if (height >= first) {
        return 0;
    }

    return chaindata_feed_rollback_refused(f, height,
               "is below every recorded block (the first is %llu): it agrees "
               "with none of them: is it the same chain?",
               (unsigned long long) first);
}


/*
 * The undo records of the source's blocks above height, to ws, newest
 * block first: a block's undo may need the blocks above it undone (a
 * rune_block is removed from the end of its lists).  0 when done, -1
 * with f->err (or none: out of memory), or LMDB's MDB_NOTFOUND.
 */

static int
chaindata_feed_undo_above(chaindata_feed_t *f, chaindata_record_t *rec,
    chaindata_arena_t *arena, MDB_cursor *cur, uint64_t height,
    chaindata_writeset_t *ws)
{
    int            rc;
    size_t         klen, plen;
    MDB_val        key, val;
    unsigned char  k[CHAINDATA_BLOCK_KEY_MAX];

    klen = chaindata_block_key(k, f->source, UINT64_MAX);
    plen = klen - 8;
    key.mv_data = k;
    key.mv_size = klen;

    /* the source's last block record: at its end, or before the next */
    rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);

    if (rc == 0 && (key.mv_size != klen || memcmp(key.mv_data, k, klen) != 0))
    {
        rc = mdb_cursor_get(cur, &key, &val, MDB_PREV);

    } else if (rc == MDB_NOTFOUND) {
        rc = mdb_cursor_get(cur, &key, &val, MDB_LAST);
    }

    for ( /* void */ ; rc == 0;
         rc = mdb_cursor_get(cur, &key, &val, MDB_PREV))
    {
        if (key.mv_size != klen || memcmp(key.mv_data, k, plen) != 0
            || chaindata_get_u64be((unsigned char *) key.mv_data + plen)
               <= height)
        {
            break;
        }

        chaindata_arena_reset(arena);

        if (chaindata_feed_undo_block(f, rec, arena, val.mv_data,
                                      val.mv_size, ws)
            != 0
            || chaindata_writeset_add(ws, CHAINDATA_WRITE_DEL,
                                      CHAINDATA_DBI_BLOCK, key.mv_data,
                                      key.mv_size, 0)
               == NULL)
        {
            return -1;
        }

        f->undone++;
    }

    return rc;
}


int
chaindata_feed_rollback(chaindata_feed_t *f, chaindata_index_t *ix,
    chaindata_record_t *rec, chaindata_writeset_t *ws)
{
    int                  rc;
    uint64_t             height;
    MDB_txn             *txn;
    MDB_cursor          *cur;
    unsigned char        posh[CHAINDATA_FEED_HASH_MAX];
    chaindata_arena_t   *arena;
    chaindata_feedpos_t  pos;

    f->err[0] = '\0';

    if (f->open) {
        return chaindata_feed_fail(f, "a rollback inside block %llu of %s",
                                   (unsigned long long) f->height,
                                   f->source);
    }

    if (chaindata_feed_read_mark(f, f->source, &height) != 0) {
        return -1;
    }

    if (height == UINT64_MAX) {
        return 0;
    }

    if (chaindata_feed_too_deep(f, ix, height) != 0) {
        return -1;
    }

    if (chaindata_feed_pending(f, ws, &pos, posh) == 1
        && chaindata_feed_read_position(ix, f->source, ws, NULL, NULL) < 0)
    {
        return chaindata_feed_fail(f, "cannot read the position of %s",
                                   f->source);
    }

    arena = chaindata_arena_create();
    if (arena == NULL) {
        return chaindata_feed_fail(f, "out of memory");
    }

    rc = mdb_txn_begin(ix->env, NULL, MDB_RDONLY, &txn);
    if (rc == 0) {
        rc = mdb_cursor_open(txn, ix->dbi[CHAINDATA_DBI_BLOCK], &cur);
        if (rc != 0) {
            mdb_txn_abort(txn);
        }
    }

    if (rc != 0) {
        chaindata_arena_destroy(arena);
        return chaindata_feed_fail(f, "cannot read the block records: %s",
                                   mdb_strerror(rc));
    }

    if (f->keep_first && chaindata_feed_below_first(f, cur, height) != 0) {
        mdb_cursor_close(cur);
        mdb_txn_abort(txn);
        chaindata_arena_destroy(arena);
        return -1;
    }

    rc = chaindata_feed_undo_above(f, rec, arena, cur, height, ws);

    mdb_cursor_close(cur);
    mdb_txn_abort(txn);

    if (rc == -1) {
        chaindata_arena_destroy(arena);
        return f->err[0] ? -1 : chaindata_feed_fail(f, "out of memory");
    }

    chaindata_arena_reset(arena);
    rc = chaindata_feed_rewind(f, ix, arena, height, ws);
    chaindata_arena_destroy(arena);

    return rc;
}
