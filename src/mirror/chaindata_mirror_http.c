
/*
 * chaindata-mirror: fetching, the HTTP client.  libcurl's multi interface
 * runs up to --parallel requests at once, started at most --rate a
 * second; a 429 waits for its Retry-After, a 5xx, a timeout or a wrong
 * answer (check()) is retried with exponential backoff and jitter, up to
 * --retries times; any other 4xx fails at once.  A failure is logged by
 * chaindata_mirror_fetch(), the one entry point of a fetch.
 */


#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"
#include "chaindata_secret.h"
#include "chaindata_signal.h"


#define CHAINDATA_BACKOFF      0.25    /* seconds, doubled each try */
#define CHAINDATA_BACKOFF_MAX  30.0


int
chaindata_http_init(chaindata_http_t *h)
{
    h->multi = curl_multi_init();

    return h->multi ? 0 : -1;
}


void
chaindata_http_free(chaindata_http_t *h)
{
    size_t  i;

    if (h->multi) {
        curl_multi_cleanup(h->multi);
    }

    curl_slist_free_all(h->headers);
    h->multi = NULL;
    h->headers = NULL;

    for (i = 0; i < CHAINDATA_SOURCES; i++) {
        curl_slist_free_all(h->bound[i]);
        h->bound[i] = NULL;
    }
}


/*
 * The body budget (--max-body-bytes): the buffers of every transfer under
 * way together, counted as allocated, decoded bytes (what a compressed
 * answer inflates to).  An answer that alone claims (Content-Length) or
 * grows past it fails for good; one that would grow past what the others
 * leave is tried again later.  Either says so in r->why.
 */

#define CHAINDATA_BODY_ALONE   1
#define CHAINDATA_BODY_SHARED  2

static size_t
chaindata_http_over(chaindata_http_t *h, chaindata_req_t *r, int how,
    const char *what, uint64_t size)
{
    r->over = how;
    (void) chaindata_req_fail(r, "the answer %s %llu bytes, over the "
                              "mirror's body budget of %zu bytes%s "
                              "(--max-body-bytes: every answer being "
                              "received, together)", what,
                              (unsigned long long) size, h->max_body,
                              how == CHAINDATA_BODY_SHARED
                              ? " with the answers being received" : "");

    return 0;
}


static void
chaindata_http_release(chaindata_http_t *h, chaindata_req_t *r)
{
    h->body_bytes -= r->held;
    r->held = 0;
}


static size_t
chaindata_http_body(char *data, size_t size, size_t nmemb, void *ctx)
{
    size_t             n, cap;
    curl_off_t         claim;
    unsigned char     *p;
    chaindata_req_t   *r;
    chaindata_http_t  *h;

    r = ctx;
    h = r->http;
    n = size * nmemb;

    if (r->len == 0
        && curl_easy_getinfo(r->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
                             &claim) == CURLE_OK
        && claim > 0 && (uint64_t) claim > h->max_body)
    {
        return chaindata_http_over(h, r, CHAINDATA_BODY_ALONE, "claims",
                                   (uint64_t) claim);
    }

    if (n > h->max_body - r->len) {
        return chaindata_http_over(h, r, CHAINDATA_BODY_ALONE,
                                   "grew past", (uint64_t) r->len + n);
    }

    if (r->cap - r->len < n) {
        cap = r->cap ? r->cap : 16384;

        while (cap - r->len < n) {
            cap *= 2;
        }

        cap = cap > h->max_body ? h->max_body : cap;

        /* the buffer is moved: both held for a moment */
        if (cap > h->max_body - (h->body_bytes - r->held)) {
            return chaindata_http_over(h, r, CHAINDATA_BODY_SHARED,
                                       "grew past", (uint64_t) r->len + n);
        }

        p = realloc(r->body, cap);
        if (p == NULL) {
            return 0;
        }

        r->body = p;
        r->cap = cap;
        h->body_bytes += cap - r->held;
        r->held = cap;
        h->body_most = h->body_bytes > h->body_most ? h->body_bytes
                                                    : h->body_most;
    }

    memcpy(r->body + r->len, data, n);
    r->len += n;

    return n;
}


/* the answer's ETag, unquoted; a new status line (a retry) clears it */

