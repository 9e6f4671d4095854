
/*
 * libFuzzer target: what a follower reads of a stream unit before it
 * applies it (chaindata_unit_sign.c): the numbers of the Chaindata-Part
 * and Chaindata-Parts headers, and the Chaindata-Signature header over a
 * unit of any lines and id, and the Chaindata-Part-Signature over one part
 * (the part-by-part verifier a follower runs on each part when it
 * arrives).  The input: a header value, a newline, a unit id, a newline,
 * the lines (the part's bytes).  A unit or a part signed with the key
 * verifies; with a changed id, place, part number or bytes it does not;
 * a hostile signature is refused, never read past.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_unit_sign.h"


static EVP_PKEY *
fuzz_key(void)
{
    static EVP_PKEY       *key;
    static unsigned char   seed[32] = "chaindata fuzz unit signing key";

    if (key == NULL) {
        key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed,
                                           sizeof(seed));
    }

    return key;
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char              *hdr, *id, *nl, err[128];
    char               sig[CHAINDATA_UNIT_SIG_B64 + 1];
    size_t             n;
    uint64_t           v;
    chaindata_unit_t   u;

    hdr = malloc(size + 1);
    if (hdr == NULL) {
        return 0;
    }

    memcpy(hdr, data, size);
    hdr[size] = '\0';

    /* a header's number: digits only, bounded */
    if (chaindata_unit_number(hdr, UINT32_MAX, &v) == 0 && v > UINT32_MAX) {
        abort();
    }

    nl = memchr(hdr, '\n', size);
    id = nl ? nl + 1 : hdr + size;
    if (nl) {
        *nl = '\0';
    }

    nl = strchr(id, '\n');
    if (nl) {
        *nl = '\0';
    }

    n = nl ? (size_t) (nl + 1 - hdr) : size;

    u.stream = "FUZZ";
    u.unit = id;
    u.first = size;
    u.parts = 1 + (size & 7);
    u.lines = data + n;
    u.len = size - n;

    /* whatever the header says: refused or verified, with a reason */
    err[0] = '\0';
    if (chaindata_unit_verify(fuzz_key(), &u, hdr, err, sizeof(err)) != 0
        && err[0] == '\0')
    {
        abort();
    }

    /* the part verifier: the same header as a part's signature */
    err[0] = '\0';
    if (chaindata_unit_verify_part(fuzz_key(), &u, (int64_t) (size % 5), hdr,
                                   err, sizeof(err))
        != 0
        && err[0] == '\0')
    {
        abort();
    }

    if (strlen(id) < 64
        && chaindata_unit_sign_part(fuzz_key(), &u, 2, sig) == 0)
    {
        if (chaindata_unit_verify_part(fuzz_key(), &u, 2, sig, err,
                                       sizeof(err))
            != 0
            || chaindata_unit_verify_part(fuzz_key(), &u, 1, sig, err,
                                          sizeof(err))
               == 0
            || chaindata_unit_verify(fuzz_key(), &u, sig, err, sizeof(err))
               == 0)
        {
            abort();
        }
    }

    if (strlen(id) < 64 && chaindata_unit_sign(fuzz_key(), &u, sig) == 0) {
        if (chaindata_unit_verify(fuzz_key(), &u, sig, err, sizeof(err))
            != 0)
        {
            abort();
        }

        u.first++;
        if (chaindata_unit_verify(fuzz_key(), &u, sig, err, sizeof(err))
            == 0)
        {
            abort();
        }
    }

    free(hdr);

    return 0;
}
