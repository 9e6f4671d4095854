
/*
 * chaindata: what the status's text (chaindata_status_format.c, its JSON;
 * chaindata_status_prom.c, its Prometheus text) takes from the status
 * gathered (chaindata_status.c).
 */


#ifndef _CHAINDATA_STATUS_TEXT_H_INCLUDED_
#define _CHAINDATA_STATUS_TEXT_H_INCLUDED_


#include <stdint.h>

#include "chaindata_sbuf.h"
#include "chaindata_status.h"


/* seconds since the feed's committed block's time */
uint64_t chaindata_status_lag(const chaindata_status_feed_t *f,
    uint64_t now);

/* blocks behind the stored tip: 0 without one */
uint64_t chaindata_status_behind(const chaindata_status_feed_t *f);

/* 1 when the feed is within st's health limits */
int chaindata_status_feed_healthy(const chaindata_status_t *st,
    const chaindata_status_feed_t *f, uint64_t now);

/* the status as JSON, and in the Prometheus text format, into b */
void chaindata_status_json(chaindata_sbuf_t *b, const chaindata_status_t *st,
    uint64_t now);
void chaindata_status_prometheus(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now);


#endif /* _CHAINDATA_STATUS_TEXT_H_INCLUDED_ */
