
/*
 * chaindata: request targets taken apart without nginx (see the header).
 */


#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_jsnum.h"
#include "chaindata_paths.h"


/*
 * One step of the decoding at src: the byte it gives (or -1 when the step
 * gives none), and where the next step starts.
 */

static const unsigned char *
chaindata_unescape_step(const unsigned char *src,
    const unsigned char *end, int *byte)
{
    int  hi, lo;

    *byte = -1;

    if (*src != '%') {
        *byte = *src;
        return src + 1;
    }

    /* "%" at the end: dropped */
    if (++src == end) {
        return src;
    }

    hi = chaindata_hex_value(*src);

    if (hi < 0) {
        /* "%" before a non-hex character: the character stays */
        *byte = *src;
        return src + 1;
    }

    /* "%" and a digit at the end: dropped */
    if (++src == end) {
        return src;
    }

    lo = chaindata_hex_value(*src++);

    /* "%", a digit and a non-hex character: all three dropped */
    if (lo >= 0) {
        *byte = hi << 4 | lo;
    }

    return src;
}


size_t
chaindata_unescape(unsigned char *dst, const unsigned char *src, size_t len)
{
    int                   byte;
    unsigned char        *d;
    const unsigned char  *end;

    d = dst;
    end = src + len;

    while (src < end) {
        src = chaindata_unescape_step(src, end, &byte);

        if (byte >= 0) {
            *d++ = (unsigned char) byte;
        }
    }

    return d - dst;
}


void
chaindata_segment_last(const unsigned char *path, size_t len,
    chaindata_span_t *seg)
{
    const unsigned char  *p, *end;

    end = path + len;

    for (p = end; p > path && p[-1] != '/'; p--) { /* void */ }

    seg->data = p;
    seg->len = end - p;
}


int
chaindata_segment_before(const unsigned char *path, size_t len,
    const char *last, chaindata_span_t *param)
{
    size_t                n;
    const unsigned char  *slash, *start;
    chaindata_span_t      seg;

    chaindata_segment_last(path, len, &seg);

    n = strlen(last);

    if (seg.len != n || memcmp(seg.data, last, n) != 0) {
        return -1;
    }

    /* the slash before the last segment, which must not be the first */
    if (seg.data - path < 2) {
        return -1;
    }

    slash = seg.data - 1;

    for (start = slash; start > path && start[-1] != '/'; start--) {
        /* void */
    }

    param->data = start;
    param->len = slash - start;

    return 0;
}


void
chaindata_query_init(chaindata_query_t *q,
    const unsigned char *args, size_t len, unsigned char *buf)
{
    memset(q, 0, sizeof(chaindata_query_t));

    q->args = args;
    q->len = len;
    q->buf = buf;
}


/* the raw name of an argument is name, once percent-decoded */

static int
chaindata_query_name_is(const unsigned char *raw, size_t len,
    const char *name)
{
    int                   byte;
    const unsigned char  *end;

    end = raw + len;

    while (raw < end) {
        raw = chaindata_unescape_step(raw, end, &byte);

        if (byte < 0) {
            continue;
        }

        if (*name == '\0' || (unsigned char) *name != byte) {
            return 0;
        }

        name++;
    }

    return *name == '\0';
}


/*
 * How many arguments of args (name&name=value&...) have the name, their
 * names compared percent-decoded as upstream decodes them, and the raw
 * value of the first (empty for a bare "name").
 */

static size_t
chaindata_query_find(const unsigned char *args, size_t len,
    const char *name, const unsigned char **value, size_t *value_len)
{
    size_t                n;
    const unsigned char  *p, *end, *amp, *eq;

    p = args;
    end = args + len;
    n = 0;

    *value = args;
    *value_len = 0;

    while (p < end) {
        amp = memchr(p, '&', end - p);
        if (amp == NULL) {
            amp = end;
        }

        eq = memchr(p, '=', amp - p);

        if (chaindata_query_name_is(p, (eq ? eq : amp) - p, name)
            && n++ == 0)
        {
            *value = eq ? eq + 1 : amp;
            *value_len = amp - *value;
        }

        p = amp + 1;
    }

    return n;
}


int
chaindata_query_value(chaindata_query_t *q,
    const char *name, chaindata_span_t *value)
{
    size_t                n, raw_len;
    unsigned char        *dst;
    const unsigned char  *raw;

    n = chaindata_query_find(q->args, q->len, name, &raw, &raw_len);

    if (n == 0) {
        return 0;
    }

    /* the value and a NUL after it */
    if (raw_len >= q->len - q->used) {
        return -1;
    }

    dst = q->buf + q->used;
    value->data = dst;
    value->len = chaindata_unescape(dst, raw, raw_len);
    dst[value->len] = '\0';
    q->used += value->len + 1;

    return n > 1 ? 2 : 1;
}


static int
chaindata_query_fail(chaindata_query_t *q,
    const char *name, chaindata_arg_e rc, uint64_t bound)
{
    q->name = name;
    q->rc = rc;
    q->bound = bound;

    return 1;
}


/*
 * The checks of upstream's validator on a value already looked up (n as
 * query_value says, not 0): the value coerced as Number() does, then an
 * integer from min to max (UINT64_MAX: no upper bound).  A value given
 * twice is not an integer: upstream sees an array.
 */

static int
chaindata_check_number(chaindata_query_t *q,
    const char *name, int n, chaindata_span_t *value, uint64_t min,
    uint64_t max, double *d)
{
    if (n > 1
        || chaindata_js_number(value->data, value->len, d) != 0
        || !chaindata_js_is_integer(*d))
    {
        return chaindata_query_fail(q, name,
                                    CHAINDATA_ARG_NOT_INTEGER, 0);
    }

    if (*d < (double) min) {
        return chaindata_query_fail(q, name,
                                    CHAINDATA_ARG_TOO_SMALL, min);
    }

    if (max != UINT64_MAX && *d > (double) max) {
        return chaindata_query_fail(q, name,
                                    CHAINDATA_ARG_TOO_LARGE, max);
    }

    return 0;
}


