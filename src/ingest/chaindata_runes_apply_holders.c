
/*
 * chaindata: the ops of rune_etching and rune_balances records in the
 * write transaction (see chaindata_runes_op.h): an etching put or deleted
 * with its number and name keys, another rune holding the number or the
 * name deleted first; an address's holders of each rune replaced by its
 * new balance list's.
 */


#include <errno.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_chunks.h"
#include "chaindata_escape.h"
#include "chaindata_int.h"
#include "chaindata_layout.h"
#include "chaindata_runes_op.h"


/* an old holder: its rune, and its address when its entry gave one */
typedef struct {
    unsigned char         id[CHAINDATA_RUNE_ID_KEY_LEN];
    const unsigned char  *addr;
    size_t                addr_len;
} chaindata_runes_old_t;


/* the etching under a number gone, with its name and id keys */

static int
chaindata_runes_drop_number(chaindata_runes_txn_t *t, const unsigned char *nkey)
{
    int                   rc;
    size_t                len, klen;
    MDB_val               v;
    unsigned char         id[CHAINDATA_RUNE_ID_KEY_LEN];
    unsigned char         key[CHAINDATA_RUNE_NAME_KEY_MAX + 1];
    chaindata_jv_t       *doc, *name;
    const unsigned char  *idp, *json;

    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_ETCHING, nkey,
                             CHAINDATA_RUNE_NUMBER_LEN, &v);
    if (rc != 0) {
        return rc == MDB_NOTFOUND ? 0 : rc;
    }

    doc = NULL;

    if (chaindata_rune_id_value_parse(v.mv_data, v.mv_size, &idp, &json,
                                      &len)
        == 0)
    {
        memcpy(id, idp, sizeof(id));
        doc = chaindata_runes_parse(t, json, len);
    }

    name = doc ? chaindata_jv_get(doc, "name") : NULL;

    if (name == NULL || name->type != CHAINDATA_JV_STRING
        || name->len == 0 || name->len > CHAINDATA_RUNE_NAME_MAX)
    {
        return chaindata_runes_refuse(t, "the index is damaged: the "
                                      "etching of rune number %llu is not "
                                      "one (rebuild the index)",
                                      (unsigned long long)
                                          chaindata_rune_number(nkey));
    }

    klen = chaindata_rune_name_key(key, name->str, name->len);

    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_NAME, key, klen, &v);

    if (rc == 0 && v.mv_size == CHAINDATA_RUNE_NUMBER_LEN
        && memcmp(v.mv_data, nkey, CHAINDATA_RUNE_NUMBER_LEN) == 0)
    {
        rc = chaindata_runes_del(t, CHAINDATA_DBI_RUNE_NAME, key, klen);
    }

    if (rc != 0 && rc != MDB_NOTFOUND) {
        return rc;
    }

    klen = chaindata_rune_name_id_key(key, id);

    rc = chaindata_runes_del(t, CHAINDATA_DBI_RUNE_NAME, key, klen);

    return rc ? rc : chaindata_runes_del(t, CHAINDATA_DBI_RUNE_ETCHING, nkey,
                                         CHAINDATA_RUNE_NUMBER_LEN);
}


/* the etching a rune_name key points to gone: 0 when there is none */

static int
chaindata_runes_drop_named(chaindata_runes_txn_t *t,
    const unsigned char *key, size_t klen)
{
    int            rc;
    MDB_val        v;
    unsigned char  nkey[CHAINDATA_RUNE_NUMBER_LEN];

    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_NAME, key, klen, &v);
    if (rc != 0) {
        return rc == MDB_NOTFOUND ? 0 : rc;
    }

    if (v.mv_size != sizeof(nkey)) {
        return chaindata_runes_refuse(t, "the index is damaged: a rune_name "
                                      "value of %zu bytes", v.mv_size);
    }

    memcpy(nkey, v.mv_data, sizeof(nkey));

    rc = chaindata_runes_drop_number(t, nkey);

    /* a name key left by no etching */
    return rc ? rc : chaindata_runes_del(t, CHAINDATA_DBI_RUNE_NAME, key,
                                         klen);
}


