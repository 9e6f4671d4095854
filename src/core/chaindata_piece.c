
/*
 * chaindata: precompressed pieces and gzip members (see the header and
 * lmdb-schema/pieces.md).  libdeflate compresses a piece (below: how its
 * whole-buffer output is made to end byte-aligned, not final), computes
 * CRCs and inflates a piece whole; zlib compresses what libdeflate
 * cannot (a sync flush) and combines CRCs.
 */


#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "chaindata_int.h"
#include "chaindata_piece.h"


struct chaindata_deflater_s {
    struct libdeflate_compressor    *c;
    struct libdeflate_decompressor  *d;
    unsigned char                   *check;     /* a piece inflated back */
    size_t                           check_cap;
    int                              level;
    int                              zs_ready;
    z_stream                         zs;
};


/*
 * A piece ends with an empty final block of fixed codes, whose tables
 * libdeflate builds (after a piece of dynamic codes) to read it: about
 * 0.7 us, a third of inflating a small piece.  A piece up to
 * CHAINDATA_INFLATE_COPY_MAX bytes is inflated from a copy whose final
 * block is an empty stored block instead: the same bytes out, a fifth
 * less time for a default answer's pieces (lmdb-schema/pieces.md).  A
 * bigger piece (rare) is inflated where it lies: the tables are a small
 * part of its inflating, and its copy would be a growing one.
 */
#define CHAINDATA_INFLATE_COPY_MAX    8192
#define CHAINDATA_INFLATE_FINAL       "\x01\x00\x00\xff\xff"
#define CHAINDATA_INFLATE_FINAL_LEN   5


struct chaindata_inflater_s {
    struct libdeflate_decompressor  *d;
    unsigned char                    copy[CHAINDATA_INFLATE_COPY_MAX
                                          + CHAINDATA_INFLATE_FINAL_LEN];
};


/*
 * Raw deflate (no zlib or gzip wrapper), a 32 KiB window, and a hash
 * table of 2^(memLevel + 7) heads, which deflateReset() clears for every
 * piece: memLevel 6 keeps that to 16 KiB, cheap next to a small piece.
 */
#define CHAINDATA_PIECE_WBITS         (-15)
#define CHAINDATA_PIECE_MEMLEVEL      6


chaindata_deflater_t *
chaindata_deflater_create(int level)
{
    chaindata_deflater_t  *d;

    d = calloc(1, sizeof(chaindata_deflater_t));
    if (d == NULL) {
        return NULL;
    }

    d->level = level;
    d->c = libdeflate_alloc_compressor(level);
    d->d = libdeflate_alloc_decompressor();

    if (d->c == NULL || d->d == NULL) {
        chaindata_deflater_destroy(d);
        return NULL;
    }

    return d;
}


void
chaindata_deflater_destroy(chaindata_deflater_t *d)
{
    if (d == NULL) {
        return;
    }

    if (d->zs_ready) {
        deflateEnd(&d->zs);
    }

    libdeflate_free_compressor(d->c);
    libdeflate_free_decompressor(d->d);
    free(d->check);
    free(d);
}


/*
 * Deflate falls back to stored blocks of at least 4 KiB (memLevel 6), 5
 * bytes of header each; the sync flush adds an empty stored block, and
 * the piece its final block.  len / 128 + 64 covers all of it.
 */

size_t
chaindata_piece_bound(size_t len)
{
    return CHAINDATA_PIECE_HEAD_SIZE + len + len / 128 + 64
           + CHAINDATA_PIECE_FINAL_LEN;
}


/* zlib: a sync flush ends the stream byte-aligned; 0 on failure */

static size_t
chaindata_piece_zlib(chaindata_deflater_t *d, const unsigned char *src,
    size_t len, unsigned char *z, size_t cap)
{
    if (!d->zs_ready) {
        if (deflateInit2(&d->zs, d->level > 9 ? 9 : d->level, Z_DEFLATED,
                         CHAINDATA_PIECE_WBITS, CHAINDATA_PIECE_MEMLEVEL,
                         Z_DEFAULT_STRATEGY)
            != Z_OK)
        {
            return 0;
        }

        d->zs_ready = 1;

    } else if (deflateReset(&d->zs) != Z_OK) {
        return 0;
    }

    d->zs.next_in = (unsigned char *) src;
    d->zs.avail_in = (uInt) len;
    d->zs.next_out = z;
    d->zs.avail_out = (uInt) (cap - CHAINDATA_PIECE_FINAL_LEN);

    if (deflate(&d->zs, Z_SYNC_FLUSH) != Z_OK
        || d->zs.avail_in != 0 || d->zs.avail_out == 0)
    {
        return 0;
    }

    memcpy(d->zs.next_out, CHAINDATA_PIECE_FINAL, CHAINDATA_PIECE_FINAL_LEN);

    return d->zs.next_out + CHAINDATA_PIECE_FINAL_LEN - z;
}


