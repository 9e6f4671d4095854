
/*
 * chaindata: the NATS connection and the stream (doc/operations.md
 * "Scaling out").
 * The client library reconnects by itself; every request that fails
 * while the server is away is tried again with backoff, and said once.
 */


#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chaindata_nats.h"
#include "chaindata_secret.h"


#define CHAINDATA_NATS_WAIT_MS     5000    /* a request's answer */
#define CHAINDATA_NATS_BACKOFF_MS  5000    /* the longest pause */


void
chaindata_nats_log(chaindata_nats_t *n, const char *level,
    const char *fmt, ...)
{
    va_list  args;

    if (n->tty) {
        fputs("\r\033[K", stderr);
    }

    fprintf(stderr, "%s: level=%s msg=\"", n->prog, level);

    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);

    fputs("\"\n", stderr);
}


/* --nats-sign-key, --nats-verify-key: the first key */

static int
chaindata_nats_key(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    chaindata_nats_t  *n = conf;

    if (n->key_file && !n->key_private && o->value == 0) {
        if (n->nmore == CHAINDATA_NATS_KEYS - 1) {
            fprintf(stderr, "%s: --nats-verify-key: %d keys at most\n",
                    prog, CHAINDATA_NATS_KEYS);
            return -1;
        }

        n->more_files[n->nmore++] = arg;
        return 0;
    }

    n->key_file = arg;
    n->key_private = o->value;

    return 0;
}


static int
chaindata_nats_max_msgs(void *conf, const chaindata_opt_t *o, char *arg,
    const char *prog)
{
    char              *end;
    chaindata_nats_t  *n = conf;

    errno = 0;
    n->max_msgs = strtoll(arg, &end, 10);

    if (errno || *end || end == arg || n->max_msgs < 1) {
        fprintf(stderr, "%s: --max-msgs wants a positive number\n", prog);
        return -1;
    }

    return 0;
}


#define CHAINDATA_N(field)  offsetof(chaindata_nats_t, field)

const chaindata_opt_t  chaindata_nats_options[] = {
    { .name = "nats", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_N(url), .arg = "URL",
      .help = "a NATS server (nats://host:4222, tls://...)" },
    { .name = "stream", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_N(stream), .arg = "NAME",
      .help = "the JetStream stream of the fan-out" },
    { .name = "subject", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_N(subject), .arg = "SUBJ",
      .help = "its subject (default chaindata.NAME)" },
    { .name = "creds", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_N(creds), .arg = "FILE",
      .help = "a NATS credentials file (or NATS_CREDS)" },
    { .name = "user", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_N(user), .arg = "USER",
      .help = "user; the password from NATS_PASSWORD (or NATS_USER; a "
              "token from NATS_TOKEN; both from files: NATS_PASSWORD_FILE, "
              "NATS_TOKEN_FILE)" },
    { .name = "tlscert", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_N(tlscert), .arg = "FILE" },
    { .name = "tlskey", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_N(tlskey), .arg = "FILE" },
    { .name = "tlsca", .kind = CHAINDATA_OPT_STRING,
      .offset = CHAINDATA_N(tlsca), .arg = "FILE",
      .help = "TLS client certificate, its key, the CA (or NATS_CERT, "
              "NATS_KEY, NATS_CA)" },
    { .name = NULL }
};


const chaindata_opt_t  chaindata_nats_publisher_options[] = {
    { .name = "max-msgs", .kind = CHAINDATA_OPT_CALL, .arg = "N",
      .set = chaindata_nats_max_msgs,
      .help = "when it creates the stream: keep N messages (default: all)" },
    { .name = "nats-sign-key", .kind = CHAINDATA_OPT_CALL, .arg = "FILE",
      .value = 1, .set = chaindata_nats_key,
      .help = "sign each unit with this Ed25519 private key (PEM, chmod "
              "600; followers verify with its public key: "
              "lmdb-schema/feed.md)" },
    { .name = NULL }
};


const chaindata_opt_t  chaindata_nats_follower_options[] = {
    { .name = "nats-verify-key", .kind = CHAINDATA_OPT_CALL, .arg = "FILE",
      .value = 0, .set = chaindata_nats_key,
      .help = "apply only units signed with the publisher's Ed25519 key "
              "(its public key, PEM); others are skipped, and said; up "
              "to " CHAINDATA_OPT_STR(CHAINDATA_NATS_KEYS) " keys (a "
              "rotation): any verifies" },
    { .name = NULL }
};


static int
chaindata_nats_name_ok(const char *s)
{
    size_t  i;

    for (i = 0; s[i]; i++) {
        if (s[i] <= ' ' || s[i] == '.' || s[i] == '*' || s[i] == '>'
            || s[i] == '/' || s[i] == '\\' || s[i] > '~')
        {
            return 0;
        }
    }

    return i > 0 && i <= CHAINDATA_NATS_NAME_MAX;
}


