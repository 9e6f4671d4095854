
/*
 * chaindata: the writer's side of the index, shared by chaindata-load and
 * chaindata-mirror.
 */


#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "chaindata_index.h"


static int
chaindata_index_fail(chaindata_index_t *ix, const char *what, int rc)
{
    fprintf(stderr, "%s: %s: %s\n", ix->prog, what, mdb_strerror(rc));

    return -1;
}


/*
 * Begins a write transaction.  LMDB lets one writer in at a time: another
 * writer may have grown the map while this one waited (MDB_MAP_RESIZED),
 * so its size is adopted and the transaction begun again.
 */

static int
chaindata_index_write_begin(chaindata_index_t *ix, MDB_txn **txn)
{
    int  rc;

    rc = mdb_txn_begin(ix->env, NULL, 0, txn);

    while (rc == MDB_MAP_RESIZED) {
        rc = mdb_env_set_mapsize(ix->env, 0);

        if (rc == 0) {
            rc = mdb_txn_begin(ix->env, NULL, 0, txn);
        }
    }

    return rc;
}


/*
 * Opens the named databases and checks (or, in a new index, writes) the
 * schema version.
 */

static int
chaindata_index_open_dbs(chaindata_index_t *ix)
{
    int          rc, i;
    const char  *version;
    MDB_txn     *txn;
    MDB_val      key, val;
    MDB_stat     st;

    rc = chaindata_index_write_begin(ix, &txn);
    if (rc != 0) {
        return chaindata_index_fail(ix, "cannot begin a transaction", rc);
    }

    for (i = 0; i < CHAINDATA_DBI_COUNT; i++) {
        rc = mdb_dbi_open(txn, chaindata_db_names[i], MDB_CREATE,
                          &ix->dbi[i]);
        if (rc != 0) {
            mdb_txn_abort(txn);
            return chaindata_index_fail(ix, "cannot open a database", rc);
        }
    }

    version = CHAINDATA_SCHEMA_VERSION;

    key.mv_data = CHAINDATA_META_SCHEMA;
    key.mv_size = sizeof(CHAINDATA_META_SCHEMA) - 1;

    rc = mdb_get(txn, ix->dbi[CHAINDATA_DBI_META], &key, &val);

    if (rc == MDB_NOTFOUND) {
        rc = mdb_stat(txn, ix->dbi[CHAINDATA_DBI_TX], &st);

        if (rc == 0 && st.ms_entries != 0) {
            mdb_txn_abort(txn);
            fprintf(stderr, "%s: %s holds transactions but no schema "
                    "version: not a chaindata index\n", ix->prog, ix->path);
            return -1;
        }

        val.mv_data = (void *) version;
        val.mv_size = strlen(version);

        rc = mdb_put(txn, ix->dbi[CHAINDATA_DBI_META], &key, &val, 0);

    } else if (rc == 0
               && (val.mv_size != strlen(version)
                   || memcmp(val.mv_data, version, val.mv_size) != 0))
    {
        mdb_txn_abort(txn);
        fprintf(stderr, "%s: %s has schema version %.*s, this %s writes "
                "version %s; rebuild the index into a new directory\n",
                ix->prog, ix->path,
                (int) (val.mv_size > 16 ? 16 : val.mv_size),
                (char *) val.mv_data,
                strcmp(ix->prog, "chaindata-load") == 0 ? "loader"
                                                        : "program",
                version);
        return -1;
    }

    if (rc != 0) {
        mdb_txn_abort(txn);
        return chaindata_index_fail(ix, "cannot read the schema version",
                                    rc);
    }

    rc = mdb_txn_commit(txn);
    if (rc != 0) {
        return chaindata_index_fail(ix, "cannot commit", rc);
    }

    return 0;
}