/*
 * libdeflate, five times faster than zlib on a small piece (zlib builds
 * its trees whatever the input's size), writes a whole stream: its one
 * block final, then zero bits to the byte.  Its first bit cleared makes
 * the block not final; what follows the block's end makes the empty
 * stored block of a sync flush: the zero bits are its 3-bit header when
 * there are 3 or more of them (then LEN and NLEN, 00 00 ff ff), else a
 * zero byte completes them.  How many there are is read from the block's
 * header (chaindata_piece_padding()); when the header does not tell, the
 * piece is inflated back: only the right one inflates, whole, to src.  A
 * stream of more than one block (its first block not final) is not
 * used: 0, and zlib makes that piece.
 */

static size_t
chaindata_piece_libdeflate(chaindata_deflater_t *d, const unsigned char *src,
    size_t len, unsigned char *z, size_t cap)
{
    int                         pad;
    size_t                      n, m, k, in, out;
    unsigned char              *check;
    static const unsigned char  tail[] = { 0, 0, 0, 0xff, 0xff, 3, 0 };

    if (cap < sizeof(tail)) {
        return 0;
    }

    n = libdeflate_deflate_compress(d->c, src, len, z, cap - sizeof(tail));
    if (n == 0) {
        return 0;
    }

    pad = chaindata_piece_padding(z, n, len);

    if (pad == -2) {
        return 0;
    }

    z[0] &= ~1;

    if (pad >= 0) {
        k = pad < 3;
        m = n + sizeof(tail) - 1 + k;
        memcpy(z + n, tail + 1 - k, sizeof(tail) - 1 + k);

        return m;
    }

    if (len > d->check_cap) {
        check = realloc(d->check, len);
        if (check == NULL) {
            return 0;
        }

        d->check = check;
        d->check_cap = len;
    }

    for (k = 0; k < 2; k++) {
        m = n + sizeof(tail) - 1 + k;
        memcpy(z + n, tail + 1 - k, sizeof(tail) - 1 + k);

        if (libdeflate_deflate_decompress_ex(d->d, z, m, d->check, len,
                                             &in, &out)
            == LIBDEFLATE_SUCCESS
            && in == m && out == len
            && (len == 0 || memcmp(d->check, src, len) == 0))
        {
            return m;
        }
    }

    return 0;
}


/*
 * The CRC-32 of a stored piece: of its head's first bytes and its deflate
 * bytes, all a piece holds but this CRC.  libdeflate's CRC-32 (folded
 * with carry-less products where the CPU has them): a twentieth of
 * inflating the pieces, 3 % of a gzip answer (bench/RESULTS.md).
 */

static uint32_t
chaindata_piece_stored_crc(const unsigned char *head,
    const unsigned char *deflate, size_t deflate_len)
{
    uint32_t  crc;

    crc = (uint32_t) libdeflate_crc32(0, head, CHAINDATA_PIECE_STORED_CRC_AT);

    return (uint32_t) libdeflate_crc32(crc, deflate, deflate_len);
}


size_t
chaindata_piece_make(chaindata_deflater_t *d, const unsigned char *src,
    size_t len, unsigned char *out)
{
    size_t          n, cap;
    unsigned char  *z;

    if (len > CHAINDATA_PIECE_MAX) {
        return 0;
    }

    z = out + CHAINDATA_PIECE_HEAD_SIZE;
    cap = chaindata_piece_bound(len) - CHAINDATA_PIECE_HEAD_SIZE;

    if (len < CHAINDATA_PIECE_STORED_BELOW) {
        n = chaindata_gzip_stored(z, src, len) - z;
        memcpy(z + n, CHAINDATA_PIECE_FINAL, CHAINDATA_PIECE_FINAL_LEN);
        n += CHAINDATA_PIECE_FINAL_LEN;

        goto done;
    }

    n = chaindata_piece_libdeflate(d, src, len, z, cap);

    if (n == 0) {
        n = chaindata_piece_zlib(d, src, len, z, cap);

        if (n == 0) {
            return 0;
        }
    }

done:

    chaindata_put_u32le(out, (uint32_t) libdeflate_crc32(0, src, len));
    chaindata_put_u32le(out + 4, (uint32_t) len);
    chaindata_put_u32le(out + 8, (uint32_t) n);
    chaindata_put_u32le(out + CHAINDATA_PIECE_STORED_CRC_AT,
                        chaindata_piece_stored_crc(out, z, n));

    return CHAINDATA_PIECE_HEAD_SIZE + n;
}