int
chaindata_runes_etching(chaindata_runes_txn_t *t, const unsigned char *arg,
    size_t len)
{
    int                   rc;
    size_t                klen, name_len, doc_len;
    MDB_val               k, v;
    unsigned char         key[CHAINDATA_RUNE_NAME_KEY_MAX + 1];
    const unsigned char  *id, *number, *name, *doc;

    if (len < CHAINDATA_RUNE_ID_KEY_LEN) {
        return chaindata_runes_refuse(t, "a rune_etching op is cut short");
    }

    id = arg;
    klen = chaindata_rune_name_id_key(key, id);

    /* the rune's own etching goes first: a put replaces it */
    rc = chaindata_runes_drop_named(t, key, klen);

    if (rc != 0 || len == CHAINDATA_RUNE_ID_KEY_LEN) {
        return rc;
    }

    if (len < CHAINDATA_RUNE_ID_KEY_LEN + CHAINDATA_RUNE_NUMBER_LEN + 1) {
        return chaindata_runes_refuse(t, "a rune_etching op is cut short");
    }

    number = arg + CHAINDATA_RUNE_ID_KEY_LEN;
    name_len = number[CHAINDATA_RUNE_NUMBER_LEN];
    name = number + CHAINDATA_RUNE_NUMBER_LEN + 1;
    doc = name + name_len;

    if (name_len == 0 || name_len > CHAINDATA_RUNE_NAME_MAX
        || doc > arg + len)
    {
        return chaindata_runes_refuse(t, "a rune_etching op is cut short");
    }

    doc_len = arg + len - doc;

    /* another rune of the number or the name: a reorg renumbered it */
    rc = chaindata_runes_drop_number(t, number);

    if (rc == 0) {
        klen = chaindata_rune_name_key(key, name, name_len);
        rc = chaindata_runes_drop_named(t, key, klen);
    }

    if (rc != 0) {
        return rc;
    }

    k.mv_data = (void *) number;
    k.mv_size = CHAINDATA_RUNE_NUMBER_LEN;
    v.mv_size = CHAINDATA_RUNE_ID_KEY_LEN + doc_len;

    rc = mdb_put(t->txn, t->dbi[CHAINDATA_DBI_RUNE_ETCHING], &k, &v,
                 MDB_RESERVE);
    if (rc != 0) {
        return rc;
    }

    memcpy(v.mv_data, id, CHAINDATA_RUNE_ID_KEY_LEN);
    memcpy((unsigned char *) v.mv_data + CHAINDATA_RUNE_ID_KEY_LEN, doc,
           doc_len);

    klen = chaindata_rune_name_key(key, name, name_len);
    rc = chaindata_runes_put(t, CHAINDATA_DBI_RUNE_NAME, key, klen, number,
                             CHAINDATA_RUNE_NUMBER_LEN);

    if (rc == 0) {
        klen = chaindata_rune_name_id_key(key, id);
        rc = chaindata_runes_put(t, CHAINDATA_DBI_RUNE_NAME, key, klen,
                                 number, CHAINDATA_RUNE_NUMBER_LEN);
    }

    return rc;
}


/* a holder gone: 1 when it was held, 0 when not, or an error */

static int
chaindata_runes_holder_drop(chaindata_runes_txn_t *t,
    const unsigned char *id, const unsigned char *addr, size_t addr_len)
{
    int            rc;
    size_t         a, hlen, klen, slen;
    MDB_val        v;
    unsigned char  akey[CHAINDATA_RUNE_ADDRESS_KEY_MAX];
    unsigned char  sort[CHAINDATA_RUNE_SORT_KEY_MAX];
    unsigned char  key[CHAINDATA_RUNE_HOLDER_KEY_MAX];
    unsigned char  hkey[CHAINDATA_RUNE_LIST_KEY_MAX];

    a = chaindata_rune_address_key(akey, addr, addr_len);
    if (a == 0) {
        return 0;
    }

    klen = chaindata_rune_holding_key(key, id, akey, a);

    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_HOLDING, key, klen, &v);
    if (rc != 0) {
        return rc == MDB_NOTFOUND ? 0 : rc;
    }

    slen = chaindata_rune_sort_key_len(v.mv_data, v.mv_size);

    if (slen == 0 || slen != v.mv_size) {
        return chaindata_runes_refuse(t, "the index is damaged: a "
                                      "rune_holding value of %zu bytes",
                                      v.mv_size);
    }

    memcpy(sort, v.mv_data, slen);

    rc = chaindata_runes_del(t, CHAINDATA_DBI_RUNE_HOLDING, key, klen);
    if (rc != 0) {
        return rc;
    }

    klen = chaindata_rune_holder_key(key, id, sort, slen, akey, a);
    hlen = chaindata_rune_list_key_h(hkey, id);

    rc = chaindata_runes_del(t, CHAINDATA_DBI_RUNE_HOLDER, key, klen);
    rc = rc ? rc : chaindata_runes_list_drop(t, hkey, hlen, NULL);

    return rc ? rc : 1;
}


