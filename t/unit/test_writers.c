
/*
 * Unit tests: one writer per feed (chaindata_index_commit()): a block
 * decided on the feed's position is not applied once another writer
 * moved that position in between (the check and the write in one
 * transaction), and the writers' lock (chaindata_index_writer_lock()).
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chaindata_ingest.h"
#include "chaindata_stream.h"
#include "unit.h"


static int
writers_line(chaindata_ingest_t *in, const char *line)
{
    return chaindata_ingest_line(in, (const unsigned char *) line,
                                 strlen(line));
}


/* block 1 of stacks, hash h, whole: 0, or -1 */

static int
writers_block(chaindata_ingest_t *in, const char *h)
{
    char  line[256];

    snprintf(line, sizeof(line), "{\"kind\":\"block\",\"source\":\"stacks\","
             "\"height\":1,\"hash\":\"%s\",\"parent\":\"p0\",\"time\":1001}",
             h);

    return writers_line(in, line) == 0
           && writers_line(in, "{\"kind\":\"block_end\",\"source\":"
                           "\"stacks\",\"height\":1}") == 0
           ? 0 : -1;
}


static int
writers_position(chaindata_ingest_t *in, char *hash, size_t size)
{
    int                  rc;
    unsigned char        h[CHAINDATA_FEED_HASH_MAX];
    chaindata_feedpos_t  pos;

    rc = chaindata_feed_position(&in->ix, "stacks", &pos, h);
    if (rc != 0 || pos.hash_len >= size) {
        return -1;
    }

    memcpy(hash, pos.hash, pos.hash_len);
    hash[pos.hash_len] = '\0';

    return (int) pos.height;
}


void
test_writers(void)
{
    int                   fd, fd2;
    char                  dir[] = "/tmp/chaindata-unit-XXXXXX", hash[64];
    char                  cmd[64];
    chaindata_ingest_t    in;
    chaindata_writeset_t  first;

    memset(&in, 0, sizeof(in));

    if (mkdtemp(dir) == NULL || chaindata_ingest_init(&in) != 0) {
        ok(0, "writers: a temporary index");
        return;
    }

    in.ix.prog = "chaindata-unit";
    in.ix.path = dir;
    in.ix.map_size = (size_t) 16 << 20;
    in.ix.max_map_size = (size_t) 16 << 20;

    if (chaindata_index_open(&in.ix) != 0) {
        ok(0, "writers: a temporary index");
        chaindata_ingest_free(&in);
        return;
    }

    /* writer one decides block 1 (hash a1) on the empty position ... */
    ok(writers_block(&in, "a1") == 0, "writers: block 1 (a1) checked");
    first = in.ws;
    memset(&in.ws, 0, sizeof(in.ws));

    /* ... writer two decides block 1 (b1) on it too, and commits first */
    ok(writers_block(&in, "b1") == 0, "writers: block 1 (b1) checked");
    ok(chaindata_index_commit(&in.ix, &in.ws) == 0,
       "writers: the second writer commits block 1 (b1)");

    ok(chaindata_index_commit(&in.ix, &first) == CHAINDATA_INDEX_MOVED,
       "writers: the first writer's block 1, decided on a position that "
       "moved since, is refused in its transaction");
    ok(strstr(chaindata_index_strerror(CHAINDATA_INDEX_MOVED),
              "another writer of this feed") != NULL,
       "writers: the refusal says why");
    ok(writers_position(&in, hash, sizeof(hash)) == 1
       && strcmp(hash, "b1") == 0,
       "writers: the position is the second writer's block, untouched");

    fd = chaindata_index_writer_lock(dir, CHAINDATA_FEEDS_LOCK,
                                     "chaindata-unit");
    ok(fd != -1, "writers: the writers' lock taken");

    /* a second descriptor of the file: flock() refuses it in-process too */
    fprintf(stderr, "# (a refusal follows, as expected)\n");
    fd2 = chaindata_index_writer_lock(dir, CHAINDATA_FEEDS_LOCK,
                                      "chaindata-unit-2");
    ok(fd2 == -1, "writers: a second writer is refused the lock");

    if (fd != -1) {
        close(fd);
    }

    chaindata_writeset_free(&first);
    chaindata_ingest_free(&in);

    /* this test's directory only (others may run beside) */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);

    if (system(cmd) != 0) {
        ok(0, "writers: the temporary index removed");
    }
}
