
/*
 * chaindata: the request targets of the chainhook route without nginx:
 * the pieces that hold an API key (for $chaindata_redacted_uri,
 * $chaindata_api_key_digest, the redacted request line and error log
 * lines) and the route's parameters,
 * {apiKey}/chainhooks/{chainhookUuid}/status.  The handler, the variables
 * and the error log writer call these, and so does
 * t/fuzz/fuzz_chainhook.c.
 *
 * No nginx headers here.
 */


#ifndef _CHAINDATA_CHAINHOOK_PATH_H_INCLUDED_
#define _CHAINDATA_CHAINHOOK_PATH_H_INCLUDED_


#include <stddef.h>

#include "chaindata_layout.h"
#include "chaindata_paths.h"


#define CHAINDATA_REDACTED         "***"

/* the room a redacted copy of a target of len bytes with n key pieces needs */
#define CHAINDATA_REDACTED_SIZE(len, n)                             \
    ((len) + ((n) + 1) * (sizeof(CHAINDATA_REDACTED) - 1))


/* what the route makes of its path */
typedef enum {
    CHAINDATA_CHH_OK = 0,
    CHAINDATA_CHH_NO_ROUTE,       /* 404: another path shape */
    CHAINDATA_CHH_KEY_EMPTY,      /* 400 */
    CHAINDATA_CHH_KEY_LONG,       /* 400: over 128 bytes */
    CHAINDATA_CHH_BAD_UUID        /* 400 */
} chaindata_chh_e;


/* the parameters, decoded into buffers of their own */
typedef struct {
    chaindata_span_t  key;        /* in keybuf */
    unsigned char     uuid[CHAINDATA_UUID_LEN];
    unsigned char     keybuf[3 * CHAINDATA_API_KEY_MAX];
    unsigned char     uuidbuf[3 * CHAINDATA_UUID_TEXT_LEN];
} chaindata_chh_params_t;


/* where the path of a request target ends: at "?", "#" or its end */
const unsigned char *chaindata_target_path_end(
    const unsigned char *p, const unsigned char *end);

/*
 * The pieces of a request target that hold an API key: the one after
 * "v1/ext" and the one before "chainhooks" (compared percent-decoded and
 * in any case, so that no spelling of the route escapes).  Points *key
 * (unless NULL) at the one the route would authenticate with (before the
 * last "chainhooks", else the first after "v1/ext"), still encoded, and
 * returns how many there are.
 */
size_t chaindata_key_pieces(const unsigned char *target,
    size_t len, chaindata_span_t *key);

/*
 * Writes into out (REDACTED_SIZE(len, n) bytes) a copy of the target with
 * its n key pieces (key_pieces' count) replaced by "***", or with n zero
 * its whole path; returns the copy's length.
 */
size_t chaindata_redact(unsigned char *out,
    const unsigned char *target, size_t len, size_t n);

/*
 * Writes into out (size bytes; a line of len bytes needs at most 4 * len)
 * a copy of a log line with what may be a key hidden as "***", wherever
 * it stands and whether nginx shows it as sent or decoded: the line is cut
 * at double quotes, and in each part, pieces being what lies between
 * slashes after the part's first one,
 *   - everything after a "v1/ext/" up to the slash before the part's last
 *     piece that starts with "chainhooks", else the piece up to a space;
 *   - a piece right before one that starts with "chainhooks",
 * (compared percent-decoded and in any case, as key_pieces does).  A
 * longer copy is cut at size.  Returns its length.
 */
size_t chaindata_redact_line(unsigned char *out, size_t size,
    const unsigned char *line, size_t len);

/*
 * The route's parameters, the last four pieces of the path.  With raw set
 * the path is the request target as the client sent it (cut at "?" or
 * "#", its pieces percent-decoded here); else it is already decoded.
 */
chaindata_chh_e chaindata_chh_target(
    const unsigned char *path, size_t len, int raw,
    chaindata_chh_params_t  *p);


#endif /* _CHAINDATA_CHAINHOOK_PATH_H_INCLUDED_ */
