
/*
 * Unit tests: precompressed pieces and the gzip members made of them
 * (chaindata_piece.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "chaindata_int.h"
#include "chaindata_piece.h"
#include "unit.h"


/* a gzip member inflated with zlib (header, CRC and ISIZE checked) */

static size_t
gunzip(const unsigned char *z, size_t zlen, unsigned char *out, size_t cap)
{
    int       rc;
    size_t    n;
    z_stream  zs;

    memset(&zs, 0, sizeof(z_stream));

    if (inflateInit2(&zs, 16 + 15) != Z_OK) {
        return (size_t) -1;
    }

    zs.next_in = (unsigned char *) z;
    zs.avail_in = (uInt) zlen;
    zs.next_out = out;
    zs.avail_out = (uInt) cap;

    rc = inflate(&zs, Z_FINISH);
    n = zs.total_out;
    inflateEnd(&zs);

    return (rc == Z_STREAM_END && zs.avail_in == 0) ? n : (size_t) -1;
}


/* text that compresses like JSON, and some that does not */

static void
piece_text(unsigned char *p, size_t len, unsigned seed)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        seed = seed * 1103515245 + 12345;
        p[i] = (seed >> 16) % 7 ? "{\"event_index\":12,\"tx_id\":}"[i % 27]
                                : (unsigned char) (seed >> 8);
    }
}


/*
 * The stored CRC-32 (lmdb-schema/pieces.md): it holds for a piece as
 * written; any byte changed, the piece is refused or it does not hold;
 * its deflate bytes replaced by random bytes of their length (what a gzip
 * answer would copy), it does not hold and the piece does not inflate; a
 * CRC-32 of the plain bytes that lies under one that holds still does not
 * inflate.
 */

static void
piece_stored_crc(chaindata_deflater_t *d, chaindata_inflater_t *in,
    const unsigned char *plain, unsigned char *enc, unsigned char *out)
{
    int                good;
    size_t             n, i, used;
    unsigned           seed;
    uint32_t           crc;
    chaindata_piece_t  p;

    n = chaindata_piece_make(d, plain, 4096, enc);
    ok(n > 0 && chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_check(&p) == 0
       && chaindata_piece_inflate(in, &p, out) == 0,
       "pieces: the stored CRC-32 of a piece as written holds");

    good = n > 0;

    for (i = 0; i < n; i++) {
        enc[i] ^= 0x20;
        good &= chaindata_piece_decode(&p, enc, n, &used) != 0
                || (chaindata_piece_check(&p) != 0
                    && chaindata_piece_inflate(in, &p, out) != 0);
        enc[i] ^= 0x20;
    }

    ok(good, "pieces: any byte changed, refused or its stored CRC-32 "
       "does not hold");

    for (i = CHAINDATA_PIECE_HEAD_SIZE, seed = 7;
         i < n - CHAINDATA_PIECE_FINAL_LEN; i++)
    {
        seed = seed * 1103515245 + 12345;
        enc[i] = (unsigned char) (seed >> 16);
    }

    ok(chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_check(&p) != 0
       && chaindata_piece_inflate(in, &p, out) != 0,
       "pieces: random deflate bytes of their length: the stored CRC-32 "
       "does not hold");

    n = chaindata_piece_make(d, plain, 4096, enc);
    enc[0] ^= 1;
    crc = (uint32_t) libdeflate_crc32(0, enc, CHAINDATA_PIECE_STORED_CRC_AT);
    crc = (uint32_t) libdeflate_crc32(crc, enc + CHAINDATA_PIECE_HEAD_SIZE,
                                      n - CHAINDATA_PIECE_HEAD_SIZE);
    chaindata_put_u32le(enc + CHAINDATA_PIECE_STORED_CRC_AT, crc);
    ok(chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_check(&p) == 0
       && chaindata_piece_inflate(in, &p, out) != 0,
       "pieces: a wrong plain CRC-32 under a stored one that holds does not "
       "inflate");
}


/*
 * A member of pieces (plain lengths 0, 1, small, 100 KiB) and stored
 * bytes (empty, a comma, 70,000 bytes: two stored blocks) in turn, as a
 * page is assembled; it must inflate to exactly their concatenation.
 */

