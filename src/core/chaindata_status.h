
/*
 * chaindata: how current the index is and how full, gathered from an
 * open environment (the module's workers) or a directory (chaindata-load
 * --stats), formatted as JSON or in the Prometheus text format.  Never any
 * key or chainhook data: counts, sizes, feed and stream positions only.
 */


#ifndef _CHAINDATA_STATUS_H_INCLUDED_
#define _CHAINDATA_STATUS_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include <lmdb.h>

#include "chaindata_feedstate.h"
#include "chaindata_feedtip.h"
#include "chaindata_layout.h"
#include "chaindata_metrics.h"
#include "chaindata_schema.h"


#define CHAINDATA_STATUS_FEEDS    16
#define CHAINDATA_STATUS_STREAMS  16


typedef struct {
    char                  source[CHAINDATA_FEED_SOURCE_MAX + 1];
    uint64_t              height;
    uint64_t              time;
    uint64_t              committed;
    char                  hash[CHAINDATA_FEED_HASH_MAX + 1];
    unsigned              has_tip;    /* a "tip:" record is stored */
    chaindata_feedtip_t   tip;
} chaindata_status_feed_t;


/* a feed's state as its writer stored it ("state:" records) */
typedef struct {
    char                   source[CHAINDATA_FEED_SOURCE_MAX + 1];
    chaindata_feedstate_t  state;
} chaindata_status_state_t;


/* a fan-out stream's position: the sequence of the last unit applied */
typedef struct {
    char           name[CHAINDATA_STREAM_NAME_MAX + 1];
    uint64_t       sequence;
    unsigned       has_published;
    uint64_t       published;  /* the publisher's last, as last seen */
} chaindata_status_stream_t;


typedef struct {
    char                       schema[17];
    size_t                     entries[CHAINDATA_DBI_COUNT];
    size_t                     map_size;
    size_t                     used;
    unsigned                   readers;
    unsigned                   max_readers;
    size_t                     nfeeds;
    chaindata_status_feed_t    feeds[CHAINDATA_STATUS_FEEDS];
    size_t                     nstates;
    chaindata_status_state_t   states[CHAINDATA_STATUS_FEEDS];
    size_t                     nstreams;
    chaindata_status_stream_t  streams[CHAINDATA_STATUS_STREAMS];
    char                       err[CHAINDATA_SCHEMA_ERR_LEN + 64];

    unsigned                   gathered;     /* all of the above is set */

    /* set by the caller after gathering: */
    const char                *version;      /* chaindata_build_info's */
    /*
     * why the index at its path cannot be read (NULL: it can); the one
     * open may have been gathered meanwhile
     */
    const char                *index_down;
    /*
     * the room on the index's file system (chaindata_status_disk()):
     * the bytes its writer, no root, may still write, and its size
     */
    unsigned                   has_disk;
    uint64_t                   disk_free;
    uint64_t                   disk_size;
    const chaindata_metrics_t *traffic;      /* NULL: none (--stats) */
    uint64_t                   max_behind;   /* blocks; 0: not checked */
    uint64_t                   max_lag;      /* seconds; 0: not checked */
} chaindata_status_t;


/* with a read transaction of env open in txn: 0 or an LMDB error */
int chaindata_status_gather(MDB_env *env, MDB_txn *txn, const MDB_dbi *dbi,
    chaindata_status_t *st);

/* opens the index at path read-only and gathers: 0, or -1 with st->err */
int chaindata_status_read(const char *path, chaindata_status_t *st);

/*
 * the room on the file system of the index at path (a directory): 0, or
 * -1 (errno set) with st->has_disk left 0
 */
int chaindata_status_disk(const char *path, chaindata_status_t *st);

/*
 * 1 when every feed is within st->max_behind blocks of its stored tip and
 * st->max_lag seconds (doc/module.md, chaindata_status_max_behind)
 */
int chaindata_status_healthy(const chaindata_status_t *st, uint64_t now);

/* a malloc()ed text: JSON, or the Prometheus text format; NULL: no memory */
char *chaindata_status_format(const chaindata_status_t *st, uint64_t now,
    int prometheus);


#endif /* _CHAINDATA_STATUS_H_INCLUDED_ */
