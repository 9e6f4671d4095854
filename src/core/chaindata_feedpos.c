
/*
 * chaindata: the values of "feed" records, a source's position and a
 * fan-out stream's (lmdb-schema/feed.md).
 */


#include <string.h>

#include "chaindata_int.h"
#include "chaindata_layout.h"


/* out holds CHAINDATA_FEED_SIZE + pos->hash_len bytes */

void
chaindata_feedpos_encode(unsigned char *out, const chaindata_feedpos_t *pos)
{
    memset(out, 0, CHAINDATA_FEED_SIZE);

    out[0] = CHAINDATA_FEED_FORMAT;
    out[2] = (unsigned char) pos->hash_len;
    chaindata_put_u64le(out + 8, pos->height);
    chaindata_put_u64le(out + 16, pos->time);
    chaindata_put_u64le(out + 24, pos->committed);
    memcpy(out + CHAINDATA_FEED_SIZE, pos->hash, pos->hash_len);
}


int
chaindata_feedpos_decode(chaindata_feedpos_t *pos, const unsigned char *v,
    size_t len)
{
    size_t  hash_len;

    if (len < CHAINDATA_FEED_SIZE || v[0] != CHAINDATA_FEED_FORMAT) {
        return -1;
    }

    hash_len = v[2] | (size_t) v[3] << 8;

    if (hash_len > CHAINDATA_FEED_HASH_MAX
        || len != CHAINDATA_FEED_SIZE + hash_len)
    {
        return -1;
    }

    pos->height = chaindata_get_u64le(v + 8);
    pos->time = chaindata_get_u64le(v + 16);
    pos->committed = chaindata_get_u64le(v + 24);
    pos->hash = v + CHAINDATA_FEED_SIZE;
    pos->hash_len = hash_len;

    return 0;
}


/*
 * A stream's sequence: its position (CHAINDATA_STREAM_FORMAT) or the
 * publisher's last as seen (CHAINDATA_STREAMTIP_FORMAT), one layout.
 */

void
chaindata_streamseq_encode(unsigned char *out, unsigned format,
    uint64_t seq)
{
    memset(out, 0, CHAINDATA_STREAM_SIZE);

    out[0] = (unsigned char) format;
    chaindata_put_u64le(out + 8, seq);
}


int
chaindata_streamseq_decode(uint64_t *seq, unsigned format,
    const unsigned char *v, size_t len)
{
    if (len != CHAINDATA_STREAM_SIZE || v[0] != format) {
        return -1;
    }

    *seq = chaindata_get_u64le(v + 8);

    return 0;
}


void
chaindata_streamseq_put_id(unsigned char *v, uint64_t id)
{
    int  i;

    for (i = 0; i < 7; i++) {
        v[1 + i] = (unsigned char) (id >> (8 * i));
    }
}


uint64_t
chaindata_streamseq_id(const unsigned char *v)
{
    int       i;
    uint64_t  id;

    id = 0;

    for (i = 6; i >= 0; i--) {
        id = id << 8 | v[1 + i];
    }

    return id;
}
