
/*
 * libFuzzer target: an NDJSON stream as the loader reads it, line by line
 * into one write set (batches of 3 records), checking that every write
 * lies inside the set's buffer.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_record.h"


static void
check_writes(const chaindata_writeset_t *ws)
{
    size_t                    i;
    const chaindata_write_t  *w;

    for (i = 0; i < ws->nwrites; i++) {
        w = &ws->writes[i];

        if (w->key_off + w->key_len > ws->len
            || w->val_off + w->val_len > ws->len
            || w->db >= CHAINDATA_DBI_COUNT)
        {
            abort();
        }
    }
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t                records;
    const uint8_t        *p, *end, *nl;
    chaindata_record_t    rec;
    chaindata_writeset_t  ws;

    memset(&ws, 0, sizeof(ws));

    if (chaindata_record_init(&rec) != 0) {
        return 0;
    }

    records = 0;
    p = data;
    end = data + size;

    while (p < end) {
        nl = memchr(p, '\n', end - p);
        if (nl == NULL) {
            nl = end;
        }

        (void) chaindata_record_parse(&rec, p, nl - p, &ws);
        check_writes(&ws);

        if (++records % 3 == 0) {
            chaindata_writeset_reset(&ws);
        }

        p = nl + 1;
    }

    chaindata_writeset_free(&ws);
    chaindata_record_free(&rec);

    return 0;
}
