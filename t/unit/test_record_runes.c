
/*
 * Unit tests: the rune_block and rune_etching records and the ops they
 * leave in the write set (chaindata_runes_op.h): the argument of each,
 * byte for byte, and the label the op's key keeps.
 */


#include <stdio.h>
#include <string.h>

#include "chaindata_record.h"
#include "chaindata_runes_op.h"
#include "unit.h"


#define HASH  "0000000000000000000ad90353e3151312ca0c644a37ef26c813c5d050371654"
#define TXID  "364cdb184f267667b9f4e364cee6dce2acf548abaf4e0f060bae242fb078b209"
#define RUNE  "{\"id\":\"840000:8\",\"number\":1,\"name\":\"AB\"," \
              "\"spaced_name\":\"A\xe2\x80\xa2" "B\"}"
#define DOC   "{\"id\":\"840000:8\",\"name\":\"AB\"," \
              "\"spaced_name\":\"A\xe2\x80\xa2" "B\",\"number\":258," \
              "\"mint_terms\":{\"cap\":null}}"
#define REST  "\"operation\":\"send\",\"location\":{\"block_hash\":\"" HASH \
              "\",\"block_height\":840090,\"tx_id\":\"" TXID "\"," \
              "\"tx_index\":7,\"timestamp\":1713621782},\"address\":\"" \
              "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2\"}"


static int
parse(chaindata_record_t *rec, chaindata_writeset_t *ws, const char *line)
{
    return chaindata_record_parse(rec, (const unsigned char *) line,
                                  strlen(line), ws);
}


/* the op of write i: its op byte, its label, its argument */

static int
op_is(const chaindata_writeset_t *ws, size_t i, unsigned op,
    unsigned label)
{
    const unsigned char  *k;

    if (i >= ws->nwrites) {
        return 0;
    }

    k = ws->buf + ws->writes[i].key_off;

    return ws->writes[i].action == CHAINDATA_WRITE_OP
           && ws->writes[i].key_len == CHAINDATA_WRITE_OP_KEY_LEN
           && k[0] == op && k[1] == label && k[2] == 0;
}


