
/*
 * chaindata_status: how current and how full the index is (doc/module.md
 * "Status"), and the traffic counters (doc/operations.md
 * "Monitoring"), as JSON, or in the Prometheus text format with
 * ?format=prometheus or when the Accept header asks for it (a Prometheus
 * scrape).  Counts, sizes and feed positions only: never any key or
 * chainhook data.  The gathering and the formatting are
 * src/core/chaindata_status.c, shared with chaindata-load --stats.  With
 * chaindata_status_max_behind or _max_lag, a feed beyond them makes the
 * JSON answer a 503, for a load balancer's health check.  A scrape also
 * looks at the index's files itself: whether the worker may still open
 * them, and the room on their disk.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_status.h"
#include "ngx_http_chaindata_env.h"
#include "ngx_http_chaindata_metrics.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"
#include "ngx_http_chaindata_store.h"


#define NGX_HTTP_CHAINDATA_PROMETHEUS_TYPE                                   \
    "text/plain; version=0.0.4; charset=utf-8"


/*
 * why this worker may not open the index's files, as the last scrape
 * found (empty: it may)
 */
static u_char  ngx_http_chaindata_status_denied[NGX_HTTP_CHAINDATA_FAILURE_LEN];


/*
 * ?format=prometheus, or an Accept header naming the text format or
 * OpenMetrics (Prometheus' scrapes name both) and not JSON
 */

static ngx_uint_t
ngx_http_chaindata_status_prometheus(ngx_http_request_t *r)
{
    u_char           *p, *last;
    ngx_str_t         format;
    ngx_table_elt_t  *accept;

    if (ngx_http_arg(r, (u_char *) "format", 6, &format) == NGX_OK) {
        return format.len == 10
               && ngx_strncmp(format.data, "prometheus", 10) == 0;
    }

    accept = r->headers_in.accept;

    if (accept == NULL) {
        return 0;
    }

    p = accept->value.data;
    last = p + accept->value.len;

    if (ngx_strlcasestrn(p, last, (u_char *) "application/json", 16 - 1)) {
        return 0;
    }

    return ngx_strlcasestrn(p, last, (u_char *) "text/plain", 10 - 1) != NULL
           || ngx_strlcasestrn(p, last,
                               (u_char *) "application/openmetrics-text",
                               28 - 1) != NULL;
}


/* the caller's parts of the status: version, traffic, health limits */

static ngx_int_t
ngx_http_chaindata_status_add(ngx_http_request_t *r, chaindata_status_t *st)
{
    chaindata_metrics_t  *m;

    st->version = CHAINDATA_VERSION;

    ngx_http_chaindata_metrics_health(r, &st->max_behind, &st->max_lag);

    m = ngx_palloc(r->pool, sizeof(chaindata_metrics_t));
    if (m == NULL) {
        return NGX_ERROR;
    }

    if (ngx_http_chaindata_metrics_copy(r, m) == NGX_OK) {
        st->traffic = m;
    }

    return NGX_OK;
}


/*
 * The scrape's own look at the index's files, each time, as the worker:
 * whether it may still open them as a reload's or a restart's workers
 * would (modes changed under it leave the index open serving, but the
 * reload is refused and a restart takes the edge down), said in the
 * error log when it changes; and the room on their disk.  Why it may
 * not, or NULL.
 */

static const char *
ngx_http_chaindata_status_files(ngx_http_request_t *r,
    chaindata_status_t *st)
{
    u_char                          *p, *last, *denied;
    u_char                           text[NGX_HTTP_CHAINDATA_FAILURE_LEN];
    ngx_err_t                        err;
    ngx_http_chaindata_main_conf_t  *mcf;

    mcf = ngx_http_get_module_main_conf(r, ngx_http_chaindata_module);
    denied = ngx_http_chaindata_status_denied;

    if (mcf == NULL || mcf->db.len == 0) {
        return NULL;
    }

    (void) chaindata_status_disk((char *) mcf->db.data, st);

    err = ngx_http_chaindata_env_may_open(&mcf->db);
    last = text + sizeof(text) - 1;
    p = text;

    if (err == NGX_EACCES) {
        p = ngx_http_chaindata_env_denied(text, last);

    } else if (err) {
        p = ngx_slprintf(text, last, "cannot open the index's files: ");
        p = ngx_strerror(err, p, last - p);
    }

    *p = '\0';

    if (ngx_strcmp(text, denied) != 0) {
        if (text[0]) {
            ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                          "chaindata_db \"%V\": %s (found by a scrape: a "
                          "reload or a restart would find the index "
                          "unreadable)", &mcf->db, text);
        } else {
            ngx_log_error(NGX_LOG_NOTICE, r->connection->log, 0,
                          "chaindata_db \"%V\": this worker may open the "
                          "index's files again", &mcf->db);
        }

        ngx_memcpy(denied, text, p - text + 1);
    }

    return denied[0] ? (const char *) denied : NULL;
}


ngx_int_t
ngx_http_chaindata_status_handler(ngx_http_request_t *r)
{
    char                *text;
    const char          *denied;
    time_t               now;
    ngx_int_t            rc;
    ngx_str_t            body;
    ngx_uint_t           prometheus, status;
    chaindata_status_t  *st;

    if (!ngx_http_chaindata_method_allowed(r)) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    prometheus = ngx_http_chaindata_status_prometheus(r);

    st = ngx_palloc(r->pool, sizeof(chaindata_status_t));
    if (st == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    rc = ngx_http_chaindata_store_begin(r->connection->log);

    if (rc == NGX_OK) {
        rc = ngx_http_chaindata_store_status(r->connection->log, st);
        ngx_http_chaindata_store_end();
    }

    /*
     * A scrape is answered even so: a failed scrape would lose every
     * series when they matter most; chaindata_index_up says it.
     */
    if (rc != NGX_OK) {
        if (!prometheus) {
            return ngx_http_chaindata_send_unavailable(r);
        }

        ngx_memzero(st, sizeof(chaindata_status_t));
    }

    st->has_disk = 0;
    denied = ngx_http_chaindata_status_files(r, st);

    st->index_down = ngx_http_chaindata_store_failure();

    if (st->index_down == NULL) {
        st->index_down = denied;
    }

    if (st->index_down == NULL && !st->gathered) {
        st->index_down = "cannot read its status";
    }

    if (ngx_http_chaindata_status_add(r, st) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    now = ngx_time();
    status = NGX_HTTP_OK;

    /*
     * The health check is the JSON's: a scrape answered 503 would be a
     * failed scrape, its metrics lost when they matter most, so the
     * Prometheus text is a 200 that says chaindata_healthy 0.
     */
    if (!prometheus && !chaindata_status_healthy(st, (uint64_t) now)) {
        status = NGX_HTTP_SERVICE_UNAVAILABLE;
        ngx_http_chaindata_metrics_unavailable(r,
                                               CHAINDATA_UNAVAILABLE_BEHIND);
    }

    text = chaindata_status_format(st, (uint64_t) now, prometheus);
    if (text == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    body.len = ngx_strlen(text);
    body.data = ngx_pnalloc(r->pool, body.len);

    if (body.data == NULL) {
        free(text);
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_memcpy(body.data, text, body.len);
    free(text);

    return ngx_http_chaindata_send_body(r, status, &body, NULL,
               NGX_HTTP_CHAINDATA_CACHE_NONE,
               prometheus ? NGX_HTTP_CHAINDATA_PROMETHEUS_TYPE
                          : NGX_HTTP_CHAINDATA_CONTENT_TYPE);
}
