
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
 * The first member of obj that fields does not name, or names as required
 * only in other shapes than this one; NULL when there is none.
 */

const chaindata_jv_t *
chaindata_field_unknown(const chaindata_jv_t *obj,
    const chaindata_field_t *fields, unsigned shape)
{
    const chaindata_jv_t     *m;
    const chaindata_field_t  *f;

    for (m = obj->child; m; m = m->next) {
        for (f = fields; f->name; f++) {
            if (m->key_len == strlen(f->name)
                && memcmp(m->key, f->name, m->key_len) == 0)
            {
                break;
            }
        }

        if (f->name == NULL || (f->required && !(f->required & shape))) {
            return m;
        }
    }

    return NULL;
}


static int
chaindata_check_field(chaindata_record_t *rec,
    const chaindata_jv_t *obj, const chaindata_field_t *f,
    const char *path, const chaindata_rules_t *rules)
{
    char                   sub[CHAINDATA_PATH_LEN];
    const char            *want;
    const chaindata_jv_t  *v;

    snprintf(sub, sizeof(sub), "%s.%s", path, f->name);

    v = chaindata_jv_get(obj, f->name);

    if (v && v->type == CHAINDATA_JV_NULL && rules->null_absent
        && !(f->required & rules->shape))
    {
        v = NULL;
    }

    if (v == NULL) {
        if (f->required & rules->shape) {
            return chaindata_record_fail(rec, "%s is missing%s", sub,
                                         rules->note);
        }

        return 0;
    }

    if (f->types && !chaindata_has_type(v, f->types)) {
        return chaindata_record_fail(rec, "%s must be %s", sub,
                                     chaindata_type_name(f->types));
    }

    if (f->members) {
        return chaindata_record_fields(rec, v, f->members, sub, rules);
    }

    want = f->check ? f->check(v) : NULL;

    if (want) {
        return chaindata_record_fail(rec, "%s must be %s", sub, want);
    }

    return 0;
}


int
chaindata_record_fields(chaindata_record_t *rec,
    const chaindata_jv_t *obj, const chaindata_field_t *fields,
    const char *path, const chaindata_rules_t *rules)
{
    const chaindata_jv_t     *m;
    const chaindata_field_t  *f;

    if (obj == NULL || obj->type != CHAINDATA_JV_OBJECT) {
        return chaindata_record_fail(rec, "%s must be an object%s", path,
                                     rules->note);
    }

    m = rules->closed ? chaindata_field_unknown(obj, fields, rules->shape)
                      : NULL;

    if (m) {
        return chaindata_record_fail(rec,
                   "%s has an unexpected member \"%.64s\"%s", path, m->key,
                   rules->note);
    }

    for (f = fields; f->name; f++) {
        if (chaindata_check_field(rec, obj, f, path, rules) != 0) {
            return -1;
        }
    }

    return 0;
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
