
/*
 * chaindata: a block of a feed, opened and closed: feed positions and the
 * per-block records that let a rollback (chaindata_feed_rollback.c) undo
 * blocks (lmdb-schema/feed.md).  The framing records are read and written
 * in chaindata_feed_frame.c.
 */


#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chaindata_feed.h"
#include "chaindata_feed_blocks.h"
#include "chaindata_hex.h"
#include "chaindata_history.h"




int
chaindata_feed_init(chaindata_feed_t *f)
{
    memset(f, 0, sizeof(*f));

    f->arena = chaindata_arena_create();

    return f->arena ? 0 : -1;
}


void
chaindata_feed_free(chaindata_feed_t *f)
{
    chaindata_arena_destroy(f->arena);
    free(f->undo);
}


int
chaindata_feed_fail(chaindata_feed_t *f, const char *fmt, ...)
{
    va_list  args;

    va_start(args, fmt);
    vsnprintf(f->err, sizeof(f->err), fmt, args);
    va_end(args);

    return -1;
}


int
chaindata_feed_get(chaindata_index_t *ix, chaindata_dbi_e db,
    const unsigned char *k, size_t klen, unsigned char **val, size_t *len)
{
    int       rc;
    MDB_txn  *txn;
    MDB_val   key, v;

    rc = mdb_txn_begin(ix->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) {
        return -1;
    }

    key.mv_data = (void *) k;
    key.mv_size = klen;

    rc = mdb_get(txn, ix->dbi[db], &key, &v);

    if (rc == 0) {
        *val = malloc(v.mv_size + 1);

        if (*val == NULL) {
            rc = -1;

        } else {
            memcpy(*val, v.mv_data, v.mv_size);
            *len = v.mv_size;
        }
    }

    mdb_txn_abort(txn);

    return rc == 0 ? 0 : (rc == MDB_NOTFOUND ? 1 : -1);
}


/*
 * The source's position as the index has it (0, 1 none, -1); with ws,
 * the write set then expects it unchanged when it is applied: a block or
 * a rollback is decided on it, and another writer's commit in between
 * makes the commit fail (chaindata_index_commit()), never applied on a
 * position it was not checked against.
 */

int
chaindata_feed_read_position(chaindata_index_t *ix, const char *source,
    chaindata_writeset_t *ws, chaindata_feedpos_t *pos, unsigned char *hash)
{
    int             rc;
    size_t          len;
    unsigned char  *v;

    v = NULL;
    len = 0;

    rc = chaindata_feed_get(ix, CHAINDATA_DBI_FEED,
                            (const unsigned char *) source, strlen(source),
                            &v, &len);
    if (rc < 0) {
        return -1;
    }

    if (ws
        && chaindata_writeset_expect(ws, CHAINDATA_DBI_FEED,
                                     (const unsigned char *) source,
                                     strlen(source), rc == 0 ? v : NULL,
                                     len)
           != 0)
    {
        rc = -1;

    } else if (rc == 0 && pos) {
        rc = chaindata_feedpos_decode(pos, v, len);

        if (rc == 0) {
            memcpy(hash, pos->hash, pos->hash_len);
            pos->hash = hash;
        }
    }

    free(v);

    return rc;
}


int
chaindata_feed_position(chaindata_index_t *ix, const char *source,
    chaindata_feedpos_t *pos, unsigned char *hash)
{
    return chaindata_feed_read_position(ix, source, NULL, pos, hash);
}


/* the members of a stored block record, parsed into f's arena */

chaindata_jv_t *
chaindata_feed_block_doc(chaindata_feed_t *f, chaindata_arena_t *arena,
    const unsigned char *v, size_t len)
{
    char             err[CHAINDATA_ERR_LEN];
    chaindata_jv_t  *root;

    root = chaindata_jdoc_parse(arena, v, len, err, sizeof(err));

    if (root == NULL || root->type != CHAINDATA_JV_OBJECT) {
        chaindata_feed_fail(f, "a block record of the index is damaged");
        return NULL;
    }

    return root;
}


