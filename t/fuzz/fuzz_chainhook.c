
/*
 * libFuzzer target: the chainhook route's request targets (the first byte
 * says whether the target is raw, as a client sent it, or a decoded URI):
 * the key pieces and the redaction behind $chaindata_redacted_uri,
 * $chaindata_api_key_digest and the redacted request line, and the route's
 * parameters (chaindata_chainhook_path.c).  The same bytes as a log line,
 * and a key planted in one, for the error log writer's redaction.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_chainhook_path.h"
#include "chaindata_hex.h"


static int
within(const chaindata_span_t *s, const unsigned char *start,
    const unsigned char *end)
{
    return s->data >= start && s->data + s->len <= end;
}


static void
check_redaction(const uint8_t *data, size_t size)
{
    size_t                n, n2, len, whole;
    unsigned char        *out;
    const unsigned char  *end, *out_end;
    chaindata_span_t      key, key2;

    n = chaindata_key_pieces(data, size, &key);
    end = chaindata_target_path_end(data, data + size);

    if (n && (key.data == NULL || !within(&key, data, end))) {
        abort();
    }

    for (whole = 0; whole < 2; whole++) {
        if (n == 0 && !whole) {
            continue;
        }

        out = malloc(CHAINDATA_REDACTED_SIZE(size, n));
        if (out == NULL) {
            abort();
        }

        len = chaindata_redact(out, data, size, n);

        if (len > CHAINDATA_REDACTED_SIZE(size, n)) {
            abort();
        }

        /* the query is kept as it was */
        out_end = chaindata_target_path_end(out, out + len);

        if ((size_t) (out + len - out_end) != (size_t) (data + size - end)
            || memcmp(out_end, end, data + size - end) != 0)
        {
            abort();
        }

        /* what still looks like a key is the mark, nothing of the key */
        n2 = chaindata_key_pieces(out, len, &key2);

        if (n2 && (key2.len != 3 || memcmp(key2.data, "***", 3) != 0)) {
            abort();
        }

        free(out);
    }
}


static int
contains(const unsigned char *hay, size_t hlen, const unsigned char *needle,
    size_t nlen)
{
    size_t  i;

    for (i = 0; i + nlen <= hlen; i++) {
        if (memcmp(hay + i, needle, nlen) == 0) {
            return 1;
        }
    }

    return 0;
}


/* a line redacted into room enough, and cut into too little */

static void
check_line(const uint8_t *data, size_t size)
{
    size_t          len, cut;
    unsigned char  *out;

    out = malloc(4 * size + 16);
    if (out == NULL) {
        abort();
    }

    /* the room the header promises is enough */
    len = chaindata_redact_line(out, 4 * size + 16, data, size);

    if (len > 4 * size) {
        abort();
    }

    cut = chaindata_redact_line(out, len / 2, data, size);

    if (cut != len / 2) {
        abort();
    }

    free(out);
}


/*
 * A key planted in a line, A "/v1/ext/" KEY "/chainhooks" B (the first two
 * bytes give the lengths of A and KEY), or A "/" KEY "/chainhooks" B for a
 * key without "/": with no '"' nor '*' in the key (the redaction works
 * between quotes; '*' is what it writes), and nothing of it to be found
 * in what surrounds it, the key is nowhere in the redacted line.
 */

static void
check_planted_key(const uint8_t *data, size_t size)
{
    size_t          alen, klen, blen, len, i, n;
    int             v1;
    unsigned char  *line, *out, *p;
    const uint8_t  *a, *k, *b;
    static const char  v1ext[] = "/v1/ext/", hook[] = "/chainhooks";

    if (size < 2) {
        return;
    }

    v1 = data[0] & 1;
    alen = (data[0] >> 1) % (size - 1);
    klen = data[1];
    a = data + 2;
    size -= 2;
    alen = alen > size ? size : alen;
    klen = klen > size - alen ? size - alen : klen;
    k = a + alen;
    b = k + klen;
    blen = size - alen - klen;

    if (klen < 8) {
        return;
    }

    for (i = 0; i < klen; i++) {
        if (k[i] == '"' || k[i] == '*' || (!v1 && k[i] == '/')) {
            return;
        }
    }

    n = alen + sizeof(v1ext) + klen + sizeof(hook) + blen;

    line = malloc(n);
    out = malloc(4 * n);
    if (line == NULL || out == NULL) {
        abort();
    }

    p = line;
    memcpy(p, a, alen);
    p += alen;

    if (v1) {
        memcpy(p, v1ext, sizeof(v1ext) - 1);
        p += sizeof(v1ext) - 1;

    } else {
        *p++ = '/';
    }

    /* the key found in the text before it */
    if (contains(line, p - line, k, klen)) {
        goto done;
    }

    memcpy(p, k, klen);
    p += klen;
    memcpy(p, hook, sizeof(hook) - 1);
    p += sizeof(hook) - 1;

    memcpy(p, b, blen);

    /* nor in the text after it */
    if (contains(p - (sizeof(hook) - 1), sizeof(hook) - 1 + blen, k, klen)) {
        goto done;
    }

    p += blen;

    len = chaindata_redact_line(out, 4 * n, line, p - line);

    if (contains(out, len, k, klen)) {
        abort();
    }

done:

    free(line);
    free(out);
}


static void
check_params(const uint8_t *data, size_t size, int raw)
{
    unsigned char           text[36];
    unsigned char           again[CHAINDATA_UUID_LEN];
    chaindata_chh_e         rc;
    chaindata_chh_params_t  p;

    memset(&p, 0, sizeof(p));

    rc = chaindata_chh_target(data, size, raw, &p);

    switch (rc) {

    case CHAINDATA_CHH_OK:
        if (p.key.len == 0 || p.key.len > CHAINDATA_API_KEY_MAX) {
            abort();
        }

        if (raw ? (p.key.data != p.keybuf)
                : !(p.key.data >= data && p.key.data + p.key.len
                                          <= data + size))
        {
            abort();
        }

        /* the UUID read back parses to the same bytes */
        chaindata_hex_encode(text, p.uuid, 4);
        chaindata_hex_encode(text + 9, p.uuid + 4, 2);
        chaindata_hex_encode(text + 14, p.uuid + 6, 2);
        chaindata_hex_encode(text + 19, p.uuid + 8, 2);
        chaindata_hex_encode(text + 24, p.uuid + 10, 6);
        text[8] = text[13] = text[18] = text[23] = '-';

        if (chaindata_uuid_parse(text, 36, again) != 0
            || memcmp(again, p.uuid, sizeof(again)) != 0)
        {
            abort();
        }

        break;

    case CHAINDATA_CHH_BAD_UUID:
        /* the key passed its checks first */
        if (p.key.len == 0 || p.key.len > CHAINDATA_API_KEY_MAX) {
            abort();
        }

        break;

    case CHAINDATA_CHH_NO_ROUTE:
    case CHAINDATA_CHH_KEY_EMPTY:
    case CHAINDATA_CHH_KEY_LONG:
        break;

    default:
        abort();
    }
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int  raw;

    if (size == 0) {
        return 0;
    }

    raw = data[0] & 1;
    data++;
    size--;

    check_redaction(data, size);
    check_params(data, size, raw);
    check_line(data, size);
    check_planted_key(data, size);

    return 0;
}
