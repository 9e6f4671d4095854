
/*
 * chaindata: ingest records and their envelope, and the writes records
 * share (lists in chunks, deletes).  Each kind of record has a file of its
 * own (chaindata_record_*.c); the write set is chaindata_writeset.c.
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
 * The writer of lines: its buffer grows by a copy, the old one wiped (a
 * chainhook record holds an API key).
 */

static unsigned char *
chaindata_line_room(chaindata_line_t *l, size_t n)
{
    size_t          cap;
    unsigned char  *buf;

    if (l->failed) {
        return NULL;
    }

    if (l->cap - l->len >= n) {
        return l->buf + l->len;
    }

    for (cap = l->cap ? l->cap : 256; cap - l->len < n; cap *= 2) {
        if (cap > SIZE_MAX / 4) {
            l->failed = 1;
            return NULL;
        }
    }

    buf = malloc(cap);
    if (buf == NULL) {
        l->failed = 1;
        return NULL;
    }

    if (l->buf) {
        memcpy(buf, l->buf, l->len);
        memset(l->buf, 0, l->cap);
        free(l->buf);
    }

    l->buf = buf;
    l->cap = cap;

    return buf + l->len;
}


static void
chaindata_line_put(chaindata_line_t *l, const void *s, size_t n)
{
    unsigned char  *p;

    p = chaindata_line_room(l, n);

    if (p) {
        memcpy(p, s, n);
        l->len += n;
    }
}


/* ,"name": */

static void
chaindata_line_name(chaindata_line_t *l, const char *name)
{
    chaindata_line_put(l, ",\"", 2);
    chaindata_line_put(l, name, strlen(name));
    chaindata_line_put(l, "\":", 2);
}


void
chaindata_line_open(chaindata_line_t *l, const char *kind, size_t hint)
{
    memset(l, 0, sizeof(*l));

    (void) chaindata_line_room(l, hint + 64);
    chaindata_line_put(l, "{\"kind\":\"", 9);
    chaindata_line_put(l, kind, strlen(kind));
    chaindata_line_put(l, "\"", 1);
}


void
chaindata_line_str(chaindata_line_t *l, const char *name,
    const void *s, size_t len)
{
    chaindata_line_name(l, name);
    chaindata_line_put(l, "\"", 1);
    chaindata_line_put(l, s, len);
    chaindata_line_put(l, "\"", 1);
}


void
chaindata_line_u64(chaindata_line_t *l, const char *name, uint64_t v)
{
    char  num[24];

    chaindata_line_name(l, name);
    chaindata_line_put(l, num, snprintf(num, sizeof(num), "%llu",
                                        (unsigned long long) v));
}


void
chaindata_line_json(chaindata_line_t *l, const char *name,
    const chaindata_jv_t *v)
{
    unsigned char  *p;

    chaindata_line_name(l, name);

    p = chaindata_line_room(l, chaindata_jv_size(v));

    if (p) {
        l->len = chaindata_jv_write(p, v) - l->buf;
    }
}


void
chaindata_line_list(chaindata_line_t *l, const char *name,
    const chaindata_jv_t *const *v, size_t n)
{
    size_t          i;
    unsigned char  *p;

    chaindata_line_name(l, name);
    chaindata_line_put(l, "[", 1);

    for (i = 0; i < n; i++) {
        p = chaindata_line_room(l, chaindata_jv_size(v[i]) + 1);

        if (p) {
            *p = ',';
            l->len = chaindata_jv_write(p + (i > 0), v[i]) - l->buf;
        }
    }

    chaindata_line_put(l, "]", 1);
}


int
chaindata_line_close(chaindata_line_t *l)
{
    chaindata_line_put(l, "}", 1);

    return l->failed ? -1 : 0;
}


void
chaindata_line_free(chaindata_line_t *l)
{
    if (l->buf) {
        memset(l->buf, 0, l->cap);
        free(l->buf);
    }

    l->buf = NULL;
    l->len = 0;
    l->cap = 0;
}


/* the plain length of the chunk of items that begins at it (n left) */

static size_t
chaindata_chunk_len(const chaindata_item_t *it, size_t n, unsigned per)
{
    size_t  i, len;

    n = n < per ? n : per;

    for (len = n - 1, i = 0; i < n; i++) {
        len += it[i].size;
    }

    return len;
}