int
chaindata_feed_block_get(chaindata_index_t *ix, const char *source,
    uint64_t height, unsigned char **v, size_t *len)
{
    size_t         klen;
    unsigned char  key[CHAINDATA_BLOCK_KEY_MAX];

    klen = chaindata_block_key(key, source, height);

    return chaindata_feed_get(ix, CHAINDATA_DBI_BLOCK, key, klen, v, len);
}


int
chaindata_feed_block_hash(chaindata_index_t *ix, const char *source,
    uint64_t height, unsigned char *hash, size_t *hash_len)
{
    int                 rc;
    size_t              klen, len;
    unsigned char       key[CHAINDATA_BLOCK_KEY_MAX], *v;
    chaindata_jv_t     *root;
    chaindata_arena_t  *arena;
    char                err[CHAINDATA_ERR_LEN];

    klen = chaindata_block_key(key, source, height);

    rc = chaindata_feed_get(ix, CHAINDATA_DBI_BLOCK, key, klen, &v, &len);
    if (rc != 0) {
        return rc;
    }

    rc = -1;
    arena = chaindata_arena_create();

    if (arena) {
        root = chaindata_jdoc_parse(arena, v, len, err, sizeof(err));

        if (root && chaindata_jv_hash(root, "hash", hash, hash_len) == 0) {
            rc = 0;
        }

        chaindata_arena_destroy(arena);
    }

    free(v);

    return rc;
}


/*
 * The position in the write set, not committed yet: the last block of
 * the source ended in it (a producer may commit blocks several at once,
 * as the mirror's catch-up fill does), or a rollback's.  0, 1 when the
 * write set holds none (the index's then), -1 when it deletes it.
 */

int
chaindata_feed_pending(chaindata_feed_t *f, chaindata_writeset_t *ws,
    chaindata_feedpos_t *pos, unsigned char *hash)
{
    size_t                    n, len;
    const chaindata_write_t  *w;

    len = strlen(f->source);

    for (n = ws->nwrites; n-- > 0; /* void */) {
        w = &ws->writes[n];

        if (w->db != CHAINDATA_DBI_FEED || w->key_len != len
            || memcmp(ws->buf + w->key_off, f->source, len) != 0)
        {
            continue;
        }

        if (w->action != CHAINDATA_WRITE_PUT
            || chaindata_feedpos_decode(pos, ws->buf + w->val_off,
                                        w->val_len)
               != 0)
        {
            return -1;
        }

        memcpy(hash, pos->hash, pos->hash_len);
        pos->hash = hash;

        return 0;
    }

    return 1;
}


int
chaindata_feed_begin(chaindata_feed_t *f, chaindata_index_t *ix,
    chaindata_writeset_t *ws)
{
    int                  rc;
    size_t               len;
    unsigned char        hash[CHAINDATA_FEED_HASH_MAX];
    unsigned char        posh[CHAINDATA_FEED_HASH_MAX];
    chaindata_feedpos_t  pos;

    if (f->open) {
        return chaindata_feed_fail(f, "a block record inside block %llu "
                                   "of %s (no block_end)",
                                   (unsigned long long) f->height,
                                   f->source);
    }

    if (chaindata_feed_read_block(f) != 0) {
        return -1;
    }

    f->skip = 0;
    f->undo_len = 0;

    rc = chaindata_feed_pending(f, ws, &pos, posh);

    if (rc == 1) {
        rc = chaindata_feed_read_position(ix, f->source, ws, &pos, posh);

    } else if (rc < 0) {
        rc = 1;                         /* a rollback deleted it */
    }

    if (rc < 0) {
        return chaindata_feed_fail(f, "cannot read the position of %s",
                                   f->source);
    }

    if (rc == 0 && f->height <= pos.height) {
        rc = chaindata_feed_block_hash(ix, f->source, f->height, hash,
                                       &len);

        if (rc == 0 && len == f->hash_len
            && memcmp(hash, f->hash, len) == 0)
        {
            /* committed already: a replay, its records are left out */
            f->skip = 1;
            f->open = 1;
            return 0;
        }

        return chaindata_feed_fail(f, "block %llu of %s is not the one "
                                   "committed at that height: send a "
                                   "rollback first",
                                   (unsigned long long) f->height,
                                   f->source);
    }

    if (rc == 0 && f->height != pos.height + 1) {
        return chaindata_feed_fail(f, "block %llu of %s leaves a gap after "
                                   "the committed block %llu",
                                   (unsigned long long) f->height, f->source,
                                   (unsigned long long) pos.height);
    }

    if (rc == 0
        && (pos.hash_len != f->parent_len
            || memcmp(pos.hash, f->parent, f->parent_len) != 0))
    {
        return chaindata_feed_fail(f, "the parent of block %llu of %s is "
                                   "not the committed block %llu: send a "
                                   "rollback first",
                                   (unsigned long long) f->height, f->source,
                                   (unsigned long long) pos.height);
    }

    f->open = 1;
    f->ix = ix;

    return 0;
}


