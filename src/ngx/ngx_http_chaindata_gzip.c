
/*
 * chaindata: answers made of precompressed pieces (lmdb-schema/pieces.md,
 * doc/module.md "Transactions"): which encoding a request gets, the headers
 * that say so, and a body written either way.  Nothing here compresses; the
 * plain body is each piece inflated whole into the request's buffer. Pages of
 * lists stored in chunks are ngx_http_chaindata_chunks.c's, the ETag of each
 * encoding ngx_http_chaindata_conditional.c's.  A body made per request
 * (chaindata_runes' paths) is compressed per request, into one piece.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_accept_encoding.h"
#include "chaindata_piece.h"
#include "ngx_http_chaindata_gzip.h"
#include "ngx_http_chaindata_send.h"


/* made once per worker process: (in|de)flating allocates nothing */
static chaindata_inflater_t  *ngx_http_chaindata_inflater;
static chaindata_deflater_t  *ngx_http_chaindata_deflater;


ngx_int_t
ngx_http_chaindata_gzip_init(ngx_log_t *log)
{
    if (ngx_http_chaindata_inflater == NULL) {
        ngx_http_chaindata_inflater = chaindata_inflater_create();
    }

    if (ngx_http_chaindata_deflater == NULL) {
        ngx_http_chaindata_deflater =
            chaindata_deflater_create(CHAINDATA_PIECE_LEVEL);
    }

    if (ngx_http_chaindata_inflater == NULL
        || ngx_http_chaindata_deflater == NULL)
    {
        ngx_log_error(NGX_LOG_EMERG, log, 0,
                      "chaindata: no memory for an inflater and a deflater");
        return NGX_ERROR;
    }

    return NGX_OK;
}


void
ngx_http_chaindata_gzip_done(void)
{
    chaindata_inflater_destroy(ngx_http_chaindata_inflater);
    ngx_http_chaindata_inflater = NULL;
    chaindata_deflater_destroy(ngx_http_chaindata_deflater);
    ngx_http_chaindata_deflater = NULL;
}


/*
 * A body made per request, as a gzip member in its place: one piece
 * (libdeflate, the loader's level), framed as the answers of pieces are.
 */

ngx_int_t
ngx_http_chaindata_gzip_body(ngx_pool_t *pool, ngx_str_t *body)
{
    u_char                   *buf, *out, *p;
    size_t                    n, used;
    chaindata_piece_t         piece;
    ngx_http_chaindata_gz_t   gz;

    buf = ngx_pnalloc(pool, chaindata_piece_bound(body->len));
    if (buf == NULL) {
        return NGX_ERROR;
    }

    n = chaindata_piece_make(ngx_http_chaindata_deflater, body->data,
                             body->len, buf);

    if (n == 0 || chaindata_piece_decode(&piece, buf, n, &used) != 0) {
        return NGX_ERROR;
    }

    ngx_http_chaindata_gz_init(&gz, 1);

    out = ngx_pnalloc(pool, ngx_http_chaindata_gz_frame_len(&gz)
                            + ngx_http_chaindata_gz_piece_len(&gz, &piece));
    if (out == NULL) {
        return NGX_ERROR;
    }

    p = ngx_http_chaindata_gz_begin(&gz, out);
    p = ngx_http_chaindata_gz_piece(&gz, p, &piece);
    p = ngx_http_chaindata_gz_end(&gz, p);

    if (gz.failed) {
        return NGX_ERROR;
    }

    body->data = out;
    body->len = p - out;

    return NGX_OK;
}


/*
 * Whether the request gets an answer of pieces in gzip: its
 * Accept-Encoding takes gzip (chaindata_accept_encoding.h), and this
 * worker has an inflater for the plain answer it would get otherwise.
 */

ngx_uint_t
ngx_http_chaindata_request_takes_gzip(ngx_http_request_t *r)
{
#if (NGX_HTTP_GZIP || NGX_HTTP_HEADERS)
    ngx_table_elt_t  *h;

    h = r->headers_in.accept_encoding;

    if (h == NULL || ngx_http_chaindata_inflater == NULL) {
        return 0;
    }

    return chaindata_accept_encoding_takes_gzip(h->value.data,
                                                h->value.len);
#else
    return 0;
#endif
}


/* a piece's plain bytes into out (room for piece->plain_len) */

