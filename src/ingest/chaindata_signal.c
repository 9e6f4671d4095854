
/*
 * chaindata: SIGINT and SIGTERM set a flag and wake whoever waits
 * (chaindata_signal.h).
 */


#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "chaindata_signal.h"


static volatile int  *chaindata_signal_flag;
static int            chaindata_signal_pipe[2] = { -1, -1 };


static void
chaindata_signal_handler(int signo)
{
    int  saved;

    saved = errno;
    *chaindata_signal_flag = 1;

    /* write(2) is async-signal-safe; a full pipe is awake already */
    if (chaindata_signal_pipe[1] != -1) {
        (void) !write(chaindata_signal_pipe[1], "", 1);
    }

    errno = saved;
}


/* the wake-up pipe, both ends non-blocking and closed on exec */

static void
chaindata_signal_pipe_open(void)
{
    int  i, fl;

    if (pipe(chaindata_signal_pipe) != 0) {
        chaindata_signal_pipe[0] = -1;
        chaindata_signal_pipe[1] = -1;
        return;
    }

    for (i = 0; i < 2; i++) {
        fl = fcntl(chaindata_signal_pipe[i], F_GETFL);
        (void) fcntl(chaindata_signal_pipe[i], F_SETFL, fl | O_NONBLOCK);
        (void) fcntl(chaindata_signal_pipe[i], F_SETFD, FD_CLOEXEC);
    }
}


void
chaindata_signal_stop(volatile int *flag)
{
    struct sigaction  sa;

    chaindata_signal_flag = flag;

    if (chaindata_signal_pipe[0] == -1) {
        chaindata_signal_pipe_open();
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = chaindata_signal_handler;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}


int
chaindata_signal_fd(void)
{
    return chaindata_signal_pipe[0];
}
