
/*
 * chaindata-mirror: what the followers report to the loop
 * (chaindata_mirror_follow.c), below both: upstream's tip as a poll saw
 * it, a 429 during a pass, a disagreement too deep to roll back, each
 * follower's state and tip stored in the index, and the longest wait.
 */


#include <errno.h>
#include <string.h>
#include <time.h>

#include "chaindata_mirror.h"


/* the feeds' state records are stored at most this often (and on change) */
#define CHAINDATA_FOLLOW_STORE      5.0


/*
 * The longest wait after a failure, a request's retry or a feed's
 * backoff (a 429's Retry-After aside: upstream's own, up to --max-wait):
 * a poll interval, at least CHAINDATA_FOLLOW_BACKOFF, at most --max-wait.
 * A feed asks upstream once an interval when all is well, so a longer
 * wait spares upstream nothing and only delays the feed when upstream
 * answers again after an outage.
 */

double
chaindata_follow_wait_max(chaindata_mirror_t *m)
{
    double  wait;

    wait = m->interval > CHAINDATA_FOLLOW_BACKOFF ? m->interval
                                                : CHAINDATA_FOLLOW_BACKOFF;

    return wait < m->http.max_wait ? wait : m->http.max_wait;
}


/*
 * What a poll cost, from the mirror's totals before (done 0) and after
 * (done 1) it: the feeds are polled one at a time, so the difference is
 * the feed's.
 */

void
chaindata_follower_count(chaindata_mirror_t *m, chaindata_follower_t *f,
    int done)
{
    static chaindata_feedstate_t  before;

    chaindata_feedstate_t  now;

    now.requests = m->http.requests;
    now.retries = m->http.retried;
    now.throttled = m->http.throttled;
    now.refused = m->http.refused;
    now.skipped = m->hooks.skipped;
    now.unknown = m->unknown_stored;

    if (!done) {
        before = now;
        return;
    }

    f->stored.requests += now.requests - before.requests;
    f->stored.retries += now.retries - before.retries;
    f->stored.throttled += now.throttled - before.throttled;
    f->stored.refused += now.refused - before.refused;
    f->stored.skipped += now.skipped - before.skipped;
    f->stored.unknown += now.unknown - before.unknown;
}


void
chaindata_follow_saw_tip(chaindata_mirror_t *m, const char *source,
    uint64_t height, uint64_t block_time)
{
    size_t  i;

    for (i = 0; i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
        if (strcmp(m->follow.followers[i].name, source) == 0) {
            m->follow.followers[i].has_claim = 1;
            m->follow.followers[i].claim.height = height;
            m->follow.followers[i].claim.time = block_time;
            m->follow.followers[i].claim.polled = (uint64_t) time(NULL);
        }
    }
}


/*
 * The tip stored is a verified one (lmdb-schema/feed.md "The feed's
 * state"): upstream's claim once the feed has fetched and committed the
 * block at that height (its position is there or above); until then the
 * last block it fetched, never a claim beyond it (a tip of 2^63 would
 * make the feed 9.2e18 blocks behind in status and metrics).
 */

static void
chaindata_follower_verify_tip(chaindata_mirror_t *m, chaindata_follower_t *f)
{
    unsigned char        hash[CHAINDATA_FEED_HASH_MAX];
    chaindata_feedpos_t  pos;

    if (!f->has_claim
        || chaindata_feed_position(&m->in.ix, f->name, &pos, hash) != 0)
    {
        return;
    }

    if (f->claim.height <= pos.height) {
        f->tip = f->claim;

    } else if (!f->has_tip || f->tip.height < pos.height) {
        f->tip.height = pos.height;
        f->tip.time = pos.time;
        f->tip.polled = f->claim.polled;

    } else {
        return;
    }

    f->has_tip = 1;
}


/* a feed's "state:" record, and its "tip:" one when a poll saw the tip */

