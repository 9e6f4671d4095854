
/*
 * chaindata: the v3 transaction routes' request targets (see the header).
 * Fastify validates the path parameters first, then the query; its Ajv
 * stops at the first failure and checks an array's uniqueItems before
 * its items.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_layout.h"
#include "chaindata_paths_v3.h"


static const char  *chaindata_v3_includes[CHAINDATA_TX3H_PARTS] = {
    "function_args", "source_code", "post_conditions", "result"
};


static int
chaindata_v3_item_cmp(const void *a, const void *b)
{
    const chaindata_v3_item_t  *x = a, *y = b;
    size_t                      n;
    int                         rc;

    n = x->len < y->len ? x->len : y->len;
    rc = memcmp(x->data, y->data, n);

    if (rc == 0) {
        rc = (x->len > y->len) - (x->len < y->len);
    }

    if (rc == 0) {
        rc = (x->index > y->index) - (x->index < y->index);
    }

    return rc;
}


/*
 * Ajv's uniqueItems for items it cannot hash: for i from the last down,
 * for j from i - 1 down, the first equal pair.  That is the largest i
 * with an equal item before it, and the largest such j: sorted by value
 * then position, each item's equal predecessor is the one before it.
 */

static int
chaindata_v3_duplicate(chaindata_v3_item_t *items, size_t n, size_t *j,
    size_t *i)
{
    size_t  k;
    int     found;

    qsort(items, n, sizeof(chaindata_v3_item_t), chaindata_v3_item_cmp);

    found = 0;

    for (k = 1; k < n; k++) {
        if (items[k].len == items[k - 1].len
            && memcmp(items[k].data, items[k - 1].data, items[k].len) == 0
            && (!found || items[k].index > *i))
        {
            *i = items[k].index;
            *j = items[k - 1].index;
            found = 1;
        }
    }

    return found;
}


/* the bit of an include value, 0 when it is none */

static unsigned
chaindata_v3_include_bit(const unsigned char *s, size_t len)
{
    unsigned  k;

    for (k = 0; k < CHAINDATA_TX3H_PARTS; k++) {
        if (strlen(chaindata_v3_includes[k]) == len
            && memcmp(chaindata_v3_includes[k], s, len) == 0)
        {
            return 1u << k;
        }
    }

    return 0;
}


/* the raw name is name, percent-decoded */

static int
chaindata_v3_name_is(const unsigned char *raw, size_t len, const char *name,
    unsigned char *room)
{
    size_t  n;

    n = chaindata_unescape(room, raw, len);

    return n == strlen(name) && memcmp(room, name, n) == 0;
}


/*
 * include: the values of every "include" argument, decoded; one given
 * once is split at commas (upstream's preValidation), several are the
 * array's items as they are.
 */

static int
chaindata_v3_include(chaindata_query_t *q, chaindata_tx3_params_t *p)
{
    size_t                n, given, k, i = 0, j = 0, at;
    unsigned              bit;
    unsigned char        *b;
    const unsigned char  *s, *end, *amp, *eq, *c, *v;

    n = 0;
    given = 0;
    b = p->bytes;
    s = q->args;
    end = q->args + q->len;

    while (s < end) {
        amp = memchr(s, '&', end - s);
        if (amp == NULL) {
            amp = end;
        }

        eq = memchr(s, '=', amp - s);

        if (chaindata_v3_name_is(s, (eq ? eq : amp) - s, "include", b)) {
            v = eq ? eq + 1 : amp;
            p->items[n].data = b;
            p->items[n].len = chaindata_unescape(b, v, amp - v);
            p->items[n].index = n;
            b += p->items[n].len;
            n++;
            given++;
        }

        s = amp + 1;
    }

    if (given == 1) {
        /* the one value split at its commas, in place */
        s = p->items[0].data;
        end = s + p->items[0].len;
        n = 0;

        for ( ;; ) {
            c = memchr(s, ',', end - s);
            if (c == NULL) {
                c = end;
            }

            p->items[n].data = s;
            p->items[n].len = c - s;
            p->items[n].index = n;
            n++;

            if (c == end) {
                break;
            }

            s = c + 1;
        }
    }

    p->include = 0;

    if (n == 0) {
        return 0;
    }

    /* each item's bit, and the first item that is none */
    at = n;

    for (k = 0; k < n; k++) {
        bit = chaindata_v3_include_bit(p->items[k].data, p->items[k].len);

        if (bit == 0 && at == n) {
            at = k;
        }

        p->include |= bit;
    }

    if (chaindata_v3_duplicate(p->items, n, &j, &i)) {
        snprintf(p->message, sizeof(p->message),
                 "querystring/include must NOT have duplicate items "
                 "(items ## %zu and %zu are identical)", j, i);
        return 1;
    }

    if (at < n) {
        snprintf(p->message, sizeof(p->message),
                 "querystring/include/%zu must be equal to constant, "
                 "querystring/include/%zu must be equal to constant, "
                 "querystring/include/%zu must be equal to constant, "
                 "querystring/include/%zu must be equal to constant, "
                 "querystring/include/%zu must match a schema in anyOf",
                 at, at, at, at, at);
        return 1;
    }

    return 0;
}


