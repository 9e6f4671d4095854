
/*
 * Unit tests: the chainhook route's targets and redacted log lines
 * (chaindata_chainhook_path.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_chainhook_path.h"
#include "chaindata_layout.h"
#include "chaindata_paths.h"
#include "unit.h"


void
test_chainhook_paths(void)
{
    size_t                  n, len;
    unsigned char           out[128];
    const char             *t;
    chaindata_span_t        key;
    chaindata_chh_params_t  p;

    t = "/v1/ext/K%2Fey/chainhooks/1F6E2C3A-0B4D-4E5F-8A9B-0C1D2E3F4A01"
        "/status?k=/v1/ext/x";

    ok(chaindata_chh_target((const unsigned char *) t, strlen(t),
                            1, &p)
       == CHAINDATA_CHH_OK && p.key.len == 4
       && memcmp(p.key.data, "K/ey", 4) == 0 && p.uuid[0] == 0x1f,
       "chainhook: key decoded, UUID in any case, query ignored");

    n = chaindata_key_pieces((const unsigned char *) t, strlen(t),
                             &key);
    len = chaindata_redact(out, (const unsigned char *) t,
                           strlen(t), n);
    ok(n == 1 && key.len == 6 && len == 78
       && memcmp(out, "/v1/ext/***/chainhooks/", 23) == 0
       && memcmp(out + len - 12, "?k=/v1/ext/x", 12) == 0,
       "chainhook: the key piece redacted, the query kept");

    t = "/v1/ext/%/chainhooks/1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01/status";
    ok(chaindata_chh_target((const unsigned char *) t, strlen(t),
                            1, &p)
       == CHAINDATA_CHH_KEY_EMPTY,
       "chainhook: a key decoding to nothing is empty");

    t = "/hooks/abc";
    len = chaindata_redact(out, (const unsigned char *) t,
                           strlen(t), 0);
    ok(len == 4 && memcmp(out, "/***", 4) == 0,
       "chainhook: without a key piece the whole path");
}


/* a log line and what its redacted copy must be */
typedef struct {
    const char  *line;
    const char  *want;
    const char  *name;
} line_case_t;


static const line_case_t  line_cases[] = {

    { " [error] 1#0: *1 open() \"/srv/www/v1/ext/KEY/chainhooks/U/status\""
      " failed (2: No such file or directory), client: 127.0.0.1, server:"
      " , request: \"GET /v1/ext/***/chainhooks/U/status HTTP/1.1\"",
      " [error] 1#0: *1 open() \"/srv/www/v1/ext/***/chainhooks/U/status\""
      " failed (2: No such file or directory), client: 127.0.0.1, server:"
      " , request: \"GET /v1/ext/***/chainhooks/U/status HTTP/1.1\"",
      "log line: a decoded path, the request line already redacted" },

    { " open() \"/w/v1/ext/odd/key?with space%and+plus/chainhooks/U/s\"",
      " open() \"/w/v1/ext/***/chainhooks/U/s\"",
      "log line: a decoded key with a slash and a space" },

    { " open() \"/w/v1/ext/KEY\" failed, request: \"GET /v1/ext/KEY?a=1"
      " HTTP/1.1\"",
      " open() \"/w/v1/ext/***\" failed, request: \"GET /v1/ext/***"
      " HTTP/1.1\"",
      "log line: another shape, up to the quote or the space" },

    { " open() \"/w/V1/%45xt/KEY/other/thing\"",
      " open() \"/w/V1/%45xt/***/other/thing\"",
      "log line: another shape, encoded and in capitals" },

    { " upstream: \"http://127.0.0.1:1/p/KEY/%43HAINHOOKS/U/status\"",
      " upstream: \"http://127.0.0.1:1/p/***/%43HAINHOOKS/U/status\"",
      "log line: any prefix, the piece before chainhooks" },

    { " GET /hooks/KEY/chainhooks HTTP/1.1",
      " GET /hooks/***/chainhooks HTTP/1.1",
      "log line: \"chainhooks\" before a space" },

    { " http uri: \"/chainhooks/x\", \"/v1/ext\"",
      " http uri: \"/chainhooks/x\", \"/v1/ext\"",
      "log line: no piece before chainhooks, no key after v1/ext" },

    { " \"/v1/ext/a/chainhooks/b/chainhooks/U/status\" \"/v1/ext//x\"",
      " \"/v1/ext/***/chainhooks/U/status\" \"/v1/ext/***/x\"",
      "log line: up to the last chainhooks, an empty key" },

    { "2024/01/02 10:00:00 [debug] 1#0: *1 no path here",
      "2024/01/02 10:00:00 [debug] 1#0: *1 no path here",
      "log line: a line without a path is left alone" },
};


void
test_redact_line(void)
{
    size_t              i, len, want;
    unsigned char       out[512];
    const char         *line;
    const line_case_t  *c;

    for (i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
        c = &line_cases[i];

        len = chaindata_redact_line(out, sizeof(out),
                                    (const unsigned char *) c->line,
                                    strlen(c->line));

        ok(len == strlen(c->want) && memcmp(out, c->want, len) == 0,
           c->name);

        if (len != strlen(c->want) || memcmp(out, c->want, len) != 0) {
            printf("# got:  %.*s\n# want: %s\n", (int) len, out, c->want);
        }
    }

    line = " \"/v1/ext/KEY/chainhooks\"";
    want = strlen(" \"/v1/ext/***");
    len = chaindata_redact_line(out, want, (const unsigned char *) line,
                                strlen(line));
    ok(len == want && memcmp(out, " \"/v1/ext/***", want) == 0,
       "log line: a copy cut at the size given");
}
