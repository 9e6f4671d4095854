
/*
 * libFuzzer target: one ingest record, any kind, through validation into
 * a write set (chaindata_record_parse).
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_record.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t                nwrites, len;
    chaindata_record_t    rec;
    chaindata_writeset_t  ws;

    memset(&ws, 0, sizeof(ws));

    if (chaindata_record_init(&rec) != 0) {
        return 0;
    }

    nwrites = ws.nwrites;
    len = ws.len;

    if (chaindata_record_parse(&rec, data, size, &ws) != 0) {
        /* a refused record leaves the write set as it was, with a reason */
        if (ws.nwrites != nwrites || ws.len != len || rec.err[0] == '\0') {
            abort();
        }
    }

    chaindata_writeset_free(&ws);
    chaindata_record_free(&rec);

    return 0;
}
