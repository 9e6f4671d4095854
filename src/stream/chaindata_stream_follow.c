
/*
 * chaindata: following the fan-out stream (lmdb-schema/feed.md "The
 * stream").  Each unit is applied as chaindata-mirror applied it, through
 * the framing and record code of src/ingest, in one write transaction
 * with the stream sequence of its last part: a restarted follower
 * resumes after the last unit it committed, exactly once.
 */


#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_stream.h"


#define CHAINDATA_STREAM_REPORT  30     /* seconds between progress lines */


static size_t
chaindata_stream_key(unsigned char *key, const char *stream)
{
    size_t  n;

    n = sizeof(CHAINDATA_STREAM_KEY) - 1;
    memcpy(key, CHAINDATA_STREAM_KEY, n);
    memcpy(key + n, stream, strlen(stream));

    return n + strlen(stream);
}


int
chaindata_stream_position(chaindata_index_t *ix, const char *stream,
    uint64_t *seq, uint64_t *id)
{
    int             rc;
    MDB_txn        *txn;
    MDB_val         key, val;
    unsigned char   k[CHAINDATA_NATS_NAME_MAX + 16];

    *seq = 0;
    *id = 0;

    if (mdb_txn_begin(ix->env, NULL, MDB_RDONLY, &txn) != 0) {
        return -1;
    }

    key.mv_data = k;
    key.mv_size = chaindata_stream_key(k, stream);

    rc = mdb_get(txn, ix->dbi[CHAINDATA_DBI_FEED], &key, &val);

    if (rc == 0) {
        rc = chaindata_streamseq_decode(seq, CHAINDATA_STREAM_FORMAT,
                                        val.mv_data, val.mv_size) == 0
             ? 1 : -1;

        if (rc == 1) {
            *id = chaindata_streamseq_id(val.mv_data);
        }

    } else {
        rc = rc == MDB_NOTFOUND ? 0 : -1;
    }

    mdb_txn_abort(txn);

    return rc;
}


/*
 * A sequence beside the stream's name: the position (CHAINDATA_STREAM_KEY)
 * or the publisher's last as seen (CHAINDATA_STREAMTIP_KEY); id: the
 * stream's identity (chaindata_nats_t's created), 0 for none.
 */

static int
chaindata_stream_put_sequence(chaindata_writeset_t *ws, const char *prefix,
    const char *stream, unsigned format, uint64_t seq, uint64_t id)
{
    size_t          klen;
    unsigned char   k[CHAINDATA_NATS_NAME_MAX + 16], *v;

    klen = (size_t) snprintf((char *) k, sizeof(k), "%s%s", prefix, stream);

    v = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_FEED,
                               k, klen, CHAINDATA_STREAM_SIZE);
    if (v == NULL) {
        return -1;
    }

    chaindata_streamseq_encode(v, format, seq);
    chaindata_streamseq_put_id(v, id);

    return 0;
}


int
chaindata_stream_put_position(chaindata_writeset_t *ws, const char *stream,
    uint64_t seq, uint64_t id)
{
    return chaindata_stream_put_sequence(ws, CHAINDATA_STREAM_KEY, stream,
                                         CHAINDATA_STREAM_FORMAT, seq, id);
}


/* the publisher's last sequence beside the position (status, metrics) */

static int
chaindata_stream_put_published(chaindata_writeset_t *ws, const char *stream,
    uint64_t seq)
{
    return chaindata_stream_put_sequence(ws, CHAINDATA_STREAMTIP_KEY, stream,
                                         CHAINDATA_STREAMTIP_FORMAT, seq, 0);
}


static int
chaindata_stream_refuse(chaindata_stream_t *s, uint64_t seq,
    const char *why)
{
    chaindata_nats_log(s->nats, "error", "stream %s: the unit ending at "
                       "sequence %llu is refused: %s", s->nats->stream,
                       (unsigned long long) seq, why);
    chaindata_feed_abandon(&s->in->feed);
    chaindata_writeset_reset(&s->in->ws);

    return -1;
}


/* one line of a unit into the write set, as chaindata-mirror did */

