
/*
 * chaindata: GET {prefix}/{apiKey}/chainhooks/{chainhookUuid}/status, a
 * chainhook's status behind its API key (upstream-behaviour.md, section
 * 5), and what keeps that key out of logs and caches:
 *
 *   $chaindata_redacted_uri     the request URI with the key as "***"
 *   $chaindata_api_key_digest   16 hex digits of the key's SHA-256
 *
 * the request line (what $request and error log lines show) redacted the
 * same way before any other module sees it, and Cache-Control: no-store
 * on every response of the route and to any path that carries a key.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <openssl/crypto.h>

#include "ngx_http_chaindata_codec.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"


#define NGX_HTTP_CHAINDATA_REDACTED         "***"
#define NGX_HTTP_CHAINDATA_LOG_DIGEST_LEN   8

/* how a path piece is compared with a literal */
#define NGX_HTTP_CHAINDATA_PIECE_DECODE     0x01
#define NGX_HTTP_CHAINDATA_PIECE_CASELESS   0x02
#define NGX_HTTP_CHAINDATA_PIECE_LOOSE                                       \
    (NGX_HTTP_CHAINDATA_PIECE_DECODE|NGX_HTTP_CHAINDATA_PIECE_CASELESS)

#define NGX_HTTP_CHAINDATA_KEY_SHORT                                         \
    "params/apiKey must NOT have fewer than 1 characters"
#define NGX_HTTP_CHAINDATA_KEY_LONG                                          \
    "params/apiKey must NOT have more than 128 characters"
#define NGX_HTTP_CHAINDATA_UUID_FORMAT                                       \
    "params/chainhookUuid must match format \"uuid\""
#define NGX_HTTP_CHAINDATA_ROUTE_SHAPE                                       \
    "Route not found: the path ends in "                                     \
    "/{apiKey}/chainhooks/{chainhookUuid}/status"


typedef struct {
    ngx_str_t    key;
    u_char       uuid[NGX_HTTP_CHAINDATA_UUID_LEN];
    u_char       digest[NGX_HTTP_CHAINDATA_KEY_DIGEST_LEN];
} ngx_http_chaindata_chh_query_t;


static ngx_int_t ngx_http_chaindata_variable_redacted_uri(
    ngx_http_request_t *r, ngx_http_variable_value_t *v, uintptr_t data);
static ngx_int_t ngx_http_chaindata_variable_api_key_digest(
    ngx_http_request_t *r, ngx_http_variable_value_t *v, uintptr_t data);


static ngx_http_variable_t  ngx_http_chaindata_chainhook_vars[] = {

    /* not cached: in the route's locations it also depends on the location */
    { ngx_string("chaindata_redacted_uri"), NULL,
      ngx_http_chaindata_variable_redacted_uri, 0,
      NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("chaindata_api_key_digest"), NULL,
      ngx_http_chaindata_variable_api_key_digest, 0, 0, 0 },

      ngx_http_null_variable
};


/* all zero, no key's digest: what an unknown chainhook is compared with */
static u_char  ngx_http_chaindata_no_digest[NGX_HTTP_CHAINDATA_KEY_DIGEST_LEN];

static ngx_http_output_header_filter_pt  ngx_http_chaindata_next_header_filter;


/*
 * Path pieces.  A request target as the client sent it is scanned in
 * place: its path ends at "?" (or a "#" a broken client sent), pieces are
 * what lies between slashes after the first one.
 */

static u_char *
ngx_http_chaindata_path_end(u_char *p, u_char *end)
{
    while (p < end && *p != '?' && *p != '#') {
        p++;
    }

    return p;
}


static u_char *
ngx_http_chaindata_piece_end(u_char *p, u_char *end)
{
    while (p < end && *p != '/') {
        p++;
    }

    return p;
}


/* the piece that ends at e, which lies after the path's first slash */

static u_char *
ngx_http_chaindata_piece_start(u_char *e)
{
    while (e[-1] != '/') {
        e--;
    }

    return e;
}


static ngx_int_t
ngx_http_chaindata_hex_digit(u_char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }

    c |= 0x20;

    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }

    return -1;
}


