
/*
 * chaindata: the feeds and the upstream APIs, made from their lists (see
 * the header).
 */


#include <stddef.h>
#include <string.h>

#include "chaindata_feeds.h"


#define CHAINDATA_UPSTREAM_NAME(id, name)  name,
#define CHAINDATA_FEED_ROW(id, name, upstream, chain_first, data, data2,    \
    routes, reorg)                                                          \
    { name, CHAINDATA_SOURCE_##upstream, chain_first,                       \
      { CHAINDATA_DBI_##data, CHAINDATA_DBI_##data2 }, routes, reorg },

const char *const            chaindata_source_names[CHAINDATA_SOURCES] = {
    CHAINDATA_UPSTREAM_LIST(CHAINDATA_UPSTREAM_NAME)
};

const chaindata_feed_desc_t  chaindata_feeds[CHAINDATA_FEEDS] = {
    CHAINDATA_FEED_LIST(CHAINDATA_FEED_ROW)
};


const chaindata_feed_desc_t *
chaindata_feed_named(const char *source)
{
    size_t  i;

    for (i = 0; i < CHAINDATA_FEEDS; i++) {
        if (strcmp(chaindata_feeds[i].source, source) == 0) {
            return &chaindata_feeds[i];
        }
    }

    return NULL;
}
