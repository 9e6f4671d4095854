
/*
 * chaindata: key and value layouts of the LMDB index, and the small
 * parsers both the nginx module and the loader need.
 *
 * No nginx headers here: the loader, the unit tests and the fuzz targets
 * link this file on its own.  lmdb-schema/README.md documents every layout
 * defined below; change both together.
 */


#ifndef _NGX_HTTP_CHAINDATA_CODEC_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_CODEC_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


/* bump when any key or value layout changes; the module refuses others */
#define NGX_HTTP_CHAINDATA_SCHEMA_VERSION      "1"

#define NGX_HTTP_CHAINDATA_MAX_DBS             16

#define NGX_HTTP_CHAINDATA_DB_META             "meta"
#define NGX_HTTP_CHAINDATA_DB_TX               "tx"
#define NGX_HTTP_CHAINDATA_DB_TX_EVENT         "tx_event"
#define NGX_HTTP_CHAINDATA_DB_CHAINHOOK        "chainhook"
#define NGX_HTTP_CHAINDATA_DB_RUNE_ACTIVITY    "rune_activity"
#define NGX_HTTP_CHAINDATA_DB_RUNE_ACTIVITY_ENTRY                           \
    "rune_activity_entry"
#define NGX_HTTP_CHAINDATA_DB_RUNE_BALANCES    "rune_balances"
#define NGX_HTTP_CHAINDATA_DB_RUNE_BALANCE_ENTRY                            \
    "rune_balance_entry"

#define NGX_HTTP_CHAINDATA_META_SCHEMA         "schema_version"

#define NGX_HTTP_CHAINDATA_TXID_LEN            32
#define NGX_HTTP_CHAINDATA_TXID_HEX_LEN        64
#define NGX_HTTP_CHAINDATA_EVENT_KEY_LEN       (NGX_HTTP_CHAINDATA_TXID_LEN + 4)

#define NGX_HTTP_CHAINDATA_DIGEST_LEN          16

/* the value of a "tx" record: a fixed header, then the document */
#define NGX_HTTP_CHAINDATA_TXH_FORMAT          1
#define NGX_HTTP_CHAINDATA_TXH_SIZE            36
#define NGX_HTTP_CHAINDATA_TXH_EVENTS          0x01
#define NGX_HTTP_CHAINDATA_TXH_FARGS           0x02

/* chainhooks: a UUID names one, its API key is kept only as a digest */
#define NGX_HTTP_CHAINDATA_UUID_LEN            16
#define NGX_HTTP_CHAINDATA_UUID_TEXT_LEN       36
#define NGX_HTTP_CHAINDATA_API_KEY_MAX         128
#define NGX_HTTP_CHAINDATA_KEY_DIGEST_LEN      32

/* the value of a "chainhook" record: a fixed header, then the document */
#define NGX_HTTP_CHAINDATA_CHH_FORMAT          1
#define NGX_HTTP_CHAINDATA_CHH_SIZE            36

/*
 * A list (rune activity of a transaction, rune balances of an address):
 * a header record under the list's key, one record per entry under the
 * key and the entry's position (u32 big-endian).  lmdb-schema/runes.md.
 */
#define NGX_HTTP_CHAINDATA_LISTH_FORMAT        1
#define NGX_HTTP_CHAINDATA_LISTH_SIZE          24

/* the longest list key: a length byte and a 90-character address */
#define NGX_HTTP_CHAINDATA_LIST_KEY_MAX        (1 + 90)
#define NGX_HTTP_CHAINDATA_LIST_ENTRY_KEY_MAX                                \
    (NGX_HTTP_CHAINDATA_LIST_KEY_MAX + 4)

/* the digest of an empty list: SHA-256 of no bytes, its first 16 */
#define NGX_HTTP_CHAINDATA_EMPTY_DIGEST                                      \
    "\xe3\xb0\xc4\x42\x98\xfc\x1c\x14\x9a\xfb\xf4\xc8\x99\x6f\xb9\x24"


