
/*
 * chaindata: a feed's state record (see the header): format, state, why,
 * a reserved byte, failures (u32 le), then eight u64 le: the last good
 * pass, the totals, one reserved.
 */


#include <stddef.h>
#include <string.h>

#include "chaindata_feedstate.h"
#include "chaindata_int.h"


#define CHAINDATA_FEED_NAME(id, name)  name,

const char *const  chaindata_feedstate_names[CHAINDATA_FEEDSTATE_COUNT] = {
    CHAINDATA_FEED_STATES(CHAINDATA_FEED_NAME)
};

const char *const  chaindata_feedwhy_names[CHAINDATA_FEEDWHY_COUNT] = {
    CHAINDATA_FEED_WHYS(CHAINDATA_FEED_NAME)
};

#undef CHAINDATA_FEED_NAME


/* the u64 le fields from byte 8 on, in their order: where each is held */
static const size_t  chaindata_feedstate_u64s[] = {
    offsetof(chaindata_feedstate_t, last_ok),
    offsetof(chaindata_feedstate_t, requests),
    offsetof(chaindata_feedstate_t, retries),
    offsetof(chaindata_feedstate_t, throttled),
    offsetof(chaindata_feedstate_t, refused),
    offsetof(chaindata_feedstate_t, skipped),
    offsetof(chaindata_feedstate_t, unknown)
};

#define CHAINDATA_FEEDSTATE_U64S                                           \
    (sizeof(chaindata_feedstate_u64s) / sizeof(chaindata_feedstate_u64s[0]))


void
chaindata_feedstate_encode(unsigned char *out, const chaindata_feedstate_t *s)
{
    size_t           i;
    const uint64_t  *field;

    memset(out, 0, CHAINDATA_STATE_SIZE);

    out[0] = CHAINDATA_STATE_FORMAT;
    out[1] = (unsigned char) s->state;
    out[2] = (unsigned char) s->why;
    chaindata_put_u32le(out + 4, s->failures);

    for (i = 0; i < CHAINDATA_FEEDSTATE_U64S; i++) {
        field = (const uint64_t *) ((const unsigned char *) s
                                    + chaindata_feedstate_u64s[i]);
        chaindata_put_u64le(out + 8 + 8 * i, *field);
    }
}


int
chaindata_feedstate_decode(chaindata_feedstate_t *s, const unsigned char *v,
    size_t len)
{
    size_t     i;
    uint64_t  *field;

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

    for (i = 0; i < CHAINDATA_FEEDSTATE_U64S; i++) {
        field = (uint64_t *) ((unsigned char *) s
                              + chaindata_feedstate_u64s[i]);
        *field = chaindata_get_u64le(v + 8 + 8 * i);
    }

    return 0;
}
