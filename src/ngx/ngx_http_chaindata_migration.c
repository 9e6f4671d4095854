
/*
 * chaindata: the deprecated Bitcoin-layer endpoints answered with the way
 * out (doc/module.md, Deprecated Bitcoin-layer endpoints).  A mapped path gets
 * 410 with the replacement endpoint (path parameters carried over), the
 * differences and the request's query parameters the replacement does not
 * support, or, where the replacement behaves the same and the operator
 * wants it, a 308 there.  The location root lists the whole mapping.
 * Nothing here reads the index.  This file matches and resolves; the 410
 * body and the table are written by ngx_http_chaindata_migration_body.c.
 *
 *     chaindata_migration;
 *     chaindata_migration_base        URL | off;
 *     chaindata_migration_base_brc20  URL | off;
 *     chaindata_migration_redirect    on | off;
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_migration_map.h"
#include "ngx_http_chaindata_deprecation.h"
#include "ngx_http_chaindata_migration.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


#define NGX_HTTP_CHAINDATA_MIG_UNMATCHED                                     \
    "no deprecated endpoint matches this path; the location root lists "    \
    "them all"


/* ---------------------------------------------------------------------- */
/* configuration */


/* an absolute http(s) URL, no query or fragment; trailing slashes go */

char *
ngx_http_chaindata_migration_base(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
{
    char  *p = conf;

    u_char      *c, *host;
    ngx_str_t   *field, *value, url;

    field = (ngx_str_t *) (p + cmd->offset);

    if (field->data) {
        return "is duplicate";
    }

    value = cf->args->elts;
    url = value[1];

    if (url.len == 3 && ngx_strncmp(url.data, "off", 3) == 0) {
        ngx_str_set(field, "");
        return NGX_CONF_OK;
    }

    if (url.len > 7 && ngx_strncasecmp(url.data, (u_char *) "http://", 7)
                       == 0)
    {
        host = url.data + 7;

    } else if (url.len > 8
               && ngx_strncasecmp(url.data, (u_char *) "https://", 8) == 0)
    {
        host = url.data + 8;

    } else {
        return "takes an absolute \"http://\" or \"https://\" URL, or "
               "\"off\"";
    }

    if (*host == '/') {
        return "takes a URL with a host";
    }

    for (c = url.data; c < url.data + url.len; c++) {
        if (!chaindata_mig_unreserved(*c)
            && (*c == 0 || ngx_strchr("!$&'()*+,;=:@/%[]", *c) == NULL))
        {
            return "takes a URL of RFC 3986 characters, without query, "
                   "fragment, spaces or quotes (percent-encode the rest)";
        }
    }

    while (url.data + url.len - 1 > host && url.data[url.len - 1] == '/') {
        url.len--;
    }

    *field = url;

    return NGX_CONF_OK;
}


char *
ngx_http_chaindata_merge_migration(ngx_conf_t *cf,
    ngx_http_chaindata_loc_conf_t *prev, ngx_http_chaindata_loc_conf_t *conf)
{
    ngx_conf_merge_str_value(conf->migration_base, prev->migration_base, "");
    ngx_conf_merge_str_value(conf->migration_base_brc20,
                             prev->migration_base_brc20, "");
    ngx_conf_merge_value(conf->migration_redirect, prev->migration_redirect,
                         0);

    if ((conf->route->flags & CHAINDATA_ROUTE_MIGRATION_MAP)
        && conf->migration_redirect
        && conf->migration_base.len == 0)
    {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"chaindata_migration_redirect on\" needs "
                           "\"chaindata_migration_base\": a redirect must "
                           "lead to the replacement, not back here");
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


/* ---------------------------------------------------------------------- */
/* matching (chaindata_migration_map.c) */


/*
 * The path after the location's prefix; a regular expression or named
 * location has no prefix to take.  NGX_DECLINED: the URI is not below
 * the prefix at all.
 */

static ngx_int_t
ngx_http_chaindata_mig_subpath_of(ngx_http_request_t *r,
    chaindata_span_t *sub)
{
    ngx_uint_t                 prefix;
    ngx_http_core_loc_conf_t  *clcf;

    clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);

    prefix = !clcf->named;
#if (NGX_PCRE)
    prefix = prefix && clcf->regex == NULL;
#endif

    if (chaindata_mig_subpath(r->uri.data, r->uri.len,
                              prefix ? clcf->name.data : NULL,
                              prefix ? clcf->name.len : 0, sub)
        != 0)
    {
        return NGX_DECLINED;
    }

    return NGX_OK;
}


/* NGX_OK, or NGX_DECLINED with the validation message in *msg */

static ngx_int_t
ngx_http_chaindata_mig_check_params(ngx_http_request_t *r,
    ngx_http_chaindata_mig_t *m, const char **msg)
{
    u_char                *p;
    size_t                 which;
    chaindata_span_t      *name;
    chaindata_mig_param_e  rc;

    rc = chaindata_mig_check(&m->match, &which);

    if (rc == CHAINDATA_MIG_PARAM_OK) {
        return NGX_OK;
    }

    name = &m->match.params[which].name;

    if (rc == CHAINDATA_MIG_PARAM_LONG) {
        p = ngx_pnalloc(r->pool, sizeof("params/ must NOT be longer than  "
                                        "bytes") + name->len + NGX_INT_T_LEN);
        if (p) {
            ngx_sprintf(p, "params/%*s must NOT be longer than %ui bytes%Z",
                        name->len, name->data,
                        (ngx_uint_t) CHAINDATA_MIG_PARAM_MAX);
        }

    } else {
        p = ngx_pnalloc(r->pool, sizeof("params/ must be UTF-8") + name->len);
        if (p) {
            ngx_sprintf(p, "params/%*s must be UTF-8%Z", name->len,
                        name->data);
        }
    }

    *msg = p ? (const char *) p : "invalid path parameter";

    return NGX_DECLINED;
}


/* ---------------------------------------------------------------------- */
/* where it leads */


static ngx_int_t
ngx_http_chaindata_mig_expand_into(ngx_pool_t *pool, const char *tpl,
    ngx_http_chaindata_mig_t *m, ngx_str_t *out)
{
    size_t  len;

    len = chaindata_mig_expand(NULL, tpl, &m->match);
    if (len == (size_t) -1) {
        return NGX_ERROR;
    }

    out->data = ngx_pnalloc(pool, len);
    if (out->data == NULL) {
        return NGX_ERROR;
    }

    out->len = chaindata_mig_expand(out->data, tpl, &m->match);

    return NGX_OK;
}


/* base and path, or empty without a base */

ngx_int_t
ngx_http_chaindata_mig_url(ngx_pool_t *pool, ngx_str_t *base, ngx_str_t *path,
    ngx_str_t *url)
{
    if (base->len == 0) {
        ngx_str_null(url);
        return NGX_OK;
    }

    url->len = base->len + path->len;
    url->data = ngx_pnalloc(pool, url->len);
    if (url->data == NULL) {
        return NGX_ERROR;
    }

    ngx_memcpy(ngx_cpymem(url->data, base->data, base->len), path->data,
               path->len);

    return NGX_OK;
}


/* the base URL of the row's replacement */

ngx_str_t *
ngx_http_chaindata_mig_base(ngx_http_chaindata_loc_conf_t *lcf,
    const chaindata_mig_row_t *row)
{
    return row->base == CHAINDATA_MIG_BASE_BRC20
           ? &lcf->migration_base_brc20 : &lcf->migration_base;
}


static ngx_int_t
ngx_http_chaindata_mig_resolve(ngx_http_request_t *r,
    ngx_http_chaindata_loc_conf_t *lcf, ngx_http_chaindata_mig_t *m)
{
    const chaindata_mig_row_t  *row = m->row;

    if (row->replacement
        && (ngx_http_chaindata_mig_expand_into(r->pool, row->replacement,
                                               m, &m->path)
            != NGX_OK
            || ngx_http_chaindata_mig_url(r->pool,
                                          ngx_http_chaindata_mig_base(lcf,
                                                                      row),
                                          &m->path, &m->url)
               != NGX_OK))
    {
        return NGX_ERROR;
    }

    if (row->alternative
        && (ngx_http_chaindata_mig_expand_into(r->pool, row->alternative,
                                               m, &m->alt_path)
            != NGX_OK
            || ngx_http_chaindata_mig_url(r->pool, &lcf->migration_base,
                                          &m->alt_path, &m->alt_url)
               != NGX_OK))
    {
        return NGX_ERROR;
    }

    return NGX_OK;
}


/*
 * The names of the request's query parameters (percent-decoded, each
 * once, in order) that the replacement does not support, and those it
 * accepts but ignores.
 */

static ngx_int_t
ngx_http_chaindata_mig_query_names(ngx_http_request_t *r,
    ngx_http_chaindata_mig_t *m)
{
    u_char  *buf;

    if (r->args.len == 0) {
        return NGX_OK;
    }

    buf = ngx_pnalloc(r->pool, r->args.len);
    if (buf == NULL) {
        return NGX_ERROR;
    }

    chaindata_mig_query(m->row, r->args.data, r->args.len, buf,
                        &m->unsupported, &m->ignored);

    return NGX_OK;
}


/* ---------------------------------------------------------------------- */
/* replies (the 410 body and the table: ngx_http_chaindata_migration_body.c) */


/*
 * 308 to the replacement with the request's query string, whose bytes
 * outside RFC 3986's query characters (and stray '%') are percent-encoded.
 */

static ngx_int_t
ngx_http_chaindata_mig_send_redirect(ngx_http_request_t *r,
    ngx_http_chaindata_mig_t *m)
{
    u_char     *p;
    ngx_str_t   location;

    location.data = ngx_pnalloc(r->pool, m->url.len + 1 + 3 * r->args.len);
    if (location.data == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    p = ngx_cpymem(location.data, m->url.data, m->url.len);

    if (r->args.len) {
        *p++ = '?';
        p += chaindata_mig_escape_query(p, r->args.data,
                                        r->args.len);
    }

    location.len = p - location.data;

    return ngx_http_chaindata_send_location(r, NGX_HTTP_PERMANENT_REDIRECT,
                                            &location,
                                            NGX_HTTP_CHAINDATA_MIG_CACHE);
}


static ngx_int_t
ngx_http_chaindata_mig_send_error(ngx_http_request_t *r, ngx_uint_t status,
    const char *code, const char *message)
{
    if (ngx_http_chaindata_deprecation_headers(r) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_error(r, status, code, message);
}


ngx_int_t
ngx_http_chaindata_migration_handler(ngx_http_request_t *r)
{
    ngx_int_t                       rc;
    chaindata_span_t                sub;
    const char                     *msg;
    ngx_http_chaindata_mig_t       *m;
    ngx_http_chaindata_loc_conf_t  *lcf;

    if (!ngx_http_chaindata_method_allowed(r)) {
        if (ngx_http_chaindata_deprecation_headers(r) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    if (ngx_http_chaindata_mig_subpath_of(r, &sub) != NGX_OK) {
        return ngx_http_chaindata_mig_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                   NGX_HTTP_CHAINDATA_MIG_UNMATCHED);
    }

    if (sub.len == 0) {
        if (ngx_http_chaindata_deprecation_headers(r) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        return ngx_http_chaindata_mig_send_table(r, lcf);
    }

    m = ngx_pcalloc(r->pool, sizeof(ngx_http_chaindata_mig_t));
    if (m == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (chaindata_mig_match(&sub, &m->match) != 0) {
        return ngx_http_chaindata_mig_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                   NGX_HTTP_CHAINDATA_MIG_UNMATCHED);
    }

    m->row = m->match.row;

    if (ngx_http_chaindata_mig_check_params(r, m, &msg) != NGX_OK) {
        return ngx_http_chaindata_mig_send_error(r, NGX_HTTP_BAD_REQUEST,
                                                 "FST_ERR_VALIDATION", msg);
    }

    if (ngx_http_chaindata_mig_resolve(r, lcf, m) != NGX_OK
        || ngx_http_chaindata_mig_query_names(r, m) != NGX_OK
        || ngx_http_chaindata_deprecation_headers_with(r, &m->url) != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (lcf->migration_redirect && m->row->redirect && m->url.len) {
        return ngx_http_chaindata_mig_send_redirect(r, m);
    }

    return ngx_http_chaindata_mig_send_gone(r, lcf, m);
}
