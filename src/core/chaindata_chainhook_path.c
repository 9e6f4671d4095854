
/*
 * chaindata: the request targets of the chainhook route without nginx
 * (see the header).
 *
 * A request target as the client sent it is scanned in place: its path
 * ends at "?" (or a "#" a broken client sent), pieces are what lies
 * between slashes after the first one.
 */


#include <string.h>

#include "chaindata_chainhook_path.h"
#include "chaindata_hex.h"


/* how a path piece is compared with a literal */
#define CHAINDATA_PIECE_DECODE     0x01
#define CHAINDATA_PIECE_CASELESS   0x02
#define CHAINDATA_PIECE_LOOSE                                       \
    (CHAINDATA_PIECE_DECODE|CHAINDATA_PIECE_CASELESS)


const unsigned char *
chaindata_target_path_end(const unsigned char *p,
    const unsigned char *end)
{
    while (p < end && *p != '?' && *p != '#') {
        p++;
    }

    return p;
}


static const unsigned char *
chaindata_piece_end(const unsigned char *p, const unsigned char *end)
{
    while (p < end && *p != '/') {
        p++;
    }

    return p;
}


/* the piece that ends at e, which lies after the path's first slash */

static const unsigned char *
chaindata_piece_start(const unsigned char *e)
{
    while (e[-1] != '/') {
        e--;
    }

    return e;
}


/*
 * Where the literal ends at the start of [p, q), compared percent-decoded
 * if asked: past its last byte there, or NULL when [p, q) does not start
 * with it.
 */

static const unsigned char *
chaindata_piece_prefix(const unsigned char *p, const unsigned char *q,
    const char *lit, unsigned how)
{
    int            hi, lo;
    unsigned char  c;

    for ( /* void */ ; *lit != '\0'; lit++) {

        if (p == q) {
            return NULL;
        }

        c = *p++;

        if (c == '%' && (how & CHAINDATA_PIECE_DECODE)
            && q - p >= 2)
        {
            hi = chaindata_hex_value(p[0]);
            lo = chaindata_hex_value(p[1]);

            if (hi >= 0 && lo >= 0) {
                c = (unsigned char) (hi << 4 | lo);
                p += 2;
            }
        }

        if ((how & CHAINDATA_PIECE_CASELESS)
            && c >= 'A' && c <= 'Z')
        {
            c |= 0x20;
        }

        if (c != (unsigned char) *lit) {
            return NULL;
        }
    }

    return p;
}


/* whether the piece [p, q) is the literal, percent-decoded if asked */

static int
chaindata_piece_is(const unsigned char *p, const unsigned char *q,
    const char *lit, unsigned how)
{
    return chaindata_piece_prefix(p, q, lit, how) == q;
}


/* the piece that ends at q comes right before a "chainhooks" piece */

static int
chaindata_before_chainhooks(const unsigned char *q,
    const unsigned char *end)
{
    if (q == end) {
        return 0;
    }

    return chaindata_piece_is(q + 1,
                              chaindata_piece_end(q + 1,
                                                  end),
                              "chainhooks",
                              CHAINDATA_PIECE_LOOSE);
}


/* the piece starting at p comes right after the pieces "v1" and "ext" */

static int
chaindata_after_v1_ext(const unsigned char *first,
    const unsigned char *p)
{
    const unsigned char  *s1, *s2;

    if (p - 1 == first) {
        return 0;
    }

    s1 = chaindata_piece_start(p - 1);

    if (s1 - 1 == first
        || !chaindata_piece_is(s1, p - 1, "ext",
                               CHAINDATA_PIECE_LOOSE))
    {
        return 0;
    }

    s2 = chaindata_piece_start(s1 - 1);

    return chaindata_piece_is(s2, s1 - 1, "v1",
                              CHAINDATA_PIECE_LOOSE);
}


size_t
chaindata_key_pieces(const unsigned char *target, size_t len,
    chaindata_span_t *key)
{
    size_t                n;
    const unsigned char  *p, *q, *first, *end;
    chaindata_span_t      last_before, first_after;

    end = chaindata_target_path_end(target, target + len);
    first = memchr(target, '/', end - target);

    if (first == NULL) {
        return 0;
    }

    n = 0;
    memset(&last_before, 0, sizeof(last_before));
    memset(&first_after, 0, sizeof(first_after));

    for (p = first + 1; /* void */; p = q + 1) {
        q = chaindata_piece_end(p, end);

        if (chaindata_before_chainhooks(q, end)) {
            last_before.data = p;
            last_before.len = q - p;
            n++;

        } else if (chaindata_after_v1_ext(first, p)) {
            if (first_after.data == NULL) {
                first_after.data = p;
                first_after.len = q - p;
            }

            n++;
        }

        if (q == end) {
            break;
        }
    }

    if (key) {
        *key = last_before.data ? last_before : first_after;
    }

    return n;
}


