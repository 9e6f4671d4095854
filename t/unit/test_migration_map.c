
/*
 * Unit tests: the migration map (chaindata_migration_map.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_migration_map.h"
#include "chaindata_paths.h"
#include "unit.h"


void
test_migration_map(void)
{
    size_t                 n;
    unsigned char          out[64];
    chaindata_span_t       sub;
    chaindata_mig_match_t  m;
    const char            *path;

    path = "/ordinals/v1/inscriptions/block-height/840000";

    ok(chaindata_mig_subpath((const unsigned char *) path,
                             strlen(path),
                             (const unsigned char *) "/ordinals/",
                             10, &sub) == 0
       && chaindata_mig_match(&sub, &m) == 0
       && strcmp(m.row->path, "/inscriptions/block-height/{blockHeight}")
          == 0
       && m.nparams == 1 && m.params[0].value.len == 6,
       "migration: block-height matched, its parameter taken");

    n = chaindata_mig_expand(out, m.row->replacement, &m);
    ok(n == 26 && memcmp(out, "/inscriptions/block/840000", 26) == 0,
       "migration: the replacement path");

    n = chaindata_mig_escape_query(out, (const unsigned char *)
                                   "a=%41&b=%\x18\x18 ", 12);
    ok(n == 20 && memcmp(out, "a=%41&b=%25%18%18%20", 20) == 0,
       "migration: a query escaped for a Location, control bytes too");
}
