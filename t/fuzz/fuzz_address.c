
/*
 * libFuzzer target: Bitcoin address syntax and address keys, and the rune
 * list header and entry keys (chaindata_address.c, the list part
 * of chaindata_layout.c).
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_address.h"
#include "chaindata_layout.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t             i, len;
    unsigned char      key[CHAINDATA_LIST_KEY_MAX];
    unsigned char      again[CHAINDATA_LIST_KEY_MAX];
    unsigned char      ekey[CHAINDATA_LIST_ENTRY_KEY_MAX];
    unsigned char      out[CHAINDATA_LISTH_SIZE];
    chaindata_listh_t  h, h2;

    len = chaindata_address_key(key, data, size);

    /* a key exactly when the check passes: a length byte and the address */
    if ((len != 0) != (chaindata_address_check(data, size) == 0)) {
        abort();
    }

    if (len) {
        if (len != 1 + size || key[0] != size
            || size > CHAINDATA_ADDRESS_MAX_LEN)
        {
            abort();
        }

        for (i = 0; i < size; i++) {
            if (key[1 + i] != data[i]
                && !(data[i] >= 'A' && data[i] <= 'Z'
                     && key[1 + i] == (data[i] | 0x20)))
            {
                abort();
            }
        }

        /* the key of an address is itself an address with the same key */
        if (chaindata_address_key(again, key + 1, size) != len
            || memcmp(again, key, len) != 0)
        {
            abort();
        }

        if (chaindata_list_entry_key(ekey, key, len, 7) != len + 4
            || memcmp(ekey, key, len) != 0)
        {
            abort();
        }
    }

    if (chaindata_listh_decode(&h, data, size) == 0) {
        if (size != CHAINDATA_LISTH_SIZE + h.chunk0_len
            || (h.chunk0_len && h.chunk0 != data + CHAINDATA_LISTH_SIZE))
        {
            abort();
        }

        chaindata_listh_encode(out, &h);

        if (memcmp(out, data, CHAINDATA_LISTH_SIZE) != 0
            || (h.chunk0_len == 0
                && (chaindata_listh_decode(&h2, out, sizeof(out)) != 0
                    || h2.count != h.count)))
        {
            abort();
        }
    }

    return 0;
}
