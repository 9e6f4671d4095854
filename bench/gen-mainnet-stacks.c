
/*
 * bench/gen-mainnet: Stacks transactions ("tx" records) from the fixtures'
 * documents (gen-mainnet.c says what and why).
 *
 * Each document of FIXTURES/tx*.ndjson is compiled once into pieces: its
 * text as it is, and slots where a value is made anew per transaction
 * (the id, nonce, block, index, events, and every other hash, address,
 * amount and Clarity value as random characters of the same length);
 * the events of every document become event templates by their type.
 * A transaction is then its template's pieces written in turn.
 */


#define _GNU_SOURCE

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-mainnet.h"


enum {
    OP_LIT, OP_HEX, OP_C32, OP_DIGITS, OP_TXID, OP_NONCE, OP_HEIGHT,
    OP_TXINDEX, OP_EVCOUNT, OP_EVENTS, OP_BLOCK, OP_PARENT, OP_EVINDEX,
    OP_V3
};

/* the kinds of the mix, and their weights (an estimate of mainnet's) */
enum {
    K_CALL, K_TRANSFER, K_SMART, K_COINBASE, K_TENURE, K_ABORT, K_MEMPOOL,
    K_N
};

static const unsigned  kind_weight[K_N] = { 62, 20, 2, 1, 2, 7, 6 };

/* event types and their weights: prints, fungible tokens, STX, NFTs */
static const char     *event_type[] = {
    "smart_contract_log", "fungible_token_asset", "stx_asset",
    "non_fungible_token_asset", "stx_lock"
};
static const unsigned  event_weight[] = { 35, 30, 20, 12, 3 };

#define E_N         (sizeof(event_type) / sizeof(event_type[0]))
#define E_STX       2
#define MAX_TMPL    4096

#define F_PENDING   0x01
#define F_DROPPED   0x02

typedef struct {
    int          op;
    const char  *p;
    size_t       len;
} piece_t;

typedef struct {
    piece_t     *pc;
    size_t       n;
    size_t       cap;
    int          flags;
} tmpl_t;

typedef struct {
    tmpl_t    *t[MAX_TMPL];
    size_t     n;
} tmpl_set_t;

/* the transaction being written */
typedef struct {
    gm_rng_t    rng;
    char        id[66];
    uint64_t    height;
    uint64_t    tx_index;
    uint64_t    events;
    uint64_t    tip;
    char        block[66];
    char        parent[66];
    char        index_block[66];
    char        index_parent[66];
} tx_t;

static tmpl_set_t  kinds[K_N];
static tmpl_set_t  events[E_N];

