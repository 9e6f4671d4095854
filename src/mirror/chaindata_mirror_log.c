
/*
 * chaindata-mirror: its messages on standard error, structured lines
 * (level=... msg="..."), and its progress: a line rewritten in place on
 * a terminal, a structured line every 30 s otherwise.
 */


#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "chaindata_mirror.h"


#define CHAINDATA_REPORT_TTY   3.0     /* seconds between progress lines */
#define CHAINDATA_REPORT_LOG   30.0


/* set by SIGINT or SIGTERM (main): every loop and wait of the mirror ends */
volatile int  chaindata_mirror_stop;


double
chaindata_now(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return ts.tv_sec + ts.tv_nsec / 1e9;
}


/* structured lines: level=… then the message; never a header's value */

void
chaindata_mirror_log(chaindata_mirror_t *m, const char *level,
    const char *fmt, ...)
{
    va_list  args;

    if (m->tty) {
        fputs("\r\033[K", stderr);
    }

    fprintf(stderr, "chaindata-mirror: level=%s msg=\"", level);

    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);

    fputs("\"\n", stderr);
}


/*
 * Upstream's tip of the feed last mirrored, as its poll last read it (a
 * claim: status and metrics show the verified one, which lags a pass),
 * never below the height just committed: 0, 1
 */

static int
chaindata_mirror_target(chaindata_mirror_t *m, uint64_t *tip)
{
    size_t                       i;
    const chaindata_follower_t  *f;

    for (i = 0; i < CHAINDATA_MIRROR_FOLLOWERS; i++) {
        f = &m->follow.followers[i];

        if (f->has_claim && f->name && strcmp(f->name, m->source) == 0) {
            *tip = f->claim.height > m->height ? f->claim.height : m->height;
            return 1;
        }
    }

    return 0;
}


/* the pace over the last minute: the ETA (chaindata_eta.h) */
#define CHAINDATA_ETA_WINDOW   60.0


/*
 * The estimate, fed a sample at each call (a block committed, a pass):
 * 1 known (*eta seconds), 0 unknown; *left the blocks to go.
 */

static int
chaindata_mirror_eta(chaindata_mirror_t *m, double now, int has_tip,
    uint64_t tip, uint64_t *left, double *eta)
{
    chaindata_eta_est_t  est;

    if (strcmp(m->eta_source, m->source) != 0) {
        chaindata_eta_init(&m->eta, CHAINDATA_ETA_WINDOW);
        strcpy(m->eta_source, m->source);
    }

    *left = has_tip && tip > m->height ? tip - m->height : 0;
    *eta = 0;

    if (!has_tip) {
        return 0;
    }

    chaindata_eta_sample(&m->eta, now, m->height, tip);

    if (!chaindata_eta_estimate(&m->eta, &est)) {
        return 0;
    }

    *eta = est.secs;

    return 1;
}


/*
 * The progress of this run: the feed last mirrored, its height and
 * upstream's tip, blocks to go and when they will be done at the pace of
 * the last minute, the tip's own pace taken off ("unknown" while it
 * cannot be told: too early, or not gaining on the tip); a run that
 * mirrored nothing yet says so (no block, no lag).
 */

void
chaindata_mirror_progress(chaindata_mirror_t *m, int force)
{
    int       has_tip, known;
    double    now, secs, rate, eta;
    uint64_t  wall, lag, tip, left;

    now = chaindata_now();
    tip = 0;
    left = 0;
    eta = 0;
    has_tip = m->source[0] && chaindata_mirror_target(m, &tip);
    known = m->source[0] ? chaindata_mirror_eta(m, now, has_tip, tip, &left,
                                                &eta)
                         : 0;

    if (!force && now - m->last_report
                  < (m->tty ? CHAINDATA_REPORT_TTY : CHAINDATA_REPORT_LOG))
    {
        return;
    }

    m->last_report = now;

    if (m->source[0] == '\0') {
        if (m->tty) {
            fprintf(stderr, "\r\033[Kno new block yet, %llu requests",
                    (unsigned long long) m->http.requests);
            return;
        }

        fprintf(stderr, "chaindata-mirror: level=info msg=\"no new block "
                "this run\" requests=%llu retries=%llu\n",
                (unsigned long long) m->http.requests,
                (unsigned long long) m->http.retried);
        return;
    }

    secs = now - m->started > 0.001 ? now - m->started : 0.001;
    rate = m->blocks / secs;
    wall = (uint64_t) time(NULL);
    lag = wall > m->block_time ? wall - m->block_time : 0;

    if (m->tty) {
        fprintf(stderr, "\r\033[K%s height %llu", m->source,
                (unsigned long long) m->height);

        if (has_tip) {
            fprintf(stderr, " of %llu, %llu to go", (unsigned long long) tip,
                    (unsigned long long) left);
        }

        fprintf(stderr, ", %.1f blocks/s, %.1f tx/s", rate, m->txs / secs);

        if (left && known) {
            fprintf(stderr, ", ETA %.0fs", eta);

        } else if (left) {
            fprintf(stderr, ", ETA unknown");
        }

        fprintf(stderr, ", block lag %llus", (unsigned long long) lag);
        return;
    }

    fprintf(stderr, "chaindata-mirror: level=info source=%s height=%llu ",
            m->source, (unsigned long long) m->height);

    if (has_tip && known) {
        fprintf(stderr, "tip=%llu behind=%llu eta_s=%.0f ",
                (unsigned long long) tip, (unsigned long long) left, eta);

    } else if (has_tip) {
        fprintf(stderr, "tip=%llu behind=%llu eta_s=unknown ",
                (unsigned long long) tip, (unsigned long long) left);
    }

    fprintf(stderr, "blocks=%llu txs=%llu blocks_per_s=%.1f "
            "txs_per_s=%.1f requests=%llu retries=%llu in_flight_max=%u "
            "lag=%llu\n",
            (unsigned long long) m->blocks, (unsigned long long) m->txs,
            rate, m->txs / secs, (unsigned long long) m->http.requests,
            (unsigned long long) m->http.retried, m->http.most,
            (unsigned long long) lag);
}