static int
chaindata_feed_undo_add(chaindata_feed_t *f, const char *head,
    const chaindata_jv_t *id, const char *tail)
{
    size_t          need, cap;
    unsigned char  *p;

    need = 1 + strlen(head) + chaindata_jv_size(id) + strlen(tail);

    if (f->undo_cap - f->undo_len < need) {
        cap = f->undo_cap ? f->undo_cap : 4096;

        while (cap - f->undo_len < need) {
            cap *= 2;
        }

        p = realloc(f->undo, cap);
        if (p == NULL) {
            return chaindata_feed_fail(f, "out of memory");
        }

        f->undo = p;
        f->undo_cap = cap;
    }

    p = f->undo + f->undo_len;

    if (f->undo_len) {
        *p++ = ',';
    }

    p = (unsigned char *) memcpy(p, head, strlen(head)) + strlen(head);
    p = chaindata_jv_write(p, id);
    p = (unsigned char *) memcpy(p, tail, strlen(tail)) + strlen(tail);

    f->undo_len = p - f->undo;

    return 0;
}


/*
 * A transaction the open block lists must not be confirmed in the index
 * already: another block lists it (or a load without framing wrote it),
 * and undoing this block would delete it from under that one.  A pending
 * one (no events) is what a block confirms.
 */

static int
chaindata_feed_tx_unlisted(chaindata_feed_t *f, const chaindata_jv_t *id)
{
    int             rc, prefixed, confirmed;
    MDB_txn        *txn;
    MDB_val         key, val;
    unsigned char   txid[CHAINDATA_TXID_LEN];

    if (id == NULL || id->type != CHAINDATA_JV_STRING
        || chaindata_txid_parse(id->str, id->len, txid, &prefixed) != 0)
    {
        return 0;    /* the record's own check refuses it */
    }

    rc = mdb_txn_begin(f->ix->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) {
        return chaindata_feed_fail(f, "cannot read the index: %s",
                                   mdb_strerror(rc));
    }

    key.mv_data = txid;
    key.mv_size = sizeof(txid);

    confirmed = mdb_get(txn, f->ix->dbi[CHAINDATA_DBI_TX], &key, &val) == 0
                && chaindata_txh_has(val.mv_data, val.mv_size,
                                     CHAINDATA_TXH_EVENTS);

    mdb_txn_abort(txn);

    if (!confirmed) {
        return 0;
    }

    return chaindata_feed_fail(f, "block %llu of %s lists the transaction "
                               "%.*s, which the index holds confirmed "
                               "already (in another block): a transaction "
                               "belongs to one block, and a rollback of "
                               "this one would delete it from the other",
                               (unsigned long long) f->height, f->source,
                               (int) id->len, (const char *) id->str);
}


