
/*
 * chaindata: the routes the module serves, one line each, with every fact
 * about a route that is not its own code (doc/developer.md, "Adding a
 * route").  The module makes its location directives, its handlers'
 * prototypes and their descriptors from this list (src/ngx/, its routes
 * header), the traffic counters their labels (chaindata_metrics.h).
 *
 * ROUTE(id, directive, feed, flags) is a route counted in the traffic
 * metrics, under the label "id"; UNCOUNTED(…) one that is not:
 *
 *   id         the module's handler is named for it, <id>_handler
 *   directive  the location directive that serves it
 *   feed       the chain whose history tells whether a miss is upstream's
 *              answer too (chaindata_history_source_e: at start the
 *              worker says when the index holds no such feed), or
 *              CHAINDATA_ROUTE_NO_FEED
 *   flags      CHAINDATA_ROUTE_* below
 *
 * A route that is one path of a family, the paths one directive serves
 * (CHAINDATA_ROUTE_PATHS), is a line of CHAINDATA_PATH_LIST below:
 *
 *   PATH(id, family, path, feed, flags)
 *
 *   id         as above; its handler is given the path's parameters
 *   family     the id of the directive's line (UNCOUNTED, flagged
 *              CHAINDATA_ROUTE_PATHS), whose handler matches the request's
 *              path against its lines' paths
 *   path       the path after the family's prefix, a template: "{name}"
 *              is a parameter, one path segment (chaindata_path.h)
 *
 * The counted routes' order is the traffic counters': those of
 * CHAINDATA_ROUTE_LIST, then those of CHAINDATA_PATH_LIST; chaindata_status's
 * JSON and its Prometheus text list them so, and a reload keeps the
 * counts in shared memory by their place.  A new route goes last in its
 * list; a new line of CHAINDATA_ROUTE_LIST moves the paths' counters.
 */


#ifndef _CHAINDATA_ROUTES_H_INCLUDED_
#define _CHAINDATA_ROUTES_H_INCLUDED_


#define CHAINDATA_ROUTE_LIST(ROUTE, UNCOUNTED)                               \
    ROUTE(tx, "chaindata_tx", CHAINDATA_HISTORY_STACKS,                      \
          CHAINDATA_ROUTE_READS_INDEX | CHAINDATA_ROUTE_CORS_STACKS          \
          | CHAINDATA_ROUTE_WARNS_V1)                                        \
    ROUTE(rune_activity, "chaindata_rune_activity", CHAINDATA_HISTORY_RUNES, \
          CHAINDATA_ROUTE_READS_INDEX)                                       \
    ROUTE(rune_balances, "chaindata_rune_balances", CHAINDATA_HISTORY_RUNES, \
          CHAINDATA_ROUTE_READS_INDEX)                                       \
    ROUTE(chainhook, "chaindata_chainhook_status", CHAINDATA_ROUTE_NO_FEED,  \
          CHAINDATA_ROUTE_READS_INDEX | CHAINDATA_ROUTE_API_KEY)             \
    ROUTE(migration, "chaindata_migration", CHAINDATA_ROUTE_NO_FEED,         \
          CHAINDATA_ROUTE_MIGRATION_MAP)                                     \
    ROUTE(status, "chaindata_status", CHAINDATA_ROUTE_NO_FEED,               \
          CHAINDATA_ROUTE_READS_INDEX | CHAINDATA_ROUTE_NO_CORS)             \
    ROUTE(tx_v3, "chaindata_tx_v3", CHAINDATA_HISTORY_STACKS,                \
          CHAINDATA_ROUTE_READS_INDEX | CHAINDATA_ROUTE_CORS_STACKS)         \
    UNCOUNTED(error, "chaindata_error", CHAINDATA_ROUTE_NO_FEED, 0)         \
    UNCOUNTED(runes, "chaindata_runes", CHAINDATA_HISTORY_RUNES,             \
              CHAINDATA_ROUTE_READS_INDEX | CHAINDATA_ROUTE_PATHS)


/*
 * The Runes API 3.0.2's read routes, under /runes/v1 and /runes
 * (doc/module.md, "chaindata_runes").  SERVES_WHOLE: its answer is a
 * record the index holds or not (a miss asks the history); a line
 * without it is a list derived from blocks, served only while the runes
 * history is whole.
 */
#define CHAINDATA_PATH_LIST(PATH)                                            \
    PATH(runes_status, runes, "/", CHAINDATA_HISTORY_RUNES,                  \
         CHAINDATA_ROUTE_SERVES_WHOLE)                                       \
    PATH(runes_etchings, runes, "/etchings", CHAINDATA_HISTORY_RUNES, 0)     \
    PATH(runes_etching, runes, "/etchings/{etching}",                        \
         CHAINDATA_HISTORY_RUNES, CHAINDATA_ROUTE_SERVES_WHOLE)              \
    PATH(runes_etching_activity, runes, "/etchings/{etching}/activity",      \
         CHAINDATA_HISTORY_RUNES, 0)                                         \
    PATH(runes_etching_address_activity, runes,                              \
         "/etchings/{etching}/activity/{address}", CHAINDATA_HISTORY_RUNES,  \
         0)                                                                  \
    PATH(runes_holders, runes, "/etchings/{etching}/holders",                \
         CHAINDATA_HISTORY_RUNES, 0)                                         \
    PATH(runes_holder, runes, "/etchings/{etching}/holders/{address}",       \
         CHAINDATA_HISTORY_RUNES, 0)                                         \
    PATH(runes_balances, runes, "/addresses/{address}/balances",             \
         CHAINDATA_HISTORY_RUNES, CHAINDATA_ROUTE_SERVES_WHOLE)              \
    PATH(runes_address_activity, runes, "/addresses/{address}/activity",     \
         CHAINDATA_HISTORY_RUNES, 0)                                         \
    PATH(runes_block_activity, runes, "/blocks/{block}/activity",            \
         CHAINDATA_HISTORY_RUNES, CHAINDATA_ROUTE_SERVES_WHOLE)              \
    PATH(runes_tx_activity, runes, "/transactions/{tx_id}/activity",         \
         CHAINDATA_HISTORY_RUNES, CHAINDATA_ROUTE_SERVES_WHOLE)


/* a route whose misses no feed's history tells */
#define CHAINDATA_ROUTE_NO_FEED        (-1)

/* it reads the index: chaindata_db must be set, the workers open it */
#define CHAINDATA_ROUTE_READS_INDEX    0x01
/* no CORS headers on its answers: the operator's page, not upstream's */
#define CHAINDATA_ROUTE_NO_CORS        0x02
/* the Stacks API's CORS: Access-Control-Expose-Headers: X-API-Version */
#define CHAINDATA_ROUTE_CORS_STACKS    0x04
/* every answer says "Warning: 299": upstream deprecated its v1 routes */
#define CHAINDATA_ROUTE_WARNS_V1       0x08
/* the deprecated endpoints, answered from the migration map */
#define CHAINDATA_ROUTE_MIGRATION_MAP  0x10
/* its paths carry an API key, kept out of logs and caches */
#define CHAINDATA_ROUTE_API_KEY        0x20
/* a family's directive: its paths are the CHAINDATA_PATH_LIST lines
   naming it */
#define CHAINDATA_ROUTE_PATHS          0x40
/* a path's answer is a whole record, held or not: a miss asks the
   history; without it, a list served only while the history is whole */
#define CHAINDATA_ROUTE_SERVES_WHOLE   0x80


#endif /* _CHAINDATA_ROUTES_H_INCLUDED_ */
