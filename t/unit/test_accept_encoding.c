
/*
 * Unit tests: Accept-Encoding read (chaindata_accept_encoding.h).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaindata_accept_encoding.h"
#include "unit.h"


static int
takes_gzip(const char *s)
{
    return chaindata_accept_encoding_takes_gzip((const unsigned char *) s,
                                                strlen(s));
}


void
test_accept_encoding(void)
{
    ok(takes_gzip("br, GZip;Q=0.5")
       && takes_gzip("*")
       && !takes_gzip("gzip;q=0, *")
       && !takes_gzip("gzip;q=1.5")
       && !takes_gzip("gzip;q=")
       && !takes_gzip("gzip;")
       && !takes_gzip(",,")
       && takes_gzip(", x-gzip ,"),
       "Accept-Encoding: q-values, *, refusals, hostile lists");
}
