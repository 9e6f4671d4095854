
/*
 * chaindata: key and value layouts of the LMDB index, and the small
 * parsers both the nginx module and the loader need.
 *
 * No nginx headers here: the loader, the unit tests and the fuzz targets
 * link this file on its own.  lmdb-schema/README.md documents every layout
 * defined below; change both together.
 */


#ifndef _CHAINDATA_CODEC_H_INCLUDED_
#define _CHAINDATA_CODEC_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_piece.h"


/* bump when any key or value layout changes; the module refuses others */
#define CHAINDATA_SCHEMA_VERSION      "3"

#define CHAINDATA_MAX_DBS             16

/*
 * Slots of LMDB's reader table (mdb_env_set_maxreaders), the loader's
 * and the module's default, and the most either accepts: the first
 * process to open lock.mdb while nobody has it open sizes the table.
 */
#define CHAINDATA_MAX_READERS         4096
#define CHAINDATA_MAX_READERS_LIMIT   1048576

#define CHAINDATA_DB_META             "meta"
#define CHAINDATA_DB_TX               "tx"
#define CHAINDATA_DB_TX_EVENT         "tx_event"
#define CHAINDATA_DB_CHAINHOOK        "chainhook"
#define CHAINDATA_DB_RUNE_ACTIVITY    "rune_activity"
#define CHAINDATA_DB_RUNE_ACTIVITY_ENTRY                           \
    "rune_activity_entry"
#define CHAINDATA_DB_RUNE_BALANCES    "rune_balances"
#define CHAINDATA_DB_RUNE_BALANCE_ENTRY                            \
    "rune_balance_entry"
#define CHAINDATA_DB_FEED             "feed"
#define CHAINDATA_DB_BLOCK            "block"

#define CHAINDATA_META_SCHEMA         "schema_version"

#define CHAINDATA_TXID_LEN            32
#define CHAINDATA_TXID_HEX_LEN        64

#define CHAINDATA_DIGEST_LEN          16

/*
 * The value of a "tx" record: a fixed header, then the document as
 * pieces (chaindata_piece.h) cut where function_args begins and ends and
 * where the events go, so at most four.
 */
#define CHAINDATA_TXH_FORMAT          2
#define CHAINDATA_TXH_SIZE            36
#define CHAINDATA_TXH_EVENTS          0x01
#define CHAINDATA_TXH_FARGS           0x02
#define CHAINDATA_TXH_PENDING         0x04
#define CHAINDATA_TXH_CHUNK0          0x08
#define CHAINDATA_TXH_PIECES_MAX      4

/*
 * The most key and value bytes LMDB keeps in a leaf node on 4 KiB pages
 * (its node limit, 2,038 bytes, less the node's own 8): a value over it
 * goes to overflow pages, whole pages each.  A list's first chunk goes
 * inside its header's value when the two stay under it
 * (lmdb-schema/pieces.md, "The first chunk inside the header").
 */
#define CHAINDATA_NODE_MAX            2030

#if (CHAINDATA_NODE_MAX > 65535)
#error "an inline chunk's length is 2 bytes in its header"
#endif

/* chainhooks: a UUID names one, its API key is kept only as a digest */
#define CHAINDATA_UUID_LEN            16
#define CHAINDATA_UUID_TEXT_LEN       36
#define CHAINDATA_API_KEY_MAX         128
#define CHAINDATA_KEY_DIGEST_LEN      32

/* the value of a "chainhook" record: a fixed header, then the document */
#define CHAINDATA_CHH_FORMAT          1
#define CHAINDATA_CHH_SIZE            36

/*
 * A list (rune activity of a transaction, rune balances of an address):
 * a header record under the list's key, one record per entry under the
 * key and the entry's position (u32 big-endian).  lmdb-schema/runes.md.
 */
#define CHAINDATA_LISTH_FORMAT        1
#define CHAINDATA_LISTH_SIZE          24
#define CHAINDATA_LISTH_CHUNK0        0x01

/* the longest list key: a length byte and a 90-character address */
#define CHAINDATA_LIST_KEY_MAX        (1 + 90)
#define CHAINDATA_LIST_ENTRY_KEY_MAX                                \
    (CHAINDATA_LIST_KEY_MAX + 4)

/*
 * Feeds (lmdb-schema/feed.md): a position per source in "feed", a record
 * per committed block in "block" (its hash, parent and how to undo it).
 */
#define CHAINDATA_FEED_FORMAT         1
#define CHAINDATA_FEED_SIZE           32
#define CHAINDATA_FEED_SOURCE_MAX     32
#define CHAINDATA_FEED_HASH_MAX       128


/*
 * A fan-out stream's position in "feed" (lmdb-schema/feed.md "The
 * stream"): the key is CHAINDATA_STREAM_KEY then the stream's name, a
 * key no source can have; the value its format, then the sequence.
 */
#define CHAINDATA_STREAM_KEY          "stream:"
#define CHAINDATA_STREAM_NAME_MAX     200
#define CHAINDATA_STREAM_FORMAT       2
#define CHAINDATA_STREAM_SIZE         16


typedef struct {
    uint64_t              height;
    uint64_t              time;        /* the block's time, Unix seconds */
    uint64_t              committed;   /* the commit's time, Unix seconds */
    const unsigned char  *hash;
    size_t                hash_len;
} chaindata_feedpos_t;


/* the digest of an empty list: SHA-256 of no bytes, its first 16 */
#define CHAINDATA_EMPTY_DIGEST                                      \
    "\xe3\xb0\xc4\x42\x98\xfc\x1c\x14\x9a\xfb\xf4\xc8\x99\x6f\xb9\x24"