void
test_pieces(void)
{
    int                    good;
    size_t                 i, n, used, zlen, plen, got;
    unsigned char         *plain, *enc, *z, *out, *q, *e;
    chaindata_piece_t      p;
    chaindata_deflater_t  *d;
    chaindata_inflater_t  *in;
    chaindata_gzip_sum_t   sum;
    uint32_t               seed, crc;
    static const size_t    sizes[] = { 0, 1, 17, 300, 4096, 100000, 70000 };

    d = chaindata_deflater_create(6);
    in = chaindata_inflater_create();
    plain = malloc(1 << 20);
    enc = malloc(1 << 20);
    z = malloc(1 << 20);
    out = malloc(1 << 20);

    if (d == NULL || in == NULL || !plain || !enc || !z || !out) {
        ok(0, "pieces: memory");
        return;
    }

    plen = 0;
    chaindata_gzip_sum_init(&sum);
    q = chaindata_gzip_header(z);
    good = 1;

    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        piece_text(plain + plen, sizes[i], (unsigned) i);

        if (i % 2 == 0) {
            n = chaindata_piece_make(d, plain + plen, sizes[i], enc);

            if (n == 0 || n > chaindata_piece_bound(sizes[i])
                || chaindata_piece_decode(&p, enc, n, &used) != 0
                || used != n || p.plain_len != sizes[i]
                || chaindata_piece_inflate(in, &p, out) != 0
                || memcmp(out, plain + plen, sizes[i]) != 0)
            {
                good = 0;
                continue;
            }

            chaindata_gzip_sum_piece(&sum, &p);
            q = chaindata_gzip_piece(q, &p);

        } else {
            e = chaindata_gzip_stored(q, plain + plen, sizes[i]);
            good &= (size_t) (e - q) == chaindata_gzip_stored_len(sizes[i]);
            chaindata_gzip_sum_bytes(&sum, plain + plen, sizes[i]);
            q = e;
        }

        plen += sizes[i];
    }

    q = chaindata_gzip_trailer(q, &sum);
    zlen = q - z;

    ok(good, "pieces: made, decoded, each inflates on its own");
    got = gunzip(z, zlen, out, 1 << 20);
    ok(got == plen && memcmp(out, plain, plen) == 0,
       "pieces: the member inflates to exactly the plain concatenation");

    /* the CRCs of pieces of lengths up to 64 KiB (all below 64), combined */
    for (i = 0, seed = 7; i < 65536; i++) {
        seed = seed * 1103515245 + 12345;
        plain[i] = (unsigned char) (seed >> 16);
    }

    chaindata_gzip_sum_init(&sum);
    crc = 0;
    plen = 0;
    good = 1;

    for (i = 0; i < 65536; i += 1 + i / 64) {
        p.crc = (uint32_t) libdeflate_crc32(0, plain, i);
        p.plain_len = i;
        chaindata_gzip_sum_piece(&sum, &p);
        crc = (uint32_t) libdeflate_crc32(crc, plain, i);
        plen += i;
        good &= sum.crc == crc;
    }

    ok(good && sum.len == plen,
       "pieces: CRCs combined as the CRC of the concatenation");

    /* an empty member: header and trailer */
    chaindata_gzip_sum_init(&sum);
    q = chaindata_gzip_trailer(chaindata_gzip_header(z), &sum);
    ok(gunzip(z, q - z, out, 16) == 0, "pieces: an empty member");

    /*
     * a piece of over 8 KiB compressed is inflated where it lies, a
     * smaller one from a copy ending in a stored final block: both whole
     */
    for (i = 0, seed = 13; i < 200000; i++) {
        seed = seed * 1103515245 + 12345;
        plain[i] = (unsigned char) (seed >> 16);
    }

    n = chaindata_piece_make(d, plain, 200000, enc);
    ok(n > 0 && chaindata_piece_decode(&p, enc, n, &used) == 0
       && p.deflate_len > 8192
       && chaindata_piece_inflate(in, &p, out) == 0
       && memcmp(out, plain, 200000) == 0
       && (n = chaindata_piece_make(d, plain, 3000, enc)) > 0
       && chaindata_piece_decode(&p, enc, n, &used) == 0
       && p.deflate_len < 8192
       && chaindata_piece_inflate(in, &p, out) == 0
       && memcmp(out, plain, 3000) == 0,
       "pieces: over 8 KiB compressed and under, each inflates whole");

    /* hostile pieces: cut short, lengths that lie, a wrong CRC */
    n = chaindata_piece_make(d, plain, 4096, enc);
    good = 1;

    for (i = 0; i < n; i++) {
        good &= chaindata_piece_decode(&p, enc, i, &used) != 0;
    }

    ok(good && n > 0, "pieces: a cut piece never decodes");

    chaindata_put_u32le(enc + 8, 0xfffffff0);
    ok(chaindata_piece_decode(&p, enc, n, &used) != 0,
       "pieces: a deflate length past the value");

    n = chaindata_piece_make(d, plain, 4096, enc);
    chaindata_put_u32le(enc + 4, 4095);
    ok(chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_inflate(in, &p, out) != 0,
       "pieces: a plain length that lies does not inflate");

    n = chaindata_piece_make(d, plain, 4096, enc);
    enc[0] ^= 1;
    ok(chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_inflate(in, &p, out) != 0,
       "pieces: a wrong CRC does not inflate");

    n = chaindata_piece_make(d, plain, 4096, enc);
    enc[CHAINDATA_PIECE_HEAD_SIZE + 5] ^= 0x55;
    ok(chaindata_piece_decode(&p, enc, n, &used) == 0
       && chaindata_piece_inflate(in, &p, out) != 0,
       "pieces: damaged deflate bytes do not inflate");

    piece_stored_crc(d, in, plain, enc, out);

    chaindata_deflater_destroy(d);
    chaindata_inflater_destroy(in);
    free(plain);
    free(enc);
    free(z);
    free(out);
}


