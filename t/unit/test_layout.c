
/*
 * Unit tests: the key and value layouts: the tx and list headers, the digest
 * (chaindata_layout.h, chaindata_digest.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_digest.h"
#include "chaindata_hex.h"
#include "chaindata_layout.h"
#include "chaindata_piece.h"
#include "unit.h"


void
test_digest(void)
{
    unsigned char       sha[CHAINDATA_SHA256_LEN], hex[65];
    chaindata_digest_t  d;

    chaindata_digest_init(&d);
    chaindata_digest_add(&d, (const unsigned char *) "a", 1);
    chaindata_digest_add(&d, (const unsigned char *) "bc", 2);
    chaindata_digest_final(&d, sha);
    *chaindata_hex_encode(hex, sha, sizeof(sha)) = '\0';
    ok(strcmp((char *) hex, "b4c620724d95022be9765d6f660a36f9"
                            "0835acab2437b5e8cd71812940b29346") == 0,
       "digest: pieces joined by newlines");

    chaindata_digest_init(&d);
    chaindata_digest_final(&d, sha);
    ok(memcmp(sha, CHAINDATA_EMPTY_DIGEST, CHAINDATA_DIGEST_LEN) == 0,
       "digest of no pieces: the empty list's");
}


/* pieces of "0123456789" cut at the offsets given, at buf + n: the end */

static size_t
make_pieces(unsigned char *buf, size_t n, const size_t *cuts, size_t ncuts)
{
    size_t                 i, from;
    chaindata_deflater_t  *d;

    d = chaindata_deflater_create(1);
    from = 0;

    for (i = 0; i < ncuts; i++) {
        n += chaindata_piece_make(d, (const unsigned char *) "0123456789"
                                     + from, cuts[i] - from, buf + n);
        from = cuts[i];
    }

    chaindata_deflater_destroy(d);

    return n;
}


/* a tx value of pieces of "0123456789" cut at the offsets given */

static size_t
make_txh(unsigned char *buf, chaindata_txh_t *h, const size_t *cuts,
    size_t ncuts)
{
    chaindata_txh_encode(buf, h);

    return make_pieces(buf, CHAINDATA_TXH_SIZE, cuts, ncuts);
}


void
test_txh(void)
{
    size_t           n;
    unsigned char    buf[CHAINDATA_TXH_SIZE + 4 * 100];
    chaindata_txh_t  h, d;
    static const size_t  cuts[] = { 5, 6, 10 };
    static const size_t  cut7[] = { 5, 6, 7, 10 };

    memset(&h, 0, sizeof(h));
    h.flags = CHAINDATA_TXH_EVENTS | CHAINDATA_TXH_FARGS;
    h.event_count = 3;
    h.events_at = 5;
    h.fargs_start = 6;
    h.fargs_len = 4;
    memset(h.digest, 0xab, sizeof(h.digest));

    n = make_txh(buf, &h, cuts, 3);

    ok(chaindata_txh_decode(&d, buf, n) == 0
       && d.event_count == 3 && d.events_at == 5 && d.fargs_start == 6
       && d.fargs_len == 4 && d.doc_len == 10 && d.npieces == 3
       && d.at[1] == 5 && d.at[2] == 6 && d.piece[2].plain_len == 4
       && memcmp(d.digest, h.digest, sizeof(h.digest)) == 0,
       "tx header round trip, three pieces");

    h.fargs_len = 5;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "function_args span past the document refused");

    h.fargs_len = 3;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "function_args span that cuts a piece refused");

    h.fargs_len = 4;
    h.events_at = 11;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "events offset past the document refused");

    h.flags = CHAINDATA_TXH_FARGS;
    h.event_count = 0;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "events offset past the document refused without events too");

    h.flags = CHAINDATA_TXH_EVENTS | CHAINDATA_TXH_FARGS;
    h.event_count = 3;
    h.events_at = 7;
    n = make_txh(buf, &h, cut7, 4);
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "events offset inside function_args refused");

    h.events_at = 5;
    n = make_txh(buf, &h, cuts, 3);
    ok(chaindata_txh_decode(&d, buf, n - 1) != 0,
       "a cut piece refused");

    /* the first chunk inline: the value's last bytes, their length */
    memcpy(buf + n, "CHUNK", 5);
    h.flags |= CHAINDATA_TXH_CHUNK0;
    h.chunk0_len = 5;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) == 0 && d.chunk0 == buf + n
       && d.chunk0_len == 5 && d.npieces == 3 && d.doc_len == 10,
       "tx header with its first chunk inline");
    ok(chaindata_txh_decode(&d, buf, n + 4) != 0,
       "an inline chunk that eats a piece refused");
    h.chunk0_len = n + 6 - CHAINDATA_TXH_SIZE;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) != 0,
       "an inline chunk longer than the value refused");
    h.chunk0_len = 0;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) != 0,
       "the inline flag without a length refused");
    h.flags &= ~CHAINDATA_TXH_CHUNK0;
    h.chunk0_len = 5;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) != 0,
       "a length without the inline flag refused");
    h.flags = CHAINDATA_TXH_FARGS | CHAINDATA_TXH_CHUNK0;
    h.event_count = 0;
    h.events_at = 0;
    chaindata_txh_encode(buf, &h);
    ok(chaindata_txh_decode(&d, buf, n + 5) != 0,
       "an inline chunk without events refused");
    h.flags = CHAINDATA_TXH_EVENTS | CHAINDATA_TXH_FARGS;
    h.event_count = 3;
    h.events_at = 5;
    h.chunk0_len = 0;
    chaindata_txh_encode(buf, &h);

    buf[0] = 1;
    ok(chaindata_txh_decode(&d, buf, n) != 0,
       "unknown format (schema 2's) refused");
    ok(chaindata_txh_decode(&d, buf, 10) != 0, "short value");
}


