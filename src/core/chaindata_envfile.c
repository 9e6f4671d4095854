
/*
 * A file of variables as systemd's EnvironmentFile= reads it, and the
 * words ExecStart= makes of them (chaindata_envfile.h).
 */


#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_envfile.h"


#define CHAINDATA_ENVFILE_MAX  (1 << 20)     /* a file's bytes, at most */

#define CHAINDATA_ENVFILE_SPACE  " \t\n\r"


typedef enum {
    CHAINDATA_ENV_PRE_KEY = 0,
    CHAINDATA_ENV_KEY,
    CHAINDATA_ENV_PRE_VALUE,
    CHAINDATA_ENV_VALUE,
    CHAINDATA_ENV_VALUE_ESCAPE,
    CHAINDATA_ENV_SINGLE,
    CHAINDATA_ENV_DOUBLE,
    CHAINDATA_ENV_DOUBLE_ESCAPE,
    CHAINDATA_ENV_COMMENT
} chaindata_env_state_e;


/* the reading of one file: where it is, what is being put together */
typedef struct {
    chaindata_envfile_t    *f;
    const char             *prog;
    chaindata_env_state_e   state;
    unsigned                line;      /* the character's */
    unsigned                start;     /* the assignment's */
    char                   *key;
    size_t                  nkey;
    char                   *value;
    size_t                  nvalue;
    size_t                  blank;     /* where trailing spaces begin */
} chaindata_env_read_t;


static char *
chaindata_envfile_slurp(const char *prog, const char *path)
{
    char    *text;
    FILE    *fp;
    size_t   n;

    fp = fopen(path, "r");
    if (fp == NULL) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return NULL;
    }

    text = malloc(CHAINDATA_ENVFILE_MAX + 1);
    n = text ? fread(text, 1, CHAINDATA_ENVFILE_MAX + 1, fp) : 0;

    if (text == NULL || ferror(fp) || n > CHAINDATA_ENVFILE_MAX) {
        fprintf(stderr, "%s: %s: %s\n", prog, path,
                text == NULL ? "out of memory"
                : ferror(fp) ? "cannot be read" : "over 1 MB");
        free(text);
        fclose(fp);
        return NULL;
    }

    fclose(fp);
    text[n] = '\0';

    if (strlen(text) != n) {
        fprintf(stderr, "%s: %s: a NUL byte: no file of variables\n", prog,
                path);
        free(text);
        return NULL;
    }

    return text;
}


static int
chaindata_envfile_name_ok(const char *s, size_t n)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z')
              || (s[i] >= 'a' && s[i] <= 'z')
              || (i > 0 && s[i] >= '0' && s[i] <= '9')))
        {
            return 0;
        }
    }

    return n > 0;
}


/* the assignment read: a name set again takes the later value */

static int
chaindata_envfile_push(chaindata_env_read_t *r)
{
    size_t               i;
    chaindata_envvar_t   *v;
    chaindata_envfile_t  *f;

    f = r->f;

    while (r->nkey && strchr(CHAINDATA_ENVFILE_SPACE, r->key[r->nkey - 1])) {
        r->nkey--;
    }

    if (!chaindata_envfile_name_ok(r->key, r->nkey)) {
        fprintf(stderr, "%s: %s:%u: \"%.*s\" is no variable name (letters, "
                "digits, _)\n", r->prog, f->path, r->start, (int) r->nkey,
                r->key);
        return -1;
    }

    r->key[r->nkey] = '\0';
    r->value[r->blank < r->nvalue ? r->blank : r->nvalue] = '\0';

    for (i = 0; i < f->n; i++) {
        if (strcmp(f->vars[i].name, r->key) == 0) {
            f->vars[i].value = r->value;
            f->vars[i].line = r->start;
            return 0;
        }
    }

    if (f->n == f->cap) {
        v = realloc(f->vars, (f->cap * 2 + 8) * sizeof(chaindata_envvar_t));
        if (v == NULL) {
            fprintf(stderr, "%s: out of memory\n", r->prog);
            return -1;
        }

        f->vars = v;
        f->cap = f->cap * 2 + 8;
    }

    v = &f->vars[f->n++];
    v->name = r->key;
    v->value = r->value;
    v->line = r->start;
    v->used = 0;

    return 0;
}


/* a character of the value being read, outside quotes */

static void
chaindata_envfile_value(chaindata_env_read_t *r, char c)
{
    if (strchr(" \t\r", c)) {
        if (r->blank > r->nvalue) {
            r->blank = r->nvalue;
        }

    } else {
        r->blank = (size_t) -1;
    }

    r->value[r->nvalue++] = c;
}


static int
chaindata_envfile_unclosed(chaindata_env_read_t *r)
{
    fprintf(stderr, "%s: %s:%u: a quote not closed\n", r->prog, r->f->path,
            r->start);

    return -1;
}


