
/*
 * chaindata: the deprecated Bitcoin-layer endpoints (specification 9.2 and
 * 9.3, upstream-behaviour.md section 6) answered with the way out.  A
 * mapped path gets 410 with the replacement endpoint (path parameters
 * carried over), the differences and the request's query parameters the
 * replacement does not support, or, where the replacement behaves the same
 * and the operator wants it, a 308 there.  The location root lists the
 * whole mapping.  Nothing here reads the index.
 *
 *     chaindata_migration;
 *     chaindata_migration_base        URL | off;
 *     chaindata_migration_base_brc20  URL | off;
 *     chaindata_migration_redirect    on | off;
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_codec.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


/* nginx names no constant for it */
#define NGX_HTTP_CHAINDATA_GONE             410

/* the longest path of the tables has four segments */
#define NGX_HTTP_CHAINDATA_MIG_SEGMENTS     4

/* a path parameter longer than this is refused (ids are under 100) */
#define NGX_HTTP_CHAINDATA_MIG_PARAM_MAX    256

/* query parameter names listed in one answer, at most */
#define NGX_HTTP_CHAINDATA_MIG_QUERY_MAX    64

/*
 * 410, 308 and the table change only with the configuration: caches may
 * keep them an hour (410 and 308 are cacheable by default, RFC 9111 4.2.2,
 * and would otherwise be kept for as long as a cache sees fit).
 */
#define NGX_HTTP_CHAINDATA_MIG_CACHE        "public, max-age=3600"

#define NGX_HTTP_CHAINDATA_MIG_ANNOUNCED    "2026-02-06"
#define NGX_HTTP_CHAINDATA_MIG_EFFECTIVE    "2026-03-09"

#define NGX_HTTP_CHAINDATA_MIG_GONE                                          \
    "This API has been deprecated and is no longer available."

#define NGX_HTTP_CHAINDATA_MIG_UNMATCHED                                     \
    "no deprecated endpoint matches this path; the location root lists "    \
    "them all"

#define NGX_HTTP_CHAINDATA_MIG_EXTRAS                                        \
    "The replacement provider additionally offers mint (estimate, order, "  \
    "execute), deploy (estimate and related) and swap-quote endpoints "     \
    "that the service lacks."

/* the base URL a replacement is served from */
#define NGX_HTTP_CHAINDATA_MIG_BASE         0
#define NGX_HTTP_CHAINDATA_MIG_BASE_BRC20   1

/* differences that the other columns of a row do not already say */
#define NGX_HTTP_CHAINDATA_MIG_RAW_CONTENT  0x01
#define NGX_HTTP_CHAINDATA_MIG_PRICE_DATA   0x02
#define NGX_HTTP_CHAINDATA_MIG_FULL_LIST    0x04

/* a NULL-terminated list of names */
#define ngx_http_chaindata_mig_list(...)                                     \
    ((const char *const []) { __VA_ARGS__, NULL })


typedef struct {
    const char          *section;      /* of the specification */
    const char          *path;         /* after the location prefix */
    const char *const   *query;        /* the endpoint's query parameters */
    const char          *replacement;  /* path template, NULL: none */
    ngx_uint_t           base;         /* NGX_HTTP_CHAINDATA_MIG_BASE* */
    const char *const   *supported;    /* query the replacement supports */
    const char *const   *ignored;      /* it accepts, but ignores */
    ngx_uint_t           changes;      /* NGX_HTTP_CHAINDATA_MIG_* flags */
    ngx_uint_t           redirect;     /* "same path" or "none": 308 fits */
    const char          *alternative;  /* where the data went instead */
    const char          *field;        /* ... in this field */
    const char          *text;         /* the table's differences column */
} ngx_http_chaindata_mig_row_t;


typedef struct {
    const char          *name;
    const char *const   *operations;
    const char          *text;
} ngx_http_chaindata_mig_extra_t;


typedef struct {
    ngx_str_t            name;
    ngx_str_t            value;
} ngx_http_chaindata_mig_param_t;


typedef struct {
    ngx_str_t            names[NGX_HTTP_CHAINDATA_MIG_QUERY_MAX];
    ngx_uint_t           n;
} ngx_http_chaindata_mig_names_t;


/* what one request matched, and where it leads */
typedef struct {
    const ngx_http_chaindata_mig_row_t  *row;
    ngx_http_chaindata_mig_param_t       params[
                                             NGX_HTTP_CHAINDATA_MIG_SEGMENTS];
    ngx_uint_t                           nparams;
    ngx_str_t                            path;      /* replacement, escaped */
    ngx_str_t                            url;       /* absolute, or empty */
    ngx_str_t                            alt_path;
    ngx_str_t                            alt_url;
    ngx_http_chaindata_mig_names_t       unsupported;
    ngx_http_chaindata_mig_names_t       ignored;
} ngx_http_chaindata_mig_t;


/*
 * The mapping of specification 9.2 and 9.3, the one place it is held.
 * Paths are the part after /ordinals/v1/ or /ordinals/, as the tables give
 * them; query parameters are the tables' and section 8's.  The README
 * ("Deprecated Bitcoin-layer endpoints") writes the same table down.
 */

