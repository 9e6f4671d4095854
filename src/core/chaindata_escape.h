
/*
 * chaindata: JSON string escaping as JSON.stringify does it, and the
 * UTF-8 check of the bytes that go into a JSON string.
 */


#ifndef _CHAINDATA_ESCAPE_H_INCLUDED_
#define _CHAINDATA_ESCAPE_H_INCLUDED_


#include <stddef.h>


size_t chaindata_json_escape_len(const unsigned char *s, size_t len);
unsigned char *chaindata_json_escape(unsigned char *dst,
    const unsigned char *s, size_t len);

size_t chaindata_utf8_valid_len(const unsigned char *s, size_t len);


#endif /* _CHAINDATA_ESCAPE_H_INCLUDED_ */
