
/*
 * chaindata: "chainhook" records.
 *
 *   {"kind":"chainhook","uuid":"<uuid>","api_key":"<key>",
 *    "data":{"status":{...},"enabled":<bool>}}            upsert
 *   {"kind":"chainhook","delete":"<uuid>"}                 remove
 *
 * The document (data) is checked against the status shapes that
 * lmdb-schema/chainhook.md ("Ingest format") lists and stored compactly as
 * given.  The API key itself is never written anywhere: only its SHA-256
 * goes into the record, and no error message quotes it.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "chaindata_hex.h"
#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"


/* what status.info holds for a type: nothing, a message, or counters */
#define CHAINDATA_CHH_NOTHING     0x00
#define CHAINDATA_CHH_MESSAGE     0x01

/* the counters' types: a counter is required by the types of its bits */
#define CHAINDATA_CHH_SCANNING    0x02
#define CHAINDATA_CHH_STREAMING   0x04
#define CHAINDATA_CHH_EXPIRED     0x08


typedef struct {
    const char  *type;
    unsigned     info;
} chaindata_chh_type_t;


static const char *chaindata_chh_check_nullable(
    const chaindata_jv_t  *v);


static const chaindata_chh_type_t  chaindata_chh_types[] = {
    { "new", CHAINDATA_CHH_NOTHING },
    { "scanning", CHAINDATA_CHH_SCANNING },
    { "streaming", CHAINDATA_CHH_STREAMING },
    { "unconfirmed_expiration", CHAINDATA_CHH_EXPIRED },
    { "confirmed_expiration", CHAINDATA_CHH_EXPIRED },
    { "interrupted", CHAINDATA_CHH_MESSAGE },
    { NULL, 0 }
};


/*
 * The counters of status.info, in the order they are checked, and the
 * types that have each: all of those a type has are required, the others
 * are unexpected.  last_occurrence is null until the hook first fires.
 */

#define S  CHAINDATA_CHH_SCANNING
#define T  CHAINDATA_CHH_STREAMING
#define X  CHAINDATA_CHH_EXPIRED
#define U  chaindata_check_u64

static const chaindata_field_t  chaindata_chh_counters[] = {
    { "expired_at_block_height", 0, X, NULL, U },
    { "last_evaluated_block_height", 0, S|T|X, NULL, U },
    { "last_evaluation", 0, T, NULL, U },
    { "last_occurrence", 0, S|T|X, NULL, chaindata_chh_check_nullable },
    { "number_of_blocks_evaluated", 0, S|T|X, NULL, U },
    { "number_of_blocks_to_scan", 0, S, NULL, U },
    { "number_of_times_triggered", 0, S|T|X, NULL, U },
    { NULL, 0, 0, NULL, NULL }
};

#undef S
#undef T
#undef X
#undef U


static const chaindata_field_t  chaindata_chh_put_members[] = {
    { .name = "kind" }, { .name = "uuid" }, { .name = "api_key" },
    { .name = "data" }, { .name = NULL }
};

static const chaindata_field_t  chaindata_chh_delete_members[] = {
    { .name = "kind" }, { .name = "delete" }, { .name = NULL }
};

/* data and data.status: only their members are known here */

static const chaindata_field_t  chaindata_chh_data_members[] = {
    { .name = "status" }, { .name = "enabled" }, { .name = NULL }
};

static const chaindata_field_t  chaindata_chh_status_members[] = {
    { .name = "type" }, { .name = "info" }, { .name = NULL }
};


/* upstream's document: a member it adds is stored and noted, not refused */
static const chaindata_rules_t  chaindata_chh_rules = {
    .shape = CHAINDATA_REQUIRED, .counted = 1, .note = ""
};


static const char *
chaindata_chh_check_nullable(const chaindata_jv_t *v)
{
    if (v->type != CHAINDATA_JV_NULL && chaindata_check_u64(v) != NULL) {
        return "a non-negative integer or null";
    }

    return NULL;
}


static int
chaindata_chh_check_info(chaindata_record_t *rec,
    const chaindata_jv_t *info,
    const chaindata_chh_type_t *t)
{
    char               note[64];
    chaindata_rules_t  rules;

    snprintf(note, sizeof(note), " (type %s)", t->type);

    rules = chaindata_chh_rules;
    rules.shape = t->info;
    rules.note = note;

    return chaindata_record_fields(rec, info, chaindata_chh_counters,
                                   "data.status.info", &rules);
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

    if (chaindata_record_fields(rec, status,
                                chaindata_chh_status_members,
                                "data.status", &chaindata_chh_rules)
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
        if (type == NULL || type->type != CHAINDATA_JV_STRING) {
            return chaindata_record_fail(rec,
                       "data.status.type must be one of new, scanning, "
                       "streaming, unconfirmed_expiration, "
                       "confirmed_expiration, interrupted (or a string "
                       "upstream adds)");
        }

        /* a type upstream added: stored as served, its info unchecked */
        chaindata_record_unknown_note(rec, "data.status.type \"%.32s\"",
                                      type->str);
        return 0;
    }

    info = chaindata_jv_get(status, "info");

    if (t->info == CHAINDATA_CHH_NOTHING) {
        if (info) {
            return chaindata_record_fail(rec,
                       "data.status.info must be absent when type is new");
        }

        return 0;
    }

    if (t->info == CHAINDATA_CHH_MESSAGE) {
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

    if (chaindata_record_fields(rec, data, chaindata_chh_data_members,
                                "data", &chaindata_chh_rules)
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
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    size_t                 doc_size;
    unsigned char         *value;
    unsigned char          uuid[CHAINDATA_UUID_LEN];
    unsigned char          digest[CHAINDATA_KEY_DIGEST_LEN];
    const chaindata_jv_t  *data, *key, *id;

    data = chaindata_jv_get(envelope, "data");
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

    if (chaindata_chh_uuid(rec, id, "delete", uuid) != 0
        || chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL,
                                   CHAINDATA_DBI_CHAINHOOK, uuid,
                                   sizeof(uuid))
           != 0)
    {
        return -1;
    }

    rec->kind = CHAINDATA_REC_CHAINHOOK_DELETE;

    return 0;
}


const chaindata_kind_t  chaindata_kind_chainhook = {
    "chainhook",
    chaindata_chh_put_members,
    chaindata_chh_delete_members,
    chaindata_chh_put,
    chaindata_chh_delete
};
