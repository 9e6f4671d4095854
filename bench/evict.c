/*
 * bench/evict: keeps an index's pages out of an nginx worker's memory, and
 * samples how often that worker's event loop sits blocked on the disk.
 *
 *   evict PID DB HOT_PATHS SECONDS [INTERVAL_MS]
 *
 * Every INTERVAL_MS (default 200; 0: never evict, only sample) it pages
 * out the worker's mapping of DB/data.mdb with
 * process_madvise(MADV_PAGEOUT): posix_fadvise(DONTNEED) alone leaves the
 * pages a process has mapped.  Pages this tool maps too are kept, as the
 * kernel pages out no page another process maps: the B-tree's branch
 * pages and the meta pages (found by reading every page's header once),
 * and the records of the hot client's transactions (HOT_PATHS, the
 * request paths bench/cold's hot client walks), their first chunks of
 * events included.  So a cold request faults on its leaf and its record,
 * as on an index far larger than memory whose hot part stays.
 *
 * Meanwhile, every millisecond, it reads the state of the worker's main
 * thread (/proc/PID/task/PID/stat): the share of samples in state D is
 * the time the event loop waited for the disk.  At the end it prints
 *
 *   RESULT samples=N blocked=N running=N majflt=N evictions=N kept=N
 *
 * majflt: the major faults of the worker's main thread meanwhile.
 * The names of the databases are the module's (src/core/chaindata_schema.c).
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>

#include "chaindata_schema.h"


#define PAGE        4096
#define MAX_RANGES  65536

/* LMDB's page header: pgno, pad, flags (lmdb's mdb.c, MDB_page) */
#define P_BRANCH    0x01
#define P_OVERFLOW  0x04
#define P_META      0x08


static int
pidfd_open_(pid_t pid)
{
    return (int) syscall(SYS_pidfd_open, pid, 0);
}


static ssize_t
process_madvise_(int pidfd, const struct iovec *iov, size_t n, int advice)
{
    return syscall(SYS_process_madvise, pidfd, iov, n, advice, 0);
}


static double
now(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return ts.tv_sec + ts.tv_nsec / 1e9;
}


/* the worker's mapping of data.mdb: its start and length, or 0 */

static int
find_mapping(pid_t pid, const char *file, uintptr_t *start, size_t *len)
{
    char       path[64], line[4096];
    FILE      *f;
    uintptr_t  s, e;
    int        found;

    snprintf(path, sizeof(path), "/proc/%d/maps", (int) pid);

    f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }

    found = 0;

    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, file) == NULL) {
            continue;
        }

        if (sscanf(line, "%lx-%lx", &s, &e) == 2) {
            *start = s;
            *len = e - s;
            found = 1;
            break;
        }
    }

    fclose(f);

    return found;
}


/* the state letter and major faults of a thread */

static int
thread_stat(pid_t pid, char *state, unsigned long *majflt)
{
    int    fd;
    char   path[64], buf[1024], *p;
    ssize_t n;
    int    field;

    snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int) pid,
             (int) pid);

    fd = open(path, O_RDONLY);
    if (fd < 0) {
        return -1;
    }

    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);

    if (n <= 0) {
        return -1;
    }

    buf[n] = '\0';

    p = strrchr(buf, ')');
    if (p == NULL || p[1] == '\0') {
        return -1;
    }

    *state = p[2];

    /* fields after the state: ppid pgrp session tty tpgid flags minflt
     * cminflt majflt */
    p += 2;

    for (field = 3; field < 12 && p; field++) {
        p = strchr(p + 1, ' ');
    }

    *majflt = p ? strtoul(p + 1, NULL, 10) : 0;

    return 0;
}


/* touches a page of our own mapping: the worker's copy is then kept */

static unsigned
keep(const unsigned char *map, size_t size, const void *addr, size_t len)
{
    const unsigned char  *p, *end;
    unsigned              n;
    volatile unsigned char sink;

    p = (const unsigned char *) ((uintptr_t) addr & ~(uintptr_t) (PAGE - 1));
    end = (const unsigned char *) addr + len;
    n = 0;

    for ( /* void */ ; p < end && p < map + size; p += PAGE) {
        sink = *p;
        n++;
    }

    (void) sink;

    return n;
}


/*
 * The first want values under keys that begin with id, read in our own
 * map, with their parts (lmdb-schema/README.md, "Values in parts": the
 * keys one byte longer than the database's own after each)
 */

static unsigned
keep_id(const unsigned char *map, size_t size, MDB_txn *txn, MDB_dbi dbi,
    const unsigned char *id, size_t want)
{
    int          rc;
    size_t       n, klen;
    MDB_val      k, v;
    unsigned     kept;
    MDB_cursor  *cur;

    if (mdb_cursor_open(txn, dbi, &cur) != 0) {
        return 0;
    }

    k.mv_data = (void *) id;
    k.mv_size = 32;
    kept = 0;
    klen = 0;
    n = 0;

    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
         rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
    {
        if (k.mv_size < 32 || memcmp(k.mv_data, id, 32) != 0) {
            break;
        }

        if (klen == 0) {
            klen = k.mv_size;
        }

        if (k.mv_size == klen && n++ == want) {
            break;
        }

        kept += keep(map, size, v.mv_data, v.mv_size);
    }

    mdb_cursor_close(cur);

    return kept;
}


/* the hot transactions' records and first chunks, read in our own map */

