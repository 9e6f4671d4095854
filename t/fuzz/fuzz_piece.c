
/*
 * libFuzzer target: precompressed pieces (chaindata_piece.h) and chunks
 * (chaindata_chunks.h).  The input read as a stored piece and as a stored
 * chunk, hostile: decoding checks its lengths, inflating fails cleanly
 * unless it is exactly its plain bytes with their CRC.  And
 * the input as plain bytes: made into pieces around stored bytes, the
 * gzip member inflates (zlib) to exactly the input; compressed whole by
 * libdeflate at the loader's level, where its block ends as read from
 * the block's header (chaindata_piece_padding()) is where inflating
 * finds it.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "chaindata_piece.h"
#include "chaindata_chunks.h"


/* plain lengths a hostile piece may claim that are inflated here */
#define FUZZ_PLAIN_MAX  (1 << 20)


static chaindata_deflater_t            *deflater;
static chaindata_inflater_t            *inflater;
static struct libdeflate_compressor    *loader_level;
static struct libdeflate_decompressor  *plain_inflater;


static void
fuzz_hostile(const uint8_t *data, size_t size)
{
    size_t              used;
    unsigned char      *out;
    chaindata_piece_t   p;

    if (chaindata_piece_decode(&p, data, size, &used) != 0) {
        return;
    }

    if (used > size || p.deflate + p.deflate_len > data + size) {
        abort();
    }

    if (p.plain_len > FUZZ_PLAIN_MAX) {
        return;
    }

    out = malloc(p.plain_len + 1);
    if (out) {
        (void) chaindata_piece_inflate(inflater, &p, out);
        free(out);
    }
}


/*
 * The input read as a stored chunk, hostile (truncated, starts past the
 * piece or not ascending, a wrong CRC): decoding checks it, and every
 * span of a decoded chunk lies inside its plain bytes.
 */

static void
fuzz_chunk(const uint8_t *data, size_t size)
{
    uint32_t                s, l;
    unsigned char          *out;
    chaindata_chunk_t       c;
    chaindata_chunk_span_t  sp;

    if (chaindata_chunk_decode(&c, data, size) != 0) {
        return;
    }

    if (c.piece.deflate + c.piece.deflate_len > data + size) {
        abort();
    }

    for (sp.chunk = 0, sp.from = 0; sp.from < c.n; sp.from++) {
        sp.to = c.n - (sp.from % 2 ? 1 : 0);

        if (sp.to <= sp.from) {
            continue;
        }

        chaindata_chunk_span_bytes(&c, &sp, &s, &l);

        if ((uint64_t) s + l > c.piece.plain_len) {
            abort();
        }
    }

    if (c.piece.plain_len > FUZZ_PLAIN_MAX) {
        return;
    }

    out = malloc(c.piece.plain_len + 1);
    if (out) {
        (void) chaindata_piece_inflate(inflater, &c.piece, out);
        free(out);
    }
}


static void
fuzz_member(const uint8_t *data, size_t size)
{
    size_t                 half, used, n1, zcap;
    unsigned char         *enc, *z, *q, *out;
    z_stream               zs;
    chaindata_piece_t      p;
    chaindata_gzip_sum_t   sum;

    /* the first half a piece, the second stored bytes */
    half = size / 2;
    zcap = chaindata_piece_bound(half) + chaindata_gzip_stored_len(size)
           + CHAINDATA_GZIP_HEADER_LEN + CHAINDATA_GZIP_TRAILER_LEN;

    enc = malloc(chaindata_piece_bound(half));
    z = malloc(zcap);
    out = malloc(size + 1);

    if (enc == NULL || z == NULL || out == NULL) {
        goto done;
    }

    n1 = chaindata_piece_make(deflater, data, half, enc);

    if (n1 == 0 || chaindata_piece_decode(&p, enc, n1, &used) != 0
        || used != n1 || chaindata_piece_inflate(inflater, &p, out) != 0
        || memcmp(out, data, half) != 0)
    {
        abort();
    }

    chaindata_gzip_sum_init(&sum);
    q = chaindata_gzip_header(z);
    q = chaindata_gzip_piece(q, &p);
    chaindata_gzip_sum_piece(&sum, &p);
    q = chaindata_gzip_stored(q, data + half, size - half);
    chaindata_gzip_sum_bytes(&sum, data + half, size - half);
    q = chaindata_gzip_trailer(q, &sum);

    memset(&zs, 0, sizeof(z_stream));

    if (inflateInit2(&zs, 16 + 15) != Z_OK) {
        abort();
    }

    zs.next_in = z;
    zs.avail_in = (uInt) (q - z);
    zs.next_out = out;
    zs.avail_out = (uInt) size + 1;

    if (inflate(&zs, Z_FINISH) != Z_STREAM_END || zs.total_out != size
        || memcmp(out, data, size) != 0)
    {
        abort();
    }

    inflateEnd(&zs);

done:

    free(enc);
    free(z);
    free(out);
}


/*
 * The input compressed whole at the loader's level: when the header tells
 * the padding of its one final block, that block made not final and
 * followed by the tail it says (00 00 ff ff after 3 or more zero bits,
 * else 00 00 00 ff ff) and an empty final block inflates to the input.
 */

static void
fuzz_padding(const uint8_t *data, size_t size)
{
    int                         pad;
    size_t                      n, cap, k, in, out;
    unsigned char              *z, *back;
    static const unsigned char  tail[] = { 0, 0, 0, 0xff, 0xff, 3, 0 };

    cap = size + size / 8 + 64;
    z = malloc(cap + sizeof(tail));
    back = malloc(size + 1);

    if (z == NULL || back == NULL) {
        goto done;
    }

    n = libdeflate_deflate_compress(loader_level, data, size, z, cap);
    pad = n ? chaindata_piece_padding(z, n, size) : -2;

    if (pad < 0) {
        goto done;
    }

    if (pad > 7) {
        abort();
    }

    k = pad < 3;
    z[0] &= ~1;
    memcpy(z + n, tail + 1 - k, sizeof(tail) - 1 + k);
    n += sizeof(tail) - 1 + k;

    if (libdeflate_deflate_decompress_ex(plain_inflater, z, n, back, size,
                                         &in, &out)
        != LIBDEFLATE_SUCCESS
        || in != n || out != size || memcmp(back, data, size) != 0)
    {
        abort();
    }

done:

    free(z);
    free(back);
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (deflater == NULL) {
        deflater = chaindata_deflater_create(6);
        inflater = chaindata_inflater_create();
        loader_level = libdeflate_alloc_compressor(CHAINDATA_PIECE_LEVEL);
        plain_inflater = libdeflate_alloc_decompressor();

        if (deflater == NULL || inflater == NULL || loader_level == NULL
            || plain_inflater == NULL)
        {
            abort();
        }
    }

    fuzz_hostile(data, size);
    fuzz_chunk(data, size);
    fuzz_member(data, size);
    fuzz_padding(data, size);

    return 0;
}
