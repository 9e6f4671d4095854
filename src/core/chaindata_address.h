
/*
 * chaindata: the syntax of Bitcoin addresses, checked the same way by the
 * loader (rune records) and by the module (the balances route), and the
 * key an address is stored under.
 *
 * No nginx headers here: the loader links this file on its own.
 */


#ifndef _CHAINDATA_ADDRESS_H_INCLUDED_
#define _CHAINDATA_ADDRESS_H_INCLUDED_


#include <stddef.h>


/* BIP-173: a bech32 string is at most 90 characters */
#define CHAINDATA_ADDRESS_MAX_LEN  90


/* 0 when s is a Bitcoin address by its length and characters, else -1 */
int chaindata_address_check(const unsigned char *s, size_t len);

/*
 * Checks s as chaindata_address_check does and writes its list
 * key (a length byte, then the address with a bech32 one lowercased) into
 * key, which holds CHAINDATA_LIST_KEY_MAX bytes.  Returns the key
 * length, or 0 when s is not an address.
 */
size_t chaindata_address_key(unsigned char *key,
    const unsigned char *s, size_t len);


#endif /* _CHAINDATA_ADDRESS_H_INCLUDED_ */
