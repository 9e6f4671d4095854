
/*
 * The unit tests' TAP and their order (unit.h): each test_*.c checks one
 * room of the code.
 */


#include <stdio.h>

#include "unit.h"


static int  tests, failed;


void
ok(int cond, const char *name)
{
    tests++;

    if (!cond) {
        failed++;
    }

    printf("%sok %d - %s\n", cond ? "" : "not ", tests, name);
}


int
main(void)
{
    test_index_owner();     /* first: the child it aborts made no thread */
    test_hex_and_ids();
    test_hex_table();
    test_listh();
    test_streamseq();
    test_writers();
    test_compact();
    test_parts();
    test_writeset_join();
    test_digest();
    test_js_number();
    test_js_integer_text();
    test_json_escape();
    test_txh();
    test_tx3h();
    test_jdoc();
    test_record_tx();
    test_record_rune_chunks();
    test_utf8();
    test_unescape();
    test_targets();
    test_chainhook_paths();
    test_redact_line();
    test_migration_map();
    test_pieces();
    test_accept_encoding();
    test_piece_ends();
    test_chunks();
    test_eta();
    test_data_file();
    test_history();
    test_feeds();
    test_options();
    test_envfile();
    test_runes_layout();
    test_path_templates();
    test_runes_params();
    test_record_runes();

    printf("1..%d\n", tests);

    return failed ? 1 : 0;
}
