
/*
 * chaindata: the request targets of the chainhook route without nginx
 * (see the header).
 *
 * A request target as the client sent it is scanned in place: its path
 * ends at "?" (or a "#" a broken client sent), pieces are what lies
 * between slashes after the first one.
 */


#include <string.h>

#include "ngx_http_chaindata_chainhook_path.h"


/* how a path piece is compared with a literal */
#define NGX_HTTP_CHAINDATA_PIECE_DECODE     0x01
#define NGX_HTTP_CHAINDATA_PIECE_CASELESS   0x02
#define NGX_HTTP_CHAINDATA_PIECE_LOOSE                                       \
    (NGX_HTTP_CHAINDATA_PIECE_DECODE|NGX_HTTP_CHAINDATA_PIECE_CASELESS)


const unsigned char *
ngx_http_chaindata_target_path_end(const unsigned char *p,
    const unsigned char *end)
{
    while (p < end && *p != '?' && *p != '#') {
        p++;
    }

    return p;
}


static const unsigned char *
ngx_http_chaindata_piece_end(const unsigned char *p, const unsigned char *end)
{
    while (p < end && *p != '/') {
        p++;
    }

    return p;
}


/* the piece that ends at e, which lies after the path's first slash */

static const unsigned char *
ngx_http_chaindata_piece_start(const unsigned char *e)
{
    while (e[-1] != '/') {
        e--;
    }

    return e;
}


/* whether the piece [p, q) is the literal, percent-decoded if asked */

static int
ngx_http_chaindata_piece_is(const unsigned char *p, const unsigned char *q,
    const char *lit, unsigned how)
{
    int            hi, lo;
    unsigned char  c;

    for ( /* void */ ; p < q; lit++) {
        c = *p++;

        if (c == '%' && (how & NGX_HTTP_CHAINDATA_PIECE_DECODE)
            && q - p >= 2)
        {
            hi = ngx_http_chaindata_hex_value(p[0]);
            lo = ngx_http_chaindata_hex_value(p[1]);

            if (hi >= 0 && lo >= 0) {
                c = (unsigned char) (hi << 4 | lo);
                p += 2;
            }
        }

        if ((how & NGX_HTTP_CHAINDATA_PIECE_CASELESS)
            && c >= 'A' && c <= 'Z')
        {
            c |= 0x20;
        }

        if (*lit == '\0' || c != (unsigned char) *lit) {
            return 0;
        }
    }

    return *lit == '\0';
}


/* the piece that ends at q comes right before a "chainhooks" piece */

static int
ngx_http_chaindata_before_chainhooks(const unsigned char *q,
    const unsigned char *end)
{
    if (q == end) {
        return 0;
    }

    return ngx_http_chaindata_piece_is(q + 1,
                                       ngx_http_chaindata_piece_end(q + 1,
                                                                    end),
                                       "chainhooks",
                                       NGX_HTTP_CHAINDATA_PIECE_LOOSE);
}


/* the piece starting at p comes right after the pieces "v1" and "ext" */

static int
ngx_http_chaindata_after_v1_ext(const unsigned char *first,
    const unsigned char *p)
{
    const unsigned char  *s1, *s2;

    if (p - 1 == first) {
        return 0;
    }

    s1 = ngx_http_chaindata_piece_start(p - 1);

    if (s1 - 1 == first
        || !ngx_http_chaindata_piece_is(s1, p - 1, "ext",
                                        NGX_HTTP_CHAINDATA_PIECE_LOOSE))
    {
        return 0;
    }

    s2 = ngx_http_chaindata_piece_start(s1 - 1);

    return ngx_http_chaindata_piece_is(s2, s1 - 1, "v1",
                                       NGX_HTTP_CHAINDATA_PIECE_LOOSE);
}


size_t
ngx_http_chaindata_key_pieces(const unsigned char *target, size_t len,
    ngx_http_chaindata_span_t *key)
{
    size_t                     n;
    const unsigned char       *p, *q, *first, *end;
    ngx_http_chaindata_span_t  last_before, first_after;

    end = ngx_http_chaindata_target_path_end(target, target + len);
    first = memchr(target, '/', end - target);

    if (first == NULL) {
        return 0;
    }

    n = 0;
    memset(&last_before, 0, sizeof(last_before));
    memset(&first_after, 0, sizeof(first_after));

    for (p = first + 1; /* void */; p = q + 1) {
        q = ngx_http_chaindata_piece_end(p, end);

        if (ngx_http_chaindata_before_chainhooks(q, end)) {
            last_before.data = p;
            last_before.len = q - p;
            n++;

        } else if (ngx_http_chaindata_after_v1_ext(first, p)) {
            if (first_after.data == NULL) {
                first_after.data = p;
                first_after.len = q - p;
            }

            n++;
        }

        if (q == end) {
            break;
        }
    }

    if (key) {
        *key = last_before.data ? last_before : first_after;
    }

    return n;
}


