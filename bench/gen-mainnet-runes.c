
/*
 * bench/gen-mainnet: rune activity and balances (lmdb-schema/runes.md's
 * records; gen-mainnet.c says what and why).  A rune and an address are
 * made from their number alone (a random stream of their own), so that
 * millions of them take no memory.
 */


#include <stdio.h>
#include <string.h>

#include "gen-mainnet.h"


#define RUNE_BLOCK0      840000
#define RUNE_TIME0       1713571767
#define MAX_HOLDINGS     5000
#define SEEN_SIZE        16384          /* a power of 2 over 2 holdings */

typedef struct {
    char      text[96];
    size_t    len;
} addr_t;

typedef struct {
    char      id[64];
    char      block[64];
    uint64_t  height;
    uint64_t  tx_index;
    uint64_t  timestamp;
} rtx_t;

static const char  bech32[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
static const char  base58[] =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";


static void
chars_into(gm_rng_t *r, char *to, const char *alphabet, size_t an,
    size_t n)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        to[i] = alphabet[gm_below(r, an)];
    }
}


/* address j: taproot and segwit v0 bech32, P2SH and P2PKH base58 */
static void
address(const gm_conf_t *c, uint64_t j, addr_t *a)
{
    gm_rng_t  r = gm_stream(c->seed, 11, j);
    uint64_t  v = gm_below(&r, 100);

    if (v < 80) {
        memcpy(a->text, v < 45 ? "bc1p" : "bc1q", 4);
        a->len = v < 45 ? 62 : 42;
        chars_into(&r, a->text + 4, bech32, 32, a->len - 4);
    } else {
        a->text[0] = v < 92 ? '3' : '1';
        a->len = 34;
        chars_into(&r, a->text + 1, base58, 58, a->len - 1);
    }
}


/* rune i: its id, number, name and spaced name */
static void
write_rune(const gm_conf_t *c, uint64_t i)
{
    gm_rng_t  r = gm_stream(c->seed, 10, i);
    char      name[32], spaced[128];
    size_t    n, k, s = 0;

    n = gm_range(&r, 5, 20);
    chars_into(&r, name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 26, n);
    for (k = 0; k < n; k++) {
        spaced[s++] = name[k];
        if (k + 1 < n && gm_below(&r, 5) == 0) {
            memcpy(spaced + s, "\xe2\x80\xa2", 3);
            s += 3;
        }
    }
    gm_str("{\"id\":\"");
    gm_u64(RUNE_BLOCK0 + i / 4);
    gm_str(":");
    gm_u64(i % 4 + 4 * gm_below(&r, 50));
    gm_str("\",\"number\":");
    gm_u64(i);
    gm_str(",\"name\":\"");
    gm_put(name, n);
    gm_str("\",\"spaced_name\":\"");
    gm_put(spaced, s);
    gm_str("\"}");
}


/* a decimal amount: whole digits, and a point and decimals half the time */
static void
write_amount(gm_rng_t *r, uint64_t whole)
{
    gm_str("\"");
    gm_digits(r, whole);
    if (gm_below(r, 2)) {
        char      decimals[8];
        uint64_t  n = gm_range(r, 1, 8);

        gm_str(".");
        chars_into(r, decimals, "0123456789", 10, n);
        gm_put(decimals, n);
    }
    gm_str("\"");
}


static void
write_address(const gm_conf_t *c, const char *member, uint64_t j)
{
    addr_t  a;

    address(c, j, &a);
    gm_put(member, strlen(member));
    gm_put(a.text, a.len);
    gm_str("\"");
}


static void
write_entry(const gm_conf_t *c, gm_rng_t *r, const rtx_t *t)
{
    static const char  *ops[] = {
        "receive", "send", "mint", "burn", "etching"
    };
    static const unsigned cut[] = { 40, 75, 95, 98, 100 };
    uint64_t            v = gm_below(r, 100), op, vout;

    for (op = 0; v >= cut[op]; op++) { /* void */ }
    gm_str("{\"rune\":");
    write_rune(c, gm_skewed(r, c->runes, 3));
    gm_str(",\"operation\":\"");
    gm_put(ops[op], strlen(ops[op]));
    gm_str("\",\"location\":{\"block_hash\":\"");
    gm_put(t->block, 64);
    gm_str("\",\"block_height\":");
    gm_u64(t->height);
    gm_str(",\"tx_id\":\"");
    gm_put(t->id, 64);
    gm_str("\",\"tx_index\":");
    gm_u64(t->tx_index);
    gm_str(",\"timestamp\":");
    gm_u64(t->timestamp);
    if (op != 3) {
        vout = gm_below(r, 4);
        gm_str(",\"vout\":");
        gm_u64(vout);
        gm_str(",\"output\":\"");
        gm_put(t->id, 64);
        gm_str(":");
        gm_u64(vout);
        gm_str("\"");
    }
    gm_str("}");
    if (op != 2 || gm_below(r, 2)) {
        write_address(c, ",\"address\":\"", gm_skewed(r, c->addresses, 2));
    }
    if (op == 1) {
        write_address(c, ",\"receiver_address\":\"",
                      gm_skewed(r, c->addresses, 2));
    }
    if (op != 4) {
        gm_str(",\"amount\":");
        write_amount(r, gm_range(r, 1, 16));
    }
    gm_str("}");
}


