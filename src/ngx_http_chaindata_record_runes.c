
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

#include <openssl/evp.h>

#include "ngx_http_chaindata_address.h"
#include "ngx_http_chaindata_codec.h"
#include "ngx_http_chaindata_jdoc.h"
#include "ngx_http_chaindata_record.h"


#define NGX_HTTP_CHAINDATA_PATH_LEN         64

/* u128: the largest rune amount, before its divisibility is applied */
#define NGX_HTTP_CHAINDATA_U128_MAX                                          \
    "340282366920938463463374607431768211455"
#define NGX_HTTP_CHAINDATA_DIVISIBILITY_MAX  38
#define NGX_HTTP_CHAINDATA_RUNE_NAME_MAX     28
#define NGX_HTTP_CHAINDATA_BULLET           "\xe2\x80\xa2"      /* U+2022 */


/* what a value must be: NULL when it is that, else the description */
typedef const char *(*ngx_http_chaindata_rcheck_pt)(
    const ngx_http_chaindata_jv_t *v);

typedef struct ngx_http_chaindata_rfield_s  ngx_http_chaindata_rfield_t;

struct ngx_http_chaindata_rfield_s {
    const char                          *name;
    ngx_http_chaindata_jv_type_e         type;
    unsigned                             required;
    const ngx_http_chaindata_rfield_t   *members;   /* an object's, in order */
    ngx_http_chaindata_rcheck_pt         check;
};


/* one kind of list: its record kind, where it goes, what an entry is */
typedef struct {
    const char                          *kind;
    const char                          *key_member;
    const char                         **members;
    const ngx_http_chaindata_rfield_t   *entry;
    ngx_http_chaindata_dbi_e             head_db;
    ngx_http_chaindata_dbi_e             entry_db;
    ngx_http_chaindata_rec_e             put;
    ngx_http_chaindata_rec_e             del;
} ngx_http_chaindata_rlist_t;


typedef struct {
    const unsigned char  *id;
    size_t                len;
    size_t                index;
} ngx_http_chaindata_rune_ref_t;


