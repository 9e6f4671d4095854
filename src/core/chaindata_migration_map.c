
/*
 * chaindata: the mapping of the deprecated Bitcoin-layer endpoints and
 * what a request target makes of it (see the header).
 */


#include <string.h>

#include "chaindata_escape.h"
#include "chaindata_hex.h"
#include "chaindata_migration_map.h"


/*
 * The mapping of the deprecated endpoints, the one place it is held;
 * doc/module.md ("Deprecated Bitcoin-layer endpoints", "The mapping") writes
 * the same table down.  Paths are the part after /ordinals/v1/ or /ordinals/,
 * as the tables give them, with their query parameters.
 */

const chaindata_mig_row_t  chaindata_mig_rows[] = {

    { .section = "9.2",
      .path = "/inscriptions",
      .query = chaindata_mig_list("limit", "offset", "after",
                   "before", "sat_ordinal_range", "content_type",
                   "content_length_range", "tag"),
      .replacement = "/inscriptions",
      .supported = chaindata_mig_list("limit", "offset", "after",
                       "content_type"),
      .text = "service params: limit (default 20, max 100), offset, after, "
              "before, sat_ordinal_range, content_type, "
              "content_length_range, tag. Replacement supports limit, "
              "offset, after, content_type only; no before, "
              "sat_ordinal_range, content_length_range, tag" },

    { .section = "9.2",
      .path = "/inscriptions/{inscriptionId}",
      .replacement = "/inscriptions/{inscriptionId}",
      .redirect = 1,
      .text = "none" },

    { .section = "9.2",
      .path = "/inscriptions/{inscriptionId}/content",
      .replacement = "/inscriptions/{inscriptionId}/content",
      .changes = CHAINDATA_MIG_RAW_CONTENT,
      .redirect = 1,
      .text = "raw content; MIME type must be handled" },

    { .section = "9.2",
      .path = "/inscriptions/{inscriptionId}/sat",
      .alternative = "/inscriptions/{inscriptionId}",
      .field = "sat_ordinal",
      .text = "replacement's inscription details include sat_ordinal "
              "only" },

    { .section = "9.2",
      .path = "/inscriptions/block-height/{blockHeight}",
      .query = chaindata_mig_list("limit", "offset"),
      .replacement = "/inscriptions/block/{blockHeight}",
      .supported = chaindata_mig_list("limit", "offset"),
      .text = "path segment differs; limit and offset supported" },

    { .section = "9.2",
      .path = "/inscriptions/block-hash/{blockHash}",
      .query = chaindata_mig_list("limit", "offset"),
      .replacement = "/inscriptions/block/{blockHash}",
      .supported = chaindata_mig_list("limit", "offset"),
      .text = "path segment differs; pagination supported" },

    { .section = "9.2",
      .path = "/collections",
      .query = chaindata_mig_list("limit", "offset"),
      .replacement = "/collections",
      .supported = chaindata_mig_list("limit", "offset"),
      .redirect = 1,
      .text = "limit (default 20, max 100), offset" },

    { .section = "9.2",
      .path = "/collections/{collectionId}",
      .replacement = "/collections/{collectionId}",
      .redirect = 1,
      .text = "none" },

    { .section = "9.2",
      .path = "/collections/{collectionId}/inscriptions",
      .query = chaindata_mig_list("limit", "offset"),
      .replacement = "/collections/{collectionId}/inscriptions",
      .supported = chaindata_mig_list("limit", "offset"),
      .redirect = 1,
      .text = "limit, offset" },

    { .section = "9.2",
      .path = "/stats",
      .replacement = "/stats",
      .redirect = 1,
      .text = "none" },

    { .section = "9.3",
      .path = "/brc-20/tokens",
      .query = chaindata_mig_list("limit", "offset"),
      .text = "no global token list" },

    { .section = "9.3",
      .path = "/brc-20/tokens/{ticker}",
      .replacement = "/v1/brc20/ticker/{ticker}",
      .changes = CHAINDATA_MIG_PRICE_DATA,
      .text = "replacement adds price data" },

    { .section = "9.3",
      .path = "/brc-20/tokens/{ticker}/holders",
      .query = chaindata_mig_list("limit", "offset"),
      .text = "no holder list" },

    { .section = "9.3",
      .path = "/brc-20/tokens/{ticker}/events",
      .query = chaindata_mig_list("limit", "offset",
                                  "event_type"),
      .text = "no per-token event history" },

    { .section = "9.3",
      .path = "/brc-20/balances/{address}",
      .query = chaindata_mig_list("ticker", "limit", "offset"),
      .replacement = "/v1/ordinals/address/{address}/brc20",
      .base = CHAINDATA_MIG_BASE_BRC20,
      .ignored = chaindata_mig_list("limit", "offset"),
      .changes = CHAINDATA_MIG_FULL_LIST,
      .text = "confirmed balances per ticker; limit and offset accepted "
              "but currently ignored, the full list is returned; base URL "
              "and path change" },
};


