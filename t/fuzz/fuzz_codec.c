
/*
 * libFuzzer target: the key codecs and small parsers of the core: tx ids
 * (chaindata_hex.c), the stored tx header and its inline first chunk of
 * events (chaindata_layout.c; hostile: read as a chunk, it must be refused
 * or lie inside the value), JSON escaping, UTF-8 validation
 * (chaindata_escape.c).  (Query lookup
 * and query integers are the request-target targets' part.)
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_chunks.h"
#include "chaindata_escape.h"
#include "chaindata_hex.h"
#include "chaindata_layout.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int                   prefixed;
    size_t                n;
    unsigned char         txid[CHAINDATA_TXID_LEN];
    unsigned char        *esc, *end;
    chaindata_txh_t       h;
    chaindata_chunk_t     c;
    chaindata_piece_t    *last;

    if (chaindata_txid_parse(data, size, txid, &prefixed) == 0
        && size != 64 && size != 66)
    {
        abort();
    }

    if (chaindata_txh_decode(&h, data, size) == 0) {
        if (h.events_at > h.doc_len
            || ((h.flags & CHAINDATA_TXH_FARGS)
                && h.fargs_start + h.fargs_len > h.doc_len))
        {
            abort();
        }

        last = h.npieces ? &h.piece[h.npieces - 1] : NULL;

        if (h.chunk0
            && (h.chunk0 + h.chunk0_len != data + size
                || h.chunk0 < data + CHAINDATA_TXH_SIZE
                || (last && last->deflate + last->deflate_len > h.chunk0)))
        {
            abort();
        }

        if (h.chunk0
            && chaindata_chunk_decode(&c, h.chunk0, h.chunk0_len) == 0
            && c.piece.deflate + c.piece.deflate_len > data + size)
        {
            abort();
        }
    }

    /* the valid prefix is within the input and valid on its own */
    n = chaindata_utf8_valid_len(data, size);

    if (n > size || chaindata_utf8_valid_len(data, n) != n) {
        abort();
    }

    esc = malloc(chaindata_json_escape_len(data, size) + 1);
    if (esc) {
        end = chaindata_json_escape(esc, data, size);

        if ((size_t) (end - esc)
            != chaindata_json_escape_len(data, size))
        {
            abort();
        }

        free(esc);
    }

    return 0;
}
