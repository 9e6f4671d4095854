
/*
 * chaindata: "chainhook" records.
 *
 *   {"kind":"chainhook","uuid":"<uuid>","api_key":"<key>",
 *    "data":{"status":{...},"enabled":<bool>}}            upsert
 *   {"kind":"chainhook","delete":"<uuid>"}                 remove
 *
 * The document (data) is checked against the status shapes of
 * upstream-behaviour.md section 5 and stored compactly as given.  The API
 * key itself is never written anywhere: only its SHA-256 goes into the
 * record, and no error message quotes it.  See lmdb-schema/chainhook.md.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "chaindata_codec.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"


/* the members of status.info a type requires, all of them */

typedef struct {
    const char         *type;
    const char * const *info;     /* NULL: no info; empty: a string */
} chaindata_chh_type_t;


static const char * const  chaindata_chh_scanning[] = {
    "last_evaluated_block_height",
    "last_occurrence",
    "number_of_blocks_evaluated",
    "number_of_blocks_to_scan",
    "number_of_times_triggered",
    NULL
};

static const char * const  chaindata_chh_streaming[] = {
    "last_evaluated_block_height",
    "last_evaluation",
    "last_occurrence",
    "number_of_blocks_evaluated",
    "number_of_times_triggered",
    NULL
};

static const char * const  chaindata_chh_expired[] = {
    "expired_at_block_height",
    "last_evaluated_block_height",
    "last_occurrence",
    "number_of_blocks_evaluated",
    "number_of_times_triggered",
    NULL
};

static const char * const  chaindata_chh_message[] = {
    NULL
};


static const chaindata_chh_type_t  chaindata_chh_types[] = {
    { "new", NULL },
    { "scanning", chaindata_chh_scanning },
    { "streaming", chaindata_chh_streaming },
    { "unconfirmed_expiration", chaindata_chh_expired },
    { "confirmed_expiration", chaindata_chh_expired },
    { "interrupted", chaindata_chh_message },
    { NULL, NULL }
};


/* the one counter that is null until the hook first fires */
#define CHAINDATA_CHH_NULLABLE  "last_occurrence"


static const char  *chaindata_chh_put_members[] = {
    "kind", "uuid", "api_key", "data", NULL
};

static const char  *chaindata_chh_delete_members[] = {
    "kind", "delete", NULL
};

static const char  *chaindata_chh_data_members[] = {
    "status", "enabled", NULL
};

static const char  *chaindata_chh_status_members[] = {
    "type", "info", NULL
};


static int
chaindata_chh_is_member(const chaindata_jv_t *m,
    const char * const *names)
{
    for ( /* void */ ; *names; names++) {
        if (m->key_len == strlen(*names)
            && memcmp(m->key, *names, m->key_len) == 0)
        {
            return 1;
        }
    }

    return 0;
}


/* every member of obj is one of names; what names "where" is */

static int
chaindata_chh_only(chaindata_record_t *rec,
    const chaindata_jv_t *obj, const char * const *names,
    const char *where, const char *type)
{
    const chaindata_jv_t  *m;

    for (m = obj->child; m; m = m->next) {
        if (!chaindata_chh_is_member(m, names)) {
            return chaindata_record_fail(rec,
                       "%s has an unexpected member \"%.64s\"%s%s%s",
                       where, m->key, type ? " (type " : "",
                       type ? type : "", type ? ")" : "");
        }
    }

    return 0;
}


static int
chaindata_chh_check_info(chaindata_record_t *rec,
    const chaindata_jv_t *info,
    const chaindata_chh_type_t *t)
{
    uint64_t               n;
    const                  char * const             *f;
    const chaindata_jv_t  *v;

    if (info == NULL || info->type != CHAINDATA_JV_OBJECT) {
        return chaindata_record_fail(rec,
                   "data.status.info must be an object (type %s)", t->type);
    }

    if (chaindata_chh_only(rec, info, t->info, "data.status.info",
                           t->type)
        != 0)
    {
        return -1;
    }

    for (f = t->info; *f; f++) {
        v = chaindata_jv_get(info, *f);

        if (v == NULL) {
            return chaindata_record_fail(rec,
                       "data.status.info.%s is missing (type %s)",
                       *f, t->type);
        }

        if (strcmp(*f, CHAINDATA_CHH_NULLABLE) == 0) {
            if (v->type != CHAINDATA_JV_NULL
                && chaindata_jv_to_u64(v, &n) != 0)
            {
                return chaindata_record_fail(rec,
                           "data.status.info.%s must be a non-negative "
                           "integer or null", *f);
            }

            continue;
        }

        if (chaindata_jv_to_u64(v, &n) != 0) {
            return chaindata_record_fail(rec,
                       "data.status.info.%s must be a non-negative integer",
                       *f);
        }
    }

    return 0;
}