int
chaindata_piece_decode(chaindata_piece_t *p, const unsigned char *v,
    size_t len, size_t *used)
{
    size_t  n;

    if (len < CHAINDATA_PIECE_HEAD_SIZE) {
        return -1;
    }

    p->crc = chaindata_get_u32le(v);
    p->plain_len = chaindata_get_u32le(v + 4);
    n = chaindata_get_u32le(v + 8);
    p->stored_crc = chaindata_get_u32le(v + CHAINDATA_PIECE_STORED_CRC_AT);

    if (n < CHAINDATA_PIECE_FINAL_LEN
        || n > len - CHAINDATA_PIECE_HEAD_SIZE
        || p->plain_len > CHAINDATA_PIECE_MAX
        || v[CHAINDATA_PIECE_HEAD_SIZE + n - 2] != CHAINDATA_PIECE_FINAL[0]
        || v[CHAINDATA_PIECE_HEAD_SIZE + n - 1] != CHAINDATA_PIECE_FINAL[1])
    {
        return -1;
    }

    p->deflate = v + CHAINDATA_PIECE_HEAD_SIZE;
    p->deflate_len = n;
    *used = CHAINDATA_PIECE_HEAD_SIZE + n;

    return 0;
}


int
chaindata_piece_check(const chaindata_piece_t *p)
{
    uint32_t  crc;

    crc = chaindata_piece_stored_crc(p->deflate - CHAINDATA_PIECE_HEAD_SIZE,
                                     p->deflate, p->deflate_len);

    return crc == p->stored_crc ? 0 : -1;
}


chaindata_inflater_t *
chaindata_inflater_create(void)
{
    chaindata_inflater_t  *in;

    in = calloc(1, sizeof(chaindata_inflater_t));
    if (in == NULL) {
        return NULL;
    }

    in->d = libdeflate_alloc_decompressor();
    if (in->d == NULL) {
        free(in);
        return NULL;
    }

    return in;
}


void
chaindata_inflater_destroy(chaindata_inflater_t *in)
{
    if (in) {
        libdeflate_free_decompressor(in->d);
        free(in);
    }
}


/*
 * libdeflate inflates the whole piece, a final block included (the piece's
 * own, or the stored one of a copy), into exactly plain_len bytes
 * (anything else is an error), never reading or writing outside the two
 * buffers.
 */

int
chaindata_piece_inflate(chaindata_inflater_t *in, const chaindata_piece_t *p,
    unsigned char *out)
{
    size_t                n, got;
    const unsigned char  *z;

    if (chaindata_piece_check(p) != 0) {
        return -1;
    }

    z = p->deflate;
    n = p->deflate_len;

    if (n >= CHAINDATA_PIECE_FINAL_LEN && n <= CHAINDATA_INFLATE_COPY_MAX
        && memcmp(z + n - CHAINDATA_PIECE_FINAL_LEN, CHAINDATA_PIECE_FINAL,
                  CHAINDATA_PIECE_FINAL_LEN)
           == 0)
    {
        /* byte-aligned before it, as every piece: a stored final block */
        n -= CHAINDATA_PIECE_FINAL_LEN;
        memcpy(in->copy, z, n);
        memcpy(in->copy + n, CHAINDATA_INFLATE_FINAL,
               CHAINDATA_INFLATE_FINAL_LEN);
        z = in->copy;
        n += CHAINDATA_INFLATE_FINAL_LEN;
    }

    if (libdeflate_deflate_decompress(in->d, z, n, out, p->plain_len, &got)
        != LIBDEFLATE_SUCCESS
        || got != p->plain_len)
    {
        return -1;
    }

    if ((uint32_t) libdeflate_crc32(0, out, got) != p->crc) {
        return -1;
    }

    return 0;
}


void
chaindata_gzip_sum_init(chaindata_gzip_sum_t *s)
{
    s->crc = 0;
    s->len = 0;
}


/*
 * crc32_combine() finds x^(8 len) mod P, log2(len) products, before the
 * one product that combines; that operator depends on len alone, so the
 * operators of lengths below 64 KiB are kept once found (a process's
 * own, 256 KiB of static memory; an operator is never 0, so 0 is none).
 */

#define CHAINDATA_CRC_OPS  65536


static uint32_t  chaindata_crc_ops[CHAINDATA_CRC_OPS];


