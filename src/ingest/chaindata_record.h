
/*
 * chaindata: ingest records (one NDJSON line each) turned into the writes
 * that store them.  Parsing, validation and value layout live here, free
 * of nginx and of LMDB, so the loader, unit tests and fuzzers share them.
 */


#ifndef _CHAINDATA_RECORD_H_INCLUDED_
#define _CHAINDATA_RECORD_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_chunks.h"
#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "chaindata_digest.h"
#include "chaindata_writeset.h"


#define CHAINDATA_ERR_LEN         512

/* the longest name of a member in a message: "results[12].rune.number" */
#define CHAINDATA_PATH_LEN        64


/*
 * What a record did, as the loader counts it: each line is an enum value
 * and the name the loader's summary gives a number of such records.  The
 * enum and chaindata_rec_names are both made from this one list.
 */
#define CHAINDATA_REC_LIST(X)                                              \
    X(TX_PUT, "tx upserts")                                                \
    X(TX_DELETE, "tx deletes")                                             \
    X(CHAINHOOK_PUT, "chainhook upserts")                                  \
    X(CHAINHOOK_DELETE, "chainhook deletes")                               \
    X(RUNE_ACTIVITY_PUT, "rune activity lists")                            \
    X(RUNE_ACTIVITY_DELETE, "rune activity deletes")                       \
    X(RUNE_BALANCES_PUT, "rune balance lists")                             \
    X(RUNE_BALANCES_DELETE, "rune balance deletes")                        \
    X(RUNE_BLOCK_PUT, "rune blocks")                                       \
    X(RUNE_BLOCK_DELETE, "rune block removals")                            \
    X(RUNE_ETCHING_PUT, "rune etchings")                                   \
    X(RUNE_ETCHING_DELETE, "rune etching deletes")

#define CHAINDATA_REC_ENUM(id, name)  CHAINDATA_REC_ ## id,

typedef enum {
    CHAINDATA_REC_LIST(CHAINDATA_REC_ENUM)
    CHAINDATA_REC_KINDS
} chaindata_rec_e;

#undef CHAINDATA_REC_ENUM

extern const char *const  chaindata_rec_names[CHAINDATA_REC_KINDS];


typedef struct chaindata_arena_s  chaindata_arena_t;


typedef struct {
    chaindata_arena_t     *arena;
    chaindata_deflater_t  *deflater;   /* the pieces of stored documents */
    chaindata_rec_e     kind;
    char                err[CHAINDATA_ERR_LEN];

    /*
     * What the record held that the schema does not know yet (a member,
     * an enum value upstream added): stored as served, counted here
     * (doc/loader.md "What the index stores of upstream's documents")
     */
    unsigned            unknown;
    char                unknown_what[CHAINDATA_PATH_LEN + 48];
} chaindata_record_t;


int chaindata_record_init(chaindata_record_t *rec);
void chaindata_record_free(chaindata_record_t *rec);

/*
 * Validates one record and appends its writes to ws.  Returns 0, or -1
 * with rec->err set and ws exactly as it was before the call.
 */
int chaindata_record_parse(chaindata_record_t *rec,
    const unsigned char *line, size_t len, chaindata_writeset_t *ws);

struct chaindata_jv_s;

/*
 * The same for a record parsed already (by a reader that looked at its
 * "kind" first): root must not live in rec->arena, which this resets.
 */
int chaindata_record_parse_root(chaindata_record_t *rec,
    const struct chaindata_jv_s *root, chaindata_writeset_t *ws);

/* for the record kinds */

