
/*
 * chaindata-mirror: the bottom room, which every other includes: the
 * program's state by name (chaindata_mirror.h has it whole), what its
 * functions return, the stop flag, its messages and progress
 * (chaindata_mirror_log.c).
 */


#ifndef _CHAINDATA_MIRROR_LOG_H_INCLUDED_
#define _CHAINDATA_MIRROR_LOG_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "chaindata_exit.h"


typedef struct chaindata_mirror_s  chaindata_mirror_t;


/*
 * What the mirror's functions return, one convention a family:
 *
 *   a poll and its steps (chaindata_*_poll(), chaindata_mirror_fetch(),
 *   chaindata_plist_fetch(), chaindata_balances_records()): a
 *   CHAINDATA_EXIT_ code, the exit status the mirror ends with (_INPUT:
 *   upstream answered wrongly), CHAINDATA_MIRROR_STOPPED when a signal
 *   stopped it, or (a poll) CHAINDATA_MIRROR_REFUSED when its upstream
 *   is another chain;
 *
 *   writing (the block writer chaindata_block_*(), the emitter
 *   chaindata_mirror_emit(), the publisher chaindata_pub_*() of
 *   src/stream) and the rest: 0, or -1 after a message (nothing is
 *   committed then);
 *
 *   the answers' checks (chaindata_req_t's check(), chaindata_req_json()):
 *   0, or -1 with the reason in the request's why, logged by
 *   chaindata_mirror_fetch() when no retry helps.
 */
#define CHAINDATA_MIRROR_STOPPED   (-1)
/* a list that changed between attempts: paged again (balances.c) */
#define CHAINDATA_MIRROR_AGAIN     (-2)
/* a poll's answer that stops its feed for good (chaindata_mirror_follow.c) */
#define CHAINDATA_MIRROR_REFUSED   (-3)


extern volatile int  chaindata_mirror_stop;


/* logging and progress lines (chaindata_mirror_log.c) */
double chaindata_now(void);
void chaindata_mirror_log(chaindata_mirror_t *m, const char *level,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 3, 4)))
#endif
    ;
void chaindata_mirror_progress(chaindata_mirror_t *m, int force);


#endif /* _CHAINDATA_MIRROR_LOG_H_INCLUDED_ */
