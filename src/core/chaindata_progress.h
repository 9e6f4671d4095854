
/*
 * chaindata: progress on long work (doc/loader.md "Progress"): on a terminal
 * (standard error), one line redrawn in place, with what is done, the
 * rate, the target where it is known and the time left; otherwise a
 * logfmt line every interval seconds (30 by default).  The caller adds
 * what it did; the clock is read at most every CHAINDATA_PROGRESS_TICK
 * records, so adding is cheap.
 */


#ifndef _CHAINDATA_PROGRESS_H_INCLUDED_
#define _CHAINDATA_PROGRESS_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


/* seconds between logfmt lines when standard error is no terminal */
#define CHAINDATA_PROGRESS_INTERVAL  30

#define CHAINDATA_PROGRESS_TICK      256


typedef struct {
    const char  *prog;           /* "chaindata-load" */
    const char  *unit;           /* "records" */
    int          on;             /* 0: says nothing (--quiet) */
    int          tty;            /* standard error is a terminal */
    double       interval;       /* seconds between lines */
    double       started;
    double       last;           /* the last line's time */
    unsigned     ticks;
    unsigned     lines;          /* lines written */
    uint64_t     done;           /* units done */
    uint64_t     bytes;          /* input read */
    uint64_t     total_bytes;    /* the input's size; 0: not known */
} chaindata_progress_t;


/*
 * interval: seconds between logfmt lines, 0 for CHAINDATA_PROGRESS_INTERVAL;
 * total_bytes: the input's size, 0 when it is not known
 */
void chaindata_progress_init(chaindata_progress_t *p, const char *prog,
    const char *unit, int on, double interval, uint64_t total_bytes);

/* the size of the files named ("-": standard input), 0 if one is unknown */
uint64_t chaindata_progress_input_size(int nfiles, char **files);

void chaindata_progress_add(chaindata_progress_t *p, uint64_t done,
    uint64_t bytes);

/* the last line: the terminal's redrawn and ended */
void chaindata_progress_done(chaindata_progress_t *p);


#endif /* _CHAINDATA_PROGRESS_H_INCLUDED_ */
