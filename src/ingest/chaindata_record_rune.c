
/*
 * chaindata: what the "rune_activity" and "rune_balances" records share
 * (see chaindata_record_rune.h): the rune reference, the values both
 * lists hold, and a list's checks and writes.
 *
 * Every entry is checked before anything is written, then stored
 * compactly with its members in upstream's order (values kept as given),
 * in chunks of a default page of entries, one compressed record each
 * keyed by chunk number (lmdb-schema/pieces.md, "Chunks"), under a header
 * that holds the number of entries and their digest.  See
 * lmdb-schema/runes.md.
 */


#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_escape.h"
#include "chaindata_int.h"
#include "chaindata_layout.h"
#include "chaindata_digest.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_record_rune.h"
#include "chaindata_runes_op.h"
#include "chaindata_field_letters.h"


/* u128: the largest rune amount, before its divisibility is applied */
#define CHAINDATA_U128_MAX                                          \
    "340282366920938463463374607431768211455"
#define CHAINDATA_DIVISIBILITY_MAX  38
#define CHAINDATA_BULLET           "\xe2\x80\xa2"      /* U+2022 */


static const char *chaindata_check_rune_id(
    const chaindata_jv_t  *v);
static const char *chaindata_check_rune_name(
    const chaindata_jv_t  *v);
static const char *chaindata_check_spaced_name(
    const chaindata_jv_t  *v);


/* lmdb-schema/runes.md, "Shared values": the rune reference */
const chaindata_field_t  chaindata_rune_ref[] = {
    { "id", S, R, NULL, chaindata_check_rune_id },
    { "number", I, 0, NULL, chaindata_check_u64 },
    { "name", S, R, NULL, chaindata_check_rune_name },
    { "spaced_name", S, R, NULL, chaindata_check_spaced_name },
    { NULL, 0, 0, NULL, NULL }
};


/*
 * lmdb-schema/runes.md, "rune_etching": what an etching document must
 * hold (its other members are upstream's, kept as given)
 */
const chaindata_field_t  chaindata_rune_etching_doc[] = {
    { "id", S, R, NULL, chaindata_check_rune_id },
    { "number", I, R, NULL, chaindata_check_u64 },
    { "name", S, R, NULL, chaindata_check_rune_name },
    { "spaced_name", S, R, NULL, chaindata_check_spaced_name },
    { NULL, 0, 0, NULL, NULL }
};


/* entries: every member known; an optional one's null is its absence */
/* upstream's entries: a member it adds is stored and noted, not refused */
static const chaindata_rules_t  chaindata_rune_rules = {
    .shape = CHAINDATA_REQUIRED, .counted = 1, .null_absent = 1, .note = ""
};


static const char *
chaindata_check_rune_id(const chaindata_jv_t *v)
{
    uint64_t              n;
    const unsigned char  *colon;

    colon = memchr(v->str, ':', v->len);

    if (colon == NULL
        || chaindata_rune_decimal(v->str, colon - v->str, UINT64_MAX, &n)
           != 0
        || chaindata_rune_decimal(colon + 1, v->str + v->len - colon - 1,
                                  UINT32_MAX, &n)
           != 0)
    {
        return "\"<block>:<tx>\", two decimal integers (e.g. \"840000:3\")";
    }

    return NULL;
}


static const char *
chaindata_check_rune_name(const chaindata_jv_t *v)
{
    size_t  i;

    if (v->len == 0 || v->len > CHAINDATA_RUNE_NAME_MAX) {
        goto bad;
    }

    for (i = 0; i < v->len; i++) {
        if (v->str[i] < 'A' || v->str[i] > 'Z') {
            goto bad;
        }
    }

    return NULL;

bad:

    return "1 to 28 letters A-Z";
}


/* letters A-Z, a bullet (U+2022) only ever between two of them */

