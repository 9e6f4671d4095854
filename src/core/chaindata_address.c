
/*
 * chaindata: Bitcoin address syntax (see the header).
 *
 * Two encodings, told apart by their start:
 *
 *   bech32 and bech32m (BIP-173, BIP-350): "bc1", "tb1" or "bcrt1", then
 *   the witness version and program in the 32-character data alphabet and
 *   a 6-character checksum; all lowercase or all uppercase.  The version
 *   is 0..16, the program 2..40 bytes (20 or 32 for version 0) and its
 *   characters must make whole bytes.
 *
 *   base58 (legacy P2PKH and P2SH): "1" or "3" (mainnet), "m", "n" or "2"
 *   (testnet, signet, regtest), 26 to 35 characters of the base58
 *   alphabet, which has no 0, O, I or l.
 *
 * Checksums are not verified: an address with a wrong one is well-formed
 * and simply unknown to the index.
 */


#include <string.h>

#include "chaindata_address.h"


#define CHAINDATA_BASE58_MIN     26
#define CHAINDATA_BASE58_MAX     35
#define CHAINDATA_CHECKSUM_LEN   6


static const char  *chaindata_bech32_hrps[] = {
    "bc", "tb", "bcrt", NULL
};

static const char  chaindata_bech32_alphabet[] =
    "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static const char  chaindata_base58_alphabet[] =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";


static unsigned char
chaindata_lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char) (c | 0x20) : c;
}


/* the value of a bech32 data character (either case), or -1 */

static int
chaindata_bech32_value(unsigned char c)
{
    const char  *p;

    c = chaindata_lower(c);

    if (c == '\0') {
        return -1;
    }

    p = strchr(chaindata_bech32_alphabet, c);

    return p ? (int) (p - chaindata_bech32_alphabet) : -1;
}


/* the length of s's human-readable part when s is bech32-shaped, or 0 */

static size_t
chaindata_bech32_hrp(const unsigned char *s, size_t len)
{
    size_t        i, n;
    const char  **hrp;

    for (hrp = chaindata_bech32_hrps; *hrp; hrp++) {
        n = strlen(*hrp);

        if (len <= n || s[n] != '1') {
            continue;
        }

        for (i = 0; i < n; i++) {
            if (chaindata_lower(s[i]) != (unsigned char) (*hrp)[i]) {
                break;
            }
        }

        if (i == n) {
            return n;
        }
    }

    return 0;
}


static int
chaindata_bech32_check(const unsigned char *s, size_t len,
    size_t hrp_len)
{
    int     lower, upper, version;
    size_t  i, groups, program;

    lower = 0;
    upper = 0;

    for (i = 0; i < len; i++) {
        if (s[i] >= 'a' && s[i] <= 'z') {
            lower = 1;

        } else if (s[i] >= 'A' && s[i] <= 'Z') {
            upper = 1;
        }
    }

    if (lower && upper) {
        return -1;
    }

    /* the separator, the version, a program, the checksum */
    if (len < hrp_len + 1 + 1 + CHAINDATA_CHECKSUM_LEN + 1) {
        return -1;
    }

    for (i = hrp_len + 1; i < len; i++) {
        if (chaindata_bech32_value(s[i]) < 0) {
            return -1;
        }
    }

    version = chaindata_bech32_value(s[hrp_len + 1]);
    groups = len - hrp_len - 2 - CHAINDATA_CHECKSUM_LEN;
    program = groups * 5 / 8;

    /* the 5-bit groups must hold whole bytes with under 5 bits of padding */
    if (version > 16
        || (program * 8 + 4) / 5 != groups
        || program < 2 || program > 40
        || (version == 0 && program != 20 && program != 32))
    {
        return -1;
    }

    return 0;
}


static int
chaindata_base58_check(const unsigned char *s, size_t len)
{
    size_t  i;

    if (len < CHAINDATA_BASE58_MIN
        || len > CHAINDATA_BASE58_MAX
        || strchr("13mn2", s[0]) == NULL)
    {
        return -1;
    }

    for (i = 0; i < len; i++) {
        if (s[i] == '\0'
            || strchr(chaindata_base58_alphabet, s[i]) == NULL)
        {
            return -1;
        }
    }

    return 0;
}


int
chaindata_address_check(const unsigned char *s, size_t len)
{
    size_t  hrp_len;

    if (len == 0 || len > CHAINDATA_ADDRESS_MAX_LEN) {
        return -1;
    }

    hrp_len = chaindata_bech32_hrp(s, len);

    if (hrp_len) {
        return chaindata_bech32_check(s, len, hrp_len);
    }

    return chaindata_base58_check(s, len);
}


size_t
chaindata_address_key(unsigned char *key, const unsigned char *s,
    size_t len)
{
    size_t  i;
    int     bech32;

    if (chaindata_address_check(s, len) != 0) {
        return 0;
    }

    bech32 = chaindata_bech32_hrp(s, len) != 0;

    key[0] = (unsigned char) len;

    for (i = 0; i < len; i++) {
        key[1 + i] = bech32 ? chaindata_lower(s[i]) : s[i];
    }

    return 1 + len;
}
