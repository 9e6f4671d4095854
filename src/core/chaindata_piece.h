
/*
 * chaindata: precompressed pieces and the gzip members assembled from
 * them (lmdb-schema/pieces.md).
 *
 * A piece is a stretch of a document compressed once, at ingest: a raw
 * deflate stream that ends byte-aligned (a sync flush, no final block),
 * then an empty final block of its own (so that it inflates whole on its
 * own), with the CRC-32 and the length of its plain bytes.  A gzip member
 * is a header, pieces without their final block, stored blocks for the
 * bytes made per request, one empty final block and a trailer whose CRC-32
 * is combined from the pieces' (crc32_combine), as pigz assembles its
 * members.  Nothing here allocates but the deflater and the inflater.
 */


#ifndef _CHAINDATA_PIECE_H_INCLUDED_
#define _CHAINDATA_PIECE_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


/*
 * an encoded piece: CRC-32 of the plain bytes (le), plain length (le),
 * deflate length (le), then the CRC-32 of those 12 bytes and the deflate
 * bytes (le): the stored piece's own, checked before it is used, as a
 * gzip answer copies it without inflating it
 */
#define CHAINDATA_PIECE_HEAD_SIZE     16
#define CHAINDATA_PIECE_STORED_CRC_AT 12

/*
 * The loader's zlib level: on the benchmark's documents (mostly hex and
 * numbers) level 9 makes pieces 1 % smaller than level 1 (bench/RESULTS.md)
 */
#define CHAINDATA_PIECE_LEVEL         1

/*
 * A piece of fewer plain bytes is stored, not compressed (stored blocks):
 * inflating a compressed one costs its Huffman tables, several µs a
 * piece, for a few dozen bytes saved (bench/RESULTS.md)
 */
#ifndef CHAINDATA_PIECE_STORED_BELOW
#define CHAINDATA_PIECE_STORED_BELOW  512
#endif

/* the largest plain piece: its length must fit the deflate length too */
#define CHAINDATA_PIECE_MAX           (64 * 1024 * 1024)

/* the empty final block every stored piece ends with: BFINAL, fixed, EOB */
#define CHAINDATA_PIECE_FINAL         "\x03\x00"
#define CHAINDATA_PIECE_FINAL_LEN     2

#define CHAINDATA_GZIP_HEADER_LEN     10
/* the empty final block, CRC-32 and ISIZE */
#define CHAINDATA_GZIP_TRAILER_LEN    (CHAINDATA_PIECE_FINAL_LEN + 8)
/* a stored block holds at most this many bytes after its 5-byte header */
#define CHAINDATA_GZIP_STORED_MAX     65535


typedef struct {
    uint32_t              crc;         /* of the plain bytes */
    uint32_t              plain_len;
    uint32_t              stored_crc;  /* of the stored piece */
    const unsigned char  *deflate;     /* ends with the empty final block,
                                          right after the piece's head */
    size_t                deflate_len;
} chaindata_piece_t;


/* a gzip member's running CRC-32 and length of its plain bytes */
typedef struct {
    uint32_t              crc;
    uint64_t              len;
} chaindata_gzip_sum_t;


typedef struct chaindata_deflater_s  chaindata_deflater_t;
typedef struct chaindata_inflater_s  chaindata_inflater_t;


/* libdeflate's level, 1 … 12 (zlib's 1 … 9 for what libdeflate cannot
 * make); NULL when out of memory */
chaindata_deflater_t *chaindata_deflater_create(int level);
void chaindata_deflater_destroy(chaindata_deflater_t *d);

/* the most bytes chaindata_piece_make() writes for len plain bytes */
size_t chaindata_piece_bound(size_t len);

/*
 * Compresses src[0, len) into an encoded piece at out (room for
 * chaindata_piece_bound(len)); returns its length, 0 on failure.
 */
size_t chaindata_piece_make(chaindata_deflater_t *d,
    const unsigned char *src, size_t len, unsigned char *out);

/*
 * The zero bits that pad the one final block of the raw deflate stream
 * z[0, n) of len plain bytes to the byte, 0 … 7, read from the block's
 * header; -1 when the header does not tell (a fixed Huffman block: its
 * end-of-block code is zero bits only), -2 when z is not one final block
 * (chaindata_piece_end.c).
 */
int chaindata_piece_padding(const unsigned char *z, size_t n, size_t len);

/*
 * The encoded piece at the start of v[0, len): 0 and its length in *used,
 * or -1 when v does not hold a whole one (its lengths are checked against
 * len, never trusted).
 */
int chaindata_piece_decode(chaindata_piece_t *p, const unsigned char *v,
    size_t len, size_t *used);

/*
 * 0 when the stored piece is as written (its bytes match its stored
 * CRC-32), -1 when it is damaged: a piece decoded from a value, whose
 * head lies before its deflate bytes.  chaindata_piece_inflate() checks
 * it too; a gzip member that takes the piece as it is checks it alone.
 */
int chaindata_piece_check(const chaindata_piece_t *p);

/* the deflate bytes of a piece as they go into a gzip member */
#define chaindata_piece_member_len(p)                                      \
    ((p)->deflate_len - CHAINDATA_PIECE_FINAL_LEN)

/*
 * Its plain bytes into out (room for p->plain_len): 0, or -1 when the
 * stored piece is damaged (chaindata_piece_check()) or does not inflate
 * to exactly plain_len bytes with its CRC-32.  The inflater is made once
 * (it allocates), and reused.
 */
chaindata_inflater_t *chaindata_inflater_create(void);
void chaindata_inflater_destroy(chaindata_inflater_t *in);
int chaindata_piece_inflate(chaindata_inflater_t *in,
    const chaindata_piece_t *p, unsigned char *out);

/* the assembler: a member's pieces and stored bytes, in order */
void chaindata_gzip_sum_init(chaindata_gzip_sum_t *s);
void chaindata_gzip_sum_piece(chaindata_gzip_sum_t *s,
    const chaindata_piece_t *p);
void chaindata_gzip_sum_bytes(chaindata_gzip_sum_t *s,
    const unsigned char *data, size_t len);

unsigned char *chaindata_gzip_header(unsigned char *out);
unsigned char *chaindata_gzip_piece(unsigned char *out,
    const chaindata_piece_t *p);
size_t chaindata_gzip_stored_len(size_t len);
unsigned char *chaindata_gzip_stored(unsigned char *out,
    const unsigned char *data, size_t len);
unsigned char *chaindata_gzip_trailer(unsigned char *out,
    const chaindata_gzip_sum_t *s);


#endif /* _CHAINDATA_PIECE_H_INCLUDED_ */
