
/*
 * chaindata: the traffic counters' names and their text (see the header;
 * doc/operations.md "Monitoring").
 */


#include <stddef.h>
#include <stdio.h>

#include "chaindata_metrics.h"


#define CHAINDATA_ROUTE_NAME(id, directive, feed, flags)  #id,
#define CHAINDATA_ROUTE_PATH_NAME(id, family, path, feed, flags)  #id,

const char  *chaindata_route_names[CHAINDATA_ROUTES] = {
    CHAINDATA_ROUTE_LIST(CHAINDATA_ROUTE_NAME, CHAINDATA_ROUTE_UNCOUNTED)
    CHAINDATA_PATH_LIST(CHAINDATA_ROUTE_PATH_NAME)
};


const char  *chaindata_unavailable_names[CHAINDATA_UNAVAILABLE_REASONS] = {
    "body_budget", "readers_full", "index_unreadable", "behind",
    "no_history", "no_v3"
};


const uint32_t  chaindata_metrics_bounds_us[CHAINDATA_METRICS_BOUNDS] = {
    50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000,
    250000, 500000, 1000000, 2500000, 5000000, 10000000
};


unsigned
chaindata_metrics_bucket(uint64_t us)
{
    unsigned  i;

    for (i = 0; i < CHAINDATA_METRICS_BOUNDS; i++) {
        if (us <= chaindata_metrics_bounds_us[i]) {
            break;
        }
    }

    return i;
}


/* "name":{"1xx":N,…,"5xx":N} */

static void
chaindata_metrics_json_classes(chaindata_sbuf_t *b, const char *name,
    const uint64_t *c)
{
    unsigned  i;

    chaindata_sbuf_printf(b, "\"%s\":{", name);

    for (i = 0; i < CHAINDATA_METRICS_CLASSES; i++) {
        chaindata_sbuf_printf(b, "%s\"%uxx\":%llu", i ? "," : "", i + 1,
                              (unsigned long long) c[i]);
    }

    chaindata_sbuf_printf(b, "}");
}


/* "duration":{"sum_us":N,"le_us":{"50":N,…,"+Inf":N}}, cumulative */

static void
chaindata_metrics_json_duration(chaindata_sbuf_t *b,
    const chaindata_metrics_route_t *rt)
{
    unsigned  i;
    uint64_t  n;

    chaindata_sbuf_printf(b, "\"duration\":{\"sum_us\":%llu,\"le_us\":{",
                          (unsigned long long) rt->duration_us);

    /* cumulative, as Prometheus' buckets */
    n = 0;

    for (i = 0; i < CHAINDATA_METRICS_BOUNDS; i++) {
        n += rt->duration[i];
        chaindata_sbuf_printf(b, "%s\"%u\":%llu", i ? "," : "",
                              chaindata_metrics_bounds_us[i],
                              (unsigned long long) n);
    }

    n += rt->duration[i];
    chaindata_sbuf_printf(b, ",\"+Inf\":%llu}}", (unsigned long long) n);
}


static void
chaindata_metrics_json_route(chaindata_sbuf_t *b,
    const chaindata_metrics_route_t *rt)
{
    chaindata_sbuf_printf(b, "{");
    chaindata_metrics_json_classes(b, "requests", rt->requests);
    chaindata_sbuf_printf(b, ",");
    chaindata_metrics_json_classes(b, "fallback", rt->fallback);

    chaindata_sbuf_printf(b, ",\"not_modified\":%llu,\"bytes\":{"
                          "\"plain\":%llu,\"gzip\":%llu},",
                          (unsigned long long) rt->not_modified,
                          (unsigned long long) rt->bytes_plain,
                          (unsigned long long) rt->bytes_gzip);

    chaindata_metrics_json_duration(b, rt);
    chaindata_sbuf_printf(b, "}");
}


void
chaindata_metrics_json(chaindata_sbuf_t *b, const chaindata_metrics_t *m)
{
    unsigned  i;

    chaindata_sbuf_printf(b, "\"traffic\":{\"since\":%llu,\"routes\":{",
                          (unsigned long long) m->start);

    for (i = 0; i < CHAINDATA_ROUTES; i++) {
        chaindata_sbuf_printf(b, "%s\"%s\":", i ? "," : "",
                              chaindata_route_names[i]);
        chaindata_metrics_json_route(b, &m->route[i]);
    }

    chaindata_sbuf_printf(b, "},\"unavailable\":{");

    for (i = 0; i < CHAINDATA_UNAVAILABLE_REASONS; i++) {
        chaindata_sbuf_printf(b, "%s\"%s\":%llu", i ? "," : "",
                              chaindata_unavailable_names[i],
                              (unsigned long long) m->unavailable[i]);
    }

    chaindata_sbuf_printf(b, "},\"swaps_refused\":%llu}",
                          (unsigned long long) m->swaps_refused);
}


static void
chaindata_metrics_head(chaindata_sbuf_t *b, const char *name,
    const char *type, const char *help)
{
    chaindata_sbuf_printf(b, "# HELP chaindata_%s %s\n"
                          "# TYPE chaindata_%s %s\n", name, help, name, type);
}


