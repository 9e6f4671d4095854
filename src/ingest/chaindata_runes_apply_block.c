
/*
 * chaindata: the op of a rune_block record in the write transaction (see
 * chaindata_runes_op.h): a block's activity written to rune_ledger and
 * appended to the lists, or taken off them; the newest block held
 * replaced, one below it refused.
 */


#include <errno.h>
#include <string.h>

#include "chaindata_int.h"
#include "chaindata_runes_op.h"


/* an entry of the op's argument */
typedef struct {
    const unsigned char  *id;
    const unsigned char  *ref;
    uint32_t              ref_len;
    const unsigned char  *rest;
    uint32_t              rest_len;
    const unsigned char  *addr;
    size_t                addr_len;
} chaindata_runes_entry_t;


/* the newest block held: 0 and its height, MDB_NOTFOUND, or an error */

static int
chaindata_runes_newest(chaindata_runes_txn_t *t, uint64_t *height)
{
    int                   rc;
    MDB_val               k, v;
    MDB_cursor           *cur;
    const unsigned char  *p;

    rc = mdb_cursor_open(t->txn, t->dbi[CHAINDATA_DBI_RUNE_BLOCK], &cur);
    if (rc != 0) {
        return rc;
    }

    /* the 'h' keys come first, before 's' and 'x': the last of them */
    k.mv_data = "i";
    k.mv_size = 1;

    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    rc = mdb_cursor_get(cur, &k, &v, rc == 0 ? MDB_PREV : MDB_LAST);

    if (rc == 0) {
        p = k.mv_data;

        if (k.mv_size == CHAINDATA_RUNE_BLOCK_KEY_LEN
            && p[0] == CHAINDATA_RUNE_BLOCK_HEIGHT)
        {
            *height = chaindata_get_u64be(p + 1);

        } else {
            rc = MDB_NOTFOUND;
        }
    }

    mdb_cursor_close(cur);

    return rc;
}


/* the lists an entry is in: r, and a and p when it has an address */

static int
chaindata_runes_entry_lists(chaindata_runes_txn_t *t, int add,
    const unsigned char *id, const unsigned char *addr, size_t addr_len,
    const unsigned char *ledger_key)
{
    int            rc, i, n;
    size_t         len[3], a;
    unsigned char  akey[CHAINDATA_RUNE_ADDRESS_KEY_MAX];
    unsigned char  key[3][CHAINDATA_RUNE_LIST_KEY_MAX];

    n = 0;
    len[n++] = chaindata_rune_list_key_r(key[0], id);

    a = addr ? chaindata_rune_address_key(akey, addr, addr_len) : 0;

    if (a) {
        len[n++] = chaindata_rune_list_key_a(key[1], akey, a);
        len[n++] = chaindata_rune_list_key_p(key[2], id, akey, a);
    }

    for (i = 0; i < n; i++) {
        rc = add ? chaindata_runes_list_add(t, key[i], len[i], ledger_key)
                 : chaindata_runes_list_drop(t, key[i], len[i], ledger_key);
        if (rc != 0) {
            return rc;
        }
    }

    return 0;
}


/* a ledger entry's address member, from its stored JSON */

static int
chaindata_runes_ledger_address(chaindata_runes_txn_t *t,
    const MDB_val *v, const unsigned char **addr, size_t *addr_len)
{
    size_t                 len;
    unsigned char         *json;
    chaindata_jv_t        *root, *a;
    const unsigned char   *id, *rest;

    if (chaindata_rune_id_value_parse(v->mv_data, v->mv_size, &id, &rest,
                                      &len)
        != 0)
    {
        return -1;
    }

    json = chaindata_arena_alloc(t->arena, len + 1);
    if (json == NULL) {
        return -1;
    }

    json[0] = '{';
    memcpy(json + 1, rest, len);

    root = chaindata_runes_parse(t, json, len + 1);
    if (root == NULL || root->type != CHAINDATA_JV_OBJECT) {
        return -1;
    }

    a = chaindata_jv_get(root, "address");

    *addr = (a && a->type == CHAINDATA_JV_STRING) ? a->str : NULL;
    *addr_len = *addr ? a->len : 0;

    return 0;
}


/* block height's entries taken off their lists, newest first, and gone */

