
/*
 * chaindata-mirror: the mempool follower's state
 * (chaindata_mirror_mempool.c).
 */


#ifndef _CHAINDATA_MIRROR_MEMPOOL_H_INCLUDED_
#define _CHAINDATA_MIRROR_MEMPOOL_H_INCLUDED_


#include "chaindata_jdoc.h"
#include "chaindata_layout.h"
#include "chaindata_mirror_log.h"


/* transactions a page of upstream's mempool listings holds, v1 and v3 */
#define CHAINDATA_MEMPOOL_PAGE      50
/* --mempool-v3-batch: pending transactions one v3 lookup is made for */
#define CHAINDATA_MEMPOOL_V3_BATCH  20


/*
 * The pending transactions the index holds (32-byte ids, sorted), and of
 * those the ones written without a receipt_block_height that no v3
 * lookup was made for yet (waiting for a batch), with their documents as
 * the last pass read them (a JSON array but for its "]", NULL before a
 * pass: for the run's end)
 */
typedef struct {
    unsigned char       *ids;
    size_t               n;
    unsigned char       *waiting;
    size_t               nwaiting;
    unsigned char       *docs;
    size_t               ndocs;
    unsigned             batch;
    int                  read;
    int                  claims_logged;  /* a total differed this run */
} chaindata_pending_t;


/* a pending transaction to write, and its receipt_block_height once found */
typedef struct {
    const chaindata_jv_t  *doc;
    unsigned char        id[CHAINDATA_TXID_LEN];
    uint64_t             height;
    unsigned             found:1;
    unsigned             waited:1;     /* in the index already, waiting */
} chaindata_mp_new_t;


void chaindata_mempool_free(chaindata_mirror_t *m);

/* sets of ids (chaindata_mirror_mempool_ids.c): added to, sorted, searched */
int chaindata_ids_add(unsigned char **ids, size_t *n, const unsigned char *id);
/* in a sorted set: 1, 0 */
int chaindata_ids_has(const unsigned char *ids, size_t n,
    const unsigned char *id);
/* sorted, duplicates dropped */
void chaindata_ids_unique(unsigned char *ids, size_t *n);
/* the heights of news[0 .. n - 1] the v3 listing has, in max pages */
int chaindata_mempool_v3_find(chaindata_mirror_t *m, chaindata_mp_new_t *news,
    size_t n, size_t max);


#endif /* _CHAINDATA_MIRROR_MEMPOOL_H_INCLUDED_ */
