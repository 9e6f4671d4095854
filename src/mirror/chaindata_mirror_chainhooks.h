
/*
 * chaindata-mirror: the chainhooks follower's state
 * (chaindata_mirror_chainhooks.c).
 */


#ifndef _CHAINDATA_MIRROR_CHAINHOOKS_H_INCLUDED_
#define _CHAINDATA_MIRROR_CHAINHOOKS_H_INCLUDED_


#include "chaindata_mirror_log.h"


typedef struct {
    /* the chainhooks file's lines: uuid, then the key (never logged) */
    char               **lines;
    size_t               n;
    double               interval;     /* --chainhooks-interval */
    double               next;
    uint64_t             skipped;      /* statuses failed and skipped */
} chaindata_hooks_t;


/* the --chainhooks file read (main), freed */
int chaindata_chainhooks_read(chaindata_mirror_t *m);
void chaindata_chainhooks_free(chaindata_mirror_t *m);


#endif /* _CHAINDATA_MIRROR_CHAINHOOKS_H_INCLUDED_ */
