
/*
 * chaindata-mirror: the emitter and the block writer.  Every line the
 * mirror makes (the framing records of lmdb-schema/feed.md, written by
 * src/ingest, and the data records) goes through the emitter: applied by
 * src/ingest to one write set, and added to the unit published to the
 * stream (--nats); a block is committed in one write transaction with
 * its feed position.
 */


#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"


/*
 * What is published: every line but a chainhook record, which carries an
 * API key and stays in the index it was applied to (doc/operations.md
 * "Scaling out"), whatever the options.
 */

static int
chaindata_mirror_published(const chaindata_ingest_t *in)
{
    return in->frame != CHAINDATA_FRAME_NONE
           || (in->rec.kind != CHAINDATA_REC_CHAINHOOK_PUT
               && in->rec.kind != CHAINDATA_REC_CHAINHOOK_DELETE);
}


static void
chaindata_mirror_refused(chaindata_mirror_t *m, const char *about)
{
    chaindata_ingest_t  *in;

    in = &m->in;

    if (about == NULL && in->feed.open) {
        chaindata_mirror_log(m, "error", "block %llu of %s: a record "
                             "upstream's answers make is refused: %s",
                             (unsigned long long) in->feed.height,
                             in->feed.source, in->err);
        return;
    }

    chaindata_mirror_log(m, "error", "%s is refused: %s",
                         about ? about : "a record", in->err);
}


/*
 * A document stored as upstream served it, with a member or a value the
 * schema does not know yet (doc/loader.md): counted, the first few said.
 */

#define CHAINDATA_MIRROR_UNKNOWN_SAID  10

static void
chaindata_mirror_unknown(chaindata_mirror_t *m, const char *about)
{
    if (m->unknown_stored++ >= CHAINDATA_MIRROR_UNKNOWN_SAID) {
        return;
    }

    if (about == NULL && m->in.feed.open) {
        chaindata_mirror_log(m, "warn", "block %llu of %s: a document stored "
                             "as upstream served it, with what the schema "
                             "does not know yet: %s%s%s",
                             (unsigned long long) m->in.feed.height,
                             m->in.feed.source, m->in.rec.unknown_what,
                             m->in.rec.unknown > 1 ? " (and more)" : "",
                             m->unknown_stored == CHAINDATA_MIRROR_UNKNOWN_SAID
                             ? "; further ones are counted, not said" : "");
        return;
    }

    chaindata_mirror_log(m, "warn", "%s: stored as upstream served it, with "
                         "what the schema does not know yet: %s%s%s",
                         about ? about : "a document",
                         m->in.rec.unknown_what,
                         m->in.rec.unknown > 1 ? " (and more)" : "",
                         m->unknown_stored == CHAINDATA_MIRROR_UNKNOWN_SAID
                         ? "; further ones are counted, not said" : "");
}


int
chaindata_mirror_emit(chaindata_mirror_t *m, chaindata_line_t *l,
    const char *about)
{
    int  rc;

    if (l->failed) {
        chaindata_line_free(l);
        chaindata_mirror_log(m, "error", "out of memory");
        return -1;
    }

    rc = chaindata_ingest_line(&m->in, l->buf, l->len);

    if (rc != 0) {
        chaindata_mirror_refused(m, about);
        chaindata_line_free(l);
        return rc;
    }

    if (m->in.frame == CHAINDATA_FRAME_NONE && m->in.rec.unknown) {
        chaindata_mirror_unknown(m, about);
    }

    if (chaindata_mirror_published(&m->in)) {
        rc = chaindata_pub_line(m->pub, l->buf, l->len);
    }

    chaindata_line_free(l);

    return rc;
}


int
chaindata_block_open(chaindata_mirror_t *m, const char *source,
    uint64_t height, const unsigned char *hash, size_t hash_len,
    const unsigned char *parent, size_t parent_len, uint64_t t)
{
    chaindata_block_reset(m);

    return chaindata_block_append(m, source, height, hash, hash_len, parent,
                                  parent_len, t);
}


int
chaindata_block_append(chaindata_mirror_t *m, const char *source,
    uint64_t height, const unsigned char *hash, size_t hash_len,
    const unsigned char *parent, size_t parent_len, uint64_t t)
{
    char              about[96];
    chaindata_line_t  l;

    (void) chaindata_feed_write_block(&l, source, height, hash, hash_len,
                                      parent, parent_len, t);

    snprintf(about, sizeof(about), "block %llu of %s",
             (unsigned long long) height, source);

    return chaindata_mirror_emit(m, &l, about);
}


int
chaindata_block_write(chaindata_mirror_t *m)
{
    int  rc;

    /* published first: a crash between the two is made good on start */
    if (chaindata_pub_unit(m->pub) != 0) {
        chaindata_block_reset(m);
        return -1;
    }

    rc = chaindata_index_commit(&m->in.ix, &m->in.ws);
    chaindata_block_reset(m);

    if (rc != 0) {
        chaindata_mirror_log(m, "error", "commit failed: %s%s",
                             chaindata_index_error(&m->in.ix, rc),
                             rc == EIO || rc == ENOSPC
                             ? " (is the index's disk full?)"
                             : rc == MDB_MAP_FULL
                             ? " (the map is at its maximum size)" : "");
        return -1;
    }

    return 0;
}


int
chaindata_block_end(chaindata_mirror_t *m)
{
    chaindata_line_t  l;

    (void) chaindata_feed_write_mark(&l, CHAINDATA_FRAME_END,
                                     m->in.feed.source, m->in.feed.height);

    if (chaindata_mirror_emit(m, &l, "the block_end") != 0) {
        chaindata_block_abandon(m);
        return -1;
    }

    return 0;
}


int
chaindata_block_commit(chaindata_mirror_t *m)
{
    if (chaindata_block_end(m) != 0) {
        return -1;
    }

    return chaindata_block_write(m);
}


int
chaindata_block_undo(chaindata_mirror_t *m, const char *source,
    uint64_t height)
{
    char              about[96];
    chaindata_line_t  l;

    chaindata_block_reset(m);

    (void) chaindata_feed_write_mark(&l, CHAINDATA_FRAME_ROLLBACK, source,
                                     height);

    snprintf(about, sizeof(about), "the rollback of %s to %llu", source,
             (unsigned long long) height);

    if (chaindata_mirror_emit(m, &l, about) != 0) {
        chaindata_block_reset(m);
        return -1;
    }

    return 0;
}


int
chaindata_block_rollback(chaindata_mirror_t *m, const char *source,
    uint64_t height)
{
    if (chaindata_block_undo(m, source, height) != 0) {
        return -1;
    }

    return chaindata_block_write(m);
}


void
chaindata_block_abandon(chaindata_mirror_t *m)
{
    chaindata_feed_abandon(&m->in.feed);
    chaindata_block_reset(m);
}


void
chaindata_block_reset(chaindata_mirror_t *m)
{
    chaindata_writeset_reset(&m->in.ws);
    chaindata_pub_reset(m->pub);
}
