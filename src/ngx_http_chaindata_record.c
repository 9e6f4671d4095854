
/*
 * chaindata: ingest records, the envelope and the write set.  Each kind
 * of record has a file of its own (ngx_http_chaindata_record_*.c).
 */


#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ngx_http_chaindata_codec.h"
#include "ngx_http_chaindata_jdoc.h"
#include "ngx_http_chaindata_record.h"


typedef struct {
    const char  *name;
    int        (*handler)(ngx_http_chaindata_record_t *rec,
                          const ngx_http_chaindata_jv_t *envelope,
                          ngx_http_chaindata_writeset_t *ws);
} ngx_http_chaindata_kind_t;


static const ngx_http_chaindata_kind_t  ngx_http_chaindata_kinds[] = {
    { "tx", ngx_http_chaindata_record_tx },
    { "rune_activity", ngx_http_chaindata_record_rune_activity },
    { "rune_balances", ngx_http_chaindata_record_rune_balances },
    { "chainhook", ngx_http_chaindata_record_chainhook },
    { NULL, NULL }
};


int
ngx_http_chaindata_record_init(ngx_http_chaindata_record_t *rec)
{
    memset(rec, 0, sizeof(*rec));

    rec->arena = ngx_http_chaindata_arena_create();

    return rec->arena ? 0 : -1;
}


void
ngx_http_chaindata_record_free(ngx_http_chaindata_record_t *rec)
{
    ngx_http_chaindata_arena_destroy(rec->arena);
    rec->arena = NULL;
}


int
ngx_http_chaindata_record_fail(ngx_http_chaindata_record_t *rec,
    const char *fmt, ...)
{
    va_list  args;

    va_start(args, fmt);
    vsnprintf(rec->err, sizeof(rec->err), fmt, args);
    va_end(args);

    return -1;
}


int
ngx_http_chaindata_record_parse(ngx_http_chaindata_record_t *rec,
    const unsigned char *line, size_t len, ngx_http_chaindata_writeset_t *ws)
{
    int                               rc;
    size_t                            nwrites, used;
    ngx_http_chaindata_jv_t          *root, *kind;
    const ngx_http_chaindata_kind_t  *k;

    rec->err[0] = '\0';
    ngx_http_chaindata_arena_reset(rec->arena);

    root = ngx_http_chaindata_jdoc_parse(rec->arena, line, len, rec->err,
                                         sizeof(rec->err));
    if (root == NULL) {
        return -1;
    }

    if (root->type != NGX_HTTP_CHAINDATA_JV_OBJECT) {
        return ngx_http_chaindata_record_fail(rec,
                                              "a record must be a JSON object");
    }

    kind = ngx_http_chaindata_jv_get(root, "kind");

    if (kind == NULL || kind->type != NGX_HTTP_CHAINDATA_JV_STRING) {
        return ngx_http_chaindata_record_fail(rec,
                   "\"kind\" is missing or not a string");
    }

    for (k = ngx_http_chaindata_kinds; k->name; k++) {
        if (ngx_http_chaindata_jv_is(kind, k->name)) {
            break;
        }
    }

    if (k->name == NULL) {
        return ngx_http_chaindata_record_fail(rec,
                   "unknown kind \"%.64s\" (expected tx, rune_activity, "
                   "rune_balances or chainhook)", kind->str);
    }

    if (k->handler == NULL) {
        return ngx_http_chaindata_record_fail(rec,
                   "kind \"%s\" is not supported by this version of "
                   "chaindata-load", k->name);
    }

    nwrites = ws->nwrites;
    used = ws->len;

    rc = k->handler(rec, root, ws);

    if (rc != 0) {
        ws->nwrites = nwrites;
        ws->len = used;
    }

    return rc;
}


/*
 * Checks that an envelope holds only the members a kind allows: a typo
 * such as "dat" must not pass as a record without data.
 */

