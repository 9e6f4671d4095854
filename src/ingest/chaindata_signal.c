
/*
 * chaindata: SIGINT and SIGTERM set a flag (chaindata_signal.h).
 */


#include <signal.h>
#include <string.h>

#include "chaindata_signal.h"


static volatile int  *chaindata_signal_flag;


static void
chaindata_signal_handler(int signo)
{
    *chaindata_signal_flag = 1;
}


void
chaindata_signal_stop(volatile int *flag)
{
    struct sigaction  sa;

    chaindata_signal_flag = flag;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = chaindata_signal_handler;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}
