
/*
 * chaindata-mirror: its messages on standard error, structured lines
 * (level=... msg="..."), and its progress: a line rewritten in place on
 * a terminal, a structured line every 30 s otherwise.
 */


#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "chaindata_mirror.h"


#define CHAINDATA_REPORT_TTY   3.0     /* seconds between progress lines */
#define CHAINDATA_REPORT_LOG   30.0


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


void
chaindata_mirror_progress(chaindata_mirror_t *m, int force)
{
    double    now, secs;
    uint64_t  wall, lag;

    now = chaindata_now();

    if (!force && now - m->last_report
                  < (m->tty ? CHAINDATA_REPORT_TTY : CHAINDATA_REPORT_LOG))
    {
        return;
    }

    m->last_report = now;
    secs = now - m->started > 0.001 ? now - m->started : 0.001;
    wall = (uint64_t) time(NULL);
    lag = wall > m->block_time ? wall - m->block_time : 0;

    if (m->tty) {
        fprintf(stderr, "\r\033[K%s height %llu, %.1f blocks/s, %.1f tx/s, "
                "lag %llus", m->source, (unsigned long long) m->height,
                m->blocks / secs, m->txs / secs, (unsigned long long) lag);
        return;
    }

    fprintf(stderr, "chaindata-mirror: level=info source=%s height=%llu "
            "blocks=%llu txs=%llu blocks_per_s=%.1f txs_per_s=%.1f "
            "requests=%llu retries=%llu lag=%llu\n", m->source,
            (unsigned long long) m->height, (unsigned long long) m->blocks,
            (unsigned long long) m->txs, m->blocks / secs, m->txs / secs,
            (unsigned long long) m->http.requests,
            (unsigned long long) m->http.retried, (unsigned long long) lag);
}
