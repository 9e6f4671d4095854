
/*
 * chaindata: a feed's upstream tip, as its writer last saw it
 * (lmdb-schema/feed.md "The upstream tip"): the key is CHAINDATA_TIP_KEY
 * then the source, in "feed" beside the source's position.  The
 * module's health check (chaindata_status_max_behind) reads it when it is
 * there; without it, a feed is judged by its block time alone.
 */


#ifndef _CHAINDATA_FEEDTIP_H_INCLUDED_
#define _CHAINDATA_FEEDTIP_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


#define CHAINDATA_TIP_KEY     "tip:"
#define CHAINDATA_TIP_FORMAT  3
#define CHAINDATA_TIP_SIZE    32


typedef struct {
    uint64_t   height;     /* upstream's tip height */
    uint64_t   time;       /* that block's time (Unix seconds), 0: unknown */
    uint64_t   polled;     /* when upstream said so (Unix seconds) */
} chaindata_feedtip_t;


/* out holds CHAINDATA_TIP_SIZE bytes */
void chaindata_feedtip_encode(unsigned char *out,
    const chaindata_feedtip_t *tip);
int chaindata_feedtip_decode(chaindata_feedtip_t *tip, const unsigned char *v,
    size_t len);


#endif /* _CHAINDATA_FEEDTIP_H_INCLUDED_ */
