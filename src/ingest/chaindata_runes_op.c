
/*
 * chaindata: the ops of the rune records in the write transaction (see
 * chaindata_runes_op.h): each to its file, and the runes state.
 */


#include <errno.h>
#include <string.h>

#include <openssl/sha.h>

#include "chaindata_runes_op.h"


/*
 * The runes state: the first 16 bytes of SHA-256(state, the op's
 * argument: the kind's name, NUL, the digest of what the record wrote)
 */

static int
chaindata_runes_mix(chaindata_runes_txn_t *t, const unsigned char *arg,
    size_t len)
{
    int            rc;
    MDB_val        v;
    unsigned char  key, buf[CHAINDATA_RUNE_STATE_LEN + 96];
    unsigned char  sum[SHA256_DIGEST_LENGTH];

    if (len > sizeof(buf) - CHAINDATA_RUNE_STATE_LEN) {
        return chaindata_runes_refuse(t, "a mix op of %zu bytes", len);
    }

    key = CHAINDATA_RUNE_BLOCK_STATE;
    memset(buf, 0, CHAINDATA_RUNE_STATE_LEN);

    rc = chaindata_runes_get(t, CHAINDATA_DBI_RUNE_BLOCK, &key, 1, &v);

    if (rc == 0 && v.mv_size == CHAINDATA_RUNE_STATE_LEN) {
        memcpy(buf, v.mv_data, CHAINDATA_RUNE_STATE_LEN);

    } else if (rc != MDB_NOTFOUND) {
        return rc ? rc : chaindata_runes_refuse(t, "the index is damaged: "
                                                "the runes state is %zu "
                                                "bytes", v.mv_size);
    }

    memcpy(buf + CHAINDATA_RUNE_STATE_LEN, arg, len);
    SHA256(buf, CHAINDATA_RUNE_STATE_LEN + len, sum);

    return chaindata_runes_put(t, CHAINDATA_DBI_RUNE_BLOCK, &key, 1, sum,
                               CHAINDATA_RUNE_STATE_LEN);
}


int
chaindata_runes_apply(chaindata_runes_txn_t *t, unsigned op,
    const unsigned char *arg, size_t len)
{
    if (t->arena == NULL) {
        t->arena = chaindata_arena_create();

        if (t->arena == NULL) {
            return ENOMEM;
        }
    }

    chaindata_arena_reset(t->arena);

    switch (op) {

    case CHAINDATA_RUNES_OP_MIX:
        return chaindata_runes_mix(t, arg, len);

    case CHAINDATA_RUNES_OP_BLOCK:
        return chaindata_runes_block(t, arg, len);

    case CHAINDATA_RUNES_OP_ETCHING:
        return chaindata_runes_etching(t, arg, len);

    case CHAINDATA_RUNES_OP_HOLDERS:
        return chaindata_runes_holders(t, arg, len);

    default:
        return chaindata_runes_refuse(t, "an unknown op %u", op);
    }
}


void
chaindata_runes_txn_free(chaindata_runes_txn_t *t)
{
    chaindata_arena_destroy(t->arena);
    t->arena = NULL;
    chaindata_inflater_destroy(t->inflater);
    t->inflater = NULL;
}