static int
chaindata_runes_block_remove(chaindata_runes_txn_t *t, uint64_t height)
{
    int                   rc;
    size_t                addr_len;
    MDB_val               v;
    uint32_t              count, pos;
    unsigned char         bkey[CHAINDATA_RUNE_HASH_KEY_LEN];
    unsigned char         hkey[CHAINDATA_RUNE_HASH_KEY_LEN];
    unsigned char         lkey[CHAINDATA_RUNE_LEDGER_KEY_LEN];
    unsigned char         id[CHAINDATA_RUNE_ID_KEY_LEN];
    const unsigned char  *hash, *addr;
    uint64_t              at;

    (void) chaindata_rune_block_key(bkey, height);

    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_BLOCK, bkey,
                             CHAINDATA_RUNE_BLOCK_KEY_LEN, &v);
    if (rc != 0) {
        return rc == MDB_NOTFOUND ? 0 : rc;
    }

    if (chaindata_rune_block_value_parse(v.mv_data, v.mv_size, &count,
                                         &hash)
        != 0)
    {
        return chaindata_runes_refuse(t, "the index is damaged: block "
                                      "%llu's rune_block value is %zu "
                                      "bytes", (unsigned long long) height,
                                      v.mv_size);
    }

    (void) chaindata_rune_hash_key(hkey, hash);

    for (pos = count; pos-- > 0; /* void */) {
        chaindata_rune_ledger_key(lkey, height, pos);

        rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_LEDGER, lkey,
                                 sizeof(lkey), &v);

        if (rc == 0 && chaindata_runes_ledger_address(t, &v, &addr,
                                                      &addr_len)
                       != 0)
        {
            rc = MDB_NOTFOUND;
        }

        if (rc == MDB_NOTFOUND) {
            return chaindata_runes_refuse(t, "the index is damaged: block "
                                          "%llu's entry %u is missing or "
                                          "not one (rebuild the index)",
                                          (unsigned long long) height, pos);
        }

        if (rc != 0) {
            return rc;
        }

        memcpy(id, v.mv_data, sizeof(id));

        rc = chaindata_runes_entry_lists(t, 0, id, addr, addr_len, lkey);
        rc = rc ? rc : chaindata_runes_del(t, CHAINDATA_DBI_RUNE_LEDGER,
                                           lkey, sizeof(lkey));
        if (rc != 0) {
            return rc;
        }
    }

    rc = chaindata_runes_del(t, CHAINDATA_DBI_RUNE_BLOCK, bkey,
                             CHAINDATA_RUNE_BLOCK_KEY_LEN);
    if (rc != 0) {
        return rc;
    }

    /* the hash's key, unless a block at another height has it now */
    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_BLOCK, hkey, sizeof(hkey),
                             &v);

    if (rc == 0 && chaindata_rune_hash_value_parse(v.mv_data, v.mv_size, &at)
                   == 0
        && at != height)
    {
        return 0;
    }

    return rc == MDB_NOTFOUND ? 0
           : chaindata_runes_del(t, CHAINDATA_DBI_RUNE_BLOCK, hkey,
                                 sizeof(hkey));
}


/* the entries of the op's argument, in its order; -1 when it is cut */

static int
chaindata_runes_entries(const unsigned char *p, const unsigned char *end,
    chaindata_runes_entry_t *e, uint32_t n)
{
    uint32_t  i;

    for (i = 0; i < n; i++) {
        if (end - p < CHAINDATA_RUNE_ID_KEY_LEN + 4) {
            return -1;
        }

        e[i].id = p;
        e[i].ref_len = chaindata_get_u32be(p + CHAINDATA_RUNE_ID_KEY_LEN);
        p += CHAINDATA_RUNE_ID_KEY_LEN + 4;

        if ((size_t) (end - p) < (size_t) e[i].ref_len + 4) {
            return -1;
        }

        e[i].ref = p;
        p += e[i].ref_len;
        e[i].rest_len = chaindata_get_u32be(p);
        p += 4;

        if ((size_t) (end - p) < (size_t) e[i].rest_len + 1) {
            return -1;
        }

        e[i].rest = p;
        p += e[i].rest_len;
        e[i].addr_len = *p++;

        if ((size_t) (end - p) < e[i].addr_len) {
            return -1;
        }

        e[i].addr = e[i].addr_len ? p : NULL;
        p += e[i].addr_len;
    }

    return p == end ? 0 : -1;
}


/* one entry's ledger value and rune_ref value */