static const char  c32[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";


static void *
grow(void *p, size_t n)
{
    p = realloc(p, n);
    if (p == NULL) {
        fprintf(stderr, "gen-mainnet: out of memory\n");
        exit(1);
    }

    return p;
}


static void
push(tmpl_t *t, int op, const char *p, size_t len)
{
    if (op == OP_LIT && len == 0) {
        return;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->pc = grow(t->pc, t->cap * sizeof(piece_t));
    }
    t->pc[t->n].op = op;
    t->pc[t->n].p = p;
    t->pc[t->n].len = len;
    t->n++;
}


/* the end of the JSON value at p: a string, an object or an array */
static const char *
value_end(const char *p, const char *end)
{
    int  depth = 0;

    if (*p == '"') {
        for (p++; p < end && *p != '"'; p++) {
            if (*p == '\\') {
                p++;
            }
        }
        return p + 1;
    }
    for (; p < end; p++) {
        if (*p == '"') {
            p = value_end(p, end) - 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if ((*p == '}' || *p == ']') && --depth == 0) {
            return p + 1;
        }
    }

    return end;
}


static size_t
span(const char *p, const char *end, const char *set)
{
    const char  *s = p;

    while (s < end && *s && strchr(set, *s)) {
        s++;
    }

    return s - p;
}


static int
starts(const char *p, const char *end, const char *s)
{
    size_t  n = strlen(s);

    return (size_t) (end - p) >= n && memcmp(p, s, n) == 0;
}


static void compile(tmpl_t *t, const char *p, const char *end, int mined);


static void
add_events(const char *p, const char *end)
{
    const char  *e;
    tmpl_t      *t;
    size_t       i;

    for (p++; p < end && *p == '{'; p = e + (*e == ',')) {
        e = value_end(p, end);
        for (i = 0; i < E_N; i++) {
            char  key[64];

            snprintf(key, sizeof(key), "\"event_type\":\"%s\"",
                     event_type[i]);
            if (memmem(p, e - p, key, strlen(key)) != NULL) {
                break;
            }
        }
        if (i < E_N && events[i].n < MAX_TMPL) {
            t = grow(NULL, sizeof(tmpl_t));
            memset(t, 0, sizeof(tmpl_t));
            compile(t, p, e, 0);
            events[i].t[events[i].n++] = t;
        }
    }
}


/* a key whose value is a number: its digits become the slot op */
static const char *
number_slot(tmpl_t *t, const char **lit, const char *p, const char *end,
    const char *key, int op)
{
    size_t  k = strlen(key), d;

    if (!starts(p, end, key)) {
        return NULL;
    }
    d = span(p + k, end, "0123456789");
    if (d == 0) {
        return NULL;
    }
    push(t, OP_LIT, *lit, p + k - *lit);
    push(t, op, NULL, 0);
    *lit = p + k + d;

    return *lit;
}


/* a key whose value is "0x" and 64 hex digits */
static const char *
hash_slot(tmpl_t *t, const char **lit, const char *p, const char *end,
    const char *key, int op)
{
    size_t  k = strlen(key);

    if (!starts(p, end, key)
        || span(p + k, end, "0123456789abcdef") != 64)
    {
        return NULL;
    }
    push(t, OP_LIT, *lit, p + k - 2 - *lit);
    push(t, op, NULL, 0);
    *lit = p + k + 64;

    return *lit;
}


/* random characters of the same kind in place of n of them at p */
static const char *
random_slot(tmpl_t *t, const char **lit, const char *p, size_t keep,
    size_t n, int op)
{
    push(t, OP_LIT, *lit, p + keep - *lit);
    push(t, op, NULL, n);
    *lit = p + keep + n;

    return *lit;
}


static const char *
amount_slot(tmpl_t *t, const char **lit, const char *p, const char *end)
{
    static const char  *keys[] = {
        "\"amount\":\"", "\"locked_amount\":\"", "\"fee_rate\":\""
    };
    size_t               i, k, d;

    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        k = strlen(keys[i]);
        if (starts(p, end, keys[i])) {
            d = span(p + k, end, "0123456789");
            if (d > 0 && p[k + d] == '"') {
                return random_slot(t, lit, p, k, d, OP_DIGITS);
            }
        }
    }

    return NULL;
}


/* hex runs, principals, uints in a repr: gen-dataset.pl --random's */
static const char *
anew_slot(tmpl_t *t, const char **lit, const char *p, const char *end)
{
    size_t  n;

    if (starts(p, end, "0x")) {
        n = span(p + 2, end, "0123456789abcdef");
        return n >= 6 ? random_slot(t, lit, p, 2, n, OP_HEX) : NULL;
    }
    if (p[0] == 'S' && p + 1 < end && strchr("PMTN", p[1])
        && !isalnum((unsigned char) p[-1]))
    {
        n = span(p + 2, end, c32 + 0);
        if (n >= 26 && n <= 39 && !isalnum((unsigned char) p[2 + n])
            && strspn(p + 2, "0") < 10)
        {
            return random_slot(t, lit, p, 2, n, OP_C32);
        }
        return NULL;
    }
    if ((p[0] == ' ' || p[0] == '(') && p + 1 < end && p[1] == 'u') {
        n = span(p + 2, end, "0123456789");
        if (n >= 2 && !isalnum((unsigned char) p[2 + n])) {
            return random_slot(t, lit, p, 2, n, OP_DIGITS);
        }
    }

    return NULL;
}


static const char *
mined_slot(tmpl_t *t, const char **lit, const char *p, const char *end)
{
    const char  *q;

    if ((q = number_slot(t, lit, p, end, "\"block_height\":", OP_HEIGHT))
        || (q = number_slot(t, lit, p, end, "\"tx_index\":", OP_TXINDEX))
        || (q = number_slot(t, lit, p, end, "\"event_count\":",
                            OP_EVCOUNT))
        || (q = hash_slot(t, lit, p, end, "\"block_hash\":\"0x",
                          OP_BLOCK))
        || (q = hash_slot(t, lit, p, end, "\"parent_block_hash\":\"0x",
                          OP_PARENT)))
    {
        return q;
    }
    if (starts(p, end, "\"events\":[")) {
        q = value_end(p + 9, end);
        add_events(p + 9, q);
        push(t, OP_LIT, *lit, p + 9 - *lit);
        push(t, OP_EVENTS, NULL, 0);
        *lit = q;
        return q;
    }

    return NULL;
}


/* the text p … end as pieces and slots (mined: a transaction in a block) */
static void
compile(tmpl_t *t, const char *p, const char *end, int mined)
{
    const char  *lit = p, *q;

    while (p < end) {
        if ((q = hash_slot(t, &lit, p, end, "\"tx_id\":\"0x", OP_TXID))
            || (q = number_slot(t, &lit, p, end, "\"nonce\":", OP_NONCE))
            || (q = number_slot(t, &lit, p, end, "\"event_index\":",
                                OP_EVINDEX))
            || (mined && (q = mined_slot(t, &lit, p, end)))
            || (q = amount_slot(t, &lit, p, end))
            || (q = anew_slot(t, &lit, p, end)))
        {
            p = q;
            continue;
        }
        if (*p == '"') {
            /* a string's text stays but for what a slot above matched */
            p++;
            continue;
        }
        p++;
    }
    push(t, OP_LIT, lit, end - lit);
}


static int
kind_of(const char *d, size_t len, int *flags)
{
    static const char  *types[] = {
        "contract_call", "token_transfer", "smart_contract", "coinbase",
        "tenure_change"
    };
    char                key[64];
    size_t              i;

    *flags = 0;
    if (memmem(d, len, "\"events\":", 9) == NULL) {
        if (memmem(d, len, "\"tx_status\":\"pending\"", 21) != NULL) {
            *flags = F_PENDING;
        } else {
            *flags = F_DROPPED;
        }
        return K_MEMPOOL;
    }
    if (memmem(d, len, "\"tx_status\":\"success\"", 21) == NULL) {
        return K_ABORT;
    }
    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        snprintf(key, sizeof(key), "\"tx_type\":\"%s\"", types[i]);
        if (memmem(d, len, key, strlen(key)) != NULL) {
            return i;
        }
    }

    return -1;
}


