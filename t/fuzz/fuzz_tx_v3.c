
/*
 * libFuzzer target: the v3 transaction routes' request target,
 * "path?query" (chaindata_tx3_target: the id, /events, include in both
 * forms, limit, cursor): never past the room it is given, the id a
 * segment of the path, include only the four bits, a page's limit 1 to
 * 100, a message for every refused query.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_layout.h"
#include "chaindata_paths_v3.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t                   path_len, args_len;
    unsigned char           *buf;
    const unsigned char     *args, *qm;
    chaindata_query_t        q;
    chaindata_target_e       rc;
    chaindata_tx3_params_t  *p;

    qm = memchr(data, '?', size);
    path_len = qm ? (size_t) (qm - data) : size;
    args = qm ? qm + 1 : data + size;
    args_len = qm ? size - path_len - 1 : 0;

    /* exactly the room the handler gives: the query's length and one */
    buf = malloc(args_len + 1);
    p = calloc(1, sizeof(chaindata_tx3_params_t));
    if (buf == NULL || p == NULL) {
        abort();
    }

    p->items = malloc((args_len + 1) * sizeof(chaindata_v3_item_t));
    p->bytes = malloc(args_len + 1);
    if (p->items == NULL || p->bytes == NULL) {
        abort();
    }

    chaindata_query_init(&q, args, args_len, buf);

    rc = chaindata_tx3_target(data, path_len, &q, p);

    if (q.used > args_len) {
        abort();
    }

    if (rc == CHAINDATA_TARGET_OK || rc == CHAINDATA_TARGET_ADD_PREFIX
        || rc == CHAINDATA_TARGET_BAD_PARAM)
    {
        if (p->id.data < data || p->id.data + p->id.len > data + path_len
            || memchr(p->id.data, '/', p->id.len))
        {
            abort();
        }
    }

    if (rc == CHAINDATA_TARGET_OK || rc == CHAINDATA_TARGET_ADD_PREFIX) {
        if (p->include >> CHAINDATA_TX3H_PARTS
            || (p->events && (p->limit < 1
                              || p->limit > CHAINDATA_V3_EVENT_LIMIT_MAX)))
        {
            abort();
        }
    }

    if (rc == CHAINDATA_TARGET_BAD_QUERY && p->message[0] == '\0') {
        abort();
    }

    free(p->items);
    free(p->bytes);
    free(p);
    free(buf);

    return 0;
}
