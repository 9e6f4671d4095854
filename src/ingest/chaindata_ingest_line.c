
/*
 * chaindata: applying a line of ingest to a write set (chaindata_ingest.h):
 * the feed reads it once (chaindata_feed_peek()), then a framing record
 * goes to the feed, a data record to its kind.
 */


#include <string.h>

#include "chaindata_ingest.h"


int
chaindata_ingest_init(chaindata_ingest_t *in)
{
    memset(&in->ws, 0, sizeof(in->ws));
    in->frame = CHAINDATA_FRAME_NONE;
    in->replayed = 0;
    in->err = NULL;

    if (chaindata_record_init(&in->rec) != 0
        || chaindata_feed_init(&in->feed) != 0)
    {
        chaindata_record_free(&in->rec);
        return -1;
    }

    return 0;
}


void
chaindata_ingest_free(chaindata_ingest_t *in)
{
    chaindata_index_close(&in->ix);
    chaindata_writeset_free(&in->ws);
    chaindata_feed_free(&in->feed);
    chaindata_record_free(&in->rec);
}


/* the data record peek() parsed into ws: 0, or -1 with in->err */

static int
chaindata_ingest_parse(chaindata_ingest_t *in, chaindata_writeset_t *ws)
{
    if (in->frame == -1) {
        in->err = in->feed.err;
        return -1;
    }

    if (chaindata_record_parse_root(&in->rec, in->feed.root, ws) != 0) {
        in->err = in->rec.err;
        return -1;
    }

    return 0;
}


/*
 * The line peek() parsed, to the feed or the write set: 0, or -1 with
 * in->err.  A data record inside a block is noted for the block's undo;
 * one of a replayed block is parsed all the same (the caller drops its
 * writes), so that it is checked.
 */

static int
chaindata_ingest_apply(chaindata_ingest_t *in)
{
    int  rc;

    switch (in->frame) {

    case CHAINDATA_FRAME_BLOCK:
        rc = chaindata_feed_begin(&in->feed, &in->ix, &in->ws);
        break;

    case CHAINDATA_FRAME_END:
        rc = chaindata_feed_end(&in->feed, &in->ws);

        if (rc != 0) {
            chaindata_feed_abandon(&in->feed);
        }

        break;

    case CHAINDATA_FRAME_ROLLBACK:
        rc = chaindata_feed_rollback(&in->feed, &in->ix, &in->rec, &in->ws);
        break;

    default:
        if (chaindata_ingest_parse(in, &in->ws) != 0) {
            return -1;
        }

        rc = in->replayed ? 0 : chaindata_feed_note(&in->feed);
    }

    if (rc != 0) {
        in->err = in->feed.err;
    }

    return rc;
}


int
chaindata_ingest_line(chaindata_ingest_t *in, const unsigned char *line,
    size_t len)
{
    int                        rc;
    chaindata_writeset_mark_t  mark;

    in->frame = chaindata_feed_peek(&in->feed, line, len);
    in->replayed = in->frame == CHAINDATA_FRAME_NONE && in->feed.open
                   && in->feed.skip;

    chaindata_writeset_mark(&in->ws, &mark);

    rc = chaindata_ingest_apply(in);

    if (rc != 0 || in->replayed) {
        chaindata_writeset_restore(&in->ws, &mark);
    }

    return rc;
}


int
chaindata_ingest_record(chaindata_ingest_t *in, const unsigned char *line,
    size_t len, chaindata_writeset_t *ws)
{
    in->frame = chaindata_feed_peek(&in->feed, line, len);

    if (in->frame > CHAINDATA_FRAME_NONE) {
        in->err = "a framing record (lmdb-schema/feed.md) where data "
                  "records only go";
        return -1;
    }

    return chaindata_ingest_parse(in, ws);
}
