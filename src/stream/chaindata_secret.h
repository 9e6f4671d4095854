
/*
 * chaindata: the secrets of the tools (doc/operations.md, "Users and
 * permissions"): read from files or systemd credentials, or taken once
 * from the environment and scrubbed out of it; the processes that hold
 * them are not dumpable.
 */


#ifndef _CHAINDATA_SECRET_H_INCLUDED_
#define _CHAINDATA_SECRET_H_INCLUDED_


#include <stddef.h>


/* a secret file's bound: a header line or a password, with room */
#define CHAINDATA_SECRET_MAX  65536


/*
 * The value of the environment variable name, copied; the variable's
 * bytes are overwritten where they were (what /proc/PID/environ shows)
 * and the variable removed.  NULL when it is unset (or out of memory:
 * *failed is set then).
 */
char *chaindata_secret_take_env(const char *name, int *failed);

/*
 * The content of a secret file, its last line feed dropped: path, or,
 * when it holds no '/' and systemd gave credentials, the credential of
 * that name ($CREDENTIALS_DIRECTORY/path).  A file group or others may
 * read is refused.  NULL after a message naming prog on standard error.
 */
char *chaindata_secret_read_file(const char *prog, const char *path);

/* a secret overwritten, then freed */
void chaindata_secret_free(char *s);

/* no core dump, no ptrace or /proc/PID/mem by the same user */
void chaindata_secret_nodump(void);


#endif /* _CHAINDATA_SECRET_H_INCLUDED_ */
