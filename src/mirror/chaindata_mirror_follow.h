
/*
 * chaindata-mirror: the followers: their loop (chaindata_mirror_follow.c)
 * above their polls, above what they report to it
 * (chaindata_mirror_follow_report.c).
 */


#ifndef _CHAINDATA_MIRROR_FOLLOW_H_INCLUDED_
#define _CHAINDATA_MIRROR_FOLLOW_H_INCLUDED_


#include "chaindata_feedstate.h"
#include "chaindata_feedtip.h"
#include "chaindata_mirror_http.h"


/*
 * A feed of the mirror (stacks, mempool, runes, chainhooks), polled,
 * failing, backing off and recovering on its own
 * (chaindata_mirror_follow.c).
 */
typedef struct chaindata_follower_s  chaindata_follower_t;

struct chaindata_follower_s {
    const char          *name;
    chaindata_feedstate_e  state;      /* _NONE: the feed is off */
    int                  caught_up;
    unsigned             failures;     /* failed passes in a row */
    chaindata_feedwhy_e  why;          /* of the last failure */
    double               next;         /* not polled again before */
    double               backoff;      /* seconds, the last wait */

    /* upstream's tip as claimed, believed once its block is fetched */
    unsigned             has_claim;
    chaindata_feedtip_t  claim;

    /* stored in the index (lmdb-schema/feed.md "The feed's state") */
    unsigned             has_tip;
    chaindata_feedtip_t  tip;          /* the last verified */
    chaindata_feedstate_t  stored;     /* totals, the last good pass */
};

/* a follower a feed (CHAINDATA_FEED_LIST) */
#define CHAINDATA_MIRROR_FOLLOWERS  CHAINDATA_FEEDS

/* the followers' state */
typedef struct {
    chaindata_follower_t   followers[CHAINDATA_MIRROR_FOLLOWERS];
    chaindata_follower_t  *polled;     /* the feed whose pass runs */
    double                 stored;     /* when their state was stored */
} chaindata_follow_t;


/* the feeds' loop (chaindata_mirror_follow.c) */
void chaindata_follow_init(chaindata_mirror_t *m);
/* a 429 during a pass: the first logged, the feed's state "throttled" */
void chaindata_follow_throttled(chaindata_mirror_t *m, chaindata_req_t *r);
int chaindata_follow_run(chaindata_mirror_t *m);

/* what the followers report to the loop (chaindata_mirror_follow_report.c) */
#define CHAINDATA_FOLLOW_BACKOFF    1.0
/* a poll's cost, from the totals before (done 0) and after (done 1) it */
void chaindata_follower_count(chaindata_mirror_t *m, chaindata_follower_t *f,
    int done);
/* the followers' state into the index, at once when changed */
void chaindata_follow_store(chaindata_mirror_t *m, int changed);
double chaindata_follow_wait_max(chaindata_mirror_t *m);
int chaindata_follow_too_deep(chaindata_mirror_t *m, const char *source,
    uint64_t height, uint64_t max);
/*
 * upstream's tip as a poll saw it: a claim, stored with the feed's state
 * once the feed has fetched the block at that height
 */
void chaindata_follow_saw_tip(chaindata_mirror_t *m, const char *source,
    uint64_t height, uint64_t block_time);

/* the followers' polls, the loop's */
int chaindata_stacks_poll(chaindata_mirror_t *m, int *caught_up);
int chaindata_runes_poll(chaindata_mirror_t *m, int *caught_up);
int chaindata_mempool_poll(chaindata_mirror_t *m);
int chaindata_chainhooks_poll(chaindata_mirror_t *m);
/* a --once run ends: the pending ones waiting for a batch asked for */
int chaindata_mempool_end(chaindata_mirror_t *m);


#endif /* _CHAINDATA_MIRROR_FOLLOW_H_INCLUDED_ */