static unsigned
keep_hot(const char *db, const char *hot, const unsigned char **map,
    size_t *size)
{
    char         line[512];
    FILE        *f;
    MDB_env     *env;
    MDB_txn     *txn;
    MDB_dbi      tx, ev;
    size_t       i;
    unsigned     kept;
    uintptr_t    start;
    unsigned char id[32];
    char        *p;

    if (mdb_env_create(&env) != 0
        || mdb_env_set_maxdbs(env, CHAINDATA_MAX_DBS) != 0
        || mdb_env_open(env, db, MDB_RDONLY|MDB_NOTLS|MDB_NORDAHEAD, 0644)
           != 0
        || mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) != 0
        || mdb_dbi_open(txn, chaindata_db_names[CHAINDATA_DBI_TX], 0, &tx)
           != 0
        || mdb_dbi_open(txn, chaindata_db_names[CHAINDATA_DBI_TX_EVENT], 0,
                        &ev) != 0)
    {
        fprintf(stderr, "evict: cannot open the index %s\n", db);
        exit(1);
    }

    /* the map's address: our copy of every page is read through it */
    snprintf(line, sizeof(line), "%s/data.mdb", db);

    if (!find_mapping(getpid(), line, &start, size)) {
        fprintf(stderr, "evict: %s is not mapped\n", line);
        exit(1);
    }

    *map = (const unsigned char *) start;

    f = fopen(hot, "r");
    if (f == NULL) {
        perror(hot);
        exit(1);
    }

    kept = 0;

    while (fgets(line, sizeof(line), f)) {
        p = strstr(line, "0x");
        if (p == NULL) {
            continue;
        }

        p += 2;

        for (i = 0; i < 32; i++) {
            if (sscanf(p + 2 * i, "%2hhx", &id[i]) != 1) {
                break;
            }
        }

        if (i < 32) {
            continue;
        }

        /* its record and its first two chunks of events, parts too */
        kept += keep_id(*map, *size, txn, tx, id, 1);
        kept += keep_id(*map, *size, txn, ev, id, 2);
    }

    fclose(f);

    /* the environment stays open: its map keeps those pages ours too */
    return kept;
}


/* every branch and meta page, read in our map: kept */

static unsigned
keep_branches(const char *file, const unsigned char *map, size_t size)
{
    int            fd;
    off_t          off, len;
    unsigned       kept;
    uint16_t       flags;
    uint32_t       pages;
    unsigned char  hdr[16];
    struct stat    st;

    fd = open(file, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(file);
        exit(1);
    }

    len = st.st_size;
    kept = 0;

    for (off = 0; off + PAGE <= len; off += PAGE) {
        if (pread(fd, hdr, sizeof(hdr), off) != (ssize_t) sizeof(hdr)) {
            break;
        }

        memcpy(&flags, hdr + 10, sizeof(flags));

        if ((flags & (P_BRANCH|P_META)) && (size_t) off < size) {
            kept += keep(map, size, map + off, 1);
        }

        if (flags & P_OVERFLOW) {
            /* its pages after the first have no header: skipped */
            memcpy(&pages, hdr + 12, sizeof(pages));
            off += (off_t) (pages ? pages - 1 : 0) * PAGE;
        }
    }

    /* what this scan read into the page cache goes again */
    (void) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);

    return kept;
}


int
main(int argc, char **argv)
{
    int                   pidfd;
    char                  file[4096], state;
    pid_t                 pid;
    size_t                len, size, i, n;
    double                end, next;
    unsigned              kept;
    uintptr_t             start;
    unsigned long         samples, blocked, running, majflt0, majflt,
                          evictions;
    struct iovec          iov[MAX_RANGES];
    const unsigned char  *map;
    long                  interval;

    if (argc < 5) {
        fprintf(stderr, "usage: evict PID DB HOT_PATHS SECONDS "
                        "[INTERVAL_MS]\n");
        return 2;
    }

    pid = (pid_t) atoi(argv[1]);
    snprintf(file, sizeof(file), "%s/data.mdb", argv[2]);
    interval = argc > 5 ? atol(argv[5]) : 200;

    kept = 0;
    pidfd = -1;

    if (interval > 0) {
        kept = keep_hot(argv[2], argv[3], &map, &size);
        kept += keep_branches(file, map, size);

        pidfd = pidfd_open_(pid);
        if (pidfd < 0) {
            perror("evict: pidfd_open");
            return 1;
        }
    }

    if (thread_stat(pid, &state, &majflt0) != 0) {
        fprintf(stderr, "evict: no process %d\n", (int) pid);
        return 1;
    }

    samples = blocked = running = evictions = 0;
    end = now() + atof(argv[4]);
    next = 0;

    while (now() < end) {
        if (interval > 0 && now() >= next) {
            next = now() + interval / 1000.0;

            if (find_mapping(pid, file, &start, &len)) {
                /* in ranges of 1 MiB: the kernel takes an iovec each */
                n = 0;

                for (i = 0; i < len && n < MAX_RANGES; i += 1 << 20) {
                    iov[n].iov_base = (void *) (start + i);
                    iov[n].iov_len = (len - i < (1 << 20)) ? len - i
                                                           : (1 << 20);
                    n++;
                }

                for (i = 0; i < n; i += 512) {
                    if (process_madvise_(pidfd, iov + i,
                                         n - i < 512 ? n - i : 512,
                                         MADV_PAGEOUT) < 0)
                    {
                        perror("evict: process_madvise(MADV_PAGEOUT)");
                        return 1;
                    }
                }

                evictions++;
            }
        }

        if (thread_stat(pid, &state, &majflt) == 0) {
            samples++;
            blocked += (state == 'D');
            running += (state == 'R');
        }

        usleep(1000);
    }

    printf("RESULT samples=%lu blocked=%lu running=%lu majflt=%lu "
           "evictions=%lu kept=%u\n", samples, blocked, running,
           majflt - majflt0, evictions, kept);

    return 0;
}
