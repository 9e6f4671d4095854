
/*
 * chaindata-load --nats URL --stream NAME: follows the fan-out stream
 * into the index (README "Scaling out", lmdb-schema/feed.md "The
 * stream").  SIGINT and SIGTERM stop it between two units.
 */


#include <signal.h>
#include <string.h>

#include "chaindata_load_nats.h"
#include "chaindata_stream.h"


static volatile int  chaindata_load_stop;


static void
chaindata_load_signal(int signo)
{
    chaindata_load_stop = 1;
}


int
chaindata_load_nats(chaindata_nats_t *nats, chaindata_index_t *ix,
    chaindata_feed_t *feed, chaindata_record_t *rec,
    chaindata_writeset_t *ws, int once)
{
    int                  rc;
    struct sigaction     sa;
    chaindata_stream_t   s;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = chaindata_load_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    nats->prog = "chaindata-load";
    nats->stop = &chaindata_load_stop;

    if (chaindata_nats_connect(nats) != 0) {
        chaindata_nats_close(nats);
        return chaindata_load_stop ? CHAINDATA_STREAM_OK
                                   : CHAINDATA_STREAM_SYSTEM;
    }

    memset(&s, 0, sizeof(s));
    s.nats = nats;
    s.ix = ix;
    s.feed = feed;
    s.rec = rec;
    s.ws = ws;

    rc = chaindata_stream_follow(&s, once);

    chaindata_stream_free(&s);
    chaindata_nats_close(nats);

    return rc;
}
