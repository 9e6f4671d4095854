
/*
 * chaindata: ingest records and their envelope, their errors and a
 * member no field names (the fields' checker, chaindata_record_fields.c,
 * is above this file), and the writes records share (deletes, documents
 * in pieces).  Each kind of record has a file of
 * its own (chaindata_record_*.c); a list in chunks is
 * chaindata_record_chunks.c, the write set chaindata_writeset.c, the
 * writer of lines chaindata_line.c.
 */


#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"


#define CHAINDATA_REC_NAME(id, name)  name,

const char *const  chaindata_rec_names[CHAINDATA_REC_KINDS] = {
    CHAINDATA_REC_LIST(CHAINDATA_REC_NAME)
};

#undef CHAINDATA_REC_NAME


static const chaindata_kind_t  *chaindata_kinds[] = {
    &chaindata_kind_tx,
    &chaindata_kind_rune_activity,
    &chaindata_kind_rune_balances,
    &chaindata_kind_rune_block,
    &chaindata_kind_rune_etching,
    &chaindata_kind_chainhook,
    NULL
};


static int chaindata_record_dispatch(chaindata_record_t *rec,
    const chaindata_jv_t *root, chaindata_writeset_t *ws);
static int chaindata_record_unknown(chaindata_record_t *rec,
    const chaindata_jv_t *kind);
static int chaindata_record_kind(chaindata_record_t *rec,
    const chaindata_kind_t *k, const chaindata_jv_t *envelope,
    chaindata_writeset_t *ws);
static int chaindata_record_members(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, const char *kind,
    const chaindata_field_t *allowed);


int
chaindata_record_init(chaindata_record_t *rec)
{
    memset(rec, 0, sizeof(*rec));

    rec->arena = chaindata_arena_create();

    return rec->arena ? 0 : -1;
}


/* made on first use: only the kinds that store pieces need one */

chaindata_deflater_t *
chaindata_record_deflater(chaindata_record_t *rec)
{
    if (rec->deflater == NULL) {
        rec->deflater = chaindata_deflater_create(CHAINDATA_PIECE_LEVEL);
    }

    return rec->deflater;
}


void
chaindata_record_free(chaindata_record_t *rec)
{
    chaindata_arena_destroy(rec->arena);
    rec->arena = NULL;
    chaindata_deflater_destroy(rec->deflater);
    rec->deflater = NULL;
}


int
chaindata_record_fail(chaindata_record_t *rec,
    const char *fmt, ...)
{
    va_list  args;

    va_start(args, fmt);
    vsnprintf(rec->err, sizeof(rec->err), fmt, args);
    va_end(args);

    return -1;
}


