
/*
 * chaindata-mirror: the polling loop.  Each feed (stacks, mempool, runes,
 * chainhooks) is polled on its own: one that fails backs off, logged,
 * CHAINDATA_FEED_BACKOFF seconds doubled a failure in a row up to
 * chaindata_feeds_wait_max(), and recovers when a pass succeeds again,
 * while the others go on.  With --once a failed feed is given up and the
 * mirror exits 1 once the others are caught up.  A feed whose upstream
 * is refused for good (another chain: CHAINDATA_MIRROR_REFUSED) stops,
 * and the mempool with the Stacks feed it follows; the mirror exits when
 * no feed is left, when the index fails, or on a signal, whatever it
 * waits for (chaindata_signal_fd() wakes it), each feed still on stored
 * as stopped and why.
 */


#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chaindata_mirror.h"
#include "chaindata_signal.h"


#define CHAINDATA_FEED_BACKOFF      1.0
/* the feeds' state records are stored at most this often (and on change) */
#define CHAINDATA_FEEDS_STORE       5.0

enum {
    CHAINDATA_MFEED_STACKS = 0,
    CHAINDATA_MFEED_MEMPOOL,
    CHAINDATA_MFEED_RUNES,
    CHAINDATA_MFEED_CHAINHOOKS
};


void
chaindata_feeds_init(chaindata_mirror_t *m)
{
    static const char  *names[CHAINDATA_MIRROR_FEEDS] = {
        "stacks", "mempool", "runes", "chainhooks"
    };
    size_t              i;
    int                 on[CHAINDATA_MIRROR_FEEDS];

    on[CHAINDATA_MFEED_STACKS] = m->stacks_api != NULL;
    on[CHAINDATA_MFEED_MEMPOOL] = m->stacks_api != NULL && !m->no_mempool;
    on[CHAINDATA_MFEED_RUNES] = m->runes_api != NULL;
    on[CHAINDATA_MFEED_CHAINHOOKS] = m->platform_api != NULL;

    for (i = 0; i < CHAINDATA_MIRROR_FEEDS; i++) {
        m->feeds[i].name = names[i];
        m->feeds[i].state = on[i] ? CHAINDATA_FEEDSTATE_FOLLOWING
                                  : CHAINDATA_FEEDSTATE_NONE;
    }
}


static int
chaindata_feed_poll(chaindata_mirror_t *m, size_t i, int *caught_up)
{
    *caught_up = 1;

    switch (i) {

    case CHAINDATA_MFEED_STACKS:
        return chaindata_stacks_poll(m, caught_up);

    case CHAINDATA_MFEED_MEMPOOL:
        return chaindata_mempool_poll(m);

    case CHAINDATA_MFEED_RUNES:
        return chaindata_runes_poll(m, caught_up);

    default:
        return chaindata_chainhooks_poll(m);
    }
}


/* the mempool follows the Stacks blocks: polled once they are current */

static int
chaindata_feed_ready(chaindata_mirror_t *m, size_t i)
{
    chaindata_mfeed_t  *stacks;

    if (i != CHAINDATA_MFEED_MEMPOOL) {
        return 1;
    }

    stacks = &m->feeds[CHAINDATA_MFEED_STACKS];

    return stacks->state == CHAINDATA_FEEDSTATE_FOLLOWING && stacks->caught_up;
}


/*
 * The longest wait after a failure, a request's retry or a feed's
 * backoff (a 429's Retry-After aside: upstream's own, up to --max-wait):
 * a poll interval, at least CHAINDATA_FEED_BACKOFF, at most --max-wait.
 * A feed asks upstream once an interval when all is well, so a longer
 * wait spares upstream nothing and only delays the feed when upstream
 * answers again after an outage.
 */

double
chaindata_feeds_wait_max(chaindata_mirror_t *m)
{
    double  wait;

    wait = m->interval > CHAINDATA_FEED_BACKOFF ? m->interval
                                                : CHAINDATA_FEED_BACKOFF;

    return wait < m->http.max_wait ? wait : m->http.max_wait;
}


