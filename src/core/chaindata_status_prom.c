
/*
 * chaindata: the index's status in the Prometheus text format
 * (doc/operations.md "Monitoring"), its gauges a metric each.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_sbuf.h"
#include "chaindata_schema.h"
#include "chaindata_status.h"
#include "chaindata_status_text.h"


static void
chaindata_status_metric(chaindata_sbuf_t *b, const char *name,
    const char *help)
{
    chaindata_sbuf_printf(b, "# HELP chaindata_%s %s\n"
                          "# TYPE chaindata_%s gauge\n", name, help, name);
}


/* the feeds' gauges: one metric each, a line per feed */

static void
chaindata_status_prom_feeds(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    size_t                          i, t;
    uint64_t                        v;
    const chaindata_status_feed_t  *f;

    static const char  *metrics[][2] = {
        { "feed_height", "Height of the last committed block" },
        { "feed_block_timestamp_seconds", "Time of the last committed block" },
        { "feed_commit_timestamp_seconds",
          "When the last block was committed" },
        { "feed_lag_seconds", "Now minus the time of the last block" },
        { "feed_healthy", "1 when the feed is within the health limits" }
    };

    for (t = 0; t < sizeof(metrics) / sizeof(metrics[0]); t++) {
        chaindata_status_metric(b, metrics[t][0], metrics[t][1]);

        for (i = 0; i < st->nfeeds; i++) {
            f = &st->feeds[i];
            v = t == 0 ? f->height
                : t == 1 ? f->time
                : t == 2 ? f->committed
                : t == 3 ? chaindata_status_lag(f, now)
                : (uint64_t) chaindata_status_feed_healthy(st, f, now);

            chaindata_sbuf_printf(b, "chaindata_%s{source=\"%s\"} %llu\n",
                                  metrics[t][0], f->source,
                                  (unsigned long long) v);
        }
    }
}


/* the stored upstream tips, where a writer stores them */

static void
chaindata_status_prom_tips(chaindata_sbuf_t *b, const chaindata_status_t *st)
{
    size_t                          i, t;
    uint64_t                        v;
    const chaindata_status_feed_t  *f;

    static const char  *metrics[][2] = {
        { "feed_tip_height", "Upstream's tip height as last polled" },
        { "feed_behind_blocks", "Upstream's tip minus the committed height" },
        { "feed_poll_timestamp_seconds", "When upstream's tip was polled" }
    };

    for (t = 0; t < sizeof(metrics) / sizeof(metrics[0]); t++) {
        chaindata_status_metric(b, metrics[t][0], metrics[t][1]);

        for (i = 0; i < st->nfeeds; i++) {
            f = &st->feeds[i];

            if (!f->has_tip) {
                continue;
            }

            v = t == 0 ? f->tip.height
                : t == 1 ? chaindata_status_behind(f) : f->tip.polled;

            chaindata_sbuf_printf(b, "chaindata_%s{source=\"%s\"} %llu\n",
                                  metrics[t][0], f->source,
                                  (unsigned long long) v);
        }
    }
}


/* the feeds' states, where their writer stores them */

static uint64_t
chaindata_status_state_value(const chaindata_feedstate_t *s, size_t t)
{
    switch (t) {
    case 0:  return s->failures;
    case 1:  return s->last_ok;
    case 2:  return s->requests;
    case 3:  return s->retries;
    case 4:  return s->throttled;
    case 5:  return s->refused;
    case 6:  return s->skipped;
    default: return s->unknown;
    }
}


