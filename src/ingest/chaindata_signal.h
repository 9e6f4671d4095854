
/*
 * chaindata: how the loader's follower and the mirror stop: SIGINT and
 * SIGTERM set a flag they look at between two steps (a unit, a block, a
 * request); SIGPIPE is ignored (a peer gone fails the write instead).
 */


#ifndef _CHAINDATA_SIGNAL_H_INCLUDED_
#define _CHAINDATA_SIGNAL_H_INCLUDED_


void chaindata_signal_stop(volatile int *flag);


#endif /* _CHAINDATA_SIGNAL_H_INCLUDED_ */
