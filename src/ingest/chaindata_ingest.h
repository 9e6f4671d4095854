
/*
 * chaindata: applying a line of ingest (lmdb-schema/README.md, framing:
 * lmdb-schema/feed.md) to a write set, the one way every writer takes:
 * the loader, the stream follower, the mirror and the bulk loader's
 * parser threads.  The caller commits the write set when it chooses
 * (chaindata_index_commit()).
 */


#ifndef _CHAINDATA_INGEST_H_INCLUDED_
#define _CHAINDATA_INGEST_H_INCLUDED_


#include <stddef.h>

#include "chaindata_feed.h"
#include "chaindata_index.h"
#include "chaindata_record.h"
#include "chaindata_writeset.h"


/* what applying lines takes: the index they go to and what fills ws */
typedef struct {
    chaindata_index_t     ix;
    chaindata_feed_t      feed;
    chaindata_record_t    rec;
    chaindata_writeset_t  ws;

    /* the last line */
    int                   frame;     /* its CHAINDATA_FRAME_, or -1 */
    unsigned              replayed:1;  /* a replayed block's record: left out */
    const char           *err;       /* why it was refused */
} chaindata_ingest_t;


/*
 * The feed, the records and the write set: 0, or -1 out of memory.  The
 * index is the caller's to set up and open (chaindata_index_open()),
 * before or after; free() closes it.
 */
int chaindata_ingest_init(chaindata_ingest_t *in);
void chaindata_ingest_free(chaindata_ingest_t *in);

/*
 * Applies one line to in->ws: a framing record to the feed, a data
 * record validated into its writes, left out inside a block committed
 * already (a replay) and noted for the block's undo.  in->frame says
 * what the line was (-1: not JSON; CHAINDATA_FRAME_NONE a data record,
 * in->rec.kind which).  0, or -1 with in->err and in->ws as it was
 * before the line (a refused block_end drops the open block too).
 */
int chaindata_ingest_line(chaindata_ingest_t *in, const unsigned char *line,
    size_t len);

/*
 * A data record alone into ws, framing refused (a --bulk load: each
 * parser thread has an ingest without an index, each batch its own write
 * set): 0, or -1 with in->err; in->frame as above.
 */
int chaindata_ingest_record(chaindata_ingest_t *in,
    const unsigned char *line, size_t len, chaindata_writeset_t *ws);


#endif /* _CHAINDATA_INGEST_H_INCLUDED_ */