static int
chaindata_stream_line(chaindata_stream_t *s, const unsigned char *line,
    size_t len, uint64_t seq)
{
    if (chaindata_ingest_line(s->in, line, len) != 0) {
        return chaindata_stream_refuse(s, seq, s->in->err);
    }

    if (s->in->frame == CHAINDATA_FRAME_END) {
        s->blocks++;
    }

    /* upstream's document with what the schema does not know yet */
    if (s->in->frame == CHAINDATA_FRAME_NONE && s->in->rec.unknown
        && s->unknown++ < CHAINDATA_STREAM_UNKNOWN_SAID)
    {
        chaindata_nats_log(s->nats, "warn", "stream %s: the unit ending at "
                           "sequence %llu stores a document with what the "
                           "schema does not know yet, as served: %s%s",
                           s->nats->stream, (unsigned long long) seq,
                           s->in->rec.unknown_what,
                           s->in->rec.unknown > 1 ? " (and more)" : "");
    }

    return 0;
}


int
chaindata_stream_lines(chaindata_stream_t *s, const unsigned char *p,
    size_t len, uint64_t seq)
{
    const unsigned char  *end, *nl;

    end = p + len;

    for ( /* void */ ; p < end; p = nl + 1) {
        nl = memchr(p, '\n', end - p);
        if (nl == NULL) {
            nl = end;
        }

        if (nl > p && chaindata_stream_line(s, p, nl - p, seq) != 0) {
            return -1;
        }
    }

    if (s->in->feed.open) {
        return chaindata_stream_refuse(s, seq, "it ends inside a block");
    }

    return 0;
}


static int
chaindata_stream_apply(chaindata_stream_t *s, uint64_t seq)
{
    int  rc;

    chaindata_writeset_reset(&s->in->ws);

    if (chaindata_stream_lines(s, s->buf, s->len, seq) != 0) {
        return CHAINDATA_EXIT_INPUT;
    }

    if (chaindata_stream_put_position(&s->in->ws, s->nats->stream, seq,
                                      s->nats->created)
           != 0
        || chaindata_stream_put_published(&s->in->ws, s->nats->stream,
                                          s->published > seq ? s->published
                                                             : seq)
           != 0)
    {
        chaindata_nats_log(s->nats, "error", "out of memory");
        return CHAINDATA_EXIT_SYSTEM;
    }

    rc = chaindata_index_commit(&s->in->ix, &s->in->ws);
    chaindata_writeset_reset(&s->in->ws);

    if (rc != 0) {
        chaindata_nats_log(s->nats, "error", "commit of the unit ending at "
                           "sequence %llu failed: %s%s",
                           (unsigned long long) seq,
                           chaindata_index_error(&s->in->ix, rc),
                           rc == EIO || rc == ENOSPC
                           ? " (is the index's disk full?)" : "");
        return CHAINDATA_EXIT_SYSTEM;
    }

    s->applied = seq;
    s->id = s->nats->created;
    s->units++;

    if (time(NULL) - s->reported >= CHAINDATA_STREAM_REPORT) {
        s->reported = time(NULL);
        chaindata_nats_log(s->nats, "info", "applied %llu units (%llu "
                           "blocks); at sequence %llu of %s",
                           (unsigned long long) s->units,
                           (unsigned long long) s->blocks,
                           (unsigned long long) seq, s->nats->stream);
    }

    return CHAINDATA_EXIT_OK;
}


static int
chaindata_stream_header(natsMsg *msg, const char *name, char *out,
    size_t size)
{
    const char  *v;

    if (natsMsgHeader_Get(msg, name, &v) != NATS_OK || strlen(v) >= size) {
        return -1;
    }

    strcpy(out, v);

    return 0;
}


/* a message that cannot be a part of a unit: skipped, and said */

static int
chaindata_stream_stray(chaindata_stream_t *s, uint64_t seq, const char *why)
{
    chaindata_nats_log(s->nats, "warn", "stream %s: the message at "
                       "sequence %llu is skipped: %s", s->nats->stream,
                       (unsigned long long) seq, why);

    return CHAINDATA_EXIT_OK;
}


/* the buffer of a unit past: a large one is given back */

static void
chaindata_stream_shrink(chaindata_stream_t *s)
{
    if (s->cap > CHAINDATA_STREAM_KEEP) {
        free(s->buf);
        s->buf = NULL;
        s->cap = 0;
    }

    s->len = 0;
}


/* the unit being joined will not be whole: dropped, and said */

static void
chaindata_stream_drop(chaindata_stream_t *s, const char *why)
{
    if (s->unit[0] != '\0') {
        chaindata_nats_log(s->nats, "warn", "stream %s: the unit %s is "
                           "dropped unfinished (%u of %u parts, from "
                           "sequence %llu): %s", s->nats->stream, s->unit,
                           s->part, s->parts, (unsigned long long) s->first,
                           why);
    }

    s->unit[0] = '\0';
    chaindata_stream_shrink(s);
}


