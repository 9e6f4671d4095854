
/*
 * chaindata-mirror: what the Runes feed (chaindata_mirror_runes.c) shares
 * with its catch-up fill (chaindata_mirror_runes_fill.c), below both: the
 * sets of names, the checks of a list's entries, a block's activity list
 * and the transactions, addresses and runes it names, the addresses and
 * runes a block's undo names.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"
#include "chaindata_runes_layout.h"


int
chaindata_names_add(chaindata_names_t *s, const unsigned char *p,
    size_t len)
{
    char  **items;

    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        items = realloc(s->items, s->cap * sizeof(char *));
        if (items == NULL) {
            return -1;
        }

        s->items = items;
    }

    s->items[s->n] = strndup((const char *) p, len);

    return s->items[s->n++] ? 0 : -1;
}


/* every name of from added to s */

int
chaindata_names_join(chaindata_names_t *s, const chaindata_names_t *from)
{
    size_t  i;

    for (i = 0; i < from->n; i++) {
        if (chaindata_names_add(s, (const unsigned char *) from->items[i],
                                strlen(from->items[i]))
            != 0)
        {
            return -1;
        }
    }

    return 0;
}


static int
chaindata_names_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}


/* sorted, each once: the order of the records is the same every run */

void
chaindata_names_unique(chaindata_names_t *s)
{
    size_t  i, k;

    if (s->n == 0) {
        return;
    }

    qsort(s->items, s->n, sizeof(char *), chaindata_names_cmp);

    for (i = 0, k = 0; i < s->n; i++) {
        if (k && strcmp(s->items[k - 1], s->items[i]) == 0) {
            free(s->items[i]);
            continue;
        }

        s->items[k++] = s->items[i];
    }

    s->n = k;
}


void
chaindata_names_free(chaindata_names_t *s)
{
    size_t  i;

    for (i = 0; i < s->n; i++) {
        free(s->items[i]);
    }

    free(s->items);
    memset(s, 0, sizeof(*s));
}


static int
chaindata_is_txid(const chaindata_jv_t *v)
{
    return v && v->type == CHAINDATA_JV_STRING
           && v->len == CHAINDATA_TXID_HEX_LEN
           && chaindata_hex_is_lower(v->str, v->len);
}


/* a list's entries, in the order served (chaindata_plist_each()) */

int
chaindata_nodes_add(void *ctx, const chaindata_jv_t *e)
{
    const chaindata_jv_t  **v;
    chaindata_nodes_t      *nodes;

    nodes = ctx;

    if (nodes->n == nodes->cap) {
        nodes->cap = nodes->cap ? nodes->cap * 2 : 64;
        v = realloc(nodes->v, nodes->cap * sizeof(chaindata_jv_t *));
        if (v == NULL) {
            return -1;
        }

        nodes->v = v;
    }

    nodes->v[nodes->n++] = e;

    return 0;
}


/* a rune id (chaindata_rune_id_key()): what a URL carries of it */

static int
chaindata_is_rune_id(const chaindata_jv_t *v)
{
    unsigned char  key[CHAINDATA_RUNE_ID_KEY_LEN];

    return v && v->type == CHAINDATA_JV_STRING
           && chaindata_rune_id_key(key, v->str, v->len) == 0;
}


static const chaindata_jv_t *
chaindata_entry_rune_id(const chaindata_jv_t *e)
{
    return chaindata_jv_get(chaindata_jv_get(e, "rune"), "id");
}


/* an activity entry of a block: at its height, all of one hash */

const char *
chaindata_block_entry(chaindata_plist_t *l, const chaindata_jv_t *e)
{
    uint64_t               h, t;
    size_t                 len;
    unsigned char          hash[CHAINDATA_FEED_HASH_MAX];
    const chaindata_jv_t  *loc;

    loc = chaindata_jv_get(e, "location");

    if (loc == NULL || loc->type != CHAINDATA_JV_OBJECT
        || chaindata_jv_u64(loc, "block_height", &h) != 0
        || chaindata_jv_hash(loc, "block_hash", hash, &len) != 0
        || len == 0
        || chaindata_jv_u64(loc, "timestamp", &t) != 0
        || !chaindata_is_txid(chaindata_jv_get(loc, "tx_id")))
    {
        return "no location (block_height, block_hash, tx_id, timestamp)";
    }

    if (!chaindata_is_rune_id(chaindata_entry_rune_id(e))) {
        return "no rune id (rune.id)";
    }

    if (h != l->height) {
        return "activity of another block";
    }

    if (l->hash_len == 0) {
        memcpy(l->hash, hash, len);
        l->hash_len = len;

    } else if (len != l->hash_len || memcmp(hash, l->hash, len) != 0) {
        return "activity of two block hashes at one height";
    }

    if (t > l->time) {
        l->time = t;
    }

    return NULL;
}


/* an activity entry of a transaction: of that transaction */

const char *
chaindata_tx_entry(chaindata_plist_t *l, const chaindata_jv_t *e)
{
    const chaindata_jv_t  *loc, *id;

    loc = chaindata_jv_get(e, "location");
    id = loc ? chaindata_jv_get(loc, "tx_id") : NULL;

    if (!chaindata_is_txid(id) || memcmp(id->str, l->id, id->len) != 0) {
        return "activity of another transaction";
    }

    return NULL;
}


