
/*
 * chaindata: how the loader's follower and the mirror stop: SIGINT and
 * SIGTERM set a flag they look at between two steps (a unit, a block, a
 * request); SIGPIPE is ignored (a peer gone fails the write instead).
 * The handler also writes a byte to a pipe whose read end,
 * chaindata_signal_fd(), a wait polls beside what it waits for, so that
 * no wait outlasts the signal (-1 when the pipe could not be made: the
 * waits then end on their timeouts, the flag looked at after each).
 */


#ifndef _CHAINDATA_SIGNAL_H_INCLUDED_
#define _CHAINDATA_SIGNAL_H_INCLUDED_


void chaindata_signal_stop(volatile int *flag);
int chaindata_signal_fd(void);


#endif /* _CHAINDATA_SIGNAL_H_INCLUDED_ */
