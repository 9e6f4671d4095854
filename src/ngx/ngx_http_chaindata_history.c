
/*
 * chaindata: what the feeds' history lets the configured routes answer
 * (see the header).
 */


#include <ngx_config.h>
#include <ngx_core.h>

#include "chaindata_history.h"
#include "ngx_http_chaindata_history.h"


/*
 * What the routes configured answer of what the index does not hold
 * (lmdb-schema/feed.md, "The history a feed holds"): a route family
 * without a feed behind it, or whose feed has no block yet, at warn; one
 * whose feed starts after the chain's first block, at notice.
 */

void
ngx_http_chaindata_history_tell(ngx_log_t *log, MDB_txn *txn, MDB_dbi *dbi,
    ngx_str_t *db, ngx_uint_t routes)
{
    ngx_uint_t                    i;
    chaindata_history_t           h;
    const chaindata_feed_desc_t  *feed;

    for (i = 0; i < CHAINDATA_HISTORY_SOURCES; i++) {

        if (!(routes & (1 << i))) {
            continue;
        }

        feed = &chaindata_feeds[i];

        if (chaindata_history_read(txn, dbi, i, &h) != 0) {
            continue;
        }

        switch (h.kind) {

        case CHAINDATA_HISTORY_NONE:
            ngx_log_error(NGX_LOG_WARN, log, 0,
                          "chaindata_db \"%V\": the %s routes have no "
                          "feed behind them (no %s feed, none of its "
                          "records): what they ask goes to "
                          "chaindata_miss_fallback, or answers 503",
                          db, feed->routes, feed->source);
            break;

        case CHAINDATA_HISTORY_EMPTY:
            ngx_log_error(NGX_LOG_WARN, log, 0,
                          "chaindata_db \"%V\": the %s feed behind the %s "
                          "routes has no block yet: what the index does not "
                          "hold goes to chaindata_miss_fallback, or answers "
                          "503", db, feed->source, feed->routes);
            break;

        case CHAINDATA_HISTORY_PARTIAL:
            ngx_log_error(NGX_LOG_NOTICE, log, 0,
                          "chaindata_db \"%V\": the %s feed holds blocks "
                          "from %uL on, not from the chain's first (%uL): "
                          "what the index does not hold goes to "
                          "chaindata_miss_fallback, or answers 503",
                          db, feed->source, h.first, feed->chain_first);
            break;

        default:
            break;
        }
    }
}
