
/*
 * chaindata-mirror: chainhook statuses from the platform API (doc/module.md
 * "Chainhook status": GET /v1/ext/{apiKey}/chainhooks/{uuid}/status, whose 200
 * body is the document a "chainhook" record stores, lmdb-schema/chainhook.md).
 *
 * The chainhooks are named in a file of "uuid api_key" lines, which only
 * its owner may read; keys come from nowhere else (never the command
 * line) and go nowhere but into the request: a failed request is logged
 * by its uuid, and the index keeps only a digest of the key.  Every
 * --chainhooks-interval seconds each status is fetched; a 200 writes the
 * record, a 404 (the chainhook or its key is gone) deletes it.  One that
 * fails otherwise (a 401 for a revoked key, a status refused) is logged
 * by its uuid and skipped; the others are written.
 */


#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"


/* a key goes into a path as it is: letters, digits and - . _ ~ only */

static int
chaindata_key_ok(const char *k, size_t len)
{
    size_t  i;

    if (len == 0 || len > CHAINDATA_API_KEY_MAX) {
        return 0;
    }

    for (i = 0; i < len; i++) {
        if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z')
              || (k[i] >= '0' && k[i] <= '9') || strchr("-._~", k[i])))
        {
            return 0;
        }
    }

    return 1;
}


static int
chaindata_hooks_line(chaindata_mirror_t *m, char *line, size_t lineno)
{
    char            *uuid, *key, *end, **hooks;
    unsigned char    u[CHAINDATA_UUID_LEN];

    uuid = line + strspn(line, " \t");
    line[strcspn(line, "\r\n")] = '\0';

    if (*uuid == '\0' || *uuid == '#') {
        return 0;
    }

    end = uuid + strcspn(uuid, " \t");
    key = end + strspn(end, " \t");
    key[strcspn(key, " \t")] = '\0';

    if (chaindata_uuid_parse((unsigned char *) uuid, end - uuid, u) != 0
        || !chaindata_key_ok(key, strlen(key)))
    {
        /* the line is not printed: it may hold a key */
        fprintf(stderr, "chaindata-mirror: %s:%zu: not \"uuid api_key\" "
                "(a UUID, a key of letters, digits, - . _ ~)\n",
                m->chainhooks_file, lineno);
        return -1;
    }

    *end = '\0';

    hooks = realloc(m->hooks.lines, (m->hooks.n + 2) * sizeof(char *));
    if (hooks == NULL) {
        return -1;
    }

    m->hooks.lines = hooks;
    hooks[m->hooks.n] = strdup(uuid);
    hooks[m->hooks.n + 1] = strdup(key);
    m->hooks.n += 2;

    return hooks[m->hooks.n - 2] && hooks[m->hooks.n - 1] ? 0 : -1;
}


/* reads the file, refused when group or others may read it: 0 or -1 */

int
chaindata_chainhooks_read(chaindata_mirror_t *m)
{
    int           rc;
    char          line[512];
    FILE         *f;
    size_t        lineno;
    struct stat   st;

    f = fopen(m->chainhooks_file, "r");

    if (f == NULL) {
        fprintf(stderr, "chaindata-mirror: cannot open %s: %s\n",
                m->chainhooks_file, strerror(errno));
        return -1;
    }

    if (fstat(fileno(f), &st) != 0 || (st.st_mode & (S_IRWXG | S_IRWXO))) {
        fprintf(stderr, "chaindata-mirror: %s holds API keys: refused while "
                "group or others have access to it (chmod 600)\n",
                m->chainhooks_file);
        fclose(f);
        return -1;
    }

    rc = 0;
    lineno = 0;

    while (rc == 0 && fgets(line, sizeof(line), f)) {
        rc = chaindata_hooks_line(m, line, ++lineno);
    }

    memset(line, 0, sizeof(line));
    fclose(f);

    if (rc == 0 && m->hooks.n == 0) {
        fprintf(stderr, "chaindata-mirror: %s names no chainhook\n",
                m->chainhooks_file);
        rc = -1;
    }

    return rc;
}