/*
 * A whole unit, before it is applied: with a key (--nats-verify-key), it
 * must carry the publisher's signature of it, its parts consecutive in
 * the stream; one that does not is skipped (never applied), and said.
 */

static int
chaindata_stream_verify(chaindata_stream_t *s, natsMsg *msg, uint64_t seq)
{
    char               err[128];
    const char        *sig;
    chaindata_unit_t   u;

    if (s->nats->key == NULL) {
        return 0;
    }

    if (natsMsgHeader_Get(msg, CHAINDATA_NATS_HDR_SIG, &sig) != NATS_OK) {
        sig = NULL;
    }

    u.stream = s->nats->stream;
    u.unit = s->unit;
    u.first = s->first;
    u.parts = s->parts;
    u.lines = s->buf;
    u.len = s->len;

    if (seq - s->first + 1 != s->parts) {
        snprintf(err, sizeof(err), "its parts are not consecutive in the "
                 "stream");

    } else if (chaindata_nats_verify(s->nats, &u, -1, sig, err, sizeof(err))
               == 0)
    {
        return 0;
    }

    chaindata_nats_log(s->nats, "error", "stream %s: the unit %s ending at "
                       "sequence %llu is refused and skipped, nothing of it "
                       "applied: %s (another publisher on the subject?)",
                       s->nats->stream, s->unit, (unsigned long long) seq,
                       err);

    return -1;
}


/*
 * With a key, each part on its own when it arrives: its own signature
 * (Chaindata-Part-Signature) over its bytes and its place (the unit's
 * first sequence, its number), so that a forged part is dropped at once,
 * never buffered, and never breaks the unit being joined: 0, or -1 said.
 */

static int
chaindata_stream_part_ok(chaindata_stream_t *s, natsMsg *msg, uint64_t seq,
    const char *unit, uint64_t first, uint64_t i, uint64_t n)
{
    char               err[128];
    const char        *sig;
    chaindata_unit_t   u;

    if (s->nats->key == NULL) {
        return 0;
    }

    if (natsMsgHeader_Get(msg, CHAINDATA_NATS_HDR_PSIG, &sig) != NATS_OK) {
        sig = NULL;
    }

    u.stream = s->nats->stream;
    u.unit = unit;
    u.first = first;
    u.parts = n;
    u.lines = (const unsigned char *) natsMsg_GetData(msg);
    u.len = (size_t) natsMsg_GetDataLength(msg);

    if (chaindata_nats_verify(s->nats, &u, (int64_t) i, sig, err,
                              sizeof(err))
        == 0)
    {
        return 0;
    }

    chaindata_nats_log(s->nats, "warn", "stream %s: the message at sequence "
                       "%llu is dropped, a part %llu of %llu of the unit %s "
                       "that does not verify: %s (another writer on the "
                       "subject?)", s->nats->stream,
                       (unsigned long long) seq, (unsigned long long) i,
                       (unsigned long long) n, unit, err);

    return -1;
}


/*
 * One message: a part of a unit.  A part 0 starts a unit (dropping one
 * that a crashed publisher left unfinished); a message that is no part,
 * or a part of another unit than the one being joined, is skipped.
 */

