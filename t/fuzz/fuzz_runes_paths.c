
/*
 * libFuzzer target: chaindata_runes' paths (the first byte picks a line of
 * CHAINDATA_PATH_LIST, the rest is the path after the prefix): the
 * template matched, and each parameter taken apart as its path's handler
 * takes it (chaindata_paths_runes.h), with the prefixes found first.
 */


#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_path.h"
#include "chaindata_paths_runes.h"
#include "chaindata_routes.h"


#define FUZZ_TEMPLATE(id, family, tmpl, feed, flags)  tmpl,

static const char *const  templates[] = {
    CHAINDATA_PATH_LIST(FUZZ_TEMPLATE)
};

static const char *const  prefixes[] = { "/runes", "/runes/v1", NULL };


static void
check_params(const unsigned char *data, size_t size,
    const chaindata_path_params_t *p)
{
    size_t                   i;
    unsigned char            key[CHAINDATA_LIST_KEY_MAX];
    chaindata_etching_t      e;
    chaindata_block_param_t  b;

    if (p->n > CHAINDATA_PATH_PARAMS_MAX) {
        abort();
    }

    for (i = 0; i < p->n; i++) {
        /* a parameter is one segment of the path: in it, no "/" */
        if (p->param[i].data < data
            || p->param[i].data + p->param[i].len > data + size
            || memchr(p->param[i].data, '/', p->param[i].len))
        {
            abort();
        }

        chaindata_etching_param(&e, p->param[i].data, p->param[i].len);

        if (e.form == CHAINDATA_ETCHING_NAME
            && (e.name_len == 0 || e.name_len > CHAINDATA_RUNE_NAME_MAX))
        {
            abort();
        }

        (void) chaindata_etching_spaced_is(data, size, p->param[i].data,
                                           p->param[i].len);

        chaindata_block_param(&b, p->param[i].data, p->param[i].len);

        if (chaindata_runes_txid_key(key, p->param[i].data, p->param[i].len)
            > CHAINDATA_LIST_KEY_MAX
            || chaindata_runes_address_list_key(key, p->param[i].data,
                                                p->param[i].len)
               > CHAINDATA_LIST_KEY_MAX)
        {
            abort();
        }
    }
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char               *tmpl;
    chaindata_span_t          rest;
    chaindata_path_params_t   p;

    if (size == 0) {
        return 0;
    }

    tmpl = templates[data[0] % (sizeof(templates) / sizeof(templates[0]))];
    data++;
    size--;

    if (chaindata_path_match(tmpl, data, size, &p) == 0) {
        check_params(data, size, &p);
    }

    if (chaindata_path_prefix(prefixes, data, size, &rest) == 0
        && (rest.data < data || rest.data + rest.len != data + size))
    {
        abort();
    }

    return 0;
}