const chaindata_mig_extra_t  chaindata_mig_extras[] = {
    { "mint", chaindata_mig_list("estimate", "order", "execute"),
      "mint (estimate, order, execute)" },
    { "deploy", chaindata_mig_list("estimate"),
      "deploy (estimate and related)" },
    { "swap_quote", chaindata_mig_list("quote"),
      "swap-quote" },
};


const size_t  chaindata_mig_nrows =
    sizeof(chaindata_mig_rows)
    / sizeof(chaindata_mig_rows[0]);

const size_t  chaindata_mig_nextras =
    sizeof(chaindata_mig_extras)
    / sizeof(chaindata_mig_extras[0]);


int
chaindata_mig_unreserved(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9')
           || c == '-' || c == '.' || c == '_' || c == '~';
}


/* may stand as is in a query string (RFC 3986 3.4, '%' apart) */

static int
chaindata_mig_query_char(unsigned char c)
{
    return chaindata_mig_unreserved(c)
           || (c != 0 && strchr("!$&'()*+,;=:@/?", c) != NULL);
}


static unsigned char *
chaindata_mig_pct(unsigned char *p, unsigned char c)
{
    static const unsigned char  hex[] = "0123456789ABCDEF";

    *p++ = '%';
    *p++ = hex[c >> 4];
    *p++ = hex[c & 0x0f];

    return p;
}


static int
chaindata_span_is(const chaindata_span_t *a,
    const chaindata_span_t *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}


int
chaindata_mig_in_list(const char *const *list,
    const chaindata_span_t *name)
{
    if (list == NULL) {
        return 0;
    }

    for ( /* void */ ; *list; list++) {
        if (strlen(*list) == name->len
            && memcmp(*list, name->data, name->len) == 0)
        {
            return 1;
        }
    }

    return 0;
}


/* skips the segment "name" (and its slash) at *p */

static void
chaindata_mig_skip(const unsigned char **p, const unsigned char *end,
    const char *name)
{
    size_t  len;

    len = strlen(name);

    if ((size_t) (end - *p) >= len && memcmp(*p, name, len) == 0
        && ((size_t) (end - *p) == len || (*p)[len] == '/'))
    {
        *p += len;

        if (*p < end) {
            (*p)++;
        }
    }
}


/*
 * Upstream served both /ordinals/... and /ordinals/v1/...: the version
 * segment goes, whether the prefix ends in it or the path starts with it.
 */

int
chaindata_mig_subpath(const unsigned char *uri, size_t len,
    const unsigned char *name, size_t name_len,
    chaindata_span_t *sub)
{
    int                   prefix, versioned;
    const unsigned char  *p, *end;

    p = uri;
    end = uri + len;

    prefix = name != NULL && name_len && len >= name_len
             && memcmp(uri, name, name_len) == 0;

    versioned = 0;

    if (prefix) {
        p += name_len;

        if (name[name_len - 1] != '/') {
            if (p < end && *p != '/') {
                return -1;
            }

            versioned = name_len >= 3
                        && memcmp(name + name_len - 3, "/v1", 3) == 0;

            if (p < end) {
                p++;
            }

        } else {
            versioned = name_len >= 4
                        && memcmp(name + name_len - 4, "/v1/", 4) == 0;
        }

    } else {
        if (p < end && *p == '/') {
            p++;
        }

        chaindata_mig_skip(&p, end, "ordinals");
    }

    if (!versioned) {
        chaindata_mig_skip(&p, end, "v1");
    }

    sub->data = p;
    sub->len = end - p;

    return 0;
}


