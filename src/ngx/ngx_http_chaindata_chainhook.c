
/*
 * chaindata: GET {prefix}/{apiKey}/chainhooks/{chainhookUuid}/status, a
 * chainhook's status behind its API key (doc/module.md, Chainhook status).
 * What keeps the key out of logs and caches is ngx_http_chaindata_redact.c.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <openssl/crypto.h>

#include "chaindata_chainhook_path.h"
#include "chaindata_layout.h"
#include "chaindata_schema.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


#define NGX_HTTP_CHAINDATA_KEY_SHORT                                         \
    "params/apiKey must NOT have fewer than 1 characters"
#define NGX_HTTP_CHAINDATA_KEY_LONG                                          \
    "params/apiKey must NOT have more than 128 characters"
#define NGX_HTTP_CHAINDATA_UUID_FORMAT                                       \
    "params/chainhookUuid must match format \"uuid\""
#define NGX_HTTP_CHAINDATA_ROUTE_SHAPE                                       \
    "Route not found: the path ends in "                                     \
    "/{apiKey}/chainhooks/{chainhookUuid}/status"


/* what the read callbacks share: the chainhook asked for, the key's digest */
typedef struct {
    u_char           uuid[CHAINDATA_UUID_LEN];
    u_char           digest[CHAINDATA_KEY_DIGEST_LEN];
    chaindata_chh_t  h;
} ngx_http_chaindata_chh_t;


static void ngx_http_chaindata_chh_describe(void *ctx,
    ngx_http_chaindata_read_t *read);
static ngx_int_t ngx_http_chaindata_chh_lookup(ngx_http_request_t *r,
    void *ctx, const MDB_val *record, ngx_http_chaindata_reply_t *reply);
static ngx_int_t ngx_http_chaindata_chh_size(ngx_http_request_t *r,
    void *ctx, ngx_http_chaindata_reply_t *reply);
static u_char *ngx_http_chaindata_chh_write(void *ctx, u_char *p);


/*
 * Its 400 messages, one per check, are ngx_http_chaindata_chh_parse()'s;
 * no ETag: a chainhook's status is per key and never cached.
 */
static ngx_http_chaindata_route_t  ngx_http_chaindata_chh_route = {
    .describe = ngx_http_chaindata_chh_describe,
    .lookup = ngx_http_chaindata_chh_lookup,
    .size = ngx_http_chaindata_chh_size,
    .write = ngx_http_chaindata_chh_write,
    .code = "FST_ERR_VALIDATION",
    .no_route = NGX_HTTP_CHAINDATA_ROUTE_SHAPE,
    .not_found = "chainhook not found",
    .unreadable = "the chainhook could not be read from the index",
    .cache_control = NGX_HTTP_CHAINDATA_CACHE_NONE
};


/* all zero, no key's digest: what an unknown chainhook is compared with */
static u_char  ngx_http_chaindata_no_digest[CHAINDATA_KEY_DIGEST_LEN];


/*
 * The route's parameters (chaindata_chh_target): from the path
 * as the client sent it, or after a rewrite or an internal redirect from
 * the (decoded) current URI.  NGX_OK with p filled; NGX_DECLINED with the
 * error already sent in *rc.
 */

static ngx_int_t
ngx_http_chaindata_chh_parse(ngx_http_request_t *r,
    chaindata_chh_params_t *p, ngx_int_t *rc)
{
    ngx_str_t   *path;
    ngx_uint_t   raw;
    const char  *msg;

    raw = r->valid_unparsed_uri && r->unparsed_uri.len;
    path = raw ? &r->unparsed_uri : &r->uri;

    switch (chaindata_chh_target(path->data, path->len, raw, p)) {

    case CHAINDATA_CHH_OK:
        return NGX_OK;

    case CHAINDATA_CHH_KEY_EMPTY:
        msg = NGX_HTTP_CHAINDATA_KEY_SHORT;
        break;

    case CHAINDATA_CHH_KEY_LONG:
        msg = NGX_HTTP_CHAINDATA_KEY_LONG;
        break;

    case CHAINDATA_CHH_BAD_UUID:
        msg = NGX_HTTP_CHAINDATA_UUID_FORMAT;
        break;

    default:
        goto no_route;
    }

    *rc = ngx_http_chaindata_send_error(r, NGX_HTTP_BAD_REQUEST,
                                        ngx_http_chaindata_chh_route.code,
                                        msg);
    return NGX_DECLINED;

no_route:

    *rc = ngx_http_chaindata_send_error(r, NGX_HTTP_NOT_FOUND, NULL,
                                        ngx_http_chaindata_chh_route.no_route);
    return NGX_DECLINED;
}