static unsigned char *
ngx_http_chaindata_put_redacted(unsigned char *o)
{
    memcpy(o, NGX_HTTP_CHAINDATA_REDACTED,
           sizeof(NGX_HTTP_CHAINDATA_REDACTED) - 1);

    return o + sizeof(NGX_HTTP_CHAINDATA_REDACTED) - 1;
}


size_t
ngx_http_chaindata_redact(unsigned char *out, const unsigned char *target,
    size_t len, size_t n)
{
    unsigned char        *o;
    const unsigned char  *p, *q, *first, *end;

    end = ngx_http_chaindata_target_path_end(target, target + len);
    first = memchr(target, '/', end - target);
    o = out;

    if (n == 0 || first == NULL) {
        if (first) {
            memcpy(o, target, first + 1 - target);
            o += first + 1 - target;
        }

        o = ngx_http_chaindata_put_redacted(o);
        goto done;
    }

    memcpy(o, target, first + 1 - target);
    o += first + 1 - target;

    for (p = first + 1; /* void */; p = q + 1) {
        q = ngx_http_chaindata_piece_end(p, end);

        if (ngx_http_chaindata_before_chainhooks(q, end)
            || ngx_http_chaindata_after_v1_ext(first, p))
        {
            o = ngx_http_chaindata_put_redacted(o);

        } else {
            memcpy(o, p, q - p);
            o += q - p;
        }

        if (q == end) {
            break;
        }

        *o++ = '/';
    }

done:

    memcpy(o, end, target + len - end);
    o += target + len - end;

    return o - out;
}


/* the last four pieces of the path, NO_ROUTE when it has fewer */

static int
ngx_http_chaindata_chh_pieces(const unsigned char *start,
    const unsigned char *end, ngx_http_chaindata_span_t *piece)
{
    int                   i;
    const unsigned char  *s, *e;

    e = end;

    for (i = 3; i >= 0; i--) {
        for (s = e; s > start && s[-1] != '/'; s--) { /* void */ }

        if (s == start) {
            return -1;
        }

        piece[i].data = s;
        piece[i].len = e - s;
        e = s - 1;
    }

    return 0;
}


/* a piece into buf, percent-decoded when raw, else as it is */

static void
ngx_http_chaindata_chh_unescape(ngx_http_chaindata_span_t *piece, int raw,
    unsigned char *buf, ngx_http_chaindata_span_t *out)
{
    if (!raw) {
        *out = *piece;
        return;
    }

    out->data = buf;
    out->len = ngx_http_chaindata_unescape(buf, piece->data, piece->len);
}


/*
 * The path is the one the client sent (so that "//" is an empty key even
 * where nginx merges slashes, and "%2F" stays inside the key); after a
 * rewrite or an internal redirect it is the (decoded) current URI.
 * Upstream validates apiKey, then chainhookUuid.
 */

ngx_http_chaindata_chh_e
ngx_http_chaindata_chh_target(const unsigned char *path, size_t len, int raw,
    ngx_http_chaindata_chh_params_t *p)
{
    unsigned                   how;
    const unsigned char       *end;
    ngx_http_chaindata_span_t  piece[4], uuid;

    end = raw ? ngx_http_chaindata_target_path_end(path, path + len)
              : path + len;

    if (ngx_http_chaindata_chh_pieces(path, end, piece) != 0) {
        return NGX_HTTP_CHAINDATA_CHH_NO_ROUTE;
    }

    how = raw ? NGX_HTTP_CHAINDATA_PIECE_DECODE : 0;

    if (!ngx_http_chaindata_piece_is(piece[1].data,
                                     piece[1].data + piece[1].len,
                                     "chainhooks", how)
        || !ngx_http_chaindata_piece_is(piece[3].data,
                                        piece[3].data + piece[3].len,
                                        "status", how))
    {
        return NGX_HTTP_CHAINDATA_CHH_NO_ROUTE;
    }

    if (piece[0].len == 0) {
        return NGX_HTTP_CHAINDATA_CHH_KEY_EMPTY;
    }

    if (piece[0].len > sizeof(p->keybuf)) {
        return NGX_HTTP_CHAINDATA_CHH_KEY_LONG;
    }

    ngx_http_chaindata_chh_unescape(&piece[0], raw, p->keybuf, &p->key);

    /* "%" or "%4" alone decode to nothing (found by fuzz_chainhook) */
    if (p->key.len == 0) {
        return NGX_HTTP_CHAINDATA_CHH_KEY_EMPTY;
    }

    if (p->key.len > NGX_HTTP_CHAINDATA_API_KEY_MAX) {
        return NGX_HTTP_CHAINDATA_CHH_KEY_LONG;
    }

    if (piece[2].len > sizeof(p->uuidbuf)) {
        return NGX_HTTP_CHAINDATA_CHH_BAD_UUID;
    }

    ngx_http_chaindata_chh_unescape(&piece[2], raw, p->uuidbuf, &uuid);

    if (ngx_http_chaindata_uuid_parse(uuid.data, uuid.len, p->uuid) != 0) {
        return NGX_HTTP_CHAINDATA_CHH_BAD_UUID;
    }

    return NGX_HTTP_CHAINDATA_CHH_OK;
}