static void
add_template(char *line, size_t len)
{
    static const char  head[] = "{\"kind\":\"tx\",\"data\":{";
    const char        *d, *end;
    tmpl_t            *t;
    int                k, flags;

    while (len > 0 && isspace((unsigned char) line[len - 1])) {
        len--;
    }
    if (len < sizeof(head) + 1 || memcmp(line, head, sizeof(head) - 1) != 0
        || line[len - 1] != '}')
    {
        return;
    }
    d = line + sizeof(head) - 2;
    end = line + len - 1;
    k = kind_of(d, end - d, &flags);
    if (k < 0 || kinds[k].n == MAX_TMPL) {
        return;
    }
    t = grow(NULL, sizeof(tmpl_t));
    memset(t, 0, sizeof(tmpl_t));
    t->flags = flags;
    /* the data object, then what v3 needs beside it in the record */
    compile(t, d, end, k != K_MEMPOOL);
    push(t, OP_V3, NULL, 0);
    kinds[k].t[kinds[k].n++] = t;
}


static char *
read_file(const char *name, size_t *len)
{
    FILE  *f = fopen(name, "r");
    char  *s = NULL;
    size_t cap = 0, n = 0, r;

    if (f == NULL) {
        fprintf(stderr, "gen-mainnet: %s: %s\n", name, strerror(errno));
        exit(1);
    }
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            s = grow(s, cap + 1);
        }
        r = fread(s + n, 1, cap - n, f);
        n += r;
    } while (r > 0);
    fclose(f);
    s[n] = '\0';
    *len = n;

    return s;
}


