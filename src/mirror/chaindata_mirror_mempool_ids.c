
/*
 * chaindata-mirror: the mempool follower's sets of transaction ids
 * (chaindata_mirror_mempool.c): 32-byte ids one after the other, added
 * to, then sorted once (duplicates dropped) and searched.
 */


#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"


static int
chaindata_id_cmp(const void *a, const void *b)
{
    return memcmp(a, b, CHAINDATA_TXID_LEN);
}


int
chaindata_ids_add(unsigned char **ids, size_t *n, const unsigned char *id)
{
    unsigned char  *p;

    if ((*n & 255) == 0) {
        p = realloc(*ids, (*n + 256) * CHAINDATA_TXID_LEN);
        if (p == NULL) {
            return -1;
        }

        *ids = p;
    }

    memcpy(*ids + *n * CHAINDATA_TXID_LEN, id, CHAINDATA_TXID_LEN);
    (*n)++;

    return 0;
}


int
chaindata_ids_has(const unsigned char *ids, size_t n, const unsigned char *id)
{
    return n && bsearch(id, ids, n, CHAINDATA_TXID_LEN, chaindata_id_cmp);
}


void
chaindata_ids_unique(unsigned char *ids, size_t *n)
{
    size_t  i, k;

    if (*n == 0) {
        return;
    }

    qsort(ids, *n, CHAINDATA_TXID_LEN, chaindata_id_cmp);

    for (i = 0, k = 0; i < *n; i++) {
        if (k && memcmp(ids + (k - 1) * CHAINDATA_TXID_LEN,
                        ids + i * CHAINDATA_TXID_LEN, CHAINDATA_TXID_LEN)
                 == 0)
        {
            continue;
        }

        memmove(ids + k++ * CHAINDATA_TXID_LEN, ids + i * CHAINDATA_TXID_LEN,
                CHAINDATA_TXID_LEN);
    }

    *n = k;
}
