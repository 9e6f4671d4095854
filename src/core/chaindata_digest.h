
/*
 * chaindata: SHA-256 fed piece by piece, on the stack.
 *
 * The digests the index keeps are of pieces joined by newlines: a
 * transaction's document and its events (lmdb-schema/README.md, "tx"),
 * the entries of a rune list (lmdb-schema/runes.md); an API key is one
 * piece (lmdb-schema/chainhook.md).  No nginx headers here.
 */


#ifndef _CHAINDATA_DIGEST_H_INCLUDED_
#define _CHAINDATA_DIGEST_H_INCLUDED_


#include <stddef.h>

#include <openssl/sha.h>


#define CHAINDATA_SHA256_LEN  32


typedef struct {
    SHA256_CTX  ctx;
    size_t      pieces;
} chaindata_digest_t;


void chaindata_digest_init(chaindata_digest_t *d);

/* adds a piece, after a newline unless it is the first */
void chaindata_digest_add(chaindata_digest_t *d,
    const unsigned char *piece, size_t len);

/* the SHA-256 (CHAINDATA_SHA256_LEN bytes); the state is wiped */
void chaindata_digest_final(chaindata_digest_t *d,
    unsigned char *sha256);


#endif /* _CHAINDATA_DIGEST_H_INCLUDED_ */
