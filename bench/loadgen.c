
/*
 * bench/loadgen: what an upstream can serve at a concurrency, over a mix
 * of requests, for the mirror's benchmark (bench/mirror).
 *
 *   loadgen CONCURRENCY SECONDS < URLS
 *
 * Reads URLs, one a line, and asks for them in turn (round and round)
 * with CONCURRENCY requests always in flight (libcurl's multi interface,
 * as the mirror asks, connections kept alive) for SECONDS; prints
 * "REQUESTS SECONDS FAILED" once done.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>


static double
now(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return ts.tv_sec + ts.tv_nsec / 1e9;
}


static size_t
discard(char *data, size_t size, size_t nmemb, void *ctx)
{
    (void) data;
    (void) ctx;

    return size * nmemb;
}


static CURL *
start(CURLM *multi, char **urls, size_t nurls, size_t *next)
{
    CURL  *e;

    e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, urls[*next % nurls]);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_multi_add_handle(multi, e);
    (*next)++;

    return e;
}


int
main(int argc, char **argv)
{
    int        running, left, conc;
    char       line[4096], **urls;
    long       status;
    size_t     nurls, cap, next, done, failed, i;
    double     secs, t0, t;
    CURLM     *multi;
    CURLMsg   *msg;

    if (argc != 3) {
        fprintf(stderr, "usage: loadgen CONCURRENCY SECONDS < URLS\n");
        return 2;
    }

    conc = atoi(argv[1]);
    secs = atof(argv[2]);
    urls = NULL;
    nurls = 0;
    cap = 0;

    while (fgets(line, sizeof(line), stdin)) {
        line[strcspn(line, "\r\n")] = '\0';

        if (line[0] == '\0') {
            continue;
        }

        if (nurls == cap) {
            cap = cap ? cap * 2 : 1024;
            urls = realloc(urls, cap * sizeof(char *));
        }

        urls[nurls++] = strdup(line);
    }

    if (nurls == 0 || conc < 1) {
        fprintf(stderr, "loadgen: no URL\n");
        return 2;
    }

    curl_global_init(CURL_GLOBAL_DEFAULT);
    multi = curl_multi_init();
    next = 0;
    done = 0;
    failed = 0;
    t0 = now();

    for (i = 0; i < (size_t) conc; i++) {
        start(multi, urls, nurls, &next);
    }

    for ( ;; ) {
        curl_multi_poll(multi, NULL, 0, 100, NULL);
        curl_multi_perform(multi, &running);
        t = now();

        while ((msg = curl_multi_info_read(multi, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE) {
                continue;
            }

            curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE,
                              &status);
            failed += msg->data.result != CURLE_OK || status != 200;
            done++;
            curl_multi_remove_handle(multi, msg->easy_handle);
            curl_easy_cleanup(msg->easy_handle);

            if (t - t0 < secs) {
                start(multi, urls, nurls, &next);
            }
        }

        if (t - t0 >= secs && running == 0) {
            break;
        }
    }

    printf("%zu %.3f %zu\n", done, now() - t0, failed);

    curl_multi_cleanup(multi);
    curl_global_cleanup();

    return 0;
}
