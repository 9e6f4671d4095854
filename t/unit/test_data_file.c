
/*
 * data.mdb against its meta pages (src/core/chaindata_data_file.c): an
 * index LMDB wrote passes; the same file cut short, inside its meta pages
 * or after them, empty, or another program's file, is refused with its
 * reason, before LMDB would map pages the file does not have.
 */


#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <lmdb.h>

#include "chaindata_data_file.h"
#include "unit.h"


/* an index of n values of 1 KiB in a new directory: 0 or -1 */

static int
write_index(const char *dir, int n)
{
    int       i, rc;
    char      key[16], val[1024];
    MDB_env  *env;
    MDB_txn  *txn;
    MDB_dbi   dbi;
    MDB_val   k, v;

    if (mdb_env_create(&env) != 0) {
        return -1;
    }

    rc = mdb_env_set_mapsize(env, 64 << 20);
    rc = rc ? rc : mdb_env_open(env, dir, 0, 0600);
    rc = rc ? rc : mdb_txn_begin(env, NULL, 0, &txn);
    rc = rc ? rc : mdb_dbi_open(txn, NULL, 0, &dbi);

    memset(val, 'v', sizeof(val));

    for (i = 0; rc == 0 && i < n; i++) {
        snprintf(key, sizeof(key), "k%08d", i);
        k.mv_data = key;
        k.mv_size = strlen(key);
        v.mv_data = val;
        v.mv_size = sizeof(val);
        rc = mdb_put(txn, dbi, &k, &v, 0);
    }

    rc = rc ? rc : mdb_txn_commit(txn);
    mdb_env_close(env);

    return rc ? -1 : 0;
}


static off_t
file_size(const char *path)
{
    struct stat  st;

    return stat(path, &st) == 0 ? st.st_size : -1;
}


void
test_data_file(void)
{
    int    fd;
    char   dir[64], path[96], err[CHAINDATA_DATA_FILE_ERR_LEN];
    off_t  size;

    snprintf(dir, sizeof(dir), "/tmp/chaindata-unit-XXXXXX");

    if (mkdtemp(dir) == NULL || write_index(dir, 2000) != 0) {
        ok(0, "data file: an index to check");
        return;
    }

    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    size = file_size(path);

    ok(chaindata_data_file_check(dir, err, sizeof(err)) == 0,
       "data file: an index LMDB wrote passes");

    ok(truncate(path, size - 4096) == 0
       && chaindata_data_file_check(dir, err, sizeof(err)) == -1
       && strstr(err, "cut short") != NULL,
       "data file: one page short is refused, a copy cut short");

    ok(truncate(path, 3 * 4096) == 0
       && chaindata_data_file_check(dir, err, sizeof(err)) == -1
       && strstr(err, "meta page names") != NULL,
       "data file: its meta pages kept, the rest cut");

    ok(truncate(path, 6000) == 0
       && chaindata_data_file_check(dir, err, sizeof(err)) == -1
       && strstr(err, "shorter than its two meta pages") != NULL,
       "data file: cut inside the meta pages");

    ok(truncate(path, 0) == 0
       && chaindata_data_file_check(dir, err, sizeof(err)) == -1
       && strcmp(err, "data.mdb is empty") == 0,
       "data file: empty");

    fd = open(path, O_WRONLY|O_TRUNC);
    ok(fd != -1 && write(fd, "SQLite format 3\0", 16) == 16
       && ftruncate(fd, 65536) == 0
       && chaindata_data_file_check(dir, err, sizeof(err)) == -1
       && strstr(err, "no LMDB file") != NULL,
       "data file: another program's file");

    if (fd != -1) {
        (void) close(fd);
    }

    ok(unlink(path) == 0
       && chaindata_data_file_check(dir, err, sizeof(err)) == -1
       && strstr(err, "No such file") != NULL,
       "data file: none");

    snprintf(path, sizeof(path), "%s/lock.mdb", dir);
    (void) unlink(path);
    (void) rmdir(dir);
}
