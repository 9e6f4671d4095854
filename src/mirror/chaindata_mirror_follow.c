
/*
 * chaindata-mirror: the polling loop.  Each feed (stacks, mempool, runes,
 * chainhooks) is polled on its own: one that fails backs off, logged,
 * CHAINDATA_FOLLOW_BACKOFF seconds doubled a failure in a row up to
 * chaindata_follow_wait_max(), and recovers when a pass succeeds again,
 * while the others go on.  With --once a failed feed is given up and the
 * mirror exits 1 once the others are caught up.  A feed whose upstream
 * is refused for good (another chain: CHAINDATA_MIRROR_REFUSED) stops,
 * and the mempool with the Stacks feed it follows; the mirror exits when
 * no feed is left, when the index fails, or on a signal, whatever it
 * waits for (chaindata_signal_fd() wakes it), each feed still on stored
 * as stopped and why.  A --once run that ends asks for what the
 * mempool's pending transactions still wait for.
 */


#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chaindata_mirror.h"
#include "chaindata_signal.h"


/* a follower a feed, in the order of CHAINDATA_FEED_LIST */

void
chaindata_follow_init(chaindata_mirror_t *m)
{
    size_t  i;
    int     on[CHAINDATA_MIRROR_FOLLOWERS];

    on[CHAINDATA_FEED_STACKS] = m->stacks_api != NULL;
    on[CHAINDATA_FEED_MEMPOOL] = m->stacks_api != NULL && !m->no_mempool;
    on[CHAINDATA_FEED_RUNES] = m->runes_api != NULL;
    on[CHAINDATA_FEED_CHAINHOOKS] = m->platform_api != NULL;

    for (i = 0; i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
        m->follow.followers[i].name = chaindata_feeds[i].source;
        m->follow.followers[i].state = on[i] ? CHAINDATA_FEEDSTATE_FOLLOWING
                                  : CHAINDATA_FEEDSTATE_NONE;
    }
}


static int
chaindata_follower_poll(chaindata_mirror_t *m, size_t i, int *caught_up)
{
    *caught_up = 1;

    switch (i) {

    case CHAINDATA_FEED_STACKS:
        return chaindata_stacks_poll(m, caught_up);

    case CHAINDATA_FEED_MEMPOOL:
        return chaindata_mempool_poll(m);

    case CHAINDATA_FEED_RUNES:
        return chaindata_runes_poll(m, caught_up);

    default:
        return chaindata_chainhooks_poll(m);
    }
}


/* the mempool follows the Stacks blocks: polled once they are current */

static int
chaindata_follower_ready(chaindata_mirror_t *m, size_t i)
{
    chaindata_follower_t  *stacks;

    if (i != CHAINDATA_FEED_MEMPOOL) {
        return 1;
    }

    stacks = &m->follow.followers[CHAINDATA_FEED_STACKS];

    return stacks->state == CHAINDATA_FEEDSTATE_FOLLOWING && stacks->caught_up;
}


static void
chaindata_follower_failed(chaindata_mirror_t *m, chaindata_follower_t *f,
    int rc)
{
    f->why = rc == CHAINDATA_MIRROR_REFUSED ? CHAINDATA_FEEDWHY_ANOTHER_CHAIN
             : m->http.pass_429s ? CHAINDATA_FEEDWHY_THROTTLED
             : CHAINDATA_FEEDWHY_UPSTREAM;

    if (rc == CHAINDATA_MIRROR_REFUSED) {
        f->state = CHAINDATA_FEEDSTATE_STOPPED;
        chaindata_mirror_log(m, "error", "feed %s stopped (see above); the "
                             "other feeds go on", f->name);
        return;
    }

    f->failures++;

    if (m->once) {
        f->state = CHAINDATA_FEEDSTATE_STOPPED;
        chaindata_mirror_log(m, "error", "feed %s failed (see above): "
                             "given up for this run", f->name);
        return;
    }

    f->backoff = f->failures == 1 ? CHAINDATA_FOLLOW_BACKOFF
                                  : f->backoff * 2;

    if (f->backoff > chaindata_follow_wait_max(m)) {
        f->backoff = chaindata_follow_wait_max(m);
    }

    f->state = CHAINDATA_FEEDSTATE_BACKING_OFF;
    f->next = chaindata_now() + f->backoff;

    chaindata_mirror_log(m, "warn", "feed %s failed (see above), %u in a "
                         "row: backing off %g s", f->name, f->failures,
                         f->backoff);
}


