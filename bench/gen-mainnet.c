
/*
 * bench/gen-mainnet: mainnet-shaped ingest records (lmdb-schema/README.md)
 * on standard output, fast enough to feed chaindata-load through a pipe
 * (issue 43): no NDJSON file of tens of GB on disk.
 *
 *   gen-mainnet [--stacks N] [--rune-txs N] [--runes N] [--addresses N]
 *               [--max-events N] [--seed S] [--fixtures DIR]
 *               [--paths-dir DIR] [--paths N]
 *
 * Stacks: N transactions ("tx" records) made from the documents of
 * FIXTURES/tx*.ndjson as bench/gen-dataset.pl makes them (every member a
 * real document has, in its order), each id, hash, address, amount and
 * Clarity value made anew as random hex, c32 or digits of the template's
 * lengths (gen-dataset.pl --random's shapes), in Nakamoto blocks of 1 to
 * 60 transactions, with the members v3 needs (index_block_hash and
 * parent_index_block_hash, a pending one's receipt_block_height: what
 * the mirror writes), so that the loader stores v3 documents too.  The
 * mix of kinds and events a transaction is an estimate of mainnet's
 * (mostly contract calls, a mean near 4 events a transaction) with a
 * heavy tail of event counts: the first transaction has --max-events
 * (330,000, the genesis block's), a few in a million thousands.
 *
 * Runes: --rune-txs "rune_activity" records in Bitcoin blocks of 1 to
 * 5,000 transactions, entries over --runes runes (at least 100,000 by
 * default) chosen with a skew (a few runes in most transactions), then
 * one "rune_balances" record for each of --addresses addresses (bech32
 * and base58), most holding one rune, a few thousands.
 *
 * The same --seed gives the same bytes.  With --paths-dir it writes the
 * request paths a bench walks, --paths of each (default 20,000), sampled
 * over the whole stream: tx.paths (v1), tx-v3.paths (v3, the same
 * transactions), activity.paths, balances.paths.  At the end it says on
 * standard error what it wrote: "gen-mainnet: bytes B records R ...".
 *
 * Built by `make gen-mainnet` into build/gen-mainnet (bench/mainnet).
 */


#define _GNU_SOURCE

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen-mainnet.h"


gm_out_t  gm_out;


/* ------------------------------------------------------------ output */

void
gm_flush(void)
{
    if (gm_out.len
        && fwrite(gm_out.buf, 1, gm_out.len, stdout) != gm_out.len)
    {
        fprintf(stderr, "gen-mainnet: write: %s\n", strerror(errno));
        exit(1);
    }
    gm_out.total += gm_out.len;
    gm_out.len = 0;
}


void
gm_put(const void *p, size_t n)
{
    while (n > 0) {
        size_t  room = GM_OUT_SIZE - gm_out.len;
        size_t  k = n < room ? n : room;

        memcpy(gm_out.buf + gm_out.len, p, k);
        gm_out.len += k;
        p = (const char *) p + k;
        n -= k;
        if (gm_out.len == GM_OUT_SIZE) {
            gm_flush();
        }
    }
}


void
gm_u64(uint64_t v)
{
    char    tmp[24];
    size_t  i = sizeof(tmp);

    do {
        tmp[--i] = '0' + v % 10;
        v /= 10;
    } while (v);
    gm_put(tmp + i, sizeof(tmp) - i);
}


/* ------------------------------------------------------------ random */