/* one character (c '\0': the end of the file): 0, 1 a value read, -1 */

static int
chaindata_envfile_char(chaindata_env_read_t *r, const char *p)
{
    char  c = *p;

    switch (r->state) {

    case CHAINDATA_ENV_PRE_KEY:
        if (c == '#' || c == ';') {
            r->state = CHAINDATA_ENV_COMMENT;

        } else if (c && !strchr(CHAINDATA_ENVFILE_SPACE, c)) {
            r->state = CHAINDATA_ENV_KEY;
            r->start = r->line;
            r->key = (char *) p;
            r->nkey = 1;
        }

        return 0;

    case CHAINDATA_ENV_KEY:
        if (c == '=') {
            r->state = CHAINDATA_ENV_PRE_VALUE;
            r->value = (char *) p + 1;   /* written over as it is read */
            r->nvalue = 0;
            r->blank = (size_t) -1;
            return 0;
        }

        if (c == '\n' || c == '\0') {
            fprintf(stderr, "%s: %s:%u: no \"=\": NAME=VALUE lines, # "
                    "comments\n", r->prog, r->f->path, r->start);
            return -1;
        }

        r->nkey++;
        return 0;

    case CHAINDATA_ENV_PRE_VALUE:
    case CHAINDATA_ENV_VALUE:
        if (c == '\n' || c == '\0') {
            r->state = CHAINDATA_ENV_PRE_KEY;
            return 1;
        }

        if (r->state == CHAINDATA_ENV_PRE_VALUE && (c == '\'' || c == '"')) {
            r->state = c == '"' ? CHAINDATA_ENV_DOUBLE : CHAINDATA_ENV_SINGLE;

        } else if (c == '\\') {
            r->state = CHAINDATA_ENV_VALUE_ESCAPE;
            r->blank = (size_t) -1;

        } else if (r->state == CHAINDATA_ENV_VALUE || !strchr(" \t\r", c)) {
            r->state = CHAINDATA_ENV_VALUE;
            chaindata_envfile_value(r, c);
        }

        return 0;

    case CHAINDATA_ENV_VALUE_ESCAPE:
        r->state = CHAINDATA_ENV_VALUE;

        if (c == '\0') {
            r->state = CHAINDATA_ENV_PRE_KEY;
            return 1;
        }

        /* an escaped line's end is dropped: the value goes on */
        if (c != '\n') {
            r->value[r->nvalue++] = c;
        }

        return 0;

    case CHAINDATA_ENV_SINGLE:
    case CHAINDATA_ENV_DOUBLE:
        if (c == '\0') {
            return chaindata_envfile_unclosed(r);
        }

        if (c == (r->state == CHAINDATA_ENV_DOUBLE ? '"' : '\'')) {
            r->state = CHAINDATA_ENV_PRE_VALUE;

        } else if (c == '\\' && r->state == CHAINDATA_ENV_DOUBLE) {
            r->state = CHAINDATA_ENV_DOUBLE_ESCAPE;

        } else {
            r->value[r->nvalue++] = c;
        }

        r->blank = (size_t) -1;
        return 0;

    case CHAINDATA_ENV_DOUBLE_ESCAPE:
        r->state = CHAINDATA_ENV_DOUBLE;

        if (c == '\0') {
            return chaindata_envfile_unclosed(r);
        }

        if (!strchr("\"\\`$\n", c)) {
            r->value[r->nvalue++] = '\\';
        }

        if (c != '\n') {
            r->value[r->nvalue++] = c;
        }

        return 0;

    default: /* CHAINDATA_ENV_COMMENT */
        if (c == '\n') {
            r->state = CHAINDATA_ENV_PRE_KEY;
        }

        return 0;
    }
}


int
chaindata_envfile_read(chaindata_envfile_t *f, const char *prog,
    const char *path)
{
    int                    rc;
    char                  *text, *p, c;
    chaindata_env_read_t   r;

    memset(f, 0, sizeof(chaindata_envfile_t));
    f->path = path;

    text = chaindata_envfile_slurp(prog, path);
    if (text == NULL) {
        return -1;
    }

    /* kept: the names and values are written into it as it is read */
    f->text = text;

    memset(&r, 0, sizeof(r));
    r.f = f;
    r.prog = prog;
    r.line = 1;

    for (p = text; /* void */ ; p++) {
        c = *p;     /* the value read may end over it */
        rc = chaindata_envfile_char(&r, p);

        if (rc == 1) {
            rc = chaindata_envfile_push(&r);
        }

        if (rc != 0) {
            return -1;
        }

        if (c == '\0') {
            break;
        }

        r.line += (c == '\n');
    }

    return 0;
}