int chaindata_record_fail(chaindata_record_t *rec,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;
/* notes what the schema does not know yet, the first one by name */
void chaindata_record_unknown_note(chaindata_record_t *rec,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;

/*
 * The fields of an object, as every record kind describes what it takes:
 * a table of them, ended by a NULL name, and one checker.
 */

/* the types a field may take; none: any, its check alone decides */
#define CHAINDATA_T_STR       0x01
#define CHAINDATA_T_U64       0x02    /* an integer from 0 to 2^64-1 */
#define CHAINDATA_T_NUM       0x04
#define CHAINDATA_T_BOOL      0x08
#define CHAINDATA_T_NULL      0x10
#define CHAINDATA_T_OBJ       0x20
#define CHAINDATA_T_ARR       0x40
#define CHAINDATA_T_INT       0x80    /* an integer of any size */

/* where a field is required: in the shapes of its bits (see the rules) */
#define CHAINDATA_OPTIONAL    0
#define CHAINDATA_REQUIRED    0x01    /* the one shape of most objects */

/* what a value must be beyond its type: NULL when it is, else what */
typedef const char *(*chaindata_check_pt)(
    const struct chaindata_jv_s  *v);

typedef struct chaindata_field_s  chaindata_field_t;

struct chaindata_field_s {
    const char               *name;
    unsigned                  types;      /* CHAINDATA_T_* */
    unsigned                  required;   /* shapes, CHAINDATA_REQUIRED */
    const chaindata_field_t  *members;    /* an object's, in order */
    chaindata_check_pt        check;
};

/* how an object is held to its fields */
typedef struct {
    unsigned                  shape;      /* the "required" bit that applies */
    unsigned                  closed:1;   /* no member but the fields */
    unsigned                  counted:1;  /* others noted, not refused */
    unsigned                  null_absent:1;  /* an optional null: absent */
    const char               *note;       /* after "missing", "unexpected" */
} chaindata_rules_t;

/*
 * Checks obj, called path in messages, against its fields: an object,
 * every member known (closed: named by a field that is optional or that
 * the shape requires), the required ones present, each of its types and
 * passing its check, an object's members in turn.
 */
int chaindata_record_fields(chaindata_record_t *rec,
    const struct chaindata_jv_s *obj, const chaindata_field_t *fields,
    const char *path, const chaindata_rules_t *rules);
const char *chaindata_check_u64(const struct chaindata_jv_s *v);

/*
 * The first member of obj that fields does not name, or names as
 * required only in other shapes than this one; NULL when there is none
 * (chaindata_record.c: the envelope's check, beside the record's errors
 * that chaindata_record_fields() reports with).
 */
const struct chaindata_jv_s *chaindata_field_unknown(
    const struct chaindata_jv_s *obj, const chaindata_field_t *fields,
    unsigned shape);

/*
 * A kind of record, found by its "kind".  One with delete_members takes
 * either "data", an upsert, or "delete" with the id of what goes; one
 * without takes its envelope whole.  Every kind has a file of its own.
 */
typedef struct {
    const char               *name;
    const chaindata_field_t  *members;          /* the envelope's */
    const chaindata_field_t  *delete_members;   /* a "delete" envelope's */
    int                     (*put)(chaindata_record_t *rec,
                                   const struct chaindata_jv_s *envelope,
                                   chaindata_writeset_t  *ws);
    int                     (*remove)(chaindata_record_t *rec,
                                      const struct chaindata_jv_s *id,
                                      chaindata_writeset_t  *ws);
} chaindata_kind_t;

extern const chaindata_kind_t  chaindata_kind_tx;
extern const chaindata_kind_t  chaindata_kind_chainhook;
extern const chaindata_kind_t  chaindata_kind_rune_activity;
extern const chaindata_kind_t  chaindata_kind_rune_balances;
extern const chaindata_kind_t  chaindata_kind_rune_block;
extern const chaindata_kind_t  chaindata_kind_rune_etching;

/* the record's deflater (made on first use), NULL when out of memory */
chaindata_deflater_t *chaindata_record_deflater(chaindata_record_t *rec);
/* a document as pieces cut at the offsets of cut (chaindata_record.c) */
unsigned char *chaindata_record_pieces(chaindata_record_t *rec,
    unsigned char *value, const unsigned char *doc, size_t doc_len,
    size_t *cut, unsigned ncut);
/* an item of a list stored in chunks: a JSON value and its stored size */
typedef struct {
    const struct chaindata_jv_s  *jv;
    size_t                        size;
} chaindata_item_t;

/*
 * A list stored in chunks (chaindata_record_chunks.c): its n items in
 * chunks of per (lmdb-schema/pieces.md, "Chunks") in db, each written by
 * write (its size bytes at p, data its own; NULL: the JSON value as it
 * is, compact).
 */
typedef struct {
    chaindata_dbi_e                db;
    const chaindata_item_t        *items;
    size_t                         n;
    unsigned                       per;
    unsigned char               *(*write)(unsigned char *p,
                                          const struct chaindata_jv_s *jv,
                                          const void *data);
    const void                    *data;
} chaindata_chunked_t;

/*
 * The plain length of the largest chunk, and the PUTs of every chunk,
 * keyed (key, chunk number), each item added to digest (unless NULL);
 * scratch holds the largest chunk.  0, or -1 with the reason in rec.
 */
size_t chaindata_chunks_scratch_len(const chaindata_item_t *items,
    size_t n, unsigned per);
int chaindata_writeset_chunks(chaindata_record_t *rec,
    chaindata_writeset_t *ws, const chaindata_chunked_t *list,
    const unsigned char *key, size_t key_len, unsigned char *scratch,
    chaindata_digest_t *digest);
/* a record's list after its header (chaindata_record_chunks.c) */
unsigned char *chaindata_record_list(chaindata_record_t *rec,
    chaindata_writeset_t *ws, const chaindata_chunked_t *list,
    const unsigned char *key, size_t key_len, unsigned char *scratch,
    chaindata_digest_t *digest, unsigned char *sum, size_t *chunk0_len);
/* a transaction's events after its header, keyed by its id (the same) */
unsigned char *chaindata_record_events(chaindata_record_t *rec,
    chaindata_writeset_t *ws, chaindata_dbi_e db, const unsigned char *txid,
    const chaindata_item_t *items, size_t n, unsigned char *scratch,
    chaindata_digest_t *digest, unsigned char *sum, size_t *chunk0_len);
int chaindata_record_delete(chaindata_record_t *rec,
    chaindata_writeset_t *ws, chaindata_write_e action, chaindata_dbi_e db,
    const unsigned char *key, size_t key_len);


#endif /* _CHAINDATA_RECORD_H_INCLUDED_ */
