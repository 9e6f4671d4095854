
/*
 * libFuzzer target: the transaction route's request target, "path?query"
 * (chaindata_tx_target: the id segment, event_limit,
 * event_offset, exclude_function_args, unanchored), and the
 * percent-decoding every route shares, checked against a reference
 * written the way nginx's ngx_unescape_uri is.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_paths.h"


/* ngx_unescape_uri(..., 0), state by state */

static size_t
reference_unescape(unsigned char *d, const unsigned char *s, size_t size)
{
    unsigned char   ch, c, decoded, *start;
    enum { usual = 0, quoted, quoted_second } state;

    start = d;
    state = usual;
    decoded = 0;

    while (size--) {
        ch = *s++;

        switch (state) {

        case usual:
            if (ch == '%') {
                state = quoted;
                break;
            }

            *d++ = ch;
            break;

        case quoted:
            if (ch >= '0' && ch <= '9') {
                decoded = (unsigned char) (ch - '0');
                state = quoted_second;
                break;
            }

            c = (unsigned char) (ch | 0x20);
            if (c >= 'a' && c <= 'f') {
                decoded = (unsigned char) (c - 'a' + 10);
                state = quoted_second;
                break;
            }

            state = usual;
            *d++ = ch;
            break;

        case quoted_second:
            state = usual;

            if (ch >= '0' && ch <= '9') {
                *d++ = (unsigned char) ((decoded << 4) + (ch - '0'));
                break;
            }

            c = (unsigned char) (ch | 0x20);
            if (c >= 'a' && c <= 'f') {
                *d++ = (unsigned char) ((decoded << 4) + (c - 'a') + 10);
                break;
            }

            break;
        }
    }

    return d - start;
}


static int
is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t                 path_len, args_len, n1, n2, i;
    unsigned char         *buf, *a, *b, hex[64];
    const unsigned char   *args, *qm, *id;
    chaindata_query_t      q;
    chaindata_tx_params_t  p;
    chaindata_target_e     rc;

    /* percent-decoding: the same bytes as nginx's, never longer */
    a = malloc(size + 1);
    b = malloc(size + 1);
    if (a == NULL || b == NULL) {
        abort();
    }

    n1 = chaindata_unescape(a, data, size);
    n2 = reference_unescape(b, data, size);

    if (n1 != n2 || n1 > size || memcmp(a, b, n1) != 0) {
        abort();
    }

    free(a);
    free(b);

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

    rc = chaindata_tx_target(data, path_len, &q, &p);

    /* the id is the path's last segment, one trailing slash ignored */
    if (path_len && data[path_len - 1] == '/') {
        path_len--;
    }

    if (p.id.data < data || p.id.data + p.id.len != data + path_len
        || memchr(p.id.data, '/', p.id.len)
        || (p.id.data > data && p.id.data[-1] != '/'))
    {
        abort();
    }

    if (q.used > args_len) {
        abort();
    }

    switch (rc) {

    case CHAINDATA_TARGET_BAD_PARAM:
        break;

    case CHAINDATA_TARGET_ADD_PREFIX:
    case CHAINDATA_TARGET_OK:
    case CHAINDATA_TARGET_BAD_QUERY:
        id = p.id.data;

        if (rc == CHAINDATA_TARGET_ADD_PREFIX) {
            if (p.id.len != 64) {
                abort();
            }

        } else if (p.id.len != 66 || id[0] != '0' || id[1] != 'x') {
            abort();

        } else {
            id += 2;
        }

        chaindata_hex_encode(hex, p.txid, 32);

        for (i = 0; i < 64; i++) {
            if (!is_hex(id[i]) || hex[i] != (id[i] | 0x20)) {
                abort();
            }
        }

        if (rc == CHAINDATA_TARGET_OK
            && (p.limit < 1 || p.limit > CHAINDATA_EVENT_LIMIT_MAX
                || p.exclude_fargs > 1))
        {
            abort();
        }

        if (rc == CHAINDATA_TARGET_BAD_QUERY) {
            if (q.name == NULL) {
                abort();
            }

            if (strcmp(q.name, "exclude_function_args") == 0
                || strcmp(q.name, "unanchored") == 0)
            {
                if (q.rc != CHAINDATA_ARG_NOT_BOOLEAN) {
                    abort();
                }

            } else if (strcmp(q.name, "event_limit") == 0) {
                if (q.rc == CHAINDATA_ARG_NOT_BOOLEAN
                    || q.rc == CHAINDATA_ARG_OK
                    || (q.rc == CHAINDATA_ARG_TOO_LARGE
                        && q.bound != CHAINDATA_EVENT_LIMIT_MAX))
                {
                    abort();
                }

            } else if (strcmp(q.name, "event_offset") == 0) {
                if (q.rc != CHAINDATA_ARG_NOT_INTEGER
                    && q.rc != CHAINDATA_ARG_TOO_SMALL)
                {
                    abort();
                }

            } else {
                abort();
            }
        }

        break;

    default:
        /* NO_ROUTE is not the tx route's; ERROR means a lack of room */
        abort();
    }

    free(buf);

    return 0;
}
