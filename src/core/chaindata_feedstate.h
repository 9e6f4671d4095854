
/*
 * chaindata: a feed's state as its writer (chaindata-mirror) last saw it
 * (lmdb-schema/feed.md "The feed's state"): the key is CHAINDATA_STATE_KEY
 * then the source, in "feed" beside the source's position and tip.
 * chaindata_status and --stats show it when it is there.
 */


#ifndef _CHAINDATA_FEEDSTATE_H_INCLUDED_
#define _CHAINDATA_FEEDSTATE_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


#define CHAINDATA_STATE_KEY     "state:"
#define CHAINDATA_STATE_FORMAT  4
#define CHAINDATA_STATE_SIZE    72

/*
 * The states, as their names say, and why a feed backs off or stopped:
 * lists of X(id, name), none first, each made an enum (its count last)
 * and a table of names (chaindata_feedstate_names, chaindata_feedwhy_names).
 */
#define CHAINDATA_FEED_STATES(X)                                           \
    X(CHAINDATA_FEEDSTATE_NONE, "none")                                    \
    X(CHAINDATA_FEEDSTATE_FOLLOWING, "following")                          \
    X(CHAINDATA_FEEDSTATE_BACKING_OFF, "backing_off")                      \
    X(CHAINDATA_FEEDSTATE_STOPPED, "stopped")

#define CHAINDATA_FEED_WHYS(X)                                             \
    X(CHAINDATA_FEEDWHY_NONE, "")                                          \
    X(CHAINDATA_FEEDWHY_UPSTREAM, "upstream_failing")                      \
    X(CHAINDATA_FEEDWHY_ANOTHER_CHAIN, "another_chain")                    \
    X(CHAINDATA_FEEDWHY_SIGNAL, "signal")                                  \
    X(CHAINDATA_FEEDWHY_ERROR, "error")

#define CHAINDATA_FEED_ID(id, name)  id,

typedef enum {
    CHAINDATA_FEED_STATES(CHAINDATA_FEED_ID)
    CHAINDATA_FEEDSTATE_COUNT
} chaindata_feedstate_e;

typedef enum {
    CHAINDATA_FEED_WHYS(CHAINDATA_FEED_ID)
    CHAINDATA_FEEDWHY_COUNT
} chaindata_feedwhy_e;

#undef CHAINDATA_FEED_ID

extern const char *const  chaindata_feedstate_names[CHAINDATA_FEEDSTATE_COUNT];
extern const char *const  chaindata_feedwhy_names[CHAINDATA_FEEDWHY_COUNT];


typedef struct {
    chaindata_feedstate_e  state;
    chaindata_feedwhy_e    why;         /* of a state but following */
    uint32_t               failures;    /* failed passes in a row */
    uint64_t               last_ok;     /* last good pass (Unix seconds) */
    uint64_t               requests;    /* totals since the writer started */
    uint64_t               retries;
    uint64_t               throttled;   /* 429s */
    uint64_t               refused;     /* answers a check refused */
    uint64_t               skipped;     /* chainhooks failed and skipped */
    uint64_t               unknown;     /* documents with what is new */
} chaindata_feedstate_t;


/* out holds CHAINDATA_STATE_SIZE bytes */
void chaindata_feedstate_encode(unsigned char *out,
    const chaindata_feedstate_t *s);
int chaindata_feedstate_decode(chaindata_feedstate_t *s,
    const unsigned char *v, size_t len);


#endif /* _CHAINDATA_FEEDSTATE_H_INCLUDED_ */