size_t
chaindata_chunks_scratch_len(const chaindata_item_t *items, size_t n,
    unsigned per)
{
    size_t  i, len, max;

    for (max = 0, i = 0; i < n; i += per) {
        len = chaindata_chunk_len(items + i, n - i, per);
        max = len > max ? len : max;
    }

    return max;
}


/* one chunk: its items joined with commas in scratch, then compressed */

static int
chaindata_writeset_chunk(chaindata_record_t *rec, chaindata_writeset_t *ws,
    chaindata_dbi_e db, const unsigned char *key, size_t key_len,
    const chaindata_item_t *it, size_t n, unsigned char *scratch,
    uint32_t *start, chaindata_digest_t *digest)
{
    size_t          i, used;
    unsigned char  *p, *value;

    for (p = scratch, i = 0; i < n; i++) {
        if (i) {
            *p++ = ',';
        }

        start[i] = (uint32_t) (p - scratch);
        (void) chaindata_jv_write(p, it[i].jv);

        if (digest) {
            chaindata_digest_add(digest, p, it[i].size);
        }

        p += it[i].size;
    }

    value = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, db, key, key_len,
                                   chaindata_chunk_bound(p - scratch,
                                                         (unsigned) n));
    if (value == NULL) {
        return chaindata_record_fail(rec, "out of memory");
    }

    used = chaindata_record_deflater(rec) == NULL
           ? 0 : chaindata_chunk_make(rec->deflater, scratch, p - scratch,
                                      start, (unsigned) n, value);
    if (used == 0) {
        return chaindata_record_fail(rec, "internal error: deflate");
    }

    chaindata_writeset_trim(ws, used);

    return 0;
}


int
chaindata_writeset_chunks(chaindata_record_t *rec, chaindata_writeset_t *ws,
    chaindata_dbi_e db, const unsigned char *list, size_t list_len,
    const chaindata_item_t *items, size_t n, unsigned per,
    unsigned char *scratch, chaindata_digest_t *digest)
{
    size_t          i, key_len;
    uint32_t        start[CHAINDATA_CHUNK_ITEMS_MAX];
    unsigned char   key[CHAINDATA_LIST_ENTRY_KEY_MAX];

    if (per == 0 || per > CHAINDATA_CHUNK_ITEMS_MAX) {
        return chaindata_record_fail(rec, "internal error: chunk size");
    }

    for (i = 0; i < n; i += per) {
        key_len = chaindata_list_entry_key(key, list, list_len,
                                           (uint32_t) (i / per));

        if (chaindata_writeset_chunk(rec, ws, db, key, key_len, items + i,
                                     n - i < per ? n - i : per, scratch,
                                     start, digest)
            != 0)
        {
            return -1;
        }
    }

    return 0;
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


/*
 * A record's list after its header, the last write so far (its value
 * trimmed): the n items in chunks of per, keyed (key, chunk number), in
 * db, each added to digest; the digest's first bytes into sum; chunk 0
 * moved into the header's value when the two fit a leaf node
 * (lmdb-schema/pieces.md), its length in *chunk0_len.  Returns the
 * header's value, to encode the header into, or NULL with the reason in
 * rec.
 */

unsigned char *
chaindata_record_list(chaindata_record_t *rec, chaindata_writeset_t *ws,
    chaindata_dbi_e db, const unsigned char *key, size_t key_len,
    const chaindata_item_t *items, size_t n, unsigned per,
    unsigned char *scratch, chaindata_digest_t *digest, unsigned char *sum,
    size_t *chunk0_len)
{
    size_t         nchunks, head;
    unsigned char  sha256[CHAINDATA_SHA256_LEN];

    if (chaindata_writeset_chunks(rec, ws, db, key, key_len, items, n, per,
                                  scratch, digest)
        != 0)
    {
        return NULL;
    }

    nchunks = chaindata_chunk_count(n, per);
    chaindata_digest_final(digest, sha256);
    memcpy(sum, sha256, CHAINDATA_DIGEST_LEN);

    /* the header write is the one before the chunks: find it again */
    head = ws->nwrites - nchunks - 1;

    *chunk0_len = nchunks ? chaindata_writeset_join(ws, head,
                                                    CHAINDATA_NODE_MAX)
                          : 0;

    return ws->buf + ws->writes[head].val_off;
}