/*
 * a times b modulo P, both reflected: the product crc32_combine_op()
 * makes with a loop over the 32 bits of a.  Here a carry-less product
 * made four bits of a at a time from the sixteen multiples of b (63
 * bits), then reduced: its high half, x^0..x^31, is reduced already; the
 * low half is x^32 times a 32-bit polynomial, what a CRC register makes
 * of four zero bytes (zlib's table, a lookup a byte).  42-46 ns a product
 * on the shared machine, where the loop without branches took 75-103 ns;
 * the same products on 10 M random pairs (bench/RESULTS.md).
 */

static uint32_t
chaindata_crc_multiply(uint32_t a, uint32_t b)
{
    unsigned         k;
    uint32_t         r;
    uint64_t         m[16], c;
    const z_crc_t   *table;

    m[0] = 0;
    m[1] = b;

    for (k = 2; k < 16; k += 2) {
        m[k] = m[k / 2] << 1;
        m[k + 1] = m[k] ^ b;
    }

    c = 0;

    for (k = 0; k < 32; k += 4) {
        c ^= m[(a >> k) & 15] << k;
    }

    /* reflected: the product's x^d is bit 62 - d, made bit 63 - d */
    c <<= 1;

    table = get_crc_table();
    r = (uint32_t) c;

    for (k = 0; k < 4; k++) {
        r = (uint32_t) table[r & 0xff] ^ (r >> 8);
    }

    return (uint32_t) (c >> 32) ^ r;
}


void
chaindata_gzip_sum_piece(chaindata_gzip_sum_t *s, const chaindata_piece_t *p)
{
    uint32_t  op;

    if (p->plain_len < CHAINDATA_CRC_OPS) {
        op = chaindata_crc_ops[p->plain_len];

        if (op == 0) {
            op = (uint32_t) crc32_combine_gen((z_off_t) p->plain_len);
            chaindata_crc_ops[p->plain_len] = op;
        }

        s->crc = chaindata_crc_multiply(op, s->crc) ^ p->crc;

    } else {
        s->crc = (uint32_t) crc32_combine(s->crc, p->crc,
                                          (z_off_t) p->plain_len);
    }

    s->len += p->plain_len;
}


void
chaindata_gzip_sum_bytes(chaindata_gzip_sum_t *s, const unsigned char *data,
    size_t len)
{
    s->crc = (uint32_t) libdeflate_crc32(s->crc, data, len);
    s->len += len;
}


/* RFC 1952: magic, deflate, no flags, no time, no extra flags, OS unknown */

unsigned char *
chaindata_gzip_header(unsigned char *out)
{
    static const unsigned char  h[CHAINDATA_GZIP_HEADER_LEN] = {
        0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff
    };

    memcpy(out, h, CHAINDATA_GZIP_HEADER_LEN);

    return out + CHAINDATA_GZIP_HEADER_LEN;
}


unsigned char *
chaindata_gzip_piece(unsigned char *out, const chaindata_piece_t *p)
{
    memcpy(out, p->deflate, chaindata_piece_member_len(p));

    return out + chaindata_piece_member_len(p);
}


size_t
chaindata_gzip_stored_len(size_t len)
{
    return len + 5 * ((len + CHAINDATA_GZIP_STORED_MAX - 1)
                      / CHAINDATA_GZIP_STORED_MAX);
}


/* stored blocks, not final: a header byte, LEN and its complement (le) */

unsigned char *
chaindata_gzip_stored(unsigned char *out, const unsigned char *data,
    size_t len)
{
    size_t  n;

    while (len) {
        n = len < CHAINDATA_GZIP_STORED_MAX ? len : CHAINDATA_GZIP_STORED_MAX;

        out[0] = 0;
        out[1] = (unsigned char) (n & 0xff);
        out[2] = (unsigned char) (n >> 8);
        out[3] = (unsigned char) (~n & 0xff);
        out[4] = (unsigned char) ((~n >> 8) & 0xff);
        memcpy(out + 5, data, n);

        out += 5 + n;
        data += n;
        len -= n;
    }

    return out;
}


unsigned char *
chaindata_gzip_trailer(unsigned char *out, const chaindata_gzip_sum_t *s)
{
    memcpy(out, CHAINDATA_PIECE_FINAL, CHAINDATA_PIECE_FINAL_LEN);
    chaindata_put_u32le(out + CHAINDATA_PIECE_FINAL_LEN, s->crc);
    chaindata_put_u32le(out + CHAINDATA_PIECE_FINAL_LEN + 4,
                        (uint32_t) s->len);

    return out + CHAINDATA_GZIP_TRAILER_LEN;
}
