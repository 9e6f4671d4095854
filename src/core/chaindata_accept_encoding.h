
/*
 * chaindata: content negotiation: what an Accept-Encoding request header
 * says of the gzip coding.  No nginx headers here: the module asks it
 * of a request's header, the unit tests of theirs.
 */


#ifndef _CHAINDATA_ACCEPT_ENCODING_H_INCLUDED_
#define _CHAINDATA_ACCEPT_ENCODING_H_INCLUDED_


#include <stddef.h>


/*
 * 1 when an Accept-Encoding value takes gzip (RFC 9110, 12.5.3): "gzip"
 * or "x-gzip" with a weight above 0, or else "*" with one; "gzip;q=0"
 * refuses it whatever "*" says.  A member whose weight is not a qvalue
 * counts as absent.
 */
int chaindata_accept_encoding_takes_gzip(const unsigned char *s,
    size_t len);


#endif /* _CHAINDATA_ACCEPT_ENCODING_H_INCLUDED_ */