static const ngx_http_chaindata_mig_row_t  ngx_http_chaindata_mig_rows[] = {

    { .section = "9.2",
      .path = "/inscriptions",
      .query = ngx_http_chaindata_mig_list("limit", "offset", "after",
                   "before", "sat_ordinal_range", "content_type",
                   "content_length_range", "tag"),
      .replacement = "/inscriptions",
      .supported = ngx_http_chaindata_mig_list("limit", "offset", "after",
                       "content_type"),
      .text = "service params: limit (default 20, max 100), offset, after, "
              "before, sat_ordinal_range, content_type, "
              "content_length_range, tag. Replacement supports limit, "
              "offset, after, content_type only; no before, "
              "sat_ordinal_range, content_length_range, tag" },

    { .section = "9.2",
      .path = "/inscriptions/{inscriptionId}",
      .replacement = "/inscriptions/{inscriptionId}",
      .redirect = 1,
      .text = "none" },

    { .section = "9.2",
      .path = "/inscriptions/{inscriptionId}/content",
      .replacement = "/inscriptions/{inscriptionId}/content",
      .changes = NGX_HTTP_CHAINDATA_MIG_RAW_CONTENT,
      .redirect = 1,
      .text = "raw content; MIME type must be handled" },

    { .section = "9.2",
      .path = "/inscriptions/{inscriptionId}/sat",
      .alternative = "/inscriptions/{inscriptionId}",
      .field = "sat_ordinal",
      .text = "replacement's inscription details include sat_ordinal "
              "only" },

    { .section = "9.2",
      .path = "/inscriptions/block-height/{blockHeight}",
      .query = ngx_http_chaindata_mig_list("limit", "offset"),
      .replacement = "/inscriptions/block/{blockHeight}",
      .supported = ngx_http_chaindata_mig_list("limit", "offset"),
      .text = "path segment differs; limit and offset supported" },

    { .section = "9.2",
      .path = "/inscriptions/block-hash/{blockHash}",
      .query = ngx_http_chaindata_mig_list("limit", "offset"),
      .replacement = "/inscriptions/block/{blockHash}",
      .supported = ngx_http_chaindata_mig_list("limit", "offset"),
      .text = "path segment differs; pagination supported" },

    { .section = "9.2",
      .path = "/collections",
      .query = ngx_http_chaindata_mig_list("limit", "offset"),
      .replacement = "/collections",
      .supported = ngx_http_chaindata_mig_list("limit", "offset"),
      .redirect = 1,
      .text = "limit (default 20, max 100), offset" },

    { .section = "9.2",
      .path = "/collections/{collectionId}",
      .replacement = "/collections/{collectionId}",
      .redirect = 1,
      .text = "none" },

    { .section = "9.2",
      .path = "/collections/{collectionId}/inscriptions",
      .query = ngx_http_chaindata_mig_list("limit", "offset"),
      .replacement = "/collections/{collectionId}/inscriptions",
      .supported = ngx_http_chaindata_mig_list("limit", "offset"),
      .redirect = 1,
      .text = "limit, offset" },

    { .section = "9.2",
      .path = "/stats",
      .replacement = "/stats",
      .redirect = 1,
      .text = "none" },

    { .section = "9.3",
      .path = "/brc-20/tokens",
      .query = ngx_http_chaindata_mig_list("limit", "offset"),
      .text = "no global token list" },

    { .section = "9.3",
      .path = "/brc-20/tokens/{ticker}",
      .replacement = "/v1/brc20/ticker/{ticker}",
      .changes = NGX_HTTP_CHAINDATA_MIG_PRICE_DATA,
      .text = "replacement adds price data" },

    { .section = "9.3",
      .path = "/brc-20/tokens/{ticker}/holders",
      .query = ngx_http_chaindata_mig_list("limit", "offset"),
      .text = "no holder list" },

    { .section = "9.3",
      .path = "/brc-20/tokens/{ticker}/events",
      .query = ngx_http_chaindata_mig_list("limit", "offset",
                                           "event_type"),
      .text = "no per-token event history" },

    { .section = "9.3",
      .path = "/brc-20/balances/{address}",
      .query = ngx_http_chaindata_mig_list("ticker", "limit", "offset"),
      .replacement = "/v1/ordinals/address/{address}/brc20",
      .base = NGX_HTTP_CHAINDATA_MIG_BASE_BRC20,
      .ignored = ngx_http_chaindata_mig_list("limit", "offset"),
      .changes = NGX_HTTP_CHAINDATA_MIG_FULL_LIST,
      .text = "confirmed balances per ticker; limit and offset accepted "
              "but currently ignored, the full list is returned; base URL "
              "and path change" },
};


static const ngx_http_chaindata_mig_extra_t  ngx_http_chaindata_mig_extras[] = {
    { "mint", ngx_http_chaindata_mig_list("estimate", "order", "execute"),
      "mint (estimate, order, execute)" },
    { "deploy", ngx_http_chaindata_mig_list("estimate"),
      "deploy (estimate and related)" },
    { "swap_quote", ngx_http_chaindata_mig_list("quote"),
      "swap-quote" },
};


/* RFC 3986 unreserved: ALPHA DIGIT - . _ ~ */

static ngx_uint_t
ngx_http_chaindata_mig_unreserved(u_char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9')
           || c == '-' || c == '.' || c == '_' || c == '~';
}


/* may stand as is in a query string (RFC 3986 3.4, '%' apart) */

static ngx_uint_t
ngx_http_chaindata_mig_query_char(u_char c)
{
    return ngx_http_chaindata_mig_unreserved(c)
           || (c != 0 && ngx_strchr("!$&'()*+,;=:@/?", c) != NULL);
}


