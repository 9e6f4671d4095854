
/*
 * chaindata-mirror: the mempool follower's state
 * (chaindata_mirror_mempool.c).
 */


#ifndef _CHAINDATA_MIRROR_MEMPOOL_H_INCLUDED_
#define _CHAINDATA_MIRROR_MEMPOOL_H_INCLUDED_


#include "chaindata_mirror_log.h"


/* the pending transactions the index holds (32-byte ids, sorted) */
typedef struct {
    unsigned char       *ids;
    size_t               n;
    int                  read;
} chaindata_pending_t;


void chaindata_mempool_free(chaindata_mirror_t *m);


#endif /* _CHAINDATA_MIRROR_MEMPOOL_H_INCLUDED_ */