static int
chaindata_follower_store(chaindata_writeset_t *ws, chaindata_follower_t *f)
{
    size_t          n;
    unsigned char   key[16 + CHAINDATA_FEED_SOURCE_MAX], *v;

    f->stored.state = f->state;
    f->stored.why = f->state == CHAINDATA_FEEDSTATE_FOLLOWING
                    ? CHAINDATA_FEEDWHY_NONE : f->why;
    f->stored.failures = f->failures;

    n = (size_t) snprintf((char *) key, sizeof(key), "%s%s",
                          CHAINDATA_STATE_KEY, f->name);
    v = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_FEED,
                               key, n, CHAINDATA_STATE_SIZE);
    if (v == NULL) {
        return -1;
    }

    chaindata_feedstate_encode(v, &f->stored);

    if (!f->has_tip) {
        return 0;
    }

    n = (size_t) snprintf((char *) key, sizeof(key), "%s%s",
                          CHAINDATA_TIP_KEY, f->name);
    v = chaindata_writeset_add(ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_FEED,
                               key, n, CHAINDATA_TIP_SIZE);
    if (v == NULL) {
        return -1;
    }

    chaindata_feedtip_encode(v, &f->tip);

    return 0;
}


/*
 * The feeds' state and tips into the index, in a write transaction of
 * their own at most every CHAINDATA_FOLLOW_STORE seconds (at once when a
 * state changed): never one a request.  Local to this index: never
 * published (a follower keeps its own).
 */

void
chaindata_follow_store(chaindata_mirror_t *m, int changed)
{
    int                   rc;
    size_t                i;
    double                now;
    chaindata_writeset_t  ws;

    now = chaindata_now();

    if (!changed && now - m->follow.stored < CHAINDATA_FOLLOW_STORE) {
        return;
    }

    m->follow.stored = now;
    memset(&ws, 0, sizeof(ws));
    rc = 0;

    for (i = 0; rc == 0 && i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
        if (m->follow.followers[i].state != CHAINDATA_FEEDSTATE_NONE) {
            chaindata_follower_verify_tip(m, &m->follow.followers[i]);
            rc = chaindata_follower_store(&ws, &m->follow.followers[i]);
        }
    }

    rc = rc == 0 ? chaindata_index_commit(&m->in.ix, &ws) : ENOMEM;
    chaindata_writeset_free(&ws);

    if (rc != 0) {
        chaindata_mirror_log(m, "warn", "the feeds' state was not stored: "
                             "%s", mdb_strerror(rc));
    }
}


/*
 * A 429 during a feed's pass: the first of the pass is logged (the rest
 * counted, not said), and the feed's state says "throttled" at once, its
 * counters to this request stored with it, not only once the pass ends
 * (a storm of 429s retried with backoff may last minutes).
 */

void
chaindata_follow_throttled(chaindata_mirror_t *m, chaindata_req_t *r)
{
    chaindata_follower_t  *f;

    f = m->follow.polled;

    if (m->http.pass_429s++ > 0 || f == NULL) {
        return;
    }

    chaindata_mirror_log(m, "warn", "feed %s: GET %s: 429, upstream "
                         "throttles this mirror: retried with backoff "
                         "(further 429s of this pass are counted, not "
                         "said; --rate slows the mirror down)", f->name,
                         r->label[0] ? r->label : r->url);

    if (f->state == CHAINDATA_FEEDSTATE_FOLLOWING) {
        f->state = CHAINDATA_FEEDSTATE_THROTTLED;
    }

    chaindata_follower_count(m, f, 1);
    chaindata_follower_count(m, f, 0);
    chaindata_follow_store(m, 1);
}


/* a disagreement deeper than a feed's maximum: its feed stops */

int
chaindata_follow_too_deep(chaindata_mirror_t *m, const char *source,
    uint64_t height, uint64_t max)
{
    chaindata_mirror_log(m, "error", "%s: upstream disagrees with the index "
                         "below %llu blocks under %llu: is it the same "
                         "chain?  Nothing was rolled back; the feed stops "
                         "(--%smax-reorg-depth)", source,
                         (unsigned long long) max, (unsigned long long) height,
                         strcmp(source, CHAINDATA_RUNES) == 0 ? "runes-" : "");

    return CHAINDATA_MIRROR_REFUSED;
}
