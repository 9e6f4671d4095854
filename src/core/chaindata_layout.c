
/*
 * chaindata: the key and value layouts of the index (see the header and
 * lmdb-schema/).
 */


#include <string.h>

#include "chaindata_digest.h"
#include "chaindata_int.h"
#include "chaindata_layout.h"


void
chaindata_txh_encode(unsigned char *out,
    const chaindata_txh_t *h)
{
    out[0] = CHAINDATA_TXH_FORMAT;
    out[1] = (unsigned char) h->flags;
    out[2] = (unsigned char) h->chunk0_len;
    out[3] = (unsigned char) (h->chunk0_len >> 8);
    chaindata_put_u32le(out + 4, h->event_count);
    chaindata_put_u32le(out + 8, h->events_at);
    chaindata_put_u32le(out + 12, h->fargs_start);
    chaindata_put_u32le(out + 16, h->fargs_len);
    memcpy(out + 20, h->digest, CHAINDATA_DIGEST_LEN);
}


/* 1 when off is where one of the n pieces begins, or the end, doc_len */

static int
chaindata_pieces_cut(const uint32_t *at, unsigned n, size_t doc_len,
    size_t off)
{
    unsigned  i;

    if (off == doc_len) {
        return 1;
    }

    for (i = 0; i < n; i++) {
        if (at[i] == off) {
            return 1;
        }
    }

    return 0;
}

#define chaindata_txh_cut(h, off)                                          \
    chaindata_pieces_cut((h)->at, (h)->npieces, (h)->doc_len, off)
#define chaindata_tx3h_cut(h, off)                                         \
    chaindata_pieces_cut((h)->at, (h)->npieces, (h)->doc_len, off)


/*
 * The pieces of a document that fill v[0, len) exactly, at most max:
 * each and where it begins in the plain document; 0, or -1.
 */

static int
chaindata_pieces_decode(const unsigned char *v, size_t len,
    chaindata_piece_t *piece, uint32_t *at, unsigned max, unsigned *n,
    size_t *doc_len)
{
    size_t  off, used;

    *doc_len = 0;
    *n = 0;

    for (off = 0; off < len; off += used) {
        if (*n == max
            || chaindata_piece_decode(&piece[*n], v + off, len - off, &used)
               != 0)
        {
            return -1;
        }

        at[*n] = (uint32_t) *doc_len;
        *doc_len += piece[(*n)++].plain_len;
    }

    return *doc_len > UINT32_MAX ? -1 : 0;
}


/*
 * A list's first chunk inside a value (flag: inline), its last chunk0_len
 * bytes after a header of head bytes, only with a list (has_list): *len
 * less them, *chunk0 at them; 0, or -1.
 */

static int
chaindata_chunk0_split(const unsigned char *v, size_t *len, size_t head,
    unsigned inline_flag, unsigned has_list, size_t chunk0_len,
    const unsigned char **chunk0)
{
    *chunk0 = NULL;

    if (!inline_flag) {
        return chunk0_len ? -1 : 0;
    }

    if (chunk0_len == 0 || chunk0_len > *len - head || !has_list) {
        return -1;
    }

    *len -= chunk0_len;
    *chunk0 = v + *len;

    return 0;
}


/*
 * Decodes and checks a "tx" value: its pieces must fill it exactly, and
 * every offset must fall where a piece begins, so that a damaged record
 * can never make the server read past it or cut a piece.
 */

static int
chaindata_txh_flags(const unsigned char *v, size_t len)
{
    if (len < CHAINDATA_TXH_SIZE
        || v[0] != CHAINDATA_TXH_FORMAT
        || (v[1] & ~(CHAINDATA_TXH_EVENTS | CHAINDATA_TXH_FARGS
                     | CHAINDATA_TXH_PENDING | CHAINDATA_TXH_CHUNK0)))
    {
        return -1;
    }

    return v[1];
}


int
chaindata_txh_has(const unsigned char *v, size_t len, unsigned flag)
{
    int  flags;

    flags = chaindata_txh_flags(v, len);

    return flags != -1 && (flags & flag);
}