/* a holder written: its balance and address, its place, the count */

static int
chaindata_runes_holder_put(chaindata_runes_txn_t *t,
    const unsigned char *id, const unsigned char *addr, size_t addr_len,
    const unsigned char *balance, size_t balance_len)
{
    int            rc;
    size_t         a, slen, klen, hlen;
    MDB_val        k, v;
    unsigned char  akey[CHAINDATA_RUNE_ADDRESS_KEY_MAX], *p;
    unsigned char  sort[CHAINDATA_RUNE_SORT_KEY_MAX];
    unsigned char  key[CHAINDATA_RUNE_HOLDER_KEY_MAX];
    unsigned char  hkey[CHAINDATA_RUNE_LIST_KEY_MAX];

    a = chaindata_rune_address_key(akey, addr, addr_len);
    slen = chaindata_rune_sort_key(sort, balance, balance_len);

    if (a == 0 || slen == 0) {
        return 0;                   /* no list holds it */
    }

    rc = chaindata_runes_holder_drop(t, id, addr, addr_len);
    if (rc < 0 || rc > 1) {
        return rc;
    }

    klen = chaindata_rune_holder_key(key, id, sort, slen, akey, a);

    k.mv_data = key;
    k.mv_size = klen;
    v.mv_size = sizeof("{\"balance\":\"\",\"address\":\"\"}") - 1
                + chaindata_json_escape_len(balance, balance_len)
                + chaindata_json_escape_len(addr, addr_len);

    rc = mdb_put(t->txn, t->dbi[CHAINDATA_DBI_RUNE_HOLDER], &k, &v,
                 MDB_RESERVE);
    if (rc != 0) {
        return rc;
    }

    p = v.mv_data;
    p = (unsigned char *) memcpy(p, "{\"balance\":\"", 12) + 12;
    p = chaindata_json_escape(p, balance, balance_len);
    p = (unsigned char *) memcpy(p, "\",\"address\":\"", 13) + 13;
    p = chaindata_json_escape(p, addr, addr_len);
    memcpy(p, "\"}", 2);

    klen = chaindata_rune_holding_key(key, id, akey, a);
    hlen = chaindata_rune_list_key_h(hkey, id);

    rc = chaindata_runes_put(t, CHAINDATA_DBI_RUNE_HOLDING, key, klen, sort,
                             slen);

    return rc ? rc : chaindata_runes_list_add(t, hkey, hlen, NULL);
}


/* the holders of a chunk's entries, collected into old[*n] */

static int
chaindata_runes_chunk_holders(chaindata_runes_txn_t *t,
    const unsigned char *v, size_t len, chaindata_runes_old_t *old,
    uint32_t max, uint32_t *n)
{
    unsigned               i;
    uint32_t               from, to;
    unsigned char         *plain;
    chaindata_jv_t        *e, *id, *addr;
    chaindata_chunk_t      c;

    if (chaindata_chunk_decode(&c, v, len) != 0) {
        return -1;
    }

    plain = chaindata_arena_alloc(t->arena, c.piece.plain_len + 1);

    if (plain == NULL
        || chaindata_piece_inflate(t->inflater, &c.piece, plain) != 0)
    {
        return -1;
    }

    for (i = 0; i < c.n && *n < max; i++) {
        from = chaindata_chunk_item_start(&c, i);
        to = chaindata_chunk_item_end(&c, i);

        e = chaindata_runes_parse(t, plain + from, to - from);
        id = e ? chaindata_jv_get(chaindata_jv_get(e, "rune"), "id") : NULL;

        if (id == NULL || id->type != CHAINDATA_JV_STRING
            || chaindata_rune_id_key(old[*n].id, id->str, id->len) != 0)
        {
            return -1;
        }

        addr = chaindata_jv_get(e, "address");

        old[*n].addr = (addr && addr->type == CHAINDATA_JV_STRING)
                       ? addr->str : NULL;
        old[*n].addr_len = old[*n].addr ? addr->len : 0;
        (*n)++;
    }

    return 0;
}


/* the holders of the address's stored balance list, into t's arena */