static const char *
chaindata_check_spaced_name(const chaindata_jv_t *v)
{
    size_t  i, letters;
    int     after_letter;

    letters = 0;
    after_letter = 0;

    for (i = 0; i < v->len; /* void */) {
        if (v->str[i] >= 'A' && v->str[i] <= 'Z') {
            letters++;
            after_letter = 1;
            i++;
            continue;
        }

        if (!after_letter || v->len - i < 4
            || memcmp(v->str + i, CHAINDATA_BULLET, 3) != 0)
        {
            goto bad;
        }

        after_letter = 0;
        i += 3;
    }

    if (letters == 0 || letters > CHAINDATA_RUNE_NAME_MAX
        || !after_letter)
    {
        goto bad;
    }

    return NULL;

bad:

    return "the name's letters A-Z with single bullets (\xe2\x80\xa2) "
           "between some of them";
}


const char *
chaindata_rune_check_address(const chaindata_jv_t *v)
{
    if (chaindata_address_check(v->str, v->len) != 0) {
        return "a Bitcoin address (base58, or bech32 in one case)";
    }

    return NULL;
}


/*
 * A decimal amount as upstream prints it, its divisibility applied:
 * "2100", "5000.00000", "0.001"; the digits, point removed, at most u128,
 * and at most 38 after the point (the largest divisibility).
 */

const char *
chaindata_rune_check_amount(const chaindata_jv_t *v)
{
    size_t                i, point, digits;
    const unsigned char  *s, *first;

    s = v->str;
    point = v->len;
    digits = 0;
    first = NULL;

    for (i = 0; i < v->len; i++) {
        if (s[i] == '.' && point == v->len && i > 0 && i + 1 < v->len) {
            point = i;
            continue;
        }

        if (s[i] < '0' || s[i] > '9') {
            goto bad;
        }

        if (first == NULL && s[i] != '0') {
            first = s + i;
        }

        if (first) {
            digits++;
        }
    }

    if (v->len == 0 || (point > 1 && s[0] == '0')
        || (point < v->len
            && v->len - point - 1 > CHAINDATA_DIVISIBILITY_MAX))
    {
        goto bad;
    }

    if (digits < sizeof(CHAINDATA_U128_MAX) - 1) {
        return NULL;
    }

    if (digits > sizeof(CHAINDATA_U128_MAX) - 1) {
        goto bad;
    }

    /* as many digits as u128's largest value: compare them in order */
    for (i = 0; first < s + v->len; first++) {
        if (*first == '.') {
            continue;
        }

        if (*first != CHAINDATA_U128_MAX[i]) {
            if (*first > CHAINDATA_U128_MAX[i]) {
                goto bad;
            }

            break;
        }

        i++;
    }

    return NULL;

bad:

    return "a decimal string such as \"2100\" or \"5000.00000\" within the "
           "u128 range";
}


/* an optional member: null counts as absent */

const chaindata_jv_t *
chaindata_rune_optional(const chaindata_jv_t *obj,
    const char *name)
{
    const chaindata_jv_t  *v;

    v = chaindata_jv_get(obj, name);

    if (v && v->type == CHAINDATA_JV_NULL) {
        return NULL;
    }

    return v;
}


/* the spaced name without its bullets is the name: rune is at path */

int
chaindata_rune_check_names(chaindata_record_t *rec,
    const chaindata_jv_t *rune, const char *path, const char *name_path)
{
    size_t                 i, j;
    const chaindata_jv_t  *name, *spaced;

    name = chaindata_jv_get(rune, "name");
    spaced = chaindata_jv_get(rune, "spaced_name");

    for (i = 0, j = 0; i < spaced->len; i++) {
        if (spaced->str[i] & 0x80) {
            continue;
        }

        if (j == name->len || spaced->str[i] != name->str[j]) {
            break;
        }

        j++;
    }

    if (i != spaced->len || j != name->len) {
        return chaindata_record_fail(rec,
                   "%s.spaced_name must be %s with bullets "
                   "(\"%.40s\" has other letters than \"%.40s\")",
                   path, name_path, spaced->str, name->str);
    }

    return 0;
}