int
ngx_http_chaindata_record_members(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_jv_t *envelope, const char *kind,
    const char **allowed)
{
    const char                    **a;
    const ngx_http_chaindata_jv_t  *m;

    for (m = envelope->child; m; m = m->next) {
        for (a = allowed; *a; a++) {
            if (m->key_len == strlen(*a) && memcmp(m->key, *a, m->key_len) == 0)
            {
                break;
            }
        }

        if (*a == NULL) {
            return ngx_http_chaindata_record_fail(rec,
                       "unexpected member \"%.64s\" in a %s record",
                       m->key, kind);
        }
    }

    return 0;
}


/* {"kind":K,"data":{…}} upserts, {"kind":K,"delete":ID} removes */

int
ngx_http_chaindata_record_upsert(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_upsert_t *u,
    const ngx_http_chaindata_jv_t *envelope, ngx_http_chaindata_writeset_t *ws)
{
    const ngx_http_chaindata_jv_t  *data, *id;

    data = ngx_http_chaindata_jv_get(envelope, "data");
    id = ngx_http_chaindata_jv_get(envelope, "delete");

    if ((data == NULL) == (id == NULL)) {
        return ngx_http_chaindata_record_fail(rec,
                   "a %s record has either \"data\" or \"delete\"",
                   u->kind);
    }

    if (ngx_http_chaindata_record_members(rec, envelope, u->kind,
                                          data ? u->put_members
                                               : u->delete_members)
        != 0)
    {
        return -1;
    }

    return data ? u->put(rec, envelope, data, ws) : u->remove(rec, id, ws);
}


static int
ngx_http_chaindata_writeset_grow(ngx_http_chaindata_writeset_t *ws,
    size_t bytes)
{
    size_t                       cap;
    unsigned char               *buf;
    ngx_http_chaindata_write_t  *w;

    if (ws->nwrites == ws->writes_cap) {
        cap = ws->writes_cap ? ws->writes_cap * 2 : 1024;

        w = realloc(ws->writes, cap * sizeof(*w));
        if (w == NULL) {
            return -1;
        }

        ws->writes = w;
        ws->writes_cap = cap;
    }

    if (ws->cap - ws->len < bytes) {
        cap = ws->cap ? ws->cap : 64 * 1024;

        while (cap - ws->len < bytes) {
            if (cap > SIZE_MAX / 2) {
                return -1;
            }

            cap *= 2;
        }

        buf = realloc(ws->buf, cap);
        if (buf == NULL) {
            return -1;
        }

        ws->buf = buf;
        ws->cap = cap;
    }

    return 0;
}


/*
 * Appends a write and returns where its value of val_len bytes goes (the
 * pointer holds until the next call), or NULL when memory runs out.
 */

unsigned char *
ngx_http_chaindata_writeset_add(ngx_http_chaindata_writeset_t *ws,
    ngx_http_chaindata_write_e action, ngx_http_chaindata_dbi_e db,
    const unsigned char *key, size_t key_len, size_t val_len)
{
    ngx_http_chaindata_write_t  *w;

    if (ngx_http_chaindata_writeset_grow(ws, key_len + val_len) != 0) {
        return NULL;
    }

    w = &ws->writes[ws->nwrites++];
    w->action = action;
    w->db = db;
    w->key_off = ws->len;
    w->key_len = key_len;
    w->val_off = ws->len + key_len;
    w->val_len = val_len;

    memcpy(ws->buf + ws->len, key, key_len);
    ws->len += key_len + val_len;

    return ws->buf + w->val_off;
}


void
ngx_http_chaindata_writeset_reset(ngx_http_chaindata_writeset_t *ws)
{
    ws->nwrites = 0;
    ws->len = 0;
}


void
ngx_http_chaindata_writeset_free(ngx_http_chaindata_writeset_t *ws)
{
    free(ws->writes);
    free(ws->buf);
    memset(ws, 0, sizeof(*ws));
}
