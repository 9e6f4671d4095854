
/*
 * libFuzzer target: an NDJSON stream as the loader reads it, line by line
 * into one write set (batches of 3 records), checking that every write
 * lies inside the set's buffer.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ngx_http_chaindata_record.h"


static void
check_writes(const ngx_http_chaindata_writeset_t *ws)
{
    size_t                             i;
    const ngx_http_chaindata_write_t  *w;

    for (i = 0; i < ws->nwrites; i++) {
        w = &ws->writes[i];

        if (w->key_off + w->key_len > ws->len
            || w->val_off + w->val_len > ws->len
            || w->db >= NGX_HTTP_CHAINDATA_DBI_COUNT)
        {
            abort();
        }
    }
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t                          records;
    const uint8_t                  *p, *end, *nl;
    ngx_http_chaindata_record_t     rec;
    ngx_http_chaindata_writeset_t   ws;

    memset(&ws, 0, sizeof(ws));

    if (ngx_http_chaindata_record_init(&rec) != 0) {
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

        (void) ngx_http_chaindata_record_parse(&rec, p, nl - p, &ws);
        check_writes(&ws);

        if (++records % 3 == 0) {
            ngx_http_chaindata_writeset_reset(&ws);
        }

        p = nl + 1;
    }

    ngx_http_chaindata_writeset_free(&ws);
    ngx_http_chaindata_record_free(&rec);

    return 0;
}