static chaindata_envvar_t *
chaindata_envfile_get(chaindata_envfile_t *f, const char *name, size_t n)
{
    size_t  i;

    for (i = 0; i < f->n; i++) {
        if (strlen(f->vars[i].name) == n
            && strncmp(f->vars[i].name, name, n) == 0)
        {
            return &f->vars[i];
        }
    }

    return NULL;
}


/* a word appended (its own copy, len bytes of s) with its place */

static int
chaindata_envfile_word(chaindata_envfile_t *f, const char *prog,
    const chaindata_envvar_t *v, const char *s, size_t len)
{
    int     n;
    char  **w;

    if (f->nwords + 1 >= f->wcap) {
        w = realloc(f->words, (f->wcap * 2 + 16) * sizeof(char *));
        if (w == NULL) {
            goto nomem;
        }

        f->words = w;

        w = realloc(f->where, (f->wcap * 2 + 16) * sizeof(char *));
        if (w == NULL) {
            goto nomem;
        }

        f->where = w;
        f->wcap = f->wcap * 2 + 16;
    }

    n = v ? snprintf(NULL, 0, "%s: %s:%u", prog, f->path, v->line)
          : snprintf(NULL, 0, "%s: %s", prog, f->path);

    f->words[f->nwords] = strndup(s, len);
    f->where[f->nwords] = malloc((size_t) n + 1);

    if (f->words[f->nwords] == NULL || f->where[f->nwords] == NULL) {
        free(f->words[f->nwords]);
        free(f->where[f->nwords]);
        goto nomem;
    }

    if (v) {
        snprintf(f->where[f->nwords], (size_t) n + 1, "%s: %s:%u", prog,
                 f->path, v->line);

    } else {
        snprintf(f->where[f->nwords], (size_t) n + 1, "%s: %s", prog,
                 f->path);
    }

    f->nwords++;
    f->words[f->nwords] = NULL;

    return 0;

nomem:

    fprintf(stderr, "%s: out of memory\n", prog);

    return -1;
}


/*
 * $NAME's value split into words: at spaces, outside quotes; '...' as
 * is, "..." with a backslash taking the next character, as one outside
 * quotes does.  0, or -1 after a message.
 */

static int
chaindata_envfile_split(chaindata_envfile_t *f, const char *prog,
    const chaindata_envvar_t *v)
{
    int          rc;
    char        *buf, q;
    size_t       n;
    const char  *p;

    buf = malloc(strlen(v->value) + 1);
    if (buf == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return -1;
    }

    rc = 0;
    p = v->value;

    while (rc == 0) {
        p += strspn(p, CHAINDATA_ENVFILE_SPACE);

        if (*p == '\0') {
            break;
        }

        for (n = 0, q = '\0'; *p && (q || !strchr(CHAINDATA_ENVFILE_SPACE, *p));
             p++)
        {
            if (q == '\0' && (*p == '\'' || *p == '"')) {
                q = *p;

            } else if (q && *p == q) {
                q = '\0';

            } else if (*p == '\\' && q != '\'' && p[1]) {
                buf[n++] = *++p;

            } else {
                buf[n++] = *p;
            }
        }

        if (q) {
            fprintf(stderr, "%s: %s:%u: %s: a quote not closed in the "
                    "value\n", prog, f->path, v->line, v->name);
            rc = -1;
            break;
        }

        rc = chaindata_envfile_word(f, prog, v, buf, n);
    }

    free(buf);

    return rc;
}


int
chaindata_envfile_words(chaindata_envfile_t *f, const char *prog,
    const char *cmd)
{
    int                  rc;
    size_t               len;
    const char          *p;
    chaindata_envvar_t  *v;

    for (p = cmd, rc = 0; rc == 0; p += len) {
        p += strspn(p, CHAINDATA_ENVFILE_SPACE);
        len = strcspn(p, CHAINDATA_ENVFILE_SPACE);

        if (len == 0) {
            break;
        }

        if (len > 3 && p[0] == '$' && p[1] == '{' && p[len - 1] == '}') {
            v = chaindata_envfile_get(f, p + 2, len - 3);

            if (v) {
                v->used = 1;
            }

            rc = chaindata_envfile_word(f, prog, v, v ? v->value : "",
                                        v ? strlen(v->value) : 0);

        } else if (len > 1 && p[0] == '$') {
            v = chaindata_envfile_get(f, p + 1, len - 1);

            if (v) {
                v->used = 1;
                rc = chaindata_envfile_split(f, prog, v);
            }

        } else {
            rc = chaindata_envfile_word(f, prog, NULL, p, len);
        }
    }

    return rc;
}


void
chaindata_envfile_free(chaindata_envfile_t *f)
{
    size_t  i;

    for (i = 0; i < f->nwords; i++) {
        free(f->words[i]);
        free(f->where[i]);
    }

    free(f->words);
    free(f->where);
    free(f->vars);
    free(f->text);
    memset(f, 0, sizeof(chaindata_envfile_t));
}
