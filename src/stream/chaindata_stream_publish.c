
/*
 * chaindata-mirror --nats URL --stream NAME: the publisher of the fan-out
 * (doc/operations.md "Scaling out", lmdb-schema/feed.md "The stream").
 *
 * The mirror keeps its working index (--db) as without --nats: its reorg
 * checks, the mempool's pending set and the rune balances read it.  Each
 * write transaction's lines (the framing and data records it applied)
 * are one unit: published first, in parts, then committed locally with
 * the stream sequence of the unit's last part.  On start the mirror
 * applies to its index what the stream holds beyond that sequence (a
 * unit published before a crash, not committed), as a follower does, so
 * a restarted publisher neither skips nor repeats a block.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "chaindata_stream.h"
#include "chaindata_stream_publish.h"


#define CHAINDATA_PUB_HEADROOM  1024    /* headers of a part */
#define CHAINDATA_PUB_REFUSALS  30      /* tries when JetStream refuses */
#define CHAINDATA_PUB_INTRUSIONS  30    /* a unit published again, at most */

/* chaindata_pub_send(): the part is not stored after this mirror's last */
#define CHAINDATA_PUB_INTERFERED  1

#define CHAINDATA_PUB_EXPECT_LAST  "Nats-Expected-Last-Sequence"


struct chaindata_pub_s {
    chaindata_nats_t    *nats;
    chaindata_ingest_t  *in;         /* the working index */
    unsigned char       *buf;        /* the unit's lines */
    size_t               len;
    size_t               cap;
    size_t               chunk;      /* bytes of lines a part carries */
    char                 epoch[20];  /* this run's, names its units */
    uint64_t             count;      /* units this run published */
    uint64_t             seq;        /* the stream's last, this run's */
    uint64_t             created;    /* the stream's identity at start */
};


void
chaindata_pub_reset(chaindata_pub_t *pub)
{
    if (pub) {
        pub->len = 0;
    }
}


int
chaindata_pub_line(chaindata_pub_t *pub, const unsigned char *line,
    size_t len)
{
    size_t          need;
    unsigned char  *p;

    if (pub == NULL) {
        return 0;
    }

    need = pub->len + len + 1;

    if (need > pub->cap) {
        p = realloc(pub->buf, need * 2);
        if (p == NULL) {
            chaindata_nats_log(pub->nats, "error", "out of memory");
            return -1;
        }

        pub->buf = p;
        pub->cap = need * 2;
    }

    memcpy(pub->buf + pub->len, line, len);
    pub->buf[pub->len + len] = '\n';
    pub->len = need;

    return 0;
}


/* the unit's id: this run's epoch and its number in the run */

static void
chaindata_pub_id(chaindata_pub_t *pub, char *id, size_t size)
{
    snprintf(id, size, "%s.%llu", pub->epoch,
             (unsigned long long) pub->count);
}


/* a part; the last carries the unit's signature, sig (NULL: unsigned) */

static natsMsg *
chaindata_pub_part(chaindata_pub_t *pub, size_t off, size_t n,
    unsigned part, unsigned parts, uint64_t first, const char *sig)
{
    char              num[64];
    char              psig[CHAINDATA_UNIT_SIG_B64 + 1];
    natsMsg          *msg;
    natsStatus        s;
    chaindata_unit_t  u;

    if (natsMsg_Create(&msg, pub->nats->subj, NULL,
                       (const char *) pub->buf + off, (int) n)
        != NATS_OK)
    {
        return NULL;
    }

    chaindata_pub_id(pub, num, sizeof(num));
    s = natsMsgHeader_Set(msg, CHAINDATA_NATS_HDR_UNIT, num);

    snprintf(num, sizeof(num), "%u", part);
    if (s == NATS_OK) {
        s = natsMsgHeader_Set(msg, CHAINDATA_NATS_HDR_PART, num);
    }

    snprintf(num, sizeof(num), "%u", parts);
    if (s == NATS_OK) {
        s = natsMsgHeader_Set(msg, CHAINDATA_NATS_HDR_PARTS, num);
    }

    if (s == NATS_OK && sig && part == parts - 1) {
        s = natsMsgHeader_Set(msg, CHAINDATA_NATS_HDR_SIG, sig);
    }

    /* each part signed on its own too: a follower checks it on arrival */
    if (s == NATS_OK && sig) {
        chaindata_pub_id(pub, num, sizeof(num));
        u.stream = pub->nats->stream;
        u.unit = num;
        u.first = first;
        u.parts = parts;
        u.lines = pub->buf + off;
        u.len = n;

        s = chaindata_unit_sign_part(pub->nats->key, &u, part, psig) == 0
            ? natsMsgHeader_Set(msg, CHAINDATA_NATS_HDR_PSIG, psig)
            : NATS_ERR;
    }

    if (s != NATS_OK) {
        natsMsg_Destroy(msg);
        return NULL;
    }

    return msg;
}