static size_t
chaindata_http_header(char *data, size_t size, size_t nmemb, void *ctx)
{
    size_t            n, len;
    const char       *p;
    chaindata_req_t  *r;

    r = ctx;
    n = size * nmemb;

    if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) {
        r->etag_len = 0;
        return n;
    }

    if (n < 5 || strncasecmp(data, "etag:", 5) != 0) {
        return n;
    }

    for (p = data + 5, len = n - 5; len && (*p == ' ' || *p == '\t');
         p++, len--)
    {
        /* void */
    }

    while (len && (p[len - 1] == '\r' || p[len - 1] == '\n'
                   || p[len - 1] == ' '))
    {
        len--;
    }

    if (len >= 2 && p[0] == '"' && p[len - 1] == '"') {
        p++;
        len -= 2;
    }

    if (len <= sizeof(r->etag)) {
        memcpy(r->etag, p, len);
        r->etag_len = len;
    }

    return n;
}


/* a body refused, or an earlier try's: its buffer goes */

static void
chaindata_http_shrink(chaindata_http_t *h, chaindata_req_t *r)
{
    free(r->body);
    r->body = NULL;
    r->cap = 0;
    r->len = 0;
}


static int
chaindata_http_start(chaindata_http_t *h, chaindata_req_t *r)
{
    if (r->easy == NULL) {
        r->easy = curl_easy_init();
        if (r->easy == NULL) {
            return -1;
        }
    }

    curl_easy_reset(r->easy);

    /* a buffer of an earlier try goes: the budget counts a transfer's */
    chaindata_http_shrink(h, r);
    r->over = 0;
    r->http = h;
    r->status = 0;
    r->list = NULL;
    r->why[0] = '\0';
    r->etag_len = 0;

    curl_easy_setopt(r->easy, CURLOPT_URL, r->url);
    curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
    curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, chaindata_http_body);
    curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(r->easy, CURLOPT_HEADERFUNCTION, chaindata_http_header);
    curl_easy_setopt(r->easy, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER,
                     chaindata_http_headers(h, r->url));
    curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, h->timeout_ms);
    curl_easy_setopt(r->easy, CURLOPT_CONNECTTIMEOUT_MS, h->timeout_ms);
    curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(r->easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(r->easy, CURLOPT_USERAGENT, "chaindata-mirror/1");
    curl_easy_setopt(r->easy, CURLOPT_PROTOCOLS_STR, "http,https");

    if (curl_multi_add_handle(h->multi, r->easy) != CURLM_OK) {
        return -1;
    }

    h->requests++;

    return 0;
}


/*
 * When to try again: Retry-After if given, else backoff with jitter, up
 * to a poll interval (chaindata_follow_wait_max(): a request waiting
 * longer would keep its feed from upstream answering again after an
 * outage, and spare upstream nothing).
 */

static void
chaindata_http_again(chaindata_http_t *h, chaindata_req_t *r)
{
    double      wait, most;
    curl_off_t  after;

    wait = CHAINDATA_BACKOFF * pow(2, r->tries - 1);
    most = chaindata_follow_wait_max(h->m);

    if (wait > CHAINDATA_BACKOFF_MAX) {
        wait = CHAINDATA_BACKOFF_MAX;
    }

    if (wait > most) {
        wait = most;
    }

    wait = wait / 2 + wait / 2 * ((double) rand() / RAND_MAX);

    if (r->status == 429
        && curl_easy_getinfo(r->easy, CURLINFO_RETRY_AFTER, &after)
           == CURLE_OK
        && after > 0)
    {
        wait = (double) after;

        /* a claim like any other: waited for up to --max-wait */
        if (wait > h->max_wait) {
            chaindata_mirror_log(h->m, "warn", "GET %s: 429 with "
                                 "Retry-After %lld s; waiting %.0f s "
                                 "(--max-wait)",
                                 r->label[0] ? r->label : r->url,
                                 (long long) after, h->max_wait);
            wait = h->max_wait;
        }
    }

    r->not_before = chaindata_now() + wait;
    h->retried++;
}


/*
 * A finished transfer: 1 done (good or failed for good: r->why tells),
 * 0 to be tried again.
 */