static void
chaindata_feed_failed(chaindata_mirror_t *m, chaindata_mfeed_t *f,
    int rc)
{
    f->why = rc == CHAINDATA_MIRROR_REFUSED ? CHAINDATA_FEEDWHY_ANOTHER_CHAIN
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

    f->backoff = f->failures == 1 ? CHAINDATA_FEED_BACKOFF
                                  : f->backoff * 2;

    if (f->backoff > chaindata_feeds_wait_max(m)) {
        f->backoff = chaindata_feeds_wait_max(m);
    }

    f->state = CHAINDATA_FEEDSTATE_BACKING_OFF;
    f->next = chaindata_now() + f->backoff;

    chaindata_mirror_log(m, "warn", "feed %s failed (see above), %u in a "
                         "row: backing off %g s", f->name, f->failures,
                         f->backoff);
}


static void
chaindata_feed_succeeded(chaindata_mirror_t *m, chaindata_mfeed_t *f,
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


/*
 * What a poll cost, from the mirror's totals before (done 0) and after
 * (done 1) it: the feeds are polled one at a time, so the difference is
 * the feed's.
 */

static void
chaindata_feed_count(chaindata_mirror_t *m, chaindata_mfeed_t *f, int done)
{
    static chaindata_feedstate_t  before;

    chaindata_feedstate_t  now;

    now.requests = m->http.requests;
    now.retries = m->http.retried;
    now.throttled = m->http.throttled;
    now.refused = m->http.refused;
    now.skipped = m->hooks_skipped;
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
chaindata_feeds_saw_tip(chaindata_mirror_t *m, const char *source,
    uint64_t height, uint64_t block_time)
{
    size_t  i;

    for (i = 0; i < CHAINDATA_MIRROR_FEEDS; i++) {
        if (strcmp(m->feeds[i].name, source) == 0) {
            m->feeds[i].has_tip = 1;
            m->feeds[i].tip.height = height;
            m->feeds[i].tip.time = block_time;
            m->feeds[i].tip.polled = (uint64_t) time(NULL);
        }
    }
}


/* a feed's "state:" record, and its "tip:" one when a poll saw the tip */

static int
chaindata_feed_store(chaindata_writeset_t *ws, chaindata_mfeed_t *f)
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
 * their own at most every CHAINDATA_FEEDS_STORE seconds (at once when a
 * state changed): never one a request.  Local to this index: never
 * published (a follower keeps its own).
 */

static void
chaindata_feeds_store(chaindata_mirror_t *m, int changed)
{
    int                   rc;
    size_t                i;
    double                now;
    chaindata_writeset_t  ws;

    now = chaindata_now();

    if (!changed && now - m->feeds_stored < CHAINDATA_FEEDS_STORE) {
        return;
    }

    m->feeds_stored = now;
    memset(&ws, 0, sizeof(ws));
    rc = 0;

    for (i = 0; rc == 0 && i < CHAINDATA_MIRROR_FEEDS; i++) {
        if (m->feeds[i].state != CHAINDATA_FEEDSTATE_NONE) {
            rc = chaindata_feed_store(&ws, &m->feeds[i]);
        }
    }

    rc = rc == 0 ? chaindata_index_commit(&m->in.ix, &ws) : ENOMEM;
    chaindata_writeset_free(&ws);

    if (rc != 0) {
        chaindata_mirror_log(m, "warn", "the feeds' state was not stored: "
                             "%s", mdb_strerror(rc));
    }
}


/* until then, or until a signal: its pipe wakes the wait */

static void
chaindata_feeds_sleep(double until)
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
chaindata_feeds_mempool_follows(chaindata_mirror_t *m)
{
    chaindata_mfeed_t  *stacks, *mempool;

    stacks = &m->feeds[CHAINDATA_MFEED_STACKS];
    mempool = &m->feeds[CHAINDATA_MFEED_MEMPOOL];

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
chaindata_feeds_pass(chaindata_mirror_t *m, int *busy, double *wake)
{
    int                 rc, done;
    size_t              i;
    double              now;
    chaindata_mfeed_t  *f;

    *busy = 0;

    for (i = 0; i < CHAINDATA_MIRROR_FEEDS; i++) {
        f = &m->feeds[i];
        now = chaindata_now();

        /* looked at before each feed: a pass may poll none */
        if (chaindata_mirror_stop) {
            return CHAINDATA_MIRROR_STOPPED;
        }

        if (f->state == CHAINDATA_FEEDSTATE_NONE
            || f->state == CHAINDATA_FEEDSTATE_STOPPED
            || !chaindata_feed_ready(m, i))
        {
            continue;
        }

        if (f->state == CHAINDATA_FEEDSTATE_BACKING_OFF && now < f->next) {
            *wake = f->next < *wake ? f->next : *wake;
            continue;
        }

        chaindata_feed_count(m, f, 0);
        rc = chaindata_feed_poll(m, i, &done);
        chaindata_feed_count(m, f, 1);

        if (rc == CHAINDATA_MIRROR_STOPPED || chaindata_mirror_stop) {
            return CHAINDATA_MIRROR_STOPPED;
        }

        if (rc == CHAINDATA_EXIT_SYSTEM) {
            return rc;
        }

        if (rc != CHAINDATA_EXIT_OK) {
            chaindata_feed_failed(m, f, rc);

            if (f->state == CHAINDATA_FEEDSTATE_BACKING_OFF) {
                *wake = f->next < *wake ? f->next : *wake;
            }

            continue;
        }

        chaindata_feed_succeeded(m, f, done);
        *busy |= !done;
    }

    chaindata_feeds_mempool_follows(m);

    return chaindata_mirror_stop ? CHAINDATA_MIRROR_STOPPED
                                 : CHAINDATA_EXIT_OK;
}


/* the mirror ends: every feed still on is stored stopped, and why */

static void
chaindata_feeds_end(chaindata_mirror_t *m, chaindata_feedwhy_e why)
{
    size_t              i;
    chaindata_mfeed_t  *f;

    for (i = 0; i < CHAINDATA_MIRROR_FEEDS; i++) {
        f = &m->feeds[i];

        if (f->state != CHAINDATA_FEEDSTATE_NONE
            && f->state != CHAINDATA_FEEDSTATE_STOPPED)
        {
            f->state = CHAINDATA_FEEDSTATE_STOPPED;
            f->why = why;
        }
    }

    chaindata_feeds_store(m, 1);
}


/* the feeds still on, and whether any of them was given up */

static size_t
chaindata_feeds_live(chaindata_mirror_t *m, int *given_up)
{
    size_t  i, live;

    *given_up = 0;

    for (i = 0, live = 0; i < CHAINDATA_MIRROR_FEEDS; i++) {
        if (m->feeds[i].state == CHAINDATA_FEEDSTATE_STOPPED) {
            *given_up = 1;

        } else if (m->feeds[i].state != CHAINDATA_FEEDSTATE_NONE) {
            live++;
        }
    }

    return live;
}


int
chaindata_feeds_run(chaindata_mirror_t *m)
{
    int                     rc, busy, given_up, changed, last;
    size_t                  i, live;
    double                  wake;
    chaindata_feedstate_e   was[CHAINDATA_MIRROR_FEEDS];

    for ( ;; ) {
        wake = chaindata_now() + m->interval;

        for (i = 0; i < CHAINDATA_MIRROR_FEEDS; i++) {
            was[i] = m->feeds[i].state;
        }

        rc = chaindata_feeds_pass(m, &busy, &wake);

        if (rc == CHAINDATA_EXIT_SYSTEM) {
            chaindata_feeds_end(m, CHAINDATA_FEEDWHY_ERROR);
            return rc;
        }

        if (rc == CHAINDATA_MIRROR_STOPPED) {
            chaindata_feeds_end(m, CHAINDATA_FEEDWHY_SIGNAL);
            chaindata_mirror_log(m, "info", "stopped by a signal");
            return CHAINDATA_EXIT_OK;
        }

        live = chaindata_feeds_live(m, &given_up);

        for (i = 0, changed = 0; i < CHAINDATA_MIRROR_FEEDS; i++) {
            changed |= was[i] != m->feeds[i].state;
        }

        last = live == 0 || (m->once && !busy);

        chaindata_feeds_store(m, changed || last);

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
        chaindata_feeds_sleep(wake);
    }
}


/* a disagreement deeper than a feed's maximum: its feed stops */

int
chaindata_feeds_too_deep(chaindata_mirror_t *m, const char *source,
    uint64_t height, uint64_t max)
{
    chaindata_mirror_log(m, "error", "%s: upstream disagrees with the index "
                         "below %llu blocks under %llu: is it the same "
                         "chain?  Nothing was rolled back; the feed stops "
                         "(--%smax-reorg-depth)", source,
                         (unsigned long long) max, (unsigned long long) height,
                         strcmp(source, "runes") == 0 ? "runes-" : "");

    return CHAINDATA_MIRROR_REFUSED;
}