int
chaindata_txh_decode(chaindata_txh_t *h,
    const unsigned char *v, size_t len)
{
    if (chaindata_txh_flags(v, len) == -1) {
        return -1;
    }

    h->flags = v[1];
    h->chunk0_len = (size_t) v[2] | (size_t) v[3] << 8;

    /* the first chunk of events inline: the value's last chunk0_len bytes */
    if (chaindata_chunk0_split(v, &len, CHAINDATA_TXH_SIZE,
                               h->flags & CHAINDATA_TXH_CHUNK0,
                               h->flags & CHAINDATA_TXH_EVENTS,
                               h->chunk0_len, &h->chunk0)
        != 0)
    {
        return -1;
    }

    h->event_count = chaindata_get_u32le(v + 4);
    h->events_at = chaindata_get_u32le(v + 8);
    h->fargs_start = chaindata_get_u32le(v + 12);
    h->fargs_len = chaindata_get_u32le(v + 16);
    memcpy(h->digest, v + 20, CHAINDATA_DIGEST_LEN);

    if (chaindata_pieces_decode(v + CHAINDATA_TXH_SIZE,
                                len - CHAINDATA_TXH_SIZE, h->piece, h->at,
                                CHAINDATA_TXH_PIECES_MAX, &h->npieces,
                                &h->doc_len)
        != 0
        || h->events_at > h->doc_len)
    {
        return -1;
    }

    if (h->flags & CHAINDATA_TXH_EVENTS) {
        if (!chaindata_txh_cut(h, h->events_at)) {
            return -1;
        }

    } else if (h->event_count) {
        return -1;
    }

    if (h->chunk0 && h->event_count == 0) {
        return -1;
    }

    if ((h->flags & CHAINDATA_TXH_FARGS)
        && (h->fargs_start > h->doc_len
            || h->fargs_len > h->doc_len - h->fargs_start
            || !chaindata_txh_cut(h, h->fargs_start)
            || !chaindata_txh_cut(h, h->fargs_start + h->fargs_len)
            || (h->flags & CHAINDATA_TXH_EVENTS
                && h->events_at > h->fargs_start
                && h->events_at < h->fargs_start + h->fargs_len)))
    {
        return -1;
    }

    return 0;
}


void
chaindata_tx3h_encode(unsigned char *out, const chaindata_tx3h_t *h)
{
    unsigned  i;

    memset(out, 0, CHAINDATA_TX3H_SIZE);
    out[0] = CHAINDATA_TX3H_FORMAT;
    out[1] = (unsigned char) h->flags;
    out[2] = (unsigned char) h->chunk0_len;
    out[3] = (unsigned char) (h->chunk0_len >> 8);
    chaindata_put_u32le(out + 4, h->event_count);

    for (i = 0; i < CHAINDATA_TX3H_PARTS; i++) {
        chaindata_put_u32le(out + 8 + 8 * i, h->part_at[i]);
        chaindata_put_u32le(out + 12 + 8 * i, h->part_len[i]);
    }

    memcpy(out + 40, h->digest, CHAINDATA_DIGEST_LEN);
}


/*
 * Decodes and checks a "tx_v3" value as chaindata_txh_decode() does a
 * "tx" one: the pieces fill it, every part begins and ends where a piece
 * does, so a part is whole pieces.
 */

int
chaindata_tx3h_decode(chaindata_tx3h_t *h, const unsigned char *v,
    size_t len)
{
    unsigned  i;

    if (len < CHAINDATA_TX3H_SIZE
        || v[0] != CHAINDATA_TX3H_FORMAT
        || (v[1] & ~(CHAINDATA_TX3H_EVENTS | CHAINDATA_TX3H_MEMPOOL
                     | CHAINDATA_TX3H_GONE | CHAINDATA_TX3H_CHUNK0)))
    {
        return -1;
    }

    h->flags = v[1];
    h->chunk0_len = (size_t) v[2] | (size_t) v[3] << 8;

    if (chaindata_chunk0_split(v, &len, CHAINDATA_TX3H_SIZE,
                               h->flags & CHAINDATA_TX3H_CHUNK0,
                               h->flags & CHAINDATA_TX3H_EVENTS,
                               h->chunk0_len, &h->chunk0)
        != 0)
    {
        return -1;
    }

    h->event_count = chaindata_get_u32le(v + 4);
    memcpy(h->digest, v + 40, CHAINDATA_DIGEST_LEN);

    if (chaindata_pieces_decode(v + CHAINDATA_TX3H_SIZE,
                                len - CHAINDATA_TX3H_SIZE, h->piece, h->at,
                                CHAINDATA_TX3H_PIECES_MAX, &h->npieces,
                                &h->doc_len)
        != 0
        || (h->doc_len == 0) != ((h->flags & CHAINDATA_TX3H_GONE) != 0)
        || (h->chunk0 && h->event_count == 0))
    {
        return -1;
    }

    for (i = 0; i < CHAINDATA_TX3H_PARTS; i++) {
        h->part_at[i] = chaindata_get_u32le(v + 8 + 8 * i);
        h->part_len[i] = chaindata_get_u32le(v + 12 + 8 * i);

        if (h->part_len[i] == 0) {
            continue;
        }

        if (h->part_at[i] > h->doc_len
            || h->part_len[i] > h->doc_len - h->part_at[i]
            || !chaindata_tx3h_cut(h, h->part_at[i])
            || !chaindata_tx3h_cut(h, h->part_at[i] + h->part_len[i]))
        {
            return -1;
        }
    }

    return 0;
}