int
chaindata_query_uint(chaindata_query_t *q,
    const char *name, uint64_t min, uint64_t max, uint64_t dflt,
    uint64_t *out)
{
    int               n, rc;
    double            d;
    chaindata_span_t  value;

    n = chaindata_query_value(q, name, &value);

    if (n <= 0) {
        *out = dflt;
        return n;
    }

    rc = chaindata_check_number(q, name, n, &value, min, max, &d);

    if (rc == 0) {
        *out = chaindata_js_to_u64(d);
    }

    return rc;
}


int
chaindata_query_bool(chaindata_query_t *q, const char *name, unsigned *out)
{
    int               n;
    chaindata_span_t  value;

    *out = 0;

    n = chaindata_query_value(q, name, &value);

    if (n <= 0) {
        return n;
    }

    if (n == 1) {
        if (value.len == 4 && memcmp(value.data, "true", 4) == 0) {
            *out = 1;
            return 0;
        }

        if (value.len == 5 && memcmp(value.data, "false", 5) == 0) {
            return 0;
        }
    }

    return chaindata_query_fail(q, name,
                                CHAINDATA_ARG_NOT_BOOLEAN, 0);
}


static chaindata_target_e
chaindata_query_target(int rc)
{
    return rc == 0 ? CHAINDATA_TARGET_OK
                   : rc > 0 ? CHAINDATA_TARGET_BAD_QUERY
                            : CHAINDATA_TARGET_ERROR;
}


/*
 * Upstream validates the path first, then the query in this order:
 * event_limit, event_offset, exclude_function_args, unanchored; the first
 * failure is reported.
 */

chaindata_target_e
chaindata_tx_target(const unsigned char *path, size_t len,
    chaindata_query_t *q, chaindata_tx_params_t *p)
{
    int       rc, prefixed;
    unsigned  unanchored;

    /* upstream ignores a trailing slash: "…/{tx_id}/" is "…/{tx_id}" */
    if (len && path[len - 1] == '/') {
        len--;
    }

    chaindata_segment_last(path, len, &p->id);

    if (chaindata_txid_parse(p->id.data, p->id.len, p->txid,
                             &prefixed)
        != 0)
    {
        return CHAINDATA_TARGET_BAD_PARAM;
    }

    if (!prefixed) {
        return CHAINDATA_TARGET_ADD_PREFIX;
    }

    rc = chaindata_query_uint(q, "event_limit", 0,
                              CHAINDATA_EVENT_LIMIT_MAX,
                              CHAINDATA_EVENT_LIMIT,
                              &p->limit);
    if (rc != 0) {
        return chaindata_query_target(rc);
    }

    if (p->limit == 0) {
        p->limit = CHAINDATA_EVENT_LIMIT;
    }

    rc = chaindata_query_uint(q, "event_offset", 0, UINT64_MAX, 0,
                              &p->offset);
    if (rc != 0) {
        return chaindata_query_target(rc);
    }

    rc = chaindata_query_bool(q, "exclude_function_args",
                              &p->exclude_fargs);
    if (rc != 0) {
        return chaindata_query_target(rc);
    }

    /* accepted and ignored: microblocks are gone since Nakamoto */
    rc = chaindata_query_bool(q, "unanchored", &unanchored);

    return chaindata_query_target(rc);
}


size_t
chaindata_txid_list_key(unsigned char *key, const unsigned char *s,
    size_t len)
{
    if (len != CHAINDATA_TXID_HEX_LEN
        || chaindata_hex_decode(key, s, len) != 0)
    {
        return 0;
    }

    return CHAINDATA_TXID_LEN;
}


/*
 * The path parameter, then offset, then limit, as upstream validates them.
 */

chaindata_target_e
chaindata_page_target(const unsigned char *path, size_t len,
    const char *last, chaindata_list_key_pt key,
    chaindata_query_t *q, chaindata_page_params_t *p)
{
    chaindata_span_t  param;

    if (chaindata_segment_before(path, len, last, &param) != 0) {
        return CHAINDATA_TARGET_NO_ROUTE;
    }

    p->key_len = key(p->key, param.data, param.len);

    if (p->key_len == 0) {
        return CHAINDATA_TARGET_BAD_PARAM;
    }

    return chaindata_page_query(q, p);
}


/*
 * A huge offset is valid (its page is empty); the offset is echoed as
 * upstream echoes the number it made of it ("+2" is 2, "-0" is 0).
 */

chaindata_target_e
chaindata_page_query(chaindata_query_t *q, chaindata_page_params_t *p)
{
    int               n, rc;
    double            d;
    chaindata_span_t  value;

    n = chaindata_query_value(q, "offset", &value);
    d = 0;

    if (n > 0) {
        rc = chaindata_check_number(q, "offset", n, &value, 0,
                                    UINT64_MAX, &d);
        if (rc != 0) {
            return chaindata_query_target(rc);
        }

    } else if (n < 0) {
        return CHAINDATA_TARGET_ERROR;
    }

    p->offset = chaindata_js_to_u64(d);
    p->offset_text.data = p->offset_buf;
    p->offset_text.len = chaindata_js_integer_text(p->offset_buf, d);

    rc = chaindata_query_uint(q, "limit", 1,
                              CHAINDATA_PAGE_LIMIT_MAX,
                              CHAINDATA_PAGE_LIMIT,
                              &p->limit);

    return chaindata_query_target(rc);
}