static int
chaindata_stream_take(chaindata_stream_t *s, natsMsg *msg, uint64_t seq)
{
    int             len, rc;
    char            unit[64], part[24], parts[24];
    size_t          need;
    uint64_t        i, n, undone;
    unsigned char  *p;

    if (chaindata_stream_header(msg, CHAINDATA_NATS_HDR_UNIT, unit,
                                sizeof(unit)) != 0
        || chaindata_stream_header(msg, CHAINDATA_NATS_HDR_PART, part,
                                   sizeof(part)) != 0
        || chaindata_stream_header(msg, CHAINDATA_NATS_HDR_PARTS, parts,
                                   sizeof(parts)) != 0
        || unit[0] == '\0'
        || chaindata_unit_number(parts, UINT32_MAX, &n) != 0
        || n == 0
        || chaindata_unit_number(part, n - 1, &i) != 0)
    {
        return chaindata_stream_stray(s, seq, "it is not a part of a "
                                      "chaindata unit (another publisher "
                                      "on the subject?)");
    }

    if (i != 0 && (strcmp(unit, s->unit) != 0 || i != s->part
                   || n != s->parts || seq != s->first + i))
    {
        return chaindata_stream_stray(s, seq, "a part of a unit this "
                                      "follower is not joining");
    }

    if (chaindata_stream_part_ok(s, msg, seq, unit, i == 0 ? seq : s->first,
                                 i, n)
        != 0)
    {
        return CHAINDATA_EXIT_OK;
    }

    if (i == 0) {
        chaindata_stream_drop(s, "a new unit starts (its publisher "
                              "stopped between parts?)");
        strcpy(s->unit, unit);
        s->part = 0;
        s->parts = (unsigned) n;
        s->first = seq;
    }

    len = natsMsg_GetDataLength(msg);
    need = s->len + len;

    if (need > CHAINDATA_STREAM_UNIT_MAX) {
        chaindata_stream_drop(s, "it is larger than a unit may be");
        return CHAINDATA_EXIT_OK;
    }

    if (need > s->cap) {
        p = realloc(s->buf, need * 2);
        if (p == NULL) {
            chaindata_nats_log(s->nats, "error", "out of memory");
            return CHAINDATA_EXIT_SYSTEM;
        }

        s->buf = p;
        s->cap = need * 2;
    }

    memcpy(s->buf + s->len, natsMsg_GetData(msg), len);
    s->len = need;

    if (++s->part < s->parts) {
        return CHAINDATA_EXIT_OK;
    }

    if (chaindata_stream_verify(s, msg, seq) != 0) {
        s->unit[0] = '\0';
        chaindata_stream_shrink(s);
        return CHAINDATA_EXIT_OK;
    }

    s->unit[0] = '\0';

    if (s->dry) {
        s->units++;
        return CHAINDATA_EXIT_OK;
    }

    undone = s->in->feed.undone;

    rc = chaindata_stream_apply(s, seq);
    chaindata_stream_shrink(s);

    if (rc == CHAINDATA_EXIT_OK && s->in->feed.undone != undone) {
        chaindata_nats_log(s->nats, "warn", "stream %s: the unit ending at "
                           "sequence %llu rolled back %llu blocks (a reorg)",
                           s->nats->stream, (unsigned long long) seq,
                           (unsigned long long) (s->in->feed.undone - undone));
    }

    return rc;
}


static int
chaindata_stream_gap(chaindata_stream_t *s, uint64_t first)
{
    chaindata_nats_log(s->nats, "error", "the stream %s no longer holds "
                       "sequence %llu (its first is %llu): this index is "
                       "too far behind to follow it; seed it from a "
                       "snapshot of a current index (chaindata-load "
                       "--snapshot), then follow again",
                       s->nats->stream, (unsigned long long) s->next,
                       (unsigned long long) first);

    return CHAINDATA_EXIT_INPUT;
}


/*
 * The stream is the one the index follows: 0; or it was made anew since
 * (created at another time than the one the position was stored with):
 * its sequences mean other units, said with what to do, CHAINDATA_EXIT_
 * INPUT.  An older index's position, without an identity, is given one
 * with its next unit.
 */

