
/*
 * chaindata-mirror: the Runes balance lists are those of the height
 * written (doc/mirror.md).
 *
 * Upstream answers an address's balances at its tip of the moment
 * (hirosystems/bitcoin-indexer, api/runes/src/pg/pg-store.ts
 * getAddressBalances), and says which tip: every answer carries the ETag
 * of api/util/cache.ts handleCache(), getChainTipEtag(), the hash of the
 * newest block of its ledger.  A list is fetched for a block being
 * written (followed: that block; a fill's window: its last block; a
 * rollback: the block it goes back to).  When the answer's ETag is that
 * block's hash, the list is the one at the height written.  When it is
 * another block's (upstream had grown above it, or stood on another
 * branch), the list is kept, by that tip, until:
 *
 *   - the index commits a block of that hash (the blocks between are then
 *     upstream's chain as the list saw it; a later reorg of them is a
 *     rollback, which fetches their addresses' lists again); or
 *   - a pass ends at upstream's tip and upstream stands at the index's
 *     position (the status route's ETag is its hash) without the index
 *     having committed that block: the block was reorganised away before
 *     the mirror reached it, and the list may hold its balances.  The
 *     lists are fetched again, in a write of their own, as a rollback
 *     writes those it fetches again.
 *
 * A rune's etching (chaindata_mirror_runes_etchings.c) is served at
 * upstream's tip too (its supply): it is kept the same way, as a list.
 *
 * A list is kept as the blocks it was written with (their undo names
 * their addresses and runes: chaindata_runes_undone()), the heights
 * lo..hi of the blocks written with lists kept by one tip, so that a fill
 * keeps a window's hundreds of thousands of lists as two numbers; a list
 * written outside blocks (a rollback's) by its address, an etching by
 * its rune id.  An answer without an
 * ETag of a block hash (64 hex digits) is taken as before: at the height
 * written.  What is kept lives as long as the process (a mirror restarted
 * in between does not check those lists).
 */


#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"


#define CHAINDATA_RUNES_HASH_LEN  64


int
chaindata_runes_is_hash(const unsigned char *p, size_t len)
{
    return len == CHAINDATA_RUNES_HASH_LEN
           && chaindata_hex_is_lower(p, len);
}


/*
 * The block the lists fetched next are written with, and the blocks
 * lo..hi whose undo names them (none when lo > hi: a write outside
 * blocks, its addresses kept one by one)
 */

void
chaindata_runes_at(chaindata_mirror_t *m, const unsigned char *hash,
    size_t len, uint64_t lo, uint64_t hi)
{
    if (len > sizeof(m->runes.at)) {
        len = 0;
    }

    memcpy(m->runes.at, hash, len);
    m->runes.at_len = len;
    m->runes.at_lo = lo;
    m->runes.at_hi = hi;
}


/*
 * an address's list (etching 0) or a rune's etching (1) written, fetched
 * with answer r: kept if above
 */

int
chaindata_runes_fetched_at(chaindata_mirror_t *m, const char *name,
    int etching, const chaindata_req_t *r)
{
    size_t              i;
    chaindata_above_t  *a;

    if (r == NULL || m->runes.at_len == 0
        || !chaindata_runes_is_hash(r->etag, r->etag_len)
        || (r->etag_len == m->runes.at_len
            && memcmp(r->etag, m->runes.at, r->etag_len) == 0))
    {
        return 0;
    }

    for (i = 0; i < m->runes.nabove; i++) {
        a = &m->runes.above[i];

        if (a->tip_len == r->etag_len
            && memcmp(a->tip, r->etag, r->etag_len) == 0)
        {
            break;
        }
    }

    if (i == m->runes.nabove) {
        a = realloc(m->runes.above, (i + 1) * sizeof(chaindata_above_t));
        if (a == NULL) {
            return -1;
        }

        m->runes.above = a;
        a = &m->runes.above[m->runes.nabove++];
        memset(a, 0, sizeof(chaindata_above_t));
        memcpy(a->tip, r->etag, r->etag_len);
        a->tip_len = r->etag_len;
    }

    if (m->runes.at_lo > m->runes.at_hi) {
        return chaindata_names_add(etching ? &a->runes : &a->addresses,
                                   (const unsigned char *) name,
                                   strlen(name));
    }

    if (!a->blocks || m->runes.at_lo < a->lo) {
        a->lo = m->runes.at_lo;
    }

    if (!a->blocks || m->runes.at_hi > a->hi) {
        a->hi = m->runes.at_hi;
    }

    a->blocks = 1;

    return 0;
}


/* a write begins: no block of it seen yet */

void
chaindata_runes_above_begin(chaindata_mirror_t *m)
{
    size_t  i;

    for (i = 0; i < m->runes.nabove; i++) {
        m->runes.above[i].seen = 0;
    }
}


/* a block of that hash is in the write being made */

void
chaindata_runes_above_seen(chaindata_mirror_t *m, const unsigned char *hash,
    size_t len)
{
    size_t  i;

    for (i = 0; i < m->runes.nabove; i++) {
        if (m->runes.above[i].tip_len == len
            && memcmp(m->runes.above[i].tip, hash, len) == 0)
        {
            m->runes.above[i].seen = 1;
        }
    }
}


/* the write committed: the lists whose tip it holds are settled */

void
chaindata_runes_above_committed(chaindata_mirror_t *m)
{
    size_t  i, k;

    for (i = 0, k = 0; i < m->runes.nabove; i++) {
        if (m->runes.above[i].seen) {
            chaindata_names_free(&m->runes.above[i].addresses);
            chaindata_names_free(&m->runes.above[i].runes);
            continue;
        }

        m->runes.above[k++] = m->runes.above[i];
    }

    m->runes.nabove = k;
}


void
chaindata_runes_above_free(chaindata_mirror_t *m)
{
    size_t  i;

    for (i = 0; i < m->runes.nabove; i++) {
        chaindata_names_free(&m->runes.above[i].addresses);
        chaindata_names_free(&m->runes.above[i].runes);
    }

    free(m->runes.above);
    m->runes.above = NULL;
    m->runes.nabove = 0;
}
