
/*
 * chaindata: a value over a leaf node kept as parts (see the header).
 */


#include <string.h>

#include "chaindata_key_run.h"
#include "chaindata_parts.h"


#define CHAINDATA_PART_KEY_MAX        (CHAINDATA_NODE_MAX + 1)


#define CHAINDATA_DB_PART(id, name, flags, part)  part,

static const size_t  chaindata_parts_nodes[CHAINDATA_DBI_COUNT] = {
    CHAINDATA_DB_LIST(CHAINDATA_DB_PART)
};


size_t
chaindata_parts_node(chaindata_dbi_e db)
{
    return chaindata_parts_nodes[db];
}


/* a first part's bytes under a key of key_len in db, 0: none in parts */

static size_t
chaindata_parts_first(chaindata_dbi_e db, size_t key_len)
{
    size_t  node;

    node = chaindata_parts_node(db);

    return key_len + 2 < node ? node - key_len : 0;
}


int
chaindata_parts_has(chaindata_dbi_e db, size_t key_len, size_t val_len)
{
    size_t  first;

    first = chaindata_parts_first(db, key_len);

    return first && val_len == first;
}


/* 1 when key is part i of the value under base */

static int
chaindata_part_key_is(const MDB_val *key, const MDB_val *base, size_t i)
{
    const unsigned char  *k;

    k = key->mv_data;

    return key->mv_size == base->mv_size + 1
           && memcmp(k, base->mv_data, base->mv_size) == 0
           && k[base->mv_size] == i;
}


/* parts follow while they are full: the last one has fewer bytes */

int
chaindata_parts_read(MDB_cursor *cur, chaindata_dbi_e db, const MDB_val *key,
    MDB_val *part, size_t *n, size_t *len)
{
    int      rc;
    size_t   i, size;
    MDB_val  k;

    *len = chaindata_parts_first(db, key->mv_size);
    size = *len - 1;

    for (i = 1; i < CHAINDATA_PARTS_MAX; i++) {
        rc = mdb_cursor_get(cur, &k, &part[i - 1], MDB_NEXT);

        if (rc == MDB_NOTFOUND) {
            return CHAINDATA_PARTS_DAMAGED;
        }

        if (rc != 0) {
            return rc;
        }

        if (!chaindata_part_key_is(&k, key, i)
            || part[i - 1].mv_size > size)
        {
            return CHAINDATA_PARTS_DAMAGED;
        }

        *len += part[i - 1].mv_size;

        if (part[i - 1].mv_size < size) {
            *n = i;
            return 0;
        }
    }

    return CHAINDATA_PARTS_DAMAGED;
}


void
chaindata_parts_join(unsigned char *dst, const MDB_val *first,
    const MDB_val *part, size_t n)
{
    size_t  i;

    memcpy(dst, first->mv_data, first->mv_size);
    dst += first->mv_size;

    for (i = 0; i < n; i++) {
        if (part[i].mv_size) {
            memcpy(dst, part[i].mv_data, part[i].mv_size);
            dst += part[i].mv_size;
        }
    }
}


/* the parts of the value under key, whatever it holds now */

static int
chaindata_parts_del_parts(MDB_txn *txn, MDB_dbi dbi, const MDB_val *key)
{
    MDB_val        from;
    unsigned char  buf[CHAINDATA_PART_KEY_MAX];

    memcpy(buf, key->mv_data, key->mv_size);
    buf[key->mv_size] = 1;

    from.mv_data = buf;
    from.mv_size = key->mv_size + 1;

    return chaindata_key_run_delete(txn, dbi, &from, key->mv_size,
                                    from.mv_size);
}


/* the parts a value under key had, when it had some */

static int
chaindata_parts_drop(MDB_txn *txn, MDB_dbi dbi, chaindata_dbi_e db,
    const MDB_val *key)
{
    int      rc;
    MDB_val  k, old;

    k = *key;

    rc = mdb_get(txn, dbi, &k, &old);

    if (rc == MDB_NOTFOUND) {
        return 0;
    }

    if (rc != 0 || !chaindata_parts_has(db, key->mv_size, old.mv_size)) {
        return rc;
    }

    return chaindata_parts_del_parts(txn, dbi, key);
}


static int
chaindata_parts_write(MDB_txn *txn, MDB_dbi dbi, const MDB_val *key,
    const MDB_val *val, size_t first)
{
    int                   rc;
    size_t                i, left, size;
    MDB_val               k, v;
    const unsigned char  *p;
    unsigned char         buf[CHAINDATA_PART_KEY_MAX];

    k = *key;
    v.mv_data = val->mv_data;
    v.mv_size = first;

    rc = mdb_put(txn, dbi, &k, &v, 0);

    size = first - 1;
    p = (const unsigned char *) val->mv_data + v.mv_size;
    left = val->mv_size - v.mv_size;

    memcpy(buf, key->mv_data, key->mv_size);

    for (i = 1; rc == 0; i++) {
        buf[key->mv_size] = (unsigned char) i;
        k.mv_data = buf;
        k.mv_size = key->mv_size + 1;
        v.mv_data = (void *) p;
        v.mv_size = left < size ? left : size;

        rc = mdb_put(txn, dbi, &k, &v, 0);

        if (v.mv_size < size) {
            break;
        }

        p += size;
        left -= size;
    }

    return rc;
}


int
chaindata_parts_put(MDB_txn *txn, MDB_dbi dbi, chaindata_dbi_e db,
    const MDB_val *key, const MDB_val *val)
{
    int      rc;
    size_t   first;
    MDB_val  k, v;

    first = chaindata_parts_first(db, key->mv_size);

    if (first) {
        rc = chaindata_parts_drop(txn, dbi, db, key);
        if (rc != 0) {
            return rc;
        }

        /* the most: parts all full but the last, one byte short */
        if (val->mv_size >= first
            && val->mv_size < first + (CHAINDATA_PARTS_MAX - 1) * (first - 1))
        {
            return chaindata_parts_write(txn, dbi, key, val, first);
        }
    }

    k = *key;
    v = *val;

    return mdb_put(txn, dbi, &k, &v, 0);
}


int
chaindata_parts_del(MDB_txn *txn, MDB_dbi dbi, chaindata_dbi_e db,
    const MDB_val *key)
{
    int      rc;
    MDB_val  k;

    if (chaindata_parts_first(db, key->mv_size)) {
        rc = chaindata_parts_drop(txn, dbi, db, key);
        if (rc != 0) {
            return rc;
        }
    }

    k = *key;
    rc = mdb_del(txn, dbi, &k, NULL);

    return rc == MDB_NOTFOUND ? 0 : rc;
}


const char *
chaindata_parts_strerror(int rc)
{
    return rc == CHAINDATA_PARTS_DAMAGED
           ? "a value's parts are not as written (a damaged index)"
           : mdb_strerror(rc);
}
