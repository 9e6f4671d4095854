
/*
 * chaindata-load: the NATS follower (chaindata_load_nats.c).
 */


#ifndef _CHAINDATA_LOAD_NATS_H_INCLUDED_
#define _CHAINDATA_LOAD_NATS_H_INCLUDED_


#include "chaindata_ingest.h"
#include "chaindata_nats.h"


/* follows the stream into in's index: a CHAINDATA_EXIT_ status */
int chaindata_load_nats(chaindata_nats_t *nats, chaindata_ingest_t *in,
    int once);


#endif /* _CHAINDATA_LOAD_NATS_H_INCLUDED_ */