int
chaindata_tx3h_left_out(const chaindata_tx3h_t *h, unsigned i,
    unsigned include)
{
    unsigned  k;

    for (k = 0; k < CHAINDATA_TX3H_PARTS; k++) {
        if (h->part_len[k] == 0 || (include & (1u << k))) {
            continue;
        }

        if (h->at[i] >= h->part_at[k]
            && h->at[i] + h->piece[i].plain_len
               <= h->part_at[k] + h->part_len[k])
        {
            return 1;
        }
    }

    return 0;
}


/*
 * The digest under which an API key is stored and looked up: plain
 * SHA-256 of the key's bytes (lmdb-schema/chainhook.md says why).
 */

void
chaindata_key_digest(const unsigned char *key, size_t len,
    unsigned char *digest)
{
    chaindata_digest_t  d;

    chaindata_digest_init(&d);
    chaindata_digest_add(&d, key, len);
    chaindata_digest_final(&d, digest);
}


void
chaindata_chh_encode(unsigned char *out,
    const unsigned char *key_digest)
{
    out[0] = CHAINDATA_CHH_FORMAT;
    out[1] = 0;
    out[2] = 0;
    out[3] = 0;
    memcpy(out + 4, key_digest, CHAINDATA_KEY_DIGEST_LEN);
}


int
chaindata_chh_decode(chaindata_chh_t *h,
    const unsigned char *v, size_t len)
{
    if (len < CHAINDATA_CHH_SIZE + 2
        || v[0] != CHAINDATA_CHH_FORMAT
        || v[1] != 0)
    {
        return -1;
    }

    h->key_digest = v + 4;
    h->doc = v + CHAINDATA_CHH_SIZE;
    h->doc_len = len - CHAINDATA_CHH_SIZE;

    return 0;
}


/*
 * A list header: format, flags, the length of the first chunk when it
 * is inline (u16 little-endian, else 0), the number of entries (u32
 * little-endian), the digest of the entries; then the inline chunk.
 * Only the 24 bytes of the header are written here.
 */

void
chaindata_listh_encode(unsigned char *out,
    const chaindata_listh_t *h)
{
    out[0] = CHAINDATA_LISTH_FORMAT;
    out[1] = h->chunk0_len ? CHAINDATA_LISTH_CHUNK0 : 0;
    out[2] = (unsigned char) h->chunk0_len;
    out[3] = (unsigned char) (h->chunk0_len >> 8);
    chaindata_put_u32le(out + 4, h->count);
    memcpy(out + 8, h->digest, CHAINDATA_DIGEST_LEN);
}


int
chaindata_listh_decode(chaindata_listh_t *h,
    const unsigned char *v, size_t len)
{
    if (len < CHAINDATA_LISTH_SIZE
        || v[0] != CHAINDATA_LISTH_FORMAT
        || (v[1] & ~CHAINDATA_LISTH_CHUNK0))
    {
        return -1;
    }

    h->count = chaindata_get_u32le(v + 4);
    memcpy(h->digest, v + 8, CHAINDATA_DIGEST_LEN);
    h->chunk0_len = (size_t) v[2] | (size_t) v[3] << 8;
    h->chunk0 = h->chunk0_len ? v + CHAINDATA_LISTH_SIZE : NULL;

    /* the flag, a length and the bytes go together, for a list not empty */
    if (len != CHAINDATA_LISTH_SIZE + h->chunk0_len
        || !(v[1] & CHAINDATA_LISTH_CHUNK0) != !h->chunk0_len
        || (h->chunk0_len && h->count == 0))
    {
        return -1;
    }

    return 0;
}


/* an entry's key: the list's key, then the position, big-endian */

size_t
chaindata_list_entry_key(unsigned char *key,
    const unsigned char *list_key, size_t list_key_len, uint32_t pos)
{
    memcpy(key, list_key, list_key_len);
    chaindata_put_u32be(key + list_key_len, pos);

    return list_key_len + 4;
}
