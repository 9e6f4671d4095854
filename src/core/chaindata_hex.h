
/*
 * chaindata: hex digits, and the ids written in them: a transaction id
 * (CHAINDATA_TXID_HEX_LEN digits), a chainhook's UUID.
 */


#ifndef _CHAINDATA_HEX_H_INCLUDED_
#define _CHAINDATA_HEX_H_INCLUDED_


#include <stddef.h>


extern const unsigned char  chaindata_hex_table[256];


/* a hex digit's value, or -1 */

static inline int
chaindata_hex_value(unsigned char c)
{
    return chaindata_hex_table[c] == 0xff ? -1 : chaindata_hex_table[c];
}


int chaindata_hex_decode(unsigned char *dst, const unsigned char *src,
    size_t len);
int chaindata_hex_is_lower(const unsigned char *s, size_t len);
unsigned char *chaindata_hex_encode(unsigned char *dst,
    const unsigned char *src, size_t n);

int chaindata_txid_parse(const unsigned char *s, size_t len,
    unsigned char *txid, int *prefixed);

/* a UUID's text into its CHAINDATA_UUID_LEN bytes: 0, or -1 */
int chaindata_uuid_parse(const unsigned char *s, size_t len,
    unsigned char *uuid);


#endif /* _CHAINDATA_HEX_H_INCLUDED_ */