/* limit, then cursor: an event index, "^[0-9]+$" */

static int
chaindata_v3_page(chaindata_query_t *q, chaindata_tx3_params_t *p)
{
    int               rc;
    size_t            i;
    chaindata_span_t  v;

    rc = chaindata_query_uint(q, "limit", 1, CHAINDATA_V3_EVENT_LIMIT_MAX,
                              CHAINDATA_V3_EVENT_LIMIT, &p->limit);
    if (rc != 0) {
        if (rc > 0) {
            snprintf(p->message, sizeof(p->message),
                     "querystring/limit must be %s",
                     q->rc == CHAINDATA_ARG_TOO_SMALL ? ">= 1"
                     : q->rc == CHAINDATA_ARG_TOO_LARGE ? "<= 100"
                     : "integer");
        }

        return rc;
    }

    p->cursor = 0;

    rc = chaindata_query_value(q, "cursor", &v);

    if (rc <= 0) {
        return rc;
    }

    if (rc == 2) {
        snprintf(p->message, sizeof(p->message),
                 "querystring/cursor must be string");
        return 1;
    }

    for (i = 0; i < v.len && v.data[i] >= '0' && v.data[i] <= '9'; i++) {
        if (p->cursor > (UINT64_MAX - 9) / 10) {
            p->cursor = UINT64_MAX;
        } else {
            p->cursor = p->cursor * 10 + (v.data[i] - '0');
        }
    }

    if (v.len == 0 || i != v.len) {
        snprintf(p->message, sizeof(p->message),
                 "querystring/cursor must match pattern \"^[0-9]+$\"");
        return 1;
    }

    return 0;
}


chaindata_target_e
chaindata_tx3_target(const unsigned char *path, size_t len,
    chaindata_query_t *q, chaindata_tx3_params_t *p)
{
    int               rc, prefixed;
    chaindata_span_t  last;

    p->message[0] = '\0';

    /* upstream ignores a trailing slash */
    if (len && path[len - 1] == '/') {
        len--;
    }

    chaindata_segment_last(path, len, &last);

    p->events = (last.len == 6 && memcmp(last.data, "events", 6) == 0);

    if (p->events) {
        if (len < 7) {
            return CHAINDATA_TARGET_NO_ROUTE;
        }

        chaindata_segment_last(path, len - 7, &p->id);

    } else {
        p->id = last;
    }

    if (chaindata_txid_parse(p->id.data, p->id.len, p->txid, &prefixed)
        != 0)
    {
        return CHAINDATA_TARGET_BAD_PARAM;
    }

    rc = p->events ? chaindata_v3_page(q, p) : chaindata_v3_include(q, p);

    if (rc != 0) {
        return rc > 0 ? CHAINDATA_TARGET_BAD_QUERY : CHAINDATA_TARGET_ERROR;
    }

    return prefixed ? CHAINDATA_TARGET_OK : CHAINDATA_TARGET_ADD_PREFIX;
}
