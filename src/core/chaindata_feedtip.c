
/*
 * chaindata: a feed's upstream tip record (see the header).
 */


#include <string.h>

#include "chaindata_int.h"
#include "chaindata_feedtip.h"


void
chaindata_feedtip_encode(unsigned char *out, const chaindata_feedtip_t *tip)
{
    memset(out, 0, CHAINDATA_TIP_SIZE);

    out[0] = CHAINDATA_TIP_FORMAT;
    chaindata_put_u64le(out + 8, tip->height);
    chaindata_put_u64le(out + 16, tip->time);
    chaindata_put_u64le(out + 24, tip->polled);
}


int
chaindata_feedtip_decode(chaindata_feedtip_t *tip, const unsigned char *v,
    size_t len)
{
    if (len != CHAINDATA_TIP_SIZE || v[0] != CHAINDATA_TIP_FORMAT) {
        return -1;
    }

    tip->height = chaindata_get_u64le(v + 8);
    tip->time = chaindata_get_u64le(v + 16);
    tip->polled = chaindata_get_u64le(v + 24);

    return 0;
}
