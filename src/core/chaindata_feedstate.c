
/*
 * chaindata: a feed's state record (see the header): format, state, why,
 * a reserved byte, failures (u32 le), then eight u64 le: the last good
 * pass, the totals, one reserved.
 */


#include <string.h>

#include "chaindata_feedstate.h"
#include "chaindata_int.h"


#define CHAINDATA_FEEDSTATE_NAME(id, name)  name,

const char *const  chaindata_feedstate_names[CHAINDATA_FEEDSTATE_COUNT] = {
    "none",
    CHAINDATA_FEED_STATES(CHAINDATA_FEEDSTATE_NAME)
};

#undef CHAINDATA_FEEDSTATE_NAME

#define CHAINDATA_FEEDWHY_NAME(id, name)  name,

const char *const  chaindata_feedwhy_names[CHAINDATA_FEEDWHY_COUNT] = {
    "",
    CHAINDATA_FEED_WHYS(CHAINDATA_FEEDWHY_NAME)
};

#undef CHAINDATA_FEEDWHY_NAME


void
chaindata_feedstate_encode(unsigned char *out, const chaindata_feedstate_t *s)
{
    memset(out, 0, CHAINDATA_STATE_SIZE);

    out[0] = CHAINDATA_STATE_FORMAT;
    out[1] = (unsigned char) s->state;
    out[2] = (unsigned char) s->why;
    chaindata_put_u32le(out + 4, s->failures);
    chaindata_put_u64le(out + 8, s->last_ok);
    chaindata_put_u64le(out + 16, s->requests);
    chaindata_put_u64le(out + 24, s->retries);
    chaindata_put_u64le(out + 32, s->throttled);
    chaindata_put_u64le(out + 40, s->refused);
    chaindata_put_u64le(out + 48, s->skipped);
    chaindata_put_u64le(out + 56, s->unknown);
}


int
chaindata_feedstate_decode(chaindata_feedstate_t *s, const unsigned char *v,
    size_t len)
{
    if (len != CHAINDATA_STATE_SIZE || v[0] != CHAINDATA_STATE_FORMAT
        || v[1] == CHAINDATA_FEEDSTATE_NONE
        || v[1] >= CHAINDATA_FEEDSTATE_COUNT)
    {
        return -1;
    }

    s->state = (chaindata_feedstate_e) v[1];
    s->why = v[2] < CHAINDATA_FEEDWHY_COUNT ? (chaindata_feedwhy_e) v[2]
                                            : CHAINDATA_FEEDWHY_NONE;
    s->failures = chaindata_get_u32le(v + 4);
    s->last_ok = chaindata_get_u64le(v + 8);
    s->requests = chaindata_get_u64le(v + 16);
    s->retries = chaindata_get_u64le(v + 24);
    s->throttled = chaindata_get_u64le(v + 32);
    s->refused = chaindata_get_u64le(v + 40);
    s->skipped = chaindata_get_u64le(v + 48);
    s->unknown = chaindata_get_u64le(v + 56);

    return 0;
}
