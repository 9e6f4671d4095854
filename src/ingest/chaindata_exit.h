
/*
 * chaindata: the exit status of chaindata-load (a file load, --bulk,
 * --nats) and chaindata-mirror, one list for both; the stream follower
 * (chaindata_stream_follow.c) returns them too.
 */


#ifndef _CHAINDATA_EXIT_H_INCLUDED_
#define _CHAINDATA_EXIT_H_INCLUDED_


#define CHAINDATA_EXIT_OK       0    /* done, or stopped by a signal */

/*
 * input refused: a batch or a block of the loader's input, a gap in the
 * stream or a unit of it; the mirror's upstream answered wrongly, or with
 * a 4xx, persistently
 */
#define CHAINDATA_EXIT_INPUT    1

#define CHAINDATA_EXIT_USAGE    2
#define CHAINDATA_EXIT_SYSTEM   3    /* the index, memory, the system */


#endif /* _CHAINDATA_EXIT_H_INCLUDED_ */
