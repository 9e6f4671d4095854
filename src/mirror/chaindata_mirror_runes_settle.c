
/*
 * chaindata-mirror: the balance lists and etchings kept by another tip
 * than the height they were written with (chaindata_mirror_runes_tip.c)
 * settled as a pass ends at upstream's tip: fetched again, in a write of
 * their own, when the index never committed the block of that tip.  Above
 * the balances (chaindata_mirror_balances.c) and the etchings
 * (chaindata_mirror_runes_etchings.c), which report each one's tip below.
 */


#include <stdlib.h>
#include <string.h>

#include "chaindata_mirror.h"
#include "chaindata_mirror_block.h"


/*
 * At the end of a pass at upstream's tip, the index's position posh:
 * when upstream's tip is that block, the lists and etchings kept by any
 * other tip are fetched again, in one write.
 */

int
chaindata_runes_above_settle(chaindata_mirror_t *m,
    const unsigned char *posh, size_t posh_len)
{
    int                 rc;
    size_t              i, nold;
    chaindata_names_t   all, runes;
    chaindata_above_t  *a, *old;

    if (m->runes.nabove == 0
        || !chaindata_runes_is_hash(m->runes.tip_tag, m->runes.tip_tag_len)
        || m->runes.tip_tag_len != posh_len
        || memcmp(m->runes.tip_tag, posh, posh_len) != 0)
    {
        return CHAINDATA_EXIT_OK;
    }

    memset(&all, 0, sizeof(all));
    memset(&runes, 0, sizeof(runes));

    for (i = 0; i < m->runes.nabove; i++) {
        a = &m->runes.above[i];

        if ((a->blocks
             && chaindata_runes_undone(m, a->lo ? a->lo - 1 : 0, a->hi, &all,
                                       &runes)
                != 0)
            || chaindata_names_join(&all, &a->addresses) != 0
            || chaindata_names_join(&runes, &a->runes) != 0)
        {
            chaindata_names_free(&all);
            chaindata_names_free(&runes);
            return CHAINDATA_EXIT_SYSTEM;
        }
    }

    chaindata_names_unique(&all);
    chaindata_names_unique(&runes);

    chaindata_mirror_log(m, "warn", "runes: %zu balance lists were fetched "
                         "while upstream's tip was a block it no longer "
                         "has (reorganised away before the index reached "
                         "it), and %zu etchings: fetched again", all.n,
                         runes.n);

    /* kept aside: the lists fetched again may be kept by their tip */
    old = m->runes.above;
    nold = m->runes.nabove;
    m->runes.above = NULL;
    m->runes.nabove = 0;

    chaindata_block_reset(m);
    chaindata_runes_at(m, posh, posh_len, 1, 0);

    rc = chaindata_balances_records(m, all.items, all.n);

    if (rc == CHAINDATA_EXIT_OK) {
        rc = chaindata_etchings_records(m, runes.items, runes.n);
    }

    chaindata_names_free(&all);
    chaindata_names_free(&runes);

    if (rc == CHAINDATA_EXIT_OK && chaindata_block_write(m) != 0) {
        rc = CHAINDATA_EXIT_SYSTEM;
    }

    if (rc != CHAINDATA_EXIT_OK) {
        chaindata_block_reset(m);
        chaindata_runes_above_free(m);
        m->runes.above = old;
        m->runes.nabove = nold;
        return rc;
    }

    for (i = 0; i < nold; i++) {
        chaindata_names_free(&old[i].addresses);
        chaindata_names_free(&old[i].runes);
    }

    free(old);

    return CHAINDATA_EXIT_OK;
}