/* every entry: its fields, its rune's names, what its list asks besides */

int
chaindata_rune_check_entries(chaindata_record_t *rec,
    const chaindata_rune_list_t *list,
    const chaindata_jv_t *results, const unsigned char *key,
    size_t key_len)
{
    char                   path[CHAINDATA_PATH_LEN];
    char                   rune[CHAINDATA_PATH_LEN + 8];
    size_t                 i;
    const chaindata_jv_t  *entry;

    for (i = 0, entry = results->child; entry; entry = entry->next, i++) {
        snprintf(path, sizeof(path), "results[%zu]", i);
        snprintf(rune, sizeof(rune), "%s.rune", path);

        if (chaindata_record_fields(rec, entry, list->entry, path,
                                    &chaindata_rune_rules)
            != 0
            || chaindata_rune_check_names(rec,
                                          chaindata_jv_get(entry, "rune"),
                                          rune, "rune.name")
               != 0
            || list->check_entry(rec, entry, key, key_len, path) != 0)
        {
            return -1;
        }
    }

    return list->check_all ? list->check_all(rec, results) : 0;
}


/*
 * The compact size of obj with the members fields lists, in their order;
 * an absent member, or a null one (by now only an optional one can be),
 * is left out.
 */

static size_t
chaindata_rune_ordered_size(const chaindata_jv_t *obj,
    const chaindata_field_t *fields, const char *skip)
{
    size_t                    size, n;
    const chaindata_jv_t     *v;
    const chaindata_field_t  *f;

    size = 2;
    n = 0;

    for (f = fields; f->name; f++) {
        v = chaindata_rune_optional(obj, f->name);

        if (v == NULL || (skip && strcmp(f->name, skip) == 0)) {
            continue;
        }

        size += n++ ? 1 : 0;

        if (f->members) {
            size += chaindata_json_escape_len(v->key, v->key_len) + 3
                    + chaindata_rune_ordered_size(v, f->members, NULL);

        } else {
            size += chaindata_jv_member_size(v);
        }
    }

    return size;
}


static unsigned char *
chaindata_rune_ordered_write(unsigned char *p,
    const chaindata_jv_t *obj,
    const chaindata_field_t *fields, const char *skip)
{
    size_t                    n;
    const chaindata_jv_t     *v;
    const chaindata_field_t  *f;

    *p++ = '{';
    n = 0;

    for (f = fields; f->name; f++) {
        v = chaindata_rune_optional(obj, f->name);

        if (v == NULL || (skip && strcmp(f->name, skip) == 0)) {
            continue;
        }

        if (n++) {
            *p++ = ',';
        }

        p = chaindata_jv_write_key(p, v);

        if (f->members) {
            p = chaindata_rune_ordered_write(p, v, f->members, NULL);

        } else {
            p = chaindata_jv_write(p, v);
        }
    }

    *p++ = '}';

    return p;
}


/*
 * 1: obj holds, at some level, a member its fields do not name (one
 * upstream added): the entry is then stored as given, its members in the
 * order served, for upstream's order of them is not known here.
 */

static int
chaindata_rune_has_unknown(const chaindata_jv_t *obj,
    const chaindata_field_t *fields)
{
    const chaindata_jv_t     *v;
    const chaindata_field_t  *f;

    if (chaindata_field_unknown(obj, fields, CHAINDATA_REQUIRED)) {
        return 1;
    }

    for (f = fields; f->name; f++) {
        v = f->members ? chaindata_rune_optional(obj, f->name) : NULL;

        if (v && chaindata_rune_has_unknown(v, f->members)) {
            return 1;
        }
    }

    return 0;
}


/*
 * An object written as given, its members in their order, but skip (a
 * member's name, or NULL): its size, and its bytes
 */

static int
chaindata_rune_key_is(const chaindata_jv_t *m, const char *name)
{
    return m->key_len == strlen(name) && memcmp(m->key, name, m->key_len) == 0;
}


