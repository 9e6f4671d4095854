
/*
 * chaindata: the integers of keys and values, big- and little-endian:
 * small, inline, any alignment.
 */


#ifndef _CHAINDATA_INT_H_INCLUDED_
#define _CHAINDATA_INT_H_INCLUDED_


#include <stdint.h>


static inline void
chaindata_put_u32be(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char) (v >> 24);
    p[1] = (unsigned char) (v >> 16);
    p[2] = (unsigned char) (v >> 8);
    p[3] = (unsigned char) v;
}


static inline uint32_t
chaindata_get_u32be(const unsigned char *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
           | (uint32_t) p[2] << 8 | p[3];
}


static inline void
chaindata_put_u64be(unsigned char *p, uint64_t v)
{
    chaindata_put_u32be(p, (uint32_t) (v >> 32));
    chaindata_put_u32be(p + 4, (uint32_t) v);
}


static inline uint64_t
chaindata_get_u64be(const unsigned char *p)
{
    return (uint64_t) chaindata_get_u32be(p) << 32
           | chaindata_get_u32be(p + 4);
}


static inline void
chaindata_put_u32le(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char) v;
    p[1] = (unsigned char) (v >> 8);
    p[2] = (unsigned char) (v >> 16);
    p[3] = (unsigned char) (v >> 24);
}


static inline uint32_t
chaindata_get_u32le(const unsigned char *p)
{
    return (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16
           | (uint32_t) p[1] << 8 | p[0];
}


static inline void
chaindata_put_u64le(unsigned char *p, uint64_t v)
{
    chaindata_put_u32le(p, (uint32_t) v);
    chaindata_put_u32le(p + 4, (uint32_t) (v >> 32));
}


static inline uint64_t
chaindata_get_u64le(const unsigned char *p)
{
    return (uint64_t) chaindata_get_u32le(p + 4) << 32
           | chaindata_get_u32le(p);
}


#endif /* _CHAINDATA_INT_H_INCLUDED_ */
