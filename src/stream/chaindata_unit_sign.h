
/*
 * chaindata: the signature of a stream unit (lmdb-schema/feed.md "The
 * stream", "Signed units").  The publisher signs with an Ed25519 private
 * key what makes a unit: the stream, the unit's id, the sequence of its
 * first part, its number of parts and the SHA-256 of its lines; the
 * signature rides in the Chaindata-Signature header of its last part.
 * A follower given the public key applies only units it verifies.
 */


#ifndef _CHAINDATA_UNIT_SIGN_H_INCLUDED_
#define _CHAINDATA_UNIT_SIGN_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>


/* the header's value: base64 of the 64 bytes of an Ed25519 signature */
#define CHAINDATA_UNIT_SIG_LEN     64
#define CHAINDATA_UNIT_SIG_B64     88


typedef struct {
    const char            *stream;
    const char            *unit;      /* its Chaindata-Unit */
    uint64_t               first;     /* the stream sequence of part 0 */
    uint64_t               parts;
    const unsigned char   *lines;
    size_t                 len;
} chaindata_unit_t;


/*
 * An Ed25519 key from a PEM file: a private key (refused when group or
 * others may read the file) or a public key.  NULL with err set.
 */
EVP_PKEY *chaindata_unit_key_load(const char *path, int private_key,
    char *err, size_t size);

/* the signature of u into sig (CHAINDATA_UNIT_SIG_B64 + 1): 0, or -1 */
int chaindata_unit_sign(EVP_PKEY *key, const chaindata_unit_t *u,
    char *sig);

/*
 * 0 when sig (the header's value, NULL when absent) is key's signature
 * of u; -1 with the reason in err
 */
int chaindata_unit_verify(EVP_PKEY *key, const chaindata_unit_t *u,
    const char *sig, char *err, size_t size);

/*
 * The same for one part (lmdb-schema/feed.md "Signed units"): u->lines
 * and u->len are the part's bytes, part its number; its signature rides
 * in its own Chaindata-Part-Signature header, so that a follower drops a
 * forged part when it arrives instead of buffering it to the unit's end.
 */
int chaindata_unit_sign_part(EVP_PKEY *key, const chaindata_unit_t *u,
    int64_t part, char *sig);
int chaindata_unit_verify_part(EVP_PKEY *key, const chaindata_unit_t *u,
    int64_t part, const char *sig, char *err, size_t size);

/* a header's number: decimal digits only, at most max: 0, or -1 */
int chaindata_unit_number(const char *s, uint64_t max, uint64_t *v);


#endif /* _CHAINDATA_UNIT_SIGN_H_INCLUDED_ */
