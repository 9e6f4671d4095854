
/*
 * chaindata-mirror: the Runes follower's rooms, from the bottom: the
 * names and lists the feed shares with its fill
 * (chaindata_mirror_runes_lists.c), the balance lists kept by their tip
 * (chaindata_mirror_runes_tip.c), the balances
 * (chaindata_mirror_balances.c), a block's activity and etchings
 * (chaindata_mirror_runes_etchings.c), the kept lists settled
 * (chaindata_mirror_runes_settle.c), the catch-up fill
 * (chaindata_mirror_runes_fill.c), the poll (chaindata_mirror_runes.c).
 */


#ifndef _CHAINDATA_MIRROR_RUNES_H_INCLUDED_
#define _CHAINDATA_MIRROR_RUNES_H_INCLUDED_


#include "chaindata_feeds.h"
#include "chaindata_layout.h"
#include "chaindata_mirror_pages.h"


/* --catch-up: how the runes feed catches up (chaindata_mirror_runes_fill.c) */
typedef enum {
    CHAINDATA_CATCHUP_AUTO = 0,
    CHAINDATA_CATCHUP_FILL,
    CHAINDATA_CATCHUP_REPLAY
} chaindata_catchup_e;

/* the most blocks a fill window holds (--catch-up-window's default) */
#define CHAINDATA_FILL_BLOCKS      2048

/* the Runes API's largest page (api/runes/src/env.ts API_RESULTS_MAX_LIMIT) */
#define CHAINDATA_RUNES_PAGE       60


/* names, sorted and each once (chaindata_mirror_runes_lists.c) */
typedef struct {
    char               **items;
    size_t               n;
    size_t               cap;
} chaindata_names_t;

/*
 * Balance lists upstream served while its tip was another block than the
 * one they were written with (chaindata_mirror_runes_tip.c): that tip's
 * hash (the answers' ETag) and the lists, until the index holds that
 * block or the lists are fetched again.  The lists of blocks are named by
 * the blocks (their undo names them), the others one by one.
 */
typedef struct {
    unsigned char        tip[CHAINDATA_FEED_HASH_MAX];
    size_t               tip_len;
    unsigned             seen:1;       /* in the write being made */
    unsigned             blocks:1;     /* lo..hi hold some of them */
    uint64_t             lo;
    uint64_t             hi;
    chaindata_names_t    addresses;    /* written outside blocks */
    chaindata_names_t    runes;        /* etchings, idem */
} chaindata_above_t;


/* the Runes feed's state */
typedef struct {
    uint64_t             from_height;  /* --runes-from-height */
    int                  has_from;
    uint64_t             behind;       /* the tip last logged below */
    /* the hash of the runes block the lists being fetched are written
       with, and the tip's as the status route's ETag last said */
    unsigned char        at[CHAINDATA_FEED_HASH_MAX];
    size_t               at_len;
    uint64_t             at_lo;        /* the blocks written, if any */
    uint64_t             at_hi;
    unsigned char        tip_tag[CHAINDATA_FEED_HASH_MAX];
    size_t               tip_tag_len;
    chaindata_above_t   *above;
    size_t               nabove;
    uint64_t             max_reorg;    /* --runes-max-reorg-depth */
    chaindata_catchup_e  catch_up;     /* --catch-up */
    size_t               fill_window;  /* --catch-up-window: blocks */
} chaindata_runes_state_t;


/* the rune_balances records of addresses (chaindata_mirror_balances.c) */
int chaindata_balances_records(chaindata_mirror_t *m, char **addresses,
    size_t n);

/*
 * a block's rune_block record, the rune_etching records of rune ids
 * (fetched), one of a document (NULL: null)
 * (chaindata_mirror_runes_etchings.c)
 */
int chaindata_runes_block_record(chaindata_mirror_t *m,
    chaindata_plist_t *blk);
int chaindata_etchings_records(chaindata_mirror_t *m, char **ids, size_t n);
int chaindata_etching_record(chaindata_mirror_t *m, const char *id,
    const chaindata_jv_t *doc);


int chaindata_names_add(chaindata_names_t *s, const unsigned char *p,
    size_t len);
int chaindata_names_join(chaindata_names_t *s, const chaindata_names_t *from);
void chaindata_names_unique(chaindata_names_t *s);
void chaindata_names_free(chaindata_names_t *s);

/* a list's entries, gathered by chaindata_plist_each(l, nodes_add, &n) */
typedef struct {
    const chaindata_jv_t  **v;
    size_t                  n;
    size_t                  cap;
} chaindata_nodes_t;

int chaindata_nodes_add(void *ctx, const chaindata_jv_t *e);

/* the transactions, addresses and runes a block's activity names */
typedef struct {
    chaindata_names_t    txs;
    chaindata_names_t    addresses;
    chaindata_names_t    runes;        /* rune ids */
} chaindata_rnames_t;

/* the feed's name (CHAINDATA_FEED_LIST) */
#define CHAINDATA_RUNES                                                     \
    (chaindata_feeds[CHAINDATA_FEED_RUNES].source)
#define CHAINDATA_RUNES_NO_HASH     "none"

/*
 * the Runes feed's parts the fill shares (chaindata_mirror_runes_lists.c):
 * the checks of a list's entries, a list of api's route fmt for what
 */
const char *chaindata_block_entry(chaindata_plist_t *l,
    const chaindata_jv_t *e);
const char *chaindata_tx_entry(chaindata_plist_t *l, const chaindata_jv_t *e);
chaindata_plist_t *chaindata_runes_list(const char *fmt, const char *api,
    const char *what,
    const char *(*entry)(chaindata_plist_t *l, const chaindata_jv_t *e));
chaindata_plist_t *chaindata_runes_block_list(chaindata_mirror_t *m,
    uint64_t height);
void chaindata_runes_block_fetched(chaindata_plist_t *l);
int chaindata_runes_names(chaindata_plist_t *blk, chaindata_rnames_t *names);
/* the addresses and runes whose lists, etchings the blocks above wrote */
int chaindata_runes_undone(chaindata_mirror_t *m, uint64_t height,
    uint64_t top, chaindata_names_t *addresses, chaindata_names_t *runes);
void chaindata_runes_names_free(chaindata_rnames_t *names);

/* balance lists at the height written (chaindata_mirror_runes_tip.c) */
int chaindata_runes_is_hash(const unsigned char *p, size_t len);
void chaindata_runes_at(chaindata_mirror_t *m, const unsigned char *hash,
    size_t len, uint64_t lo, uint64_t hi);
int chaindata_runes_fetched_at(chaindata_mirror_t *m, const char *name,
    int etching, const chaindata_req_t *r);
void chaindata_runes_above_begin(chaindata_mirror_t *m);
void chaindata_runes_above_seen(chaindata_mirror_t *m,
    const unsigned char *hash, size_t len);
void chaindata_runes_above_committed(chaindata_mirror_t *m);
void chaindata_runes_above_free(chaindata_mirror_t *m);
/* the kept lists settled (chaindata_mirror_runes_settle.c) */
int chaindata_runes_above_settle(chaindata_mirror_t *m,
    const unsigned char *posh, size_t posh_len);

/* the catch-up fill (chaindata_mirror_runes_fill.c) */
int chaindata_runes_catch_up_mode(const char *s, chaindata_catchup_e *mode);
int chaindata_runes_fills(chaindata_mirror_t *m, uint64_t behind);
int chaindata_runes_fill(chaindata_mirror_t *m, uint64_t from, uint64_t to,
    unsigned char *posh, chaindata_feedpos_t *pos);


#endif /* _CHAINDATA_MIRROR_RUNES_H_INCLUDED_ */
