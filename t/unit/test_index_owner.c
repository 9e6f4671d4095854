
/*
 * The ids a tool run as root takes in an index directory of another user
 * (chaindata_index_owner_begin() and _end(), src/core/
 * chaindata_index_files.c): the owner's in between, root's after; a
 * process that cannot take root's back stops, saying why, rather than go
 * on as the owner.  As root only: another user's ids are root's to take.
 */


#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "chaindata_index_files.h"
#include "unit.h"


/*
 * In a child, its standard error into err: the ids given back to a uid
 * the process may not take (neither its real, effective nor saved one),
 * as when they cannot be taken back.  The child's wait status.
 */

static int
owner_end_refused(const char *dir, uid_t other, const char *err)
{
    int                      status;
    pid_t                    pid;
    struct rlimit            none = { 0, 0 };
    chaindata_index_owner_t  own;

    pid = fork();
    if (pid == -1) {
        return -1;
    }

    if (pid == 0) {
        (void) setrlimit(RLIMIT_CORE, &none);

        if (freopen(err, "w", stderr) == NULL
            || chaindata_index_owner_begin(dir, &own) != 0
            || !own.switched)
        {
            _exit(2);
        }

        own.uid = other;
        chaindata_index_owner_end(&own);
        _exit(0);
    }

    if (waitpid(pid, &status, 0) != pid) {
        return -1;
    }

    return status;
}


void
test_index_owner(void)
{
    int                      status;
    char                     dir[] = "/tmp/chaindata-unit-owner-XXXXXX";
    char                     err[sizeof(dir) + 16], text[512];
    FILE                    *f;
    size_t                   n;
    struct group            *gr;
    struct passwd           *pw;
    chaindata_index_owner_t  own;

    pw = getpwnam("nobody");
    gr = getgrnam("nogroup");

    if (geteuid() != 0 || pw == NULL || gr == NULL || pw->pw_uid == 1) {
        ok(1, "index owner's ids # skip needs root, nobody and nogroup");
        return;
    }

    if (mkdtemp(dir) == NULL || chown(dir, pw->pw_uid, gr->gr_gid) != 0) {
        ok(0, "index owner's ids: a directory of nobody's");
        return;
    }

    snprintf(err, sizeof(err), "%s.stderr", dir);

    ok(chaindata_index_owner_begin(dir, &own) == 0 && own.switched
       && geteuid() == pw->pw_uid && getegid() == gr->gr_gid,
       "index owner: root takes the ids of the directory's owner");

    chaindata_index_owner_end(&own);

    ok(geteuid() == 0 && getegid() == own.gid && !own.switched,
       "index owner: and gives them back");

    /* uid 1 (daemon): neither root nor nobody */
    status = owner_end_refused(dir, 1, err);

    ok(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
       "index owner: ids it cannot take back stop the process");

    text[0] = '\0';
    f = fopen(err, "r");
    if (f != NULL) {
        n = fread(text, 1, sizeof(text) - 1, f);
        text[n] = '\0';
        (void) fclose(f);
    }

    ok(strstr(text, "cannot take back uid 1 ") != NULL,
       "index owner: saying which ids it could not take back");

    (void) unlink(err);
    (void) rmdir(dir);
}