static int
chaindata_http_finish(chaindata_http_t *h, chaindata_req_t *r, CURLcode cc)
{
    int  permanent;

    r->tries++;
    permanent = 0;

    if (r->over) {
        /* said in r->why; a body over the budget alone never fits */
        chaindata_http_shrink(h, r);
        permanent = (r->over == CHAINDATA_BODY_ALONE);

    } else if (cc != CURLE_OK) {
        (void) chaindata_req_fail(r, "%s", curl_easy_strerror(cc));

    } else {
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &r->status);

        if (r->status == 404 && r->gone_ok) {
            /* an answer too: what was asked for is not upstream's */
            r->root = NULL;
            r->why[0] = '\0';
            return 1;
        }

        if (r->status >= 200 && r->status < 300) {
            if (r->check == NULL || r->check(r) == 0) {
                r->why[0] = '\0';
                return 1;
            }

            h->refused++;

        } else if (r->status == 429 || r->status >= 500) {
            (void) chaindata_req_fail(r, "HTTP %ld", r->status);

            if (r->status == 429) {
                h->throttled++;
                chaindata_follow_throttled(h->m, r);
            }

        } else {
            (void) chaindata_req_fail(r, "HTTP %ld", r->status);
            permanent = 1;
        }
    }

    if (permanent || r->tries > h->retries) {
        return 1;
    }

    chaindata_http_again(h, r);

    return 0;
}


void
chaindata_http_cancel(chaindata_http_t *h, chaindata_req_t **reqs, size_t n)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        if (reqs[i] && reqs[i]->active) {
            curl_multi_remove_handle(h->multi, reqs[i]->easy);
            reqs[i]->active = 0;
            h->active--;
            chaindata_http_release(h, reqs[i]);
        }
    }
}


/*
 * A URL that is not plain (chaindata_url_plain()) is never sent: its
 * request ends failed for good, the URL named up to what is wrong in it
 * (the rest may be anything upstream wrote).  1 refused, 0 plain.
 */

static int
chaindata_http_unplain(chaindata_req_t *r,
    void (*ended)(void *ctx, chaindata_req_t *r), void *ctx)
{
    size_t  bad;

    if (chaindata_url_plain(r->url, &bad)) {
        return 0;
    }

    /* named up to what is wrong: the rest is anyone's text */
    if (r->label[0] == '\0') {
        snprintf(r->label, sizeof(r->label), "%.*s [cut]",
                 (int) (bad < sizeof(r->label) - 7 ? bad
                                                   : sizeof(r->label) - 7),
                 r->url);
    }

    (void) chaindata_req_fail(r, "refused, never sent: a dot segment, or a "
                              "character a plain URL does not have, ends "
                              "where it is cut (a path taken from "
                              "upstream?)");
    r->tries++;
    r->done = 1;
    r->ended = ended;
    r->ended_ctx = ctx;
    ended(ctx, r);

    return 1;
}


/*
 * Starts what may start now, in the order given, while fewer than
 * --parallel requests are in flight: in flight counted across every
 * caller (the blocks in flight share the bound).  *wake: when to look
 * again.
 */

static int
chaindata_http_fill(chaindata_http_t *h, chaindata_req_t **reqs, size_t n,
    void (*ended)(void *ctx, chaindata_req_t *r), void *ctx, double *wake)
{
    size_t            i;
    double            now;
    chaindata_req_t  *r;

    now = chaindata_now();
    *wake = now + 1.0;

    for (i = 0; i < n && h->active < h->parallel; i++) {
        r = reqs[i];

        if (r->done || r->active) {
            continue;
        }

        if (r->not_before > now) {
            *wake = r->not_before < *wake ? r->not_before : *wake;
            continue;
        }

        if (chaindata_http_unplain(r, ended, ctx)) {
            continue;
        }

        if (h->rate > 0 && h->next_start > now) {
            *wake = h->next_start < *wake ? h->next_start : *wake;
            break;
        }

        if (chaindata_http_start(h, r) != 0) {
            return -1;
        }

        r->active = 1;
        r->ended = ended;
        r->ended_ctx = ctx;
        h->active++;
        h->most = h->active > h->most ? h->active : h->most;

        if (h->rate > 0) {
            h->next_start = (h->next_start > now ? h->next_start : now)
                            + 1.0 / h->rate;
        }
    }

    return 0;
}


/*
 * The transfers that ended: done when their answer is final, said to the
 * caller that started them (a fetch made meanwhile, e.g. the tip's while
 * blocks are in flight, leaves the blocks' answers to theirs).
 */

