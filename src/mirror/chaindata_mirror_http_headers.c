
/*
 * chaindata-mirror: what a request carries and where it may go, below
 * the HTTP client (chaindata_mirror_http.c): the request headers bound
 * to their source, and the URLs made of what upstream wrote checked
 * before they are sent.
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_hex.h"
#include "chaindata_mirror.h"
#include "chaindata_secret.h"


/*
 * Request headers (doc/operations.md, "Keys and credentials").  Each is
 * bound to one source and goes with that source's requests only: those
 * whose URL starts with the source's URL (a redirect is never followed).
 * --header is bound to the one source there is, and refused when there
 * are more: it once went to every upstream.  The value leaves the
 * command line at once; from a file (one header a line, the file
 * readable by its owner alone), it never is on it.
 */


static int
chaindata_http_add(struct curl_slist **list, const char *prog,
    const char *opt, const char *header)
{
    struct curl_slist  *l;

    if (strchr(header, ':') == NULL || strpbrk(header, "\r\n")) {
        fprintf(stderr, "%s: --%s wants \"Name: value\"\n", prog, opt);
        return -1;
    }

    l = curl_slist_append(*list, header);
    if (l == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return -1;
    }

    *list = l;

    return 0;
}


/* a file's non-empty lines, each a header */

static int
chaindata_http_add_file(struct curl_slist **list, const char *prog,
    const char *opt, const char *path)
{
    int    rc;
    char  *text, *line, *next;

    text = chaindata_secret_read_file(prog, path);
    if (text == NULL) {
        return -1;
    }

    rc = 0;

    for (line = text; rc == 0 && line; line = next) {
        next = strchr(line, '\n');

        if (next) {
            *next++ = '\0';
        }

        line[strcspn(line, "\r")] = '\0';

        if (*line) {
            rc = chaindata_http_add(list, prog, opt, line);
        }
    }

    chaindata_secret_free(text);

    return rc;
}


/*
 * --header and --SOURCE-header (o->value: the source + 1, 0 unbound),
 * the value then blanked out of the command line (ps shows it otherwise)
 */

static int
chaindata_http_opt_header(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    int                  rc;
    chaindata_http_t    *h = conf;
    struct curl_slist  **list;

    list = o->value ? &h->bound[o->value - 1] : &h->headers;
    rc = chaindata_http_add(list, prog, o->name, arg);

    memset(arg, 'x', strlen(arg));

    return rc;
}


/* --SOURCE-header-file (o->value: the source + 1) */

static int
chaindata_http_opt_file(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    chaindata_http_t  *h = conf;

    return chaindata_http_add_file(&h->bound[o->value - 1], prog, o->name,
                                   arg);
}


/* an option of a source's headers: --SOURCE-header, --SOURCE-header-file */
#define CHAINDATA_HTTP_OPT(opt, source, set_, value_name, text)              \
    { .name = opt, .kind = CHAINDATA_OPT_CALL, .arg = value_name,            \
      .value = (source) + 1, .set = set_, .help = text }

const chaindata_opt_t  chaindata_http_options[] = {
    CHAINDATA_HTTP_OPT("stacks-header", CHAINDATA_SOURCE_STACKS,
                       chaindata_http_opt_header, "'H: V'", NULL),
    CHAINDATA_HTTP_OPT("runes-header", CHAINDATA_SOURCE_RUNES,
                       chaindata_http_opt_header, "'H: V'", NULL),
    CHAINDATA_HTTP_OPT("platform-header", CHAINDATA_SOURCE_PLATFORM,
                       chaindata_http_opt_header, "'H: V'",
                       "a request header for that API alone, e.g. its API "
                       "key (repeatable; never logged)"),
    CHAINDATA_HTTP_OPT("stacks-header-file", CHAINDATA_SOURCE_STACKS,
                       chaindata_http_opt_file, "F", NULL),
    CHAINDATA_HTTP_OPT("runes-header-file", CHAINDATA_SOURCE_RUNES,
                       chaindata_http_opt_file, "F", NULL),
    CHAINDATA_HTTP_OPT("platform-header-file", CHAINDATA_SOURCE_PLATFORM,
                       chaindata_http_opt_file, "F",
                       "its headers from a file, one a line (chmod 600; a "
                       "bare name is a systemd credential)"),
    { .name = "header", .kind = CHAINDATA_OPT_CALL, .arg = "'H: V'",
      .set = chaindata_http_opt_header,
      .help = "a header for the one source there is" },
    { .name = NULL }
};


/* sources at the same URL: one host, one list of headers for both */

