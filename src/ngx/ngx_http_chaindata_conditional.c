
/*
 * chaindata: entity tags and conditional requests (doc/api.md,
 * "Conditionals"): the ETag of an answer made of pieces, and the
 * preconditions that compare a reply's ETag with the request's.
 *
 * Every route evaluates If-Match and If-None-Match itself, If-Match
 * first (RFC 9110, 13.2.2), so that its 412 and 304 carry the route's
 * own headers (the deprecation headers of the rune routes among them);
 * nginx's not-modified filter is kept out of its replies.
 * If-Modified-Since and If-Unmodified-Since are ignored: no reply has a
 * modification date.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_hex.h"
#include "chaindata_layout.h"
#include "ngx_http_chaindata_send.h"


/* an entity tag of a list, or an entry of another shape */
typedef struct {
    u_char      *start;        /* the tag's text, without quotes */
    size_t       len;
    ngx_uint_t   quoted;       /* "tag" or W/"tag" */
    ngx_uint_t   weak;         /* W/"tag" */
    ngx_uint_t   any;          /* "*" */
} ngx_http_chaindata_tag_t;


/*
 * The next entry of a comma-separated list of entity tags from *pos, which
 * it moves past the entry; NGX_DONE at the end of the list.  An entry
 * without quotes is taken as the tag's text, blanks around it dropped.
 */

static ngx_int_t
ngx_http_chaindata_next_tag(u_char **pos, u_char *end,
    ngx_http_chaindata_tag_t *tag)
{
    u_char  *p, *last;

    ngx_memzero(tag, sizeof(ngx_http_chaindata_tag_t));

    p = *pos;

    while (p < end && (*p == ' ' || *p == '\t' || *p == ',')) {
        p++;
    }

    if (p == end) {
        *pos = p;
        return NGX_DONE;
    }

    if (end - p > 2 && p[0] == 'W' && p[1] == '/' && p[2] == '"') {
        tag->weak = 1;
        p += 2;
    }

    if (*p == '"') {
        tag->quoted = 1;
        tag->start = ++p;

        while (p < end && *p != '"') {
            p++;
        }

        /* an unterminated quote names no tag */
        tag->len = (p < end) ? (size_t) (p - tag->start) : (size_t) -1;

    } else {
        tag->start = p;

        while (p < end && *p != ',') {
            p++;
        }

        for (last = p; last > tag->start; last--) {
            if (last[-1] != ' ' && last[-1] != '\t') {
                break;
            }
        }

        tag->len = last - tag->start;
        tag->any = (tag->len == 1 && *tag->start == '*');
    }

    while (p < end && *p != ',') {
        p++;
    }

    *pos = p;

    return NGX_OK;
}


/* whether tag names the ETag etag ("..." as the module makes them) */

static ngx_uint_t
ngx_http_chaindata_tag_is(ngx_http_chaindata_tag_t *tag, ngx_str_t *etag)
{
    if (etag == NULL || etag->len < 2) {
        return 0;
    }

    return tag->len == etag->len - 2
           && ngx_strncmp(tag->start, etag->data + 1, tag->len) == 0;
}


/*
 * If-None-Match: "*", or entity tags compared weakly (RFC 9110, 13.1.2):
 * "tag" and W/"tag" alike.  The tag's text without its quotes matches as
 * well, as upstream compares it (it strips W/"..." and "..." to their
 * text, then compares the entries with its ETag's text).
 */

ngx_http_chaindata_match_e
ngx_http_chaindata_if_none_match(ngx_http_request_t *r, ngx_str_t *etag)
{
    u_char                    *p, *end;
    ngx_table_elt_t           *h;
    ngx_http_chaindata_tag_t   tag;

    /* nginx 1.23 chains repeated headers, 1.22 keeps the first */
#if (nginx_version >= 1023000)
    for (h = r->headers_in.if_none_match; h; h = h->next) {
#else
    for (h = r->headers_in.if_none_match; h; h = NULL) {
#endif
        p = h->value.data;
        end = p + h->value.len;

        while (ngx_http_chaindata_next_tag(&p, end, &tag) == NGX_OK) {

            if (tag.any || ngx_http_chaindata_tag_is(&tag, etag)) {
                return tag.weak ? NGX_HTTP_CHAINDATA_MATCH_WEAK
                                : NGX_HTTP_CHAINDATA_MATCH;
            }
        }
    }

    return NGX_HTTP_CHAINDATA_NO_MATCH;
}


/*
 * If-Match, for a reply that would be a 200 with the ETag etag (or none):
 * whether it holds.  "*", or a strong entity tag equal to the ETag (the
 * strong comparison: W/"tag" never matches); no header holds.
 */

ngx_int_t
ngx_http_chaindata_if_match(ngx_http_request_t *r, ngx_str_t *etag)
{
    u_char                    *p, *end;
    ngx_table_elt_t           *h;
    ngx_http_chaindata_tag_t   tag;

    h = r->headers_in.if_match;

    if (h == NULL) {
        return 1;
    }

#if (nginx_version >= 1023000)
    for ( /* void */ ; h; h = h->next) {
#else
    for ( /* void */ ; h; h = NULL) {
#endif
        p = h->value.data;
        end = p + h->value.len;

        while (ngx_http_chaindata_next_tag(&p, end, &tag) == NGX_OK) {

            if (tag.any
                || (tag.quoted && !tag.weak
                    && ngx_http_chaindata_tag_is(&tag, etag)))
            {
                return 1;
            }
        }
    }

    return 0;
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
