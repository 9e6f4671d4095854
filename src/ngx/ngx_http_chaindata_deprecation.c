
/*
 * chaindata: deprecation signalling for the Bitcoin-layer routes
 * (doc/module.md, chaindata_deprecation): Deprecation (RFC 9745), Link
 * rel="deprecation" and rel="successor-version", and Sunset (RFC 8594), as
 * configured with
 *
 *     chaindata_deprecation       @UNIX-SECONDS | off;
 *     chaindata_deprecation_link  URL;
 *     chaindata_successor_link    URL;
 *     chaindata_sunset            HTTP-DATE | @UNIX-SECONDS;
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_deprecation.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


static time_t
ngx_http_chaindata_parse_date(ngx_str_t *value)
{
    ngx_int_t  n;

    if (value->len > 1 && value->data[0] == '@') {
        n = ngx_atotm(value->data + 1, value->len - 1);
        return n == NGX_ERROR ? NGX_ERROR : (time_t) n;
    }

    return ngx_parse_http_time(value->data, value->len);
}


char *
ngx_http_chaindata_deprecation(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
{
    ngx_http_chaindata_loc_conf_t  *lcf = conf;

    ngx_str_t  *value;

    if (lcf->deprecation != NGX_CONF_UNSET) {
        return "is duplicate";
    }

    value = cf->args->elts;

    if (ngx_strcmp(value[1].data, "off") == 0) {
        lcf->deprecation = NGX_HTTP_CHAINDATA_NO_DATE;
        return NGX_CONF_OK;
    }

    if (value[1].data[0] != '@') {
        return "takes \"@\" and Unix seconds (RFC 9745), or \"off\"";
    }

    lcf->deprecation = ngx_http_chaindata_parse_date(&value[1]);

    if (lcf->deprecation == NGX_ERROR) {
        return "takes \"@\" and Unix seconds (RFC 9745), or \"off\"";
    }

    return NGX_CONF_OK;
}


char *
ngx_http_chaindata_sunset(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_chaindata_loc_conf_t  *lcf = conf;

    ngx_str_t  *value;

    if (lcf->sunset != NGX_CONF_UNSET) {
        return "is duplicate";
    }

    value = cf->args->elts;
    lcf->sunset = ngx_http_chaindata_parse_date(&value[1]);

    if (lcf->sunset == NGX_ERROR) {
        return "takes an HTTP-date such as \"Tue, 01 Sep 2026 00:00:00 GMT\" "
               "or \"@\" and Unix seconds";
    }

    return NGX_CONF_OK;
}


/* a URL goes into a Link header between < and >: visible ASCII only */

char *
ngx_http_chaindata_link(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    char  *p = conf;

    u_char      *c;
    ngx_str_t   *field, *value;

    field = (ngx_str_t *) (p + cmd->offset);

    if (field->data) {
        return "is duplicate";
    }

    value = cf->args->elts;

    for (c = value[1].data; c < value[1].data + value[1].len; c++) {
        if (*c <= ' ' || *c >= 0x7f || *c == '<' || *c == '>' || *c == '"') {
            return "takes a URL of visible ASCII characters without "
                   "spaces, quotes, \"<\" or \">\"";
        }
    }

    if (value[1].len == 0) {
        return "takes a URL";
    }

    *field = value[1];

    return NGX_CONF_OK;
}


char *
ngx_http_chaindata_merge_deprecation(ngx_conf_t *cf,
    ngx_http_chaindata_loc_conf_t *prev, ngx_http_chaindata_loc_conf_t *conf)
{
    ngx_conf_merge_value(conf->deprecation, prev->deprecation,
                         NGX_HTTP_CHAINDATA_DEPRECATION_EFFECTIVE);
    ngx_conf_merge_value(conf->sunset, prev->sunset,
                         NGX_HTTP_CHAINDATA_NO_DATE);
    ngx_conf_merge_str_value(conf->deprecation_link, prev->deprecation_link,
                             "");
    ngx_conf_merge_str_value(conf->successor_link, prev->successor_link, "");

    if (conf->sunset != NGX_HTTP_CHAINDATA_NO_DATE
        && conf->deprecation != NGX_HTTP_CHAINDATA_NO_DATE
        && conf->sunset < conf->deprecation)
    {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"chaindata_sunset\" is earlier than the "
                           "deprecation date (@%T); a resource cannot go "
                           "away before it is deprecated (RFC 8594)",
                           conf->deprecation);
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


static ngx_int_t
ngx_http_chaindata_add_link(ngx_http_request_t *r, const ngx_str_t *url,
    const char *rel)
{
    size_t     len;
    ngx_str_t  link;

    len = ngx_strlen(rel);
    link.len = 1 + url->len + sizeof(">; rel=\"\"") - 1 + len;

    link.data = ngx_pnalloc(r->pool, link.len);
    if (link.data == NULL) {
        return NGX_ERROR;
    }

    ngx_sprintf(link.data, "<%V>; rel=\"%s\"", url, rel);

    return ngx_http_chaindata_add_header(r, "Link", &link);
}


/* called by every response of a deprecated route, errors included */

ngx_int_t
ngx_http_chaindata_deprecation_headers(ngx_http_request_t *r)
{
    return ngx_http_chaindata_deprecation_headers_with(r, NULL);
}


/*
 * The same, with the successor-version link of this very response (a URL
 * safe for a header) in place of chaindata_successor_link when it is set.
 */

ngx_int_t
ngx_http_chaindata_deprecation_headers_with(ngx_http_request_t *r,
    ngx_str_t *successor)
{
    ngx_str_t                       value;
    ngx_http_chaindata_loc_conf_t  *lcf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    if (successor == NULL || successor->len == 0) {
        successor = &lcf->successor_link;
    }

    if (lcf->deprecation != NGX_HTTP_CHAINDATA_NO_DATE) {
        value.data = ngx_pnalloc(r->pool, 1 + NGX_TIME_T_LEN);
        if (value.data == NULL) {
            return NGX_ERROR;
        }

        value.len = ngx_sprintf(value.data, "@%T", lcf->deprecation)
                    - value.data;

        if (ngx_http_chaindata_add_header(r, "Deprecation", &value)
            != NGX_OK)
        {
            return NGX_ERROR;
        }
    }

    if (lcf->deprecation_link.len
        && ngx_http_chaindata_add_link(r, &lcf->deprecation_link,
                                       "deprecation")
           != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (successor->len
        && ngx_http_chaindata_add_link(r, successor, "successor-version")
           != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (lcf->sunset != NGX_HTTP_CHAINDATA_NO_DATE) {
        value.data = ngx_pnalloc(r->pool,
                                 sizeof("Mon, 28 Sep 1970 06:00:00 GMT"));
        if (value.data == NULL) {
            return NGX_ERROR;
        }

        value.len = ngx_http_time(value.data, lcf->sunset) - value.data;

        if (ngx_http_chaindata_add_header(r, "Sunset", &value) != NGX_OK) {
            return NGX_ERROR;
        }
    }

    return NGX_OK;
}