/*
 * One part, tried again until stored: the same Nats-Msg-Id each time, so
 * that a part stored whose acknowledgement was lost is stored once.  It
 * must follow the last message this mirror knows of: a second publisher
 * on the stream is refused, never interleaved with this one.
 */

/*
 * 16 random hex digits: a part's Nats-Msg-Id ends with them, so that no
 * other writer can store a message under the id of a part to come (and
 * have JetStream drop the part as its duplicate).  0, or -1.
 */

static int
chaindata_pub_random(char *hex)
{
    int            i;
    unsigned char  r[8];

    if (RAND_bytes(r, sizeof(r)) != 1) {
        return -1;
    }

    for (i = 0; i < 8; i++) {
        snprintf(hex + 2 * i, 3, "%02x", r[i]);
    }

    return 0;
}


/*
 * The acknowledgement of a part: stored right after this mirror's last
 * message (0), or not (CHAINDATA_PUB_INTERFERED, said).  A duplicate is
 * this mirror's own part only when it is a retry and at the sequence the
 * part was sent to take; else a message another writer stored with the
 * part's id was taken for it.
 */

static int
chaindata_pub_acked(chaindata_pub_t *pub, jsPubAck *ack, unsigned tries)
{
    uint64_t  expected;

    expected = pub->seq + 1;

    if (ack->Sequence == expected && (!ack->Duplicate || tries > 0)) {
        pub->seq = ack->Sequence;
        return 0;
    }

    chaindata_nats_log(pub->nats, "warn", "the stream %s: a part of the unit "
                       "%s.%llu was acknowledged as %s at sequence %llu, not "
                       "stored at %llu: a message this mirror did not write "
                       "(interference on the subject)", pub->nats->stream,
                       pub->epoch, (unsigned long long) pub->count,
                       ack->Duplicate ? "the duplicate of the message"
                                      : "stored",
                       (unsigned long long) ack->Sequence,
                       (unsigned long long) expected);

    return CHAINDATA_PUB_INTERFERED;
}


static int
chaindata_pub_send(chaindata_pub_t *pub, natsMsg *msg, unsigned part)
{
    int           rc;
    char          id[96], last[24], r[17];
    unsigned      tries;
    jsErrCode     jerr;
    jsPubAck     *ack;
    natsStatus    s;
    jsPubOptions  po;

    if (chaindata_pub_random(r) != 0) {
        chaindata_nats_log(pub->nats, "error", "no random bytes for a "
                           "Nats-Msg-Id");
        return -1;
    }

    snprintf(id, sizeof(id), "%s.%llu.%u.%s", pub->epoch,
             (unsigned long long) pub->count, part, r);

    jsPubOptions_Init(&po);
    po.MsgId = id;
    po.ExpectStream = pub->nats->stream;

    /*
     * The expectation in a header of our own: the client library sends
     * none for 0, the last sequence of an empty stream, and the first
     * publish of two publishers on a new stream must not both succeed.
     */
    snprintf(last, sizeof(last), "%llu", (unsigned long long) pub->seq);

    if (natsMsgHeader_Set(msg, CHAINDATA_PUB_EXPECT_LAST, last) != NATS_OK) {
        chaindata_nats_log(pub->nats, "error", "out of memory");
        return -1;
    }

    for (tries = 0; !*pub->nats->stop; ) {
        ack = NULL;
        jerr = 0;
        s = js_PublishMsg(&ack, pub->nats->js, msg, &po, &jerr);

        if (s == NATS_OK) {
            rc = chaindata_pub_acked(pub, ack, tries);
            jsPubAck_Destroy(ack);
            return rc;
        }

        if (jerr == JSStreamWrongLastSequenceErr) {
            chaindata_nats_log(pub->nats, "warn", "the stream %s holds a "
                               "message after sequence %llu that this mirror "
                               "did not write (interference on the subject)",
                               pub->nats->stream,
                               (unsigned long long) pub->seq);
            return CHAINDATA_PUB_INTERFERED;
        }

        /* a server restarting refuses for a while (stream offline) */
        if (jerr != 0 && tries >= CHAINDATA_PUB_REFUSALS) {
            chaindata_nats_log(pub->nats, "error", "the stream %s refuses a "
                               "part: %s (%d)", pub->nats->stream,
                               nats_GetLastError(NULL), (int) jerr);
            return -1;
        }

        chaindata_nats_backoff(pub->nats, &tries, "publishing", s);
    }

    return -1;
}


