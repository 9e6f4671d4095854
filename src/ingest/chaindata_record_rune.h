
/*
 * chaindata: what the two rune record kinds share, for their files
 * chaindata_record_rune_activity.c and chaindata_record_rune_balances.c:
 * the rune reference and the values both lists hold, and a list's checks
 * and writes (chaindata_record_rune.c).  See lmdb-schema/runes.md.
 */


#ifndef _CHAINDATA_RECORD_RUNE_H_INCLUDED_
#define _CHAINDATA_RECORD_RUNE_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_schema.h"
#include "chaindata_runes_layout.h"
#include "chaindata_jdoc.h"
#include "chaindata_record.h"


/* what a list checks of an entry beyond its fields; key is the list's */
typedef int (*chaindata_rune_entry_pt)(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const unsigned char *key, size_t key_len,
    const char *path);

/* what a list checks of its entries together */
typedef int (*chaindata_rune_all_pt)(chaindata_record_t *rec,
    const chaindata_jv_t *results);

/* what a list writes before its own writes, its entries checked */
typedef int (*chaindata_rune_before_pt)(chaindata_record_t *rec,
    const chaindata_jv_t *envelope, const chaindata_jv_t *results,
    const unsigned char *key, size_t key_len, chaindata_writeset_t *ws);


/* one kind of list: what an entry is, where it goes, how it is counted */
typedef struct {
    const chaindata_field_t  *entry;
    chaindata_rune_entry_pt   check_entry;
    chaindata_rune_all_pt     check_all;      /* NULL: nothing */
    chaindata_rune_before_pt  before;         /* NULL: nothing */
    chaindata_dbi_e           head_db;
    chaindata_dbi_e           entry_db;
    chaindata_rec_e           put;
    chaindata_rec_e           del;
} chaindata_rune_list_t;


/* the fields of a rune reference ("rune" in an entry of either list) */
extern const chaindata_field_t  chaindata_rune_ref[];
/* what an etching document must hold (rune_etching records) */
extern const chaindata_field_t  chaindata_rune_etching_doc[];
/* an activity entry (rune_activity, rune_block) */
extern const chaindata_field_t  chaindata_rune_activity_entry[];

/*
 * An activity entry's checks beyond its fields, but its location's tx_id
 * and block (chaindata_record_rune_activity.c)
 */
int chaindata_rune_activity_check(chaindata_record_t *rec,
    const chaindata_jv_t *entry, const char *path);

const char *chaindata_rune_check_address(const chaindata_jv_t *v);
const char *chaindata_rune_check_amount(const chaindata_jv_t *v);
const chaindata_jv_t *chaindata_rune_optional(
    const chaindata_jv_t  *obj, const char *name);

/*
 * The rune at path (an object of chaindata_rune_ref's fields, checked):
 * its spaced name is its name with bullets (name_path names the name)
 */
int chaindata_rune_check_names(chaindata_record_t *rec,
    const chaindata_jv_t *rune, const char *path, const char *name_path);

/* the entries of results, as the list checks them */
int chaindata_rune_check_entries(chaindata_record_t *rec,
    const chaindata_rune_list_t *list, const chaindata_jv_t *results,
    const unsigned char *key, size_t key_len);

/*
 * An entry's stored size and bytes, without the member skip (NULL: none):
 * in upstream's order, or as given when it holds a member fields do not
 * name
 */
size_t chaindata_rune_entry_size(const chaindata_jv_t *e,
    const chaindata_field_t *fields, const char *skip);
unsigned char *chaindata_rune_entry_put(unsigned char *p,
    const chaindata_jv_t *e, const chaindata_field_t *fields,
    const char *skip);

/*
 * The op that mixes the record into the runes state
 * (chaindata_runes_op.h): kind, and the SHA-256 of the writes since mark
 * (keys and values; an op's argument)
 */
int chaindata_rune_mix(chaindata_record_t *rec, chaindata_writeset_t *ws,
    const chaindata_writeset_mark_t *mark, const char *kind);

/*
 * Checks the envelope's "results" against the list and appends the writes
 * that replace the list under key with them.
 */
int chaindata_rune_list(chaindata_record_t *rec,
    const chaindata_rune_list_t *list, const chaindata_jv_t *envelope,
    const unsigned char *key, size_t key_len, chaindata_writeset_t *ws);


#endif /* _CHAINDATA_RECORD_RUNE_H_INCLUDED_ */