static void
chaindata_status_prom_states(chaindata_sbuf_t *b,
    const chaindata_status_t *st)
{
    size_t                           i, t, k;
    const chaindata_status_state_t  *fs;

    static const char  *metrics[][3] = {
        { "feed_failures", "gauge", "Failed passes of the feed in a row" },
        { "feed_last_ok_timestamp_seconds", "gauge",
          "When a pass of the feed last succeeded" },
        { "feed_requests_total", "counter",
          "Requests the feed's writer sent upstream since it started" },
        { "feed_retries_total", "counter", "Requests tried again" },
        { "feed_throttled_total", "counter", "429 answers" },
        { "feed_refused_total", "counter", "Answers a check refused" },
        { "feed_chainhooks_skipped_total", "counter",
          "Chainhook statuses that failed and were skipped" },
        { "feed_unknown_stored_total", "counter",
          "Documents stored with what the schema does not know yet" }
    };

    chaindata_sbuf_printf(b, "# HELP chaindata_feed_state The feed's state "
                          "as its writer last stored it (1: the state)\n"
                          "# TYPE chaindata_feed_state gauge\n");

    for (i = 0; i < st->nstates; i++) {
        fs = &st->states[i];

        for (k = 1; k < CHAINDATA_FEEDSTATE_COUNT; k++) {
            chaindata_sbuf_printf(b, "chaindata_feed_state{source=\"%s\","
                                  "state=\"%s\"} %d\n", fs->source,
                                  chaindata_feedstate_names[k],
                                  fs->state.state == k);
        }
    }

    chaindata_sbuf_printf(b, "# HELP chaindata_feed_why Why the feed backs "
                          "off or stopped, as its writer last stored it "
                          "(1: the reason)\n"
                          "# TYPE chaindata_feed_why gauge\n");

    for (i = 0; i < st->nstates; i++) {
        fs = &st->states[i];

        for (k = 1; k < CHAINDATA_FEEDWHY_COUNT; k++) {
            chaindata_sbuf_printf(b, "chaindata_feed_why{source=\"%s\","
                                  "why=\"%s\"} %d\n", fs->source,
                                  chaindata_feedwhy_names[k],
                                  fs->state.why == k);
        }
    }

    for (t = 0; t < sizeof(metrics) / sizeof(metrics[0]); t++) {
        chaindata_sbuf_printf(b, "# HELP chaindata_%s %s\n"
                              "# TYPE chaindata_%s %s\n", metrics[t][0],
                              metrics[t][2], metrics[t][0], metrics[t][1]);

        for (i = 0; i < st->nstates; i++) {
            fs = &st->states[i];

            chaindata_sbuf_printf(b, "chaindata_%s{source=\"%s\"} %llu\n",
                                  metrics[t][0], fs->source,
                                  (unsigned long long)
                                  chaindata_status_state_value(&fs->state,
                                                               t));
        }
    }
}


static void
chaindata_status_prom_positions(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    size_t  i;

    chaindata_status_prom_feeds(b, st, now);
    chaindata_status_prom_tips(b, st);
    chaindata_status_prom_states(b, st);

    chaindata_status_metric(b, "stream_sequence",
                            "Stream sequence of the last unit applied");
    for (i = 0; i < st->nstreams; i++) {
        chaindata_sbuf_printf(b, "chaindata_stream_sequence{stream=\"%s\"} "
                              "%llu\n", st->streams[i].name,
                              (unsigned long long) st->streams[i].sequence);
    }

    chaindata_status_metric(b, "stream_published_sequence",
                            "The stream's last sequence as its follower "
                            "last saw it");
    for (i = 0; i < st->nstreams; i++) {
        if (st->streams[i].has_published) {
            chaindata_sbuf_printf(b, "chaindata_stream_published_sequence"
                                  "{stream=\"%s\"} %llu\n",
                                  st->streams[i].name,
                                  (unsigned long long)
                                  st->streams[i].published);
        }
    }

    chaindata_status_metric(b, "healthy",
                            "1 when every feed is within the health limits");
    chaindata_sbuf_printf(b, "chaindata_healthy %d\n",
                          chaindata_status_healthy(st, now));
}


/* a label's value: backslash, double quote and new line escaped */

static void
chaindata_status_label(chaindata_sbuf_t *b, const char *v)
{
    for ( /* void */ ; *v; v++) {
        switch (*v) {
        case '\\':
            chaindata_sbuf_printf(b, "\\\\");
            break;
        case '"':
            chaindata_sbuf_printf(b, "\\\"");
            break;
        case '\n':
            chaindata_sbuf_printf(b, "\\n");
            break;
        default:
            chaindata_sbuf_printf(b, "%c", *v);
        }
    }
}