static void
chaindata_metrics_prom_histogram(chaindata_sbuf_t *b,
    const chaindata_metrics_t *m)
{
    unsigned                          i, j;
    uint64_t                          n;
    const char                       *route;
    const chaindata_metrics_route_t  *rt;

    chaindata_metrics_head(b, "http_request_duration_seconds", "histogram",
                           "Time from the request to its last byte sent");

    for (i = 0; i < CHAINDATA_ROUTES; i++) {
        rt = &m->route[i];
        route = chaindata_route_names[i];
        n = 0;

        for (j = 0; j < CHAINDATA_METRICS_BOUNDS; j++) {
            n += rt->duration[j];
            chaindata_sbuf_printf(b, "chaindata_http_request_duration_seconds"
                                  "_bucket{route=\"%s\",le=\"%u.%06u\"} "
                                  "%llu\n", route,
                                  chaindata_metrics_bounds_us[j] / 1000000,
                                  chaindata_metrics_bounds_us[j] % 1000000,
                                  (unsigned long long) n);
        }

        n += rt->duration[j];
        chaindata_sbuf_printf(b, "chaindata_http_request_duration_seconds"
                              "_bucket{route=\"%s\",le=\"+Inf\"} %llu\n"
                              "chaindata_http_request_duration_seconds_sum"
                              "{route=\"%s\"} %llu.%06u\n"
                              "chaindata_http_request_duration_seconds_count"
                              "{route=\"%s\"} %llu\n",
                              route, (unsigned long long) n, route,
                              (unsigned long long) (rt->duration_us / 1000000),
                              (unsigned) (rt->duration_us % 1000000), route,
                              (unsigned long long) n);
    }
}


/* a counter by route and status class: the classes at off in a route */

static void
chaindata_metrics_prom_classes(chaindata_sbuf_t *b,
    const chaindata_metrics_t *m, const char *name, const char *help,
    size_t off)
{
    unsigned         i, j;
    const uint64_t  *c;

    chaindata_metrics_head(b, name, "counter", help);

    for (i = 0; i < CHAINDATA_ROUTES; i++) {
        c = (const uint64_t *) ((const char *) &m->route[i] + off);

        for (j = 0; j < CHAINDATA_METRICS_CLASSES; j++) {
            chaindata_sbuf_printf(b, "chaindata_%s{route=\"%s\",class="
                                  "\"%uxx\"} %llu\n", name,
                                  chaindata_route_names[i], j + 1,
                                  (unsigned long long) c[j]);
        }
    }
}


static void
chaindata_metrics_prom_counters(chaindata_sbuf_t *b,
    const chaindata_metrics_t *m)
{
    unsigned                          i;
    const char                       *route;
    const chaindata_metrics_route_t  *rt;

    chaindata_metrics_prom_classes(b, m, "http_requests_total",
        "Requests answered, by route and status class",
        offsetof(chaindata_metrics_route_t, requests));

    chaindata_metrics_prom_classes(b, m, "http_fallback_total",
        "Requests the index could not answer, answered by upstream through "
        "chaindata_miss_fallback, by route and upstream's status class",
        offsetof(chaindata_metrics_route_t, fallback));

    chaindata_metrics_head(b, "http_not_modified_total", "counter",
                           "Requests answered 304 Not Modified");

    for (i = 0; i < CHAINDATA_ROUTES; i++) {
        chaindata_sbuf_printf(b, "chaindata_http_not_modified_total{route="
                              "\"%s\"} %llu\n", chaindata_route_names[i],
                              (unsigned long long) m->route[i].not_modified);
    }

    chaindata_metrics_head(b, "http_response_body_bytes_total", "counter",
                           "Body bytes sent, plain and gzip");

    for (i = 0; i < CHAINDATA_ROUTES; i++) {
        rt = &m->route[i];
        route = chaindata_route_names[i];
        chaindata_sbuf_printf(b, "chaindata_http_response_body_bytes_total"
                              "{route=\"%s\",encoding=\"plain\"} %llu\n"
                              "chaindata_http_response_body_bytes_total"
                              "{route=\"%s\",encoding=\"gzip\"} %llu\n",
                              route, (unsigned long long) rt->bytes_plain,
                              route, (unsigned long long) rt->bytes_gzip);
    }

    chaindata_metrics_head(b, "http_unavailable_total", "counter",
                           "Answers 503 Service Unavailable, by reason");

    for (i = 0; i < CHAINDATA_UNAVAILABLE_REASONS; i++) {
        chaindata_sbuf_printf(b, "chaindata_http_unavailable_total{reason="
                              "\"%s\"} %llu\n",
                              chaindata_unavailable_names[i],
                              (unsigned long long) m->unavailable[i]);
    }

    chaindata_metrics_head(b, "index_swaps_refused_total", "counter",
                           "Indexes renamed over the one open that could "
                           "not be opened (the one open served on)");
    chaindata_sbuf_printf(b, "chaindata_index_swaps_refused_total %llu\n",
                          (unsigned long long) m->swaps_refused);
}


void
chaindata_metrics_prometheus(chaindata_sbuf_t *b, const chaindata_metrics_t *m)
{
    chaindata_metrics_head(b, "traffic_start_timestamp_seconds", "gauge",
                           "When the traffic counters started counting");
    chaindata_sbuf_printf(b, "chaindata_traffic_start_timestamp_seconds "
                          "%llu\n", (unsigned long long) m->start);

    chaindata_metrics_prom_counters(b, m);
    chaindata_metrics_prom_histogram(b, m);
}
