
/*
 * chaindata: the loader's document tree written back as compact JSON,
 * strings escaped as JSON.stringify does (chaindata_jdoc.h).
 */


#include <string.h>

#include "chaindata_jdoc.h"
#include "chaindata_jstr.h"


static unsigned char *
chaindata_cpymem(unsigned char *p, const void *s, size_t n)
{
    memcpy(p, s, n);

    return p + n;
}


size_t
chaindata_jv_member_size(const chaindata_jv_t *m)
{
    /* "key": value */
    return chaindata_jstr_escape_len(m->key, m->key_len) + 3
           + chaindata_jv_size(m);
}


size_t
chaindata_jv_size(const chaindata_jv_t *v)
{
    size_t                 size;
    const chaindata_jv_t  *c;

    switch (v->type) {

    case CHAINDATA_JV_NULL:
    case CHAINDATA_JV_TRUE:
        return 4;

    case CHAINDATA_JV_FALSE:
        return 5;

    case CHAINDATA_JV_NUMBER:
        return v->len;

    case CHAINDATA_JV_STRING:
        return chaindata_jstr_escape_len(v->str, v->len) + 2;

    case CHAINDATA_JV_OBJECT:
        size = 2 + (v->n ? v->n - 1 : 0);

        for (c = v->child; c; c = c->next) {
            size += chaindata_jv_member_size(c);
        }

        return size;

    default: /* CHAINDATA_JV_ARRAY */
        size = 2 + (v->n ? v->n - 1 : 0);

        for (c = v->child; c; c = c->next) {
            size += chaindata_jv_size(c);
        }

        return size;
    }
}


unsigned char *
chaindata_jv_write_key(unsigned char *p,
    const chaindata_jv_t *m)
{
    *p++ = '"';
    p = chaindata_jstr_escape(p, m->key, m->key_len);
    *p++ = '"';
    *p++ = ':';

    return p;
}


unsigned char *
chaindata_jv_write(unsigned char *p, const chaindata_jv_t *v)
{
    const chaindata_jv_t  *c;

    switch (v->type) {

    case CHAINDATA_JV_NULL:
        return chaindata_cpymem(p, "null", 4);

    case CHAINDATA_JV_TRUE:
        return chaindata_cpymem(p, "true", 4);

    case CHAINDATA_JV_FALSE:
        return chaindata_cpymem(p, "false", 5);

    case CHAINDATA_JV_NUMBER:
        return chaindata_cpymem(p, v->str, v->len);

    case CHAINDATA_JV_STRING:
        *p++ = '"';
        p = chaindata_jstr_escape(p, v->str, v->len);
        *p++ = '"';
        return p;

    case CHAINDATA_JV_OBJECT:
        *p++ = '{';

        for (c = v->child; c; c = c->next) {
            if (c != v->child) {
                *p++ = ',';
            }

            p = chaindata_jv_write_key(p, c);
            p = chaindata_jv_write(p, c);
        }

        *p++ = '}';
        return p;

    default: /* CHAINDATA_JV_ARRAY */
        *p++ = '[';

        for (c = v->child; c; c = c->next) {
            if (c != v->child) {
                *p++ = ',';
            }

            p = chaindata_jv_write(p, c);
        }

        *p++ = ']';
        return p;
    }
}