static void
chaindata_follower_succeeded(chaindata_mirror_t *m, chaindata_follower_t *f,
    int caught_up)
{
    if (f->failures) {
        chaindata_mirror_log(m, "info", "feed %s recovered after %u failed "
                             "passes", f->name, f->failures);
    }

    f->failures = 0;
    f->state = CHAINDATA_FEEDSTATE_FOLLOWING;
    f->caught_up = caught_up;
    f->stored.last_ok = (uint64_t) time(NULL);
}


/* until then, or until a signal: its pipe wakes the wait */

static void
chaindata_follow_sleep(double until)
{
    double         left;
    struct pollfd  sig;

    sig.fd = chaindata_signal_fd();
    sig.events = POLLIN;

    while (!chaindata_mirror_stop && (left = until - chaindata_now()) > 0) {
        (void) poll(&sig, sig.fd != -1, (int) (left * 1000) + 1);
    }
}


/*
 * The mempool is polled once the Stacks blocks are current: it stops
 * when the Stacks feed stops (their upstream is one, and it would never
 * be polled again), with the Stacks feed's why.
 */

static void
chaindata_follow_mempool_follows(chaindata_mirror_t *m)
{
    chaindata_follower_t  *stacks, *mempool;

    stacks = &m->follow.followers[CHAINDATA_FEED_STACKS];
    mempool = &m->follow.followers[CHAINDATA_FEED_MEMPOOL];

    if (stacks->state != CHAINDATA_FEEDSTATE_STOPPED
        || mempool->state == CHAINDATA_FEEDSTATE_NONE
        || mempool->state == CHAINDATA_FEEDSTATE_STOPPED)
    {
        return;
    }

    mempool->state = CHAINDATA_FEEDSTATE_STOPPED;
    mempool->why = stacks->why;

    chaindata_mirror_log(m, "error", "feed mempool stopped with the feed "
                         "stacks it follows");
}


/*
 * One pass over the feeds due: 0 when it may go on (*busy: a feed is
 * catching up, *wake: when one is due next), or the exit status.
 */

static int
chaindata_follow_pass(chaindata_mirror_t *m, int *busy, double *wake)
{
    int                 rc, done;
    size_t              i;
    double              now;
    chaindata_follower_t  *f;

    *busy = 0;

    for (i = 0; i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
        f = &m->follow.followers[i];
        now = chaindata_now();

        /* looked at before each feed: a pass may poll none */
        if (chaindata_mirror_stop) {
            return CHAINDATA_MIRROR_STOPPED;
        }

        if (f->state == CHAINDATA_FEEDSTATE_NONE
            || f->state == CHAINDATA_FEEDSTATE_STOPPED
            || !chaindata_follower_ready(m, i))
        {
            continue;
        }

        if (f->state == CHAINDATA_FEEDSTATE_BACKING_OFF && now < f->next) {
            *wake = f->next < *wake ? f->next : *wake;
            continue;
        }

        chaindata_follower_count(m, f, 0);
        m->follow.polled = f;
        m->http.pass_429s = 0;
        rc = chaindata_follower_poll(m, i, &done);
        m->follow.polled = NULL;
        chaindata_follower_count(m, f, 1);

        if (rc == CHAINDATA_MIRROR_STOPPED || chaindata_mirror_stop) {
            return CHAINDATA_MIRROR_STOPPED;
        }

        if (rc == CHAINDATA_EXIT_SYSTEM) {
            return rc;
        }

        if (rc != CHAINDATA_EXIT_OK) {
            chaindata_follower_failed(m, f, rc);

            if (f->state == CHAINDATA_FEEDSTATE_BACKING_OFF) {
                *wake = f->next < *wake ? f->next : *wake;
            }

            continue;
        }

        chaindata_follower_succeeded(m, f, done);
        *busy |= !done;
    }

    chaindata_follow_mempool_follows(m);

    return chaindata_mirror_stop ? CHAINDATA_MIRROR_STOPPED
                                 : CHAINDATA_EXIT_OK;
}


/* the mirror ends: every feed still on is stored stopped, and why */

