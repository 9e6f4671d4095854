
/*
 * libFuzzer target: the mirror's checks of upstream's answers, each of
 * which validates a body and takes what its caller uses from it (the
 * first byte picks the answer, the rest is the body): the pages of the
 * Runes API's lists (activity counted, balances not; block, transaction
 * and balance entries), the Stacks tip, a block, a page of a block's
 * transactions, a page of a transaction's events, a transaction's v3
 * document (the chain's first block's), a mempool page, a page of the v3
 * mempool listing (and the heights and cursor taken from
 * it), a transaction that left the mempool, the Runes status, a
 * chainhook status.  Whatever the body claims (totals, counts, offsets near 2^64),
 * a check either takes it or refuses it with a reason; it never writes
 * past what it was given.  The mirror's files are compiled in whole, so
 * that the static checks are what runs: the Makefile puts every source
 * of src/mirror/ but the main before this one (clang's -include), from
 * the list it builds the mirror with, so no list here keeps in step.
 */


#include "chaindata_mirror.h"
#include "chaindata_mirror_stacks.h"


static void
fuzz_page(chaindata_req_t *r, uint8_t how)
{
    chaindata_plist_t  l;

    memset(&l, 0, sizeof(l));
    l.limit = (how & 0x40) ? 60 : 17;
    l.counted = !(how & 0x20);
    l.height = 840000;
    memcpy(l.id, "0000000000000000000000000000000000000000000000000000000000"
           "000000", 64);

    switch (how & 3) {
    case 0:
        l.entry = chaindata_block_entry;
        break;
    case 1:
        l.entry = chaindata_tx_entry;
        break;
    default:
        l.entry = chaindata_balance_entry;
        break;
    }

    r->ctx = &l;
    r->arg = (how & 0x10) ? l.limit : 0;
    r->check = chaindata_page_check;

    if (r->check(r) == 0 && r->list->n > l.limit) {
        abort();
    }
}


static void
fuzz_stacks(chaindata_req_t *r, uint8_t how)
{
    uint64_t            tip_time;
    chaindata_sblock_t  b;
    chaindata_stx_t     t;

    memset(&b, 0, sizeof(b));
    memset(&t, 0, sizeof(t));

    switch (how & 3) {

    case 0:
        r->ctx = &tip_time;
        r->check = chaindata_stacks_check_tip;
        (void) r->check(r);
        return;

    case 1:
        if (how & 4) {
            /* the chain's first block: a transaction's v3 document */
            memcpy(t.tx_id, "0x0000000000000000000000000000000000000000000"
                   "000000000000000000000", 66);
            r->ctx = &t;
            r->check = chaindata_stacks_check_v3;
            (void) r->check(r);
            return;
        }

        r->ctx = &b;
        r->arg = 1000;
        r->check = chaindata_stacks_check_block;
        (void) r->check(r);
        return;

    case 2:
        /* the first page sizes the list; again with a place for its ids */
        r->ctx = &b;
        r->arg = 0;
        r->check = chaindata_stacks_check_txs;

        if (r->check(r) != 0) {
            return;
        }

        b.txs = calloc(b.ntxs + 1, sizeof(chaindata_stx_t));
        if (b.txs) {
            (void) r->check(r);
            free(b.txs);
        }

        return;

    default:
        memcpy(t.tx_id, "0x00000000000000000000000000000000000000000000000000"
               "00000000000000", 66);
        r->ctx = &t;
        r->arg = (how & 0x10) ? 100 : 0;
        t.event_count = 250;
        r->check = chaindata_stacks_check_tx;
        (void) r->check(r);
        return;
    }
}


/* a page of the v3 mempool listing, and what the lookup takes from it */

static void
fuzz_mempool_v3(chaindata_req_t *r)
{
    char                next[101];
    size_t              left;
    chaindata_mp_new_t  news[2];

    memset(news, 0, sizeof(news));
    memset(news[1].id, 0xab, CHAINDATA_TXID_LEN);
    left = 2;

    if (chaindata_mempool_v3_check(r) == 0) {
        chaindata_mempool_v3_heights(r->root, news, 2, &left, next);
    }
}


static void
fuzz_other(chaindata_req_t *r, uint8_t how)
{
    static unsigned char  id[CHAINDATA_TXID_LEN];

    if (how & 4) {
        fuzz_mempool_v3(r);
        return;
    }

    switch (how & 3) {

    case 0:
        r->check = chaindata_mempool_check;
        break;

    case 1:
        r->ctx = id;
        r->check = chaindata_gone_check;
        break;

    case 2:
        r->check = chaindata_runes_check_status;
        break;

    default:
        r->check = chaindata_hook_check;
        break;
    }

    (void) r->check(r);
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t           how;
    chaindata_req_t  *r;

    if (size == 0) {
        return 0;
    }

    how = data[0];

    r = chaindata_req_new(NULL, "http://upstream/");
    if (r == NULL) {
        return 0;
    }

    r->body = malloc(size);
    if (r->body == NULL) {
        chaindata_req_free(r);
        return 0;
    }

    memcpy(r->body, data + 1, size - 1);
    r->len = size - 1;
    r->cap = size;
    r->status = 200;

    switch (how >> 6 & 3) {
    case 0:
    case 1:
        fuzz_page(r, how);
        break;
    case 2:
        fuzz_stacks(r, how);
        break;
    default:
        fuzz_other(r, how);
        break;
    }

    chaindata_req_free(r);

    return 0;
}
