
/*
 * Unit tests: ingest: the tx and rune records and the write set
 * (chaindata_record.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_chunks.h"
#include "chaindata_digest.h"
#include "chaindata_layout.h"
#include "chaindata_piece.h"
#include "chaindata_record.h"
#include "chaindata_schema.h"
#include "chaindata_runes_op.h"
#include "unit.h"


/* a write's value joined to the one before, and the limit it keeps */

void
test_writeset_join(void)
{
    int                   good;
    unsigned char        *v;
    chaindata_writeset_t  ws;

    memset(&ws, 0, sizeof(ws));

    v = chaindata_writeset_add(&ws, CHAINDATA_WRITE_PUT, CHAINDATA_DBI_TX,
                               (unsigned char *) "k1", 2, 3);
    memcpy(v, "abc", 3);
    v = chaindata_writeset_add(&ws, CHAINDATA_WRITE_PUT,
                               CHAINDATA_DBI_TX_EVENT,
                               (unsigned char *) "k2", 2, 2);
    memcpy(v, "de", 2);
    v = chaindata_writeset_add(&ws, CHAINDATA_WRITE_PUT,
                               CHAINDATA_DBI_TX_EVENT,
                               (unsigned char *) "k3", 2, 2);
    memcpy(v, "fg", 2);

    ok(chaindata_writeset_join(&ws, 0, 6) == 0 && ws.nwrites == 3,
       "join: over the limit, nothing moved");

    good = chaindata_writeset_join(&ws, 0, 7) == 2 && ws.nwrites == 2
           && ws.writes[0].val_len == 5
           && memcmp(ws.buf + ws.writes[0].val_off, "abcde", 5) == 0
           && ws.writes[1].key_len == 2
           && memcmp(ws.buf + ws.writes[1].key_off, "k3", 2) == 0
           && memcmp(ws.buf + ws.writes[1].val_off, "fg", 2) == 0
           && ws.len == 2 + 5 + 2 + 2;
    ok(good, "join: the next value moved, the writes after it shifted");

    ok(chaindata_writeset_join(&ws, 1, 100) == 0,
       "join: the last write has none after it");

    chaindata_writeset_free(&ws);
}


static const char  *tx_doc =
    "{\"kind\":\"tx\",\"data\":{\"tx_id\":\"0x%s\",\"nonce\":1,"
    "\"fee_rate\":\"1\",\"sender_address\":\"SP1\",\"sponsored\":false,"
    "\"post_condition_mode\":\"allow\",\"post_conditions\":[],"
    "\"anchor_mode\":\"any\",\"block_hash\":\"0x00\",\"block_height\":1,"
    "\"block_time\":1,\"block_time_iso\":\"x\",\"burn_block_time\":1,"
    "\"burn_block_height\":1,\"burn_block_time_iso\":\"x\","
    "\"parent_burn_block_time\":1,\"parent_burn_block_time_iso\":\"x\","
    "\"canonical\":true,\"tx_index\":0,\"tx_status\":\"success\","
    "\"tx_result\":{\"hex\":\"0x\",\"repr\":\"x\"},\"event_count\":%s,"
    "\"parent_block_hash\":\"0x00\",\"is_unanchored\":false,"
    "\"microblock_hash\":\"0x\",\"microblock_sequence\":0,"
    "\"microblock_canonical\":true,\"execution_cost_read_count\":0,"
    "\"execution_cost_read_length\":0,\"execution_cost_runtime\":0,"
    "\"execution_cost_write_count\":0,\"execution_cost_write_length\":0,"
    "\"vm_error\":null,\"events\":[%s],\"tx_type\":\"contract_call\","
    "\"contract_call\":{\"contract_id\":\"SP1.c\",\"function_name\":\"f\","
    "\"function_signature\":\"s\",\"function_args\":[]}}}";


static int
parse_tx(chaindata_record_t *rec, chaindata_writeset_t *ws,
    const char *id, const char *count, const char *events)
{
    char  line[4096];

    snprintf(line, sizeof(line), tx_doc, id, count, events);

    return chaindata_record_parse(rec, (unsigned char *) line,
                                  strlen(line), ws);
}