/* whether the piece [p, q) is the literal, percent-decoded if asked */

static ngx_uint_t
ngx_http_chaindata_piece_is(u_char *p, u_char *q, const char *lit,
    ngx_uint_t how)
{
    u_char     c;
    ngx_int_t  hi, lo;

    for ( /* void */ ; p < q; lit++) {
        c = *p++;

        if (c == '%' && (how & NGX_HTTP_CHAINDATA_PIECE_DECODE)
            && q - p >= 2)
        {
            hi = ngx_http_chaindata_hex_digit(p[0]);
            lo = ngx_http_chaindata_hex_digit(p[1]);

            if (hi >= 0 && lo >= 0) {
                c = (u_char) (hi << 4 | lo);
                p += 2;
            }
        }

        if (how & NGX_HTTP_CHAINDATA_PIECE_CASELESS) {
            c = ngx_tolower(c);
        }

        if (*lit == '\0' || c != (u_char) *lit) {
            return 0;
        }
    }

    return *lit == '\0';
}


/* the piece [p, q) comes right before a "chainhooks" piece */

static ngx_uint_t
ngx_http_chaindata_before_chainhooks(u_char *q, u_char *end)
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

static ngx_uint_t
ngx_http_chaindata_after_v1_ext(u_char *first, u_char *p)
{
    u_char  *s1, *s2;

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


/*
 * The pieces of a request target that hold an API key: the one after
 * "v1/ext" and the one before "chainhooks" (compared percent-decoded and
 * in any case, so that no spelling of the route escapes).  Writes into
 * *key the one the route would authenticate with (before the last
 * "chainhooks", else the first after "v1/ext") and returns how many.
 */

static ngx_uint_t
ngx_http_chaindata_key_pieces(ngx_str_t *uri, ngx_str_t *key)
{
    u_char      *p, *q, *first, *end;
    ngx_str_t    last_before, first_after;
    ngx_uint_t   n;

    end = ngx_http_chaindata_path_end(uri->data, uri->data + uri->len);
    first = ngx_strlchr(uri->data, end, '/');

    if (first == NULL) {
        return 0;
    }

    n = 0;
    ngx_str_null(&last_before);
    ngx_str_null(&first_after);

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


/*
 * A copy of the request target with every key piece replaced by "***";
 * with "whole" set and no key piece found, the whole path is replaced.
 * NGX_DECLINED when there is nothing to replace.
 */

static ngx_int_t
ngx_http_chaindata_redact(ngx_pool_t *pool, ngx_str_t *uri,
    ngx_uint_t whole, ngx_str_t *out)
{
    u_char      *p, *q, *first, *end, *o;
    ngx_uint_t   n;

    n = ngx_http_chaindata_key_pieces(uri, NULL);

    if (n == 0 && !whole) {
        return NGX_DECLINED;
    }

    out->data = ngx_pnalloc(pool, uri->len + (n + 1)
                                  * (sizeof(NGX_HTTP_CHAINDATA_REDACTED) - 1));
    if (out->data == NULL) {
        return NGX_ERROR;
    }

    end = ngx_http_chaindata_path_end(uri->data, uri->data + uri->len);
    first = ngx_strlchr(uri->data, end, '/');
    o = out->data;

    if (n == 0) {
        if (first) {
            o = ngx_cpymem(o, uri->data, first + 1 - uri->data);
        }

        o = ngx_cpymem(o, NGX_HTTP_CHAINDATA_REDACTED,
                       sizeof(NGX_HTTP_CHAINDATA_REDACTED) - 1);
        goto done;
    }

    o = ngx_cpymem(o, uri->data, first + 1 - uri->data);

    for (p = first + 1; /* void */; p = q + 1) {
        q = ngx_http_chaindata_piece_end(p, end);

        if (ngx_http_chaindata_before_chainhooks(q, end)
            || ngx_http_chaindata_after_v1_ext(first, p))
        {
            o = ngx_cpymem(o, NGX_HTTP_CHAINDATA_REDACTED,
                           sizeof(NGX_HTTP_CHAINDATA_REDACTED) - 1);

        } else {
            o = ngx_cpymem(o, p, q - p);
        }

        if (q == end) {
            break;
        }

        *o++ = '/';
    }

done:

    o = ngx_cpymem(o, end, uri->data + uri->len - end);
    out->len = o - out->data;

    return NGX_OK;
}


static ngx_uint_t
ngx_http_chaindata_in_route(ngx_http_request_t *r)
{
    ngx_http_core_loc_conf_t  *clcf;

    clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);

    return clcf->handler == ngx_http_chaindata_chainhook_handler;
}


static ngx_int_t
ngx_http_chaindata_variable_redacted_uri(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_int_t  rc;
    ngx_str_t  out;

    /* nothing of the target is known (a request line nginx refused) */
    if (r->unparsed_uri.len == 0) {
        v->not_found = 1;
        return NGX_OK;
    }

    rc = ngx_http_chaindata_redact(r->pool, &r->unparsed_uri,
                                   ngx_http_chaindata_in_route(r), &out);

    if (rc == NGX_ERROR) {
        return NGX_ERROR;
    }

    if (rc == NGX_DECLINED) {
        out = r->unparsed_uri;
    }

    v->len = out.len;
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;
    v->data = out.data;

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_variable_api_key_digest(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    u_char     *dst, *src;
    ngx_str_t   raw, key;
    u_char      digest[NGX_HTTP_CHAINDATA_KEY_DIGEST_LEN];

    if (r->unparsed_uri.len == 0
        || ngx_http_chaindata_key_pieces(&r->unparsed_uri, &raw) == 0
        || raw.len == 0)
    {
        v->not_found = 1;
        return NGX_OK;
    }

    key.data = ngx_pnalloc(r->pool, raw.len);
    if (key.data == NULL) {
        return NGX_ERROR;
    }

    dst = key.data;
    src = raw.data;
    ngx_unescape_uri(&dst, &src, raw.len, 0);
    key.len = dst - key.data;

    v->data = ngx_pnalloc(r->pool, 2 * NGX_HTTP_CHAINDATA_LOG_DIGEST_LEN);
    if (v->data == NULL) {
        return NGX_ERROR;
    }

    ngx_http_chaindata_key_digest(key.data, key.len, digest);
    ngx_hex_dump(v->data, digest, NGX_HTTP_CHAINDATA_LOG_DIGEST_LEN);

    ngx_explicit_memzero(key.data, key.len);

    v->len = 2 * NGX_HTTP_CHAINDATA_LOG_DIGEST_LEN;
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_chainhook_add_variables(ngx_conf_t *cf)
{
    ngx_http_variable_t  *var, *v;

    for (v = ngx_http_chaindata_chainhook_vars; v->name.len; v++) {
        var = ngx_http_add_variable(cf, &v->name, v->flags);
        if (var == NULL) {
            return NGX_ERROR;
        }

        var->get_handler = v->get_handler;
        var->data = v->data;
    }

    return NGX_OK;
}


/*
 * The request line (what $request and every error log line of the
 * request, as request: "...", show) with the key as "***".  The request
 * target itself ($request_uri, $uri) is left alone: routing and proxying
 * need it.
 */

static ngx_int_t
ngx_http_chaindata_redact_request_line(ngx_http_request_t *r,
    ngx_uint_t whole)
{
    u_char     *p, *line_end;
    ngx_int_t   rc;
    ngx_str_t   uri, line;

    if (r != r->main || r->unparsed_uri.len == 0) {
        return NGX_DECLINED;
    }

    rc = ngx_http_chaindata_redact(r->pool, &r->unparsed_uri, whole, &uri);

    if (rc == NGX_DECLINED) {
        return NGX_DECLINED;
    }

    if (rc == NGX_ERROR) {
        /* better no answer than a key in the logs */
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    line_end = r->request_line.data + r->request_line.len;

    if (r->request_line.len
        && r->unparsed_uri.data >= r->request_line.data
        && r->unparsed_uri.data + r->unparsed_uri.len <= line_end)
    {
        /* HTTP/1: the target lies in the line, absolute-form or not */
        line.len = r->request_line.len - r->unparsed_uri.len + uri.len;

        line.data = ngx_pnalloc(r->pool, line.len);
        if (line.data == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        p = ngx_cpymem(line.data, r->request_line.data,
                       r->unparsed_uri.data - r->request_line.data);
        p = ngx_cpymem(p, uri.data, uri.len);
        ngx_memcpy(p, r->unparsed_uri.data + r->unparsed_uri.len,
                   line_end - (r->unparsed_uri.data + r->unparsed_uri.len));

    } else {
        /* HTTP/2 builds the line apart: method, target, protocol */
        line.len = r->method_name.len + 1 + uri.len
                   + (r->http_protocol.len ? 1 + r->http_protocol.len : 0);

        line.data = ngx_pnalloc(r->pool, line.len);
        if (line.data == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        p = ngx_cpymem(line.data, r->method_name.data, r->method_name.len);
        *p++ = ' ';
        p = ngx_cpymem(p, uri.data, uri.len);

        if (r->http_protocol.len) {
            *p++ = ' ';
            ngx_memcpy(p, r->http_protocol.data, r->http_protocol.len);
        }
    }

    r->request_line = line;

    return NGX_DECLINED;
}


/* post-read phase: before any module can log the line, on every server */

static ngx_int_t
ngx_http_chaindata_redact_line_early(ngx_http_request_t *r)
{
    return ngx_http_chaindata_redact_request_line(r, 0);
}


/*
 * Pre-access phase, ahead of limit_req and the access modules: in the
 * route's own locations a path of another shape, where no piece could
 * be told to be the key, is hidden whole (as $chaindata_redacted_uri
 * does).
 */

static ngx_int_t
ngx_http_chaindata_redact_line_in_route(ngx_http_request_t *r)
{
    if (!ngx_http_chaindata_in_route(r)
        || r->unparsed_uri.len == 0
        || ngx_http_chaindata_key_pieces(&r->unparsed_uri, NULL))
    {
        return NGX_DECLINED;
    }

    return ngx_http_chaindata_redact_request_line(r, 1);
}


/*
 * Cache-Control: no-store on every response of the route, and on any
 * response to a path that carries a key, whoever made it (limit_req's
 * 503, nginx's own error pages): such a response is per-key data.
 * Another Cache-Control already set is dropped.
 */

static ngx_int_t
ngx_http_chaindata_no_store(ngx_http_request_t *r)
{
    ngx_str_t         value = ngx_string(NGX_HTTP_CHAINDATA_CACHE_NONE);
    ngx_uint_t        i, found;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    found = 0;
    part = &r->headers_out.headers.part;
    h = part->elts;

    for (i = 0; /* void */; i++) {

        if (i >= part->nelts) {
            if (part->next == NULL) {
                break;
            }

            part = part->next;
            h = part->elts;
            i = 0;
        }

        if (h[i].hash == 0
            || h[i].key.len != sizeof("Cache-Control") - 1
            || ngx_strncasecmp(h[i].key.data, (u_char *) "Cache-Control",
                               sizeof("Cache-Control") - 1) != 0)
        {
            continue;
        }

        if (!found && h[i].value.len == value.len
            && ngx_strncmp(h[i].value.data, value.data, value.len) == 0)
        {
            found = 1;
            continue;
        }

        h[i].hash = 0;
    }

    if (found) {
        return NGX_OK;
    }

    return ngx_http_chaindata_add_header(r, "Cache-Control", &value);
}


static ngx_int_t
ngx_http_chaindata_chainhook_header_filter(ngx_http_request_t *r)
{
    if (r == r->main
        && (ngx_http_chaindata_in_route(r)
            || (r->unparsed_uri.len
                && ngx_http_chaindata_key_pieces(&r->unparsed_uri, NULL))))
    {
        if (ngx_http_chaindata_no_store(r) != NGX_OK) {
            return NGX_ERROR;
        }
    }

    return ngx_http_chaindata_next_header_filter(r);
}


ngx_int_t
ngx_http_chaindata_chainhook_init(ngx_conf_t *cf)
{
    ngx_http_handler_pt        *h;
    ngx_http_core_main_conf_t  *cmcf;

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);

    h = ngx_array_push(&cmcf->phases[NGX_HTTP_POST_READ_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_chaindata_redact_line_early;

    /* a phase runs the handlers added last first: this one before limit_req */
    h = ngx_array_push(&cmcf->phases[NGX_HTTP_PREACCESS_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_chaindata_redact_line_in_route;

    ngx_http_chaindata_next_header_filter = ngx_http_top_header_filter;
    ngx_http_top_header_filter = ngx_http_chaindata_chainhook_header_filter;

    return NGX_OK;
}


/*
 * The route's parameters: the last four pieces of the path must be
 * {apiKey}/chainhooks/{chainhookUuid}/status.  The path is the one the
 * client sent (so that "//" is an empty key even where nginx merges
 * slashes, and "%2F" stays inside the key), percent-decoded here; after
 * a rewrite or an internal redirect it is the (decoded) current URI.
 */

static ngx_int_t
ngx_http_chaindata_chh_pieces(ngx_http_request_t *r, ngx_str_t *piece,
    ngx_uint_t *decode)
{
    u_char      *start, *end, *s, *e;
    ngx_int_t    i;

    *decode = r->valid_unparsed_uri && r->unparsed_uri.len;

    if (*decode) {
        start = r->unparsed_uri.data;
        end = ngx_http_chaindata_path_end(start, start + r->unparsed_uri.len);

    } else {
        start = r->uri.data;
        end = start + r->uri.len;
    }

    e = end;

    for (i = 3; i >= 0; i--) {
        for (s = e; s > start && s[-1] != '/'; s--) { /* void */ }

        if (s == start) {
            return NGX_DECLINED;
        }

        piece[i].data = s;
        piece[i].len = e - s;
        e = s - 1;
    }

    return NGX_OK;
}


static ngx_int_t
ngx_http_chaindata_chh_unescape(ngx_http_request_t *r, ngx_str_t *piece,
    ngx_uint_t decode, ngx_str_t *out)
{
    u_char  *dst, *src;

    if (!decode) {
        *out = *piece;
        return NGX_OK;
    }

    out->data = ngx_pnalloc(r->pool, piece->len);
    if (out->data == NULL) {
        return NGX_ERROR;
    }

    dst = out->data;
    src = piece->data;
    ngx_unescape_uri(&dst, &src, piece->len, 0);
    out->len = dst - out->data;

    return NGX_OK;
}


/*
 * NGX_OK with q filled; NGX_DECLINED with the error already sent in *rc;
 * NGX_ERROR.
 */

static ngx_int_t
ngx_http_chaindata_chh_parse(ngx_http_request_t *r,
    ngx_http_chaindata_chh_query_t *q, ngx_int_t *rc)
{
    ngx_str_t   piece[4], uuid;
    ngx_uint_t  decode, how;

    if (ngx_http_chaindata_chh_pieces(r, piece, &decode) != NGX_OK) {
        goto no_route;
    }

    how = decode ? NGX_HTTP_CHAINDATA_PIECE_DECODE : 0;

    if (!ngx_http_chaindata_piece_is(piece[1].data,
                                     piece[1].data + piece[1].len,
                                     "chainhooks", how)
        || !ngx_http_chaindata_piece_is(piece[3].data,
                                        piece[3].data + piece[3].len,
                                        "status", how))
    {
        goto no_route;
    }

    /* upstream validates apiKey, then chainhookUuid */

    if (piece[0].len == 0) {
        *rc = ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST,
                                            "FST_ERR_VALIDATION",
                                            NGX_HTTP_CHAINDATA_KEY_SHORT);
        return NGX_DECLINED;
    }

    if (piece[0].len > 3 * NGX_HTTP_CHAINDATA_API_KEY_MAX) {
        goto too_long;
    }

    if (ngx_http_chaindata_chh_unescape(r, &piece[0], decode, &q->key)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (q->key.len > NGX_HTTP_CHAINDATA_API_KEY_MAX) {
        goto too_long;
    }

    if (piece[2].len > 3 * NGX_HTTP_CHAINDATA_UUID_TEXT_LEN) {
        goto bad_uuid;
    }

    if (ngx_http_chaindata_chh_unescape(r, &piece[2], decode, &uuid)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_uuid_parse(uuid.data, uuid.len, q->uuid) != 0) {
        goto bad_uuid;
    }

    return NGX_OK;

no_route:

    *rc = ngx_http_chaindata_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                                        NGX_HTTP_CHAINDATA_ROUTE_SHAPE);
    return NGX_DECLINED;

too_long:

    *rc = ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST,
                                        "FST_ERR_VALIDATION",
                                        NGX_HTTP_CHAINDATA_KEY_LONG);
    return NGX_DECLINED;

bad_uuid:

    *rc = ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST,
                                        "FST_ERR_VALIDATION",
                                        NGX_HTTP_CHAINDATA_UUID_FORMAT);
    return NGX_DECLINED;
}


/*
 * Everything that needs the read transaction.  A wrong key and an
 * unknown chainhook take the same steps: one lookup, one constant-time
 * comparison of the whole digest (with a digest no key has when the
 * chainhook is unknown), nothing logged; only a match copies the
 * document into the pool.  *body stays empty for "not found".
 */

static ngx_int_t
ngx_http_chaindata_chh_read(ngx_http_request_t *r,
    ngx_http_chaindata_chh_query_t *q, ngx_str_t *body)
{
    ngx_int_t                 rc;
    MDB_val                   val;
    ngx_uint_t                found, match;
    const u_char             *stored;
    ngx_http_chaindata_chh_t  h;

    rc = ngx_http_chaindata_store_get(r->connection->log,
                                      NGX_HTTP_CHAINDATA_DBI_CHAINHOOK,
                                      q->uuid, sizeof(q->uuid), &val);

    if (rc == NGX_ERROR) {
        return NGX_ERROR;
    }

    found = (rc == NGX_OK);

    if (found
        && ngx_http_chaindata_chh_decode(&h, val.mv_data, val.mv_size) != 0)
    {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "chaindata: a chainhook record is damaged "
                      "(format %d, %uz bytes)",
                      val.mv_size ? *(u_char *) val.mv_data : -1,
                      val.mv_size);
        return NGX_ERROR;
    }

    stored = found ? h.key_digest : ngx_http_chaindata_no_digest;

    match = (CRYPTO_memcmp(q->digest, stored,
                           NGX_HTTP_CHAINDATA_KEY_DIGEST_LEN) == 0);

    if (!(found & match)) {
        return NGX_OK;
    }

    body->data = ngx_pnalloc(r->pool, h.doc_len);
    if (body->data == NULL) {
        return NGX_ERROR;
    }

    ngx_memcpy(body->data, h.doc, h.doc_len);
    body->len = h.doc_len;

    return NGX_OK;
}


ngx_int_t
ngx_http_chaindata_chainhook_handler(ngx_http_request_t *r)
{
    ngx_int_t                       rc;
    ngx_str_t                       body;
    ngx_http_chaindata_chh_query_t  q;

    if (!ngx_http_chaindata_method_allowed(r)) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    ngx_memzero(&q, sizeof(q));

    switch (ngx_http_chaindata_chh_parse(r, &q, &rc)) {

    case NGX_OK:
        break;

    case NGX_DECLINED:
        return rc;

    default:
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_http_chaindata_key_digest(q.key.data, q.key.len, q.digest);

    if (ngx_http_chaindata_store_begin(r->connection->log) != NGX_OK) {
        return ngx_http_chaindata_send_unavailable(r);
    }

    ngx_str_null(&body);

    rc = ngx_http_chaindata_chh_read(r, &q, &body);

    ngx_http_chaindata_store_end();

    if (rc != NGX_OK) {
        return ngx_http_chaindata_send_error(r,
                   NGX_HTTP_INTERNAL_SERVER_ERROR, NULL,
                   "the chainhook could not be read from the index");
    }

    if (body.len == 0) {
        return ngx_http_chaindata_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                                             "chainhook not found");
    }

    return ngx_http_chaindata_send_json(r, NGX_HTTP_OK, &body, NULL,
                                        NGX_HTTP_CHAINDATA_CACHE_NONE);
}
