
/*
 * The unit tests of the nginx-free code (src/core, src/ingest): one
 * test_*.c a room of the code, run in the order unit_main.c calls them,
 * printing TAP (t/01-unit.t runs them under prove).
 */


#ifndef _CHAINDATA_UNIT_H_INCLUDED_
#define _CHAINDATA_UNIT_H_INCLUDED_


/* one TAP line: "ok N - name", or "not ok N - name" */
void ok(int cond, const char *name);


/* test_data_file.c */
void test_data_file(void);

/* test_history.c */
void test_history(void);
void test_feeds(void);

/* test_eta.c */
void test_eta(void);

/* test_hex.c */
void test_hex_and_ids(void);
void test_hex_table(void);

/* test_layout.c */
void test_digest(void);
void test_txh(void);
void test_listh(void);
void test_tx3h(void);
void test_streamseq(void);

/* test_record_runes.c */
void test_record_runes(void);

/* test_runes_layout.c */
void test_runes_layout(void);

/* test_paths_runes.c */
void test_path_templates(void);
void test_runes_params(void);

/* test_writers.c */
void test_writers(void);

/* test_jsnum.c */
void test_js_number(void);
void test_js_integer_text(void);

/* test_escape.c */
void test_json_escape(void);
void test_utf8(void);

/* test_jdoc.c */
void test_jdoc(void);

/* test_record.c */
void test_writeset_join(void);
void test_record_tx(void);
void test_record_rune_chunks(void);

/* test_paths.c */
void test_unescape(void);
void test_targets(void);

/* test_chainhook_path.c */
void test_chainhook_paths(void);
void test_redact_line(void);

/* test_migration_map.c */
void test_migration_map(void);

/* test_piece.c */
void test_pieces(void);
void test_piece_ends(void);

/* test_accept_encoding.c */
void test_accept_encoding(void);

/* test_chunks.c */
void test_chunks(void);

/* test_options.c */
void test_options(void);

/* test_envfile.c */
void test_envfile(void);

/* test_parts.c */
void test_parts(void);

/* test_compact.c */
void test_compact(void);

/* test_index_owner.c */
void test_index_owner(void);


#endif /* _CHAINDATA_UNIT_H_INCLUDED_ */