static const char *ngx_http_chaindata_check_rune_id(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_rune_name(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_spaced_name(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_u64(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_u32(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_hash(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_output(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_operation(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_address(
    const ngx_http_chaindata_jv_t *v);
static const char *ngx_http_chaindata_check_amount(
    const ngx_http_chaindata_jv_t *v);


#define S  NGX_HTTP_CHAINDATA_JV_STRING
#define I  NGX_HTTP_CHAINDATA_JV_NUMBER
#define O  NGX_HTTP_CHAINDATA_JV_OBJECT

/* specification 2.4 and upstream's "number" */
static const ngx_http_chaindata_rfield_t  ngx_http_chaindata_rune_ref[] = {
    { "id", S, 1, NULL, ngx_http_chaindata_check_rune_id },
    { "number", I, 0, NULL, ngx_http_chaindata_check_u64 },
    { "name", S, 1, NULL, ngx_http_chaindata_check_rune_name },
    { "spaced_name", S, 1, NULL, ngx_http_chaindata_check_spaced_name },
    { NULL, 0, 0, NULL, NULL }
};

/* specification 2.5, the location object */
static const ngx_http_chaindata_rfield_t  ngx_http_chaindata_location[] = {
    { "block_hash", S, 1, NULL, ngx_http_chaindata_check_hash },
    { "block_height", I, 1, NULL, ngx_http_chaindata_check_u64 },
    { "tx_id", S, 1, NULL, ngx_http_chaindata_check_hash },
    { "tx_index", I, 1, NULL, ngx_http_chaindata_check_u32 },
    { "timestamp", I, 1, NULL, ngx_http_chaindata_check_u64 },
    { "vout", I, 0, NULL, ngx_http_chaindata_check_u32 },
    { "output", S, 0, NULL, ngx_http_chaindata_check_output },
    { NULL, 0, 0, NULL, NULL }
};

/* specification 2.5; the order is upstream's */
static const ngx_http_chaindata_rfield_t  ngx_http_chaindata_activity[] = {
    { "rune", O, 1, ngx_http_chaindata_rune_ref, NULL },
    { "operation", S, 1, NULL, ngx_http_chaindata_check_operation },
    { "location", O, 1, ngx_http_chaindata_location, NULL },
    { "address", S, 0, NULL, ngx_http_chaindata_check_address },
    { "receiver_address", S, 0, NULL, ngx_http_chaindata_check_address },
    { "amount", S, 0, NULL, ngx_http_chaindata_check_amount },
    { NULL, 0, 0, NULL, NULL }
};

/* specification 2.6; the order is upstream's */
static const ngx_http_chaindata_rfield_t  ngx_http_chaindata_balance[] = {
    { "rune", O, 1, ngx_http_chaindata_rune_ref, NULL },
    { "balance", S, 1, NULL, ngx_http_chaindata_check_amount },
    { "address", S, 0, NULL, ngx_http_chaindata_check_address },
    { NULL, 0, 0, NULL, NULL }
};

#undef S
#undef I
#undef O


static const char  *ngx_http_chaindata_activity_members[] = {
    "kind", "tx_id", "results", NULL
};

static const char  *ngx_http_chaindata_balances_members[] = {
    "kind", "address", "results", NULL
};

static const char  *ngx_http_chaindata_operations[] = {
    "etching", "mint", "burn", "send", "receive", NULL
};


static const ngx_http_chaindata_rlist_t  ngx_http_chaindata_activity_list = {
    "rune_activity",
    "tx_id",
    ngx_http_chaindata_activity_members,
    ngx_http_chaindata_activity,
    NGX_HTTP_CHAINDATA_DBI_RUNE_ACTIVITY,
    NGX_HTTP_CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY,
    NGX_HTTP_CHAINDATA_REC_RUNE_ACTIVITY_PUT,
    NGX_HTTP_CHAINDATA_REC_RUNE_ACTIVITY_DELETE
};

static const ngx_http_chaindata_rlist_t  ngx_http_chaindata_balances_list = {
    "rune_balances",
    "address",
    ngx_http_chaindata_balances_members,
    ngx_http_chaindata_balance,
    NGX_HTTP_CHAINDATA_DBI_RUNE_BALANCES,
    NGX_HTTP_CHAINDATA_DBI_RUNE_BALANCE_ENTRY,
    NGX_HTTP_CHAINDATA_REC_RUNE_BALANCES_PUT,
    NGX_HTTP_CHAINDATA_REC_RUNE_BALANCES_DELETE
};


/*
 * A decimal integer without sign or leading zeros, at most max; returns
 * 0 and the value, or -1.
 */

static int
ngx_http_chaindata_decimal(const unsigned char *s, size_t len, uint64_t max,
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
ngx_http_chaindata_check_rune_id(const ngx_http_chaindata_jv_t *v)
{
    uint64_t              n;
    const unsigned char  *colon;

    colon = memchr(v->str, ':', v->len);

    if (colon == NULL
        || ngx_http_chaindata_decimal(v->str, colon - v->str, UINT64_MAX, &n)
           != 0
        || ngx_http_chaindata_decimal(colon + 1, v->str + v->len - colon - 1,
                                      UINT32_MAX, &n)
           != 0)
    {
        return "\"<block>:<tx>\", two decimal integers (e.g. \"840000:3\")";
    }

    return NULL;
}


static const char *
ngx_http_chaindata_check_rune_name(const ngx_http_chaindata_jv_t *v)
{
    size_t  i;

    if (v->len == 0 || v->len > NGX_HTTP_CHAINDATA_RUNE_NAME_MAX) {
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
ngx_http_chaindata_check_spaced_name(const ngx_http_chaindata_jv_t *v)
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
            || memcmp(v->str + i, NGX_HTTP_CHAINDATA_BULLET, 3) != 0)
        {
            goto bad;
        }

        after_letter = 0;
        i += 3;
    }

    if (letters == 0 || letters > NGX_HTTP_CHAINDATA_RUNE_NAME_MAX
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
ngx_http_chaindata_check_u64(const ngx_http_chaindata_jv_t *v)
{
    uint64_t  n;

    if (ngx_http_chaindata_decimal(v->str, v->len, UINT64_MAX, &n) != 0) {
        return "a non-negative integer";
    }

    return NULL;
}


static const char *
ngx_http_chaindata_check_u32(const ngx_http_chaindata_jv_t *v)
{
    uint64_t  n;

    if (ngx_http_chaindata_decimal(v->str, v->len, UINT32_MAX, &n) != 0) {
        return "an integer from 0 to 4294967295";
    }

    return NULL;
}


static const char *
ngx_http_chaindata_check_hash(const ngx_http_chaindata_jv_t *v)
{
    size_t  i;

    if (v->len != NGX_HTTP_CHAINDATA_TXID_HEX_LEN) {
        goto bad;
    }

    for (i = 0; i < v->len; i++) {
        if (!((v->str[i] >= '0' && v->str[i] <= '9')
              || (v->str[i] >= 'a' && v->str[i] <= 'f')))
        {
            goto bad;
        }
    }

    return NULL;

bad:

    return "64 lowercase hex digits";
}


/* the shape only; that it names location.tx_id and .vout is checked after */

static const char *
ngx_http_chaindata_check_output(const ngx_http_chaindata_jv_t *v)
{
    uint64_t  n;

    if (v->len <= NGX_HTTP_CHAINDATA_TXID_HEX_LEN + 1
        || v->str[NGX_HTTP_CHAINDATA_TXID_HEX_LEN] != ':'
        || ngx_http_chaindata_decimal(v->str
                                      + NGX_HTTP_CHAINDATA_TXID_HEX_LEN + 1,
                                      v->len
                                      - NGX_HTTP_CHAINDATA_TXID_HEX_LEN - 1,
                                      UINT32_MAX, &n)
           != 0)
    {
        return "\"<tx_id>:<vout>\"";
    }

    return NULL;
}


static const char *
ngx_http_chaindata_check_operation(const ngx_http_chaindata_jv_t *v)
{
    const char  **op;

    for (op = ngx_http_chaindata_operations; *op; op++) {
        if (ngx_http_chaindata_jv_is(v, *op)) {
            return NULL;
        }
    }

    return "one of etching, mint, burn, send, receive";
}


static const char *
ngx_http_chaindata_check_address(const ngx_http_chaindata_jv_t *v)
{
    if (ngx_http_chaindata_address_check(v->str, v->len) != 0) {
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
ngx_http_chaindata_check_amount(const ngx_http_chaindata_jv_t *v)
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
            && v->len - point - 1 > NGX_HTTP_CHAINDATA_DIVISIBILITY_MAX))
    {
        goto bad;
    }

    if (digits < sizeof(NGX_HTTP_CHAINDATA_U128_MAX) - 1) {
        return NULL;
    }

    if (digits > sizeof(NGX_HTTP_CHAINDATA_U128_MAX) - 1) {
        goto bad;
    }

    /* as many digits as u128's largest value: compare them in order */
    for (i = 0; first < s + v->len; first++) {
        if (*first == '.') {
            continue;
        }

        if (*first != NGX_HTTP_CHAINDATA_U128_MAX[i]) {
            if (*first > NGX_HTTP_CHAINDATA_U128_MAX[i]) {
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


static const char *
ngx_http_chaindata_type_name(ngx_http_chaindata_jv_type_e type)
{
    switch (type) {
    case NGX_HTTP_CHAINDATA_JV_STRING:  return "a string";
    case NGX_HTTP_CHAINDATA_JV_NUMBER:  return "an integer";
    default:                            return "an object";
    }
}


/* an optional member: null counts as absent */

static const ngx_http_chaindata_jv_t *
ngx_http_chaindata_optional(const ngx_http_chaindata_jv_t *obj,
    const char *name)
{
    const ngx_http_chaindata_jv_t  *v;

    v = ngx_http_chaindata_jv_get(obj, name);

    if (v && v->type == NGX_HTTP_CHAINDATA_JV_NULL) {
        return NULL;
    }

    return v;
}


/* the member of obj a field names */

static const ngx_http_chaindata_jv_t *
ngx_http_chaindata_rfield_get(const ngx_http_chaindata_jv_t *obj,
    const ngx_http_chaindata_rfield_t *f)
{
    if (f->required) {
        return ngx_http_chaindata_jv_get(obj, f->name);
    }

    return ngx_http_chaindata_optional(obj, f->name);
}


/* an object against its fields: members known, present, typed, valid */

static int
ngx_http_chaindata_check_object(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_jv_t *obj,
    const ngx_http_chaindata_rfield_t *fields, const char *path)
{
    char                                sub[NGX_HTTP_CHAINDATA_PATH_LEN];
    const char                         *want;
    const ngx_http_chaindata_jv_t      *m, *v;
    const ngx_http_chaindata_rfield_t  *f;

    if (obj->type != NGX_HTTP_CHAINDATA_JV_OBJECT) {
        return ngx_http_chaindata_record_fail(rec, "%s must be an object",
                                              path);
    }

    for (m = obj->child; m; m = m->next) {
        for (f = fields; f->name; f++) {
            if (m->key_len == strlen(f->name)
                && memcmp(m->key, f->name, m->key_len) == 0)
            {
                break;
            }
        }

        if (f->name == NULL) {
            return ngx_http_chaindata_record_fail(rec,
                       "%s has an unexpected member \"%.64s\"", path, m->key);
        }
    }

    for (f = fields; f->name; f++) {
        snprintf(sub, sizeof(sub), "%s.%s", path, f->name);

        v = ngx_http_chaindata_rfield_get(obj, f);

        if (v == NULL) {
            if (f->required) {
                return ngx_http_chaindata_record_fail(rec, "%s is missing",
                                                      sub);
            }

            continue;
        }

        if (v->type != f->type
            || (f->type == NGX_HTTP_CHAINDATA_JV_NUMBER
                && !ngx_http_chaindata_jv_is_integer(v)))
        {
            return ngx_http_chaindata_record_fail(rec, "%s must be %s", sub,
                       ngx_http_chaindata_type_name(f->type));
        }

        if (f->members) {
            if (ngx_http_chaindata_check_object(rec, v, f->members, sub)
                != 0)
            {
                return -1;
            }

            continue;
        }

        want = f->check(v);

        if (want) {
            return ngx_http_chaindata_record_fail(rec, "%s must be %s", sub,
                                                  want);
        }
    }

    return 0;
}


/* the spaced name without its bullets is the name */

static int
ngx_http_chaindata_check_rune(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_jv_t *entry, const char *path)
{
    size_t                          i, j;
    const ngx_http_chaindata_jv_t  *rune, *name, *spaced;

    rune = ngx_http_chaindata_jv_get(entry, "rune");
    name = ngx_http_chaindata_jv_get(rune, "name");
    spaced = ngx_http_chaindata_jv_get(rune, "spaced_name");

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
        return ngx_http_chaindata_record_fail(rec,
                   "%s.rune.spaced_name must be rune.name with bullets "
                   "(\"%.40s\" has other letters than \"%.40s\")",
                   path, spaced->str, name->str);
    }

    return 0;
}


/* the location is the listed transaction's, its output that tx and vout */

static int
ngx_http_chaindata_check_location(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_jv_t *entry, const unsigned char *txid,
    const char *path)
{
    unsigned char                   bin[NGX_HTTP_CHAINDATA_TXID_LEN];
    const ngx_http_chaindata_jv_t  *loc, *tx_id, *vout, *output;

    loc = ngx_http_chaindata_jv_get(entry, "location");
    tx_id = ngx_http_chaindata_jv_get(loc, "tx_id");

    (void) ngx_http_chaindata_hex_decode(bin, tx_id->str, tx_id->len);

    if (memcmp(bin, txid, NGX_HTTP_CHAINDATA_TXID_LEN) != 0) {
        return ngx_http_chaindata_record_fail(rec,
                   "%s.location.tx_id must be the record's tx_id", path);
    }

    output = ngx_http_chaindata_optional(loc, "output");

    if (output == NULL) {
        return 0;
    }

    vout = ngx_http_chaindata_optional(loc, "vout");

    if (vout == NULL
        || memcmp(output->str, tx_id->str, tx_id->len) != 0
        || output->len != tx_id->len + 1 + vout->len
        || memcmp(output->str + tx_id->len + 1, vout->str, vout->len) != 0)
    {
        return ngx_http_chaindata_record_fail(rec,
                   "%s.location.output must be \"<location.tx_id>:"
                   "<location.vout>\"%s", path,
                   vout ? "" : " (vout is missing)");
    }

    return 0;
}


/* a balance's address, when given, is the record's */

static int
ngx_http_chaindata_check_holder(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_jv_t *entry, const unsigned char *key,
    size_t key_len, const char *path)
{
    size_t                          len;
    unsigned char                   own[NGX_HTTP_CHAINDATA_LIST_KEY_MAX];
    const ngx_http_chaindata_jv_t  *address;

    address = ngx_http_chaindata_optional(entry, "address");

    if (address == NULL) {
        return 0;
    }

    len = ngx_http_chaindata_address_key(own, address->str, address->len);

    if (len != key_len || memcmp(own, key, len) != 0) {
        return ngx_http_chaindata_record_fail(rec,
                   "%s.address must be the record's address", path);
    }

    return 0;
}


static int
ngx_http_chaindata_rune_ref_cmp(const void *a, const void *b)
{
    int                                   rc;
    const ngx_http_chaindata_rune_ref_t  *x = a, *y = b;

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
ngx_http_chaindata_check_unique_runes(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_jv_t *results)
{
    size_t                          i;
    ngx_http_chaindata_rune_ref_t  *refs;
    const ngx_http_chaindata_jv_t  *entry, *id;

    refs = ngx_http_chaindata_arena_alloc(rec->arena,
                                          (results->n + 1) * sizeof(*refs));
    if (refs == NULL) {
        return ngx_http_chaindata_record_fail(rec, "out of memory");
    }

    for (i = 0, entry = results->child; entry; entry = entry->next, i++) {
        id = ngx_http_chaindata_jv_get(ngx_http_chaindata_jv_get(entry,
                                                                 "rune"),
                                       "id");
        refs[i].id = id->str;
        refs[i].len = id->len;
        refs[i].index = i;
    }

    qsort(refs, results->n, sizeof(*refs), ngx_http_chaindata_rune_ref_cmp);

    for (i = 1; i < results->n; i++) {
        if (refs[i].len == refs[i - 1].len
            && memcmp(refs[i].id, refs[i - 1].id, refs[i].len) == 0)
        {
            return ngx_http_chaindata_record_fail(rec,
                       "results[%zu] and results[%zu] are both balances of "
                       "rune %.40s", refs[i - 1].index, refs[i].index,
                       refs[i].id);
        }
    }

    return 0;
}


static int
ngx_http_chaindata_check_entries(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_rlist_t *list,
    const ngx_http_chaindata_jv_t *results, const unsigned char *key,
    size_t key_len)
{
    char                            path[NGX_HTTP_CHAINDATA_PATH_LEN];
    size_t                          i;
    const ngx_http_chaindata_jv_t  *entry;

    for (i = 0, entry = results->child; entry; entry = entry->next, i++) {
        snprintf(path, sizeof(path), "results[%zu]", i);

        if (ngx_http_chaindata_check_object(rec, entry, list->entry, path)
            != 0
            || ngx_http_chaindata_check_rune(rec, entry, path) != 0)
        {
            return -1;
        }

        if (list == &ngx_http_chaindata_activity_list) {
            if (ngx_http_chaindata_check_location(rec, entry, key, path)
                != 0)
            {
                return -1;
            }

        } else if (ngx_http_chaindata_check_holder(rec, entry, key, key_len,
                                                   path)
                   != 0)
        {
            return -1;
        }
    }

    if (list == &ngx_http_chaindata_balances_list) {
        return ngx_http_chaindata_check_unique_runes(rec, results);
    }

    return 0;
}


/* the compact size of obj with the members fields lists, in their order */

static size_t
ngx_http_chaindata_ordered_size(const ngx_http_chaindata_jv_t *obj,
    const ngx_http_chaindata_rfield_t *fields)
{
    size_t                              size, n;
    const ngx_http_chaindata_jv_t      *v;
    const ngx_http_chaindata_rfield_t  *f;

    size = 2;
    n = 0;

    for (f = fields; f->name; f++) {
        v = ngx_http_chaindata_rfield_get(obj, f);

        if (v == NULL) {
            continue;
        }

        size += n++ ? 1 : 0;

        if (f->members) {
            size += ngx_http_chaindata_json_escape_len(v->key, v->key_len) + 3
                    + ngx_http_chaindata_ordered_size(v, f->members);

        } else {
            size += ngx_http_chaindata_jv_member_size(v);
        }
    }

    return size;
}


static unsigned char *
ngx_http_chaindata_ordered_write(unsigned char *p,
    const ngx_http_chaindata_jv_t *obj,
    const ngx_http_chaindata_rfield_t *fields)
{
    size_t                              n;
    const ngx_http_chaindata_jv_t      *v;
    const ngx_http_chaindata_rfield_t  *f;

    *p++ = '{';
    n = 0;

    for (f = fields; f->name; f++) {
        v = ngx_http_chaindata_rfield_get(obj, f);

        if (v == NULL) {
            continue;
        }

        if (n++) {
            *p++ = ',';
        }

        p = ngx_http_chaindata_jv_write_key(p, v);

        if (f->members) {
            p = ngx_http_chaindata_ordered_write(p, v, f->members);

        } else {
            p = ngx_http_chaindata_jv_write(p, v);
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
ngx_http_chaindata_write_list(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_rlist_t *list,
    const ngx_http_chaindata_jv_t *results, const unsigned char *key,
    size_t key_len, ngx_http_chaindata_writeset_t *ws)
{
    int                             failed;
    size_t                          head, size, entry_key_len;
    uint32_t                        pos;
    EVP_MD_CTX                     *md;
    unsigned char                  *value, *end;
    unsigned char                   digest[EVP_MAX_MD_SIZE];
    unsigned char                   ekey[NGX_HTTP_CHAINDATA_LIST_ENTRY_KEY_MAX];
    ngx_http_chaindata_listh_t      h;
    const ngx_http_chaindata_jv_t  *entry;

    if (ngx_http_chaindata_writeset_add(ws, NGX_HTTP_CHAINDATA_WRITE_DEL_PREFIX,
                                        list->entry_db, key, key_len, 0)
        == NULL)
    {
        goto nomem;
    }

    if (results->n == 0) {
        if (ngx_http_chaindata_writeset_add(ws, NGX_HTTP_CHAINDATA_WRITE_DEL,
                                            list->head_db, key, key_len, 0)
            == NULL)
        {
            goto nomem;
        }

        rec->kind = list->del;

        return 0;
    }

    if (ngx_http_chaindata_writeset_add(ws, NGX_HTTP_CHAINDATA_WRITE_PUT,
                                        list->head_db, key, key_len,
                                        NGX_HTTP_CHAINDATA_LISTH_SIZE)
        == NULL)
    {
        goto nomem;
    }

    head = ws->nwrites - 1;

    md = EVP_MD_CTX_new();
    if (md == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(md);
        return ngx_http_chaindata_record_fail(rec, "SHA-256 unavailable");
    }

    failed = 0;
    pos = 0;

    for (entry = results->child; entry; entry = entry->next, pos++) {
        size = ngx_http_chaindata_ordered_size(entry, list->entry);
        entry_key_len = ngx_http_chaindata_list_entry_key(ekey, key, key_len,
                                                          pos);

        value = ngx_http_chaindata_writeset_add(ws,
                    NGX_HTTP_CHAINDATA_WRITE_PUT, list->entry_db,
                    ekey, entry_key_len, size);
        if (value == NULL) {
            EVP_MD_CTX_free(md);
            goto nomem;
        }

        end = ngx_http_chaindata_ordered_write(value, entry, list->entry);

        if ((size_t) (end - value) != size) {
            EVP_MD_CTX_free(md);
            return ngx_http_chaindata_record_fail(rec,
                       "internal error: size mismatch");
        }

        /* the entries joined by newlines: none of them holds one */
        if ((pos && EVP_DigestUpdate(md, "\n", 1) != 1)
            || EVP_DigestUpdate(md, value, size) != 1)
        {
            failed = 1;
            break;
        }
    }

    if (failed || EVP_DigestFinal_ex(md, digest, NULL) != 1) {
        EVP_MD_CTX_free(md);
        return ngx_http_chaindata_record_fail(rec, "SHA-256 failed");
    }

    EVP_MD_CTX_free(md);

    h.count = pos;
    memcpy(h.digest, digest, NGX_HTTP_CHAINDATA_DIGEST_LEN);

    /* the header's value moved with the buffer: find it again */
    ngx_http_chaindata_listh_encode(ws->buf + ws->writes[head].val_off, &h);

    rec->kind = list->put;

    return 0;

nomem:

    return ngx_http_chaindata_record_fail(rec, "out of memory");
}


static int
ngx_http_chaindata_record_list(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_rlist_t *list,
    const ngx_http_chaindata_jv_t *envelope, const unsigned char *key,
    size_t key_len, ngx_http_chaindata_writeset_t *ws)
{
    const ngx_http_chaindata_jv_t  *results;

    results = ngx_http_chaindata_jv_get(envelope, "results");

    if (results == NULL || results->type != NGX_HTTP_CHAINDATA_JV_ARRAY) {
        return ngx_http_chaindata_record_fail(rec,
                   "results is missing or not an array (an empty one "
                   "deletes the list)");
    }

    if (results->n > UINT32_MAX) {
        return ngx_http_chaindata_record_fail(rec, "too many results");
    }

    if (ngx_http_chaindata_check_entries(rec, list, results, key, key_len)
        != 0)
    {
        return -1;
    }

    return ngx_http_chaindata_write_list(rec, list, results, key, key_len,
                                         ws);
}


int
ngx_http_chaindata_record_rune_activity(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_jv_t *envelope, ngx_http_chaindata_writeset_t *ws)
{
    unsigned char                   txid[NGX_HTTP_CHAINDATA_TXID_LEN];
    const ngx_http_chaindata_jv_t  *id;

    if (ngx_http_chaindata_record_members(rec, envelope, "rune_activity",
                                          ngx_http_chaindata_activity_members)
        != 0)
    {
        return -1;
    }

    id = ngx_http_chaindata_jv_get(envelope, "tx_id");

    if (id == NULL || id->type != NGX_HTTP_CHAINDATA_JV_STRING
        || id->len != NGX_HTTP_CHAINDATA_TXID_HEX_LEN
        || ngx_http_chaindata_hex_decode(txid, id->str, id->len) != 0)
    {
        return ngx_http_chaindata_record_fail(rec,
                   "tx_id must be 64 hex digits (no \"0x\")");
    }

    return ngx_http_chaindata_record_list(rec,
                                          &ngx_http_chaindata_activity_list,
                                          envelope, txid, sizeof(txid), ws);
}


int
ngx_http_chaindata_record_rune_balances(ngx_http_chaindata_record_t *rec,
    const ngx_http_chaindata_jv_t *envelope, ngx_http_chaindata_writeset_t *ws)
{
    size_t                          key_len;
    unsigned char                   key[NGX_HTTP_CHAINDATA_LIST_KEY_MAX];
    const ngx_http_chaindata_jv_t  *address;

    if (ngx_http_chaindata_record_members(rec, envelope, "rune_balances",
                                          ngx_http_chaindata_balances_members)
        != 0)
    {
        return -1;
    }

    address = ngx_http_chaindata_jv_get(envelope, "address");
    key_len = 0;

    if (address && address->type == NGX_HTTP_CHAINDATA_JV_STRING) {
        key_len = ngx_http_chaindata_address_key(key, address->str,
                                                 address->len);
    }

    if (key_len == 0) {
        return ngx_http_chaindata_record_fail(rec,
                   "address must be a Bitcoin address (base58, or bech32 "
                   "in one case)");
    }

    return ngx_http_chaindata_record_list(rec,
                                          &ngx_http_chaindata_balances_list,
                                          envelope, key, key_len, ws);
}
