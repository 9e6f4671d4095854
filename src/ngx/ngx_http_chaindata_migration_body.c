
/*
 * chaindata: the JSON bodies of the deprecated endpoints (doc/module.md,
 * Deprecated Bitcoin-layer endpoints: 410 body, The table): the 410 of
 * one request, with its replacement, and the location root's table of the
 * whole mapping.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_escape.h"
#include "chaindata_migration_map.h"
#include "ngx_http_chaindata_deprecation.h"
#include "ngx_http_chaindata_migration.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


#define NGX_HTTP_CHAINDATA_MIG_GONE                                          \
    "This API has been deprecated and is no longer available."

#define NGX_HTTP_CHAINDATA_MIG_EXTRAS                                        \
    "The replacement provider additionally offers mint (estimate, order, "  \
    "execute), deploy (estimate and related) and swap-quote endpoints "     \
    "that the service lacks."


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
    chaindata_span_t *s)
{
    u_char        *buf, *p;
    size_t         n;
    const u_char  *src, *end;

    n = chaindata_utf8_valid_len(s->data, s->len);

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
        n = chaindata_utf8_valid_len(src, end - src);
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
    chaindata_mig_names_t *names)
{
    ngx_uint_t  i;

    ngx_http_chaindata_json_array_open(j);

    for (i = 0; i < names->n; i++) {
        ngx_http_chaindata_mig_json_text(j, &names->names[i]);
    }

    ngx_http_chaindata_json_array_close(j);
}


/* a date as "YYYY-MM-DD" (UTC) */

static void
ngx_http_chaindata_mig_json_date(ngx_http_chaindata_json_t *j, time_t t)
{
    u_char    date[sizeof("2026-03-09") - 1];
    ngx_tm_t  tm;

    ngx_gmtime(t, &tm);
    ngx_sprintf(date, "%4d-%02d-%02d", tm.ngx_tm_year, tm.ngx_tm_mon,
                tm.ngx_tm_mday);

    ngx_http_chaindata_json_str(j, date, sizeof(date));
}


static void
ngx_http_chaindata_mig_json_dates(ngx_http_chaindata_json_t *j)
{
    ngx_http_chaindata_json_key(j, "deprecation");
    ngx_http_chaindata_json_map_open(j);
    ngx_http_chaindata_json_key(j, "announced");
    ngx_http_chaindata_mig_json_date(j,
                                   NGX_HTTP_CHAINDATA_DEPRECATION_ANNOUNCED);
    ngx_http_chaindata_json_key(j, "effective");
    ngx_http_chaindata_mig_json_date(j,
                                   NGX_HTTP_CHAINDATA_DEPRECATION_EFFECTIVE);
    ngx_http_chaindata_json_map_close(j);
}


/*
 * The first of the endpoint's query parameters from q on that the
 * replacement does not take, or NULL.
 */

static const char *const *
ngx_http_chaindata_mig_dropped(const chaindata_mig_row_t *row,
    const char *const *q)
{
    chaindata_span_t  name;

    for ( /* void */ ; q && *q; q++) {
        name.data = (const u_char *) *q;
        name.len = ngx_strlen(*q);

        if (!chaindata_mig_in_list(row->supported, &name)
            && !chaindata_mig_in_list(row->ignored, &name))
        {
            return q;
        }
    }

    return NULL;
}


static void
ngx_http_chaindata_mig_json_dropped(ngx_http_chaindata_json_t *j,
    const chaindata_mig_row_t *row)
{
    const char  *const  *q;

    ngx_http_chaindata_json_array_open(j);

    for (q = ngx_http_chaindata_mig_dropped(row, row->query);
         q;
         q = ngx_http_chaindata_mig_dropped(row, q + 1))
    {
        ngx_http_chaindata_json_key(j, *q);
    }

    ngx_http_chaindata_json_array_close(j);
}


/*
 * The differences as data: "changes" lists codes (see doc/module.md), the
 * query lists name the parameters, "text" is the table's own words.
 */

