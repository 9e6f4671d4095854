
/*
 * chaindata: SHA-256 fed piece by piece (see the header).
 */


/*
 * SHA256_Init() and friends are deprecated in OpenSSL 3 but are the only
 * interface that hashes on the stack: EVP and the one-shot SHA256() of
 * OpenSSL 3 allocate (and fetch the algorithm) on every call, which the
 * request path must not do.  nginx itself suppresses the warnings so.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "chaindata_digest.h"


void
chaindata_digest_init(chaindata_digest_t *d)
{
    SHA256_Init(&d->ctx);
    d->pieces = 0;
}


void
chaindata_digest_add(chaindata_digest_t *d,
    const unsigned char *piece, size_t len)
{
    if (d->pieces++) {
        SHA256_Update(&d->ctx, "\n", 1);
    }

    SHA256_Update(&d->ctx, piece, len);
}


void
chaindata_digest_final(chaindata_digest_t *d,
    unsigned char *sha256)
{
    SHA256_Final(sha256, &d->ctx);

    OPENSSL_cleanse(&d->ctx, sizeof(d->ctx));
}