static void
load_templates(const char *dir)
{
    char     pattern[4096], *text, *line, *nl;
    glob_t   g;
    size_t   i, len;

    snprintf(pattern, sizeof(pattern), "%s/tx*.ndjson", dir);
    if (glob(pattern, 0, NULL, &g) != 0) {
        fprintf(stderr, "gen-mainnet: no %s\n", pattern);
        exit(1);
    }
    for (i = 0; i < g.gl_pathc; i++) {
        /* kept: the templates point into the text */
        text = read_file(g.gl_pathv[i], &len);
        for (line = text; line < text + len; line = nl + 1) {
            nl = memchr(line, '\n', text + len - line);
            if (nl == NULL) {
                nl = text + len;
            }
            add_template(line, nl - line);
        }
    }
    globfree(&g);
    if (kinds[K_CALL].n == 0 || events[E_STX].n == 0) {
        fprintf(stderr, "gen-mainnet: %s holds no contract call or no "
                "stx_asset event to make transactions of\n", pattern);
        exit(1);
    }
}


/* ------------------------------------------------------------ writing */

static void
write_pieces(const tmpl_t *t, tx_t *x, const gm_conf_t *c, int kind,
    uint64_t ev_index);


static unsigned
pick_weighted(gm_rng_t *r, const unsigned *w, size_t n,
    const tmpl_set_t *have)
{
    unsigned  total = 0, v;
    size_t    i;

    for (i = 0; i < n; i++) {
        total += have[i].n ? w[i] : 0;
    }
    v = gm_below(r, total);
    for (i = 0; i < n; i++) {
        if (have[i].n && v < w[i]) {
            return i;
        }
        v -= have[i].n ? w[i] : 0;
    }

    return 0;
}


static const tmpl_t *
pick(gm_rng_t *r, const tmpl_set_t *set)
{
    return set->t[gm_below(r, set->n)];
}


/* events of a contract call: most few, some tens, a few in a thousand
 * hundreds or thousands (a mean near 6) */
static uint64_t
event_count(gm_rng_t *r, int kind, const gm_conf_t *c)
{
    uint64_t  v, max = c->max_events;

    if (kind == K_TRANSFER) {
        return 1;
    }
    if (kind != K_CALL && kind != K_SMART) {
        return 0;
    }
    v = gm_below(r, 1000000);
    v = v < 650000 ? gm_range(r, 0, 2)
        : v < 920000 ? gm_range(r, 3, 8)
        : v < 990000 ? gm_range(r, 9, 30)
        : v < 999000 ? gm_logrange(r, 31, 300)
        : v < 999998 ? gm_logrange(r, 301, 3000)
        : gm_logrange(r, 3001, max > 3001 ? max : 3001);

    return v < max ? v : max;
}


static void
write_events(tx_t *x, const gm_conf_t *c, int kind)
{
    uint64_t       e;
    unsigned       type;

    gm_str("[");
    for (e = 0; e < x->events; e++) {
        type = kind == K_TRANSFER ? E_STX
               : pick_weighted(&x->rng, event_weight, E_N, events);
        if (e > 0) {
            gm_str(",");
        }
        write_pieces(pick(&x->rng, &events[type]), x, c, kind, e);
    }
    gm_str("]");
}


static void
write_v3(const tmpl_t *t, tx_t *x)
{
    if (t->flags & F_DROPPED) {
        return;
    }
    if (t->flags & F_PENDING) {
        gm_str(",\"receipt_block_height\":");
        gm_u64(x->tip);
        return;
    }
    gm_str(",\"index_block_hash\":\"");
    gm_put(x->index_block, 66);
    gm_str("\",\"parent_index_block_hash\":\"");
    gm_put(x->index_parent, 66);
    gm_str("\"");
}


