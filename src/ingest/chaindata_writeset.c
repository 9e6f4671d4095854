
/*
 * chaindata: the write set, the writes of a batch of records in the order
 * they are applied in one transaction (chaindata_index_commit()): each
 * write's key, then its value, in one buffer.
 */


#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_int.h"
#include "chaindata_writeset.h"


static int
chaindata_writeset_grow(chaindata_writeset_t *ws,
    size_t bytes)
{
    size_t              cap;
    unsigned char      *buf;
    chaindata_write_t  *w;

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


unsigned char *
chaindata_writeset_add(chaindata_writeset_t *ws,
    chaindata_write_e action, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len, size_t val_len)
{
    chaindata_write_t  *w;

    if (chaindata_writeset_grow(ws, key_len + val_len) != 0) {
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


unsigned char *
chaindata_writeset_op(chaindata_writeset_t *ws, unsigned op, size_t arg_len)
{
    unsigned char  key[CHAINDATA_WRITE_OP_KEY_LEN];

    key[0] = (unsigned char) op;
    chaindata_put_u64le(key + 1, ws->label);

    return chaindata_writeset_add(ws, CHAINDATA_WRITE_OP, CHAINDATA_DBI_META,
                                  key, sizeof(key), arg_len);
}


void
chaindata_writeset_trim(chaindata_writeset_t *ws, size_t val_len)
{
    chaindata_write_t  *w;

    w = &ws->writes[ws->nwrites - 1];

    if (val_len < w->val_len) {
        ws->len -= w->val_len - val_len;
        w->val_len = val_len;
    }
}


size_t
chaindata_writeset_join(chaindata_writeset_t *ws, size_t head, size_t max)
{
    size_t              cut, moved;
    chaindata_write_t  *h, *c, *w;

    if (head + 1 >= ws->nwrites) {
        return 0;
    }

    h = &ws->writes[head];
    c = h + 1;

    if (h->action != CHAINDATA_WRITE_PUT || c->action != CHAINDATA_WRITE_PUT
        || c->key_off != h->val_off + h->val_len
        || h->key_len + h->val_len + c->val_len > max)
    {
        return 0;
    }

    /* the buffer holds each write's key then value, in order */
    cut = c->key_len;
    moved = c->val_len;

    memmove(ws->buf + c->key_off, ws->buf + c->val_off,
            ws->len - c->val_off);
    ws->len -= cut;
    h->val_len += moved;

    for (w = c + 1; w < ws->writes + ws->nwrites; w++) {
        w->key_off -= cut;
        w->val_off -= cut;
    }

    memmove(c, c + 1, (ws->writes + ws->nwrites - (c + 1)) * sizeof(*c));
    ws->nwrites--;

    return moved;
}



int
chaindata_writeset_expect(chaindata_writeset_t *ws, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len, const unsigned char *val,
    size_t val_len)
{
    size_t               cap, vlen;
    unsigned char       *p;
    chaindata_expect_t  *e;

    vlen = val ? val_len : 0;

    if (ws->nexpects == ws->expects_cap) {
        cap = ws->expects_cap ? ws->expects_cap * 2 : 8;

        e = realloc(ws->expects, cap * sizeof(*e));
        if (e == NULL) {
            return -1;
        }

        ws->expects = e;
        ws->expects_cap = cap;
    }

    /* apart from the writes' buffer, which trim() and join() move */
    p = malloc(key_len + vlen + 1);
    if (p == NULL) {
        return -1;
    }

    memcpy(p, key, key_len);

    if (vlen) {
        memcpy(p + key_len, val, vlen);
    }

    e = &ws->expects[ws->nexpects++];
    e->db = db;
    e->key = p;
    e->key_len = key_len;
    e->val_len = vlen;
    e->absent = (val == NULL);

    return 0;
}


static void
chaindata_writeset_expects_drop(chaindata_writeset_t *ws, size_t keep)
{
    while (ws->nexpects > keep) {
        free(ws->expects[--ws->nexpects].key);
    }
}


void
chaindata_writeset_mark(const chaindata_writeset_t *ws,
    chaindata_writeset_mark_t *mark)
{
    mark->nwrites = ws->nwrites;
    mark->nexpects = ws->nexpects;
    mark->len = ws->len;
}


void
chaindata_writeset_restore(chaindata_writeset_t *ws,
    const chaindata_writeset_mark_t *mark)
{
    ws->nwrites = mark->nwrites;
    chaindata_writeset_expects_drop(ws, mark->nexpects);
    ws->len = mark->len;
}


void
chaindata_writeset_reset(chaindata_writeset_t *ws)
{
    ws->nwrites = 0;
    chaindata_writeset_expects_drop(ws, 0);
    ws->len = 0;
}


void
chaindata_writeset_free(chaindata_writeset_t *ws)
{
    chaindata_writeset_expects_drop(ws, 0);
    free(ws->writes);
    free(ws->expects);
    free(ws->buf);
    memset(ws, 0, sizeof(*ws));
}
