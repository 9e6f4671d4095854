
/*
 * The estimate of when a catch-up ends (chaindata_eta.h).  Samples are
 * kept at least window / (CHAINDATA_ETA_SAMPLES / 2) seconds apart (a
 * sample sooner replaces the newest), and dropped once older than the
 * window, but for the one just before it, the window's start.
 */


#include <string.h>

#include "chaindata_eta.h"


/* seconds the samples must span for a pace to be told */
#define CHAINDATA_ETA_MIN_SPAN  1.0


void
chaindata_eta_init(chaindata_eta_t *e, double window)
{
    memset(e, 0, sizeof(*e));
    e->window = window;
}


static void
chaindata_eta_drop(chaindata_eta_t *e, size_t k)
{
    memmove(e->t, e->t + k, (e->n - k) * sizeof(e->t[0]));
    memmove(e->pos, e->pos + k, (e->n - k) * sizeof(e->pos[0]));
    memmove(e->tip, e->tip + k, (e->n - k) * sizeof(e->tip[0]));
    e->n -= k;
}


void
chaindata_eta_sample(chaindata_eta_t *e, double now, uint64_t pos,
    uint64_t tip)
{
    size_t  k;

    /* the position went back (a rollback): the pace starts again */
    if (e->n && pos < e->pos[e->n - 1]) {
        e->n = 0;
    }

    if (e->n > 1
        && now - e->t[e->n - 2] < e->window / (CHAINDATA_ETA_SAMPLES / 2))
    {
        e->n--;                 /* the newest, replaced */
    }

    if (e->n == CHAINDATA_ETA_SAMPLES) {
        chaindata_eta_drop(e, 1);
    }

    e->t[e->n] = now;
    e->pos[e->n] = pos;
    e->tip[e->n] = tip;
    e->n++;

    /* the samples before the window, but the last of them */
    for (k = 0; k + 1 < e->n && now - e->t[k + 1] >= e->window; k++) {
        /* void */
    }

    if (k) {
        chaindata_eta_drop(e, k);
    }
}


int
chaindata_eta_estimate(const chaindata_eta_t *e, chaindata_eta_est_t *est)
{
    size_t  last;
    double  span;

    memset(est, 0, sizeof(*est));

    if (e->n == 0) {
        return 0;
    }

    last = e->n - 1;
    est->left = e->tip[last] > e->pos[last] ? e->tip[last] - e->pos[last]
                                            : 0;

    if (est->left == 0) {
        return 1;               /* at the target */
    }

    span = e->t[last] - e->t[0];

    if (e->n < 2 || span < CHAINDATA_ETA_MIN_SPAN) {
        return 0;
    }

    est->rate = (double) (e->pos[last] - e->pos[0]) / span;
    est->tip_rate = e->tip[last] >= e->tip[0]
                    ? (double) (e->tip[last] - e->tip[0]) / span : 0;

    if (est->rate <= est->tip_rate) {
        return 0;               /* not gaining on the target */
    }

    est->secs = est->left / (est->rate - est->tip_rate);

    return 1;
}