static void
test_record_rune_block(void)
{
    char                  line[2048];
    size_t                n;
    unsigned char         want[1024], *p;
    chaindata_record_t    rec;
    chaindata_writeset_t  ws;
    const unsigned char  *arg;

    memset(&ws, 0, sizeof(ws));
    (void) chaindata_record_init(&rec);

    /* the entry given with its members out of upstream's order */
    snprintf(line, sizeof(line), "{\"kind\":\"rune_block\",\"block_height\":"
             "840090,\"block_hash\":\"%s\",\"results\":[{\"operation\":"
             "\"send\",\"rune\":%s,\"location\":{\"block_hash\":\"%s\","
             "\"block_height\":840090,\"tx_id\":\"%s\",\"tx_index\":7,"
             "\"timestamp\":1713621782},\"address\":"
             "\"1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2\"}]}", HASH, RUNE, HASH,
             TXID);

    ws.label = 5;

    ok(parse(&rec, &ws, line) == 0 && ws.nwrites == 2
       && op_is(&ws, 0, CHAINDATA_RUNES_OP_BLOCK, 5)
       && op_is(&ws, 1, CHAINDATA_RUNES_OP_MIX, 5)
       && rec.kind == CHAINDATA_REC_RUNE_BLOCK_PUT,
       "rune_block: the op BLOCK and the op MIX, labelled");

    p = want;
    memcpy(p, "\0\0\0\0\0\x0c\xd1\x9a" "\0\0\0\x01", 12);
    p += 12;
    memcpy(p, "\0\0\0\0\0\0\0\0\0\x0a\xd9\x03S\xe3\x15\x13\x12\xca\x0c"
           "dJ7\xef&\xc8\x13\xc5\xd0P7\x16T", 32);
    p += 32;
    memcpy(p, "\0\0\0\0\0\x0c\xd1\x40\0\0\0\x08", 12);
    p += 12;
    n = sizeof(RUNE) - 1;
    memcpy(p, "\0\0\0", 3);
    p[3] = (unsigned char) n;
    memcpy(p + 4, RUNE, n);
    p += 4 + n;
    n = sizeof(REST) - 1;
    memcpy(p, "\0\0", 2);
    p[2] = (unsigned char) (n >> 8);
    p[3] = (unsigned char) n;
    memcpy(p + 4, REST, n);
    p += 4 + n;
    *p++ = 34;
    memcpy(p, "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", 34);
    p += 34;

    arg = ws.buf + ws.writes[0].val_off;
    n = p - want;

    ok(ws.writes[0].val_len == n && memcmp(arg, want, n) == 0,
       "rune_block: height, count, hash, then the rune id key, the rune in "
       "upstream's order, the entry without it from its first member on, "
       "the address");

    arg = ws.buf + ws.writes[1].val_off;
    ok(ws.writes[1].val_len == sizeof("rune_block") + 32
       && memcmp(arg, "rune_block", sizeof("rune_block")) == 0,
       "rune_block: the MIX op names its kind");

    chaindata_writeset_reset(&ws);

    ok(parse(&rec, &ws,
             "{\"kind\":\"rune_block\",\"block_height\":7,\"results\":[]}")
       == 0 && ws.nwrites == 2 && ws.writes[0].val_len == 12
       && memcmp(ws.buf + ws.writes[0].val_off,
                 "\0\0\0\0\0\0\0\x07\0\0\0\0", 12) == 0
       && rec.kind == CHAINDATA_REC_RUNE_BLOCK_DELETE,
       "rune_block: results [] is the height and a count of 0");

    chaindata_writeset_reset(&ws);
    ok(parse(&rec, &ws,
             "{\"kind\":\"rune_block\",\"block_height\":7,\"results\":[{}]}")
       != 0 && ws.nwrites == 0 && strstr(rec.err, "block_hash") != NULL,
       "rune_block: refused, nothing written");

    chaindata_writeset_free(&ws);
    chaindata_record_free(&rec);
}


static void
test_record_rune_etching(void)
{
    chaindata_record_t    rec;
    chaindata_writeset_t  ws;
    const unsigned char  *arg;

    memset(&ws, 0, sizeof(ws));
    (void) chaindata_record_init(&rec);

    ok(parse(&rec, &ws, "{\"kind\":\"rune_etching\",\"id\":\"840000:8\","
                        "\"etching\":{\"id\":\"840000:8\",\"name\":\"AB\","
                        "\"spaced_name\":\"A\\u2022B\",\"number\":258,"
                        "\"mint_terms\":{\"cap\":null}}}")
       == 0 && ws.nwrites == 2 && op_is(&ws, 0, CHAINDATA_RUNES_OP_ETCHING, 0)
       && rec.kind == CHAINDATA_REC_RUNE_ETCHING_PUT,
       "rune_etching: the op ETCHING");

    arg = ws.buf + ws.writes[0].val_off;
    ok(ws.writes[0].val_len == 23 + sizeof(DOC) - 1
       && memcmp(arg, "\0\0\0\0\0\x0c\xd1\x40\0\0\0\x08"
                      "\0\0\0\0\0\0\x01\x02" "\x02" "AB", 23) == 0
       && memcmp(arg + 23, DOC, sizeof(DOC) - 1) == 0,
       "rune_etching: rune id key, number, name, the document as given "
       "(\\u2022 stored raw)");

    chaindata_writeset_reset(&ws);
    ok(parse(&rec, &ws, "{\"kind\":\"rune_etching\",\"id\":\"840000:8\","
                        "\"etching\":null}")
       == 0 && ws.nwrites == 2 && ws.writes[0].val_len == 12
       && rec.kind == CHAINDATA_REC_RUNE_ETCHING_DELETE,
       "rune_etching: null is the rune id key alone");

    chaindata_writeset_free(&ws);
    chaindata_record_free(&rec);
}


void
test_record_runes(void)
{
    test_record_rune_block();
    test_record_rune_etching();
}
