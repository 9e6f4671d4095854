
/*
 * chaindata: a record's list stored in chunks (lmdb-schema/pieces.md,
 * "Chunks"), the one writer of them for every record kind that holds a
 * list (a transaction's events, a rune activity or balance list).
 */


#include <stdint.h>
#include <string.h>

#include "chaindata_layout.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"


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
    const chaindata_chunked_t *list, const unsigned char *key,
    size_t key_len, const chaindata_item_t *it, size_t n,
    unsigned char *scratch, uint32_t *start, chaindata_digest_t *digest)
{
    size_t          i, used;
    unsigned char  *p, *end, *value;

    for (p = scratch, i = 0; i < n; i++) {
        if (i) {
            *p++ = ',';
        }

        start[i] = (uint32_t) (p - scratch);
        end = list->write ? list->write(p, it[i].jv, list->data)
                          : chaindata_jv_write(p, it[i].jv);

        if ((size_t) (end - p) != it[i].size) {
            return chaindata_record_fail(rec,
                       "internal error: size mismatch");
        }

        if (digest) {
            chaindata_digest_add(digest, p, it[i].size);
        }

        p = end;
    }

    value = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, list->db,
                                   key, key_len,
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
    const chaindata_chunked_t *list, const unsigned char *lkey,
    size_t lkey_len, unsigned char *scratch, chaindata_digest_t *digest)
{
    size_t          i, n, key_len;
    unsigned        per;
    uint32_t        start[CHAINDATA_CHUNK_ITEMS_MAX];
    unsigned char   key[CHAINDATA_LIST_ENTRY_KEY_MAX];

    n = list->n;
    per = list->per;

    if (per == 0 || per > CHAINDATA_CHUNK_ITEMS_MAX) {
        return chaindata_record_fail(rec, "internal error: chunk size");
    }

    for (i = 0; i < n; i += per) {
        key_len = chaindata_list_entry_key(key, lkey, lkey_len,
                                           (uint32_t) (i / per));

        if (chaindata_writeset_chunk(rec, ws, list, key, key_len,
                                     list->items + i,
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
 * A record's list after its header, the last write so far (its value
 * trimmed): the list's items in its chunks, keyed (key, chunk number),
 * each added to digest; the digest's first bytes into sum; chunk 0
 * moved into the header's value when the two fit a leaf node
 * (lmdb-schema/pieces.md), its length in *chunk0_len.  Returns the
 * header's value, to encode the header into, or NULL with the reason in
 * rec.
 */

unsigned char *
chaindata_record_list(chaindata_record_t *rec, chaindata_writeset_t *ws,
    const chaindata_chunked_t *list, const unsigned char *key,
    size_t key_len, unsigned char *scratch, chaindata_digest_t *digest,
    unsigned char *sum, size_t *chunk0_len)
{
    size_t         nchunks, head;
    unsigned char  sha256[CHAINDATA_SHA256_LEN];

    if (chaindata_writeset_chunks(rec, ws, list, key, key_len, scratch,
                                  digest)
        != 0)
    {
        return NULL;
    }

    nchunks = chaindata_chunk_count(list->n, list->per);
    chaindata_digest_final(digest, sha256);
    memcpy(sum, sha256, CHAINDATA_DIGEST_LEN);

    /* the header write is the one before the chunks: find it again */
    head = ws->nwrites - nchunks - 1;

    *chunk0_len = nchunks ? chaindata_writeset_join(ws, head,
                                                    CHAINDATA_NODE_MAX)
                          : 0;

    return ws->buf + ws->writes[head].val_off;
}


/*
 * A transaction's events (v1's or v3's) after its header: the n items in
 * chunks of a default page (CHAINDATA_EVENT_CHUNK), as
 * chaindata_record_list() writes them, keyed by the transaction's id.
 */

unsigned char *
chaindata_record_events(chaindata_record_t *rec, chaindata_writeset_t *ws,
    chaindata_dbi_e db, const unsigned char *txid,
    const chaindata_item_t *items, size_t n, unsigned char *scratch,
    chaindata_digest_t *digest, unsigned char *sum, size_t *chunk0_len)
{
    chaindata_chunked_t  list;

    list.db = db;
    list.items = items;
    list.n = n;
    list.per = CHAINDATA_EVENT_CHUNK;
    list.write = NULL;
    list.data = NULL;

    return chaindata_record_list(rec, ws, &list, txid, CHAINDATA_TXID_LEN,
                                 scratch, digest, sum, chunk0_len);
}
