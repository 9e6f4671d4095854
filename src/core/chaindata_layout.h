
/*
 * chaindata: the key and value layouts of the LMDB index: key lengths,
 * the records' headers, and their encoders and decoders.
 *
 * No nginx headers here.  lmdb-schema/ documents every layout defined
 * below; change both together, and bump CHAINDATA_SCHEMA_VERSION
 * (chaindata_schema.h).
 */


#ifndef _CHAINDATA_LAYOUT_H_INCLUDED_
#define _CHAINDATA_LAYOUT_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "chaindata_piece.h"


#define CHAINDATA_TXID_LEN            32
#define CHAINDATA_TXID_HEX_LEN        64

#define CHAINDATA_DIGEST_LEN          16

/*
 * The items of a stored chunk (chaindata_chunks.h): events of a
 * transaction in "tx_event" (lmdb-schema/README.md), entries of a rune
 * list (lmdb-schema/runes.md).  Part of the layout, not of the API:
 * they equal the routes' default page sizes (chaindata_paths.h) so that
 * a default page is one chunk, but a change of a default leaves them.
 */
#define CHAINDATA_EVENT_CHUNK   20
#define CHAINDATA_RUNE_CHUNK    20

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
 * The value of a "tx_v3" record (lmdb-schema/README.md): a fixed header,
 * then the v3 document as pieces cut where each of its heavy fields (the
 * parts a request names in "include") begins and ends, so that any
 * subset of them is whole pieces; with 0x08, chunk 0 of its v3 events.
 */
#define CHAINDATA_TX3H_FORMAT         1
#define CHAINDATA_TX3H_SIZE           64
#define CHAINDATA_TX3H_EVENTS         0x01   /* the events route serves */
#define CHAINDATA_TX3H_MEMPOOL        0x02   /* its events: 400 */
#define CHAINDATA_TX3H_GONE           0x04   /* no document: 404 */
#define CHAINDATA_TX3H_CHUNK0         0x08
#define CHAINDATA_TX3H_PARTS          4
#define CHAINDATA_TX3H_PIECES_MAX     (2 * CHAINDATA_TX3H_PARTS + 1)

/* the heavy fields, in the order of the header's spans and the bits */
#define CHAINDATA_TX3_FUNCTION_ARGS   0
#define CHAINDATA_TX3_SOURCE_CODE     1
#define CHAINDATA_TX3_POST_CONDITIONS 2
#define CHAINDATA_TX3_RESULT          3

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

/*
 * The key and value bytes of three nodes that fill a 4 KiB page: the part
 * size of the databases of events (CHAINDATA_DB_LIST, chaindata_schema.h),
 * whose chunk of random data is often a little over 2 KB, where a
 * transaction's record is most often one node under half a page.
 */
#define CHAINDATA_NODE_THIRD          1350

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
 * key no source can have; the value its format, the stream's identity
 * (when it was created), then the sequence.
 */
#define CHAINDATA_STREAM_KEY          "stream:"
#define CHAINDATA_STREAM_NAME_MAX     200
#define CHAINDATA_STREAM_FORMAT       2
#define CHAINDATA_STREAM_SIZE         16

/*
 * Beside it, the publisher's last sequence as the follower last saw the
 * stream: CHAINDATA_STREAMTIP_KEY then the name, the same layout with its
 * own format.
 */
#define CHAINDATA_STREAMTIP_KEY       "streamtip:"
#define CHAINDATA_STREAMTIP_FORMAT    5


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
    unsigned        flags;
    uint32_t        event_count;
    uint32_t        part_at[CHAINDATA_TX3H_PARTS];   /* 0, 0: absent */
    uint32_t        part_len[CHAINDATA_TX3H_PARTS];
    unsigned char   digest[CHAINDATA_DIGEST_LEN];
    size_t          doc_len;
    unsigned        npieces;
    chaindata_piece_t     piece[CHAINDATA_TX3H_PIECES_MAX];
    uint32_t        at[CHAINDATA_TX3H_PIECES_MAX];
    const unsigned char  *chunk0;
    size_t          chunk0_len;
} chaindata_tx3h_t;


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


/*
 * A "tx" value's header (CHAINDATA_TXH_SIZE bytes at out), and the whole
 * value decoded: 0, or -1 when it is not one (lengths checked against
 * len, never trusted).  The same for a list's header.
 */
void chaindata_txh_encode(unsigned char *out, const chaindata_txh_t *h);
int chaindata_txh_decode(chaindata_txh_t *h,
    const unsigned char *v, size_t len);
/*
 * 1 when a "tx" value's header says flag (CHAINDATA_TXH_*), 0 when not or
 * when it is not one's: the header alone, so a value read as its first
 * part (chaindata_parts.h) tells what the mirror and the feed ask of a
 * stored transaction (pending, confirmed).
 */
int chaindata_txh_has(const unsigned char *v, size_t len, unsigned flag);

void chaindata_tx3h_encode(unsigned char *out, const chaindata_tx3h_t *h);
int chaindata_tx3h_decode(chaindata_tx3h_t *h,
    const unsigned char *v, size_t len);
/* 1 when piece i of h lies inside a part the request leaves out */
int chaindata_tx3h_left_out(const chaindata_tx3h_t *h, unsigned i,
    unsigned include);

void chaindata_listh_encode(unsigned char *out, const chaindata_listh_t *h);
int chaindata_listh_decode(chaindata_listh_t *h,
    const unsigned char *v, size_t len);
size_t chaindata_list_entry_key(unsigned char *key,
    const unsigned char *list_key, size_t list_key_len, uint32_t pos);

/* the digest of a chainhook's API key, and its value */
void chaindata_key_digest(const unsigned char *key, size_t len,
    unsigned char *digest);
void chaindata_chh_encode(unsigned char *out, const unsigned char *key_digest);
int chaindata_chh_decode(chaindata_chh_t *h,
    const unsigned char *v, size_t len);

/* a source's position in "feed": out holds CHAINDATA_FEED_SIZE + hash */
void chaindata_feedpos_encode(unsigned char *out,
    const chaindata_feedpos_t *pos);
int chaindata_feedpos_decode(chaindata_feedpos_t *pos,
    const unsigned char *v, size_t len);

/*
 * a stream's sequence of the given format (CHAINDATA_STREAM_FORMAT or
 * CHAINDATA_STREAMTIP_FORMAT): out holds CHAINDATA_STREAM_SIZE bytes;
 * decode: 0, or -1 when the value is not one of that format
 */
void chaindata_streamseq_encode(unsigned char *out, unsigned format,
    uint64_t seq);
int chaindata_streamseq_decode(uint64_t *seq, unsigned format,
    const unsigned char *v, size_t len);
/*
 * the stream's identity in a position's 7 bytes after its format: when
 * the stream was created, in microseconds (0: not known, an older index)
 */
void chaindata_streamseq_put_id(unsigned char *v, uint64_t id);
uint64_t chaindata_streamseq_id(const unsigned char *v);


#endif /* _CHAINDATA_LAYOUT_H_INCLUDED_ */