ngx_int_t
ngx_http_chaindata_inflate(const chaindata_piece_t *piece, u_char *out)
{
    if (chaindata_piece_inflate(ngx_http_chaindata_inflater, piece, out)
        != 0)
    {
        return NGX_ERROR;
    }

    return NGX_OK;
}


/*
 * The headers of an answer that varies with Accept-Encoding: one Vary,
 * Content-Encoding when it is gzip, and nginx's gzip filter told to leave
 * the body alone (it skips a body with a Content-Encoding; a plain one it
 * is told it may not compress).  The core's header filter writes Vary
 * when gzip_vary is on and a filter asked for it: then it is asked for,
 * else added here, so that there is one either way.
 */

ngx_int_t
ngx_http_chaindata_set_encoding(ngx_http_request_t *r, ngx_uint_t gzip)
{
    ngx_str_t                  vary = ngx_string("Accept-Encoding");
    ngx_str_t                  coding = ngx_string("gzip");
    ngx_table_elt_t           *h;
#if (NGX_HTTP_GZIP)
    ngx_http_core_loc_conf_t  *clcf;

    r->gzip_tested = 1;
    r->gzip_ok = 0;

    clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);

    if (clcf->gzip_vary) {
        r->gzip_vary = 1;

    } else
#endif
    if (ngx_http_chaindata_add_header(r, "Vary", &vary) != NGX_OK) {
        return NGX_ERROR;
    }

    if (!gzip) {
        return NGX_OK;
    }

    h = ngx_http_chaindata_push_header(r, "Content-Encoding", &coding);
    if (h == NULL) {
        return NGX_ERROR;
    }

    r->headers_out.content_encoding = h;

    return NGX_OK;
}


/*
 * A body of pieces and bytes made per request, in order: its length
 * with ngx_http_chaindata_gz_*_len, then written with the others.
 */

void
ngx_http_chaindata_gz_init(ngx_http_chaindata_gz_t *gz, ngx_uint_t gzip)
{
    gz->gzip = gzip;
    gz->failed = 0;
    chaindata_gzip_sum_init(&gz->sum);
}


size_t
ngx_http_chaindata_gz_frame_len(ngx_http_chaindata_gz_t *gz)
{
    return gz->gzip ? CHAINDATA_GZIP_HEADER_LEN + CHAINDATA_GZIP_TRAILER_LEN
                    : 0;
}


size_t
ngx_http_chaindata_gz_piece_len(ngx_http_chaindata_gz_t *gz,
    const chaindata_piece_t *piece)
{
    return gz->gzip ? chaindata_piece_member_len(piece) : piece->plain_len;
}


size_t
ngx_http_chaindata_gz_bytes_len(ngx_http_chaindata_gz_t *gz, size_t len)
{
    return gz->gzip ? chaindata_gzip_stored_len(len) : len;
}


u_char *
ngx_http_chaindata_gz_begin(ngx_http_chaindata_gz_t *gz, u_char *p)
{
    return gz->gzip ? chaindata_gzip_header(p) : p;
}


/*
 * A damaged piece: gz->failed, nothing written.  A gzip member takes the
 * stored piece as it is once its stored CRC-32 holds, a plain body the
 * piece inflated (lmdb-schema/pieces.md), so that a piece damaged in
 * content is a 500 either way, before any byte is sent.
 */

u_char *
ngx_http_chaindata_gz_piece(ngx_http_chaindata_gz_t *gz, u_char *p,
    const chaindata_piece_t *piece)
{
    if (gz->gzip) {
        if (chaindata_piece_check(piece) != 0) {
            gz->failed = 1;
            return p;
        }

        chaindata_gzip_sum_piece(&gz->sum, piece);
        return chaindata_gzip_piece(p, piece);
    }

    if (ngx_http_chaindata_inflate(piece, p) != NGX_OK) {
        gz->failed = 1;
        return p;
    }

    return p + piece->plain_len;
}


u_char *
ngx_http_chaindata_gz_bytes(ngx_http_chaindata_gz_t *gz, u_char *p,
    const u_char *data, size_t len)
{
    if (gz->gzip) {
        chaindata_gzip_sum_bytes(&gz->sum, data, len);
        return chaindata_gzip_stored(p, data, len);
    }

    return ngx_cpymem(p, data, len);
}


u_char *
ngx_http_chaindata_gz_end(ngx_http_chaindata_gz_t *gz, u_char *p)
{
    return gz->gzip ? chaindata_gzip_trailer(p, &gz->sum) : p;
}