static int
chaindata_runes_entry_put(chaindata_runes_txn_t *t,
    const chaindata_runes_entry_t *e, const unsigned char *lkey)
{
    int      rc;
    MDB_val  k, v;

    k.mv_data = (void *) lkey;
    k.mv_size = CHAINDATA_RUNE_LEDGER_KEY_LEN;
    v.mv_size = CHAINDATA_RUNE_ID_KEY_LEN + e->rest_len;

    rc = mdb_put(t->txn, t->dbi[CHAINDATA_DBI_RUNE_LEDGER], &k, &v,
                 MDB_RESERVE);
    if (rc != 0) {
        return rc;
    }

    memcpy(v.mv_data, e->id, CHAINDATA_RUNE_ID_KEY_LEN);
    memcpy((unsigned char *) v.mv_data + CHAINDATA_RUNE_ID_KEY_LEN, e->rest,
           e->rest_len);

    return chaindata_runes_put(t, CHAINDATA_DBI_RUNE_REF, e->id,
                               CHAINDATA_RUNE_ID_KEY_LEN, e->ref,
                               e->ref_len);
}


/* a block's entries written, then appended to their lists oldest first */

static int
chaindata_runes_block_write(chaindata_runes_txn_t *t, uint64_t height,
    const unsigned char *hash, const chaindata_runes_entry_t *e, uint32_t n)
{
    int            rc;
    uint32_t       i;
    unsigned char  lkey[CHAINDATA_RUNE_LEDGER_KEY_LEN];
    unsigned char  key[CHAINDATA_RUNE_HASH_KEY_LEN];
    unsigned char  val[CHAINDATA_RUNE_BLOCK_VALUE_LEN];

    for (i = n; i-- > 0; /* void */) {
        chaindata_rune_ledger_key(lkey, height, n - 1 - i);

        rc = chaindata_runes_entry_put(t, &e[i], lkey);
        rc = rc ? rc : chaindata_runes_entry_lists(t, 1, e[i].id, e[i].addr,
                                                   e[i].addr_len, lkey);
        if (rc != 0) {
            return rc;
        }
    }

    (void) chaindata_rune_block_key(key, height);
    (void) chaindata_rune_block_value(val, n, hash);

    rc = chaindata_runes_put(t, CHAINDATA_DBI_RUNE_BLOCK, key,
                             CHAINDATA_RUNE_BLOCK_KEY_LEN, val, sizeof(val));
    if (rc != 0) {
        return rc;
    }

    (void) chaindata_rune_hash_key(key, hash);
    chaindata_put_u64be(val, height);

    return chaindata_runes_put(t, CHAINDATA_DBI_RUNE_BLOCK, key,
                               CHAINDATA_RUNE_HASH_KEY_LEN, val, 8);
}


int
chaindata_runes_block(chaindata_runes_txn_t *t, const unsigned char *arg,
    size_t len)
{
    int                       rc;
    uint32_t                  n;
    uint64_t                  height, newest;
    const unsigned char      *hash;
    chaindata_runes_entry_t  *e;

    if (len < 12) {
        return chaindata_runes_refuse(t, "a rune_block op is cut short");
    }

    height = chaindata_get_u64be(arg);
    n = chaindata_get_u32be(arg + 8);
    hash = arg + 12;

    if (n && len < 12 + CHAINDATA_RUNE_HASH_LEN) {
        return chaindata_runes_refuse(t, "a rune_block op is cut short");
    }

    e = NULL;

    if (n) {
        e = chaindata_arena_alloc(t->arena, (size_t) n * sizeof(*e));
        if (e == NULL) {
            return ENOMEM;
        }

        if (chaindata_runes_entries(hash + CHAINDATA_RUNE_HASH_LEN,
                                    arg + len, e, n)
            != 0)
        {
            return chaindata_runes_refuse(t, "a rune_block op is cut short");
        }
    }

    rc = chaindata_runes_newest(t, &newest);

    if (rc == 0 && height < newest) {
        return chaindata_runes_refuse(t, "block %llu is below the newest "
                                      "block held (%llu): undo the blocks "
                                      "above it first",
                                      (unsigned long long) height,
                                      (unsigned long long) newest);
    }

    if (rc == 0 && height == newest) {
        rc = chaindata_runes_block_remove(t, height);

    } else if (rc == MDB_NOTFOUND) {
        rc = 0;
    }

    if (rc != 0 || n == 0) {
        return rc;
    }

    return chaindata_runes_block_write(t, height, hash, e, n);
}