static void
chaindata_stream_when(uint64_t us, char *out, size_t size)
{
    time_t     t;
    struct tm  tm;

    t = (time_t) (us / 1000000);

    if (gmtime_r(&t, &tm) == NULL
        || strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
    {
        out[0] = '\0';
    }

    snprintf(out + strlen(out), size - strlen(out), ".%06uZ",
             (unsigned) (us % 1000000));
}


static int
chaindata_stream_same(chaindata_stream_t *s)
{
    char  was[48], now[48];

    if (s->id == 0 || s->nats->created == 0 || s->id == s->nats->created) {
        return 0;
    }

    chaindata_stream_when(s->id, was, sizeof(was));
    chaindata_stream_when(s->nats->created, now, sizeof(now));

    chaindata_nats_log(s->nats, "error", "the stream %s was made anew: "
                       "this index follows the stream of that name created "
                       "%s, the one there now was created %s and its "
                       "sequences are other units; seed this index from a "
                       "snapshot of an index that follows the new stream "
                       "(chaindata-load --snapshot), or start on an empty "
                       "index", s->nats->stream, was, now);

    return CHAINDATA_EXIT_INPUT;
}


static int
chaindata_stream_anew(chaindata_stream_t *s, uint64_t last)
{
    chaindata_nats_log(s->nats, "error", "the index is at sequence %llu "
                       "of the stream %s, which ends at %llu: was the "
                       "stream made anew?", (unsigned long long) s->applied,
                       s->nats->stream, (unsigned long long) last);

    return CHAINDATA_EXIT_INPUT;
}


/*
 * Where to start: 0 to go on (*until: the end for --once), -1 stopped by
 * a signal, or the CHAINDATA_EXIT_ code to end with.
 */

static int
chaindata_stream_start(chaindata_stream_t *s, int once, uint64_t *until)
{
    int       rc;
    uint64_t  first, last;

    /* a follower refuses what the mirror refuses */
    s->in->feed.keep_first = 1;

    rc = chaindata_stream_position(&s->in->ix, s->nats->stream, &s->applied,
                                   &s->id);
    if (rc == -1) {
        chaindata_nats_log(s->nats, "error", "cannot read the stream "
                           "position of the index");
        return CHAINDATA_EXIT_SYSTEM;
    }

    s->next = s->applied + 1;

    for ( ;; ) {
        rc = chaindata_nats_state(s->nats, &first, &last);
        s->published = rc == 0 ? last : s->published;
        if (rc != 1 || once) {
            break;
        }

        chaindata_nats_wait(s->nats, 1.0);
    }

    if (rc == -1) {
        return -1;
    }

    if (rc == 1) {
        chaindata_nats_log(s->nats, "error", "there is no stream %s",
                           s->nats->stream);
        return CHAINDATA_EXIT_INPUT;
    }

    if (chaindata_stream_same(s) != 0) {
        return CHAINDATA_EXIT_INPUT;
    }

    if (s->applied > last) {
        return chaindata_stream_anew(s, last);
    }

    if (first > s->next) {
        return chaindata_stream_gap(s, first);
    }

    *until = last;

    chaindata_nats_log(s->nats, "info", "following the stream %s from "
                       "sequence %llu (it ends at %llu)", s->nats->stream,
                       (unsigned long long) s->next,
                       (unsigned long long) last);

    return 0;
}


int
chaindata_stream_follow(chaindata_stream_t *s, int once)
{
    int        rc, missing;
    uint64_t   until, first, last;
    natsMsg   *msg;

    rc = chaindata_stream_start(s, once, &until);
    if (rc != 0) {
        return rc == -1 ? CHAINDATA_EXIT_OK : rc;
    }

    rc = CHAINDATA_EXIT_OK;
    missing = 0;
    s->reported = time(NULL);

    while (rc == CHAINDATA_EXIT_OK && !*s->nats->stop) {

        if (once && s->next > until) {
            break;
        }

        rc = chaindata_nats_get(s->nats, s->next, &msg);

        if (rc == 0) {
            missing = 0;
            rc = chaindata_stream_take(s, msg, s->next);
            natsMsg_Destroy(msg);
            s->next++;
            continue;
        }

        if (rc == -1) {
            rc = CHAINDATA_EXIT_OK;
            break;
        }

        rc = chaindata_nats_state(s->nats, &first, &last);
        s->published = rc == 0 ? last : s->published;

        if (rc != 0) {
            if (rc == 1) {
                chaindata_nats_log(s->nats, "error", "the stream %s is "
                                   "gone", s->nats->stream);
            }

            rc = rc == 1 ? CHAINDATA_EXIT_INPUT : CHAINDATA_EXIT_OK;
            break;
        }

        rc = chaindata_stream_same(s);
        if (rc != CHAINDATA_EXIT_OK) {
            break;
        }

        if (s->next < first) {
            return chaindata_stream_gap(s, first);
        }

        /* a message stored between the two requests is read again; one
         * still missing inside the stream was deleted from it */
        if (s->next <= last && missing++) {
            chaindata_stream_stray(s, s->next, "it was deleted from the "
                                   "stream");
            missing = 0;
            s->next++;
            continue;
        }

        if (s->applied > last) {
            return chaindata_stream_anew(s, last);
        }

        if (s->next > last) {
            missing = 0;
            chaindata_nats_wait(s->nats, 1.0);
        }
    }

    chaindata_nats_log(s->nats, "info", "applied %llu units (%llu "
                       "blocks); the index is at sequence %llu of %s",
                       (unsigned long long) s->units,
                       (unsigned long long) s->blocks,
                       (unsigned long long) s->applied, s->nats->stream);

    return rc;
}


int
chaindata_stream_count(chaindata_stream_t *s, uint64_t from, uint64_t to)
{
    int        rc;
    uint64_t   seq;
    natsMsg   *msg;

    s->dry = 1;

    for (seq = from; seq <= to; seq++) {
        rc = chaindata_nats_get(s->nats, seq, &msg);

        if (rc == 1) {
            continue;
        }

        if (rc == -1) {
            return -1;
        }

        rc = chaindata_stream_take(s, msg, seq);
        natsMsg_Destroy(msg);

        if (rc != CHAINDATA_EXIT_OK) {
            return -1;
        }
    }

    return 0;
}


void
chaindata_stream_free(chaindata_stream_t *s)
{
    free(s->buf);
    s->buf = NULL;
}