static unsigned char *
chaindata_put_redacted(unsigned char *o)
{
    memcpy(o, CHAINDATA_REDACTED,
           sizeof(CHAINDATA_REDACTED) - 1);

    return o + sizeof(CHAINDATA_REDACTED) - 1;
}


size_t
chaindata_redact(unsigned char *out, const unsigned char *target,
    size_t len, size_t n)
{
    unsigned char        *o;
    const unsigned char  *p, *q, *first, *end;

    end = chaindata_target_path_end(target, target + len);
    first = memchr(target, '/', end - target);
    o = out;

    if (n == 0 || first == NULL) {
        if (first) {
            memcpy(o, target, first + 1 - target);
            o += first + 1 - target;
        }

        o = chaindata_put_redacted(o);
        goto done;
    }

    memcpy(o, target, first + 1 - target);
    o += first + 1 - target;

    for (p = first + 1; /* void */; p = q + 1) {
        q = chaindata_piece_end(p, end);

        if (chaindata_before_chainhooks(q, end)
            || chaindata_after_v1_ext(first, p))
        {
            o = chaindata_put_redacted(o);

        } else {
            memcpy(o, p, q - p);
            o += q - p;
        }

        if (q == end) {
            break;
        }

        *o++ = '/';
    }

done:

    memcpy(o, end, target + len - end);
    o += target + len - end;

    return o - out;
}


/*
 * Log lines.  A line is cut at double quotes (nginx quotes the paths it
 * logs) into stretches; in a stretch pieces lie between slashes, as in a
 * target, and its text before the first slash is no piece.  The output
 * is cut at its end rather than overrun.
 */

typedef struct {
    unsigned char  *pos;
    unsigned char  *end;
} chaindata_out_t;


static void
chaindata_out_put(chaindata_out_t *o, const unsigned char *p, size_t n)
{
    if (n > (size_t) (o->end - o->pos)) {
        n = o->end - o->pos;
    }

    memcpy(o->pos, p, n);
    o->pos += n;
}


static void
chaindata_out_redacted(chaindata_out_t *o)
{
    chaindata_out_put(o, (const unsigned char *) CHAINDATA_REDACTED,
                      sizeof(CHAINDATA_REDACTED) - 1);
}


/* a piece that starts with "chainhooks" follows the slash at q */

static int
chaindata_line_hook_at(const unsigned char *q, const unsigned char *end)
{
    return q < end && *q == '/'
           && chaindata_piece_prefix(q + 1, end, "chainhooks",
                                     CHAINDATA_PIECE_LOOSE)
              != NULL;
}


/* the slash before the stretch's last "chainhooks" piece, or NULL */

static const unsigned char *
chaindata_line_last_hook(const unsigned char *first,
    const unsigned char *end)
{
    const unsigned char  *q;

    for (q = end; q > first; /* void */ ) {
        q--;

        if (chaindata_line_hook_at(q, end)) {
            return q;
        }
    }

    return NULL;
}


static const unsigned char *
chaindata_line_token_end(const unsigned char *p, const unsigned char *q)
{
    while (p < q && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
        p++;
    }

    return p;
}


/*
 * After "v1/ext/": up to the slash before the stretch's last "chainhooks"
 * piece, whatever lies between (a decoded key may hold "/" or a space);
 * else the piece up to a space (a request line's protocol follows one).
 * Before a "chainhooks" piece: the piece.
 */