static int
chaindata_hook_check(chaindata_req_t *r)
{
    return chaindata_req_json(r);
}


static int
chaindata_hook_record(chaindata_mirror_t *m, const char *uuid,
    const char *key, const chaindata_jv_t *doc)
{
    char              about[128];
    chaindata_line_t  l;

    chaindata_line_open(&l, "chainhook", doc ? chaindata_jv_size(doc) : 0);

    if (doc) {
        chaindata_line_str(&l, "uuid", uuid, strlen(uuid));
        chaindata_line_str(&l, "api_key", key, strlen(key));
        chaindata_line_json(&l, "data", doc);

    } else {
        chaindata_line_str(&l, "delete", uuid, strlen(uuid));
    }

    (void) chaindata_line_close(&l);

    snprintf(about, sizeof(about), "chainhook %.64s: the status upstream "
             "serves", uuid);

    return chaindata_mirror_emit(m, &l, about);
}


/* every status, when the interval is up (at once the first time) */

int
chaindata_chainhooks_poll(chaindata_mirror_t *m)
{
    int                rc;
    size_t             i, n, failed;
    double             now;
    chaindata_req_t  **reqs;

    now = chaindata_now();

    if (m->hooks.n == 0 || now < m->hooks.next) {
        return CHAINDATA_EXIT_OK;
    }

    m->hooks.next = now + m->hooks.interval;
    n = m->hooks.n / 2;

    reqs = calloc(n + 1, sizeof(chaindata_req_t *));
    if (reqs == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    for (i = 0; i < n; i++) {
        reqs[i] = chaindata_req_new(chaindata_hook_check,
                                    "%s/v1/ext/%s/chainhooks/%s/status",
                                    m->platform_api, m->hooks.lines[2 * i + 1],
                                    m->hooks.lines[2 * i]);
        if (reqs[i]) {
            snprintf(reqs[i]->label, sizeof(reqs[i]->label),
                     "the status of chainhook %s", m->hooks.lines[2 * i]);
            reqs[i]->gone_ok = 1;
            reqs[i]->may_fail = 1;
        }
    }

    rc = chaindata_mirror_fetch(m, reqs, n);
    chaindata_block_reset(m);
    failed = 0;

    /* one chainhook failing (a revoked key, a status refused) skips it */
    for (i = 0; rc == CHAINDATA_EXIT_OK && i < n; i++) {
        if (reqs[i]->why[0]) {
            chaindata_mirror_log(m, "warn", "%s: %s (after %u tries): "
                                 "skipped, the others go on",
                                 reqs[i]->label, reqs[i]->why,
                                 reqs[i]->tries);
            failed++;

        } else if (chaindata_hook_record(m, m->hooks.lines[2 * i],
                                         m->hooks.lines[2 * i + 1],
                                         reqs[i]->root)
                   != 0)
        {
            /* an answer the record's checks refused: counted as one */
            m->http.refused++;

            chaindata_mirror_log(m, "warn", "the status of chainhook %s: "
                                 "skipped, the others go on",
                                 m->hooks.lines[2 * i]);
            failed++;
        }
    }

    if (rc == CHAINDATA_EXIT_OK && m->in.ws.nwrites
        && chaindata_block_write(m) != 0)
    {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    m->hooks.skipped += failed;

    if (rc == CHAINDATA_EXIT_OK && failed && m->once) {
        /* following, the skipped ones are asked again next interval */
        rc = CHAINDATA_EXIT_INPUT;
    }

    chaindata_block_reset(m);

    for (i = 0; i < n; i++) {
        if (reqs[i]) {
            memset(reqs[i]->url, 0, sizeof(reqs[i]->url));
        }

        chaindata_req_free(reqs[i]);
    }

    free(reqs);

    return rc;
}


void
chaindata_chainhooks_free(chaindata_mirror_t *m)
{
    size_t  i;

    for (i = 0; i < m->hooks.n; i++) {
        memset(m->hooks.lines[i], 0, strlen(m->hooks.lines[i]));
        free(m->hooks.lines[i]);
    }

    free(m->hooks.lines);
    m->hooks.lines = NULL;
    m->hooks.n = 0;
}
