
/*
 * chaindata: the loader's document tree's arena (chaindata_jdoc.h): blocks
 * of 1 MiB, or one the size of a bigger allocation, kept from one record
 * to the next.
 */


#include <stdlib.h>

#include "chaindata_jdoc.h"


#define CHAINDATA_ARENA_BLOCK  (1024 * 1024)


typedef struct chaindata_arena_block_s  chaindata_arena_block_t;

struct chaindata_arena_block_s {
    chaindata_arena_block_t  *next;
    size_t                    size;
    size_t                    used;
    unsigned char             data[];
};


struct chaindata_arena_s {
    chaindata_arena_block_t  *blocks;
};


chaindata_arena_t *
chaindata_arena_create(void)
{
    return calloc(1, sizeof(chaindata_arena_t));
}


void *
chaindata_arena_alloc(chaindata_arena_t *a, size_t size)
{
    size_t                    block;
    chaindata_arena_block_t  *c;

    size = (size + 15) & ~(size_t) 15;
    c = a->blocks;

    if (c == NULL || c->size - c->used < size) {
        block = size > CHAINDATA_ARENA_BLOCK
                ? size : CHAINDATA_ARENA_BLOCK;

        c = malloc(sizeof(chaindata_arena_block_t) + block);
        if (c == NULL) {
            return NULL;
        }

        c->size = block;
        c->used = 0;
        c->next = a->blocks;
        a->blocks = c;
    }

    c->used += size;

    return c->data + c->used - size;
}


/* keeps one block for the next record, frees the rest */

void
chaindata_arena_reset(chaindata_arena_t *a)
{
    chaindata_arena_block_t  *c, *next;

    if (a->blocks == NULL) {
        return;
    }

    for (c = a->blocks->next; c; c = next) {
        next = c->next;
        free(c);
    }

    a->blocks->next = NULL;
    a->blocks->used = 0;
}


void
chaindata_arena_destroy(chaindata_arena_t *a)
{
    if (a == NULL) {
        return;
    }

    chaindata_arena_reset(a);
    free(a->blocks);
    free(a);
}