static void
chaindata_follow_end(chaindata_mirror_t *m, chaindata_feedwhy_e why)
{
    size_t              i;
    chaindata_follower_t  *f;

    for (i = 0; i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
        f = &m->follow.followers[i];

        if (f->state != CHAINDATA_FEEDSTATE_NONE
            && f->state != CHAINDATA_FEEDSTATE_STOPPED)
        {
            f->state = CHAINDATA_FEEDSTATE_STOPPED;
            f->why = why;
        }
    }

    chaindata_follow_store(m, 1);
}


/*
 * A --once run ends with the feeds caught up: the mempool's pending
 * transactions still waiting for a batch are asked for
 * (chaindata_mempool_end()), as a pass of the mempool feed, so that the
 * run leaves none without its v3 document.  A signal's stop asks
 * nothing: the next run finds them waiting in the index.
 */

static int
chaindata_follow_once_end(chaindata_mirror_t *m)
{
    int                    rc;
    chaindata_follower_t  *f;

    f = &m->follow.followers[CHAINDATA_FEED_MEMPOOL];

    if (f->state != CHAINDATA_FEEDSTATE_FOLLOWING) {
        return CHAINDATA_EXIT_OK;
    }

    chaindata_follower_count(m, f, 0);
    m->follow.polled = f;
    m->http.pass_429s = 0;
    rc = chaindata_mempool_end(m);
    m->follow.polled = NULL;
    chaindata_follower_count(m, f, 1);

    if (rc == CHAINDATA_MIRROR_STOPPED || chaindata_mirror_stop) {
        return CHAINDATA_MIRROR_STOPPED;
    }

    if (rc != CHAINDATA_EXIT_OK && rc != CHAINDATA_EXIT_SYSTEM) {
        chaindata_follower_failed(m, f, rc);
    }

    return rc == CHAINDATA_EXIT_SYSTEM ? rc : CHAINDATA_EXIT_OK;
}


/* the feeds still on, and whether any of them was given up */

static size_t
chaindata_follow_live(chaindata_mirror_t *m, int *given_up)
{
    size_t  i, live;

    *given_up = 0;

    for (i = 0, live = 0; i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
        if (m->follow.followers[i].state == CHAINDATA_FEEDSTATE_STOPPED) {
            *given_up = 1;

        } else if (m->follow.followers[i].state != CHAINDATA_FEEDSTATE_NONE) {
            live++;
        }
    }

    return live;
}


int
chaindata_follow_run(chaindata_mirror_t *m)
{
    int                     rc, busy, given_up, changed, last;
    size_t                  i, live;
    double                  wake;
    chaindata_feedstate_e   was[CHAINDATA_MIRROR_FOLLOWERS];

    for ( ;; ) {
        wake = chaindata_now() + m->interval;

        for (i = 0; i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
            was[i] = m->follow.followers[i].state;
        }

        rc = chaindata_follow_pass(m, &busy, &wake);

        if (rc == CHAINDATA_EXIT_OK && m->once && !busy) {
            rc = chaindata_follow_once_end(m);
        }

        if (rc == CHAINDATA_EXIT_SYSTEM) {
            chaindata_follow_end(m, CHAINDATA_FEEDWHY_ERROR);
            return rc;
        }

        if (rc == CHAINDATA_MIRROR_STOPPED) {
            chaindata_follow_end(m, CHAINDATA_FEEDWHY_SIGNAL);
            chaindata_mirror_log(m, "info", "stopped by a signal");
            return CHAINDATA_EXIT_OK;
        }

        live = chaindata_follow_live(m, &given_up);

        for (i = 0, changed = 0; i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
            changed |= was[i] != m->follow.followers[i].state;
        }

        last = live == 0 || (m->once && !busy);

        chaindata_follow_store(m, changed || last);

        if (live == 0) {
            chaindata_mirror_progress(m, 1);
            chaindata_mirror_log(m, "error", "no feed is left: exiting");
            return CHAINDATA_EXIT_INPUT;
        }

        if (busy) {
            continue;
        }

        if (m->once) {
            chaindata_mirror_progress(m, 1);
            return given_up ? CHAINDATA_EXIT_INPUT : CHAINDATA_EXIT_OK;
        }

        chaindata_mirror_progress(m, 0);
        chaindata_follow_sleep(wake);
    }
}