uint64_t
gm_rand(gm_rng_t *r)
{
    uint64_t  z = (r->s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;

    return z ^ (z >> 31);
}


uint64_t
gm_below(gm_rng_t *r, uint64_t n)
{
    return (uint64_t) (((unsigned __int128) gm_rand(r) * n) >> 64);
}


uint64_t
gm_range(gm_rng_t *r, uint64_t lo, uint64_t hi)
{
    return lo + gm_below(r, hi - lo + 1);
}


/* lo … hi with as many draws in each decade: a heavy tail's shape */
uint64_t
gm_logrange(gm_rng_t *r, uint64_t lo, uint64_t hi)
{
    double  u = (double) (gm_rand(r) >> 11) / 9007199254740992.0;
    double  v = (double) lo * exp(u * log((double) hi / lo));

    return v < lo ? lo : v > hi ? hi : (uint64_t) v;
}


/* u in [0, 1) raised to a power: near 0 most often, for skewed picks */
uint64_t
gm_skewed(gm_rng_t *r, uint64_t n, int power)
{
    double  u = (double) (gm_rand(r) >> 11) / 9007199254740992.0;
    double  v = u;
    int     i;

    for (i = 1; i < power; i++) {
        v *= u;
    }

    return (uint64_t) (v * n) % n;
}


gm_rng_t
gm_stream(const char *seed, uint64_t what, uint64_t i)
{
    gm_rng_t  r;
    uint64_t  h = 0xcbf29ce484222325ULL;

    while (*seed) {
        h = (h ^ (unsigned char) *seed++) * 0x100000001b3ULL;
    }
    r.s = h ^ (what * 0xd1b54a32d192ed03ULL);
    r.s = gm_rand(&r) ^ (i * 0x9e3779b97f4a7c15ULL);
    (void) gm_rand(&r);

    return r;
}


void
gm_chars(gm_rng_t *r, const char *alphabet, unsigned bits, size_t n)
{
    unsigned char  tmp[128];
    uint64_t       x = 0;
    unsigned       left = 0, mask = (1u << bits) - 1;
    size_t         i, k;

    while (n > 0) {
        k = n < sizeof(tmp) ? n : sizeof(tmp);
        for (i = 0; i < k; i++) {
            if (left < bits) {
                x = gm_rand(r);
                left = 64;
            }
            tmp[i] = alphabet[x & mask];
            x >>= bits;
            left -= bits;
        }
        gm_put(tmp, k);
        n -= k;
    }
}


void
gm_hex(gm_rng_t *r, size_t n)
{
    gm_chars(r, "0123456789abcdef", 4, n);
}


void
gm_digits(gm_rng_t *r, size_t n)
{
    char  first = '1' + gm_below(r, 9);

    if (n == 0) {
        return;
    }
    if (n == 1) {
        first = '0' + gm_below(r, 10);
    }
    gm_put(&first, 1);
    while (--n > 0) {
        char  d = '0' + gm_below(r, 10);

        gm_put(&d, 1);
    }
}


/* ------------------------------------------------------------ paths */

/* a reservoir of n ids: each id of the stream kept with n / seen */
void
gm_sample(gm_sample_t *s, const char *path, size_t len)
{
    uint64_t  k;

    if (s->cap == 0) {
        return;
    }
    s->seen++;
    k = s->seen <= s->cap ? s->seen - 1 : gm_below(&s->rng, s->seen);
    if (k >= s->cap) {
        return;
    }
    free(s->paths[k]);
    s->paths[k] = strndup(path, len);
    if (s->paths[k] == NULL) {
        fprintf(stderr, "gen-mainnet: out of memory\n");
        exit(1);
    }
}


static void
write_paths(const char *dir, const char *name, gm_sample_t *s,
    const char *before, const char *after)
{
    char      file[4096];
    FILE     *f;
    uint64_t  i, n = s->seen < s->cap ? s->seen : s->cap;

    snprintf(file, sizeof(file), "%s/%s", dir, name);
    f = fopen(file, "w");
    if (f == NULL) {
        fprintf(stderr, "gen-mainnet: %s: %s\n", file, strerror(errno));
        exit(1);
    }
    for (i = 0; i < n; i++) {
        fprintf(f, "%s%s%s\n", before, s->paths[i], after);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "gen-mainnet: %s: %s\n", file, strerror(errno));
        exit(1);
    }
}


/* ------------------------------------------------------------ main */

static void
usage(void)
{
    fprintf(stderr, "usage: gen-mainnet [--stacks N] [--rune-txs N] "
            "[--runes N] [--addresses N] [--max-events N] [--seed S] "
            "[--fixtures DIR] [--paths-dir DIR] [--paths N]\n");
    exit(2);
}


static uint64_t
number(const char *name, const char *s)
{
    char               *end;
    unsigned long long  v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-') {
        fprintf(stderr, "gen-mainnet: %s must be a number, not \"%s\"\n",
                name, s);
        exit(2);
    }

    return v;
}


