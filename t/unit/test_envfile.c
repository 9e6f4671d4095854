
/*
 * A file of variables as systemd's EnvironmentFile= reads it, and the
 * words ExecStart= makes of them (src/core/chaindata_envfile.c):
 * comments, quotes, backslashes, spaces, a name set twice; ${NAME} one
 * word, $NAME split; a line systemd would skip refused with -1.
 */


#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chaindata_envfile.h"
#include "unit.h"


/* the file of text read into f: its result; stderr kept out of TAP */

static int
read_text(chaindata_envfile_t *f, const char *text)
{
    int          rc, fd, saved, null;
    FILE        *fp;
    static char  path[sizeof("/tmp/chaindata-envfile-XXXXXX")];

    /* f keeps the path (its words' places name it): it outlives the call */
    strcpy(path, "/tmp/chaindata-envfile-XXXXXX");

    fd = mkstemp(path);
    fp = fd >= 0 ? fdopen(fd, "w") : NULL;

    if (fp == NULL) {
        return -2;
    }

    fputs(text, fp);
    fclose(fp);

    fflush(stderr);
    saved = dup(2);
    null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    close(null);

    rc = chaindata_envfile_read(f, "unit", path);

    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    unlink(path);

    return rc;
}


static const char *
value_of(chaindata_envfile_t *f, const char *name)
{
    size_t  i;

    for (i = 0; i < f->n; i++) {
        if (strcmp(f->vars[i].name, name) == 0) {
            return f->vars[i].value;
        }
    }

    return NULL;
}


/* the words, joined by '|' */

static const char *
words_of(chaindata_envfile_t *f)
{
    size_t       i;
    static char  buf[512];

    buf[0] = '\0';

    for (i = 0; i < f->nwords; i++) {
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
                 i ? "|" : "", f->words[i]);
    }

    return buf;
}


void
test_envfile(void)
{
    int                  rc;
    chaindata_envfile_t  f;

    rc = read_text(&f,
        "  # a comment\n"
        "; another\n"
        "\n"
        "A=plain value  \n"
        "B = \"double \\\"q\\\" \\$x \\n\"\n"
        "C='single \\ as is'\n"
        "D=one \\\n"
        "two\n"
        "E=\"a\" 'b' c\n"
        "A=again\n"
        "F=\n"
        "G=x#y");

    ok(rc == 0 && f.n == 7
       && strcmp(value_of(&f, "A"), "again") == 0
       && strcmp(value_of(&f, "B"), "double \"q\" $x \\n") == 0
       && strcmp(value_of(&f, "C"), "single \\ as is") == 0
       && strcmp(value_of(&f, "D"), "one two") == 0
       && strcmp(value_of(&f, "E"), "abc") == 0
       && strcmp(value_of(&f, "F"), "") == 0
       && strcmp(value_of(&f, "G"), "x#y") == 0,
       "envfile: comments, spaces, quotes, backslashes as systemd reads "
       "them; a name set twice takes the later value");

    ok(rc == 0
       && chaindata_envfile_words(&f, "unit",
                                  "prog --x ${A}  $E ${NONE} $NONE $D") == 0
       && strcmp(words_of(&f), "prog|--x|again|abc||one|two") == 0,
       "envfile: ${NAME} one word (empty unset), $NAME split (none unset)");
    chaindata_envfile_free(&f);

    /* the file's backslash taken by the file's reading: c\\ is c\ */
    rc = read_text(&f, "\nO=--h 'x y: z' c\\\\ d \"e f\"\n");
    ok(rc == 0 && chaindata_envfile_words(&f, "unit", "p $O") == 0
       && strcmp(words_of(&f), "p|--h|x y: z|c d|e f") == 0
       && strchr(f.where[0] + 6, ':') == NULL
       && strcmp(f.where[1] + strlen(f.where[1]) - 2, ":2") == 0,
       "envfile: $NAME split as the shell splits, quotes and backslashes; "
       "each word's place, a variable's with its line");
    chaindata_envfile_free(&f);

    rc = read_text(&f, "O=a 'b\n");
    ok(rc == 0 && chaindata_envfile_words(&f, "unit", "p $O") == -1,
       "envfile: a quote not closed in a value split: -1");
    chaindata_envfile_free(&f);

    ok(read_text(&f, "A=1\nNOEQUALS\n") == -1
       && (chaindata_envfile_free(&f), read_text(&f, "1A=x\n")) == -1
       && (chaindata_envfile_free(&f), read_text(&f, "A-B=x\n")) == -1
       && (chaindata_envfile_free(&f), read_text(&f, "A=\"open\n")) == -1
       && (chaindata_envfile_free(&f), read_text(&f, "A='open")) == -1,
       "envfile: no \"=\", a bad name, a quote not closed: -1");
    chaindata_envfile_free(&f);
}