int
chaindata_nats_check(chaindata_nats_t *n)
{
    char      err[512];
    unsigned  i;

    if (n->stream == NULL || !chaindata_nats_name_ok(n->stream)) {
        fprintf(stderr, "%s: --nats wants --stream NAME (letters, digits, "
                "- and _)\n", n->prog);
        return -1;
    }

    /* no secret on the command line (ps shows it): a user, a password
     * or a token in a URL is refused */
    if (strchr(n->url, '@')) {
        fprintf(stderr, "%s: no credentials in the --nats URL: --user "
                "with NATS_PASSWORD, NATS_TOKEN, or a --creds file\n",
                n->prog);
        return -1;
    }

    if (n->subject && strlen(n->subject) > CHAINDATA_NATS_NAME_MAX) {
        fprintf(stderr, "%s: --subject is too long\n", n->prog);
        return -1;
    }

    snprintf(n->subj, sizeof(n->subj), "%s%s",
             n->subject ? "" : "chaindata.",
             n->subject ? n->subject : n->stream);

    if (n->key_file) {
        n->key = chaindata_unit_key_load(n->key_file, n->key_private, err,
                                         sizeof(err));
        if (n->key == NULL) {
            fprintf(stderr, "%s: %s\n", n->prog, err);
            return -1;
        }
    }

    for (i = 0; i < n->nmore; i++) {
        n->more[i] = chaindata_unit_key_load(n->more_files[i], 0, err,
                                             sizeof(err));
        if (n->more[i] == NULL) {
            fprintf(stderr, "%s: %s\n", n->prog, err);
            return -1;
        }
    }

    return 0;
}


int
chaindata_nats_verify(chaindata_nats_t *n, const chaindata_unit_t *u,
    int64_t part, const char *sig, char *err, size_t size)
{
    unsigned  i;

    if (chaindata_unit_verify_part(n->key, u, part, sig, err, size) == 0) {
        return 0;
    }

    for (i = 0; i < n->nmore; i++) {
        if (chaindata_unit_verify_part(n->more[i], u, part, sig, err, size)
            == 0)
        {
            return 0;
        }
    }

    if (n->nmore && sig) {
        snprintf(err, size, "its signature does not verify with any of "
                 "the %u keys given", n->nmore + 1);
    }

    return -1;
}


static int64_t
chaindata_nats_delay(natsConnection *nc, int attempts, void *closure)
{
    int64_t  ms;

    ms = 100;

    while (attempts-- > 0 && ms < CHAINDATA_NATS_BACKOFF_MS) {
        ms *= 2;
    }

    return ms < CHAINDATA_NATS_BACKOFF_MS ? ms : CHAINDATA_NATS_BACKOFF_MS;
}


static void
chaindata_nats_lost(natsConnection *nc, void *closure)
{
    chaindata_nats_t  *n;

    n = closure;

    if (!n->closing) {
        chaindata_nats_log(n, "warn", "the connection to NATS is lost; "
                           "reconnecting with backoff");
    }
}


static void
chaindata_nats_back(natsConnection *nc, void *closure)
{
    chaindata_nats_log(closure, "info", "reconnected to NATS");
}


static int
chaindata_nats_secret(chaindata_nats_t *n, const char *name, char **value)
{
    int    failed;
    char   file[64];
    char  *path;

    failed = 0;
    *value = chaindata_secret_take_env(name, &failed);

    (void) snprintf(file, sizeof(file), "%s_FILE", name);
    path = getenv(file);

    if (*value == NULL && !failed && path && *path) {
        *value = chaindata_secret_read_file(n->prog, path);
        return *value ? 0 : -1;
    }

    if (failed) {
        fprintf(stderr, "%s: out of memory\n", n->prog);
        return -1;
    }

    return 0;
}


int
chaindata_nats_secrets(chaindata_nats_t *n)
{
    if (chaindata_nats_secret(n, "NATS_PASSWORD", &n->password) != 0
        || chaindata_nats_secret(n, "NATS_TOKEN", &n->token) != 0)
    {
        return -1;
    }

    return 0;
}


void
chaindata_nats_secrets_free(chaindata_nats_t *n)
{
    chaindata_secret_free(n->password);
    chaindata_secret_free(n->token);
    n->password = NULL;
    n->token = NULL;
}


static const char *
chaindata_nats_env(const char *opt, const char *name)
{
    return opt ? opt : getenv(name);
}