/* the documents of t/fixtures/ one after the other; NULL if missing */

static unsigned char *
piece_documents(size_t *len)
{
    size_t          i, n, cap;
    FILE           *f;
    unsigned char  *all;
    static const char  *names[] = {
        "t/fixtures/tx.ndjson", "t/fixtures/tx-many-events.ndjson",
        "t/fixtures/runes.ndjson", "t/fixtures/chainhook.ndjson"
    };

    cap = 1 << 20;
    all = malloc(cap);
    *len = 0;

    for (i = 0; all && i < sizeof(names) / sizeof(names[0]); i++) {
        f = fopen(names[i], "rb");
        if (f == NULL) {
            free(all);
            return NULL;
        }

        n = fread(all + *len, 1, cap - *len, f);
        *len += n;
        fclose(f);
    }

    return all;
}


/*
 * Which tail a single final block takes, found the slow way: its first
 * bit cleared, only one of the two sync-flush tails inflates it whole to
 * src.  1 when the zero padding holds the stored header (3 bits or
 * more), 0 when a zero byte must complete it, -1 when neither inflates.
 */

static int
piece_tail_by_inflating(struct libdeflate_decompressor *dd,
    unsigned char *z, size_t n, const unsigned char *src, size_t len,
    unsigned char *check)
{
    int                         fits;
    size_t                      k, m, in, out;
    static const unsigned char  tail[] = { 0, 0, 0, 0xff, 0xff, 3, 0 };

    fits = -1;
    z[0] &= ~1;

    for (k = 0; k < 2; k++) {
        m = n + sizeof(tail) - 1 + k;
        memcpy(z + n, tail + 1 - k, sizeof(tail) - 1 + k);

        if (libdeflate_deflate_decompress_ex(dd, z, m, check, len, &in, &out)
            == LIBDEFLATE_SUCCESS
            && in == m && out == len && memcmp(check, src, len) == 0)
        {
            fits = k == 0;
            break;
        }
    }

    z[0] |= 1;

    return fits;
}


/*
 * Pieces cut from real documents (t/fixtures/) and from random bytes, of
 * 512 bytes to 24 KiB, at the loader's level and others: where the block
 * ends, read from its header, is what inflating finds, and every piece
 * made inflates on its own and in a gzip member to exactly its source.
 */

