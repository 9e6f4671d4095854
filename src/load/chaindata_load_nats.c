
/*
 * chaindata-load --nats URL --stream NAME: follows the fan-out stream
 * into the index (doc/operations.md "Scaling out", lmdb-schema/feed.md
 * "The stream").  SIGINT and SIGTERM stop it between two units.
 */


#include <string.h>
#include <unistd.h>

#include "chaindata_load_nats.h"
#include "chaindata_signal.h"
#include "chaindata_stream.h"


static volatile int  chaindata_load_stop;


int
chaindata_load_nats(chaindata_nats_t *nats, chaindata_ingest_t *in,
    int once)
{
    int                  rc, lock;
    chaindata_stream_t   s;

    chaindata_signal_stop(&chaindata_load_stop);

    nats->prog = "chaindata-load";
    nats->stop = &chaindata_load_stop;

    /* one writer of the feeds: not beside a mirror of them, nor a follower */
    lock = chaindata_index_writer_lock(in->ix.path, CHAINDATA_FEEDS_LOCK,
                                       "chaindata-load --nats");
    if (lock == -1) {
        chaindata_nats_close(nats);
        return CHAINDATA_EXIT_SYSTEM;
    }

    if (chaindata_nats_connect(nats) != 0) {
        chaindata_nats_close(nats);
        close(lock);
        return chaindata_load_stop ? CHAINDATA_EXIT_OK : CHAINDATA_EXIT_SYSTEM;
    }

    memset(&s, 0, sizeof(s));
    s.nats = nats;
    s.in = in;

    rc = chaindata_stream_follow(&s, once);

    chaindata_stream_free(&s);
    chaindata_nats_close(nats);
    close(lock);

    return rc;
}