/* entries of a transaction: most one or two, a few hundreds */
static uint64_t
entry_count(gm_rng_t *r)
{
    uint64_t  v = gm_below(r, 1000);

    return v < 600 ? gm_range(r, 1, 2)
           : v < 900 ? gm_range(r, 3, 6)
           : v < 990 ? gm_range(r, 7, 40)
           : gm_logrange(r, 41, 1000);
}


static void
activity(const gm_conf_t *c, gm_stats_t *st)
{
    gm_rng_t  blocks = gm_stream(c->seed, 12, 0);
    gm_rng_t  r;
    rtx_t     t;
    uint64_t  i, e, n, left = 0;

    memset(&t, 0, sizeof(t));
    t.height = RUNE_BLOCK0 - 1;
    for (i = 0; i < c->rune_txs; i++) {
        if (left == 0) {
            /* a Bitcoin block: 1 to 5,000 transactions, as many in
             * each decade */
            left = gm_logrange(&blocks, 1, 5000);
            t.height++;
            t.tx_index = 0;
            t.timestamp = RUNE_TIME0 + 600 * (t.height - RUNE_BLOCK0);
            chars_into(&blocks, t.block, "0123456789abcdef", 16, 64);
        }
        left--;
        r = gm_stream(c->seed, 13, i);
        chars_into(&r, t.id, "0123456789abcdef", 16, 64);
        n = entry_count(&r);
        gm_str("{\"kind\":\"rune_activity\",\"tx_id\":\"");
        gm_put(t.id, 64);
        gm_str("\",\"results\":[");
        for (e = 0; e < n; e++) {
            if (e > 0) {
                gm_str(",");
            }
            write_entry(c, &r, &t);
        }
        gm_str("]}\n");
        t.tx_index++;
        st->rune_txs++;
        st->activity_entries += n;
        gm_sample(&st->activity, t.id, 64);
    }
}


/* runes an address holds: most one, a few thousands */
static uint64_t
holding_count(gm_rng_t *r)
{
    uint64_t  v = gm_below(r, 1000);

    return v < 550 ? 1
           : v < 800 ? gm_range(r, 2, 3)
           : v < 940 ? gm_range(r, 4, 20)
           : v < 995 ? gm_range(r, 21, 200)
           : gm_logrange(r, 201, MAX_HOLDINGS);
}


/* n distinct runes, the popular ones most often */
static uint64_t
holdings(const gm_conf_t *c, gm_rng_t *r, uint64_t n, uint64_t *runes)
{
    static uint64_t  seen[SEEN_SIZE];
    static uint64_t  stamp[SEEN_SIZE], now;
    uint64_t         k = 0, tries, rune, h;

    now++;
    if (n > c->runes) {
        n = c->runes;
    }
    for (tries = 0; k < n && tries < 20 * n; tries++) {
        rune = gm_skewed(r, c->runes, 3);
        for (h = (rune * 0x9e3779b97f4a7c15ULL) >> 50;
             stamp[h] == now && seen[h] != rune;
             h = (h + 1) & (SEEN_SIZE - 1))
        {
            /* void */
        }
        if (stamp[h] == now) {
            continue;
        }
        stamp[h] = now;
        seen[h] = rune;
        runes[k++] = rune;
    }

    return k;
}


static void
balances(const gm_conf_t *c, gm_stats_t *st)
{
    static uint64_t  runes[MAX_HOLDINGS];
    gm_rng_t         r;
    addr_t           a;
    uint64_t         j, k, n;

    for (j = 0; j < c->addresses; j++) {
        r = gm_stream(c->seed, 14, j);
        address(c, j, &a);
        n = holdings(c, &r, holding_count(&r), runes);
        gm_str("{\"kind\":\"rune_balances\",\"address\":\"");
        gm_put(a.text, a.len);
        gm_str("\",\"results\":[");
        for (k = 0; k < n; k++) {
            if (k > 0) {
                gm_str(",");
            }
            gm_str("{\"rune\":");
            write_rune(c, runes[k]);
            gm_str(",\"balance\":");
            /* largest first, as upstream serves them */
            write_amount(&r, 1 + 20 * (n - k) / n);
            gm_str(",\"address\":\"");
            gm_put(a.text, a.len);
            gm_str("\"}");
        }
        gm_str("]}\n");
        st->addresses++;
        st->balance_entries += n;
        gm_sample(&st->balances, a.text, a.len);
    }
}


void
gm_runes(const gm_conf_t *c, gm_stats_t *st)
{
    if (c->rune_txs == 0) {
        return;
    }
    activity(c, st);
    balances(c, st);
}