/* "a/b/c" or "/a/b/c" into segments; -1 for empty ones or too many */

static int
chaindata_mig_split(const unsigned char *s, size_t len,
    chaindata_span_t *seg)
{
    int                   n;
    const unsigned char  *p, *end, *slash;

    p = s;
    end = s + len;

    if (p < end && *p == '/') {
        p++;
    }

    for (n = 0; p <= end; n++) {
        if (n == CHAINDATA_MIG_SEGMENTS) {
            return -1;
        }

        slash = memchr(p, '/', end - p);
        if (slash == NULL) {
            slash = end;
        }

        if (slash == p) {
            return -1;
        }

        seg[n].data = p;
        seg[n].len = slash - p;

        p = slash + 1;
    }

    return n;
}


static int
chaindata_mig_is_param(const chaindata_span_t *seg)
{
    return seg->len > 2 && seg->data[0] == '{'
           && seg->data[seg->len - 1] == '}';
}


static int
chaindata_mig_dots(const chaindata_span_t *seg)
{
    return (seg->len == 1 && seg->data[0] == '.')
           || (seg->len == 2 && seg->data[0] == '.' && seg->data[1] == '.');
}


/*
 * Static segments win over parameters, the earlier the better (as the
 * upstream router has it): ".../block-height/content" is a block height.
 */

int
chaindata_mig_match(const chaindata_span_t *sub,
    chaindata_mig_match_t *m)
{
    int                         n, k, i;
    size_t                      ri;
    unsigned                    score, best;
    chaindata_span_t            req[CHAINDATA_MIG_SEGMENTS];
    chaindata_span_t            tpl[CHAINDATA_MIG_SEGMENTS];
    const chaindata_mig_row_t  *row;

    m->row = NULL;
    m->nparams = 0;

    n = chaindata_mig_split(sub->data, sub->len, req);
    if (n <= 0) {
        return -1;
    }

    best = 0;

    for (ri = 0; ri < chaindata_mig_nrows; ri++) {
        row = &chaindata_mig_rows[ri];

        k = chaindata_mig_split((const unsigned char *) row->path,
                                strlen(row->path), tpl);
        if (k != n) {
            continue;
        }

        score = 1;

        for (i = 0; i < n; i++) {
            if (chaindata_mig_is_param(&tpl[i])) {
                /* nginx resolves dot segments; refuse any left anyway */
                if (chaindata_mig_dots(&req[i])) {
                    break;
                }

                continue;
            }

            if (!chaindata_span_is(&tpl[i], &req[i])) {
                break;
            }

            score |= 1u << (CHAINDATA_MIG_SEGMENTS - i);
        }

        if (i < n || score <= best) {
            continue;
        }

        best = score;
        m->row = row;
        m->nparams = 0;

        for (i = 0; i < n; i++) {
            if (chaindata_mig_is_param(&tpl[i])) {
                m->params[m->nparams].name.data = tpl[i].data + 1;
                m->params[m->nparams].name.len = tpl[i].len - 2;
                m->params[m->nparams].value = req[i];
                m->nparams++;
            }
        }
    }

    return m->row ? 0 : -1;
}


