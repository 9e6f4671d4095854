
/*
 * chaindata: the path parameters of chaindata_runes' routes as the Runes
 * API 3.0.2 checks them (api/runes/src/api/schemas.ts), what each form
 * looks up in the index (lmdb-schema/runes.md), and the ETag of an
 * answer.  No nginx headers here.
 */


#ifndef _CHAINDATA_PATHS_RUNES_H_INCLUDED_
#define _CHAINDATA_PATHS_RUNES_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_paths.h"
#include "chaindata_runes_layout.h"


/* what an etching parameter is */
typedef enum {
    CHAINDATA_ETCHING_BAD = 0,    /* 400: none of the four forms */
    CHAINDATA_ETCHING_TOO_BIG,    /* 500: a number past a bigint */
    CHAINDATA_ETCHING_NONE,       /* of a form, but no rune can be it */
    CHAINDATA_ETCHING_ID,         /* "840000:8": id_key */
    CHAINDATA_ETCHING_NUMBER,     /* "1": number */
    CHAINDATA_ETCHING_NAME,       /* "RSICEPICSEVEN": name */
    CHAINDATA_ETCHING_SPACED      /* "RSIC•EPIC•SEVEN": name, then the
                                     document's spaced_name is the text */
} chaindata_etching_e;


typedef struct {
    chaindata_etching_e  form;
    unsigned char        id_key[CHAINDATA_RUNE_ID_KEY_LEN];
    uint64_t             number;
    unsigned char        name[CHAINDATA_RUNE_NAME_MAX];
    size_t               name_len;
} chaindata_etching_t;


/* the form of an etching parameter, and what it looks up */
void chaindata_etching_param(chaindata_etching_t *e, const unsigned char *s,
    size_t len);

/*
 * Whether an etching document's "spaced_name" is exactly s (upstream
 * compares the text as given: "Rsic•Epic•Seven" is no rune's).
 */
int chaindata_etching_spaced_is(const unsigned char *doc, size_t len,
    const unsigned char *s, size_t slen);


/* what a block parameter is */
typedef enum {
    CHAINDATA_BLOCK_BAD = 0,      /* 400 */
    CHAINDATA_BLOCK_NONE,         /* of a form, but no block can be it */
    CHAINDATA_BLOCK_HEIGHT,
    CHAINDATA_BLOCK_HASH
} chaindata_block_e;

typedef struct {
    chaindata_block_e    form;
    uint64_t             height;
    unsigned char        hash[CHAINDATA_RUNE_HASH_LEN];
} chaindata_block_param_t;

/*
 * "^[0-9]+$" (a height past 2^64 - 1 is no block's) or
 * "^[0]{8}[a-fA-F0-9]{56}$" (matched as stored: lowercase, else no
 * block's)
 */
void chaindata_block_param(chaindata_block_param_t *b,
    const unsigned char *s, size_t len);

/*
 * The tx id of chaindata_runes' transaction route, its list key:
 * "^[a-fA-F0-9]{64}$", matched as stored (lowercase); an id in upper
 * case is a one-byte key no list has.  0: not a tx id.
 */
size_t chaindata_runes_txid_key(unsigned char *key, const unsigned char *s,
    size_t len);

/*
 * The balances list key of any string (chaindata_address_key()'s of the
 * text as given): one no list has when the text is no address, or when
 * that key would hold it otherwise (a bech32 address in upper case).
 */
size_t chaindata_runes_address_list_key(unsigned char *key,
    const unsigned char *s, size_t len);


/*
 * The ETag of a chaindata_runes answer (doc/module.md): the first
 * CHAINDATA_RUNE_STATE_LEN bytes of the SHA-256 of these pieces joined by
 * newlines (chaindata_digest.h): the runes state, the route's id, each
 * parameter as matched, then a page's offset as echoed and its limit in
 * decimal (offset NULL: no page).
 */
void chaindata_runes_etag(unsigned char *out, const unsigned char *state,
    const char *id, const chaindata_span_t *params, size_t n,
    const chaindata_span_t *offset, uint64_t limit);


#endif /* _CHAINDATA_PATHS_RUNES_H_INCLUDED_ */
