
/*
 * Unit tests: request targets and query strings (chaindata_paths.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_paths.h"
#include "unit.h"


void
test_unescape(void)
{
    size_t          i, n;
    unsigned char   out[32];

    /* what nginx's ngx_unescape_uri(..., 0) makes of them */
    static const struct {
        const char  *in;
        const char  *out;
    } cases[] = {
        { "%41%62", "Ab" }, { "1%", "1" }, { "1%2", "1" }, { "%4z1", "1" },
        { "%z1", "z1" }, { "%%31", "%31" }, { "%3%31", "31" },
        { "2%3g", "2" }, { "+", "+" }, { "%2F%2f", "//" }, { "%", "" },
    };

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        n = chaindata_unescape(out, (const unsigned char *)
                               cases[i].in, strlen(cases[i].in));
        ok(n == strlen(cases[i].out) && memcmp(out, cases[i].out, n) == 0,
           cases[i].in);
    }

    n = chaindata_unescape(out, (const unsigned char *) "a%00b", 5);
    ok(n == 3 && out[1] == '\0', "unescape: %00 is a NUL byte");
}


static chaindata_target_e
page(const char *path, const char *args, chaindata_page_params_t *p,
    chaindata_query_t *q)
{
    static unsigned char  buf[256];

    chaindata_query_init(q, (const unsigned char *) args,
                         strlen(args), buf);
    memset(p, 0, sizeof(*p));

    return chaindata_page_target((const unsigned char *) path,
                                 strlen(path), "balances",
                                 chaindata_address_key,
                                 q, p);
}


void
test_targets(void)
{
    unsigned char            buf[256], path[128];
    chaindata_query_t        q;
    chaindata_tx_params_t    tx;
    chaindata_page_params_t  p;
    const char              *addr, *id;

    addr = "/runes/v1/addresses/bc1qa667e6hcnwx2p4rm2vr08cla79ka8g2mkvvcd9"
           "/balances";
    id = "/extended/v1/tx/0xabcdef0123456789abcdef0123456789"
         "abcdef0123456789abcdef0123456789";

    ok(page(addr, "offset=-000&limit=60", &p, &q)
       == CHAINDATA_TARGET_OK
       && p.offset == 0 && p.offset_text.len == 1
       && p.offset_text.data[0] == '0' && p.limit == 60,
       "page: -000 is offset 0, echoed as 0");
    ok(page(addr, "offset=0018446744073709551616", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == UINT64_MAX
       && p.offset_text.len == 20 && p.limit == 20,
       "page: an offset past 2^64 saturates, echoed without zeros");
    ok(page(addr, "limit=1&limit=1", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY
       && strcmp(q.name, "limit") == 0
       && q.rc == CHAINDATA_ARG_NOT_INTEGER,
       "page: a repeated limit is not an integer");
    ok(page(addr, "limit=-0", &p, &q) == CHAINDATA_TARGET_BAD_QUERY
       && q.rc == CHAINDATA_ARG_TOO_SMALL && q.bound == 1,
       "page: limit -0 is below 1");
    ok(page(addr, "offset=%2B2&limit=1.0", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == 2 && p.limit == 1
       && p.offset_text.len == 1 && p.offset_text.data[0] == '2',
       "page: +2 and 1.0 are integers, the offset echoed as 2");
    ok(page(addr, "offset=0x10&limit=%205", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == 16 && p.limit == 5
       && p.offset_text.len == 2 && memcmp(p.offset_text.data, "16", 2) == 0,
       "page: 0x10 is 16, a leading space is trimmed");
    ok(page(addr, "offset=1e21&limit=1e1", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == UINT64_MAX && p.limit == 10
       && p.offset_text.len == 5
       && memcmp(p.offset_text.data, "1e+21", 5) == 0,
       "page: offset 1e21 echoed as JavaScript writes it");
    ok(page(addr, "%6F%66fset=3&%6Cimit=4", &p, &q)
       == CHAINDATA_TARGET_OK && p.offset == 3 && p.limit == 4,
       "page: parameter names percent-decoded");
    ok(page(addr, "limit=1&%6Cimit=1", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY && q.rc == CHAINDATA_ARG_NOT_INTEGER,
       "page: a limit given twice under two spellings");
    ok(page(addr, "limit=Infinity", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY && q.rc == CHAINDATA_ARG_NOT_INTEGER,
       "page: Infinity is no integer");
    ok(page(addr, "offset=%20", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY && q.rc == CHAINDATA_ARG_NOT_INTEGER,
       "page: an offset of white space only is refused");
    ok(page(addr, "x=1&limit", &p, &q)
       == CHAINDATA_TARGET_BAD_QUERY && q.rc == CHAINDATA_ARG_NOT_INTEGER
       && q.used <= 9,
       "page: a bare limit is empty, and has room");
    ok(page("/balances", "", &p, &q) == CHAINDATA_TARGET_NO_ROUTE,
       "page: no parameter segment");
    ok(page("/x//balances", "", &p, &q)
       == CHAINDATA_TARGET_BAD_PARAM, "page: an empty parameter");

    chaindata_query_init(&q, (const unsigned char *)
                         "event_limit=18446744073709551616", 32,
                         buf);
    ok(chaindata_tx_target((const unsigned char *) id, strlen(id),
                           &q, &tx)
       == CHAINDATA_TARGET_BAD_QUERY
       && q.rc == CHAINDATA_ARG_TOO_LARGE && q.bound == 100,
       "tx: event_limit 2^64 is above 100, without overflow");

    chaindata_query_init(&q, (const unsigned char *)
                         "unanchored=TRUE", 15, buf);
    ok(chaindata_tx_target((const unsigned char *) id, strlen(id),
                           &q, &tx)
       == CHAINDATA_TARGET_BAD_QUERY
       && strcmp(q.name, "unanchored") == 0, "tx: booleans are lowercase");

    chaindata_query_init(&q, (const unsigned char *)
                         "event%5Flimit=1000", 18, buf);
    ok(chaindata_tx_target((const unsigned char *) id, strlen(id),
                           &q, &tx)
       == CHAINDATA_TARGET_BAD_QUERY
       && q.rc == CHAINDATA_ARG_TOO_LARGE
       && strcmp(q.name, "event_limit") == 0,
       "tx: event%5Flimit is event_limit");

    chaindata_query_init(&q, (const unsigned char *)
                         "event_offset=+3&event_limit=0x10", 32, buf);
    ok(chaindata_tx_target((const unsigned char *) id, strlen(id),
                           &q, &tx)
       == CHAINDATA_TARGET_OK && tx.offset == 3 && tx.limit == 16,
       "tx: event_offset +3, event_limit 0x10");

    chaindata_query_init(&q, NULL, 0, NULL);
    ok(chaindata_tx_target((const unsigned char *) id,
                           strlen(id) - 1, &q, &tx)
       == CHAINDATA_TARGET_BAD_PARAM, "tx: 63 digits");

    memcpy(path, id, strlen(id));
    memcpy(path + strlen(id), "//", 3);
    ok(chaindata_tx_target(path, strlen(id) + 1, &q, &tx)
       == CHAINDATA_TARGET_OK && tx.id.len == 66,
       "tx: a trailing slash is ignored");
    ok(chaindata_tx_target(path, strlen(id) + 2, &q, &tx)
       == CHAINDATA_TARGET_BAD_PARAM, "tx: two are not");
    ok(chaindata_tx_target((const unsigned char *) "/", 1, &q, &tx)
       == CHAINDATA_TARGET_BAD_PARAM, "tx: nor is a slash alone");
}