chaindata_mig_param_e
chaindata_mig_check(const chaindata_mig_match_t *m,
    size_t *which)
{
    size_t                        i;
    const chaindata_mig_param_t  *param;

    for (i = 0; i < m->nparams; i++) {
        param = &m->params[i];
        *which = i;

        if (param->value.len > CHAINDATA_MIG_PARAM_MAX) {
            return CHAINDATA_MIG_PARAM_LONG;
        }

        if (chaindata_utf8_valid_len(param->value.data,
                                     param->value.len)
            != param->value.len)
        {
            return CHAINDATA_MIG_PARAM_UTF8;
        }
    }

    return CHAINDATA_MIG_PARAM_OK;
}


static const chaindata_span_t *
chaindata_mig_param(const chaindata_mig_match_t *m,
    const chaindata_span_t *name)
{
    size_t  i;

    for (i = 0; i < m->nparams; i++) {
        if (chaindata_span_is(&m->params[i].name, name)) {
            return &m->params[i].value;
        }
    }

    return NULL;
}


size_t
chaindata_mig_expand(unsigned char *out, const char *tpl,
    const chaindata_mig_match_t *m)
{
    size_t                   len, i;
    const unsigned char     *s, *end, *close;
    chaindata_span_t         name;
    const chaindata_span_t  *value;

    s = (const unsigned char *) tpl;
    end = s + strlen(tpl);
    len = 0;

    for ( /* void */ ; s < end; s++) {
        close = (*s == '{') ? memchr(s, '}', end - s) : NULL;

        if (close == NULL) {
            if (out) {
                out[len] = *s;
            }

            len++;
            continue;
        }

        name.data = s + 1;
        name.len = close - s - 1;
        s = close;

        value = chaindata_mig_param(m, &name);
        if (value == NULL) {
            return (size_t) -1;
        }

        for (i = 0; i < value->len; i++) {
            if (chaindata_mig_unreserved(value->data[i])) {
                if (out) {
                    out[len] = value->data[i];
                }

                len++;

            } else {
                if (out) {
                    chaindata_mig_pct(out + len, value->data[i]);
                }

                len += 3;
            }
        }
    }

    return len;
}


static int
chaindata_mig_listed(const chaindata_mig_names_t *names,
    const chaindata_span_t *name)
{
    size_t  i;

    for (i = 0; i < names->n; i++) {
        if (chaindata_span_is(&names->names[i], name)) {
            return 1;
        }
    }

    return 0;
}


void
chaindata_mig_query(const chaindata_mig_row_t *row,
    const unsigned char *args, size_t len, unsigned char *buf,
    chaindata_mig_names_t *unsupported,
    chaindata_mig_names_t *ignored)
{
    const unsigned char    *p, *end, *amp, *eq;
    chaindata_span_t        name;
    chaindata_mig_names_t  *to;

    p = args;
    end = args + len;

    for ( /* void */ ; p < end; p = amp + 1) {
        amp = memchr(p, '&', end - p);
        if (amp == NULL) {
            amp = end;
        }

        eq = memchr(p, '=', amp - p);
        if (eq == NULL) {
            eq = amp;
        }

        if (eq == p) {
            continue;
        }

        /* names are disjoint parts of the query: buf has room for all */
        name.data = buf;
        name.len = chaindata_unescape(buf, p, eq - p);
        buf += name.len;

        if (name.len == 0
            || chaindata_mig_in_list(row->supported, &name))
        {
            continue;
        }

        to = chaindata_mig_in_list(row->ignored, &name)
             ? ignored : unsupported;

        if (to->n < CHAINDATA_MIG_QUERY_MAX
            && !chaindata_mig_listed(to, &name))
        {
            to->names[to->n++] = name;
        }
    }
}


size_t
chaindata_mig_escape_query(unsigned char *out,
    const unsigned char *args, size_t len)
{
    unsigned char        *p;
    const unsigned char  *s, *end;

    p = out;
    end = args + len;

    for (s = args; s < end; s++) {
        if (chaindata_mig_query_char(*s)
            || (*s == '%' && end - s > 2
                && chaindata_hex_value(s[1]) >= 0
                && chaindata_hex_value(s[2]) >= 0))
        {
            *p++ = *s;

        } else {
            p = chaindata_mig_pct(p, *s);
        }
    }

    return p - out;
}