static natsStatus
chaindata_nats_auth(chaindata_nats_t *n, natsOptions *o)
{
    natsStatus   s;
    const char  *creds, *user, *pass, *token, *cert, *key, *ca;

    s = NATS_OK;
    creds = chaindata_nats_env(n->creds, "NATS_CREDS");
    user = chaindata_nats_env(n->user, "NATS_USER");
    pass = n->password;
    token = n->token;
    cert = chaindata_nats_env(n->tlscert, "NATS_CERT");
    key = chaindata_nats_env(n->tlskey, "NATS_KEY");
    ca = chaindata_nats_env(n->tlsca, "NATS_CA");

    if (creds && *creds) {
        s = natsOptions_SetUserCredentialsFromFiles(o, creds, NULL);
    }

    if (s == NATS_OK && user && *user) {
        s = natsOptions_SetUserInfo(o, user, pass);
    }

    if (s == NATS_OK && token && *token) {
        s = natsOptions_SetToken(o, token);
    }

    if (s == NATS_OK && (ca || cert)) {
        s = natsOptions_SetSecure(o, true);
    }

    if (s == NATS_OK && ca && *ca) {
        s = natsOptions_LoadCATrustedCertificates(o, ca);
    }

    if (s == NATS_OK && cert && *cert) {
        s = natsOptions_LoadCertificatesChain(o, cert, key);
    }

    return s;
}


static natsStatus
chaindata_nats_client_options(chaindata_nats_t *n, natsOptions *o)
{
    natsStatus  s;

    s = natsOptions_SetURL(o, n->url);

    if (s == NATS_OK) {
        s = natsOptions_SetName(o, n->prog);
    }

    if (s == NATS_OK) {
        s = natsOptions_SetMaxReconnect(o, -1);
    }

    if (s == NATS_OK) {
        s = natsOptions_SetCustomReconnectDelay(o, chaindata_nats_delay,
                                                NULL);
    }

    if (s == NATS_OK) {
        s = natsOptions_SetDisconnectedCB(o, chaindata_nats_lost, n);
    }

    if (s == NATS_OK) {
        s = natsOptions_SetReconnectedCB(o, chaindata_nats_back, n);
    }

    if (s == NATS_OK) {
        s = natsOptions_SetPingInterval(o, 2000);
    }

    if (s == NATS_OK) {
        s = natsOptions_SetMaxPingsOut(o, 2);
    }

    /*
     * A request waits on an inbox of its own: the shared reply
     * subscription of the new style runs a detached thread that may still
     * be exiting when the program ends (valgrind calls its stack
     * "possibly lost").  Then every thread is joined on close, but for
     * the one libnats detaches after a reconnect.
     */

    if (s == NATS_OK) {
        s = natsOptions_UseOldRequestStyle(o, true);
    }

    return s == NATS_OK ? chaindata_nats_auth(n, o) : s;
}


static void
chaindata_nats_sleep(chaindata_nats_t *n, int64_t ms)
{
    while (ms > 0 && !*n->stop) {
        usleep(20000);
        ms -= 20;
    }
}


void
chaindata_nats_backoff(chaindata_nats_t *n, unsigned *tries,
    const char *what, natsStatus s)
{
    int64_t  ms;

    ms = chaindata_nats_delay(NULL, (int) *tries, NULL);

    if (*tries % 12 == 0) {
        chaindata_nats_log(n, "warn", "%s: %s; trying again with backoff",
                           what, natsStatus_GetText(s));
    }

    (*tries)++;
    n->down = 1;
    chaindata_nats_sleep(n, ms);
}


static void
chaindata_nats_up(chaindata_nats_t *n, unsigned tries)
{
    if (n->down) {
        n->down = 0;
        chaindata_nats_log(n, "info", "NATS answers again (after %u "
                           "tries)", tries);
    }
}


int
chaindata_nats_connect(chaindata_nats_t *n)
{
    unsigned      tries;
    natsStatus    s;
    natsOptions  *o;
    jsOptions     jo;

    if (natsOptions_Create(&o) != NATS_OK) {
        chaindata_nats_log(n, "error", "out of memory");
        return -1;
    }

    s = chaindata_nats_client_options(n, o);

    if (s != NATS_OK) {
        chaindata_nats_log(n, "error", "NATS options: %s",
                           nats_GetLastError(NULL));
        natsOptions_Destroy(o);
        return -1;
    }

    for (tries = 0; !*n->stop; ) {
        s = natsConnection_Connect(&n->nc, o);
        if (s == NATS_OK) {
            break;
        }

        chaindata_nats_backoff(n, &tries, n->url, s);
    }

    natsOptions_Destroy(o);

    if (n->nc == NULL) {
        return -1;
    }

    chaindata_nats_up(n, tries);

    jsOptions_Init(&jo);
    jo.Wait = CHAINDATA_NATS_WAIT_MS;

    if (natsConnection_JetStream(&n->js, n->nc, &jo) != NATS_OK) {
        chaindata_nats_log(n, "error", "JetStream: %s",
                           nats_GetLastError(NULL));
        return -1;
    }

    return 0;
}