int
chaindata_feed_note(chaindata_feed_t *f)
{
    const chaindata_jv_t  *kind, *data, *id;

    if (!f->open || f->skip || f->root == NULL) {
        return 0;
    }

    kind = chaindata_jv_get(f->root, "kind");
    data = chaindata_jv_get(f->root, "data");

    if (chaindata_jv_is(kind, "tx")) {
        id = data ? chaindata_jv_get(data, "tx_id")
                  : chaindata_jv_get(f->root, "delete");

        if (data && chaindata_feed_tx_unlisted(f, id) != 0) {
            return -1;
        }

        return chaindata_feed_undo_add(f, "{\"kind\":\"tx\",\"delete\":",
                                       id, "}");
    }

    if (chaindata_jv_is(kind, "rune_activity")) {
        id = chaindata_jv_get(f->root, "tx_id");
        return chaindata_feed_undo_add(f, "{\"kind\":\"rune_activity\","
                                       "\"tx_id\":", id, ",\"results\":[]}");
    }

    if (chaindata_jv_is(kind, "rune_balances")) {
        id = chaindata_jv_get(f->root, "address");
        return chaindata_feed_undo_add(f, "{\"kind\":\"rune_balances\","
                                       "\"address\":", id,
                                       ",\"results\":[]}");
    }

    if (chaindata_jv_is(kind, "rune_block")) {
        id = chaindata_jv_get(f->root, "block_height");
        return chaindata_feed_undo_add(f, "{\"kind\":\"rune_block\","
                                       "\"block_height\":", id,
                                       ",\"results\":[]}");
    }

    /* the etching before the block is not kept: its feed fetches it again */
    if (chaindata_jv_is(kind, "rune_etching")) {
        id = chaindata_jv_get(f->root, "id");
        return chaindata_feed_undo_add(f, "{\"kind\":\"rune_etching\","
                                       "\"id\":", id,
                                       ",\"etching\":null}");
    }

    /* chainhooks belong to no block: nothing to undo */
    return 0;
}


int
chaindata_feed_put_position(chaindata_feed_t *f, chaindata_writeset_t *ws,
    uint64_t height, uint64_t t, const unsigned char *hash, size_t hash_len)
{
    unsigned char        *v;
    chaindata_feedpos_t   pos;

    pos.height = height;
    pos.time = t;
    pos.committed = f->now ? f->now : (uint64_t) time(NULL);
    pos.hash = hash;
    pos.hash_len = hash_len;

    v = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_FEED,
                               (const unsigned char *) f->source,
                               strlen(f->source),
                               CHAINDATA_FEED_SIZE + hash_len);
    if (v == NULL) {
        return chaindata_feed_fail(f, "out of memory");
    }

    chaindata_feedpos_encode(v, &pos);

    return 0;
}


int
chaindata_feed_end(chaindata_feed_t *f, chaindata_writeset_t *ws)
{
    int             n;
    char            head[512];
    size_t          klen;
    uint64_t        height;
    unsigned char   key[CHAINDATA_BLOCK_KEY_MAX], *v;
    char            source[CHAINDATA_FEED_SOURCE_MAX + 1];

    if (chaindata_feed_read_mark(f, source, &height) != 0) {
        return -1;
    }

    if (!f->open || strcmp(source, f->source) != 0 || height != f->height) {
        return chaindata_feed_fail(f, "block_end of block %llu of %s, "
                                   "which is not the open block",
                                   (unsigned long long) height, source);
    }

    f->open = 0;

    if (f->skip) {
        return 0;
    }

    if (chaindata_feed_put_position(f, ws, f->height, f->time, f->hash,
                                    f->hash_len)
        != 0)
    {
        return -1;
    }

    n = snprintf(head, sizeof(head), "{\"hash\":\"%.*s\",\"parent\":\"%.*s\","
                 "\"time\":%llu,\"undo\":[", (int) f->hash_len, f->hash,
                 (int) f->parent_len, f->parent,
                 (unsigned long long) f->time);

    klen = chaindata_block_key(key, f->source, f->height);

    v = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_BLOCK,
                               key, klen, n + f->undo_len + 2);
    if (v == NULL) {
        return chaindata_feed_fail(f, "out of memory");
    }

    memcpy(v, head, n);

    if (f->undo_len) {
        memcpy(v + n, f->undo, f->undo_len);
    }
    memcpy(v + n + f->undo_len, "]}", 2);

    return 0;
}


void
chaindata_feed_abandon(chaindata_feed_t *f)
{
    f->open = 0;
    f->skip = 0;
    f->undo_len = 0;
}
