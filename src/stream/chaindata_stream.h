
/*
 * chaindata: following the fan-out stream (lmdb-schema/feed.md "The
 * stream"): a unit is the lines of one of the mirror's write
 * transactions, sent in parts; a unit is applied in one write transaction
 * together with the stream sequence of its last part, kept in the index.
 */


#ifndef _CHAINDATA_STREAM_H_INCLUDED_
#define _CHAINDATA_STREAM_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "chaindata_exit.h"
#include "chaindata_ingest.h"
#include "chaindata_nats.h"


/* documents with what the schema does not know yet said, then counted */
#define CHAINDATA_STREAM_UNKNOWN_SAID  10

/* the largest unit a follower joins: its parts are claims, not sizes */
#define CHAINDATA_STREAM_UNIT_MAX  ((size_t) 1 << 30)

/* a unit's buffer kept for the next one up to this; a larger one freed */
#define CHAINDATA_STREAM_KEEP      ((size_t) 16 << 20)



typedef struct {
    chaindata_nats_t      *nats;
    chaindata_ingest_t    *in;         /* what units are applied with */

    uint64_t               applied;    /* the sequence the index holds */
    uint64_t               id;         /* the stream's, as the index has it */
    uint64_t               published;  /* the stream's last, as last seen */
    uint64_t               next;       /* the next one to read */

    /* the unit being put together */
    char                   unit[64];
    unsigned               part;
    unsigned               parts;
    uint64_t               first;      /* the sequence of its part 0 */
    unsigned char         *buf;
    size_t                 len;
    size_t                 cap;

    /* units counted, not applied: what a follower would apply (a
     * publisher's look at messages it did not write) */
    unsigned               dry:1;

    uint64_t               units;
    uint64_t               unknown;    /* documents with what is new */
    uint64_t               blocks;
    time_t                 reported;   /* the last progress line */
} chaindata_stream_t;


/* the sequence the index holds for a stream: 0 none, 1 found, -1 error */
int chaindata_stream_position(chaindata_index_t *ix, const char *stream,
    uint64_t *seq, uint64_t *id);
/* appends the position's write (id: the stream's identity, chaindata_
 * nats_t's created) to ws: 0, or -1 out of memory */
int chaindata_stream_put_position(chaindata_writeset_t *ws,
    const char *stream, uint64_t seq, uint64_t id);

/* lines (NDJSON) applied to s->in as one unit, not committed: 0 or -1 */
int chaindata_stream_lines(chaindata_stream_t *s, const unsigned char *p,
    size_t len, uint64_t seq);

/*
 * Reads the stream from the index's position on and applies its units;
 * once: up to the stream's last sequence at the start.  A CHAINDATA_EXIT_
 * code: _INPUT a gap or a unit refused; stopping by a signal is _OK.
 */
int chaindata_stream_follow(chaindata_stream_t *s, int once);
/*
 * The whole units among the messages from..to that a follower with the
 * same key would apply, counted in s->units, none applied (s->dry): 0,
 * or -1 (stopped by a signal, out of memory).
 */
int chaindata_stream_count(chaindata_stream_t *s, uint64_t from,
    uint64_t to);
void chaindata_stream_free(chaindata_stream_t *s);


#endif /* _CHAINDATA_STREAM_H_INCLUDED_ */
