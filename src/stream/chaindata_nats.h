
/*
 * chaindata: the NATS JetStream side of the fan-out (doc/operations.md
 * "Scaling out", lmdb-schema/feed.md "The stream"): options named as nats
 * tooling names them, the connection (reconnecting with backoff), the stream
 * and the reading of one message by its sequence.
 */


#ifndef _CHAINDATA_NATS_H_INCLUDED_
#define _CHAINDATA_NATS_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include <nats/nats.h>

#include "chaindata_layout.h"
#include "chaindata_options.h"
#include "chaindata_unit_sign.h"


/*
 * The options, named as nats tooling names them, parts of a program's
 * table (CHAINDATA_OPT_PART, its offset that of a chaindata_nats_t): the
 * connection's and the stream's; the publisher's (the limit of the
 * stream it creates, its signing key); the follower's (its verify keys).
 */
extern const chaindata_opt_t  chaindata_nats_options[];
extern const chaindata_opt_t  chaindata_nats_publisher_options[];
extern const chaindata_opt_t  chaindata_nats_follower_options[];

/* the verify keys a follower may hold at once (--nats-verify-key) */
#define CHAINDATA_NATS_KEYS  4

/* a stream's name and a subject: as long as a position's key allows */
#define CHAINDATA_NATS_NAME_MAX  CHAINDATA_STREAM_NAME_MAX

/* the message headers of the stream (lmdb-schema/feed.md "The stream") */
#define CHAINDATA_NATS_HDR_UNIT   "Chaindata-Unit"
#define CHAINDATA_NATS_HDR_PART   "Chaindata-Part"
#define CHAINDATA_NATS_HDR_PARTS  "Chaindata-Parts"
#define CHAINDATA_NATS_HDR_SIG    "Chaindata-Signature"
#define CHAINDATA_NATS_HDR_PSIG   "Chaindata-Part-Signature"


typedef struct {
    const char          *prog;
    volatile int        *stop;       /* set by a signal */
    int                  tty;        /* a progress line to clear first */

    const char          *url;
    const char          *stream;
    const char          *subject;
    const char          *creds;
    const char          *user;
    const char          *tlscert;
    const char          *tlskey;
    const char          *tlsca;
    char                *password;   /* chaindata_nats_secrets() */
    char                *token;
    int64_t              max_msgs;   /* when it creates the stream */
    const char          *key_file;   /* --nats-sign-key, --nats-verify-key */
    int                  key_private;
    EVP_PKEY            *key;        /* signs, or verifies, every unit */
    /* --nats-verify-key again (a key rotation): any of them verifies */
    const char          *more_files[CHAINDATA_NATS_KEYS - 1];
    EVP_PKEY            *more[CHAINDATA_NATS_KEYS - 1];
    unsigned             nmore;

    char                 subj[CHAINDATA_NATS_NAME_MAX + 16];
    natsConnection      *nc;
    jsCtx               *js;
    natsSubscription    *bell;       /* wakes a follower: a message came */
    uint64_t             created;    /* its creation, us: the identity */
    int                  down;       /* a request failed: said once */
    volatile int         closing;
} chaindata_nats_t;


/* after the options: 0, or -1 after a message */
int chaindata_nats_check(chaindata_nats_t *n);
/*
 * At start, before any thread: the password and the token, from the files
 * NATS_PASSWORD_FILE and NATS_TOKEN_FILE name (a bare name is a systemd
 * credential), else taken from NATS_PASSWORD and NATS_TOKEN and scrubbed
 * out of the environment.  0, or -1 after a message.
 */
int chaindata_nats_secrets(chaindata_nats_t *n);
void chaindata_nats_secrets_free(chaindata_nats_t *n);

void chaindata_nats_log(chaindata_nats_t *n, const char *level,
    const char *fmt, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 3, 4)))
#endif
    ;

/* connects (trying again with backoff until *stop): 0, or -1 */
int chaindata_nats_connect(chaindata_nats_t *n);
void chaindata_nats_close(chaindata_nats_t *n);

/* creates the stream when it is missing: 0, or -1 */
int chaindata_nats_create(chaindata_nats_t *n);

/*
 * The stream's first and last sequence, and when it was created in
 * n->created: 0; 1 the stream does not exist;
 * -1 stopped by a signal (a server away is waited for, with backoff)
 */
int chaindata_nats_state(chaindata_nats_t *n, uint64_t *first,
    uint64_t *last);

/*
 * The message at seq: 0; 1 there is none (or no stream: ask state());
 * -1 stopped by a signal
 */
int chaindata_nats_get(chaindata_nats_t *n, uint64_t seq, natsMsg **msg);

/*
 * 0 when sig is the signature of u (part < 0: the unit; else that part)
 * by the key or one of the more (a key rotation); -1 with err
 */
int chaindata_nats_verify(chaindata_nats_t *n, const chaindata_unit_t *u,
    int64_t part, const char *sig, char *err, size_t size);

/* waits up to secs for a message on the subject (subscribing first) */
void chaindata_nats_wait(chaindata_nats_t *n, double secs);

/* the backoff after a failed request, then a retry */
void chaindata_nats_backoff(chaindata_nats_t *n, unsigned *tries,
    const char *what, natsStatus s);


#endif /* _CHAINDATA_NATS_H_INCLUDED_ */
