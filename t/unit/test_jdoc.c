
/*
 * Unit tests: ingest: the document tree (chaindata_jdoc.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_jdoc.h"
#include "unit.h"


void
test_jdoc(void)
{
    int                 i, found;
    char                err[256], wide[1024], name[16], *p, *end;
    unsigned char       out[256], out2[1024];
    chaindata_jv_t     *v, *m;
    chaindata_arena_t  *a;
    const char  *doc = "{\"b\":1.50,\"a\":[true,false,null,\"x\\u00e9\"],"
                       "\"c\":{}}";
    const char  *want = "{\"b\":1.50,\"a\":[true,false,null,\"x\xc3\xa9\"],"
                        "\"c\":{}}";
    char         deep[200];
    const char  *sur = "[\"\\ud800\",\"a\\uDC00b\",\"\\ud800\\u00e9\","
                       "\"\\ud83d\\ude00\",\"\\\\ud800\",\"\\udbff\\udfff\","
                       "\"\\ud800\\ud800\\n\",{\"\\udc00\":\"\\u00e9\"}]";
    const char  *sur_want = "[\"\\ud800\",\"a\\udc00b\",\"\\ud800\xc3\xa9\","
                            "\"\xf0\x9f\x98\x80\",\"\\\\ud800\","
                            "\"\xf4\x8f\xbf\xbf\",\"\\ud800\\ud800\\n\","
                            "{\"\\udc00\":\"\xc3\xa9\"}]";
    const char  *bad_utf8[] = {
        "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "[\"\\ud800\",\"\xed\xbf\xbf\"]",
        "[\"\\ud800\xc0\xaf\"]", "{\"\\ud800\":1,\"\xed\xa0\x80\":2}",
    };

    a = chaindata_arena_create();

    v = chaindata_jdoc_parse(a, (const unsigned char *) doc,
                             strlen(doc), err, sizeof(err));
    ok(v != NULL, "parses");
    ok(v && chaindata_jv_size(v) == strlen(want)
       && chaindata_jv_write(out, v) - out == (long) strlen(want)
       && memcmp(out, want, strlen(want)) == 0,
       "member order and number text kept, escapes decoded");

    v = chaindata_jdoc_parse(a, (const unsigned char *) "{\"a\":1,"
                             "\"a\":2}", 13, err, sizeof(err));
    ok(v == NULL && strstr(err, "duplicate member \"a\"") != NULL,
       "duplicate member refused");

    /* a wide object: its members indexed, found by name, kept in order */
    p = wide + sprintf(wide, "{");

    for (i = 40; i > 0; i--) {
        p += sprintf(p, "\"k%d\":%d,", i, i);
    }

    end = p + sprintf(p, "\"k\":0,\"k4\\u0000\":41}");
    v = chaindata_jdoc_parse(a, (const unsigned char *) wide,
                             end - wide, err, sizeof(err));
    ok(v && v->index && v->n == 42, "a wide object is indexed");

    for (i = 1, found = 0; v && i <= 40; i++) {
        sprintf(name, "k%d", i);
        m = chaindata_jv_get(v, name);
        found += (m && m->len == strlen(name) - 1
                  && memcmp(m->str, name + 1, m->len) == 0);
    }

    ok(found == 40, "wide object: every member found by name");
    ok(v && chaindata_jv_is_integer(chaindata_jv_get(v, "k"))
       && chaindata_jv_get(v, "k")->str[0] == '0'
       && chaindata_jv_get(v, "k4")->str[0] == '4'
       && chaindata_jv_get(v, "k41") == NULL
       && chaindata_jv_get(v, "k0") == NULL
       && chaindata_jv_get(v, "") == NULL,
       "wide object: absent names not found, a NUL in a name kept apart");
    ok(v && chaindata_jv_size(v) == (size_t) (end - wide)
       && chaindata_jv_write(out2, v) - out2 == end - wide
       && memcmp(out2, wide, end - wide) == 0,
       "wide object: written back in the order given");

    strcpy(end - 1, ",\"k40\":0}");
    v = chaindata_jdoc_parse(a, (const unsigned char *) wide,
                             strlen(wide), err, sizeof(err));
    ok(v == NULL && strstr(err, "duplicate member \"k40\"") != NULL,
       "wide object: a duplicate found");

    /* lone surrogates kept as given, written as JSON.stringify does */
    v = chaindata_jdoc_parse(a, (const unsigned char *) sur,
                             strlen(sur), err, sizeof(err));
    ok(v && chaindata_jv_size(v) == strlen(sur_want)
       && chaindata_jv_write(out2, v) - out2 == (long) strlen(sur_want)
       && memcmp(out2, sur_want, strlen(sur_want)) == 0,
       "lone surrogates kept, pairs joined, escapes lowercase");
    v = chaindata_jdoc_parse(a, (const unsigned char *) sur_want,
                             strlen(sur_want), err, sizeof(err));
    ok(v && chaindata_jv_write(out2, v) - out2 == (long) strlen(sur_want)
       && memcmp(out2, sur_want, strlen(sur_want)) == 0,
       "lone surrogates: what is written reads back the same");
    ok(v && chaindata_jv_get(v->child->next->next->next->next->next
                             ->next->next, "\xed\xb0\x80") != NULL,
       "a member named by a lone surrogate");

    for (i = 0; i < (int) (sizeof(bad_utf8) / sizeof(bad_utf8[0])); i++) {
        v = chaindata_jdoc_parse(a, (const unsigned char *) bad_utf8[i],
                                 strlen(bad_utf8[i]), err, sizeof(err));
        ok(v == NULL && strstr(err, "not valid UTF-8") != NULL,
           "bytes of a surrogate or an overlong form refused");
    }

    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    v = chaindata_jdoc_parse(a, (const unsigned char *) deep, 200,
                             err, sizeof(err));
    ok(v == NULL && strstr(err, "64") != NULL, "nesting limit");

    v = chaindata_jdoc_parse(a, (const unsigned char *) "{\"a\":",
                             5, err, sizeof(err));
    ok(v == NULL && strstr(err, "malformed JSON") != NULL, "truncated");

    v = chaindata_jdoc_parse(a, (const unsigned char *) "\"\xff\"",
                             3, err, sizeof(err));
    ok(v == NULL, "invalid UTF-8 refused");

    chaindata_arena_destroy(a);
}
