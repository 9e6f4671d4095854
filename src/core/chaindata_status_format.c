
/*
 * chaindata: the index's status as text (chaindata_status_format()): its
 * JSON here, the Prometheus text format in chaindata_status_prom.c
 * (doc/module.md "Status").
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_sbuf.h"
#include "chaindata_schema.h"
#include "chaindata_status.h"
#include "chaindata_status_text.h"


static void
chaindata_status_json_state(chaindata_sbuf_t *b,
    const chaindata_status_state_t *fs)
{
    const chaindata_feedstate_t  *s;

    s = &fs->state;

    chaindata_sbuf_printf(b, "{\"source\":\"%s\",\"state\":\"%s\","
                          "\"why\":\"%s\",\"failures\":%u,\"last_ok\":%llu,"
                          "\"requests\":%llu,\"retries\":%llu,"
                          "\"throttled\":%llu,\"refused\":%llu,"
                          "\"chainhooks_skipped\":%llu,"
                          "\"unknown_stored\":%llu}",
                          fs->source, chaindata_feedstate_names[s->state],
                          chaindata_feedwhy_names[s->why],
                          (unsigned) s->failures,
                          (unsigned long long) s->last_ok,
                          (unsigned long long) s->requests,
                          (unsigned long long) s->retries,
                          (unsigned long long) s->throttled,
                          (unsigned long long) s->refused,
                          (unsigned long long) s->skipped,
                          (unsigned long long) s->unknown);
}


static void
chaindata_status_json_feed(chaindata_sbuf_t *b, const chaindata_status_t *st,
    const chaindata_status_feed_t *f, uint64_t now)
{
    chaindata_sbuf_printf(b, "{\"source\":\"%s\",\"height\":%llu,"
                          "\"hash\":\"%s\",\"block_time\":%llu,"
                          "\"committed\":%llu,\"lag\":%llu",
                          f->source, (unsigned long long) f->height, f->hash,
                          (unsigned long long) f->time,
                          (unsigned long long) f->committed,
                          (unsigned long long) chaindata_status_lag(f, now));

    if (f->has_tip) {
        chaindata_sbuf_printf(b, ",\"tip\":{\"height\":%llu,"
                              "\"block_time\":%llu,\"polled\":%llu},"
                              "\"behind\":%llu",
                              (unsigned long long) f->tip.height,
                              (unsigned long long) f->tip.time,
                              (unsigned long long) f->tip.polled,
                              (unsigned long long)
                                  chaindata_status_behind(f));
    }

    chaindata_sbuf_printf(b, ",\"healthy\":%s}",
                          chaindata_status_feed_healthy(st, f, now)
                          ? "true" : "false");
}


/*
 * source names and hashes are [a-z0-9_-] and [0-9A-Za-z], stream names
 * have nothing to escape (chaindata_status_name_plain()), nor has the
 * version (debian/changelog's): no escaping
 */

void
chaindata_status_json(chaindata_sbuf_t *b, const chaindata_status_t *st,
    uint64_t now)
{
    size_t  i;

    chaindata_sbuf_printf(b, "{\"schema_version\":\"%s\",\"databases\":{",
                          st->schema);

    for (i = 0; i < CHAINDATA_DBI_COUNT; i++) {
        chaindata_sbuf_printf(b, "%s\"%s\":%zu", i ? "," : "",
                              chaindata_db_names[i], st->entries[i]);
    }

    chaindata_sbuf_printf(b, "},\"map_size\":%zu,\"used_bytes\":%zu,"
                          "\"readers\":%u,\"max_readers\":%u,\"feeds\":[",
                          st->map_size, st->used, st->readers,
                          st->max_readers);

    for (i = 0; i < st->nfeeds; i++) {
        chaindata_sbuf_printf(b, "%s", i ? "," : "");
        chaindata_status_json_feed(b, st, &st->feeds[i], now);
    }

    chaindata_sbuf_printf(b, "],\"feed_states\":[");

    for (i = 0; i < st->nstates; i++) {
        chaindata_sbuf_printf(b, "%s", i ? "," : "");
        chaindata_status_json_state(b, &st->states[i]);
    }

    chaindata_sbuf_printf(b, "],\"streams\":[");

    for (i = 0; i < st->nstreams; i++) {
        chaindata_sbuf_printf(b, "%s{\"stream\":\"%s\",\"sequence\":%llu",
                              i ? "," : "", st->streams[i].name,
                              (unsigned long long) st->streams[i].sequence);

        if (st->streams[i].has_published) {
            chaindata_sbuf_printf(b, ",\"published\":%llu",
                                  (unsigned long long)
                                  st->streams[i].published);
        }

        chaindata_sbuf_printf(b, "}");
    }

    chaindata_sbuf_printf(b, "],\"healthy\":%s",
                          chaindata_status_healthy(st, now) ? "true"
                                                            : "false");

    if (st->version) {
        chaindata_sbuf_printf(b, ",\"version\":\"%s\"", st->version);
    }

    if (st->traffic) {
        chaindata_sbuf_printf(b, ",");
        chaindata_metrics_json(b, st->traffic);
    }

    chaindata_sbuf_printf(b, "}\n");
}


char *
chaindata_status_format(const chaindata_status_t *st, uint64_t now,
    int prometheus)
{
    chaindata_sbuf_t  b;

    if (chaindata_sbuf_init(&b, 4096) != 0) {
        return NULL;
    }

    if (prometheus) {
        chaindata_status_prometheus(&b, st, now);

    } else {
        chaindata_status_json(&b, st, now);
    }

    if (b.failed) {
        free(b.p);
        return NULL;
    }

    return b.p;
}
