
/*
 * chaindata: what the v3 writes of a "tx" record (chaindata_record_tx_v3.c)
 * take from the v3 shapes (chaindata_record_tx_v3_shape.c) and these from
 * a memo's text (chaindata_record_tx_v3_memo.c).
 */


#ifndef _CHAINDATA_RECORD_TX_V3_SHAPE_H_INCLUDED_
#define _CHAINDATA_RECORD_TX_V3_SHAPE_H_INCLUDED_


#include <stddef.h>

#include "chaindata_layout.h"
#include "chaindata_jdoc.h"
#include "chaindata_record_tx_v3.h"


/* the builder: the arena new nodes come from, and whether one failed */
typedef struct {
    chaindata_arena_t  *arena;
    int                 failed;
} chaindata_v3b_t;


/*
 * The v3 document of a transaction: NULL with b->failed on no memory.
 * heavy[k]: the member of part k, or NULL.
 */
chaindata_jv_t *chaindata_v3_doc(chaindata_v3b_t *b,
    const chaindata_jv_t *v1, const chaindata_v3_extra_t *x,
    chaindata_jv_t **heavy);

/* one v3 event of a v1 event, NULL when v3 has no shape for it */
chaindata_jv_t *chaindata_v3_event(chaindata_v3b_t *b,
    const chaindata_jv_t *ev);

/* a memo's text at out, room for 3 * len bytes: its length */
size_t chaindata_v3_memo_text(unsigned char *out,
    const unsigned char *bytes, size_t len);


#endif /* _CHAINDATA_RECORD_TX_V3_SHAPE_H_INCLUDED_ */