/*
 * The unit's signature: its parts follow the stream's last message (each
 * is published expecting it), so its first part's sequence is known.
 */

static int
chaindata_pub_sign(chaindata_pub_t *pub, unsigned parts, char *sig)
{
    char              id[64];
    chaindata_unit_t  u;

    chaindata_pub_id(pub, id, sizeof(id));

    u.stream = pub->nats->stream;
    u.unit = id;
    u.first = pub->seq + 1;
    u.parts = parts;
    u.lines = pub->buf;
    u.len = pub->len;

    return chaindata_unit_sign(pub->nats->key, &u, sig);
}


/*
 * The unit's parts, signed for where its first part is to be stored: 0,
 * -1, or CHAINDATA_PUB_INTERFERED (a part was not stored after the one
 * before it).
 */

static int
chaindata_pub_parts(chaindata_pub_t *pub, unsigned parts)
{
    int       rc;
    char      sig[CHAINDATA_UNIT_SIG_B64 + 1];
    size_t    off, n;
    uint64_t  first;
    unsigned  part;
    natsMsg  *msg;

    first = pub->seq + 1;

    if (pub->nats->key && chaindata_pub_sign(pub, parts, sig) != 0) {
        chaindata_nats_log(pub->nats, "error", "cannot sign a unit");
        return -1;
    }

    for (part = 0, off = 0; part < parts; part++, off += n) {
        n = pub->len - off < pub->chunk ? pub->len - off : pub->chunk;

        msg = chaindata_pub_part(pub, off, n, part, parts, first,
                                 pub->nats->key ? sig : NULL);
        if (msg == NULL) {
            chaindata_nats_log(pub->nats, "error", "out of memory");
            return -1;
        }

        rc = chaindata_pub_send(pub, msg, part);
        natsMsg_Destroy(msg);

        if (rc != 0) {
            return rc;
        }
    }

    return 0;
}


/*
 * After interference: what follows this unit's start (sequence base) to
 * the stream's last message is read as a follower with this mirror's key
 * would read it.  A whole unit there is another publisher's: the mirror
 * stops (-1), nothing committed, and a restart applies it as followers
 * do.  Else nothing there is applied by a follower (a message that is no
 * unit, a unit not signed by the key, this unit's first parts): the unit
 * is published again after it (0).
 */

static int
chaindata_pub_intruders(chaindata_pub_t *pub, uint64_t base)
{
    int                 rc;
    uint64_t            first, last;
    chaindata_stream_t  s;

    if (chaindata_nats_state(pub->nats, &first, &last) != 0) {
        return -1;
    }

    if (pub->nats->created != pub->created) {
        chaindata_nats_log(pub->nats, "error", "the stream %s was made anew "
                           "while this mirror published to it: nothing is "
                           "committed", pub->nats->stream);
        return -1;
    }

    memset(&s, 0, sizeof(s));
    s.nats = pub->nats;
    s.in = pub->in;

    rc = chaindata_stream_count(&s, base + 1, last);
    chaindata_stream_free(&s);

    if (rc != 0) {
        return -1;
    }

    if (s.units) {
        chaindata_nats_log(pub->nats, "error", "the stream %s has messages "
                           "this mirror did not publish: one publisher a "
                           "stream (%llu units a follower applies after "
                           "sequence %llu; nothing is committed, a restart "
                           "applies them)", pub->nats->stream,
                           (unsigned long long) s.units,
                           (unsigned long long) base);
        return -1;
    }

    chaindata_nats_log(pub->nats, "warn", "the stream %s: sequences %llu to "
                       "%llu hold no unit a follower applies; the unit "
                       "%s.%llu is published again after them",
                       pub->nats->stream, (unsigned long long) base + 1,
                       (unsigned long long) last, pub->epoch,
                       (unsigned long long) pub->count);

    pub->seq = last;

    return 0;
}


