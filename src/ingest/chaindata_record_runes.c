
/*
 * chaindata: "rune_activity" and "rune_balances" records.
 *
 *   {"kind":"rune_activity","tx_id":"<64 hex>","results":[<entry>, ...]}
 *   {"kind":"rune_balances","address":"<address>","results":[<entry>, ...]}
 *
 * Each replaces the whole list of its transaction or address, in the order
 * given, which is the order served; "results":[] deletes it.  Every entry
 * is checked before anything is written, then stored compactly with its
 * members in upstream's order (values kept as given) as a record of its
 * own keyed by position, under a header that holds the number of entries
 * and their digest.  See lmdb-schema/runes.md.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_codec.h"
#include "chaindata_digest.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"


#define CHAINDATA_PATH_LEN         64

/* u128: the largest rune amount, before its divisibility is applied */
#define CHAINDATA_U128_MAX                                          \
    "340282366920938463463374607431768211455"
#define CHAINDATA_DIVISIBILITY_MAX  38
#define CHAINDATA_RUNE_NAME_MAX     28
#define CHAINDATA_BULLET           "\xe2\x80\xa2"      /* U+2022 */


/* one kind of list: its record kind, where it goes, what an entry is */
typedef struct {
    const chaindata_field_t   *entry;
    chaindata_dbi_e            head_db;
    chaindata_dbi_e            entry_db;
    chaindata_rec_e            put;
    chaindata_rec_e            del;
} chaindata_rlist_t;


typedef struct {
    const unsigned char  *id;
    size_t                len;
    size_t                index;
} chaindata_rune_ref_t;


static const char *chaindata_check_rune_id(
    const chaindata_jv_t  *v);
static const char *chaindata_check_rune_name(
    const chaindata_jv_t  *v);
static const char *chaindata_check_spaced_name(
    const chaindata_jv_t  *v);
static const char *chaindata_check_u32(
    const chaindata_jv_t  *v);
static const char *chaindata_check_hash(
    const chaindata_jv_t  *v);
static const char *chaindata_check_output(
    const chaindata_jv_t  *v);
static const char *chaindata_check_operation(
    const chaindata_jv_t  *v);
static const char *chaindata_check_address(
    const chaindata_jv_t  *v);
static const char *chaindata_check_amount(
    const chaindata_jv_t  *v);


#define S  CHAINDATA_T_STR
#define I  CHAINDATA_T_INT
#define O  CHAINDATA_T_OBJ

/* specification 2.4 and upstream's "number" */
static const chaindata_field_t  chaindata_rune_ref[] = {
    { "id", S, 1, NULL, chaindata_check_rune_id },
    { "number", I, 0, NULL, chaindata_check_u64 },
    { "name", S, 1, NULL, chaindata_check_rune_name },
    { "spaced_name", S, 1, NULL, chaindata_check_spaced_name },
    { NULL, 0, 0, NULL, NULL }
};

/* specification 2.5, the location object */
static const chaindata_field_t  chaindata_location[] = {
    { "block_hash", S, 1, NULL, chaindata_check_hash },
    { "block_height", I, 1, NULL, chaindata_check_u64 },
    { "tx_id", S, 1, NULL, chaindata_check_hash },
    { "tx_index", I, 1, NULL, chaindata_check_u32 },
    { "timestamp", I, 1, NULL, chaindata_check_u64 },
    { "vout", I, 0, NULL, chaindata_check_u32 },
    { "output", S, 0, NULL, chaindata_check_output },
    { NULL, 0, 0, NULL, NULL }
};

/* specification 2.5; the order is upstream's */
static const chaindata_field_t  chaindata_activity[] = {
    { "rune", O, 1, chaindata_rune_ref, NULL },
    { "operation", S, 1, NULL, chaindata_check_operation },
    { "location", O, 1, chaindata_location, NULL },
    { "address", S, 0, NULL, chaindata_check_address },
    { "receiver_address", S, 0, NULL, chaindata_check_address },
    { "amount", S, 0, NULL, chaindata_check_amount },
    { NULL, 0, 0, NULL, NULL }
};

