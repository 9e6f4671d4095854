
/*
 * chaindata: the API keys of the chainhook route kept out of the error
 * logs (doc/operations.md, keeping API keys out of logs), whoever writes
 * the line: nginx's open() of a decoded path under a root, the upstream
 * URL of proxy_pass, debug lines, any module's.
 *
 * Once a location serves the route, every worker gives every error log of
 * the http block a writer of its own: ngx_log_error_core formats the whole
 * line, then calls a log's writer instead of writing its file.  Ours hides
 * what may be a key in the line (chaindata_redact_line) and hands it on to
 * the log's own writer (syslog, memory) or writes the file as nginx would.
 * Connections copy a log's writer with its file (ngx_set_connection_log),
 * so every line of a request goes through it.
 *
 * The writers are nginx's own again before the module can go away: at the
 * worker's exit_process, and in a cleanup of the cycle's pool, which runs
 * before the cleanup that unloads the module (registered earlier, run
 * later) and before the pool frees the wraps.  nginx writes debug lines
 * while it destroys that pool (doc/operations.md).
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "chaindata_chainhook_path.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_redact_log.h"


/*
 * A line grows only where a piece shorter than "***" is hidden; twice
 * nginx's longest line is room enough but for contrived ones, which are
 * cut (chaindata_redact_line never overruns).
 */
#define NGX_HTTP_CHAINDATA_LOG_LINE_MAX   (2 * NGX_MAX_ERROR_STR)


typedef struct ngx_http_chaindata_log_wrap_s  ngx_http_chaindata_log_wrap_t;

struct ngx_http_chaindata_log_wrap_s {
    ngx_log_writer_pt               writer;  /* the log's own; NULL: file */
    void                           *wdata;
    ngx_log_t                      *log;     /* the log it was taken from */
    ngx_http_chaindata_log_wrap_t  *next;
};


/* the worker's wraps, newest first */
static ngx_http_chaindata_log_wrap_t  *ngx_http_chaindata_log_wraps;


static void
ngx_http_chaindata_log_writer(ngx_log_t *log, ngx_uint_t level, u_char *buf,
    size_t len)
{
    u_char                         *p;
    size_t                          head, body, lf;
    ssize_t                         n;
    ngx_log_t                       own;
    ngx_http_chaindata_log_wrap_t  *wrap;
    u_char                          line[NGX_HTTP_CHAINDATA_LOG_LINE_MAX];

    wrap = log->wdata;

    /* the time the line starts with has slashes of its own */
    head = ngx_min(len, ngx_cached_err_log_time.len);
    lf = (len > head && buf[len - 1] == LF) ? NGX_LINEFEED_SIZE : 0;
    body = len - head - lf;

    p = ngx_cpymem(line, buf, head);
    p += chaindata_redact_line(p, sizeof(line) - head - NGX_LINEFEED_SIZE,
                               buf + head, body);

    if (lf) {
        ngx_linefeed(p);
    }

    if (wrap->writer) {
        own = *log;
        own.writer = wrap->writer;
        own.wdata = wrap->wdata;

        wrap->writer(&own, level, line, p - line);
        return;
    }

    /* as ngx_log_error_core writes a file */

    if (ngx_time() == log->disk_full_time) {
        return;
    }

    n = ngx_write_fd(log->file->fd, line, p - line);

    if (n == -1 && ngx_errno == NGX_ENOSPC) {
        log->disk_full_time = ngx_time();
    }
}


/*
 * Every wrapped log gets its own writer back; a log a wrap no longer
 * holds (another writer put in front of ours since) is left as it is.
 */

void
ngx_http_chaindata_redact_log_done(void)
{
    ngx_http_chaindata_log_wrap_t  *wrap;

    for (wrap = ngx_http_chaindata_log_wraps; wrap; wrap = wrap->next) {

        if (wrap->log->writer == ngx_http_chaindata_log_writer
            && wrap->log->wdata == wrap)
        {
            wrap->log->writer = wrap->writer;
            wrap->log->wdata = wrap->wdata;
        }
    }

    ngx_http_chaindata_log_wraps = NULL;
}


static void
ngx_http_chaindata_redact_log_cleanup(void *data)
{
    ngx_http_chaindata_redact_log_done();
}


/* every log of the chain, once: chains and their heads may be shared */

static ngx_int_t
ngx_http_chaindata_log_wrap(ngx_pool_t *pool, ngx_log_t *log)
{
    ngx_http_chaindata_log_wrap_t  *wrap;

    for ( /* void */ ; log; log = log->next) {

        if (log->writer == ngx_http_chaindata_log_writer
            || (log->writer == NULL && log->file == NULL))
        {
            continue;
        }

        wrap = ngx_palloc(pool, sizeof(ngx_http_chaindata_log_wrap_t));
        if (wrap == NULL) {
            return NGX_ERROR;
        }

        wrap->writer = log->writer;
        wrap->wdata = log->wdata;
        wrap->log = log;
        wrap->next = ngx_http_chaindata_log_wraps;
        ngx_http_chaindata_log_wraps = wrap;

        log->writer = ngx_http_chaindata_log_writer;
        log->wdata = wrap;
    }

    return NGX_OK;
}


/*
 * At configuration, from the merge of every server and location: the
 * error log it ended up with (its own, inherited, or the main one).
 */

ngx_int_t
ngx_http_chaindata_redact_log_note(ngx_conf_t *cf,
    ngx_http_chaindata_main_conf_t *mcf)
{
    ngx_log_t                 **last, **log;
    ngx_http_core_loc_conf_t   *clcf;

    if (mcf->chainhook == 0) {
        return NGX_OK;
    }

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);

    if (clcf->error_log == NULL) {
        return NGX_OK;
    }

    if (mcf->error_logs.nelts) {
        last = mcf->error_logs.elts;

        if (last[mcf->error_logs.nelts - 1] == clcf->error_log) {
            return NGX_OK;
        }
    }

    log = ngx_array_push(&mcf->error_logs);
    if (log == NULL) {
        return NGX_ERROR;
    }

    *log = clcf->error_log;

    return NGX_OK;
}


/*
 * In every worker, before it serves: the main error log is final only
 * once the whole configuration is read (an error_log after the http block,
 * nginx's default), and the listening sockets' copies of the servers'
 * logs were taken in the master.
 */

ngx_int_t
ngx_http_chaindata_redact_log_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf)
{
    ngx_uint_t           i;
    ngx_log_t          **log;
    ngx_listening_t     *ls;
    ngx_pool_cleanup_t  *cln;

    if (mcf->chainhook == 0) {
        return NGX_OK;
    }

    cln = ngx_pool_cleanup_add(cycle->pool, 0);
    if (cln == NULL) {
        return NGX_ERROR;
    }

    cln->handler = ngx_http_chaindata_redact_log_cleanup;

    if (ngx_http_chaindata_log_wrap(cycle->pool, &cycle->new_log) != NGX_OK) {
        return NGX_ERROR;
    }

    log = mcf->error_logs.elts;

    for (i = 0; i < mcf->error_logs.nelts; i++) {
        if (ngx_http_chaindata_log_wrap(cycle->pool, log[i]) != NGX_OK) {
            return NGX_ERROR;
        }
    }

    ls = cycle->listening.elts;

    for (i = 0; i < cycle->listening.nelts; i++) {
        if (ls[i].handler == ngx_http_init_connection
            && ngx_http_chaindata_log_wrap(cycle->pool, &ls[i].log)
               != NGX_OK)
        {
            return NGX_ERROR;
        }
    }

    return NGX_OK;
}
