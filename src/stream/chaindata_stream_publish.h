
/*
 * chaindata: publishing to the fan-out stream (chaindata-mirror --nats,
 * chaindata_stream_publish.c), beside its reader (chaindata_stream.h):
 * the lines of a write transaction are one unit, published in parts
 * before the working index commits them.  It takes the connection and
 * the working index, nothing else of the program that publishes.
 */


#ifndef _CHAINDATA_STREAM_PUBLISH_H_INCLUDED_
#define _CHAINDATA_STREAM_PUBLISH_H_INCLUDED_


#include <stddef.h>

#include "chaindata_ingest.h"
#include "chaindata_nats.h"


typedef struct chaindata_pub_s  chaindata_pub_t;


/*
 * Connects to nats (its prog and stop set), creates the stream if
 * missing, and brings in's index to the stream's last whole unit, as a
 * follower would.  A CHAINDATA_EXIT_ code (stopped by a signal: _OK, as
 * the follower); *pub is set whatever it returns, for chaindata_pub_free().
 */
int chaindata_pub_start(chaindata_pub_t **pub, chaindata_nats_t *nats,
    chaindata_ingest_t *in);

/* a line of the unit being written (pub NULL: none is published): 0, -1 */
int chaindata_pub_line(chaindata_pub_t *pub, const unsigned char *line,
    size_t len);
/*
 * Publishes the unit, then appends the stream position to in's write set:
 * 0, or -1 after a message (nothing may be committed then).  pub NULL: 0.
 */
int chaindata_pub_unit(chaindata_pub_t *pub);
/* the unit dropped (the write set abandoned) */
void chaindata_pub_reset(chaindata_pub_t *pub);
/* the publisher freed, not the connection (chaindata_nats_close()) */
void chaindata_pub_free(chaindata_pub_t *pub);


#endif /* _CHAINDATA_STREAM_PUBLISH_H_INCLUDED_ */
