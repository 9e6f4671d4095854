
/*
 * chaindata-mirror: lists upstream serves in pages
 * (chaindata_mirror_pages.c).
 */


#ifndef _CHAINDATA_MIRROR_PAGES_H_INCLUDED_
#define _CHAINDATA_MIRROR_PAGES_H_INCLUDED_


#include "chaindata_address.h"
#include "chaindata_mirror_http.h"


/* the entries a paged list may have: upstream's claim is refused beyond */
#define CHAINDATA_LIST_MAX         1000000
/* times a list that changes while it is paged is paged again, per pass */
#define CHAINDATA_PAGES_RESTARTS   5


/*
 * A list upstream serves in pages (chaindata_mirror_pages.c).  What a
 * page's "total" means is the route's: "counted" lists (activity) count
 * their entries in it, the others (balances) something at least as large
 * (upstream's history rows), so that they end at their first short page.
 */
typedef struct chaindata_plist_s  chaindata_plist_t;

struct chaindata_plist_s {
    char                 base[CHAINDATA_URL_MAX];   /* up to the '?' */
    unsigned             limit;
    unsigned             counted:1;   /* "total" counts the entries */
    const char        *(*entry)(chaindata_plist_t *l,
                                const chaindata_jv_t *e);
    unsigned             restarts;    /* paged again from its first page */

    /* what its entries are checked against */
    uint64_t             height;
    char                 id[CHAINDATA_ADDRESS_MAX_LEN + 1];  /* tx, address */

    /* from here on, what a fetch found: cleared before each */
    uint64_t             total;       /* as its first page says */
    uint64_t             entries;     /* how many, once complete */
    unsigned             complete;
    size_t               npages;
    chaindata_req_t    **pages;
    unsigned char        hash[CHAINDATA_FEED_HASH_MAX];
    size_t               hash_len;
    uint64_t             time;
};


/* lists upstream serves in pages (chaindata_mirror_pages.c) */
int chaindata_plist_fetch(chaindata_mirror_t *m, chaindata_plist_t **lists,
    size_t n);
int chaindata_plist_first(chaindata_mirror_t *m, chaindata_plist_t *l);
int chaindata_plist_each(chaindata_plist_t *l,
    int (*each)(void *ctx, const chaindata_jv_t *e), void *ctx);
void chaindata_plist_free(chaindata_plist_t *l);
/* the record {"kind":kind,id_name:"id","results":[entries]}, emitted */
int chaindata_list_record(chaindata_mirror_t *m, const char *kind,
    const char *id_name, const char *id, const chaindata_jv_t **entries,
    size_t n);


#endif /* _CHAINDATA_MIRROR_PAGES_H_INCLUDED_ */