void
chaindata_nats_close(chaindata_nats_t *n)
{
    n->closing = 1;

    if (n->bell) {
        natsSubscription_Destroy(n->bell);
        n->bell = NULL;
    }

    if (n->js) {
        jsCtx_Destroy(n->js);
        n->js = NULL;
    }

    if (n->nc) {
        natsConnection_Destroy(n->nc);
        n->nc = NULL;
    }

    EVP_PKEY_free(n->key);
    n->key = NULL;

    while (n->nmore) {
        EVP_PKEY_free(n->more[--n->nmore]);
        n->more[n->nmore] = NULL;
    }

    /* the library's threads and memory: one connection a program */
    (void) nats_CloseAndWait(5000);
}


int
chaindata_nats_state(chaindata_nats_t *n, uint64_t *first, uint64_t *last)
{
    unsigned       tries;
    jsErrCode      jerr;
    natsStatus     s;
    jsStreamInfo  *si;

    for (tries = 0; !*n->stop; ) {
        si = NULL;
        jerr = 0;
        s = js_GetStreamInfo(&si, n->js, n->stream, NULL, &jerr);

        if (s == NATS_OK) {
            *first = si->State.FirstSeq;
            *last = si->State.LastSeq;
            n->created = si->Created > 0
                         ? (uint64_t) si->Created / 1000 : 0;
            jsStreamInfo_Destroy(si);
            chaindata_nats_up(n, tries);
            return 0;
        }

        if (s == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr) {
            chaindata_nats_up(n, tries);
            return 1;
        }

        chaindata_nats_backoff(n, &tries, "stream info", s);
    }

    return -1;
}


/*
 * The stream: one subject, kept by limits (none unless --max-msgs: the
 * stream is the edges' history; doc/operations.md "Scaling out" says how
 * to trim it), on disk, with a deduplication window for republished parts.
 */

int
chaindata_nats_create(chaindata_nats_t *n)
{
    int              rc;
    uint64_t         first, last;
    jsErrCode        jerr;
    natsStatus       s;
    const char      *subjects[1];
    jsStreamInfo    *si;
    jsStreamConfig   cfg;

    rc = chaindata_nats_state(n, &first, &last);
    if (rc != 1) {
        return rc;
    }

    jsStreamConfig_Init(&cfg);
    subjects[0] = n->subj;
    cfg.Name = n->stream;
    cfg.Subjects = subjects;
    cfg.SubjectsLen = 1;
    cfg.Retention = js_LimitsPolicy;
    cfg.Storage = js_FileStorage;
    cfg.Discard = js_DiscardOld;
    cfg.Duplicates = (int64_t) 600 * 1000000000;

    if (n->max_msgs) {
        cfg.MaxMsgs = n->max_msgs;
    }

    si = NULL;
    jerr = 0;
    s = js_AddStream(&si, n->js, &cfg, NULL, &jerr);

    if (s != NATS_OK) {
        chaindata_nats_log(n, "error", "cannot create the stream %s: %s "
                           "(%d)", n->stream, nats_GetLastError(NULL),
                           (int) jerr);
        return -1;
    }

    jsStreamInfo_Destroy(si);
    chaindata_nats_log(n, "info", "created the stream %s (subject %s)",
                       n->stream, n->subj);

    return 0;
}


int
chaindata_nats_get(chaindata_nats_t *n, uint64_t seq, natsMsg **msg)
{
    unsigned    tries;
    jsErrCode   jerr;
    natsStatus  s;

    for (tries = 0; !*n->stop; ) {
        *msg = NULL;
        jerr = 0;
        s = js_GetMsg(msg, n->js, n->stream, seq, NULL, &jerr);

        if (s == NATS_OK) {
            chaindata_nats_up(n, tries);
            return 0;
        }

        if (s == NATS_NOT_FOUND || jerr == JSNoMessageFoundErr
            || jerr == JSStreamNotFoundErr)
        {
            chaindata_nats_up(n, tries);
            return 1;
        }

        chaindata_nats_backoff(n, &tries, "reading the stream", s);
    }

    return -1;
}


void
chaindata_nats_wait(chaindata_nats_t *n, double secs)
{
    natsMsg  *msg;

    if (n->bell == NULL) {
        if (natsConnection_SubscribeSync(&n->bell, n->nc, n->subj)
            != NATS_OK)
        {
            n->bell = NULL;
            chaindata_nats_sleep(n, 100);
            return;
        }

        /* only a doorbell: what it rings for is read from the stream */
        (void) natsSubscription_SetPendingLimits(n->bell, 64,
                                                 64 * 1024 * 1024);
    }

    msg = NULL;

    if (natsSubscription_NextMsg(&msg, n->bell, (int64_t) (secs * 1000))
        == NATS_OK)
    {
        natsMsg_Destroy(msg);
    }
}