static void
chaindata_line_stretch(chaindata_out_t *o, const unsigned char *s,
    const unsigned char *e)
{
    int                   looked;
    const unsigned char  *p, *q, *t, *first, *hook;

    first = memchr(s, '/', e - s);

    if (first == NULL) {
        chaindata_out_put(o, s, e - s);
        return;
    }

    chaindata_out_put(o, s, first + 1 - s);
    looked = 0;
    hook = NULL;

    for (p = first + 1; /* void */; p = q + 1) {
        q = chaindata_piece_end(p, e);

        if (chaindata_after_v1_ext(first, p)) {

            if (!looked) {
                hook = chaindata_line_last_hook(first, e);
                looked = 1;
            }

            chaindata_out_redacted(o);

            if (hook && hook >= p) {
                q = hook;

            } else {
                t = chaindata_line_token_end(p, q);
                chaindata_out_put(o, t, q - t);
            }

        } else if (chaindata_line_hook_at(q, e)) {
            chaindata_out_redacted(o);

        } else {
            chaindata_out_put(o, p, q - p);
        }

        if (q == e) {
            break;
        }

        chaindata_out_put(o, q, 1);
    }
}


size_t
chaindata_redact_line(unsigned char *out, size_t size,
    const unsigned char *line, size_t len)
{
    chaindata_out_t       o;
    const unsigned char  *s, *e, *end;

    o.pos = out;
    o.end = out + size;
    end = line + len;

    for (s = line; /* void */; s = e + 1) {
        e = memchr(s, '"', end - s);

        if (e == NULL) {
            e = end;
        }

        chaindata_line_stretch(&o, s, e);

        if (e == end) {
            break;
        }

        chaindata_out_put(&o, e, 1);
    }

    return o.pos - out;
}


/* the last four pieces of the path, NO_ROUTE when it has fewer */

static int
chaindata_chh_pieces(const unsigned char *start,
    const unsigned char *end, chaindata_span_t *piece)
{
    int                   i;
    const unsigned char  *s, *e;

    e = end;

    for (i = 3; i >= 0; i--) {
        for (s = e; s > start && s[-1] != '/'; s--) { /* void */ }

        if (s == start) {
            return -1;
        }

        piece[i].data = s;
        piece[i].len = e - s;
        e = s - 1;
    }

    return 0;
}


/* a piece into buf, percent-decoded when raw, else as it is */

static void
chaindata_chh_unescape(chaindata_span_t *piece, int raw,
    unsigned char *buf, chaindata_span_t *out)
{
    if (!raw) {
        *out = *piece;
        return;
    }

    out->data = buf;
    out->len = chaindata_unescape(buf, piece->data, piece->len);
}


/*
 * The path is the one the client sent (so that "//" is an empty key even
 * where nginx merges slashes, and "%2F" stays inside the key); after a
 * rewrite or an internal redirect it is the (decoded) current URI.
 * Upstream validates apiKey, then chainhookUuid.
 */

chaindata_chh_e
chaindata_chh_target(const unsigned char *path, size_t len, int raw,
    chaindata_chh_params_t *p)
{
    unsigned              how;
    const unsigned char  *end;
    chaindata_span_t      piece[4], uuid;

    end = raw ? chaindata_target_path_end(path, path + len)
              : path + len;

    if (chaindata_chh_pieces(path, end, piece) != 0) {
        return CHAINDATA_CHH_NO_ROUTE;
    }

    how = raw ? CHAINDATA_PIECE_DECODE : 0;

    if (!chaindata_piece_is(piece[1].data,
                            piece[1].data + piece[1].len,
                            "chainhooks", how)
        || !chaindata_piece_is(piece[3].data,
                               piece[3].data + piece[3].len,
                               "status", how))
    {
        return CHAINDATA_CHH_NO_ROUTE;
    }

    if (piece[0].len == 0) {
        return CHAINDATA_CHH_KEY_EMPTY;
    }

    if (piece[0].len > sizeof(p->keybuf)) {
        return CHAINDATA_CHH_KEY_LONG;
    }

    chaindata_chh_unescape(&piece[0], raw, p->keybuf, &p->key);

    /* "%" or "%4" alone decode to nothing (found by fuzz_chainhook) */
    if (p->key.len == 0) {
        return CHAINDATA_CHH_KEY_EMPTY;
    }

    if (p->key.len > CHAINDATA_API_KEY_MAX) {
        return CHAINDATA_CHH_KEY_LONG;
    }

    if (piece[2].len > sizeof(p->uuidbuf)) {
        return CHAINDATA_CHH_BAD_UUID;
    }

    chaindata_chh_unescape(&piece[2], raw, p->uuidbuf, &uuid);

    if (chaindata_uuid_parse(uuid.data, uuid.len, p->uuid) != 0) {
        return CHAINDATA_CHH_BAD_UUID;
    }

    return CHAINDATA_CHH_OK;
}
