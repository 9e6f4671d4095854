
/*
 * chaindata: progress on long work (see the header).
 */


#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chaindata_progress.h"


/* redraws on a terminal at most this often (seconds), or the interval */
#define CHAINDATA_PROGRESS_REDRAW  0.25


static double
chaindata_progress_now(void)
{
    struct timespec  ts;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);

    return ts.tv_sec + ts.tv_nsec / 1e9;
}


void
chaindata_progress_init(chaindata_progress_t *p, const char *prog,
    const char *unit, int on, double interval, uint64_t total_bytes)
{
    memset(p, 0, sizeof(chaindata_progress_t));

    p->prog = prog;
    p->unit = unit;
    p->on = on;
    p->tty = isatty(STDERR_FILENO);
    p->interval = interval > 0 ? interval : CHAINDATA_PROGRESS_INTERVAL;
    p->started = chaindata_progress_now();
    p->last = p->started;
    p->total_bytes = total_bytes;
}


uint64_t
chaindata_progress_input_size(int nfiles, char **files)
{
    int          i, rc;
    uint64_t     total;
    struct stat  st;

    total = 0;

    for (i = 0; i < (nfiles ? nfiles : 1); i++) {
        rc = nfiles == 0 || strcmp(files[i], "-") == 0
             ? fstat(STDIN_FILENO, &st) : stat(files[i], &st);

        if (rc != 0 || !S_ISREG(st.st_mode)) {
            return 0;
        }

        total += (uint64_t) st.st_size;
    }

    return total;
}


/* "1:02:03" or "2:03" */

static void
chaindata_progress_hms(char *buf, size_t size, double secs)
{
    unsigned long  s;

    s = secs > 0 ? (unsigned long) (secs + 0.5) : 0;

    if (s >= 3600) {
        snprintf(buf, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);

    } else {
        snprintf(buf, size, "%lu:%02lu", s / 60, s % 60);
    }
}


/* seconds left by the bytes read of the total; < 0: not known */

static double
chaindata_progress_eta(const chaindata_progress_t *p, double secs)
{
    if (p->total_bytes == 0 || p->bytes == 0 || p->bytes > p->total_bytes) {
        return -1;
    }

    return secs * (double) (p->total_bytes - p->bytes) / (double) p->bytes;
}


static void
chaindata_progress_draw(chaindata_progress_t *p, double now, int final)
{
    char    eta[32], el[32];
    double  secs, rate, left;

    secs = now - p->started > 0.001 ? now - p->started : 0.001;
    rate = p->done / secs;
    left = final ? -1 : chaindata_progress_eta(p, secs);

    chaindata_progress_hms(el, sizeof(el), secs);

    if (left >= 0) {
        chaindata_progress_hms(eta, sizeof(eta), left);

    } else {
        snprintf(eta, sizeof(eta), "?");
    }

    p->lines++;

    if (p->tty) {
        fprintf(stderr, "\r\033[K%s: %llu %s, %.0f %s/s", p->prog,
                (unsigned long long) p->done, p->unit, rate, p->unit);

        if (p->total_bytes) {
            fprintf(stderr, ", %.1f of %.1f MB (%.0f%%)", p->bytes / 1e6,
                    p->total_bytes / 1e6,
                    100.0 * (double) p->bytes / (double) p->total_bytes);
        }

        if (final) {
            fprintf(stderr, ", done in %s\n", el);

        } else {
            fprintf(stderr, ", ETA %s", eta);
        }

        fflush(stderr);
        return;
    }

    fprintf(stderr, "%s: level=info msg=%s %s=%llu %s_per_s=%.0f "
            "bytes=%llu", p->prog, final ? "done" : "progress", p->unit,
            (unsigned long long) p->done, p->unit, rate,
            (unsigned long long) p->bytes);

    if (p->total_bytes) {
        fprintf(stderr, " total_bytes=%llu",
                (unsigned long long) p->total_bytes);
    }

    if (left >= 0) {
        fprintf(stderr, " eta_s=%.0f", left);
    }

    fprintf(stderr, " elapsed_s=%.0f\n", secs);
}


void
chaindata_progress_add(chaindata_progress_t *p, uint64_t done,
    uint64_t bytes)
{
    double  now;

    p->done += done;
    p->bytes += bytes;

    p->ticks += done ? done : 1;

    if (p->ticks < CHAINDATA_PROGRESS_TICK || !p->on) {
        return;
    }

    p->ticks = 0;
    now = chaindata_progress_now();

    if (now - p->last < (p->tty && p->interval > CHAINDATA_PROGRESS_REDRAW
                         ? CHAINDATA_PROGRESS_REDRAW : p->interval))
    {
        return;
    }

    p->last = now;
    chaindata_progress_draw(p, now, 0);
}


/*
 * A terminal's line ends with the totals; a log gets a last line when it
 * got one before (a short run says nothing but its summary).
 */

void
chaindata_progress_done(chaindata_progress_t *p)
{
    if (!p->on || (!p->tty && p->lines == 0)) {
        return;
    }

    chaindata_progress_draw(p, chaindata_progress_now(), 1);
}