void
test_record_tx(void)
{
    char                 *doc;
    size_t                nwrites;
    size_t                used;
    chaindata_txh_t       h;
    chaindata_chunk_t     ec;
    chaindata_record_t    rec;
    chaindata_write_t    *w;
    chaindata_writeset_t  ws;
    chaindata_inflater_t *in;
    char                  plain[4096];
    const char  *id = "00112233445566778899aabbccddeeff"
                      "00112233445566778899aabbccddeeff";
    char         ev[512];

    memset(&ws, 0, sizeof(ws));
    chaindata_record_init(&rec);

    snprintf(ev, sizeof(ev),
             "{\"event_index\":1,\"event_type\":\"stx_lock\","
             "\"tx_id\":\"0x%s\",\"stx_lock_event\":{}},"
             "{\"event_index\":0,\"event_type\":"
             "\"smart_contract_log\",\"tx_id\":\"0x%s\",\"contract_log\":{}}",
             id, id);

    ok(parse_tx(&rec, &ws, id, "2", ev) == 0, "valid tx accepted");
    /* then the v3 document's and events' deletes: no index hashes given */
    ok(ws.nwrites == 4, "writes: clear events, header with its chunk");

    w = &ws.writes[1];
    ok(chaindata_txh_decode(&h, ws.buf + w->val_off, w->val_len)
       == 0 && h.event_count == 2, "header decodes");
    ok((h.flags & CHAINDATA_TXH_CHUNK0) && h.chunk0_len
       && h.chunk0 + h.chunk0_len == ws.buf + w->val_off + w->val_len,
       "the one chunk of events inside the header's value, at its end");

    /* the document's pieces inflated one after the other */
    in = chaindata_inflater_create();
    doc = plain;
    used = 0;

    for (nwrites = 0; nwrites < h.npieces; nwrites++) {
        used |= chaindata_piece_inflate(in, &h.piece[nwrites],
                                        (unsigned char *) doc
                                        + h.at[nwrites]);
    }

    ok(used == 0 && h.npieces == 4, "the document: four pieces");
    ok(h.events_at && memcmp(doc + h.events_at - 10, "\"events\":[]", 10) == 0,
       "events spliced at the emptied array");
    ok((h.flags & CHAINDATA_TXH_FARGS)
       && memcmp(doc + h.fargs_start, ",\"function_args\":[]", h.fargs_len)
          == 0, "function_args span with its comma");

    ok(chaindata_chunk_decode(&ec, h.chunk0, h.chunk0_len) == 0
       && ec.n == 2
       && chaindata_piece_inflate(in, &ec.piece, (unsigned char *) plain)
          == 0
       && memcmp(plain, "{\"event_index\":0", 16) == 0
       && memcmp(plain + chaindata_chunk_item_start(&ec, 1) - 1,
                 ",{\"event_index\":1", 17) == 0,
       "events sorted by event_index, one chunk");
    chaindata_inflater_destroy(in);

    nwrites = ws.nwrites;

    ok(parse_tx(&rec, &ws, id, "3", ev) != 0
       && strstr(rec.err, "event_count") != NULL && ws.nwrites == nwrites,
       "event_count mismatch refused, write set untouched");
    ok(parse_tx(&rec, &ws, "00", "2", ev) != 0
       && strstr(rec.err, "tx_id") != NULL, "bad tx_id refused");

    snprintf(ev, sizeof(ev),
             "{\"event_index\":0,\"event_type\":\"stx_lock\","
             "\"tx_id\":\"0x%s\",\"stx_lock_event\":{}},"
             "{\"event_index\":0,\"event_type\":"
             "\"smart_contract_log\",\"tx_id\":\"0x%s\",\"contract_log\":{}}",
             id, id);
    ok(parse_tx(&rec, &ws, id, "2", ev) != 0
       && strstr(rec.err, "event_index 0") != NULL, "duplicate event_index");

    ok(chaindata_record_parse(&rec, (unsigned char *)
           "{\"kind\":\"tx\",\"delete\":\"0xZZ\"}", 29, &ws) != 0,
       "bad delete id refused");
    ok(chaindata_record_parse(&rec, (unsigned char *)
           "{\"kind\":\"tx\",\"dat\":{}}", 22, &ws) != 0,
       "missing data refused");
    ok(chaindata_record_parse(&rec, (unsigned char *)
           "{\"kind\":\"nope\"}", 15, &ws) != 0
       && strstr(rec.err, "unknown kind") != NULL, "unknown kind refused");
    ok(chaindata_record_parse(&rec, (unsigned char *) "[]", 2, &ws)
       != 0, "not an object");

    chaindata_writeset_free(&ws);
    chaindata_record_free(&rec);
}


/*
 * A rune list of 41 balances: its old chunks cleared, the header (count,
 * digest of the entries joined by newlines), then chunks 0, 1 and 2 of
 * 20, 20 and 1 entries keyed (address key, chunk number), each inflating
 * to its entries joined by commas (lmdb-schema/runes.md).
 */

