
/*
 * bench/gen-mainnet: what its files share (gen-mainnet.c: output, random
 * numbers, options; gen-mainnet-stacks.c: Stacks transactions;
 * gen-mainnet-runes.c: rune activity and balances).
 */


#ifndef _GEN_MAINNET_H_INCLUDED_
#define _GEN_MAINNET_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


#define GM_OUT_SIZE  (1 << 20)


typedef struct {
    unsigned char       buf[GM_OUT_SIZE];
    size_t              len;
    unsigned long long  total;          /* bytes written before buf */
} gm_out_t;

typedef struct {
    uint64_t  s;
} gm_rng_t;

typedef struct {
    uint64_t    stacks;
    uint64_t    rune_txs;
    uint64_t    runes;
    uint64_t    addresses;
    uint64_t    max_events;
    const char *seed;
    const char *fixtures;
    const char *paths_dir;
    uint64_t    paths;
} gm_conf_t;

typedef struct {
    uint64_t    cap;
    uint64_t    seen;
    gm_rng_t    rng;
    char      **paths;
} gm_sample_t;

typedef struct {
    uint64_t     stacks;
    uint64_t     events;
    uint64_t     max_events;
    uint64_t     v3;
    uint64_t     rune_txs;
    uint64_t     activity_entries;
    uint64_t     addresses;
    uint64_t     balance_entries;
    gm_sample_t  tx;
    gm_sample_t  activity;
    gm_sample_t  balances;
} gm_stats_t;


extern gm_out_t  gm_out;


void gm_flush(void);
void gm_put(const void *p, size_t n);
void gm_u64(uint64_t v);
#define gm_str(s)  gm_put(s, sizeof(s) - 1)

/* the random streams: one per purpose and item, from the seed */
gm_rng_t gm_stream(const char *seed, uint64_t what, uint64_t i);
uint64_t gm_rand(gm_rng_t *r);
uint64_t gm_below(gm_rng_t *r, uint64_t n);
uint64_t gm_range(gm_rng_t *r, uint64_t lo, uint64_t hi);
uint64_t gm_logrange(gm_rng_t *r, uint64_t lo, uint64_t hi);
uint64_t gm_skewed(gm_rng_t *r, uint64_t n, int power);
void gm_chars(gm_rng_t *r, const char *alphabet, unsigned bits, size_t n);
void gm_hex(gm_rng_t *r, size_t n);
void gm_digits(gm_rng_t *r, size_t n);

void gm_sample(gm_sample_t *s, const char *id, size_t len);

void gm_stacks(const gm_conf_t *c, gm_stats_t *st);
void gm_runes(const gm_conf_t *c, gm_stats_t *st);


#endif /* _GEN_MAINNET_H_INCLUDED_ */