int
chaindata_index_open(chaindata_index_t *ix)
{
    int           rc, dead;
    MDB_envinfo   info;

    if (mkdir(ix->path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", ix->prog, ix->path,
                strerror(errno));
        return -1;
    }

    rc = mdb_env_create(&ix->env);
    if (rc == 0) {
        rc = mdb_env_set_maxdbs(ix->env, CHAINDATA_MAX_DBS);
    }

    if (rc == 0 && ix->max_readers) {
        rc = mdb_env_set_maxreaders(ix->env, ix->max_readers);
    }

    if (rc == 0) {
        rc = mdb_env_open(ix->env, ix->path, 0, 0644);
    }

    if (rc != 0) {
        fprintf(stderr, "%s: cannot open the index at %s: %s\n", ix->prog,
                ix->path, mdb_strerror(rc));
        return -1;
    }

    /* reader slots of killed workers would keep old pages from reuse */
    (void) mdb_reader_check(ix->env, &dead);

    rc = mdb_env_info(ix->env, &info);
    if (rc != 0) {
        return chaindata_index_fail(ix, "cannot read the map size", rc);
    }

    if (info.me_mapsize < ix->map_size) {
        rc = mdb_env_set_mapsize(ix->env, ix->map_size);
        if (rc != 0) {
            return chaindata_index_fail(ix, "cannot set the map size", rc);
        }
    }

    return chaindata_index_open_dbs(ix);
}


void
chaindata_index_close(chaindata_index_t *ix)
{
    if (ix->env) {
        mdb_env_close(ix->env);
        ix->env = NULL;
    }
}


static int
chaindata_index_delete_prefix(MDB_txn *txn, MDB_dbi dbi,
    const MDB_val *prefix)
{
    int          rc;
    MDB_val      key, val;
    MDB_cursor  *cur;

    rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc != 0) {
        return rc;
    }

    for ( ;; ) {
        key = *prefix;

        rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
        if (rc == MDB_NOTFOUND) {
            rc = 0;
            break;
        }

        if (rc != 0) {
            break;
        }

        if (key.mv_size < prefix->mv_size
            || memcmp(key.mv_data, prefix->mv_data, prefix->mv_size) != 0)
        {
            break;
        }

        rc = mdb_cursor_del(cur, 0);
        if (rc != 0) {
            break;
        }
    }

    mdb_cursor_close(cur);

    return rc;
}


static int
chaindata_index_apply(chaindata_index_t *ix, MDB_txn *txn,
    const chaindata_writeset_t *ws)
{
    int                       rc;
    size_t                    i;
    MDB_val                   key, val;
    const chaindata_write_t  *w;

    for (i = 0; i < ws->nwrites; i++) {
        w = &ws->writes[i];

        key.mv_data = ws->buf + w->key_off;
        key.mv_size = w->key_len;

        switch (w->action) {

        case CHAINDATA_WRITE_PUT:
            val.mv_data = ws->buf + w->val_off;
            val.mv_size = w->val_len;
            rc = mdb_put(txn, ix->dbi[w->db], &key, &val, 0);
            break;

        case CHAINDATA_WRITE_DEL:
            rc = mdb_del(txn, ix->dbi[w->db], &key, NULL);
            if (rc == MDB_NOTFOUND) {
                rc = 0;
            }
            break;

        default: /* CHAINDATA_WRITE_DEL_PREFIX */
            rc = chaindata_index_delete_prefix(txn, ix->dbi[w->db], &key);
            break;
        }

        if (rc != 0) {
            return rc;
        }
    }

    return 0;
}


static int
chaindata_index_grow(chaindata_index_t *ix)
{
    int           rc;
    size_t        size;
    MDB_envinfo   info;

    rc = mdb_env_info(ix->env, &info);
    if (rc != 0) {
        return rc;
    }

    if (info.me_mapsize >= ix->max_map_size) {
        return MDB_MAP_FULL;
    }

    size = info.me_mapsize > ix->max_map_size / 2
           ? ix->max_map_size : info.me_mapsize * 2;

    return mdb_env_set_mapsize(ix->env, size);
}


int
chaindata_index_commit(chaindata_index_t *ix, const chaindata_writeset_t *ws)
{
    int       rc;
    MDB_txn  *txn;

    for ( ;; ) {
        rc = chaindata_index_write_begin(ix, &txn);
        if (rc != 0) {
            return rc;
        }

        rc = chaindata_index_apply(ix, txn, ws);

        if (rc == 0) {
            rc = mdb_txn_commit(txn);

        } else {
            mdb_txn_abort(txn);
        }

        if (rc != MDB_MAP_FULL) {
            return rc;
        }

        rc = chaindata_index_grow(ix);
        if (rc != 0) {
            return rc;
        }
    }
}
