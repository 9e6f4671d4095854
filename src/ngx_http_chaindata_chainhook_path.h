
/*
 * chaindata: the request targets of the chainhook route without nginx:
 * the pieces that hold an API key (for $chaindata_redacted_uri,
 * $chaindata_api_key_digest and the redacted request line) and the
 * route's parameters, {apiKey}/chainhooks/{chainhookUuid}/status.  The
 * handler and the variables call these, and so does t/fuzz/fuzz_chainhook.c.
 *
 * No nginx headers here.
 */


#ifndef _NGX_HTTP_CHAINDATA_CHAINHOOK_PATH_H_INCLUDED_
#define _NGX_HTTP_CHAINDATA_CHAINHOOK_PATH_H_INCLUDED_


#include <stddef.h>

#include "ngx_http_chaindata_codec.h"
#include "ngx_http_chaindata_paths.h"


#define NGX_HTTP_CHAINDATA_REDACTED         "***"

/* the room a redacted copy of a target of len bytes with n key pieces needs */
#define NGX_HTTP_CHAINDATA_REDACTED_SIZE(len, n)                             \
    ((len) + ((n) + 1) * (sizeof(NGX_HTTP_CHAINDATA_REDACTED) - 1))


/* what the route makes of its path */
typedef enum {
    NGX_HTTP_CHAINDATA_CHH_OK = 0,
    NGX_HTTP_CHAINDATA_CHH_NO_ROUTE,       /* 404: another path shape */
    NGX_HTTP_CHAINDATA_CHH_KEY_EMPTY,      /* 400 */
    NGX_HTTP_CHAINDATA_CHH_KEY_LONG,       /* 400: over 128 bytes */
    NGX_HTTP_CHAINDATA_CHH_BAD_UUID        /* 400 */
} ngx_http_chaindata_chh_e;


/* the parameters, decoded into buffers of their own */
typedef struct {
    ngx_http_chaindata_span_t  key;        /* in keybuf */
    unsigned char              uuid[NGX_HTTP_CHAINDATA_UUID_LEN];
    unsigned char              keybuf[3 * NGX_HTTP_CHAINDATA_API_KEY_MAX];
    unsigned char              uuidbuf[3 * NGX_HTTP_CHAINDATA_UUID_TEXT_LEN];
} ngx_http_chaindata_chh_params_t;


/* where the path of a request target ends: at "?", "#" or its end */
const unsigned char *ngx_http_chaindata_target_path_end(
    const unsigned char *p, const unsigned char *end);

/*
 * The pieces of a request target that hold an API key: the one after
 * "v1/ext" and the one before "chainhooks" (compared percent-decoded and
 * in any case, so that no spelling of the route escapes).  Points *key
 * (unless NULL) at the one the route would authenticate with (before the
 * last "chainhooks", else the first after "v1/ext"), still encoded, and
 * returns how many there are.
 */
size_t ngx_http_chaindata_key_pieces(const unsigned char *target,
    size_t len, ngx_http_chaindata_span_t *key);

/*
 * Writes into out (REDACTED_SIZE(len, n) bytes) a copy of the target with
 * its n key pieces (key_pieces' count) replaced by "***", or with n zero
 * its whole path; returns the copy's length.
 */
size_t ngx_http_chaindata_redact(unsigned char *out,
    const unsigned char *target, size_t len, size_t n);

/*
 * The route's parameters, the last four pieces of the path.  With raw set
 * the path is the request target as the client sent it (cut at "?" or
 * "#", its pieces percent-decoded here); else it is already decoded.
 */
ngx_http_chaindata_chh_e ngx_http_chaindata_chh_target(
    const unsigned char *path, size_t len, int raw,
    ngx_http_chaindata_chh_params_t *p);


#endif /* _NGX_HTTP_CHAINDATA_CHAINHOOK_PATH_H_INCLUDED_ */
