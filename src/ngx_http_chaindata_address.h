
/*
 * chaindata: the syntax of Bitcoin addresses, checked the same way by the
 * loader (rune records) and by the module (the balances route), and the
 * key an address is stored under.
 *
 * No nginx headers here: the loader links this file on its own.
 */


#ifndef _NGX_HTTP_CHAINDATA_ADDRESS_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_ADDRESS_H_INCLUDED_


#include <stddef.h>


/* BIP-173: a bech32 string is at most 90 characters */
#define NGX_HTTP_CHAINDATA_ADDRESS_MAX_LEN  90


/* 0 when s is a Bitcoin address by its length and characters, else -1 */
int ngx_http_chaindata_address_check(const unsigned char *s, size_t len);

/*
 * Checks s as ngx_http_chaindata_address_check does and writes its list
 * key (a length byte, then the address with a bech32 one lowercased) into
 * key, which holds NGX_HTTP_CHAINDATA_LIST_KEY_MAX bytes.  Returns the key
 * length, or 0 when s is not an address.
 */
size_t ngx_http_chaindata_address_key(unsigned char *key,
    const unsigned char *s, size_t len);


#endif /* _NGX_HTTP_CHAINDATA_ADDRESS_H_INCLUDED_ */