/* the named databases, in the order chaindata_db_names lists */
typedef enum {
    CHAINDATA_DBI_META = 0,
    CHAINDATA_DBI_TX,
    CHAINDATA_DBI_TX_EVENT,
    CHAINDATA_DBI_CHAINHOOK,
    CHAINDATA_DBI_RUNE_ACTIVITY,
    CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY,
    CHAINDATA_DBI_RUNE_BALANCES,
    CHAINDATA_DBI_RUNE_BALANCE_ENTRY,
    CHAINDATA_DBI_FEED,
    CHAINDATA_DBI_BLOCK,
    CHAINDATA_DBI_COUNT
} chaindata_dbi_e;

extern const char *chaindata_db_names[CHAINDATA_DBI_COUNT];


typedef struct {
    unsigned        flags;
    uint32_t        event_count;
    uint32_t        events_at;
    uint32_t        fargs_start;
    uint32_t        fargs_len;
    unsigned char   digest[CHAINDATA_DIGEST_LEN];
    size_t          doc_len;       /* of the plain document */
    unsigned        npieces;
    chaindata_piece_t     piece[CHAINDATA_TXH_PIECES_MAX];
    uint32_t        at[CHAINDATA_TXH_PIECES_MAX];  /* where each begins */
    const unsigned char  *chunk0;  /* the first chunk of events, inline */
    size_t          chunk0_len;    /* 0: in "tx_event" */
} chaindata_txh_t;


typedef struct {
    const unsigned char  *key_digest;   /* KEY_DIGEST_LEN bytes */
    const unsigned char  *doc;
    size_t                doc_len;
} chaindata_chh_t;


typedef struct {
    uint32_t        count;
    unsigned char   digest[CHAINDATA_DIGEST_LEN];
    const unsigned char  *chunk0;  /* the first chunk, inline */
    size_t          chunk0_len;    /* 0: under the entries' key */
} chaindata_listh_t;


extern const unsigned char  chaindata_hex_table[256];


/* a hex digit's value, or -1 */

static inline int
chaindata_hex_value(unsigned char c)
{
    return chaindata_hex_table[c] == 0xff ? -1 : chaindata_hex_table[c];
}


int chaindata_hex_decode(unsigned char *dst, const unsigned char *src,
    size_t len);
int chaindata_hex_is_lower(const unsigned char *s, size_t len);
unsigned char *chaindata_hex_encode(unsigned char *dst,
    const unsigned char *src, size_t n);

int chaindata_txid_parse(const unsigned char *s, size_t len,
    unsigned char *txid, int *prefixed);


/* the integers of keys and values: small, inline, any alignment */

static inline void
chaindata_put_u32be(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char) (v >> 24);
    p[1] = (unsigned char) (v >> 16);
    p[2] = (unsigned char) (v >> 8);
    p[3] = (unsigned char) v;
}


static inline uint32_t
chaindata_get_u32be(const unsigned char *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
           | (uint32_t) p[2] << 8 | p[3];
}


static inline void
chaindata_put_u32le(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char) v;
    p[1] = (unsigned char) (v >> 8);
    p[2] = (unsigned char) (v >> 16);
    p[3] = (unsigned char) (v >> 24);
}


static inline uint32_t
chaindata_get_u32le(const unsigned char *p)
{
    return (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16
           | (uint32_t) p[1] << 8 | p[0];
}


static inline void
chaindata_put_u64le(unsigned char *p, uint64_t v)
{
    chaindata_put_u32le(p, (uint32_t) v);
    chaindata_put_u32le(p + 4, (uint32_t) (v >> 32));
}


static inline uint64_t
chaindata_get_u64le(const unsigned char *p)
{
    return (uint64_t) chaindata_get_u32le(p + 4) << 32
           | chaindata_get_u32le(p);
}


void chaindata_txh_encode(unsigned char *out,
    const chaindata_txh_t  *h);
int chaindata_txh_decode(chaindata_txh_t *h,
    const unsigned char *v, size_t len);

void chaindata_listh_encode(unsigned char *out,
    const chaindata_listh_t  *h);
int chaindata_listh_decode(chaindata_listh_t *h,
    const unsigned char *v, size_t len);
size_t chaindata_list_entry_key(unsigned char *key,
    const unsigned char *list_key, size_t list_key_len, uint32_t pos);

int chaindata_uuid_parse(const unsigned char *s, size_t len,
    unsigned char *uuid);
void chaindata_key_digest(const unsigned char *key, size_t len,
    unsigned char *digest);
void chaindata_chh_encode(unsigned char *out,
    const unsigned char *key_digest);
int chaindata_chh_decode(chaindata_chh_t *h,
    const unsigned char *v, size_t len);

void chaindata_feedpos_encode(unsigned char *out,
    const chaindata_feedpos_t *pos);
int chaindata_feedpos_decode(chaindata_feedpos_t *pos,
    const unsigned char *v, size_t len);
/* out holds CHAINDATA_STREAM_SIZE bytes; decode: 0, or -1 when not one */
void chaindata_streampos_encode(unsigned char *out, uint64_t seq);
int chaindata_streampos_decode(uint64_t *seq, const unsigned char *v,
    size_t len);

size_t chaindata_json_escape_len(const unsigned char *s, size_t len);
unsigned char *chaindata_json_escape(unsigned char *dst,
    const unsigned char *s, size_t len);

size_t chaindata_utf8_valid_len(const unsigned char *s, size_t len);


#endif /* _CHAINDATA_CODEC_H_INCLUDED_ */
