
/*
 * The estimate of when a catch-up ends: the pace over a recent window
 * (never since the start, wrong after a pause or when blocks change
 * size), the target's own movement taken off it, and said unknown when
 * it cannot be told.  Fed samples (time, position, target); nginx-free.
 */


#ifndef _CHAINDATA_ETA_H_INCLUDED_
#define _CHAINDATA_ETA_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


#define CHAINDATA_ETA_SAMPLES  32

typedef struct {
    double      window;      /* seconds the pace is taken over */
    size_t      n;           /* samples held, the oldest first */
    double      t[CHAINDATA_ETA_SAMPLES];
    uint64_t    pos[CHAINDATA_ETA_SAMPLES];
    uint64_t    tip[CHAINDATA_ETA_SAMPLES];
} chaindata_eta_t;

typedef struct {
    uint64_t    left;        /* tip - position */
    double      rate;        /* positions a second, over the window */
    double      tip_rate;    /* the target's own, over the window */
    double      secs;        /* the estimate, when known */
} chaindata_eta_est_t;


void chaindata_eta_init(chaindata_eta_t *e, double window);
/* a sample: at time now (seconds), the position and the target */
void chaindata_eta_sample(chaindata_eta_t *e, double now, uint64_t pos,
    uint64_t tip);
/*
 * 1 known (est->secs; 0 when at the target), 0 unknown: too few samples
 * or too short a window yet, or not gaining on the target (est->rate and
 * ->tip_rate say why)
 */
int chaindata_eta_estimate(const chaindata_eta_t *e, chaindata_eta_est_t *est);


#endif /* _CHAINDATA_ETA_H_INCLUDED_ */