static void
options(gm_conf_t *c, int argc, char **argv)
{
    static const struct option  longs[] = {
        { "stacks", 1, NULL, 's' }, { "rune-txs", 1, NULL, 'r' },
        { "runes", 1, NULL, 'R' }, { "addresses", 1, NULL, 'a' },
        { "max-events", 1, NULL, 'e' }, { "seed", 1, NULL, 'S' },
        { "fixtures", 1, NULL, 'f' }, { "paths-dir", 1, NULL, 'p' },
        { "paths", 1, NULL, 'n' }, { NULL, 0, NULL, 0 }
    };
    int  o;

    c->stacks = 10000000;
    c->rune_txs = 2000000;
    c->runes = 0;
    c->addresses = 0;
    c->max_events = 330000;
    c->seed = "chaindata-mainnet-1";
    c->fixtures = "t/fixtures";
    c->paths_dir = NULL;
    c->paths = 20000;

    while ((o = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (o) {
        case 's': c->stacks = number("--stacks", optarg); break;
        case 'r': c->rune_txs = number("--rune-txs", optarg); break;
        case 'R': c->runes = number("--runes", optarg); break;
        case 'a': c->addresses = number("--addresses", optarg); break;
        case 'e': c->max_events = number("--max-events", optarg); break;
        case 'S': c->seed = optarg; break;
        case 'f': c->fixtures = optarg; break;
        case 'p': c->paths_dir = optarg; break;
        case 'n': c->paths = number("--paths", optarg); break;
        default: usage();
        }
    }
    if (optind != argc) {
        usage();
    }
    if (c->runes == 0) {
        c->runes = 100000;
    }
    if (c->addresses == 0) {
        c->addresses = c->rune_txs < 1000 ? 1000 : c->rune_txs;
    }
    if (c->max_events < 1) {
        fprintf(stderr, "gen-mainnet: --max-events must be at least 1\n");
        exit(2);
    }
}


static void
sample_init(gm_sample_t *s, const gm_conf_t *c, uint64_t what)
{
    s->cap = c->paths_dir ? c->paths : 0;
    s->seen = 0;
    s->rng = gm_stream(c->seed, 1000 + what, 0);
    s->paths = s->cap ? calloc(s->cap, sizeof(char *)) : NULL;
    if (s->cap && s->paths == NULL) {
        fprintf(stderr, "gen-mainnet: out of memory\n");
        exit(1);
    }
}


int
main(int argc, char **argv)
{
    gm_conf_t   c;
    gm_stats_t  st;

    options(&c, argc, argv);
    memset(&st, 0, sizeof(st));
    sample_init(&st.tx, &c, 0);
    sample_init(&st.activity, &c, 1);
    sample_init(&st.balances, &c, 2);

    gm_stacks(&c, &st);
    gm_runes(&c, &st);
    gm_flush();
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "gen-mainnet: write: %s\n", strerror(errno));
        return 1;
    }

    if (c.paths_dir) {
        if (mkdir(c.paths_dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "gen-mainnet: %s: %s\n", c.paths_dir,
                    strerror(errno));
            return 1;
        }
        write_paths(c.paths_dir, "tx.paths", &st.tx, "/extended/v1/tx/",
                    "");
        write_paths(c.paths_dir, "tx-v3.paths", &st.tx,
                    "/extended/v3/transactions/", "");
        write_paths(c.paths_dir, "activity.paths", &st.activity,
                    "/runes/v1/transactions/", "/activity");
        write_paths(c.paths_dir, "balances.paths", &st.balances,
                    "/runes/v1/addresses/", "/balances");
    }

    fprintf(stderr, "gen-mainnet: bytes %llu records %llu stacks %llu "
            "events %llu max_events %llu v3 %llu rune_txs %llu "
            "activity_entries %llu addresses %llu balance_entries %llu "
            "runes %llu\n",
            (unsigned long long) gm_out.total,
            (unsigned long long) (st.stacks + st.rune_txs + st.addresses),
            (unsigned long long) st.stacks, (unsigned long long) st.events,
            (unsigned long long) st.max_events,
            (unsigned long long) st.v3,
            (unsigned long long) st.rune_txs,
            (unsigned long long) st.activity_entries,
            (unsigned long long) st.addresses,
            (unsigned long long) st.balance_entries,
            (unsigned long long) c.runes);

    return 0;
}