void
test_piece_ends(void)
{
    int                              pad, fits, level;
    size_t                           i, k, len, n, dlen, used, mlen;
    size_t                           decided, agree, good, pads[8];
    unsigned                         seed;
    unsigned char                   *docs, *src, *rnd, *z, *enc, *out;
    unsigned char                   *member, *q, *plain;
    chaindata_piece_t                p;
    chaindata_gzip_sum_t             sum;
    chaindata_deflater_t            *d[3];
    chaindata_inflater_t            *in;
    struct libdeflate_compressor    *c[3];
    struct libdeflate_decompressor  *dd;
    static const int                 levels[3] = {
        CHAINDATA_PIECE_LEVEL, 6, 12
    };

    docs = piece_documents(&dlen);
    rnd = malloc((1 << 16) + 24 * 1024);
    z = malloc(1 << 17);
    enc = malloc(1 << 17);
    out = malloc(1 << 19);
    member = malloc(1 << 20);
    plain = malloc(1 << 19);
    in = chaindata_inflater_create();
    dd = libdeflate_alloc_decompressor();

    for (k = 0; k < 3; k++) {
        d[k] = chaindata_deflater_create(levels[k]);
        c[k] = libdeflate_alloc_compressor(levels[k]);
    }

    if (docs == NULL || dlen < (1 << 17) || !rnd || !z || !enc || !out
        || !member || !plain || !in || !dd || !d[0] || !d[1] || !d[2] || !c[0]
        || !c[1] || !c[2])
    {
        ok(0, "piece ends: memory and t/fixtures/ (run from the top)");
        return;
    }

    for (seed = 7, i = 0; i < (1 << 16); i++) {
        seed = seed * 1103515245 + 12345;
        rnd[i] = (unsigned char) (seed >> 16);
    }

    memset(rnd + (1 << 16), 'x', 24 * 1024);

    memset(pads, 0, sizeof(pads));
    decided = 0;
    agree = 0;
    good = 0;
    mlen = 0;
    chaindata_gzip_sum_init(&sum);
    q = chaindata_gzip_header(member);

    for (i = 0; i < 6000; i++) {
        seed = seed * 1103515245 + 12345;
        len = 512 + (seed >> 8) % (24 * 1024 - 512);
        seed = seed * 1103515245 + 12345;

        /* one in six of random bytes, one in 12 of one repeated byte */
        if (i % 6 == 5) {
            src = rnd + (seed >> 4) % ((1 << 16) - len);

        } else if (i % 12 == 4) {
            src = rnd + (1 << 16);

        } else {
            src = docs + (seed >> 4) % (dlen - len);
        }

        level = (int) (i % 3);

        /* the header's answer against inflating's */
        n = libdeflate_deflate_compress(c[level], src, len, z, 1 << 16);
        pad = chaindata_piece_padding(z, n, len);

        if (pad >= 0) {
            decided++;
            pads[pad]++;
            fits = piece_tail_by_inflating(dd, z, n, src, len,
                                           enc + (1 << 16));
            agree += fits == (pad >= 3);
        }

        /* the piece made, inflated on its own, and into the member */
        n = chaindata_piece_make(d[level], src, len, enc);

        if (n == 0 || chaindata_piece_decode(&p, enc, n, &used) != 0
            || used != n || chaindata_piece_inflate(in, &p, out) != 0
            || memcmp(out, src, len) != 0)
        {
            continue;
        }

        good++;

        if (mlen + len < (1 << 19)) {
            chaindata_gzip_sum_piece(&sum, &p);
            q = chaindata_gzip_piece(q, &p);
            memcpy(plain + mlen, src, len);
            mlen += len;
        }
    }

    q = chaindata_gzip_trailer(q, &sum);

    ok(good == 6000, "piece ends: 6000 pieces of documents and random "
                     "bytes each inflate to their source");
    ok(agree == decided && decided > 5000,
       "piece ends: the header tells where the block ends, as inflating "
       "finds, for all but fixed Huffman blocks");

    for (k = 0, n = 0; k < 8; k++) {
        n += pads[k] > 100;
    }

    ok(n == 8, "piece ends: all 8 paddings met");
    ok(mlen > (1 << 18)
       && gunzip(member, q - member, out, 1 << 19) == mlen
       && memcmp(out, plain, mlen) == 0,
       "piece ends: a gzip member of the pieces inflates (zlib) to "
       "exactly their sources");

    free(docs);
    free(rnd);
    free(z);
    free(enc);
    free(out);
    free(member);
    free(plain);
    chaindata_inflater_destroy(in);
    libdeflate_free_decompressor(dd);

    for (k = 0; k < 3; k++) {
        chaindata_deflater_destroy(d[k]);
        libdeflate_free_compressor(c[k]);
    }
}
