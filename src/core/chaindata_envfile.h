
/*
 * A file of variables as systemd's EnvironmentFile= reads it, and a
 * command line's words with the variables put in as ExecStart= puts them
 * (systemd.exec(5), systemd.service(5) "Command lines"): what lets
 * chaindata-mirror --config read the file its unit is given.
 */


#ifndef _CHAINDATA_ENVFILE_H_INCLUDED_
#define _CHAINDATA_ENVFILE_H_INCLUDED_


#include <stddef.h>


typedef struct {
    char      *name;
    char      *value;
    unsigned   line;           /* where it was set, from 1 */
    unsigned   used:1;         /* put into a command line */
} chaindata_envvar_t;

typedef struct {
    const char          *path;         /* the caller's, kept: it outlives f */
    char                *text;         /* the names and values are in it */
    chaindata_envvar_t  *vars;
    size_t               n;
    size_t               cap;

    /* the words of chaindata_envfile_words(), each with its place */
    char               **words;
    char               **where;
    size_t               nwords;
    size_t               wcap;
} chaindata_envfile_t;


/*
 * Reads path: NAME=VALUE lines; blank lines and lines beginning with #
 * or ; skipped; a value unquoted (a backslash takes the next character
 * as it is, a line ending in one goes on on the next), or in single
 * quotes (as is) or double quotes (a backslash before " \ ` $ or a line's
 * end), its parts joined; spaces around an unquoted value dropped.  A
 * name set again takes the later value.  0, or -1 after
 * "prog: path:line: reason" (systemd skips a line it cannot read; this
 * refuses it).
 */
int chaindata_envfile_read(chaindata_envfile_t *f, const char *prog,
    const char *path);

/*
 * The words of cmd, after the program's name, as ExecStart= makes them:
 * a word "${NAME}" is NAME's value as one word (an empty one if it is
 * not set), a word "$NAME" its value split at spaces (none if not set),
 * quotes and backslashes in it as the shell's; other words as they are.
 * Appended to f->words with f->where "prog: path:line" (the variable's
 * line) or "prog: path" (a word of cmd): 0, or -1 after a message.
 */
int chaindata_envfile_words(chaindata_envfile_t *f, const char *prog,
    const char *cmd);

void chaindata_envfile_free(chaindata_envfile_t *f);


#endif /* _CHAINDATA_ENVFILE_H_INCLUDED_ */