static void
ngx_http_chaindata_mig_json_differences(ngx_http_chaindata_json_t *j,
    const chaindata_mig_row_t *row)
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

        if (row->base == CHAINDATA_MIG_BASE_BRC20) {
            ngx_http_chaindata_json_key(j, "base_url");
        }

        if (ngx_http_chaindata_mig_dropped(row, row->query) != NULL) {
            ngx_http_chaindata_json_key(j, "query_unsupported");
        }

        if (row->ignored) {
            ngx_http_chaindata_json_key(j, "query_ignored");
        }
    }

    if (row->changes & CHAINDATA_MIG_FULL_LIST) {
        ngx_http_chaindata_json_key(j, "full_list");
    }

    if (row->changes & CHAINDATA_MIG_RAW_CONTENT) {
        ngx_http_chaindata_json_key(j, "raw_content");
    }

    if (row->changes & CHAINDATA_MIG_PRICE_DATA) {
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
 * Opens an endpoint object: {"method":"GET","path":...[,"template":...],
 * "url":... with the request's expansion (path, url) when there is one;
 * without, the template is the path and the URL is the base and the
 * template.
 */

static void
ngx_http_chaindata_mig_json_target(ngx_http_chaindata_json_t *j,
    const char *tmpl, ngx_uint_t with_template, ngx_str_t *path,
    ngx_str_t *url, ngx_str_t *base)
{
    ngx_str_t  t, u;

    ngx_http_chaindata_json_map_open(j);
    ngx_http_chaindata_json_key(j, "method");
    ngx_http_chaindata_json_key(j, "GET");
    ngx_http_chaindata_json_key(j, "path");

    if (path) {
        ngx_http_chaindata_json_str(j, path->data, path->len);

        if (with_template) {
            ngx_http_chaindata_json_key(j, "template");
            ngx_http_chaindata_json_key(j, tmpl);
        }

        u = *url;

    } else {
        ngx_http_chaindata_json_key(j, tmpl);
        t.data = (u_char *) tmpl;
        t.len = ngx_strlen(tmpl);

        if (ngx_http_chaindata_mig_url(j->pool, base, &t, &u) != NGX_OK) {
            j->failed = 1;
        }
    }

    ngx_http_chaindata_json_key(j, "url");
    ngx_http_chaindata_mig_json_nstr(j, &u);
}


/*
 * One row: "endpoint", "replacement", "alternative", "differences".  With
 * a request (m) the paths are the request's, parameters put in; without,
 * they are the templates (and the URLs templates too).
 */

static void
ngx_http_chaindata_mig_json_row(ngx_http_chaindata_json_t *j,
    ngx_http_chaindata_loc_conf_t *lcf,
    const chaindata_mig_row_t *row, ngx_http_chaindata_mig_t *m)
{
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

        for (i = 0; i < m->match.nparams; i++) {
            ngx_http_chaindata_json_str(j, m->match.params[i].name.data,
                                        m->match.params[i].name.len);
            ngx_http_chaindata_json_str(j, m->match.params[i].value.data,
                                        m->match.params[i].value.len);
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
        ngx_http_chaindata_mig_json_target(j, row->replacement, 1,
                                           m ? &m->path : NULL,
                                           m ? &m->url : NULL,
                                           ngx_http_chaindata_mig_base(lcf,
                                                                       row));
        ngx_http_chaindata_json_key(j, "query");
        ngx_http_chaindata_mig_json_list(j, row->supported);
        ngx_http_chaindata_json_map_close(j);
    }

    ngx_http_chaindata_json_key(j, "alternative");

    if (row->alternative == NULL) {
        ngx_http_chaindata_json_null(j);

    } else {
        ngx_http_chaindata_mig_json_target(j, row->alternative, 0,
                                           m ? &m->alt_path : NULL,
                                           m ? &m->alt_url : NULL,
                                           &lcf->migration_base);
        ngx_http_chaindata_json_key(j, "field");
        ngx_http_chaindata_mig_json_cstr(j, row->field);
        ngx_http_chaindata_json_map_close(j);
    }

    ngx_http_chaindata_mig_json_differences(j, row);
}


ngx_int_t
ngx_http_chaindata_mig_send_gone(ngx_http_request_t *r,
    ngx_http_chaindata_loc_conf_t *lcf, ngx_http_chaindata_mig_t *m)
{
    ngx_http_chaindata_json_t  j;

    if (ngx_http_chaindata_json_init(&j, r->pool) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_http_chaindata_error_members(&j, NGX_HTTP_CHAINDATA_GONE, NULL,
                                     NGX_HTTP_CHAINDATA_MIG_GONE);
    ngx_http_chaindata_mig_json_dates(&j);
    ngx_http_chaindata_mig_json_row(&j, lcf, m->row, m);
    ngx_http_chaindata_json_key(&j, "unsupported_query");
    ngx_http_chaindata_mig_json_names(&j, &m->unsupported);
    ngx_http_chaindata_json_key(&j, "ignored_query");
    ngx_http_chaindata_mig_json_names(&j, &m->ignored);
    ngx_http_chaindata_json_map_close(&j);

    return ngx_http_chaindata_send_json_done(r, &j, NGX_HTTP_CHAINDATA_GONE,
                                             NGX_HTTP_CHAINDATA_MIG_CACHE);
}


ngx_int_t
ngx_http_chaindata_mig_send_table(ngx_http_request_t *r,
    ngx_http_chaindata_loc_conf_t *lcf)
{
    ngx_uint_t                    i;
    ngx_http_chaindata_json_t     j;
    const chaindata_mig_row_t    *row;
    const chaindata_mig_extra_t  *extra;

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

    for (i = 0; i < chaindata_mig_nrows; i++) {
        row = &chaindata_mig_rows[i];

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

    for (i = 0; i < chaindata_mig_nextras; i++) {
        extra = &chaindata_mig_extras[i];

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

    return ngx_http_chaindata_send_json_done(r, &j, NGX_HTTP_OK,
                                             NGX_HTTP_CHAINDATA_MIG_CACHE);
}
