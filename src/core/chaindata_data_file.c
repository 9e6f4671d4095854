
/*
 * chaindata: data.mdb against its meta pages (see the header).
 *
 * LMDB's two meta pages start the file, each a page header of 16 bytes
 * and the meta record (mdb.c, MDB_meta): magic, version, the address
 * and map size, the free and main databases' records (48 bytes each; the
 * page size is the free database's md_pad), the last page used and the
 * transaction id.  The meta with the larger transaction id is the one
 * LMDB opens.
 */


#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chaindata_data_file.h"


#define CHAINDATA_LMDB_MAGIC        0xBEEFC0DEu
#define CHAINDATA_LMDB_VERSION      1u

#define CHAINDATA_META_PSIZE        24          /* dbs[FREE_DBI].md_pad */
#define CHAINDATA_META_LAST_PG      120
#define CHAINDATA_META_LEN          136

/* LMDB's page sizes: the system's page size, at least 4 KiB, 64 KiB most */
#define CHAINDATA_PSIZE_MIN         4096
#define CHAINDATA_PSIZE_MAX         65536


typedef struct {
    uint32_t   psize;
    uint64_t   last_pg;
    uint64_t   txnid;
} chaindata_meta_t;


static uint32_t
chaindata_meta_u32(const unsigned char *m, size_t off)
{
    uint32_t  v;

    memcpy(&v, m + CHAINDATA_META_OFF + off, sizeof(v));
    return v;
}


static uint64_t
chaindata_meta_u64(const unsigned char *m, size_t off)
{
    uint64_t  v;

    memcpy(&v, m + CHAINDATA_META_OFF + off, sizeof(v));
    return v;
}


/* the meta page at off: 1 when it is one, 0 when not, -1 (errno) */

static int
chaindata_meta_read(int fd, off_t off, chaindata_meta_t *meta)
{
    ssize_t        n;
    unsigned char  m[CHAINDATA_META_OFF + CHAINDATA_META_LEN];

    n = pread(fd, m, sizeof(m), off);

    if (n < 0) {
        return -1;
    }

    if ((size_t) n < sizeof(m)
        || chaindata_meta_u32(m, 0) != CHAINDATA_LMDB_MAGIC
        || chaindata_meta_u32(m, 4) != CHAINDATA_LMDB_VERSION)
    {
        return 0;
    }

    meta->psize = chaindata_meta_u32(m, CHAINDATA_META_PSIZE);
    meta->last_pg = chaindata_meta_u64(m, CHAINDATA_META_LAST_PG);
    meta->txnid = chaindata_meta_u64(m, CHAINDATA_META_TXNID);

    if (meta->psize < CHAINDATA_PSIZE_MIN
        || meta->psize > CHAINDATA_PSIZE_MAX
        || (meta->psize & (meta->psize - 1)) != 0
        || meta->last_pg < 1
        || meta->last_pg > (uint64_t) INT64_MAX / meta->psize)
    {
        return 0;
    }

    return 1;
}


int
chaindata_data_file_check_fd(int fd, char *err, size_t len)
{
    int               ok0, ok1;
    uint64_t          need;
    struct stat       st;
    chaindata_meta_t  m0, m1, *m;

    if (fstat(fd, &st) != 0) {
        snprintf(err, len, "data.mdb: %s", strerror(errno));
        return -1;
    }

    if (st.st_size == 0) {
        snprintf(err, len, "data.mdb is empty");
        return -1;
    }

    ok0 = chaindata_meta_read(fd, 0, &m0);
    ok1 = ok0 == 1 ? chaindata_meta_read(fd, m0.psize, &m1) : 0;

    if (ok0 < 0 || ok1 < 0) {
        snprintf(err, len, "data.mdb: %s", strerror(errno));
        return -1;
    }

    if (ok0 == 0) {
        snprintf(err, len, "data.mdb is no LMDB file (its first meta page "
                 "is not one)");
        return -1;
    }

    if ((uint64_t) st.st_size < 2 * (uint64_t) m0.psize) {
        snprintf(err, len, "data.mdb is %lld bytes, shorter than its two "
                 "meta pages: a copy cut short?", (long long) st.st_size);
        return -1;
    }

    m = (ok1 == 1 && m1.psize == m0.psize && m1.txnid > m0.txnid)
        ? &m1 : &m0;

    need = (m->last_pg + 1) * m->psize;

    if ((uint64_t) st.st_size < need) {
        snprintf(err, len, "data.mdb is %lld bytes, but its meta page names "
                 "%llu pages of %u bytes (%llu bytes): a copy cut short?",
                 (long long) st.st_size, (unsigned long long) m->last_pg + 1,
                 (unsigned) m->psize, (unsigned long long) need);
        return -1;
    }

    return 0;
}


int
chaindata_data_file_check(const char *dir, char *err, size_t len)
{
    int   fd, rc;
    char  path[4096];

    if ((size_t) snprintf(path, sizeof(path), "%s/data.mdb", dir)
        >= sizeof(path))
    {
        snprintf(err, len, "the index's path is too long");
        return -1;
    }

    fd = open(path, O_RDONLY|O_CLOEXEC);

    if (fd == -1) {
        snprintf(err, len, "data.mdb: %s", strerror(errno));
        return -1;
    }

    rc = chaindata_data_file_check_fd(fd, err, len);
    (void) close(fd);

    return rc;
}
