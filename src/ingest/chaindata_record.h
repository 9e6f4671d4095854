
/*
 * chaindata: ingest records (one NDJSON line each) turned into the writes
 * that store them.  Parsing, validation and value layout live here, free
 * of nginx and of LMDB, so the loader, unit tests and fuzzers share them.
 */


#ifndef _CHAINDATA_RECORD_H_INCLUDED_
#define _CHAINDATA_RECORD_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_codec.h"


#define CHAINDATA_ERR_LEN         512


typedef enum {
    CHAINDATA_WRITE_PUT = 0,
    CHAINDATA_WRITE_DEL,
    CHAINDATA_WRITE_DEL_PREFIX
} chaindata_write_e;


typedef struct {
    chaindata_write_e  action;
    chaindata_dbi_e    db;
    size_t             key_off;
    size_t             key_len;
    size_t             val_off;
    size_t             val_len;
} chaindata_write_t;


/* the writes of a batch of records, applied in order in one transaction */
typedef struct {
    chaindata_write_t  *writes;
    size_t              nwrites;
    size_t              writes_cap;
    unsigned char      *buf;
    size_t              len;
    size_t              cap;
} chaindata_writeset_t;


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
    X(RUNE_BALANCES_DELETE, "rune balance deletes")

#define CHAINDATA_REC_ENUM(id, name)  CHAINDATA_REC_ ## id,

typedef enum {
    CHAINDATA_REC_LIST(CHAINDATA_REC_ENUM)
    CHAINDATA_REC_KINDS
} chaindata_rec_e;

#undef CHAINDATA_REC_ENUM

extern const char *const  chaindata_rec_names[CHAINDATA_REC_KINDS];


typedef struct chaindata_arena_s  chaindata_arena_t;


typedef struct {
    chaindata_arena_t  *arena;
    chaindata_rec_e     kind;
    char                err[CHAINDATA_ERR_LEN];
} chaindata_record_t;


int chaindata_record_init(chaindata_record_t *rec);
void chaindata_record_free(chaindata_record_t *rec);

/*
 * Validates one record and appends its writes to ws.  Returns 0, or -1
 * with rec->err set and ws exactly as it was before the call.
 */
int chaindata_record_parse(chaindata_record_t *rec,
    const unsigned char *line, size_t len, chaindata_writeset_t *ws);

/* for the record kinds */

struct chaindata_jv_s;

int chaindata_record_fail(chaindata_record_t *rec,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;
int chaindata_record_members(chaindata_record_t *rec,
    const struct chaindata_jv_s *envelope, const char *kind,
    const char **allowed);
/* a kind whose records carry either "data" (upsert) or "delete" */
typedef struct {
    const char   *kind;
    const char  **put_members;
    const char  **delete_members;
    int         (*put)(chaindata_record_t *rec,
                       const struct chaindata_jv_s *envelope,
                       const struct chaindata_jv_s *data,
                       chaindata_writeset_t  *ws);
    int         (*remove)(chaindata_record_t *rec,
                          const struct chaindata_jv_s *id,
                          chaindata_writeset_t  *ws);
} chaindata_upsert_t;

int chaindata_record_upsert(chaindata_record_t *rec,
    const chaindata_upsert_t *u,
    const struct chaindata_jv_s *envelope,
    chaindata_writeset_t  *ws);
unsigned char *chaindata_writeset_add(
    chaindata_writeset_t *ws, chaindata_write_e action,
    chaindata_dbi_e db, const unsigned char *key, size_t key_len,
    size_t val_len);

int chaindata_record_tx(chaindata_record_t *rec,
    const struct chaindata_jv_s *envelope,
    chaindata_writeset_t  *ws);

int chaindata_record_chainhook(chaindata_record_t *rec,
    const struct chaindata_jv_s *envelope,
    chaindata_writeset_t  *ws);

int chaindata_record_rune_activity(chaindata_record_t *rec,
    const struct chaindata_jv_s *envelope,
    chaindata_writeset_t  *ws);
int chaindata_record_rune_balances(chaindata_record_t *rec,
    const struct chaindata_jv_s *envelope,
    chaindata_writeset_t  *ws);

void chaindata_writeset_reset(chaindata_writeset_t *ws);
void chaindata_writeset_free(chaindata_writeset_t *ws);


#endif /* _CHAINDATA_RECORD_H_INCLUDED_ */