static ngx_uint_t
ngx_http_chaindata_mig_hex(u_char c)
{
    c |= 0x20;

    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}


static u_char *
ngx_http_chaindata_mig_pct(u_char *p, u_char c)
{
    static u_char  hex[] = "0123456789ABCDEF";

    *p++ = '%';
    *p++ = hex[c >> 4];
    *p++ = hex[c & 0x0f];

    return p;
}


/* ---------------------------------------------------------------------- */
/* configuration */


char *
ngx_http_chaindata_migration(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_chaindata_loc_conf_t  *lcf = conf;

    ngx_http_core_loc_conf_t  *clcf;

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);

    if (clcf->handler) {
        return "conflicts with another content handler in this location";
    }

    /* reads no index: unlike the other routes, needs no chaindata_db */
    clcf->handler = ngx_http_chaindata_migration_handler;
    lcf->migration = 1;

    return NGX_CONF_OK;
}


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
        if (!ngx_http_chaindata_mig_unreserved(*c)
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

    if (conf->migration && conf->migration_redirect
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
/* matching */


/* skips the segment "name" (and its slash) at *p */

static void
ngx_http_chaindata_mig_skip(u_char **p, u_char *end, const char *name)
{
    size_t  len;

    len = ngx_strlen(name);

    if ((size_t) (end - *p) >= len && ngx_strncmp(*p, name, len) == 0
        && ((size_t) (end - *p) == len || (*p)[len] == '/'))
    {
        *p += len;

        if (*p < end) {
            (*p)++;
        }
    }
}


/*
 * The path after the location prefix, without the version segment "v1"
 * (upstream served both /ordinals/... and /ordinals/v1/...).  A regular
 * expression or named location has no prefix to take: there the
 * upstream prefixes, /ordinals and then /v1, are skipped where present.
 * NGX_DECLINED: the URI is not below the prefix at all.
 */

static ngx_int_t
ngx_http_chaindata_mig_subpath(ngx_http_request_t *r, ngx_str_t *sub)
{
    u_char                    *p, *end;
    ngx_str_t                 *name;
    ngx_uint_t                 prefix, versioned;
    ngx_http_core_loc_conf_t  *clcf;

    clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);
    name = &clcf->name;

    p = r->uri.data;
    end = p + r->uri.len;

    prefix = !clcf->named && name->len && r->uri.len >= name->len
             && ngx_strncmp(r->uri.data, name->data, name->len) == 0;
#if (NGX_PCRE)
    prefix = prefix && clcf->regex == NULL;
#endif

    versioned = 0;

    if (prefix) {
        p += name->len;

        if (name->data[name->len - 1] != '/') {
            if (p < end && *p != '/') {
                return NGX_DECLINED;
            }

            versioned = name->len >= 3
                        && ngx_strncmp(name->data + name->len - 3, "/v1", 3)
                           == 0;

            if (p < end) {
                p++;
            }

        } else {
            versioned = name->len >= 4
                        && ngx_strncmp(name->data + name->len - 4, "/v1/", 4)
                           == 0;
        }

    } else {
        if (p < end && *p == '/') {
            p++;
        }

        ngx_http_chaindata_mig_skip(&p, end, "ordinals");
    }

    if (!versioned) {
        ngx_http_chaindata_mig_skip(&p, end, "v1");
    }

    sub->data = p;
    sub->len = end - p;

    return NGX_OK;
}


/* "a/b/c" or "/a/b/c" into segments; -1 for empty ones or too many */

static ngx_int_t
ngx_http_chaindata_mig_split(u_char *s, size_t len, ngx_str_t *seg)
{
    u_char      *p, *end, *slash;
    ngx_uint_t   n;

    p = s;
    end = s + len;

    if (p < end && *p == '/') {
        p++;
    }

    for (n = 0; p <= end; n++) {
        if (n == NGX_HTTP_CHAINDATA_MIG_SEGMENTS) {
            return -1;
        }

        slash = ngx_strlchr(p, end, '/');
        if (slash == NULL) {
            slash = end;
        }

        if (slash == p) {
            return -1;
        }

        seg[n].data = p;
        seg[n].len = slash - p;

        p = slash + 1;
    }

    return n;
}


static ngx_uint_t
ngx_http_chaindata_mig_is_param(ngx_str_t *seg)
{
    return seg->len > 2 && seg->data[0] == '{'
           && seg->data[seg->len - 1] == '}';
}


/*
 * Static segments win over parameters, the earlier the better (as the
 * upstream router has it): ".../block-height/content" is a block height.
 */

static ngx_int_t
ngx_http_chaindata_mig_match(ngx_str_t *sub, ngx_http_chaindata_mig_t *m)
{
    ngx_int_t                            n, k, i;
    ngx_str_t                            req[NGX_HTTP_CHAINDATA_MIG_SEGMENTS];
    ngx_str_t                            tpl[NGX_HTTP_CHAINDATA_MIG_SEGMENTS];
    ngx_uint_t                           ri, score, best;
    const ngx_http_chaindata_mig_row_t  *row;

    n = ngx_http_chaindata_mig_split(sub->data, sub->len, req);
    if (n <= 0) {
        return NGX_DECLINED;
    }

    best = 0;
    m->row = NULL;

    for (ri = 0; ri < sizeof(ngx_http_chaindata_mig_rows)
                      / sizeof(ngx_http_chaindata_mig_rows[0]); ri++)
    {
        row = &ngx_http_chaindata_mig_rows[ri];

        k = ngx_http_chaindata_mig_split((u_char *) row->path,
                                         ngx_strlen(row->path), tpl);
        if (k != n) {
            continue;
        }

        score = 1;

        for (i = 0; i < n; i++) {
            if (ngx_http_chaindata_mig_is_param(&tpl[i])) {
                /* nginx resolves dot segments; refuse any left anyway */
                if ((req[i].len == 1 && req[i].data[0] == '.')
                    || (req[i].len == 2 && req[i].data[0] == '.'
                        && req[i].data[1] == '.'))
                {
                    break;
                }

                continue;
            }

            if (tpl[i].len != req[i].len
                || ngx_strncmp(tpl[i].data, req[i].data, req[i].len) != 0)
            {
                break;
            }

            score |= (ngx_uint_t) 1 << (NGX_HTTP_CHAINDATA_MIG_SEGMENTS - i);
        }

        if (i < n || score <= best) {
            continue;
        }

        best = score;
        m->row = row;
        m->nparams = 0;

        for (i = 0; i < n; i++) {
            if (ngx_http_chaindata_mig_is_param(&tpl[i])) {
                m->params[m->nparams].name.data = tpl[i].data + 1;
                m->params[m->nparams].name.len = tpl[i].len - 2;
                m->params[m->nparams].value = req[i];
                m->nparams++;
            }
        }
    }

    return m->row ? NGX_OK : NGX_DECLINED;
}


/* NGX_OK, or NGX_DECLINED with the validation message in *msg */

static ngx_int_t
ngx_http_chaindata_mig_check_params(ngx_http_request_t *r,
    ngx_http_chaindata_mig_t *m, const char **msg)
{
    u_char                          *p;
    ngx_uint_t                       i;
    ngx_http_chaindata_mig_param_t  *param;

    for (i = 0; i < m->nparams; i++) {
        param = &m->params[i];
        p = NULL;

        if (param->value.len > NGX_HTTP_CHAINDATA_MIG_PARAM_MAX) {
            p = ngx_pnalloc(r->pool, sizeof("params/ must NOT be longer "
                                            "than  bytes") + param->name.len
                                     + NGX_INT_T_LEN);
            if (p) {
                ngx_sprintf(p, "params/%V must NOT be longer than %ui "
                            "bytes%Z", &param->name,
                            (ngx_uint_t) NGX_HTTP_CHAINDATA_MIG_PARAM_MAX);
            }

        } else if (ngx_http_chaindata_utf8_valid_len(param->value.data,
                                                     param->value.len)
                   != param->value.len)
        {
            p = ngx_pnalloc(r->pool, sizeof("params/ must be UTF-8")
                                     + param->name.len);
            if (p) {
                ngx_sprintf(p, "params/%V must be UTF-8%Z", &param->name);
            }

        } else {
            continue;
        }

        *msg = p ? (const char *) p : "invalid path parameter";

        return NGX_DECLINED;
    }

    return NGX_OK;
}


/* ---------------------------------------------------------------------- */
/* where it leads */


static ngx_str_t *
ngx_http_chaindata_mig_param(ngx_http_chaindata_mig_t *m, ngx_str_t *name)
{
    ngx_uint_t  i;

    for (i = 0; i < m->nparams; i++) {
        if (m->params[i].name.len == name->len
            && ngx_strncmp(m->params[i].name.data, name->data, name->len)
               == 0)
        {
            return &m->params[i].value;
        }
    }

    return NULL;
}


/*
 * A path template with the request's parameters put in, each
 * percent-encoded down to the unreserved characters: safe in a URL, in a
 * Location and in a Link header alike.
 */

static ngx_int_t
ngx_http_chaindata_mig_expand(ngx_pool_t *pool, const char *tpl,
    ngx_http_chaindata_mig_t *m, ngx_str_t *out)
{
    u_char      *p, *s, *end, *close;
    size_t       len;
    ngx_str_t    name, *value;
    ngx_uint_t   pass, i;

    s = (u_char *) tpl;
    end = s + ngx_strlen(tpl);
    len = 0;
    p = NULL;

    for (pass = 0; pass < 2; pass++) {

        if (pass == 1) {
            out->data = ngx_pnalloc(pool, len);
            if (out->data == NULL) {
                return NGX_ERROR;
            }

            p = out->data;
        }

        for (s = (u_char *) tpl; s < end; s++) {
            close = (*s == '{') ? ngx_strlchr(s, end, '}') : NULL;

            if (close == NULL) {
                if (pass == 0) {
                    len++;

                } else {
                    *p++ = *s;
                }

                continue;
            }

            name.data = s + 1;
            name.len = close - s - 1;
            s = close;

            value = ngx_http_chaindata_mig_param(m, &name);
            if (value == NULL) {
                return NGX_ERROR;
            }

            for (i = 0; i < value->len; i++) {
                if (ngx_http_chaindata_mig_unreserved(value->data[i])) {
                    if (pass == 0) {
                        len++;

                    } else {
                        *p++ = value->data[i];
                    }

                } else if (pass == 0) {
                    len += 3;

                } else {
                    p = ngx_http_chaindata_mig_pct(p, value->data[i]);
                }
            }
        }
    }

    out->len = p - out->data;

    return NGX_OK;
}


static ngx_int_t
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


static ngx_str_t *
ngx_http_chaindata_mig_base(ngx_http_chaindata_loc_conf_t *lcf,
    const ngx_http_chaindata_mig_row_t *row)
{
    return row->base == NGX_HTTP_CHAINDATA_MIG_BASE_BRC20
           ? &lcf->migration_base_brc20 : &lcf->migration_base;
}


static ngx_int_t
ngx_http_chaindata_mig_resolve(ngx_http_request_t *r,
    ngx_http_chaindata_loc_conf_t *lcf, ngx_http_chaindata_mig_t *m)
{
    const ngx_http_chaindata_mig_row_t  *row = m->row;

    if (row->replacement
        && (ngx_http_chaindata_mig_expand(r->pool, row->replacement, m,
                                          &m->path)
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
        && (ngx_http_chaindata_mig_expand(r->pool, row->alternative, m,
                                          &m->alt_path)
            != NGX_OK
            || ngx_http_chaindata_mig_url(r->pool, &lcf->migration_base,
                                          &m->alt_path, &m->alt_url)
               != NGX_OK))
    {
        return NGX_ERROR;
    }

    return NGX_OK;
}


static ngx_uint_t
ngx_http_chaindata_mig_in_list(const char *const *list, ngx_str_t *name)
{
    if (list == NULL) {
        return 0;
    }

    for ( /* void */ ; *list; list++) {
        if (ngx_strlen(*list) == name->len
            && ngx_strncmp(*list, name->data, name->len) == 0)
        {
            return 1;
        }
    }

    return 0;
}


static ngx_uint_t
ngx_http_chaindata_mig_listed(ngx_http_chaindata_mig_names_t *names,
    ngx_str_t *name)
{
    ngx_uint_t  i;

    for (i = 0; i < names->n; i++) {
        if (names->names[i].len == name->len
            && ngx_strncmp(names->names[i].data, name->data, name->len) == 0)
        {
            return 1;
        }
    }

    return 0;
}


/*
 * The names of the request's query parameters (percent-decoded, each
 * once, in order) that the replacement does not support, and those it
 * accepts but ignores.
 */

static ngx_int_t
ngx_http_chaindata_mig_query(ngx_http_request_t *r,
    ngx_http_chaindata_mig_t *m)
{
    u_char                          *p, *end, *amp, *eq, *dst, *src;
    ngx_str_t                        name;
    ngx_http_chaindata_mig_names_t  *to;

    p = r->args.data;
    end = p + r->args.len;

    for ( /* void */ ; p < end; p = amp + 1) {
        amp = ngx_strlchr(p, end, '&');
        if (amp == NULL) {
            amp = end;
        }

        eq = ngx_strlchr(p, amp, '=');
        if (eq == NULL) {
            eq = amp;
        }

        if (eq == p) {
            continue;
        }

        dst = ngx_pnalloc(r->pool, eq - p);
        if (dst == NULL) {
            return NGX_ERROR;
        }

        name.data = dst;
        src = p;
        ngx_unescape_uri(&dst, &src, eq - p, 0);
        name.len = dst - name.data;

        if (name.len == 0
            || ngx_http_chaindata_mig_in_list(m->row->supported, &name))
        {
            continue;
        }

        to = ngx_http_chaindata_mig_in_list(m->row->ignored, &name)
             ? &m->ignored : &m->unsupported;

        if (to->n < NGX_HTTP_CHAINDATA_MIG_QUERY_MAX
            && !ngx_http_chaindata_mig_listed(to, &name))
        {
            to->names[to->n++] = name;
        }
    }

    return NGX_OK;
}


/* ---------------------------------------------------------------------- */
/* JSON */


static void
ngx_http_chaindata_mig_json_cstr(ngx_http_chaindata_json_t *j, const char *s)
{
    if (s == NULL) {
        ngx_http_chaindata_json_null(j);

    } else {
        ngx_http_chaindata_json_key(j, s);
    }
}


static void
ngx_http_chaindata_mig_json_nstr(ngx_http_chaindata_json_t *j, ngx_str_t *s)
{
    if (s->len == 0) {
        ngx_http_chaindata_json_null(j);

    } else {
        ngx_http_chaindata_json_str(j, s->data, s->len);
    }
}


/* bytes as a JSON string, invalid UTF-8 replaced with U+FFFD */

static void
ngx_http_chaindata_mig_json_text(ngx_http_chaindata_json_t *j,
    ngx_str_t *s)
{
    u_char  *buf, *p, *src, *end;
    size_t   n;

    n = ngx_http_chaindata_utf8_valid_len(s->data, s->len);

    if (n == s->len) {
        ngx_http_chaindata_json_str(j, s->data, s->len);
        return;
    }

    buf = ngx_pnalloc(j->pool, 3 * s->len);
    if (buf == NULL) {
        j->failed = 1;
        return;
    }

    p = buf;
    src = s->data;
    end = s->data + s->len;

    while (src < end) {
        n = ngx_http_chaindata_utf8_valid_len(src, end - src);
        p = ngx_cpymem(p, src, n);
        src += n;

        if (src < end) {
            p = ngx_cpymem(p, "\xef\xbf\xbd", 3);
            src++;
        }
    }

    ngx_http_chaindata_json_str(j, buf, p - buf);
}


static void
ngx_http_chaindata_mig_json_list(ngx_http_chaindata_json_t *j,
    const char *const *list)
{
    ngx_http_chaindata_json_array_open(j);

    for ( /* void */ ; list && *list; list++) {
        ngx_http_chaindata_json_key(j, *list);
    }

    ngx_http_chaindata_json_array_close(j);
}


static void
ngx_http_chaindata_mig_json_names(ngx_http_chaindata_json_t *j,
    ngx_http_chaindata_mig_names_t *names)
{
    ngx_uint_t  i;

    ngx_http_chaindata_json_array_open(j);

    for (i = 0; i < names->n; i++) {
        ngx_http_chaindata_mig_json_text(j, &names->names[i]);
    }

    ngx_http_chaindata_json_array_close(j);
}


static void
ngx_http_chaindata_mig_json_dates(ngx_http_chaindata_json_t *j)
{
    ngx_http_chaindata_json_key(j, "deprecation");
    ngx_http_chaindata_json_map_open(j);
    ngx_http_chaindata_json_key(j, "announced");
    ngx_http_chaindata_json_key(j, NGX_HTTP_CHAINDATA_MIG_ANNOUNCED);
    ngx_http_chaindata_json_key(j, "effective");
    ngx_http_chaindata_json_key(j, NGX_HTTP_CHAINDATA_MIG_EFFECTIVE);
    ngx_http_chaindata_json_map_close(j);
}


/* the endpoint's query parameters that the replacement does not take */

static void
ngx_http_chaindata_mig_json_dropped(ngx_http_chaindata_json_t *j,
    const ngx_http_chaindata_mig_row_t *row)
{
    ngx_str_t           name;
    const char *const  *q;

    ngx_http_chaindata_json_array_open(j);

    for (q = row->query; q && *q; q++) {
        name.data = (u_char *) *q;
        name.len = ngx_strlen(*q);

        if (!ngx_http_chaindata_mig_in_list(row->supported, &name)
            && !ngx_http_chaindata_mig_in_list(row->ignored, &name))
        {
            ngx_http_chaindata_json_key(j, *q);
        }
    }

    ngx_http_chaindata_json_array_close(j);
}


static ngx_uint_t
ngx_http_chaindata_mig_drops_query(const ngx_http_chaindata_mig_row_t *row)
{
    ngx_str_t           name;
    const char *const  *q;

    for (q = row->query; q && *q; q++) {
        name.data = (u_char *) *q;
        name.len = ngx_strlen(*q);

        if (!ngx_http_chaindata_mig_in_list(row->supported, &name)
            && !ngx_http_chaindata_mig_in_list(row->ignored, &name))
        {
            return 1;
        }
    }

    return 0;
}


/*
 * The differences as data: "changes" lists codes (see the README), the
 * query lists name the parameters, "text" is the table's own words.
 */

static void
ngx_http_chaindata_mig_json_differences(ngx_http_chaindata_json_t *j,
    const ngx_http_chaindata_mig_row_t *row)
{
    ngx_http_chaindata_json_key(j, "differences");
    ngx_http_chaindata_json_map_open(j);

    ngx_http_chaindata_json_key(j, "changes");
    ngx_http_chaindata_json_array_open(j);

    if (row->replacement == NULL) {
        ngx_http_chaindata_json_key(j, "no_replacement");

    } else {
        if (ngx_strcmp(row->replacement, row->path) != 0) {
            ngx_http_chaindata_json_key(j, "path");
        }

        if (row->base == NGX_HTTP_CHAINDATA_MIG_BASE_BRC20) {
            ngx_http_chaindata_json_key(j, "base_url");
        }

        if (ngx_http_chaindata_mig_drops_query(row)) {
            ngx_http_chaindata_json_key(j, "query_unsupported");
        }

        if (row->ignored) {
            ngx_http_chaindata_json_key(j, "query_ignored");
        }
    }

    if (row->changes & NGX_HTTP_CHAINDATA_MIG_FULL_LIST) {
        ngx_http_chaindata_json_key(j, "full_list");
    }

    if (row->changes & NGX_HTTP_CHAINDATA_MIG_RAW_CONTENT) {
        ngx_http_chaindata_json_key(j, "raw_content");
    }

    if (row->changes & NGX_HTTP_CHAINDATA_MIG_PRICE_DATA) {
        ngx_http_chaindata_json_key(j, "price_data");
    }

    ngx_http_chaindata_json_array_close(j);

    ngx_http_chaindata_json_key(j, "unsupported_query");
    ngx_http_chaindata_mig_json_dropped(j, row);
    ngx_http_chaindata_json_key(j, "ignored_query");
    ngx_http_chaindata_mig_json_list(j, row->ignored);
    ngx_http_chaindata_json_key(j, "text");
    ngx_http_chaindata_json_key(j, row->text);

    ngx_http_chaindata_json_map_close(j);
}


/*
 * One row: "endpoint", "replacement", "alternative", "differences".  With
 * a request (m) the paths are the request's, parameters put in; without,
 * they are the templates (and the URLs templates too).
 */

static void
ngx_http_chaindata_mig_json_row(ngx_http_chaindata_json_t *j,
    ngx_http_chaindata_loc_conf_t *lcf,
    const ngx_http_chaindata_mig_row_t *row, ngx_http_chaindata_mig_t *m)
{
    ngx_str_t   path, url;
    ngx_uint_t  i;

    ngx_http_chaindata_json_key(j, "endpoint");
    ngx_http_chaindata_json_map_open(j);
    ngx_http_chaindata_json_key(j, "section");
    ngx_http_chaindata_json_key(j, row->section);
    ngx_http_chaindata_json_key(j, "method");
    ngx_http_chaindata_json_key(j, "GET");
    ngx_http_chaindata_json_key(j, "path");
    ngx_http_chaindata_json_key(j, row->path);

    if (m) {
        ngx_http_chaindata_json_key(j, "params");
        ngx_http_chaindata_json_map_open(j);

        for (i = 0; i < m->nparams; i++) {
            ngx_http_chaindata_json_str(j, m->params[i].name.data,
                                        m->params[i].name.len);
            ngx_http_chaindata_json_str(j, m->params[i].value.data,
                                        m->params[i].value.len);
        }

        ngx_http_chaindata_json_map_close(j);
    }

    ngx_http_chaindata_json_key(j, "query");
    ngx_http_chaindata_mig_json_list(j, row->query);
    ngx_http_chaindata_json_map_close(j);

    ngx_http_chaindata_json_key(j, "replacement");

    if (row->replacement == NULL) {
        ngx_http_chaindata_json_null(j);

    } else {
        ngx_http_chaindata_json_map_open(j);
        ngx_http_chaindata_json_key(j, "method");
        ngx_http_chaindata_json_key(j, "GET");
        ngx_http_chaindata_json_key(j, "path");

        if (m) {
            ngx_http_chaindata_json_str(j, m->path.data, m->path.len);
            ngx_http_chaindata_json_key(j, "template");
            ngx_http_chaindata_json_key(j, row->replacement);
            url = m->url;

        } else {
            ngx_http_chaindata_json_key(j, row->replacement);
            path.data = (u_char *) row->replacement;
            path.len = ngx_strlen(row->replacement);

            if (ngx_http_chaindata_mig_url(j->pool,
                    ngx_http_chaindata_mig_base(lcf, row), &path, &url)
                != NGX_OK)
            {
                j->failed = 1;
            }
        }

        ngx_http_chaindata_json_key(j, "url");
        ngx_http_chaindata_mig_json_nstr(j, &url);
        ngx_http_chaindata_json_key(j, "query");
        ngx_http_chaindata_mig_json_list(j, row->supported);
        ngx_http_chaindata_json_map_close(j);
    }

    ngx_http_chaindata_json_key(j, "alternative");

    if (row->alternative == NULL) {
        ngx_http_chaindata_json_null(j);

    } else {
        ngx_http_chaindata_json_map_open(j);
        ngx_http_chaindata_json_key(j, "method");
        ngx_http_chaindata_json_key(j, "GET");
        ngx_http_chaindata_json_key(j, "path");

        if (m) {
            ngx_http_chaindata_json_str(j, m->alt_path.data,
                                        m->alt_path.len);
            url = m->alt_url;

        } else {
            ngx_http_chaindata_json_key(j, row->alternative);
            path.data = (u_char *) row->alternative;
            path.len = ngx_strlen(row->alternative);

            if (ngx_http_chaindata_mig_url(j->pool, &lcf->migration_base,
                                           &path, &url)
                != NGX_OK)
            {
                j->failed = 1;
            }
        }

        ngx_http_chaindata_json_key(j, "url");
        ngx_http_chaindata_mig_json_nstr(j, &url);
        ngx_http_chaindata_json_key(j, "field");
        ngx_http_chaindata_mig_json_cstr(j, row->field);
        ngx_http_chaindata_json_map_close(j);
    }

    ngx_http_chaindata_mig_json_differences(j, row);
}


/* ---------------------------------------------------------------------- */
/* replies */


static ngx_int_t
ngx_http_chaindata_mig_send_gone(ngx_http_request_t *r,
    ngx_http_chaindata_loc_conf_t *lcf, ngx_http_chaindata_mig_t *m)
{
    ngx_str_t                  body;
    ngx_http_chaindata_json_t  j;

    if (ngx_http_chaindata_json_init(&j, r->pool) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_http_chaindata_json_map_open(&j);
    ngx_http_chaindata_json_key(&j, "statusCode");
    ngx_http_chaindata_json_int(&j, NGX_HTTP_CHAINDATA_GONE);
    ngx_http_chaindata_json_key(&j, "error");
    ngx_http_chaindata_json_key(&j, "Gone");
    ngx_http_chaindata_json_key(&j, "message");
    ngx_http_chaindata_json_key(&j, NGX_HTTP_CHAINDATA_MIG_GONE);
    ngx_http_chaindata_mig_json_dates(&j);
    ngx_http_chaindata_mig_json_row(&j, lcf, m->row, m);
    ngx_http_chaindata_json_key(&j, "unsupported_query");
    ngx_http_chaindata_mig_json_names(&j, &m->unsupported);
    ngx_http_chaindata_json_key(&j, "ignored_query");
    ngx_http_chaindata_mig_json_names(&j, &m->ignored);
    ngx_http_chaindata_json_map_close(&j);

    if (ngx_http_chaindata_json_done(&j, &body) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_json(r, NGX_HTTP_CHAINDATA_GONE, &body, NULL,
                                        NGX_HTTP_CHAINDATA_MIG_CACHE);
}


static ngx_int_t
ngx_http_chaindata_mig_send_table(ngx_http_request_t *r,
    ngx_http_chaindata_loc_conf_t *lcf)
{
    ngx_str_t                              body;
    ngx_uint_t                             i;
    ngx_http_chaindata_json_t              j;
    const ngx_http_chaindata_mig_row_t    *row;
    const ngx_http_chaindata_mig_extra_t  *extra;

    if (ngx_http_chaindata_json_init(&j, r->pool) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_http_chaindata_json_map_open(&j);
    ngx_http_chaindata_mig_json_dates(&j);
    ngx_http_chaindata_json_key(&j, "base_url");
    ngx_http_chaindata_mig_json_nstr(&j, &lcf->migration_base);
    ngx_http_chaindata_json_key(&j, "base_url_brc20");
    ngx_http_chaindata_mig_json_nstr(&j, &lcf->migration_base_brc20);
    ngx_http_chaindata_json_key(&j, "redirect");
    ngx_http_chaindata_json_bool(&j, lcf->migration_redirect);

    ngx_http_chaindata_json_key(&j, "endpoints");
    ngx_http_chaindata_json_array_open(&j);

    for (i = 0; i < sizeof(ngx_http_chaindata_mig_rows)
                    / sizeof(ngx_http_chaindata_mig_rows[0]); i++)
    {
        row = &ngx_http_chaindata_mig_rows[i];

        ngx_http_chaindata_json_map_open(&j);
        ngx_http_chaindata_mig_json_row(&j, lcf, row, NULL);
        ngx_http_chaindata_json_key(&j, "redirect");
        ngx_http_chaindata_json_bool(&j, row->redirect);
        ngx_http_chaindata_json_map_close(&j);
    }

    ngx_http_chaindata_json_array_close(&j);

    ngx_http_chaindata_json_key(&j, "replacement_extras");
    ngx_http_chaindata_json_map_open(&j);
    ngx_http_chaindata_json_key(&j, "capabilities");
    ngx_http_chaindata_json_array_open(&j);

    for (i = 0; i < sizeof(ngx_http_chaindata_mig_extras)
                    / sizeof(ngx_http_chaindata_mig_extras[0]); i++)
    {
        extra = &ngx_http_chaindata_mig_extras[i];

        ngx_http_chaindata_json_map_open(&j);
        ngx_http_chaindata_json_key(&j, "name");
        ngx_http_chaindata_json_key(&j, extra->name);
        ngx_http_chaindata_json_key(&j, "operations");
        ngx_http_chaindata_mig_json_list(&j, extra->operations);
        ngx_http_chaindata_json_key(&j, "text");
        ngx_http_chaindata_json_key(&j, extra->text);
        ngx_http_chaindata_json_map_close(&j);
    }

    ngx_http_chaindata_json_array_close(&j);
    ngx_http_chaindata_json_key(&j, "text");
    ngx_http_chaindata_json_key(&j, NGX_HTTP_CHAINDATA_MIG_EXTRAS);
    ngx_http_chaindata_json_map_close(&j);

    ngx_http_chaindata_json_map_close(&j);

    if (ngx_http_chaindata_json_done(&j, &body) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_chaindata_send_json(r, NGX_HTTP_OK, &body, NULL,
                                        NGX_HTTP_CHAINDATA_MIG_CACHE);
}


/*
 * 308 to the replacement with the request's query string, whose bytes
 * outside RFC 3986's query characters (and stray '%') are percent-encoded.
 */

static ngx_int_t
ngx_http_chaindata_mig_send_redirect(ngx_http_request_t *r,
    ngx_http_chaindata_mig_t *m)
{
    u_char     *p, *s, *end;
    ngx_str_t   location;

    location.data = ngx_pnalloc(r->pool, m->url.len + 1 + 3 * r->args.len);
    if (location.data == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    p = ngx_cpymem(location.data, m->url.data, m->url.len);

    if (r->args.len) {
        *p++ = '?';
        end = r->args.data + r->args.len;

        for (s = r->args.data; s < end; s++) {
            if (ngx_http_chaindata_mig_query_char(*s)
                || (*s == '%' && end - s > 2
                    && ngx_http_chaindata_mig_hex(s[1])
                    && ngx_http_chaindata_mig_hex(s[2])))
            {
                *p++ = *s;

            } else {
                p = ngx_http_chaindata_mig_pct(p, *s);
            }
        }
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
    ngx_str_t                       sub;
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

    if (ngx_http_chaindata_mig_subpath(r, &sub) != NGX_OK) {
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

    if (ngx_http_chaindata_mig_match(&sub, m) != NGX_OK) {
        return ngx_http_chaindata_mig_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                   NGX_HTTP_CHAINDATA_MIG_UNMATCHED);
    }

    if (ngx_http_chaindata_mig_check_params(r, m, &msg) != NGX_OK) {
        return ngx_http_chaindata_mig_send_error(r, NGX_HTTP_BAD_REQUEST,
                                                 "FST_ERR_VALIDATION", msg);
    }

    if (ngx_http_chaindata_mig_resolve(r, lcf, m) != NGX_OK
        || ngx_http_chaindata_mig_query(r, m) != NGX_OK
        || ngx_http_chaindata_deprecation_headers_with(r, &m->url) != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (lcf->migration_redirect && m->row->redirect && m->url.len) {
        return ngx_http_chaindata_mig_send_redirect(r, m);
    }

    return ngx_http_chaindata_mig_send_gone(r, lcf, m);
}