static void
write_pieces(const tmpl_t *t, tx_t *x, const gm_conf_t *c, int kind,
    uint64_t ev_index)
{
    const piece_t  *pc;
    size_t          i;

    for (i = 0; i < t->n; i++) {
        pc = &t->pc[i];
        switch (pc->op) {
        case OP_LIT: gm_put(pc->p, pc->len); break;
        case OP_HEX: gm_hex(&x->rng, pc->len); break;
        case OP_C32: gm_chars(&x->rng, c32, 5, pc->len); break;
        case OP_DIGITS: gm_digits(&x->rng, pc->len); break;
        case OP_TXID: gm_put(x->id, 66); break;
        case OP_NONCE: gm_u64(gm_below(&x->rng, 200000)); break;
        case OP_HEIGHT: gm_u64(x->height); break;
        case OP_TXINDEX: gm_u64(x->tx_index); break;
        case OP_EVCOUNT: gm_u64(x->events); break;
        case OP_EVENTS: write_events(x, c, kind); break;
        case OP_BLOCK: gm_put(x->block, 66); break;
        case OP_PARENT: gm_put(x->parent, 66); break;
        case OP_EVINDEX: gm_u64(ev_index); break;
        case OP_V3: write_v3(t, x); break;
        }
    }
}


static void
hash_text(gm_rng_t *r, char *to)
{
    static const char  hex[] = "0123456789abcdef";
    uint64_t           v = 0;
    size_t             i;

    to[0] = '0';
    to[1] = 'x';
    for (i = 0; i < 64; i++) {
        if (i % 16 == 0) {
            v = gm_rand(r);
        }
        to[2 + i] = hex[v & 15];
        v >>= 4;
    }
}


/* the next Nakamoto block: 1 to 60 transactions, most near 20 */
static uint64_t
next_block(tx_t *x, gm_rng_t *blocks)
{
    memcpy(x->parent, x->block, 66);
    memcpy(x->index_parent, x->index_block, 66);
    hash_text(blocks, x->block);
    hash_text(blocks, x->index_block);
    x->height++;
    x->tip = x->height;
    x->tx_index = 0;

    return 1 + gm_skewed(blocks, 60, 2);
}


void
gm_stacks(const gm_conf_t *c, gm_stats_t *st)
{
    gm_rng_t        mix, blocks;
    tx_t            x;
    const tmpl_t   *t;
    uint64_t        i, left = 0;
    int             kind;

    if (c->stacks == 0) {
        return;
    }
    load_templates(c->fixtures);
    mix = gm_stream(c->seed, 1, 0);
    blocks = gm_stream(c->seed, 2, 0);
    memset(&x, 0, sizeof(x));
    x.height = 150000;
    hash_text(&blocks, x.block);
    hash_text(&blocks, x.index_block);

    for (i = 0; i < c->stacks; i++) {
        kind = i == 0 ? (kinds[K_SMART].n ? K_SMART : K_CALL)
               : (int) pick_weighted(&mix, kind_weight, K_N, kinds);
        x.rng = gm_stream(c->seed, 3, i);
        hash_text(&x.rng, x.id);
        x.events = i == 0 ? c->max_events : event_count(&x.rng, kind, c);
        if (kind != K_MEMPOOL) {
            if (left == 0) {
                left = next_block(&x, &blocks);
            }
            left--;
        }
        t = pick(&x.rng, &kinds[kind]);
        gm_str("{\"kind\":\"tx\",\"data\":");
        write_pieces(t, &x, c, kind, 0);
        gm_str("}\n");

        if (kind != K_MEMPOOL) {
            x.tx_index++;
            st->events += x.events;
            st->max_events = x.events > st->max_events ? x.events
                                                       : st->max_events;
            gm_sample(&st->tx, x.id, 66);
        }
        st->v3 += !(t->flags & F_DROPPED);
        st->stacks++;
    }
}
