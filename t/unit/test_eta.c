
/*
 * The catch-up's estimate (src/core/chaindata_eta.c), fed samples: the
 * pace over the recent window, not since the start (a pause, blocks
 * changing size), the tip's movement taken off, unknown when it cannot
 * be told.
 */


#include <math.h>

#include "chaindata_eta.h"
#include "unit.h"


static int
near(double a, double b, double tol)
{
    return fabs(a - b) <= tol;
}


/* a new estimate over a minute, from position p0 and tip t0 */

static void
start(chaindata_eta_t *e, double *pos, double p0, double *tip, double t0)
{
    chaindata_eta_init(e, 60);
    *pos = p0;
    *tip = t0;
}


/* from t0 to t1, a sample every 0.5 s at rate a second, the tip moving */

static double
feed(chaindata_eta_t *e, double t0, double t1, double *pos, double rate,
    double *tip, double tip_rate)
{
    double  t;

    for (t = t0; t < t1; t += 0.5) {
        chaindata_eta_sample(e, t, (uint64_t) *pos, (uint64_t) *tip);
        *pos += rate * 0.5;
        *tip += tip_rate * 0.5;
    }

    return t;
}


void
test_eta(void)
{
    double               t, pos, tip;
    chaindata_eta_t      e;
    chaindata_eta_est_t  est;

    /* nothing, then one sample, then too short a span: unknown */
    chaindata_eta_init(&e, 60);
    ok(chaindata_eta_estimate(&e, &est) == 0, "eta: no sample, unknown");
    chaindata_eta_sample(&e, 100, 0, 1000);
    ok(chaindata_eta_estimate(&e, &est) == 0 && est.left == 1000,
       "eta: one sample, unknown, 1000 to go");
    chaindata_eta_sample(&e, 100.5, 5, 1000);
    ok(chaindata_eta_estimate(&e, &est) == 0, "eta: half a second, unknown");

    /* steady: 10 a second, the tip still */
    start(&e, &pos, 0, &tip, 10000);
    feed(&e, 0, 30, &pos, 10, &tip, 0);
    ok(chaindata_eta_estimate(&e, &est) == 1 && near(est.rate, 10, 0.5)
       && near(est.secs, (10000 - 300) / 10.0, 30),
       "eta: steady pace, the blocks left at that pace");
    ok(e.n <= CHAINDATA_ETA_SAMPLES, "eta: samples bounded");

    /* a pause of two minutes, then 10 a second again: after a window the
     * pace is 10 (since the start it would be about 5) */
    start(&e, &pos, 0, &tip, 100000);
    t = feed(&e, 0, 60, &pos, 10, &tip, 0);
    t = feed(&e, t, t + 120, &pos, 0, &tip, 0);
    ok(chaindata_eta_estimate(&e, &est) == 0 && est.rate == 0,
       "eta: paused a window long, unknown (no pace)");
    t = feed(&e, t, t + 70, &pos, 10, &tip, 0);
    ok(chaindata_eta_estimate(&e, &est) == 1 && near(est.rate, 10, 0.5),
       "eta: after a pause, the recent pace");

    /* blocks that grow: 100 a second, then 5 */
    start(&e, &pos, 0, &tip, 100000);
    t = feed(&e, 0, 60, &pos, 100, &tip, 0);
    ok(chaindata_eta_estimate(&e, &est) == 1 && near(est.rate, 100, 3),
       "eta: 100 a second");
    t = feed(&e, t, t + 65, &pos, 5, &tip, 0);
    ok(chaindata_eta_estimate(&e, &est) == 1 && near(est.rate, 5, 0.5)
       && near(est.secs, est.left / 5.0, est.left / 50.0),
       "eta: slower blocks, the new pace");

    /* the tip moves: 10 a second against a tip gaining 2 a second */
    start(&e, &pos, 0, &tip, 1000);
    feed(&e, 0, 40, &pos, 10, &tip, 2);
    ok(chaindata_eta_estimate(&e, &est) == 1 && near(est.tip_rate, 2, 0.3)
       && near(est.secs, est.left / 8.0, est.left / 40.0),
       "eta: the tip's movement taken off the pace");

    /* a tip faster than the mirror: never caught up, unknown */
    start(&e, &pos, 0, &tip, 1000);
    feed(&e, 0, 40, &pos, 3, &tip, 5);
    ok(chaindata_eta_estimate(&e, &est) == 0 && est.left > 0
       && est.rate < est.tip_rate, "eta: not gaining on the tip, unknown");

    /* at the tip: known, nothing left */
    chaindata_eta_sample(&e, 100, 5000, 5000);
    ok(chaindata_eta_estimate(&e, &est) == 1 && est.left == 0
       && est.secs == 0, "eta: at the tip, 0");

    /* a rollback: the position goes back, the pace starts again */
    start(&e, &pos, 1000, &tip, 5000);
    t = feed(&e, 0, 20, &pos, 10, &tip, 0);
    chaindata_eta_sample(&e, t, 900, 5000);
    ok(e.n == 1 && chaindata_eta_estimate(&e, &est) == 0,
       "eta: a rollback, the pace starts again");
}