static int
chaindata_runes_old_holders(chaindata_runes_txn_t *t,
    const unsigned char *list_key, size_t list_key_len,
    chaindata_runes_old_t **old, uint32_t *n)
{
    int                rc;
    size_t             klen;
    MDB_val            v;
    uint32_t           c, chunks;
    unsigned char      key[CHAINDATA_LIST_KEY_MAX + 4];
    chaindata_listh_t  h;

    *n = 0;

    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_BALANCES, list_key,
                             list_key_len, &v);
    if (rc != 0) {
        return rc == MDB_NOTFOUND ? 0 : rc;
    }

    if (chaindata_listh_decode(&h, v.mv_data, v.mv_size) != 0) {
        return -1;
    }

    *old = chaindata_arena_alloc(t->arena, (h.count + 1) * sizeof(**old));

    if (*old == NULL) {
        return ENOMEM;
    }

    if (t->inflater == NULL) {
        t->inflater = chaindata_inflater_create();

        if (t->inflater == NULL) {
            return ENOMEM;
        }
    }

    chunks = chaindata_chunk_count(h.count, CHAINDATA_RUNE_CHUNK);

    for (c = 0; c < chunks; c++) {
        if (c == 0 && h.chunk0_len) {
            v.mv_data = (void *) h.chunk0;
            v.mv_size = h.chunk0_len;

        } else {
            klen = chaindata_list_entry_key(key, list_key, list_key_len, c);
            rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_BALANCE_ENTRY, key,
                                     klen, &v);
            if (rc != 0) {
                return -1;
            }
        }

        if (chaindata_runes_chunk_holders(t, v.mv_data, v.mv_size, *old,
                                          h.count, n)
            != 0)
        {
            return -1;
        }
    }

    return *n == h.count ? 0 : -1;
}


/*
 * An old entry without an address held the record's address as it was
 * given then: the list's own (its key's bytes), or a bech32 one in upper
 * case.
 */

static int
chaindata_runes_old_drop(chaindata_runes_txn_t *t,
    const chaindata_runes_old_t *o, const unsigned char *list_key)
{
    int            rc;
    size_t         i, len;
    unsigned char  upper[CHAINDATA_RUNE_ADDRESS_MAX];

    if (o->addr) {
        rc = chaindata_runes_holder_drop(t, o->id, o->addr, o->addr_len);
        return rc < 0 || rc > 1 ? rc : 0;
    }

    len = list_key[0];

    rc = chaindata_runes_holder_drop(t, o->id, list_key + 1, len);

    if (rc != 0) {
        return rc < 0 || rc > 1 ? rc : 0;
    }

    for (i = 0; i < len; i++) {
        upper[i] = (list_key[1 + i] >= 'a' && list_key[1 + i] <= 'z')
                   ? list_key[1 + i] - 0x20 : list_key[1 + i];
    }

    rc = chaindata_runes_holder_drop(t, o->id, upper, len);

    return rc < 0 || rc > 1 ? rc : 0;
}


int
chaindata_runes_holders(chaindata_runes_txn_t *t, const unsigned char *arg,
    size_t len)
{
    int                    rc;
    size_t                 klen, alen, hlen, blen;
    uint32_t               i, n, nold;
    const unsigned char   *key, *addr, *p, *end, *id, *ha, *bal;
    chaindata_runes_old_t *old;

    end = arg + len;
    key = arg;

    if (len < 2 || (klen = 1 + (size_t) key[0]) + 1 > len
        || (alen = key[klen]) + klen + 1 + 4 > len)
    {
        return chaindata_runes_refuse(t, "a rune_balances op is cut short");
    }

    addr = key + klen + 1;
    p = addr + alen;
    n = chaindata_get_u32be(p);
    p += 4;

    rc = chaindata_runes_old_holders(t, key, klen, &old, &nold);

    if (rc == -1) {
        return chaindata_runes_refuse(t, "the index is damaged: the stored "
                                      "balance list of %.*s cannot be read "
                                      "(rebuild the index)", (int) alen,
                                      (const char *) addr);
    }

    for (i = 0; rc == 0 && i < nold; i++) {
        rc = chaindata_runes_old_drop(t, &old[i], key);
    }

    for (i = 0; rc == 0 && i < n; i++) {
        if (end - p < CHAINDATA_RUNE_ID_KEY_LEN + 1) {
            break;
        }

        id = p;
        hlen = p[CHAINDATA_RUNE_ID_KEY_LEN];
        ha = p + CHAINDATA_RUNE_ID_KEY_LEN + 1;

        if ((size_t) (end - ha) < hlen + 1) {
            break;
        }

        blen = ha[hlen];
        bal = ha + hlen + 1;

        if ((size_t) (end - bal) < blen) {
            break;
        }

        p = bal + blen;

        rc = chaindata_runes_holder_put(t, id, hlen ? ha : addr,
                                        hlen ? hlen : alen, bal, blen);
    }

    if (rc == 0 && (i != n || p != end)) {
        return chaindata_runes_refuse(t, "a rune_balances op is cut short");
    }

    return rc;
}
