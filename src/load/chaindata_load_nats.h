
/*
 * chaindata-load: the NATS follower (chaindata_load_nats.c).
 */


#ifndef _CHAINDATA_LOAD_NATS_H_INCLUDED_
#define _CHAINDATA_LOAD_NATS_H_INCLUDED_


#include "chaindata_feed.h"
#include "chaindata_index.h"
#include "chaindata_nats.h"
#include "chaindata_record.h"


/* follows the stream: an exit status (0, 1 a gap or a refused unit, 3) */
int chaindata_load_nats(chaindata_nats_t *nats, chaindata_index_t *ix,
    chaindata_feed_t *feed, chaindata_record_t *rec,
    chaindata_writeset_t *ws, int once);


#endif /* _CHAINDATA_LOAD_NATS_H_INCLUDED_ */