/*
 * Publishes the unit, then appends the stream position to the write set:
 * 0, or -1 (nothing may be committed then).  Called by
 * chaindata_block_write() before it commits.  A unit whose parts were
 * interfered with is published again, whole, after what interfered: a
 * follower drops its first copy unfinished and applies the second.
 */

int
chaindata_pub_unit(chaindata_pub_t *pub)
{
    int       rc;
    unsigned  parts, again;
    uint64_t  base;

    if (pub == NULL || pub->len == 0) {
        return 0;
    }

    if (pub->len > CHAINDATA_STREAM_UNIT_MAX) {
        chaindata_nats_log(pub->nats, "error", "a unit of %zu bytes: the "
                           "stream takes %zu at most", pub->len,
                           CHAINDATA_STREAM_UNIT_MAX);
        return -1;
    }

    parts = (unsigned) ((pub->len + pub->chunk - 1) / pub->chunk);
    pub->count++;

    for (again = 0; /* void */ ; again++) {
        base = pub->seq;
        rc = chaindata_pub_parts(pub, parts);

        if (rc != CHAINDATA_PUB_INTERFERED) {
            break;
        }

        if (again == CHAINDATA_PUB_INTRUSIONS) {
            chaindata_nats_log(pub->nats, "error", "the stream %s: the unit "
                               "%s.%llu was interfered with %u times; nothing "
                               "is committed", pub->nats->stream, pub->epoch,
                               (unsigned long long) pub->count, again + 1);
            return -1;
        }

        if (chaindata_pub_intruders(pub, base) != 0) {
            return -1;
        }
    }

    if (rc != 0) {
        return -1;
    }

    pub->len = 0;

    if (chaindata_stream_put_position(&pub->in->ws, pub->nats->stream, pub->seq,
                                      pub->nats->created)
        != 0)
    {
        chaindata_nats_log(pub->nats, "error", "out of memory");
        return -1;
    }

    return 0;
}


/*
 * Connects, creates the stream if missing, and brings the working index
 * to the stream's last whole unit (chaindata_stream_publish.h).
 */

int
chaindata_pub_start(chaindata_pub_t **pubp, chaindata_nats_t *nats,
    chaindata_ingest_t *in)
{
    int                 rc;
    int64_t             max;
    uint64_t            first;
    chaindata_pub_t    *pub;
    chaindata_stream_t  s;

    pub = calloc(1, sizeof(chaindata_pub_t));
    *pubp = pub;

    if (pub == NULL) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    pub->nats = nats;
    pub->in = in;

    if (chaindata_pub_random(pub->epoch) != 0) {
        chaindata_nats_log(nats, "error", "no random bytes for the run's "
                           "epoch");
        return CHAINDATA_EXIT_SYSTEM;
    }

    if (chaindata_nats_connect(nats) != 0 || chaindata_nats_create(nats) != 0)
    {
        return *nats->stop ? CHAINDATA_EXIT_OK : CHAINDATA_EXIT_SYSTEM;
    }

    max = natsConnection_GetMaxPayload(nats->nc);
    pub->chunk = max > 2 * CHAINDATA_PUB_HEADROOM
                 ? (size_t) (max - CHAINDATA_PUB_HEADROOM)
                 : CHAINDATA_PUB_HEADROOM;

    memset(&s, 0, sizeof(s));
    s.nats = nats;
    s.in = in;

    rc = chaindata_stream_follow(&s, 1);
    chaindata_stream_free(&s);
    chaindata_writeset_reset(&in->ws);

    /* from here on the mirror's own reorg checks decide its rollbacks */
    in->feed.keep_first = 0;

    if (rc != CHAINDATA_EXIT_OK) {
        return rc;
    }

    /* what follows the last message, a part of an unfinished unit too */
    if (chaindata_nats_state(nats, &first, &pub->seq) != 0) {
        return *nats->stop ? CHAINDATA_EXIT_OK : CHAINDATA_EXIT_SYSTEM;
    }

    pub->created = nats->created;

    return CHAINDATA_EXIT_OK;
}


void
chaindata_pub_free(chaindata_pub_t *pub)
{
    if (pub) {
        free(pub->buf);
        free(pub);
    }
}