static int
chaindata_chh_check_status(chaindata_record_t *rec,
    const chaindata_jv_t *status)
{
    const chaindata_jv_t        *type, *info;
    const chaindata_chh_type_t  *t;

    if (status == NULL || status->type != CHAINDATA_JV_OBJECT) {
        return chaindata_record_fail(rec,
                   "data.status is missing or not an object");
    }

    if (chaindata_chh_only(rec, status,
                           chaindata_chh_status_members,
                           "data.status", NULL)
        != 0)
    {
        return -1;
    }

    type = chaindata_jv_get(status, "type");

    for (t = chaindata_chh_types; t->type; t++) {
        if (chaindata_jv_is(type, t->type)) {
            break;
        }
    }

    if (t->type == NULL) {
        return chaindata_record_fail(rec,
                   "data.status.type must be one of new, scanning, "
                   "streaming, unconfirmed_expiration, "
                   "confirmed_expiration, interrupted");
    }

    info = chaindata_jv_get(status, "info");

    if (t->info == NULL) {
        if (info) {
            return chaindata_record_fail(rec,
                       "data.status.info must be absent when type is new");
        }

        return 0;
    }

    if (t->info[0] == NULL) {
        if (info == NULL || info->type != CHAINDATA_JV_STRING) {
            return chaindata_record_fail(rec,
                       "data.status.info must be a string (the error "
                       "message) when type is interrupted");
        }

        return 0;
    }

    return chaindata_chh_check_info(rec, info, t);
}


static int
chaindata_chh_check_data(chaindata_record_t *rec,
    const chaindata_jv_t *data)
{
    const chaindata_jv_t  *enabled;

    if (data->type != CHAINDATA_JV_OBJECT) {
        return chaindata_record_fail(rec, "data must be an object");
    }

    if (chaindata_chh_only(rec, data,
                           chaindata_chh_data_members,
                           "data", NULL)
        != 0)
    {
        return -1;
    }

    enabled = chaindata_jv_get(data, "enabled");

    if (enabled == NULL
        || (enabled->type != CHAINDATA_JV_TRUE
            && enabled->type != CHAINDATA_JV_FALSE))
    {
        return chaindata_record_fail(rec,
                   "data.enabled is missing or not a boolean");
    }

    return chaindata_chh_check_status(rec,
               chaindata_jv_get(data, "status"));
}


static int
chaindata_chh_uuid(chaindata_record_t *rec,
    const chaindata_jv_t *v, const char *name, unsigned char *uuid)
{
    if (v == NULL || v->type != CHAINDATA_JV_STRING
        || chaindata_uuid_parse(v->str, v->len, uuid) != 0)
    {
        return chaindata_record_fail(rec,
                   "%s must be a UUID (8-4-4-4-12 hex digits)", name);
    }

    return 0;
}


static int
chaindata_chh_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope,
    const chaindata_jv_t *data, chaindata_writeset_t *ws)
{
    size_t                 doc_size;
    unsigned char         *value;
    unsigned char          uuid[CHAINDATA_UUID_LEN];
    unsigned char          digest[CHAINDATA_KEY_DIGEST_LEN];
    const chaindata_jv_t  *key, *id;

    id = chaindata_jv_get(envelope, "uuid");

    if (chaindata_chh_uuid(rec, id, "uuid", uuid) != 0) {
        return -1;
    }

    /* the key's value is never quoted: error output may end up anywhere */
    key = chaindata_jv_get(envelope, "api_key");

    if (key == NULL || key->type != CHAINDATA_JV_STRING
        || key->len == 0)
    {
        return chaindata_record_fail(rec,
                   "api_key is missing, empty or not a string");
    }

    if (key->len > CHAINDATA_API_KEY_MAX) {
        return chaindata_record_fail(rec,
                   "api_key is longer than %d bytes (%zu)",
                   CHAINDATA_API_KEY_MAX, key->len);
    }

    if (chaindata_chh_check_data(rec, data) != 0) {
        return -1;
    }

    doc_size = chaindata_jv_size(data);

    value = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT,
                                   CHAINDATA_DBI_CHAINHOOK,
                                   uuid, sizeof(uuid),
                                   CHAINDATA_CHH_SIZE
                                   + doc_size);
    if (value == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    chaindata_key_digest(key->str, key->len, digest);
    chaindata_chh_encode(value, digest);
    OPENSSL_cleanse(digest, sizeof(digest));

    if ((size_t) (chaindata_jv_write(value
                                     + CHAINDATA_CHH_SIZE,
                                     data)
                  - value)
        != CHAINDATA_CHH_SIZE + doc_size)
    {
        return chaindata_record_fail(rec,
                                     "internal error: size mismatch");
    }

    rec->kind = CHAINDATA_REC_CHAINHOOK_PUT;

    return 0;
}


static int
chaindata_chh_delete(chaindata_record_t *rec,
    const chaindata_jv_t *id, chaindata_writeset_t *ws)
{
    unsigned char  uuid[CHAINDATA_UUID_LEN];

    if (chaindata_chh_uuid(rec, id, "delete", uuid) != 0) {
        return -1;
    }

    if (chaindata_writeset_add(ws, CHAINDATA_WRITE_DEL,
                               CHAINDATA_DBI_CHAINHOOK,
                               uuid, sizeof(uuid), 0)
        == NULL)
    {
        return chaindata_record_fail(rec, "out of memory");
    }

    rec->kind = CHAINDATA_REC_CHAINHOOK_DELETE;

    return 0;
}


int
chaindata_record_chainhook(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    static const chaindata_upsert_t  upsert = {
        "chainhook",
        chaindata_chh_put_members,
        chaindata_chh_delete_members,
        chaindata_chh_put,
        chaindata_chh_delete
    };

    return chaindata_record_upsert(rec, &upsert, envelope, ws);
}
