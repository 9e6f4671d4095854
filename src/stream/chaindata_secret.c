
/*
 * chaindata: the secrets of the tools (chaindata_secret.h).
 */


#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chaindata_secret.h"


char *
chaindata_secret_take_env(const char *name, int *failed)
{
    char    *v, *copy;
    size_t   len;

    v = getenv(name);
    if (v == NULL) {
        return NULL;
    }

    len = strlen(v);

    copy = malloc(len + 1);
    if (copy == NULL) {
        *failed = 1;
    } else {
        memcpy(copy, v, len + 1);
    }

    /* the bytes the kernel shows in /proc/PID/environ, then the entry */
    memset(v, 0, len);
    (void) unsetenv(name);

    return copy;
}


static int
chaindata_secret_path(const char *path, char *buf, size_t size)
{
    const char  *dir;

    dir = getenv("CREDENTIALS_DIRECTORY");

    if (strchr(path, '/') == NULL && dir != NULL && *dir != '\0') {
        return (size_t) snprintf(buf, size, "%s/%s", dir, path) < size
               ? 0 : -1;
    }

    return (size_t) snprintf(buf, size, "%s", path) < size ? 0 : -1;
}


char *
chaindata_secret_read_file(const char *prog, const char *path)
{
    int          fd, err;
    char         full[PATH_MAX], *buf;
    size_t       len;
    ssize_t      n;
    struct stat  st;

    if (chaindata_secret_path(path, full, sizeof(full)) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(ENAMETOOLONG));
        return NULL;
    }

    fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd == -1 || fstat(fd, &st) != 0) {
        fprintf(stderr, "%s: cannot read %s: %s\n", prog, full,
                strerror(errno));
        if (fd != -1) {
            (void) close(fd);
        }
        return NULL;
    }

    if (!S_ISREG(st.st_mode) || (st.st_mode & 077)) {
        fprintf(stderr, "%s: %s: a secret's file must be a regular file "
                "that group and others cannot read (chmod 600)\n", prog,
                full);
        (void) close(fd);
        return NULL;
    }

    buf = malloc(CHAINDATA_SECRET_MAX + 1);
    if (buf == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        (void) close(fd);
        return NULL;
    }

    len = 0;

    do {
        n = read(fd, buf + len, CHAINDATA_SECRET_MAX + 1 - len);
        if (n > 0) {
            len += n;
        }
    } while (n > 0 && len <= CHAINDATA_SECRET_MAX);

    err = errno;
    (void) close(fd);

    if (n < 0 || len > CHAINDATA_SECRET_MAX) {
        fprintf(stderr, "%s: %s: %s\n", prog, full,
                n < 0 ? strerror(err) : "larger than 64 KiB");
        memset(buf, 0, CHAINDATA_SECRET_MAX + 1);
        free(buf);
        return NULL;
    }

    if (len && buf[len - 1] == '\n') {
        len--;
    }

    if (len && buf[len - 1] == '\r') {
        len--;
    }

    buf[len] = '\0';

    return buf;
}


void
chaindata_secret_free(char *s)
{
    volatile char  *p;

    if (s == NULL) {
        return;
    }

    for (p = s; *p; p++) {
        *p = '\0';
    }

    free(s);
}


void
chaindata_secret_nodump(void)
{
    (void) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