/*
 * A wrong key and an unknown chainhook take the same steps: one lookup,
 * one constant-time comparison of the whole digest (with a digest no key
 * has when the chainhook is unknown), nothing logged.
 */

static ngx_int_t
ngx_http_chaindata_chh_lookup(ngx_http_request_t *r, void *ctx,
    const MDB_val *record, ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_chh_t  *chh = ctx;

    ngx_uint_t     found, match;
    const u_char  *stored;

    found = (record != NULL);

    if (found
        && chaindata_chh_decode(&chh->h, record->mv_data, record->mv_size)
           != 0)
    {
        ngx_http_chaindata_log_damaged(r->connection->log,
                                       CHAINDATA_DBI_CHAINHOOK,
                                       record->mv_data, record->mv_size);
        return NGX_ERROR;
    }

    stored = found ? chh->h.key_digest : ngx_http_chaindata_no_digest;

    match = (CRYPTO_memcmp(chh->digest, stored,
                           CHAINDATA_KEY_DIGEST_LEN) == 0);

    reply->status = (found & match) ? NGX_HTTP_OK : NGX_HTTP_NOT_FOUND;

    return NGX_OK;
}


/* the read: the chainhook's record (the key is checked by the lookup) */

static void
ngx_http_chaindata_chh_describe(void *ctx, ngx_http_chaindata_read_t *read)
{
    ngx_http_chaindata_chh_t  *chh = ctx;

    read->db = CHAINDATA_DBI_CHAINHOOK;
    read->key = chh->uuid;
    read->key_len = sizeof(chh->uuid);
    read->list_db = CHAINDATA_DBI_COUNT;
    read->list = NULL;
    read->per = 0;
    read->offset = 0;
    read->limit = 0;
}


/* only a match has a body: the stored document */

static ngx_int_t
ngx_http_chaindata_chh_size(ngx_http_request_t *r, void *ctx,
    ngx_http_chaindata_reply_t *reply)
{
    ngx_http_chaindata_chh_t  *chh = ctx;

    reply->body.len = chh->h.doc_len;

    return NGX_OK;
}


static u_char *
ngx_http_chaindata_chh_write(void *ctx, u_char *p)
{
    ngx_http_chaindata_chh_t  *chh = ctx;

    return ngx_cpymem(p, chh->h.doc, chh->h.doc_len);
}


ngx_int_t
ngx_http_chaindata_chainhook_handler(ngx_http_request_t *r)
{
    ngx_int_t                 rc;
    chaindata_chh_params_t    q;
    ngx_http_chaindata_chh_t  chh;

    if (!ngx_http_chaindata_method_allowed(r)) {
        return ngx_http_chaindata_send_not_allowed(r);
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    if (ngx_http_chaindata_chh_parse(r, &q, &rc) != NGX_OK) {
        ngx_explicit_memzero(q.keybuf, sizeof(q.keybuf));
        return rc;
    }

    ngx_memcpy(chh.uuid, q.uuid, sizeof(chh.uuid));
    chaindata_key_digest(q.key.data, q.key.len, chh.digest);

    /* the decoded key goes no further */
    ngx_explicit_memzero(q.keybuf, sizeof(q.keybuf));

    return ngx_http_chaindata_read_and_reply(r,
                                             &ngx_http_chaindata_chh_route,
                                             &chh);
}