/* specification 2.6; the order is upstream's */
static const chaindata_field_t  chaindata_balance[] = {
    { "rune", O, 1, chaindata_rune_ref, NULL },
    { "balance", S, 1, NULL, chaindata_check_amount },
    { "address", S, 0, NULL, chaindata_check_address },
    { NULL, 0, 0, NULL, NULL }
};

#undef S
#undef I
#undef O


static const chaindata_field_t  chaindata_activity_members[] = {
    { .name = "kind" }, { .name = "tx_id" }, { .name = "results" },
    { .name = NULL }
};

static const chaindata_field_t  chaindata_balances_members[] = {
    { .name = "kind" }, { .name = "address" }, { .name = "results" },
    { .name = NULL }
};


/* entries: every member known; an optional one's null is its absence */
static const chaindata_rules_t  chaindata_rune_rules = {
    CHAINDATA_REQUIRED, 1, 1, ""
};

static const char  *chaindata_operations[] = {
    "etching", "mint", "burn", "send", "receive", NULL
};


static const chaindata_rlist_t  chaindata_activity_list = {
    chaindata_activity,
    CHAINDATA_DBI_RUNE_ACTIVITY,
    CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY,
    CHAINDATA_REC_RUNE_ACTIVITY_PUT,
    CHAINDATA_REC_RUNE_ACTIVITY_DELETE
};

static const chaindata_rlist_t  chaindata_balances_list = {
    chaindata_balance,
    CHAINDATA_DBI_RUNE_BALANCES,
    CHAINDATA_DBI_RUNE_BALANCE_ENTRY,
    CHAINDATA_REC_RUNE_BALANCES_PUT,
    CHAINDATA_REC_RUNE_BALANCES_DELETE
};


/*
 * A decimal integer without sign or leading zeros, at most max; returns
 * 0 and the value, or -1.
 */

static int
chaindata_decimal(const unsigned char *s, size_t len, uint64_t max,
    uint64_t *out)
{
    size_t    i;
    uint64_t  v, d;

    if (len == 0 || (len > 1 && s[0] == '0')) {
        return -1;
    }

    v = 0;

    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }

        d = s[i] - '0';

        if (v > (max - d) / 10) {
            return -1;
        }

        v = v * 10 + d;
    }

    *out = v;

    return 0;
}