static void
chaindata_http_reap(chaindata_http_t *h)
{
    int               left;
    CURL             *easy;
    CURLcode          cc;
    CURLMsg          *msg;
    chaindata_req_t  *r;

    while ((msg = curl_multi_info_read(h->multi, &left)) != NULL) {
        if (msg->msg != CURLMSG_DONE) {
            continue;
        }

        easy = msg->easy_handle;
        cc = msg->data.result;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **) &r);
        curl_multi_remove_handle(h->multi, easy);
        r->active = 0;
        h->active--;
        chaindata_http_release(h, r);

        if (chaindata_http_finish(h, r, cc)) {
            r->done = 1;
            r->ended(r->ended_ctx, r);
        }
    }
}


/*
 * Waits up to ms for a transfer (or, with none in flight, for nothing)
 * and for a signal: its pipe is polled beside the transfers, so a wait
 * ends as soon as the mirror is told to stop.
 */

static void
chaindata_http_wait(chaindata_http_t *h, long ms)
{
    int                   running;
    struct curl_waitfd    sig;

    sig.fd = chaindata_signal_fd();
    sig.events = CURL_WAIT_POLLIN;
    sig.revents = 0;

    if (h->active || ms) {
        curl_multi_poll(h->multi, &sig, sig.fd != -1, (int) ms, NULL);
    }

    if (h->active && !chaindata_mirror_stop) {
        curl_multi_perform(h->multi, &running);
    }
}


int
chaindata_http_turn(chaindata_http_t *h, chaindata_req_t **reqs, size_t n,
    void (*ended)(void *ctx, chaindata_req_t *r), void *ctx)
{
    long    ms;
    double  wake;

    if (chaindata_mirror_stop) {
        return CHAINDATA_MIRROR_STOPPED;
    }

    if (chaindata_http_fill(h, reqs, n, ended, ctx, &wake) != 0) {
        return CHAINDATA_EXIT_SYSTEM;
    }

    ms = (long) ((wake - chaindata_now()) * 1000);
    ms = ms < 0 ? 0 : (ms > 1000 ? 1000 : ms);

    chaindata_http_wait(h, ms);

    if (chaindata_mirror_stop) {
        return CHAINDATA_MIRROR_STOPPED;
    }

    chaindata_http_reap(h);

    return CHAINDATA_EXIT_OK;
}


void
chaindata_http_reset(chaindata_req_t *r)
{
    r->done = 0;
    r->active = 0;
    r->tries = 0;
    r->not_before = 0;
}


void
chaindata_mirror_failed(chaindata_mirror_t *m, chaindata_req_t *r)
{
    /* a URL with a key in it is named by its label instead */
    chaindata_mirror_log(m, "error", "GET %s: %s (after %u tries); nothing "
                         "of this block was written",
                         r->label[0] ? r->label : r->url, r->why, r->tries);
}


typedef struct {
    size_t            remaining;
    chaindata_req_t  *failed;
} chaindata_http_run_t;


static void
chaindata_http_ended(void *ctx, chaindata_req_t *r)
{
    chaindata_http_run_t  *run;

    run = ctx;
    run->remaining--;

    if (r->why[0] && !r->may_fail && run->failed == NULL) {
        run->failed = r;
    }
}


/*
 * Runs the requests to their end: CHAINDATA_EXIT_OK when every one got a
 * good answer, _INPUT when one failed for good (logged), _STOPPED by a
 * signal, _SYSTEM a system error
 */

int
chaindata_mirror_fetch(chaindata_mirror_t *m, chaindata_req_t **reqs,
    size_t n)
{
    int                   rc;
    size_t                i;
    chaindata_http_run_t  run;

    for (i = 0; i < n; i++) {
        if (reqs[i] == NULL) {
            chaindata_mirror_log(m, "error", "out of memory");
            return CHAINDATA_EXIT_SYSTEM;
        }

        chaindata_http_reset(reqs[i]);
    }

    run.remaining = n;
    run.failed = NULL;
    rc = CHAINDATA_EXIT_OK;

    while (run.remaining && run.failed == NULL && rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_http_turn(&m->http, reqs, n, chaindata_http_ended,
                                 &run);
    }

    chaindata_http_cancel(&m->http, reqs, n);

    if (run.failed) {
        chaindata_mirror_failed(m, run.failed);
        return CHAINDATA_EXIT_INPUT;
    }

    if (rc == CHAINDATA_EXIT_SYSTEM) {
        chaindata_mirror_log(m, "error", "the HTTP client failed");
    }

    return rc;
}
