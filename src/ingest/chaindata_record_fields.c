
/*
 * chaindata: the fields of an object and their one checker (see
 * chaindata_record.h).  What each record kind requires is written down in
 * lmdb-schema/README.md, lmdb-schema/chainhook.md and lmdb-schema/runes.md.
 */


#include <stdio.h>
#include <string.h>

#include "chaindata_jdoc.h"
#include "chaindata_record.h"


static int
chaindata_has_type(const chaindata_jv_t *v, unsigned types)
{
    uint64_t  n;

    switch (v->type) {

    case CHAINDATA_JV_STRING:
        return types & CHAINDATA_T_STR;

    case CHAINDATA_JV_NUMBER:
        return (types & CHAINDATA_T_NUM)
               || ((types & CHAINDATA_T_INT) && chaindata_jv_is_integer(v))
               || ((types & CHAINDATA_T_U64)
                   && chaindata_jv_to_u64(v, &n) == 0);

    case CHAINDATA_JV_TRUE:
    case CHAINDATA_JV_FALSE:
        return types & CHAINDATA_T_BOOL;

    case CHAINDATA_JV_NULL:
        return types & CHAINDATA_T_NULL;

    case CHAINDATA_JV_OBJECT:
        return types & CHAINDATA_T_OBJ;

    default:
        return types & CHAINDATA_T_ARR;
    }
}


static const char *
chaindata_type_name(unsigned types)
{
    switch (types) {
    case CHAINDATA_T_STR:  return "a string";
    case CHAINDATA_T_U64:  return "an integer from 0 to 2^64-1";
    case CHAINDATA_T_NUM:  return "a number";
    case CHAINDATA_T_BOOL: return "a boolean";
    case CHAINDATA_T_OBJ:  return "an object";
    case CHAINDATA_T_ARR:  return "an array";
    case CHAINDATA_T_INT:  return "an integer";
    case CHAINDATA_T_STR|CHAINDATA_T_NULL: return "a string or null";
    default:               return "of another type";
    }
}


/*
 * The name of a member in messages, "data.vin.txid": its object's and its
 * own, joined only when a message needs it (most records have none).
 */

typedef struct chaindata_path_s  chaindata_path_t;

struct chaindata_path_s {
    const chaindata_path_t  *up;        /* NULL: name is the caller's path */
    const char              *name;
};


static int chaindata_fields(chaindata_record_t *rec,
    const chaindata_jv_t *obj, const chaindata_field_t *fields,
    const chaindata_path_t *path, const chaindata_rules_t *rules);


static void
chaindata_path_join(char *buf, size_t size, const chaindata_path_t *p)
{
    size_t  len;

    if (p->up == NULL) {
        snprintf(buf, size, "%s", p->name);
        return;
    }

    chaindata_path_join(buf, size, p->up);

    len = strlen(buf);
    snprintf(buf + len, size - len, ".%s", p->name);
}


/* a member's path cut to CHAINDATA_PATH_LEN, the caller's one whole */

static const char *
chaindata_path_name(char *buf, const chaindata_path_t *p)
{
    if (p->up == NULL) {
        return p->name;
    }

    chaindata_path_join(buf, CHAINDATA_PATH_LEN, p);

    return buf;
}


/* "<path> <what><tail>": a member's failure, worded in one place */

static int
chaindata_path_fail(chaindata_record_t *rec, const chaindata_path_t *path,
    const char *what, const char *tail)
{
    char  buf[CHAINDATA_PATH_LEN];

    return chaindata_record_fail(rec, "%s %s%s",
                                 chaindata_path_name(buf, path), what, tail);
}


static int
chaindata_check_field(chaindata_record_t *rec,
    const chaindata_jv_t *obj, const chaindata_field_t *f,
    const chaindata_path_t *path, const chaindata_rules_t *rules)
{
    const char            *want;
    chaindata_path_t       sub;
    const chaindata_jv_t  *v;

    sub.up = path;
    sub.name = f->name;

    v = chaindata_jv_get(obj, f->name);

    if (v && v->type == CHAINDATA_JV_NULL && rules->null_absent
        && !(f->required & rules->shape))
    {
        v = NULL;
    }

    if (v == NULL) {
        if (f->required & rules->shape) {
            return chaindata_path_fail(rec, &sub, "is missing", rules->note);
        }

        return 0;
    }

    if (f->types && !chaindata_has_type(v, f->types)) {
        return chaindata_path_fail(rec, &sub, "must be ",
                                   chaindata_type_name(f->types));
    }

    if (f->members) {
        return chaindata_fields(rec, v, f->members, &sub, rules);
    }

    want = f->check ? f->check(v) : NULL;

    if (want) {
        return chaindata_path_fail(rec, &sub, "must be ", want);
    }

    return 0;
}


static int
chaindata_fields(chaindata_record_t *rec,
    const chaindata_jv_t *obj, const chaindata_field_t *fields,
    const chaindata_path_t *path, const chaindata_rules_t *rules)
{
    char                      buf[CHAINDATA_PATH_LEN];
    const chaindata_jv_t     *m;
    const chaindata_field_t  *f;

    if (obj == NULL || obj->type != CHAINDATA_JV_OBJECT) {
        return chaindata_path_fail(rec, path, "must be an object",
                                   rules->note);
    }

    m = rules->closed || rules->counted
        ? chaindata_field_unknown(obj, fields, rules->shape) : NULL;

    if (m && rules->closed) {
        return chaindata_record_fail(rec,
                   "%s has an unexpected member \"%.64s\"%s",
                   chaindata_path_name(buf, path), m->key, rules->note);
    }

    if (m) {
        chaindata_record_unknown_note(rec, "%s.%.32s",
                                      chaindata_path_name(buf, path),
                                      m->key);
    }

    for (f = fields; f->name; f++) {
        if (chaindata_check_field(rec, obj, f, path, rules) != 0) {
            return -1;
        }
    }

    return 0;
}


int
chaindata_record_fields(chaindata_record_t *rec,
    const chaindata_jv_t *obj, const chaindata_field_t *fields,
    const char *path, const chaindata_rules_t *rules)
{
    chaindata_path_t  top;

    top.up = NULL;
    top.name = path;

    return chaindata_fields(rec, obj, fields, &top, rules);
}


const char *
chaindata_check_u64(const chaindata_jv_t *v)
{
    uint64_t  n;

    if (chaindata_jv_to_u64(v, &n) != 0) {
        return "a non-negative integer";
    }

    return NULL;
}
