
/*
 * chaindata: hex digits, and the ids written in them (see the header).
 */


#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_layout.h"


/*
 * Each byte's value as a hex digit, 0xff for a byte that is not one:
 * one load a digit, no branch (the transaction route decodes 64 of them
 * per request).  Digits of either case only: 0x10-0x19 are not digits.
 */

#define X  0xff

const unsigned char  chaindata_hex_table[256] = {
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, X, X, X, X, X, X,
    X, 10, 11, 12, 13, 14, 15, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, 10, 11, 12, 13, 14, 15, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X
};

#undef X


/* decodes len hex digits (len even) into len / 2 bytes; -1 on a bad digit */

int
chaindata_hex_decode(unsigned char *dst, const unsigned char *src,
    size_t len)
{
    size_t         i;
    unsigned char  hi, lo;

    if (len % 2) {
        return -1;
    }

    for (i = 0; i < len; i += 2) {
        hi = chaindata_hex_table[src[i]];
        lo = chaindata_hex_table[src[i + 1]];

        if ((hi | lo) & 0xf0) {
            return -1;
        }

        *dst++ = (unsigned char) (hi << 4 | lo);
    }

    return 0;
}


/* whether s is len lowercase hex digits, as the index writes them */

int
chaindata_hex_is_lower(const unsigned char *s, size_t len)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) {
            return 0;
        }
    }

    return 1;
}


unsigned char *
chaindata_hex_encode(unsigned char *dst, const unsigned char *src,
    size_t n)
{
    static const char  hex[] = "0123456789abcdef";

    while (n--) {
        *dst++ = hex[*src >> 4];
        *dst++ = hex[*src++ & 0xf];
    }

    return dst;
}


/*
 * A transaction id as "0x" + 64 hex digits (any case) or the 64 digits
 * alone; *prefixed tells which.  Returns 0 and fills txid, or -1.
 */

int
chaindata_txid_parse(const unsigned char *s, size_t len,
    unsigned char *txid, int *prefixed)
{
    *prefixed = 0;

    if (len == CHAINDATA_TXID_HEX_LEN + 2
        && s[0] == '0' && s[1] == 'x')
    {
        *prefixed = 1;
        s += 2;
        len -= 2;
    }

    if (len != CHAINDATA_TXID_HEX_LEN) {
        return -1;
    }

    return chaindata_hex_decode(txid, s, len);
}


/*
 * A UUID as 8-4-4-4-12 hex digits, any case, into its 16 bytes: the
 * "chainhook" key.  Returns 0, or -1 for anything else (no braces, no
 * "urn:uuid:", no missing dashes).
 */

int
chaindata_uuid_parse(const unsigned char *s, size_t len,
    unsigned char *uuid)
{
    size_t  i, n;

    if (len != CHAINDATA_UUID_TEXT_LEN) {
        return -1;
    }

    n = 0;

    for (i = 0; i < len; /* void */ ) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') {
                return -1;
            }

            i++;
            continue;
        }

        if (chaindata_hex_decode(uuid + n++, s + i, 2) != 0) {
            return -1;
        }

        i += 2;
    }

    return 0;
}