static size_t
chaindata_rune_given_size(const chaindata_jv_t *obj, const char *skip)
{
    size_t                 size, n;
    const chaindata_jv_t  *m;

    if (skip == NULL) {
        return chaindata_jv_size(obj);
    }

    size = 2;
    n = 0;

    for (m = obj->child; m; m = m->next) {
        if (!chaindata_rune_key_is(m, skip)) {
            size += (n++ ? 1 : 0) + chaindata_jv_member_size(m);
        }
    }

    return size;
}


static unsigned char *
chaindata_rune_given_write(unsigned char *p, const chaindata_jv_t *obj,
    const char *skip)
{
    size_t                 n;
    const chaindata_jv_t  *m;

    if (skip == NULL) {
        return chaindata_jv_write(p, obj);
    }

    *p++ = '{';
    n = 0;

    for (m = obj->child; m; m = m->next) {
        if (chaindata_rune_key_is(m, skip)) {
            continue;
        }

        if (n++) {
            *p++ = ',';
        }

        p = chaindata_jv_write_key(p, m);
        p = chaindata_jv_write(p, m);
    }

    *p++ = '}';

    return p;
}


/* an entry's stored size and bytes: in upstream's order, or as given */

size_t
chaindata_rune_entry_size(const chaindata_jv_t *e,
    const chaindata_field_t *fields, const char *skip)
{
    return chaindata_rune_has_unknown(e, fields)
           ? chaindata_rune_given_size(e, skip)
           : chaindata_rune_ordered_size(e, fields, skip);
}


unsigned char *
chaindata_rune_entry_put(unsigned char *p, const chaindata_jv_t *e,
    const chaindata_field_t *fields, const char *skip)
{
    if (chaindata_rune_has_unknown(e, fields)) {
        return chaindata_rune_given_write(p, e, skip);
    }

    return chaindata_rune_ordered_write(p, e, fields, skip);
}


/* the chunk writer's way to write an entry: fields are its data */

static unsigned char *
chaindata_rune_entry_write(unsigned char *p, const chaindata_jv_t *e,
    const void *fields)
{
    return chaindata_rune_entry_put(p, e, fields, NULL);
}


/*
 * The chunks of a non-empty list after its header, the last write (its
 * value trimmed), and its count and digest in h: the entries in
 * upstream's order, each added to the digest (the entries joined by
 * newlines: none of them holds one), through the one chunk writer
 * (chaindata_record_chunks.c).  Returns the header's value, or NULL with
 * the reason in rec.
 */

static unsigned char *
chaindata_rune_write_chunks(chaindata_record_t *rec,
    const chaindata_rune_list_t *list, const chaindata_jv_t *results,
    const unsigned char *key, size_t key_len, chaindata_writeset_t *ws,
    chaindata_listh_t *h)
{
    size_t                 i, room;
    unsigned char         *scratch, *value;
    chaindata_item_t      *items;
    chaindata_digest_t     digest;
    chaindata_chunked_t    chunked;
    const chaindata_jv_t  *entry;

    if (results->n > SIZE_MAX / sizeof(chaindata_item_t)) {
        (void) chaindata_record_fail(rec, "too many results");
        return NULL;
    }

    items = malloc(results->n * sizeof(chaindata_item_t));
    if (items == NULL) {
        (void) chaindata_record_fail(rec, "out of memory");
        return NULL;
    }

    for (i = 0, entry = results->child; entry; i++, entry = entry->next) {
        items[i].jv = entry;
        items[i].size = chaindata_rune_entry_size(entry, list->entry, NULL);
    }

    room = chaindata_chunks_scratch_len(items, results->n,
                                        CHAINDATA_RUNE_CHUNK);

    scratch = malloc(room);
    if (scratch == NULL) {
        free(items);
        (void) chaindata_record_fail(rec, "out of memory");
        return NULL;
    }

    chunked.db = list->entry_db;
    chunked.items = items;
    chunked.n = results->n;
    chunked.per = CHAINDATA_RUNE_CHUNK;
    chunked.write = chaindata_rune_entry_write;
    chunked.data = list->entry;

    chaindata_digest_init(&digest);
    h->count = (uint32_t) results->n;

    value = chaindata_record_list(rec, ws, &chunked, key, key_len, scratch,
                                  &digest, h->digest, &h->chunk0_len);
    free(scratch);
    free(items);

    return value;
}