/* a list header, with its first chunk inline and without, and hostile */

void
test_listh(void)
{
    unsigned char      buf[CHAINDATA_LISTH_SIZE + 8];
    chaindata_listh_t  h, d;

    memset(&h, 0, sizeof(h));
    h.count = 21;
    memset(h.digest, 0xcd, sizeof(h.digest));

    chaindata_listh_encode(buf, &h);
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE) == 0
       && d.count == 21 && d.chunk0 == NULL && d.chunk0_len == 0,
       "list header without its first chunk");
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 3) != 0,
       "bytes after a header without the flag refused");

    h.chunk0_len = 3;
    chaindata_listh_encode(buf, &h);
    memcpy(buf + CHAINDATA_LISTH_SIZE, "abc", 3);
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 3) == 0
       && d.chunk0 == buf + CHAINDATA_LISTH_SIZE && d.chunk0_len == 3
       && d.count == 21 && buf[1] == CHAINDATA_LISTH_CHUNK0,
       "list header with its first chunk inline");
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 2) != 0
       && chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 4) != 0,
       "an inline chunk of another length refused");

    buf[1] = 0;
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 3) != 0,
       "a length without the flag refused");

    buf[1] = CHAINDATA_LISTH_CHUNK0;
    buf[2] = 0;
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE) != 0,
       "the flag without a length refused");

    buf[1] = 0x02;
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE) != 0,
       "an unknown flag refused");

    h.count = 0;
    chaindata_listh_encode(buf, &h);
    ok(chaindata_listh_decode(&d, buf, CHAINDATA_LISTH_SIZE + 3) != 0,
       "an inline chunk of an empty list refused");
}


/* a tx_v3 value of pieces of "0123456789" cut at the offsets given */

static size_t
make_tx3h(unsigned char *buf, chaindata_tx3h_t *h, const size_t *cuts,
    size_t ncuts)
{
    chaindata_tx3h_encode(buf, h);

    return make_pieces(buf, CHAINDATA_TX3H_SIZE, cuts, ncuts);
}


void
test_tx3h(void)
{
    size_t            n;
    unsigned char     buf[CHAINDATA_TX3H_SIZE + 4 * 100];
    chaindata_tx3h_t  h, d;
    static const size_t  cuts[] = { 3, 5, 8, 10 };

    memset(&h, 0, sizeof(h));
    h.flags = CHAINDATA_TX3H_EVENTS;
    h.event_count = 2;
    h.part_at[CHAINDATA_TX3_POST_CONDITIONS] = 3;
    h.part_len[CHAINDATA_TX3_POST_CONDITIONS] = 2;
    h.part_at[CHAINDATA_TX3_RESULT] = 5;
    h.part_len[CHAINDATA_TX3_RESULT] = 3;
    memset(h.digest, 0xcd, sizeof(h.digest));

    n = make_tx3h(buf, &h, cuts, 4);

    ok(chaindata_tx3h_decode(&d, buf, n) == 0
       && d.event_count == 2 && d.doc_len == 10 && d.npieces == 4
       && d.part_at[CHAINDATA_TX3_RESULT] == 5
       && d.part_len[CHAINDATA_TX3_POST_CONDITIONS] == 2
       && memcmp(d.digest, h.digest, sizeof(h.digest)) == 0,
       "tx_v3 header round trip, four pieces");

    ok(!chaindata_tx3h_left_out(&d, 0, 0)
       && chaindata_tx3h_left_out(&d, 1, 0)
       && chaindata_tx3h_left_out(&d, 2, 0)
       && !chaindata_tx3h_left_out(&d, 3, 0)
       && !chaindata_tx3h_left_out(&d, 1,
                                   1u << CHAINDATA_TX3_POST_CONDITIONS)
       && chaindata_tx3h_left_out(&d, 2,
                                  1u << CHAINDATA_TX3_POST_CONDITIONS),
       "tx_v3: the pieces of the parts an include set leaves out");

    h.part_len[CHAINDATA_TX3_RESULT] = 4;
    n = make_tx3h(buf, &h, cuts, 4);
    ok(chaindata_tx3h_decode(&d, buf, n) != 0,
       "tx_v3: a part that cuts a piece refused");

    h.part_len[CHAINDATA_TX3_RESULT] = 6;
    n = make_tx3h(buf, &h, cuts, 4);
    ok(chaindata_tx3h_decode(&d, buf, n) != 0,
       "tx_v3: a part past the document refused");

    h.part_len[CHAINDATA_TX3_RESULT] = 3;
    n = make_tx3h(buf, &h, cuts, 4);
    ok(chaindata_tx3h_decode(&d, buf, n - 1) != 0,
       "tx_v3: a value cut short refused");

    h.flags = CHAINDATA_TX3H_GONE;
    h.event_count = 0;
    ok(chaindata_tx3h_decode(&d, buf, make_tx3h(buf, &h, cuts, 4)) != 0,
       "tx_v3: a document where there is none refused");
    n = make_tx3h(buf, &h, cuts, 0);
    ok(chaindata_tx3h_decode(&d, buf, n) != 0,
       "tx_v3: parts in no document refused");
    memset(h.part_len, 0, sizeof(h.part_len));
    n = make_tx3h(buf, &h, cuts, 0);
    ok(chaindata_tx3h_decode(&d, buf, n) == 0 && d.doc_len == 0,
       "tx_v3: a transaction v3 does not serve, no document");

    buf[0] = 9;
    ok(chaindata_tx3h_decode(&d, buf, n) != 0,
       "tx_v3: another format refused");
}
