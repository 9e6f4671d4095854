
/*
 * chaindata: the v3 document and events of a "tx" record
 * (lmdb-schema/README.md, "tx_v3"), written with its v1 ones.
 */


#ifndef _CHAINDATA_RECORD_TX_V3_H_INCLUDED_
#define _CHAINDATA_RECORD_TX_V3_H_INCLUDED_


#include <stddef.h>

#include "chaindata_record.h"


/* what v3 needs beside the v1 document: the record's own members */
typedef struct {
    const struct chaindata_jv_s  *index_block_hash;
    const struct chaindata_jv_s  *parent_index_block_hash;
    const struct chaindata_jv_s  *receipt_block_height;
    const struct chaindata_jv_s  *block_time;   /* v3's, when not v1's */
    unsigned                      mempool:1;
    unsigned                      gone:1;    /* v3 answers 404 */
} chaindata_v3_extra_t;


/*
 * Appends the writes of the v3 document of v1 (checked already) and of
 * its v3 events, the v1 events sorted by event_index: 0, or -1 with the
 * reason in rec.
 */
int chaindata_tx_v3_put(chaindata_record_t *rec,
    const struct chaindata_jv_s *v1, const chaindata_v3_extra_t *x,
    const unsigned char *txid, const chaindata_item_t *events, size_t n,
    chaindata_writeset_t *ws);

/* the writes that remove a transaction's v3 document and events */
int chaindata_tx_v3_delete(chaindata_record_t *rec,
    const unsigned char *txid, chaindata_writeset_t *ws);


#endif /* _CHAINDATA_RECORD_TX_V3_H_INCLUDED_ */