static const char *
chaindata_check_rune_id(const chaindata_jv_t *v)
{
    uint64_t              n;
    const unsigned char  *colon;

    colon = memchr(v->str, ':', v->len);

    if (colon == NULL
        || chaindata_decimal(v->str, colon - v->str, UINT64_MAX, &n)
           != 0
        || chaindata_decimal(colon + 1, v->str + v->len - colon - 1,
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


static const char *
chaindata_check_u32(const chaindata_jv_t *v)
{
    uint64_t  n;

    if (chaindata_jv_to_u64(v, &n) != 0 || n > UINT32_MAX) {
        return "an integer from 0 to 4294967295";
    }

    return NULL;
}


static const char *
chaindata_check_hash(const chaindata_jv_t *v)
{
    if (v->len != CHAINDATA_TXID_HEX_LEN
        || !chaindata_hex_is_lower(v->str, v->len))
    {
        return "64 lowercase hex digits";
    }

    return NULL;
}


/* the shape only; that it names location.tx_id and .vout is checked after */

static const char *
chaindata_check_output(const chaindata_jv_t *v)
{
    uint64_t  n;

    if (v->len <= CHAINDATA_TXID_HEX_LEN + 1
        || v->str[CHAINDATA_TXID_HEX_LEN] != ':'
        || chaindata_decimal(v->str
                             + CHAINDATA_TXID_HEX_LEN + 1,
                             v->len
                             - CHAINDATA_TXID_HEX_LEN - 1,
                             UINT32_MAX, &n)
           != 0)
    {
        return "\"<tx_id>:<vout>\"";
    }

    return NULL;
}


static const char *
chaindata_check_operation(const chaindata_jv_t *v)
{
    const char  **op;

    for (op = chaindata_operations; *op; op++) {
        if (chaindata_jv_is(v, *op)) {
            return NULL;
        }
    }

    return "one of etching, mint, burn, send, receive";
}


static const char *
chaindata_check_address(const chaindata_jv_t *v)
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

static const char *
chaindata_check_amount(const chaindata_jv_t *v)
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

static const chaindata_jv_t *
chaindata_optional(const chaindata_jv_t *obj,
    const char *name)
{
    const chaindata_jv_t  *v;

    v = chaindata_jv_get(obj, name);

    if (v && v->type == CHAINDATA_JV_NULL) {
        return NULL;
    }

    return v;
}


/* the spaced name without its bullets is the name */

static int
chaindata_check_rune(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const char *path)
{
    size_t                 i, j;
    const chaindata_jv_t  *rune, *name, *spaced;

    rune = chaindata_jv_get(entry, "rune");
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
                   "%s.rune.spaced_name must be rune.name with bullets "
                   "(\"%.40s\" has other letters than \"%.40s\")",
                   path, spaced->str, name->str);
    }

    return 0;
}


/* the location is the listed transaction's, its output that tx and vout */

static int
chaindata_check_location(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const unsigned char *txid,
    const char *path)
{
    unsigned char          bin[CHAINDATA_TXID_LEN];
    const chaindata_jv_t  *loc, *tx_id, *vout, *output;

    loc = chaindata_jv_get(entry, "location");
    tx_id = chaindata_jv_get(loc, "tx_id");

    (void) chaindata_hex_decode(bin, tx_id->str, tx_id->len);

    if (memcmp(bin, txid, CHAINDATA_TXID_LEN) != 0) {
        return chaindata_record_fail(rec,
                   "%s.location.tx_id must be the record's tx_id", path);
    }

    output = chaindata_optional(loc, "output");

    if (output == NULL) {
        return 0;
    }

    vout = chaindata_optional(loc, "vout");

    if (vout == NULL
        || memcmp(output->str, tx_id->str, tx_id->len) != 0
        || output->len != tx_id->len + 1 + vout->len
        || memcmp(output->str + tx_id->len + 1, vout->str, vout->len) != 0)
    {
        return chaindata_record_fail(rec,
                   "%s.location.output must be \"<location.tx_id>:"
                   "<location.vout>\"%s", path,
                   vout ? "" : " (vout is missing)");
    }

    return 0;
}


/* a balance's address, when given, is the record's */

static int
chaindata_check_holder(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const unsigned char *key,
    size_t key_len, const char *path)
{
    size_t                 len;
    unsigned char          own[CHAINDATA_LIST_KEY_MAX];
    const chaindata_jv_t  *address;

    address = chaindata_optional(entry, "address");

    if (address == NULL) {
        return 0;
    }

    len = chaindata_address_key(own, address->str, address->len);

    if (len != key_len || memcmp(own, key, len) != 0) {
        return chaindata_record_fail(rec,
                   "%s.address must be the record's address", path);
    }

    return 0;
}


static int
chaindata_rune_ref_cmp(const void *a, const void *b)
{
    int                          rc;
    const chaindata_rune_ref_t  *x = a, *y = b;

    rc = memcmp(x->id, y->id, x->len < y->len ? x->len : y->len);

    if (rc) {
        return rc;
    }

    if (x->len != y->len) {
        return (x->len > y->len) - (x->len < y->len);
    }

    return (x->index > y->index) - (x->index < y->index);
}


/* an address holds one balance per rune */

static int
chaindata_check_unique_runes(chaindata_record_t *rec,
    const chaindata_jv_t *results)
{
    size_t                 i;
    chaindata_rune_ref_t  *refs;
    const chaindata_jv_t  *entry, *id;

    refs = chaindata_arena_alloc(rec->arena,
                                 (results->n + 1) * sizeof(*refs));
    if (refs == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    for (i = 0, entry = results->child; entry; entry = entry->next, i++) {
        id = chaindata_jv_get(chaindata_jv_get(entry,
                                               "rune"),
                              "id");
        refs[i].id = id->str;
        refs[i].len = id->len;
        refs[i].index = i;
    }

    qsort(refs, results->n, sizeof(*refs), chaindata_rune_ref_cmp);

    for (i = 1; i < results->n; i++) {
        if (refs[i].len == refs[i - 1].len
            && memcmp(refs[i].id, refs[i - 1].id, refs[i].len) == 0)
        {
            return chaindata_record_fail(rec,
                       "results[%zu] and results[%zu] are both balances of "
                       "rune %.40s", refs[i - 1].index, refs[i].index,
                       refs[i].id);
        }
    }

    return 0;
}


static int
chaindata_check_entries(chaindata_record_t *rec,
    const chaindata_rlist_t *list,
    const chaindata_jv_t *results, const unsigned char *key,
    size_t key_len)
{
    char                   path[CHAINDATA_PATH_LEN];
    size_t                 i;
    const chaindata_jv_t  *entry;

    for (i = 0, entry = results->child; entry; entry = entry->next, i++) {
        snprintf(path, sizeof(path), "results[%zu]", i);

        if (chaindata_record_fields(rec, entry, list->entry, path,
                                    &chaindata_rune_rules)
            != 0
            || chaindata_check_rune(rec, entry, path) != 0)
        {
            return -1;
        }

        if (list == &chaindata_activity_list) {
            if (chaindata_check_location(rec, entry, key, path)
                != 0)
            {
                return -1;
            }

        } else if (chaindata_check_holder(rec, entry, key, key_len,
                                          path)
                   != 0)
        {
            return -1;
        }
    }

    if (list == &chaindata_balances_list) {
        return chaindata_check_unique_runes(rec, results);
    }

    return 0;
}


/* the compact size of obj with the members fields lists, in their order */

static size_t
chaindata_ordered_size(const chaindata_jv_t *obj,
    const chaindata_field_t *fields)
{
    size_t                     size, n;
    const chaindata_jv_t      *v;
    const chaindata_field_t   *f;

    size = 2;
    n = 0;

    for (f = fields; f->name; f++) {
        v = chaindata_optional(obj, f->name);

        if (v == NULL) {
            continue;
        }

        size += n++ ? 1 : 0;

        if (f->members) {
            size += chaindata_json_escape_len(v->key, v->key_len) + 3
                    + chaindata_ordered_size(v, f->members);

        } else {
            size += chaindata_jv_member_size(v);
        }
    }

    return size;
}


static unsigned char *
chaindata_ordered_write(unsigned char *p,
    const chaindata_jv_t *obj,
    const chaindata_field_t *fields)
{
    size_t                     n;
    const chaindata_jv_t      *v;
    const chaindata_field_t   *f;

    *p++ = '{';
    n = 0;

    for (f = fields; f->name; f++) {
        v = chaindata_optional(obj, f->name);

        if (v == NULL) {
            continue;
        }

        if (n++) {
            *p++ = ',';
        }

        p = chaindata_jv_write_key(p, v);

        if (f->members) {
            p = chaindata_ordered_write(p, v, f->members);

        } else {
            p = chaindata_jv_write(p, v);
        }
    }

    *p++ = '}';

    return p;
}


/*
 * The writes of a list: its old entries go, then the header and one
 * record per entry, or for an empty list only the header goes too.
 */

static int
chaindata_write_list(chaindata_record_t *rec,
    const chaindata_rlist_t *list,
    const chaindata_jv_t *results, const unsigned char *key,
    size_t key_len, chaindata_writeset_t *ws)
{
    size_t                 head, size, entry_key_len;
    uint32_t               pos;
    unsigned char         *value, *end;
    unsigned char          sha256[CHAINDATA_SHA256_LEN];
    unsigned char          ekey[CHAINDATA_LIST_ENTRY_KEY_MAX];
    chaindata_listh_t      h;
    chaindata_digest_t     digest;
    const chaindata_jv_t  *entry;

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
        goto nomem;
    }

    head = ws->nwrites - 1;

    chaindata_digest_init(&digest);
    pos = 0;

    for (entry = results->child; entry; entry = entry->next, pos++) {
        size = chaindata_ordered_size(entry, list->entry);
        entry_key_len = chaindata_list_entry_key(ekey, key, key_len,
                                                 pos);

        value = chaindata_writeset_add(ws,
                    CHAINDATA_WRITE_PUT, list->entry_db,
                    ekey, entry_key_len, size);
        if (value == NULL) {
            goto nomem;
        }

        end = chaindata_ordered_write(value, entry, list->entry);

        if ((size_t) (end - value) != size) {
            return chaindata_record_fail(rec,
                       "internal error: size mismatch");
        }

        /* the entries joined by newlines: none of them holds one */
        chaindata_digest_add(&digest, value, size);
    }

    chaindata_digest_final(&digest, sha256);

    h.count = pos;
    memcpy(h.digest, sha256, CHAINDATA_DIGEST_LEN);

    /* the header's value moved with the buffer: find it again */
    chaindata_listh_encode(ws->buf + ws->writes[head].val_off, &h);

    rec->kind = list->put;

    return 0;

nomem:

    return chaindata_record_fail(rec, "out of memory");
}


static int
chaindata_record_list(chaindata_record_t *rec,
    const chaindata_rlist_t *list,
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

    if (chaindata_check_entries(rec, list, results, key, key_len)
        != 0)
    {
        return -1;
    }

    return chaindata_write_list(rec, list, results, key, key_len,
                                ws);
}


static int
chaindata_rune_activity_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    unsigned char          txid[CHAINDATA_TXID_LEN];
    const chaindata_jv_t  *id;

    id = chaindata_jv_get(envelope, "tx_id");

    if (id == NULL || id->type != CHAINDATA_JV_STRING
        || id->len != CHAINDATA_TXID_HEX_LEN
        || chaindata_hex_decode(txid, id->str, id->len) != 0)
    {
        return chaindata_record_fail(rec,
                   "tx_id must be 64 hex digits (no \"0x\")");
    }

    return chaindata_record_list(rec,
                                 &chaindata_activity_list,
                                 envelope, txid, sizeof(txid), ws);
}


static int
chaindata_rune_balances_put(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, chaindata_writeset_t *ws)
{
    size_t                 key_len;
    unsigned char          key[CHAINDATA_LIST_KEY_MAX];
    const chaindata_jv_t  *address;

    address = chaindata_jv_get(envelope, "address");
    key_len = 0;

    if (address && address->type == CHAINDATA_JV_STRING) {
        key_len = chaindata_address_key(key, address->str,
                                        address->len);
    }

    if (key_len == 0) {
        return chaindata_record_fail(rec,
                   "address must be a Bitcoin address (base58, or bech32 "
                   "in one case)");
    }

    return chaindata_record_list(rec,
                                 &chaindata_balances_list,
                                 envelope, key, key_len, ws);
}


const chaindata_kind_t  chaindata_kind_rune_activity = {
    "rune_activity",
    chaindata_activity_members,
    NULL,
    chaindata_rune_activity_put,
    NULL
};


const chaindata_kind_t  chaindata_kind_rune_balances = {
    "rune_balances",
    chaindata_balances_members,
    NULL,
    chaindata_rune_balances_put,
    NULL
};
