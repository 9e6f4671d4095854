
/*
 * chaindata: the ops of the rune records, writes made inside the write
 * transaction from what it holds (CHAINDATA_WRITE_OP, chaindata_writeset.h):
 * a block's activity appended to the lists or taken off them, an etching
 * put or deleted, an address's holders replaced, the runes state mixed
 * (lmdb-schema/runes.md, "The Runes databases of chaindata_runes").  A
 * record checks its shape when it is parsed and leaves an op; the op reads
 * and writes the index when the batch is applied, after every write
 * before it in the batch, so a batch of several blocks, or a rollback
 * undoing several, reads what the earlier ones wrote.  An op that refuses
 * what it finds (a block below the newest held, a damaged list) refuses
 * the whole batch: the transaction is aborted, the index left as it was.
 *
 * The ops: chaindata_runes_op.c (each to its file, the state),
 * chaindata_runes_apply_block.c, chaindata_runes_apply_holders.c
 * (etchings too), above what they share, chaindata_runes_apply.c.
 */


#ifndef _CHAINDATA_RUNES_OP_H_INCLUDED_
#define _CHAINDATA_RUNES_OP_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include <lmdb.h>

#include "chaindata_jdoc.h"
#include "chaindata_piece.h"
#include "chaindata_runes_layout.h"
#include "chaindata_schema.h"


/*
 * The ops and their arguments (integers big-endian):
 *
 * MIX      the kind's name, NUL, the SHA-256 of what the record wrote (32)
 * BLOCK    height (8), n (4), then when n > 0 the block hash (32) and the
 *          n entries in the record's order (newest first), each: rune id
 *          key (12), rune_ref value's length (4) and bytes, the ledger
 *          value's JSON after the rune id key: length (4) and bytes, the
 *          entry's address: length (1, 0 when none) and bytes
 * ETCHING  rune id key (12); a put then: number (8), name's length (1)
 *          and bytes, the document (the rest)
 * HOLDERS  the rune_balances key (chaindata_address_key(), its length
 *          byte first), the record's address: length (1) and bytes, n
 *          (4), then n entries: rune id key (12), the holder's address:
 *          length (1) and bytes, the balance: length (1) and bytes
 */
#define CHAINDATA_RUNES_OP_MIX        1
#define CHAINDATA_RUNES_OP_BLOCK      2
#define CHAINDATA_RUNES_OP_ETCHING    3
#define CHAINDATA_RUNES_OP_HOLDERS    4

/* an op refused what the index holds: the batch is not applied */
#define CHAINDATA_RUNES_REFUSED       (-30701)

#define CHAINDATA_RUNES_ERR_LEN       512


/* what the ops of one transaction share */
typedef struct {
    MDB_txn               *txn;
    const MDB_dbi         *dbi;
    chaindata_arena_t     *arena;      /* made on first use, reset per op */
    chaindata_inflater_t  *inflater;   /* made on first use */
    char                   err[CHAINDATA_RUNES_ERR_LEN];
} chaindata_runes_txn_t;


/*
 * Applies an op in t->txn: 0, CHAINDATA_RUNES_REFUSED with t->err, or an
 * LMDB error (ENOMEM out of memory).
 */
int chaindata_runes_apply(chaindata_runes_txn_t *t, unsigned op,
    const unsigned char *arg, size_t len);
void chaindata_runes_txn_free(chaindata_runes_txn_t *t);


/* what the ops share (chaindata_runes_apply.c) */

int chaindata_runes_refuse(chaindata_runes_txn_t *t, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;
/* 0 and the value (valid until the next write), MDB_NOTFOUND, or an error */
int chaindata_runes_get(chaindata_runes_txn_t *t, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len, MDB_val *val);
int chaindata_runes_put(chaindata_runes_txn_t *t, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len, const unsigned char *val,
    size_t val_len);
/* deleting an absent key is not an error */
int chaindata_runes_del(chaindata_runes_txn_t *t, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len);

/*
 * A list's entry appended (ledger key; NULL for a holders' list, whose
 * count alone is kept), or taken off its end, refused when the end is not
 * that entry: 0, or as chaindata_runes_apply().
 */
int chaindata_runes_list_add(chaindata_runes_txn_t *t,
    const unsigned char *list_key, size_t list_key_len,
    const unsigned char *ledger_key);
int chaindata_runes_list_drop(chaindata_runes_txn_t *t,
    const unsigned char *list_key, size_t list_key_len,
    const unsigned char *ledger_key);

/* a JSON document parsed into t's arena, NULL when it is not one */
chaindata_jv_t *chaindata_runes_parse(chaindata_runes_txn_t *t,
    const unsigned char *json, size_t len);

/* the ops (chaindata_runes_apply_block.c, chaindata_runes_apply_holders.c) */
int chaindata_runes_block(chaindata_runes_txn_t *t, const unsigned char *arg,
    size_t len);
int chaindata_runes_etching(chaindata_runes_txn_t *t,
    const unsigned char *arg, size_t len);
int chaindata_runes_holders(chaindata_runes_txn_t *t,
    const unsigned char *arg, size_t len);


#endif /* _CHAINDATA_RUNES_OP_H_INCLUDED_ */