/* the named databases, in the order ngx_http_chaindata_db_names lists */
typedef enum {
    NGX_HTTP_CHAINDATA_DBI_META = 0,
    NGX_HTTP_CHAINDATA_DBI_TX,
    NGX_HTTP_CHAINDATA_DBI_TX_EVENT,
    NGX_HTTP_CHAINDATA_DBI_CHAINHOOK,
    NGX_HTTP_CHAINDATA_DBI_RUNE_ACTIVITY,
    NGX_HTTP_CHAINDATA_DBI_RUNE_ACTIVITY_ENTRY,
    NGX_HTTP_CHAINDATA_DBI_RUNE_BALANCES,
    NGX_HTTP_CHAINDATA_DBI_RUNE_BALANCE_ENTRY,
    NGX_HTTP_CHAINDATA_DBI_COUNT
} ngx_http_chaindata_dbi_e;

extern const char *ngx_http_chaindata_db_names[NGX_HTTP_CHAINDATA_DBI_COUNT];


typedef struct {
    unsigned        flags;
    uint32_t        event_count;
    uint32_t        events_at;
    uint32_t        fargs_start;
    uint32_t        fargs_len;
    unsigned char   digest[NGX_HTTP_CHAINDATA_DIGEST_LEN];
    const unsigned char  *doc;
    size_t          doc_len;
} ngx_http_chaindata_txh_t;


typedef struct {
    const unsigned char  *key_digest;   /* KEY_DIGEST_LEN bytes */
    const unsigned char  *doc;
    size_t                doc_len;
} ngx_http_chaindata_chh_t;


typedef struct {
    uint32_t        count;
    unsigned char   digest[NGX_HTTP_CHAINDATA_DIGEST_LEN];
} ngx_http_chaindata_listh_t;


typedef enum {
    NGX_HTTP_CHAINDATA_INT_OK = 0,
    NGX_HTTP_CHAINDATA_INT_NEGATIVE,
    NGX_HTTP_CHAINDATA_INT_INVALID
} ngx_http_chaindata_int_rc_e;


int ngx_http_chaindata_hex_value(unsigned char c);
int ngx_http_chaindata_hex_decode(unsigned char *dst, const unsigned char *src,
    size_t len);
unsigned char *ngx_http_chaindata_hex_encode(unsigned char *dst,
    const unsigned char *src, size_t n);

int ngx_http_chaindata_txid_parse(const unsigned char *s, size_t len,
    unsigned char *txid, int *prefixed);

void ngx_http_chaindata_put_u32be(unsigned char *p, uint32_t v);
uint32_t ngx_http_chaindata_get_u32be(const unsigned char *p);
void ngx_http_chaindata_put_u32le(unsigned char *p, uint32_t v);
uint32_t ngx_http_chaindata_get_u32le(const unsigned char *p);

void ngx_http_chaindata_event_key(unsigned char *key,
    const unsigned char *txid, uint32_t pos);

void ngx_http_chaindata_txh_encode(unsigned char *out,
    const ngx_http_chaindata_txh_t *h);
int ngx_http_chaindata_txh_decode(ngx_http_chaindata_txh_t *h,
    const unsigned char *v, size_t len);

void ngx_http_chaindata_listh_encode(unsigned char *out,
    const ngx_http_chaindata_listh_t *h);
int ngx_http_chaindata_listh_decode(ngx_http_chaindata_listh_t *h,
    const unsigned char *v, size_t len);
size_t ngx_http_chaindata_list_entry_key(unsigned char *key,
    const unsigned char *list_key, size_t list_key_len, uint32_t pos);

ngx_http_chaindata_int_rc_e ngx_http_chaindata_parse_int(
    const unsigned char *s, size_t len, uint64_t cap, uint64_t *out);

size_t ngx_http_chaindata_query_find(const unsigned char *args, size_t len,
    const char *name, const unsigned char **value, size_t *value_len);

int ngx_http_chaindata_uuid_parse(const unsigned char *s, size_t len,
    unsigned char *uuid);
void ngx_http_chaindata_key_digest(const unsigned char *key, size_t len,
    unsigned char *digest);
void ngx_http_chaindata_chh_encode(unsigned char *out,
    const unsigned char *key_digest);
int ngx_http_chaindata_chh_decode(ngx_http_chaindata_chh_t *h,
    const unsigned char *v, size_t len);

size_t ngx_http_chaindata_json_escape_len(const unsigned char *s, size_t len);
unsigned char *ngx_http_chaindata_json_escape(unsigned char *dst,
    const unsigned char *s, size_t len);

size_t ngx_http_chaindata_utf8_valid_len(const unsigned char *s, size_t len);


#endif /* _NGX_HTTP_CHAINDATA_CODEC_H_INCLUDED_ */
