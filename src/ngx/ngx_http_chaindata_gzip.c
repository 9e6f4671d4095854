
/*
 * chaindata: answers made of precompressed pieces (lmdb-schema/pieces.md,
 * README "chaindata_tx;"): which encoding a request gets, the headers that
 * say so, and a body written either way.  Nothing here compresses; the
 * plain body is each piece inflated whole into the request's buffer.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_piece.h"
#include "ngx_http_chaindata_gzip.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"


/* made once per worker process: inflating allocates nothing */
static chaindata_inflater_t  *ngx_http_chaindata_inflater;


ngx_int_t
ngx_http_chaindata_gzip_init(ngx_log_t *log)
{
    if (ngx_http_chaindata_inflater == NULL) {
        ngx_http_chaindata_inflater = chaindata_inflater_create();

        if (ngx_http_chaindata_inflater == NULL) {
            ngx_log_error(NGX_LOG_EMERG, log, 0,
                          "chaindata: no memory for an inflater");
            return NGX_ERROR;
        }
    }

    return NGX_OK;
}


void
ngx_http_chaindata_gzip_done(void)
{
    chaindata_inflater_destroy(ngx_http_chaindata_inflater);
    ngx_http_chaindata_inflater = NULL;
}


/* whether the request's Accept-Encoding takes gzip (RFC 9110, 12.5.3) */

ngx_uint_t
ngx_http_chaindata_accepts_gzip(ngx_http_request_t *r)
{
#if (NGX_HTTP_GZIP || NGX_HTTP_HEADERS)
    ngx_table_elt_t  *h;

    h = r->headers_in.accept_encoding;

    if (h == NULL || ngx_http_chaindata_inflater == NULL) {
        return 0;
    }

    return chaindata_gzip_accepted(h->value.data, h->value.len);
#else
    return 0;
#endif
}


/*
 * The strong ETag of an answer made of pieces: the stored record's digest,
 * quoted, then what of the request shapes the body (the route writes at
 * most len bytes of it), then "-gz" for the gzip encoding: each encoding
 * has its own ETag.  Begin returns where the route writes, or NULL.
 */

#define NGX_HTTP_CHAINDATA_ETAG_GZ  "-gz"

u_char *
ngx_http_chaindata_etag_begin(ngx_http_request_t *r, ngx_str_t *etag,
    const u_char *digest, size_t len)
{
    u_char  *p;

    etag->data = ngx_pnalloc(r->pool, 2 + 2 * CHAINDATA_DIGEST_LEN + len
                                      + sizeof(NGX_HTTP_CHAINDATA_ETAG_GZ)
                                      - 1);
    if (etag->data == NULL) {
        return NULL;
    }

    p = etag->data;
    *p++ = '"';

    return chaindata_hex_encode(p, digest, CHAINDATA_DIGEST_LEN);
}


