
/*
 * chaindata: the request targets of the v3 transaction routes,
 * GET {prefix}/{tx_id}?include=… and GET {prefix}/{tx_id}/events?limit=
 * &cursor=, checked as upstream's validator checks them (the first
 * failure, its message).  No nginx headers.
 */


#ifndef _CHAINDATA_PATHS_V3_H_INCLUDED_
#define _CHAINDATA_PATHS_V3_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_paths.h"


#define CHAINDATA_V3_EVENT_LIMIT      20
#define CHAINDATA_V3_EVENT_LIMIT_MAX  100

/* the longest message of a refused query */
#define CHAINDATA_V3_MESSAGE_LEN      400


/* one value of include, as upstream's array holds it */
typedef struct {
    const unsigned char  *data;
    size_t                len;
    size_t                index;
} chaindata_v3_item_t;


typedef struct {
    chaindata_span_t      id;
    unsigned char         txid[CHAINDATA_TXID_LEN];
    unsigned              events;         /* …/{tx_id}/events */
    unsigned              include;        /* 1 << CHAINDATA_TX3_* */
    uint64_t              limit;
    uint64_t              cursor;         /* saturated at 2^64 - 1 */
    char                  message[CHAINDATA_V3_MESSAGE_LEN];

    /* room for include's values: items[] and bytes, each q->len + 1 */
    chaindata_v3_item_t  *items;
    unsigned char        *bytes;
} chaindata_tx3_params_t;


/*
 * The target of either route: OK; BAD_PARAM (the id); ADD_PREFIX (an id
 * without "0x", its query valid); BAD_QUERY with p->message; ERROR.
 */
chaindata_target_e chaindata_tx3_target(const unsigned char *path,
    size_t len, chaindata_query_t *q, chaindata_tx3_params_t *p);


#endif /* _CHAINDATA_PATHS_V3_H_INCLUDED_ */