void
chaindata_record_unknown_note(chaindata_record_t *rec, const char *fmt, ...)
{
    va_list  args;

    if (rec->unknown++ == 0) {
        va_start(args, fmt);
        vsnprintf(rec->unknown_what, sizeof(rec->unknown_what), fmt, args);
        va_end(args);
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


int
chaindata_record_parse(chaindata_record_t *rec,
    const unsigned char *line, size_t len, chaindata_writeset_t *ws)
{
    chaindata_jv_t  *root;

    rec->err[0] = '\0';
    rec->unknown = 0;
    chaindata_arena_reset(rec->arena);

    root = chaindata_jdoc_parse(rec->arena, line, len, rec->err,
                                sizeof(rec->err));
    if (root == NULL) {
        return -1;
    }

    return chaindata_record_dispatch(rec, root, ws);
}


int
chaindata_record_parse_root(chaindata_record_t *rec,
    const chaindata_jv_t *root, chaindata_writeset_t *ws)
{
    rec->err[0] = '\0';
    rec->unknown = 0;
    chaindata_arena_reset(rec->arena);

    return chaindata_record_dispatch(rec, root, ws);
}


/* a parsed record to the writes of its kind, found by its "kind" */

static int
chaindata_record_dispatch(chaindata_record_t *rec,
    const chaindata_jv_t *root, chaindata_writeset_t *ws)
{
    int                        rc;
    const chaindata_jv_t      *kind;
    const chaindata_kind_t   **k;
    chaindata_writeset_mark_t  mark;

    if (root->type != CHAINDATA_JV_OBJECT) {
        return chaindata_record_fail(rec,
                                     "a record must be a JSON object");
    }

    kind = chaindata_jv_get(root, "kind");

    if (kind == NULL || kind->type != CHAINDATA_JV_STRING) {
        return chaindata_record_fail(rec,
                   "\"kind\" is missing or not a string");
    }

    for (k = chaindata_kinds; *k; k++) {
        if (chaindata_jv_is(kind, (*k)->name)) {
            break;
        }
    }

    if (*k == NULL) {
        return chaindata_record_unknown(rec, kind);
    }

    chaindata_writeset_mark(ws, &mark);

    rc = chaindata_record_kind(rec, *k, root, ws);

    if (rc != 0) {
        chaindata_writeset_restore(ws, &mark);
    }

    return rc;
}


/*
 * Checks that an envelope holds only the members a kind allows: a typo
 * such as "dat" must not pass as a record without data.
 */

static int
chaindata_record_members(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, const char *kind,
    const chaindata_field_t *allowed)
{
    const chaindata_jv_t  *m;

    m = chaindata_field_unknown(envelope, allowed, CHAINDATA_REQUIRED);

    if (m) {
        return chaindata_record_fail(rec,
                   "unexpected member \"%.64s\" in a %s record",
                   m->key, kind);
    }

    return 0;
}


/* names the kinds there are: "tx, rune_activity, ... or chainhook" */

static int
chaindata_record_unknown(chaindata_record_t *rec,
    const chaindata_jv_t *kind)
{
    char                      names[CHAINDATA_ERR_LEN / 2];
    size_t                    len;
    const chaindata_kind_t  **k;

    len = 0;

    for (k = chaindata_kinds; *k && len < sizeof(names); k++) {
        len += snprintf(names + len, sizeof(names) - len, "%s%s",
                        k == chaindata_kinds ? "" : (k[1] ? ", " : " or "),
                        (*k)->name);
    }

    return chaindata_record_fail(rec,
               "unknown kind \"%.64s\" (expected %s)", kind->str, names);
}


/* {"kind":K,"data":{…}} upserts, {"kind":K,"delete":ID} removes */

static int
chaindata_record_kind(chaindata_record_t *rec,
    const chaindata_kind_t *k, const chaindata_jv_t *envelope,
    chaindata_writeset_t *ws)
{
    const chaindata_jv_t  *data, *id;

    if (k->delete_members == NULL) {
        if (chaindata_record_members(rec, envelope, k->name, k->members)
            != 0)
        {
            return -1;
        }

        return k->put(rec, envelope, ws);
    }

    data = chaindata_jv_get(envelope, "data");
    id = chaindata_jv_get(envelope, "delete");

    if ((data == NULL) == (id == NULL)) {
        return chaindata_record_fail(rec,
                   "a %s record has either \"data\" or \"delete\"",
                   k->name);
    }

    if (chaindata_record_members(rec, envelope, k->name,
                                 data ? k->members : k->delete_members)
        != 0)
    {
        return -1;
    }

    return data ? k->put(rec, envelope, ws) : k->remove(rec, id, ws);
}


/*
 * Appends a write without a value (a delete, of a key or of a prefix):
 * returns 0, or -1 with the reason in rec when memory runs out.
 */

int
chaindata_record_delete(chaindata_record_t *rec,
    chaindata_writeset_t *ws, chaindata_write_e action, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len)
{
    if (chaindata_writeset_add(ws, action, db, key, key_len, 0) == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    return 0;
}


/*
 * A document's pieces at value (room for chaindata_piece_bound() of the
 * document and one chaindata_piece_bound(0) a cut more), cut at the ncut
 * offsets of cut (any order; one repeated, or at 0 or the end, makes no
 * empty piece).  Sorts cut.  Returns the end, NULL on failure.
 */

unsigned char *
chaindata_record_pieces(chaindata_record_t *rec, unsigned char *value,
    const unsigned char *doc, size_t doc_len, size_t *cut, unsigned ncut)
{
    size_t                 c, n, from, t;
    unsigned               i, j;
    chaindata_deflater_t  *d;

    d = chaindata_record_deflater(rec);
    if (d == NULL) {
        return NULL;
    }

    for (i = 1; i < ncut; i++) {
        for (j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    }

    from = 0;

    for (i = 0; i <= ncut; i++) {
        c = i < ncut ? cut[i] : doc_len;

        if (c <= from) {
            continue;
        }

        n = chaindata_piece_make(d, doc + from, c - from, value);
        if (n == 0) {
            return NULL;
        }

        value += n;
        from = c;
    }

    return value;
}