chaindata_plist_t *
chaindata_runes_list(const char *fmt, const char *api, const char *what,
    const char *(*entry)(chaindata_plist_t *l, const chaindata_jv_t *e))
{
    chaindata_plist_t  *l;

    l = calloc(1, sizeof(chaindata_plist_t));
    if (l == NULL) {
        return NULL;
    }

    snprintf(l->base, sizeof(l->base), fmt, api, what);
    snprintf(l->id, sizeof(l->id), "%s", what);
    l->limit = CHAINDATA_RUNES_PAGE;
    l->counted = 1;
    l->entry = entry;

    return l;
}


/* a block's activity list, not fetched yet */

chaindata_plist_t *
chaindata_runes_block_list(chaindata_mirror_t *m, uint64_t height)
{
    char                h[24];
    chaindata_plist_t  *l;

    snprintf(h, sizeof(h), "%llu", (unsigned long long) height);

    l = chaindata_runes_list("%s/runes/v1/blocks/%s/activity", m->runes_api,
                             h, chaindata_block_entry);
    if (l) {
        l->height = height;
    }

    return l;
}


/* a fetched block without activity: the hash "none" */

void
chaindata_runes_block_fetched(chaindata_plist_t *l)
{
    if (l->hash_len == 0) {
        l->hash_len = sizeof(CHAINDATA_RUNES_NO_HASH) - 1;
        memcpy(l->hash, CHAINDATA_RUNES_NO_HASH, l->hash_len);
    }
}


static int
chaindata_runes_name(void *ctx, const chaindata_jv_t *e)
{
    int                    i;
    chaindata_rnames_t    *names;
    const chaindata_jv_t  *v;

    static const char  *members[] = { "address", "receiver_address" };

    names = ctx;
    v = chaindata_jv_get(chaindata_jv_get(e, "location"), "tx_id");

    if (chaindata_names_add(&names->txs, v->str, v->len) != 0) {
        return -1;
    }

    /* checked by the block's page (chaindata_block_entry) */
    v = chaindata_entry_rune_id(e);

    if (chaindata_names_add(&names->runes, v->str, v->len) != 0) {
        return -1;
    }

    for (i = 0; i < 2; i++) {
        v = chaindata_jv_get(e, members[i]);

        /* an address the edge cannot serve has no list to keep */
        if (v && v->type == CHAINDATA_JV_STRING
            && chaindata_address_check(v->str, v->len) == 0
            && chaindata_names_add(&names->addresses, v->str, v->len) != 0)
        {
            return -1;
        }
    }

    return 0;
}


void
chaindata_runes_names_free(chaindata_rnames_t *names)
{
    chaindata_names_free(&names->txs);
    chaindata_names_free(&names->addresses);
    chaindata_names_free(&names->runes);
}


/* the transactions, addresses, runes a fetched block names, sorted, once */

int
chaindata_runes_names(chaindata_plist_t *blk, chaindata_rnames_t *names)
{
    memset(names, 0, sizeof(chaindata_rnames_t));

    if (chaindata_plist_each(blk, chaindata_runes_name, names) != 0) {
        chaindata_runes_names_free(names);
        return -1;
    }

    chaindata_names_unique(&names->txs);
    chaindata_names_unique(&names->addresses);
    chaindata_names_unique(&names->runes);

    return 0;
}


/*
 * The addresses whose balance lists and the runes whose etchings the
 * blocks above height wrote, as their undo records name them
 * (rune_balances' address, rune_etching's id)
 */

int
chaindata_runes_undone(chaindata_mirror_t *m, uint64_t height,
    uint64_t top, chaindata_names_t *addresses, chaindata_names_t *runes)
{
    int                    rc;
    char                   err[CHAINDATA_ERR_LEN];
    size_t                 len;
    unsigned char         *v;
    chaindata_jv_t        *root;
    chaindata_arena_t     *arena;
    const chaindata_jv_t  *u, *a;

    arena = chaindata_arena_create();
    if (arena == NULL) {
        return -1;
    }

    for (rc = 0; rc == 0 && ++height <= top; /* void */ ) {
        if (chaindata_feed_block_get(&m->in.ix, CHAINDATA_RUNES, height, &v,
                                     &len)
            != 0)
        {
            continue;
        }

        chaindata_arena_reset(arena);
        root = chaindata_jdoc_parse(arena, v, len, err, sizeof(err));
        u = root ? chaindata_jv_get(root, "undo") : NULL;

        for (u = u ? u->child : NULL; rc == 0 && u; u = u->next) {
            a = chaindata_jv_get(u, "address");

            if (a && a->type == CHAINDATA_JV_STRING) {
                rc = chaindata_names_add(addresses, a->str, a->len);
                continue;
            }

            a = chaindata_jv_is(chaindata_jv_get(u, "kind"), "rune_etching")
                ? chaindata_jv_get(u, "id") : NULL;

            if (chaindata_is_rune_id(a)) {
                rc = chaindata_names_add(runes, a->str, a->len);
            }
        }

        free(v);
    }

    chaindata_arena_destroy(arena);
    chaindata_names_unique(addresses);
    chaindata_names_unique(runes);

    return rc;
}
