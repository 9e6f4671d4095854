
/*
 * chaindata: the write set (chaindata_writeset.c), what records turn into
 * and chaindata_index_commit() applies in one transaction.
 */


#ifndef _CHAINDATA_WRITESET_H_INCLUDED_
#define _CHAINDATA_WRITESET_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_schema.h"


typedef enum {
    CHAINDATA_WRITE_PUT = 0,
    CHAINDATA_WRITE_DEL,
    CHAINDATA_WRITE_DEL_PREFIX,
    CHAINDATA_WRITE_OP          /* writes made in the transaction from what
                                   it holds (chaindata_runes_op.h): the
                                   key is the op and its label, the value
                                   its argument */
} chaindata_write_e;


typedef struct {
    chaindata_write_e  action;
    chaindata_dbi_e    db;
    size_t             key_off;
    size_t             key_len;
    size_t             val_off;
    size_t             val_len;
} chaindata_write_t;


/*
 * What a decision made building the write set read from the index: the
 * value of a key then (or its absence, absent), checked again inside the
 * transaction that applies the writes, before any of them
 */
typedef struct {
    chaindata_dbi_e    db;
    unsigned char     *key;          /* its own copy: the key, the value */
    size_t             key_len;
    size_t             val_len;
    int                absent;
} chaindata_expect_t;


/* the writes of a batch of records, applied in order in one transaction */
typedef struct {
    chaindata_write_t  *writes;
    size_t              nwrites;
    size_t              writes_cap;
    chaindata_expect_t *expects;
    size_t              nexpects;
    size_t              expects_cap;
    unsigned char      *buf;
    size_t              len;
    size_t              cap;

    /*
     * what the caller calls the record being added (the loader: its line
     * number), kept by the ops it makes, so that one the transaction
     * refuses is named
     */
    uint64_t            label;
} chaindata_writeset_t;


/* how far a write set was filled, to go back to */
typedef struct {
    size_t              nwrites;
    size_t              nexpects;
    size_t              len;
} chaindata_writeset_mark_t;


/*
 * Appends a write and returns where its value of val_len bytes goes (the
 * pointer holds until the next call), or NULL when memory runs out.
 */
unsigned char *chaindata_writeset_add(chaindata_writeset_t *ws,
    chaindata_write_e action, chaindata_dbi_e db, const unsigned char *key,
    size_t key_len, size_t val_len);
/*
 * Appends an op (CHAINDATA_WRITE_OP) of arg_len bytes of argument, its key
 * the op and ws->label, and returns where its argument goes, or NULL.
 */
unsigned char *chaindata_writeset_op(chaindata_writeset_t *ws,
    unsigned op, size_t arg_len);
/* the op and the label of an op's key */
#define CHAINDATA_WRITE_OP_KEY_LEN  9

/*
 * Appends an expectation: key holds val (val_len bytes) when the writes
 * are applied, or is absent (val NULL).  0, or -1 out of memory.
 */
int chaindata_writeset_expect(chaindata_writeset_t *ws, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len, const unsigned char *val,
    size_t val_len);
/* the value of the last write shortened to val_len (made at most that) */
void chaindata_writeset_trim(chaindata_writeset_t *ws, size_t val_len);
/*
 * Moves the value of the write after head to the end of head's value and
 * drops that write, when both are puts and head's key and the two values
 * stay within max bytes: returns the bytes moved, or 0 (nothing done).
 */
size_t chaindata_writeset_join(chaindata_writeset_t *ws, size_t head,
    size_t max);

/* drops every write appended since the mark */
void chaindata_writeset_mark(const chaindata_writeset_t *ws,
    chaindata_writeset_mark_t *mark);
void chaindata_writeset_restore(chaindata_writeset_t *ws,
    const chaindata_writeset_mark_t *mark);

void chaindata_writeset_reset(chaindata_writeset_t *ws);
void chaindata_writeset_free(chaindata_writeset_t *ws);


#endif /* _CHAINDATA_WRITESET_H_INCLUDED_ */