void
test_record_rune_chunks(void)
{
    int                    good;
    char                  *p;
    size_t                 key_len, ckey_len, len;
    unsigned               i, k, n;
    chaindata_chunk_t      c;
    chaindata_listh_t      h;
    chaindata_digest_t     d;
    chaindata_record_t     rec;
    chaindata_write_t     *w;
    chaindata_writeset_t   ws;
    chaindata_inflater_t  *in;
    unsigned char          key[CHAINDATA_LIST_KEY_MAX];
    unsigned char          ckey[CHAINDATA_LIST_ENTRY_KEY_MAX];
    unsigned char          sha[CHAINDATA_SHA256_LEN];
    char                   entry[41][96];
    char                   line[8192], want[4096];
    unsigned char          plain[4096];
    const char  *addr = "bc1qa667e6hcnwx2p4rm2vr08cla79ka8g2mkvvcd9";

    memset(&ws, 0, sizeof(ws));
    chaindata_record_init(&rec);
    chaindata_digest_init(&d);

    p = line + sprintf(line, "{\"kind\":\"rune_balances\",\"address\":"
                             "\"%s\",\"results\":[", addr);

    for (i = 0; i < 41; i++) {
        sprintf(entry[i], "{\"rune\":{\"id\":\"840000:%u\",\"name\":"
                "\"AB\",\"spaced_name\":\"A\xe2\x80\xa2" "B\"},"
                "\"balance\":\"%u\"}", i, 1000 - i);
        p += sprintf(p, "%s%s", i ? "," : "", entry[i]);
        chaindata_digest_add(&d, (unsigned char *) entry[i],
                             strlen(entry[i]));
    }

    strcpy(p, "]}");
    chaindata_digest_final(&d, sha);

    ok(chaindata_record_parse(&rec, (unsigned char *) line, strlen(line),
                              &ws)
       == 0 && ws.nwrites == 6
       && ws.writes[0].action == CHAINDATA_WRITE_OP
       && ws.buf[ws.writes[0].key_off] == CHAINDATA_RUNES_OP_HOLDERS
       && ws.writes[5].action == CHAINDATA_WRITE_OP
       && ws.buf[ws.writes[5].key_off] == CHAINDATA_RUNES_OP_MIX,
       "runes: 41 balances, writes: the holders' op, clear, header with "
       "chunk 0, two chunks, the state's op");

    key_len = chaindata_address_key(key, (unsigned char *) addr,
                                    strlen(addr));
    w = &ws.writes[2];
    ok(w->db == CHAINDATA_DBI_RUNE_BALANCES
       && chaindata_listh_decode(&h, ws.buf + w->val_off, w->val_len) == 0
       && h.count == 41 && memcmp(h.digest, sha, CHAINDATA_DIGEST_LEN) == 0
       && h.chunk0_len > 0
       && h.chunk0 + h.chunk0_len == ws.buf + w->val_off + w->val_len,
       "runes: the header counts 41, the digest, chunk 0 inside");

    in = chaindata_inflater_create();
    good = in != NULL;

    for (k = 0; k < 3 && good; k++) {
        w = &ws.writes[2 + k];
        n = k < 2 ? 20 : 1;
        ckey_len = chaindata_list_entry_key(ckey, key, key_len, k);

        for (p = want, i = 20 * k; i < 20 * k + n; i++) {
            p += sprintf(p, "%s%s", i > 20 * k ? "," : "", entry[i]);
        }

        len = p - want;

        good = (k == 0
                ? chaindata_chunk_decode(&c, h.chunk0, h.chunk0_len) == 0
                : w->db == CHAINDATA_DBI_RUNE_BALANCE_ENTRY
                  && w->key_len == ckey_len
                  && memcmp(ws.buf + w->key_off, ckey, ckey_len) == 0
                  && chaindata_chunk_decode(&c, ws.buf + w->val_off,
                                            w->val_len) == 0)
               && c.n == n && c.piece.plain_len == len
               && chaindata_piece_inflate(in, &c.piece, plain) == 0
               && memcmp(plain, want, len) == 0
               && (n == 1
                   || chaindata_chunk_item_start(&c, 19)
                      == (uint32_t) (len - strlen(entry[20 * k + 19])));
    }

    ok(good, "runes: chunk 0 inline, 1, 2 keyed by number, 20, 20, 1 entries");

    chaindata_inflater_destroy(in);
    chaindata_writeset_free(&ws);
    chaindata_record_free(&rec);
}
