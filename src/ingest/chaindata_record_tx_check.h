
/*
 * chaindata: what a "tx" record's writes (chaindata_record_tx.c) take from
 * its checks (chaindata_record_tx_check.c).
 */


#ifndef _CHAINDATA_RECORD_TX_CHECK_H_INCLUDED_
#define _CHAINDATA_RECORD_TX_CHECK_H_INCLUDED_


#include "chaindata_jdoc.h"
#include "chaindata_record.h"
#include "chaindata_record_tx_v3.h"


/*
 * What one request may have to copy: the document without its events, and
 * one event (a page holds at most 100).  Larger ones are refused at ingest
 * rather than served.
 */
#define CHAINDATA_MAX_DOC      (8 * 1024 * 1024)
#define CHAINDATA_MAX_EVENT    (1024 * 1024)

/* the shapes of a transaction, where its fields are required */
#define CHAINDATA_CONFIRMED  0x02
#define CHAINDATA_MEMPOOL    0x04


/*
 * Checks a transaction, data: 0 with its shape in *shape, or -1 with the
 * reason in rec.
 */
int chaindata_check_tx(chaindata_record_t *rec, const chaindata_jv_t *data,
    unsigned *shape);

/* checks the events and returns them sorted by event_index, as items */
int chaindata_collect_events(chaindata_record_t *rec,
    const chaindata_jv_t *data, chaindata_item_t **out);

/*
 * What v3 needs beside the document (lmdb-schema/README.md, "tx"):
 * *x->... NULL when the record does not carry it; 1 when v3 can be
 * built, 0 when not, -1 on a bad member.
 */
int chaindata_tx_v3_extra(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, const chaindata_jv_t *data,
    unsigned shape, chaindata_v3_extra_t *x);


#endif /* _CHAINDATA_RECORD_TX_CHECK_H_INCLUDED_ */