static int
chaindata_http_share(chaindata_http_t *h)
{
    size_t              i, j;
    struct curl_slist  *l, *merged[CHAINDATA_SOURCES];

    memset(merged, 0, sizeof(merged));

    for (i = 0; i < CHAINDATA_SOURCES; i++) {
        for (j = 0; h->base[i] && j < CHAINDATA_SOURCES; j++) {
            if (h->base[j] == NULL || strcmp(h->base[i], h->base[j]) != 0) {
                continue;
            }

            for (l = h->bound[j]; l; l = l->next) {
                if (chaindata_http_add(&merged[i], "chaindata-mirror", "header",
                                   l->data) != 0) {
                    return -1;
                }
            }
        }
    }

    for (i = 0; i < CHAINDATA_SOURCES; i++) {
        curl_slist_free_all(h->bound[i]);
        h->bound[i] = merged[i];
    }

    return 0;
}


int
chaindata_http_bind(chaindata_http_t *h)
{
    size_t              i, n, one;
    struct curl_slist  *l;

    n = 0;
    one = 0;

    for (i = 0; i < CHAINDATA_SOURCES; i++) {
        if (h->base[i]) {
            n++;
            one = i;

        } else if (h->bound[i]) {
            fprintf(stderr, "chaindata-mirror: --%s-header without "
                    "--%s-api\n", chaindata_source_names[i],
                    chaindata_source_names[i]);
            return -1;
        }
    }

    if (chaindata_http_share(h) != 0) {
        return -1;
    }

    if (h->headers == NULL) {
        return 0;
    }

    if (n != 1) {
        fprintf(stderr, "chaindata-mirror: --header would go to every "
                "source: with more than one, bind each header to its "
                "source (--stacks-header, --runes-header, "
                "--platform-header)\n");
        return -1;
    }

    for (l = h->headers; l; l = l->next) {
        if (chaindata_http_add(&h->bound[one], "chaindata-mirror", "header",
                               l->data)
            != 0)
        {
            return -1;
        }
    }

    curl_slist_free_all(h->headers);
    h->headers = NULL;

    return 0;
}


/*
 * The headers of a request: those of the source whose URL is the
 * longest that starts the request's URL, up to a '/', a '?' or its end.
 */

struct curl_slist *
chaindata_http_headers(chaindata_http_t *h, const char *url)
{
    char                 end;
    size_t               i, len, best;
    struct curl_slist   *l;

    l = NULL;
    best = 0;

    for (i = 0; i < CHAINDATA_SOURCES; i++) {
        if (h->base[i] == NULL) {
            continue;
        }

        len = strlen(h->base[i]);

        if (len <= best || len == 0 || strncmp(url, h->base[i], len) != 0) {
            continue;
        }

        end = url[len];

        if (end == '\0' || end == '/' || end == '?'
            || h->base[i][len - 1] == '/')
        {
            best = len;
            l = h->bound[i];
        }
    }

    return l;
}


int
chaindata_url_txid(const chaindata_jv_t *id)
{
    int            prefixed;
    unsigned char  bin[32];

    return id && id->type == CHAINDATA_JV_STRING && id->len == 66
           && chaindata_txid_parse(id->str, id->len, bin, &prefixed) == 0
           && prefixed;
}


/* a document's tx_id, "0x" and 64 hex digits, into its 32 bytes: 0, or -1 */

int
chaindata_doc_txid(const chaindata_jv_t *doc, unsigned char *id)
{
    int                    prefixed;
    const chaindata_jv_t  *v;

    v = doc->type == CHAINDATA_JV_OBJECT ? chaindata_jv_get(doc, "tx_id")
                                         : NULL;

    return v && v->type == CHAINDATA_JV_STRING
           && chaindata_txid_parse(v->str, v->len, id, &prefixed) == 0
           && prefixed ? 0 : -1;
}


/*
 * A URL sent as it reads: after "scheme://host", a path of letters,
 * digits and "-._~:@!$*+,;=" (no '%': no encoded dot either) with no "."
 * or ".." segment (libcurl would resolve it, sending a path that no
 * longer starts with the source's), then a query of those, '%' and '&'
 * but no '?' or '/', no fragment.  1 plain; 0 with *bad the
 * offset of what is not.
 */

int
chaindata_url_plain(const char *url, size_t *bad)
{
    int          query;
    size_t       seg;
    const char  *p, *s;

    p = strstr(url, "://");
    p = p ? strchr(p + 3, '/') : NULL;

    if (p == NULL) {
        *bad = 0;
        return 0;
    }

    query = 0;
    seg = 0;

    for (s = p; *s; s++) {
        if (!query && (*s == '/' || *s == '?')) {
            /* the segment that ends here: "." or ".." */
            if ((seg == 1 && s[-1] == '.')
                || (seg == 2 && s[-1] == '.' && s[-2] == '.'))
            {
                break;
            }

            seg = 0;
            query = (*s == '?');
            continue;
        }

        seg++;

        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
            || (*s >= '0' && *s <= '9') || strchr("-._~:@!$*+,;=", *s)
            || (query && strchr("%&", *s)))
        {
            continue;
        }

        break;
    }

    if (*s == '\0' && !query
        && ((seg == 1 && s[-1] == '.')
            || (seg == 2 && s[-1] == '.' && s[-2] == '.')))
    {
        s--;
    }

    *bad = (size_t) (s - url);

    return *s == '\0';
}
