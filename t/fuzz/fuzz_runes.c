
/*
 * libFuzzer target: the rune routes' request targets (the first byte picks
 * activity or balances, the rest is "path?query"):
 * chaindata_page_target with the route's path shape, the tx id
 * or address key, offset and limit, and the offset echoed.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_paths.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int                      balances;
    char                     text[CHAINDATA_JS_TEXT_LEN], *end;
    size_t                   path_len, args_len, n;
    double                   d;
    const char              *last;
    unsigned char           *buf, echo[CHAINDATA_JS_TEXT_LEN];
    const unsigned char     *args, *qm;
    chaindata_span_t         seg;
    chaindata_query_t        q;
    chaindata_list_key_pt    key;
    chaindata_page_params_t  p;
    chaindata_target_e       rc;

    if (size == 0) {
        return 0;
    }

    balances = data[0] & 1;
    last = balances ? "balances" : "activity";
    key = balances ? chaindata_address_key
                   : chaindata_txid_list_key;
    data++;
    size--;

    qm = memchr(data, '?', size);
    path_len = qm ? (size_t) (qm - data) : size;
    args = qm ? qm + 1 : data + size;
    args_len = qm ? size - path_len - 1 : 0;

    buf = malloc(args_len + 1);
    if (buf == NULL) {
        abort();
    }

    chaindata_query_init(&q, args, args_len, buf);
    memset(&p, 0, sizeof(p));

    rc = chaindata_page_target(data, path_len, last, key, &q, &p);

    /* NO_ROUTE exactly when the path does not end in "/{param}/last" */
    chaindata_segment_last(data, path_len, &seg);
    n = strlen(last);

    if ((rc == CHAINDATA_TARGET_NO_ROUTE)
        != (seg.len != n || memcmp(seg.data, last, n) != 0
            || seg.data - data < 2))
    {
        abort();
    }

    if (q.used > args_len) {
        abort();
    }

    switch (rc) {

    case CHAINDATA_TARGET_NO_ROUTE:
    case CHAINDATA_TARGET_BAD_PARAM:
        break;

    case CHAINDATA_TARGET_OK:
        if (p.limit < 1 || p.limit > CHAINDATA_PAGE_LIMIT_MAX) {
            abort();
        }

        /*
         * the offset echoed as JavaScript writes a whole number: digits
         * without a leading zero, or "D.DDDe+NN", reading back as the
         * offset (saturated)
         */
        if (p.offset_text.len == 0
            || p.offset_text.len >= sizeof(text)
            || p.offset_text.data[0] < '0' || p.offset_text.data[0] > '9'
            || (p.offset_text.len > 1 && p.offset_text.data[0] == '0'))
        {
            abort();
        }

        memcpy(text, p.offset_text.data, p.offset_text.len);
        text[p.offset_text.len] = '\0';
        d = strtod(text, &end);

        if (*end != '\0' || !chaindata_js_is_integer(d)
            || chaindata_js_to_u64(d) != p.offset
            || chaindata_js_integer_text(echo, d) != p.offset_text.len
            || memcmp(echo, text, p.offset_text.len) != 0)
        {
            abort();
        }

        /* fall through */

    case CHAINDATA_TARGET_BAD_QUERY:
        if (p.key_len == 0
            || (!balances && p.key_len != CHAINDATA_TXID_LEN)
            || (balances && (p.key_len != (size_t) p.key[0] + 1
                             || p.key[0] > CHAINDATA_ADDRESS_MAX_LEN)))
        {
            abort();
        }

        if (rc == CHAINDATA_TARGET_BAD_QUERY
            && (q.name == NULL
                || (strcmp(q.name, "offset") != 0
                    && strcmp(q.name, "limit") != 0)
                || q.rc == CHAINDATA_ARG_OK
                || q.rc == CHAINDATA_ARG_NOT_BOOLEAN
                || (strcmp(q.name, "offset") == 0
                    && q.rc == CHAINDATA_ARG_TOO_LARGE)))
        {
            abort();
        }

        break;

    default:
        abort();
    }

    free(buf);

    return 0;
}
