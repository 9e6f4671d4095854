
/*
 * chaindata: "rune_etching" records.
 *
 *   {"kind":"rune_etching","id":"840000:8","etching":{<document>}}
 *   {"kind":"rune_etching","id":"840000:8","etching":null}
 *
 * A rune's etching document, as upstream serves it, stored as given
 * (compact, its members in their order); null deletes it.  The document
 * is checked here; what the index holds decides the rest when the batch
 * is applied (the op ETCHING, chaindata_runes_op.h): the rune's own
 * etching and another rune of the same number or name go first.  See
 * lmdb-schema/runes.md.
 */


#include <string.h>

#include "chaindata_int.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_record_rune.h"
#include "chaindata_runes_op.h"


static const chaindata_field_t  chaindata_rune_etching_members[] = {
    { .name = "kind" }, { .name = "id" }, { .name = "etching" },
    { .name = NULL }
};


/* the document's own members checked; its others are upstream's */
static const chaindata_rules_t  chaindata_rune_etching_rules = {
    .shape = CHAINDATA_REQUIRED, .note = ""
};


static int
chaindata_rune_etching_check(chaindata_record_t *rec,
    const chaindata_jv_t *id, const chaindata_jv_t *doc)
{
    const chaindata_jv_t  *own;

    if (chaindata_record_fields(rec, doc, chaindata_rune_etching_doc,
                                "etching", &chaindata_rune_etching_rules)
        != 0
        || chaindata_rune_check_names(rec, doc, "etching", "etching.name")
           != 0)
    {
        return -1;
    }

    own = chaindata_jv_get(doc, "id");

    if (own->len != id->len || memcmp(own->str, id->str, id->len) != 0) {
        return chaindata_record_fail(rec, "etching.id must be the record's "
                                     "id (%.40s)", id->str);
    }

    return 0;
}


static int
chaindata_rune_etching_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    size_t                     size;
    uint64_t                   number;
    unsigned char              key[CHAINDATA_RUNE_ID_KEY_LEN], *p;
    const chaindata_jv_t      *id, *doc, *name;
    chaindata_writeset_mark_t  mark;

    id = chaindata_jv_get(envelope, "id");
    doc = chaindata_jv_get(envelope, "etching");

    if (id == NULL || id->type != CHAINDATA_JV_STRING
        || chaindata_rune_id_key(key, id->str, id->len) != 0)
    {
        return chaindata_record_fail(rec, "id must be a rune id \"<block>:"
                                     "<tx>\", two decimal integers (e.g. "
                                     "\"840000:3\")");
    }

    if (doc == NULL
        || (doc->type != CHAINDATA_JV_NULL
            && doc->type != CHAINDATA_JV_OBJECT))
    {
        return chaindata_record_fail(rec, "etching must be the rune's "
                                     "etching document, an object, or null "
                                     "(it deletes the etching)");
    }

    if (doc->type == CHAINDATA_JV_OBJECT
        && chaindata_rune_etching_check(rec, id, doc) != 0)
    {
        return -1;
    }

    chaindata_writeset_mark(ws, &mark);

    size = CHAINDATA_RUNE_ID_KEY_LEN;
    name = NULL;

    if (doc->type == CHAINDATA_JV_OBJECT) {
        name = chaindata_jv_get(doc, "name");
        size += CHAINDATA_RUNE_NUMBER_LEN + 1 + name->len
                + chaindata_jv_size(doc);
    }

    p = chaindata_writeset_op(ws, CHAINDATA_RUNES_OP_ETCHING, size);
    if (p == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    p = (unsigned char *) memcpy(p, key, sizeof(key)) + sizeof(key);
    rec->kind = CHAINDATA_REC_RUNE_ETCHING_DELETE;

    if (name) {
        (void) chaindata_jv_to_u64(chaindata_jv_get(doc, "number"), &number);
        chaindata_put_u64be(p, number);
        p += CHAINDATA_RUNE_NUMBER_LEN;
        *p++ = (unsigned char) name->len;
        p = (unsigned char *) memcpy(p, name->str, name->len) + name->len;
        (void) chaindata_jv_write(p, doc);
        rec->kind = CHAINDATA_REC_RUNE_ETCHING_PUT;
    }

    return chaindata_rune_mix(rec, ws, &mark, "rune_etching");
}


const chaindata_kind_t  chaindata_kind_rune_etching = {
    "rune_etching",
    chaindata_rune_etching_members,
    NULL,
    chaindata_rune_etching_put,
    NULL
};
