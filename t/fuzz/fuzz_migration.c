
/*
 * libFuzzer target: the deprecated endpoints' request targets (the first
 * byte picks the location the path is below, the rest is "path?query"):
 * the path below the location matched against the mapping table, its
 * parameters checked and put into the replacement's path, the query's
 * parameter names sorted and the query made safe for a Location
 * (chaindata_migration_map.c).
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_migration_map.h"


/* the locations: prefixes as nginx.conf.example has them, and none */
static const char  *prefixes[] = {
    "/ordinals/", "/ordinals", "/ordinals/v1", "/ordinals/v1/", "/", "/x/",
    NULL
};


static int
is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
           || (c >= 'A' && c <= 'F');
}


/* a URL path: unreserved characters, "/" and "%" with two hex digits */

static void
check_url_path(const unsigned char *s, size_t len)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if (s[i] == '%') {
            if (len - i < 3 || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) {
                abort();
            }

            i += 2;
            continue;
        }

        if (!chaindata_mig_unreserved(s[i]) && s[i] != '/') {
            abort();
        }
    }
}


static void
check_expand(const char *tpl, const chaindata_mig_match_t *m)
{
    size_t          len, len2;
    unsigned char  *out;

    if (tpl == NULL) {
        return;
    }

    len = chaindata_mig_expand(NULL, tpl, m);
    if (len == (size_t) -1) {
        abort();
    }

    out = malloc(len + 1);
    if (out == NULL) {
        abort();
    }

    len2 = chaindata_mig_expand(out, tpl, m);

    if (len2 != len) {
        abort();
    }

    check_url_path(out, len);
    free(out);
}


static void
check_names(const chaindata_mig_names_t *names,
    const chaindata_mig_row_t *row, const unsigned char *buf,
    size_t len)
{
    size_t  i, k;

    if (names->n > CHAINDATA_MIG_QUERY_MAX) {
        abort();
    }

    for (i = 0; i < names->n; i++) {
        if (names->names[i].len == 0
            || names->names[i].data < buf
            || names->names[i].data + names->names[i].len > buf + len
            || chaindata_mig_in_list(row->supported,
                                     &names->names[i]))
        {
            abort();
        }

        for (k = 0; k < i; k++) {
            if (names->names[k].len == names->names[i].len
                && memcmp(names->names[k].data, names->names[i].data,
                          names->names[i].len) == 0)
            {
                abort();
            }
        }
    }
}


/* a query for a Location: RFC 3986 query characters, "%XX" */

static void
check_query(const unsigned char *args, size_t len)
{
    size_t          n, i;
    unsigned char  *out;

    out = malloc(3 * len + 1);
    if (out == NULL) {
        abort();
    }

    n = chaindata_mig_escape_query(out, args, len);

    if (n > 3 * len) {
        abort();
    }

    for (i = 0; i < n; i++) {
        if (out[i] == '%') {
            if (n - i < 3 || !is_hex(out[i + 1]) || !is_hex(out[i + 2])) {
                abort();
            }

            i += 2;
            continue;
        }

        if (!chaindata_mig_unreserved(out[i])
            && (out[i] == 0 || strchr("!$&'()*+,;=:@/?", out[i]) == NULL))
        {
            abort();
        }
    }

    free(out);
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t                 path_len, args_len, which, i;
    const char            *prefix;
    unsigned char         *buf;
    const unsigned char   *args, *qm;
    chaindata_span_t       sub;
    chaindata_mig_match_t  m;
    chaindata_mig_names_t  unsupported, ignored;

    if (size == 0) {
        return 0;
    }

    prefix = prefixes[data[0] % (sizeof(prefixes) / sizeof(prefixes[0]))];
    data++;
    size--;

    qm = memchr(data, '?', size);
    path_len = qm ? (size_t) (qm - data) : size;
    args = qm ? qm + 1 : data + size;
    args_len = qm ? size - path_len - 1 : 0;

    check_query(args, args_len);

    if (chaindata_mig_subpath(data, path_len,
                              (const unsigned char *) prefix,
                              prefix ? strlen(prefix) : 0, &sub)
        != 0)
    {
        return 0;
    }

    if (sub.data < data || sub.data + sub.len != data + path_len) {
        abort();
    }

    if (chaindata_mig_match(&sub, &m) != 0) {
        return 0;
    }

    if (m.row == NULL || m.nparams > CHAINDATA_MIG_SEGMENTS) {
        abort();
    }

    for (i = 0; i < m.nparams; i++) {
        if (m.params[i].value.len == 0
            || m.params[i].value.data < sub.data
            || m.params[i].value.data + m.params[i].value.len
               > sub.data + sub.len
            || memchr(m.params[i].value.data, '/', m.params[i].value.len))
        {
            abort();
        }
    }

    if (chaindata_mig_check(&m, &which)
        == CHAINDATA_MIG_PARAM_OK)
    {
        check_expand(m.row->replacement, &m);
        check_expand(m.row->alternative, &m);

    } else if (which >= m.nparams) {
        abort();
    }

    buf = malloc(args_len + 1);
    if (buf == NULL) {
        abort();
    }

    memset(&unsupported, 0, sizeof(unsupported));
    memset(&ignored, 0, sizeof(ignored));

    chaindata_mig_query(m.row, args, args_len, buf, &unsupported,
                        &ignored);

    check_names(&unsupported, m.row, buf, args_len);
    check_names(&ignored, m.row, buf, args_len);

    for (i = 0; i < ignored.n; i++) {
        if (!chaindata_mig_in_list(m.row->ignored,
                                   &ignored.names[i]))
        {
            abort();
        }
    }

    free(buf);

    return 0;
}