/*
 * The writes of a list: its old chunks go, then the header and one
 * record per chunk of entries, or for an empty list only the header goes
 * too.
 */

static int
chaindata_rune_write_list(chaindata_record_t *rec,
    const chaindata_rune_list_t *list,
    const chaindata_jv_t *results, const unsigned char *key,
    size_t key_len, chaindata_writeset_t *ws)
{
    unsigned char     *value;
    chaindata_listh_t  h;

    if (chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL_PREFIX,
                                list->entry_db, key, key_len)
        != 0)
    {
        return -1;
    }

    if (results->n == 0) {
        if (chaindata_record_delete(rec, ws, CHAINDATA_WRITE_DEL,
                                    list->head_db, key, key_len)
            != 0)
        {
            return -1;
        }

        rec->kind = list->del;

        return 0;
    }

    if (chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT,
                               list->head_db, key, key_len,
                               CHAINDATA_LISTH_SIZE)
        == NULL)
    {
        return chaindata_record_fail(rec, "out of memory");
    }

    /* the chunks, the first inside the header when it fits a leaf node */
    value = chaindata_rune_write_chunks(rec, list, results, key, key_len,
                                        ws, &h);
    if (value == NULL) {
        return -1;
    }

    chaindata_listh_encode(value, &h);

    rec->kind = list->put;

    return 0;
}


int
chaindata_rune_mix(chaindata_record_t *rec, chaindata_writeset_t *ws,
    const chaindata_writeset_mark_t *mark, const char *kind)
{
    size_t                    i, n;
    unsigned char             len[8], *arg;
    chaindata_digest_t        d;
    const chaindata_write_t  *w;

    chaindata_digest_init(&d);

    /* each write: its action, database and key's length, its key; its
       value's length, its value */
    for (i = mark->nwrites; i < ws->nwrites; i++) {
        w = &ws->writes[i];
        len[0] = (unsigned char) w->action;
        len[1] = (unsigned char) w->db;
        chaindata_put_u32be(len + 2, (uint32_t) w->key_len);
        chaindata_digest_add(&d, len, 6);
        chaindata_digest_add(&d, ws->buf + w->key_off, w->key_len);
        chaindata_put_u32be(len, (uint32_t) w->val_len);
        chaindata_digest_add(&d, len, 4);
        chaindata_digest_add(&d, ws->buf + w->val_off, w->val_len);
    }

    n = strlen(kind) + 1;

    arg = chaindata_writeset_op(ws, CHAINDATA_RUNES_OP_MIX,
                                n + CHAINDATA_SHA256_LEN);
    if (arg == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    memcpy(arg, kind, n);
    chaindata_digest_final(&d, arg + n);

    return 0;
}


int
chaindata_rune_list(chaindata_record_t *rec,
    const chaindata_rune_list_t *list,
    const chaindata_jv_t *envelope, const unsigned char *key,
    size_t key_len, chaindata_writeset_t *ws)
{
    const chaindata_jv_t  *results;

    results = chaindata_jv_get(envelope, "results");

    if (results == NULL || results->type != CHAINDATA_JV_ARRAY) {
        return chaindata_record_fail(rec,
                   "results is missing or not an array (an empty one "
                   "deletes the list)");
    }

    if (results->n > UINT32_MAX) {
        return chaindata_record_fail(rec, "too many results");
    }

    if (chaindata_rune_check_entries(rec, list, results, key, key_len)
        != 0
        || (list->before
            && list->before(rec, envelope, results, key, key_len, ws) != 0))
    {
        return -1;
    }

    return chaindata_rune_write_list(rec, list, results, key, key_len, ws);
}