/*
 * Whether the index at its path can be read, and why not: a scrape is
 * answered either way, so the series stay and the rules see it
 */

static void
chaindata_status_prom_index_up(chaindata_sbuf_t *b,
    const chaindata_status_t *st)
{
    chaindata_status_metric(b, "index_up",
                            "1 when the index at chaindata_db can be read");
    chaindata_sbuf_printf(b, "chaindata_index_up %d\n",
                          st->index_down == NULL);

    if (st->index_down == NULL) {
        return;
    }

    chaindata_status_metric(b, "index_down_info",
                            "Always 1: why the index cannot be read");
    chaindata_sbuf_printf(b, "chaindata_index_down_info{reason=\"");
    chaindata_status_label(b, st->index_down);
    chaindata_sbuf_printf(b, "\"} 1\n");
}


/* the room on the index's file system, whether it can be read or not */

static void
chaindata_status_prom_disk(chaindata_sbuf_t *b, const chaindata_status_t *st)
{
    if (!st->has_disk) {
        return;
    }

    chaindata_status_metric(b, "index_disk_free_bytes",
                            "Bytes free to the index's writer on the file "
                            "system of chaindata_db");
    chaindata_sbuf_printf(b, "chaindata_index_disk_free_bytes %llu\n",
                          (unsigned long long) st->disk_free);
    chaindata_status_metric(b, "index_disk_size_bytes",
                            "Size of the file system of chaindata_db");
    chaindata_sbuf_printf(b, "chaindata_index_disk_size_bytes %llu\n",
                          (unsigned long long) st->disk_size);
}


/* the index's own gauges: what it holds, its map, readers and feeds */

static void
chaindata_status_prom_index(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    size_t  i;

    chaindata_status_metric(b, "schema_version", "Index schema version");
    chaindata_sbuf_printf(b, "chaindata_schema_version %s\n", st->schema);

    chaindata_status_metric(b, "records", "Records per named database");
    for (i = 0; i < CHAINDATA_DBI_COUNT; i++) {
        chaindata_sbuf_printf(b, "chaindata_records{database=\"%s\"} %zu\n",
                              chaindata_db_names[i], st->entries[i]);
    }

    chaindata_status_metric(b, "map_size_bytes", "LMDB map size");
    chaindata_sbuf_printf(b, "chaindata_map_size_bytes %zu\n", st->map_size);
    chaindata_status_metric(b, "used_bytes", "Bytes of the map in use");
    chaindata_sbuf_printf(b, "chaindata_used_bytes %zu\n", st->used);
    chaindata_status_metric(b, "readers", "Reader slots in use");
    chaindata_sbuf_printf(b, "chaindata_readers %u\n", st->readers);
    chaindata_status_metric(b, "readers_max", "Reader slots");
    chaindata_sbuf_printf(b, "chaindata_readers_max %u\n", st->max_readers);

    chaindata_status_prom_positions(b, st, now);
}


void
chaindata_status_prometheus(chaindata_sbuf_t *b,
    const chaindata_status_t *st, uint64_t now)
{
    chaindata_status_metric(b, "build_info",
                            "Always 1: the version and the index schema");
    chaindata_sbuf_printf(b, "chaindata_build_info{version=\"%s\","
                          "schema=\"%s\"} 1\n",
                          st->version ? st->version : "", st->schema);

    chaindata_status_prom_index_up(b, st);
    chaindata_status_prom_disk(b, st);

    if (st->gathered) {
        chaindata_status_prom_index(b, st, now);

    } else {
        chaindata_status_metric(b, "healthy",
                                "1 when every feed is within the health "
                                "limits");
        chaindata_sbuf_printf(b, "chaindata_healthy 0\n");
    }

    if (st->traffic) {
        chaindata_metrics_prometheus(b, st->traffic);
    }
}
