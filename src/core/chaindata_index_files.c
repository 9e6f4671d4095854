
/*
 * chaindata: the files of an index directory, opened by the tools as
 * their own (chaindata_index_files.h; doc/operations.md).
 */


#define _GNU_SOURCE             /* program_invocation_short_name */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chaindata_index_files.h"


/* the files LMDB opens by name in an index directory */
static const char  *chaindata_index_lmdb_files[] = { "data.mdb", "lock.mdb" };


static void chaindata_index_owner_lost(const chaindata_index_owner_t *own);


int
chaindata_index_owner_begin(const char *dir, chaindata_index_owner_t *own)
{
    int          err;
    struct stat  st;

    own->switched = 0;

    if (geteuid() != 0 || stat(dir, &st) != 0 || st.st_uid == 0) {
        return 0;
    }

    own->uid = geteuid();
    own->gid = getegid();

    if (setegid(st.st_gid) != 0) {
        return -1;
    }

    if (seteuid(st.st_uid) != 0) {
        err = errno;

        if (setegid(own->gid) != 0) {
            chaindata_index_owner_lost(own);
        }

        errno = err;
        return -1;
    }

    own->switched = 1;

    return 0;
}


void
chaindata_index_owner_end(chaindata_index_owner_t *own)
{
    if (!own->switched) {
        return;
    }

    if (seteuid(own->uid) != 0 || setegid(own->gid) != 0) {
        chaindata_index_owner_lost(own);
    }

    own->switched = 0;
}


/*
 * The ids of before cannot be taken back: the process would go on as
 * another user than it was started as, so it stops here, saying why.
 */

static void
chaindata_index_owner_lost(const chaindata_index_owner_t *own)
{
    fprintf(stderr, "%s: cannot take back uid %lu and gid %lu after "
            "working as an index directory's owner: %s; stopping\n",
            program_invocation_short_name, (unsigned long) own->uid,
            (unsigned long) own->gid, strerror(errno));
    (void) fflush(stderr);
    abort();
}


int
chaindata_index_files_open(const char *dir, const char *name, int flags,
    mode_t mode)
{
    int          fd, err;
    char         path[PATH_MAX];
    struct stat  dst, fst;

    if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, name)
        >= sizeof(path))
    {
        errno = ENAMETOOLONG;
        return -1;
    }

    flags |= O_NOFOLLOW | O_CLOEXEC;

    if (flags & O_CREAT) {
        fd = open(path, flags | O_EXCL, mode);

        if (fd != -1) {
            if (fchmod(fd, mode) == 0) {
                return fd;
            }

            err = errno;
            (void) close(fd);
            errno = err;
            return -1;
        }

        if (errno != EEXIST) {
            return -1;
        }
    }

    fd = open(path, flags & ~O_CREAT);
    if (fd == -1) {
        return -1;
    }

    if (fstat(fd, &fst) != 0 || stat(dir, &dst) != 0) {
        err = errno;
        (void) close(fd);
        errno = err;
        return -1;
    }

    if (!S_ISREG(fst.st_mode) || fst.st_uid != dst.st_uid) {
        (void) close(fd);
        errno = EPERM;
        return -1;
    }

    return fd;
}


/* a file LMDB will open by name: none, or a regular one of dir's owner */

static int
chaindata_index_files_check(const char *dir, const struct stat *dst,
    const char *name, char *err, size_t len)
{
    char         path[PATH_MAX];
    struct stat  st;

    if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, name)
        >= sizeof(path))
    {
        snprintf(err, len, "%s/%s: %s", dir, name, strerror(ENAMETOOLONG));
        return -1;
    }

    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) {
            return 0;
        }

        snprintf(err, len, "%s: %s", path, strerror(errno));
        return -1;
    }

    if (S_ISLNK(st.st_mode)) {
        snprintf(err, len, "%s is a symbolic link: an index's files are "
                 "its own, never opened through a link (remove it)", path);
        return -1;
    }

    if (!S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s is not a regular file", path);
        return -1;
    }

    if (st.st_uid != dst->st_uid) {
        snprintf(err, len, "%s is owned by uid %lu, the index directory by "
                 "uid %lu: refusing to open it (chown it to the directory's "
                 "owner)", path, (unsigned long) st.st_uid,
                 (unsigned long) dst->st_uid);
        return -1;
    }

    return 0;
}


int
chaindata_index_files_prepare(const char *dir, int writer,
    chaindata_index_owner_t *own, char *err, size_t len)
{
    int          fd;
    size_t       i;
    struct stat  dst;

    own->switched = 0;

    if (stat(dir, &dst) != 0) {
        if (errno == ENOENT && !writer) {
            return 0;             /* LMDB says so, as it always did */
        }

        snprintf(err, len, "%s: %s", dir, strerror(errno));
        return -1;
    }

    for (i = 0; i < sizeof(chaindata_index_lmdb_files) / sizeof(char *);
         i++)
    {
        if (chaindata_index_files_check(dir, &dst,
                                        chaindata_index_lmdb_files[i],
                                        err, len)
            != 0)
        {
            return -1;
        }
    }

    if (chaindata_index_owner_begin(dir, own) != 0) {
        snprintf(err, len, "cannot take the ids of %s's owner (uid %lu): "
                 "%s", dir, (unsigned long) dst.st_uid, strerror(errno));
        return -1;
    }

    fd = chaindata_index_files_open(dir, "lock.mdb", O_RDWR | O_CREAT,
                                    CHAINDATA_INDEX_LOCK_MODE);

    if (fd != -1) {
        (void) close(fd);

        if (writer) {
            fd = chaindata_index_files_open(dir, "data.mdb",
                                            O_RDWR | O_CREAT,
                                            CHAINDATA_INDEX_DATA_MODE);
        }
    }

    /* a reader without write access to the directory: LMDB goes on */
    if (fd == -1 && (writer || (errno != EACCES && errno != EROFS))) {
        snprintf(err, len, "%s: cannot open its files: %s", dir,
                 strerror(errno));
        chaindata_index_owner_end(own);
        return -1;
    }

    if (fd != -1 && writer) {
        (void) close(fd);
    }

    return 0;
}


void
chaindata_index_files_umask(void)
{
    mode_t  mask;

    mask = umask(0);
    (void) umask(mask | 027);
}