void
ngx_http_chaindata_etag_end(ngx_str_t *etag, u_char *p, ngx_uint_t gzip)
{
    if (gzip) {
        p = ngx_cpymem(p, NGX_HTTP_CHAINDATA_ETAG_GZ,
                       sizeof(NGX_HTTP_CHAINDATA_ETAG_GZ) - 1);
    }

    *p++ = '"';
    etag->len = p - etag->data;
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


/* a piece that does not inflate is damaged: gz->failed, nothing written */

u_char *
ngx_http_chaindata_gz_piece(ngx_http_chaindata_gz_t *gz, u_char *p,
    const chaindata_piece_t *piece)
{
    if (gz->gzip) {
        chaindata_gzip_sum_piece(&gz->sum, piece);
        return chaindata_gzip_piece(p, piece);
    }

    if (chaindata_piece_inflate(ngx_http_chaindata_inflater, piece, p) != 0) {
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


/*
 * The page [offset, offset + limit) of a list of count items stored in
 * chunks of per items under list (lmdb-schema/pieces.md, "Chunks"): the
 * chunks it needs read and checked.  chunk0 is the first chunk when its
 * header holds it (chunk0->mv_size 0 when not): then only the chunks
 * after it are looked up, none for a page of the first chunk.
 */

ngx_int_t
ngx_http_chaindata_chunks_read(ngx_http_request_t *r,
    ngx_http_chaindata_chunks_t *ch, chaindata_dbi_e db, u_char *list,
    size_t list_len, const MDB_val *chunk0, uint64_t count, unsigned per,
    uint64_t offset, uint64_t limit, const char *what)
{
    size_t              key_len;
    uint64_t            left;
    ngx_uint_t          i, got, first;
    chaindata_chunk_t  *c;
    u_char              key[CHAINDATA_LIST_ENTRY_KEY_MAX];

    ch->pool = r->pool;
    ch->n = chaindata_chunk_plan(count, per, offset, limit, ch->span,
                                 NGX_HTTP_CHAINDATA_SPANS_MAX);
    if (ch->n == 0) {
        return NGX_OK;
    }

    first = 0;

    if (chunk0->mv_size && ch->span[0].chunk == 0) {
        ch->val[0] = *chunk0;
        first = 1;
    }

    got = 0;

    if (first < ch->n) {
        key_len = chaindata_list_entry_key(key, list, list_len,
                                           ch->span[first].chunk);

        if (ngx_http_chaindata_store_range(r->connection->log, db, list,
                                           list_len, key, key_len,
                                           ch->val + first, ch->n - first,
                                           &got)
            != NGX_OK)
        {
            return NGX_ERROR;
        }
    }

    if (first + got != ch->n) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: %s counts %uL entries but \"%s\" holds "
                      "fewer", what, count, chaindata_db_names[db]);
        return NGX_ERROR;
    }

    for (i = 0; i < ch->n; i++) {
        c = &ch->chunk[i];
        left = count - (uint64_t) ch->span[i].chunk * per;

        if (chaindata_chunk_decode(c, ch->val[i].mv_data, ch->val[i].mv_size)
            != 0
            || c->n != (left < per ? left : per))
        {
            ngx_http_chaindata_log_damaged(r->connection->log, db,
                                           ch->val[i].mv_data,
                                           ch->val[i].mv_size);
            return NGX_ERROR;
        }
    }

    return NGX_OK;
}


/* the page's items in the answer's encoding: length, then bytes */

size_t
ngx_http_chaindata_chunks_len(ngx_http_chaindata_gz_t *gz,
    ngx_http_chaindata_chunks_t *ch)
{
    size_t      len;
    uint32_t    start, n;
    ngx_uint_t  i;

    len = 0;

    for (i = 0; i < ch->n; i++) {
        if (i) {
            len += ngx_http_chaindata_gz_bytes_len(gz, 1);
        }

        if (chaindata_chunk_span_whole(&ch->chunk[i], &ch->span[i])) {
            len += ngx_http_chaindata_gz_piece_len(gz, &ch->chunk[i].piece);
            continue;
        }

        chaindata_chunk_span_bytes(&ch->chunk[i], &ch->span[i], &start, &n);
        len += ngx_http_chaindata_gz_bytes_len(gz, n);
    }

    return len;
}


/*
 * The items of a span that cuts its chunk: the chunk inflated into the
 * pool, the items' bytes written as they are (stored blocks in a gzip
 * member), the chunk freed.
 */

static u_char *
ngx_http_chaindata_chunk_cut(ngx_http_chaindata_gz_t *gz, u_char *p,
    ngx_pool_t *pool, chaindata_chunk_t *c, chaindata_chunk_span_t *s)
{
    u_char    *plain;
    uint32_t   start, n;

    plain = ngx_palloc(pool, c->piece.plain_len + 1);
    if (plain == NULL) {
        gz->failed = 1;
        return p;
    }

    if (chaindata_piece_inflate(ngx_http_chaindata_inflater, &c->piece,
                                plain)
        != 0)
    {
        gz->failed = 1;

    } else {
        chaindata_chunk_span_bytes(c, s, &start, &n);
        p = ngx_http_chaindata_gz_bytes(gz, p, plain + start, n);
    }

    (void) ngx_pfree(pool, plain);

    return p;
}


u_char *
ngx_http_chaindata_chunks_write(ngx_http_chaindata_gz_t *gz, u_char *p,
    ngx_http_chaindata_chunks_t *ch)
{
    ngx_uint_t  i;

    for (i = 0; i < ch->n && !gz->failed; i++) {
        if (i) {
            p = ngx_http_chaindata_gz_bytes(gz, p, (u_char *) ",", 1);
        }

        if (chaindata_chunk_span_whole(&ch->chunk[i], &ch->span[i])) {
            p = ngx_http_chaindata_gz_piece(gz, p, &ch->chunk[i].piece);
            continue;
        }

        p = ngx_http_chaindata_chunk_cut(gz, p, ch->pool, &ch->chunk[i],
                                         &ch->span[i]);
    }

    return p;
}
