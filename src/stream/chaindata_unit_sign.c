
/*
 * chaindata: signing and verifying stream units with Ed25519 through
 * OpenSSL's libcrypto (lmdb-schema/feed.md "Signed units").  The text
 * signed, one field a line:
 *
 *   chaindata-unit 1
 *   stream NAME
 *   unit ID
 *   first SEQUENCE
 *   parts N
 *   lines SHA256-HEX
 *
 * The lines' digest fixes them and their order; the sequence of the
 * first part fixes where the unit stands in the stream, so a unit copied
 * to another place (a replay) or stitched from parts of others does not
 * verify.
 */


#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/pem.h>

#include "chaindata_unit_sign.h"


#define CHAINDATA_UNIT_TEXT_MAX  512


/*
 * the text signed, of the unit (part < 0) or of its part number part
 * (u->lines: that part's bytes); its length, or 0 when it does not fit
 */

static size_t
chaindata_unit_text(const chaindata_unit_t *u, int64_t part, char *text)
{
    int             n, i;
    char            hex[2 * 32 + 1];
    unsigned char   md[32];
    unsigned int    mdlen;

    if (EVP_Digest(u->lines, u->len, md, &mdlen, EVP_sha256(), NULL) != 1
        || mdlen != sizeof(md))
    {
        return 0;
    }

    for (i = 0; i < 32; i++) {
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    }

    if (part < 0) {
        n = snprintf(text, CHAINDATA_UNIT_TEXT_MAX, "chaindata-unit 1\n"
                     "stream %s\nunit %s\nfirst %llu\nparts %llu\n"
                     "lines %s\n", u->stream, u->unit,
                     (unsigned long long) u->first,
                     (unsigned long long) u->parts, hex);

    } else {
        n = snprintf(text, CHAINDATA_UNIT_TEXT_MAX, "chaindata-part 1\n"
                     "stream %s\nunit %s\nfirst %llu\npart %llu\n"
                     "parts %llu\nbytes %s\n", u->stream, u->unit,
                     (unsigned long long) u->first,
                     (unsigned long long) part,
                     (unsigned long long) u->parts, hex);
    }

    return n > 0 && n < CHAINDATA_UNIT_TEXT_MAX ? (size_t) n : 0;
}


EVP_PKEY *
chaindata_unit_key_load(const char *path, int private_key, char *err,
    size_t size)
{
    FILE         *f;
    EVP_PKEY     *key;
    struct stat   st;

    f = fopen(path, "r");

    if (f == NULL) {
        snprintf(err, size, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }

    if (private_key
        && (fstat(fileno(f), &st) != 0 || (st.st_mode & (S_IRWXG | S_IRWXO))))
    {
        snprintf(err, size, "%s holds a private key: refused while group "
                 "or others have access to it (chmod 600)", path);
        fclose(f);
        return NULL;
    }

    key = private_key ? PEM_read_PrivateKey(f, NULL, NULL, NULL)
                      : PEM_read_PUBKEY(f, NULL, NULL, NULL);
    fclose(f);

    if (key == NULL || EVP_PKEY_id(key) != EVP_PKEY_ED25519) {
        snprintf(err, size, "%s is not an Ed25519 %s key in PEM (openssl "
                 "genpkey -algorithm ed25519 makes one%s)", path,
                 private_key ? "private" : "public",
                 private_key ? "" : "; openssl pkey -pubout its public key");
        EVP_PKEY_free(key);
        return NULL;
    }

    return key;
}


int
chaindata_unit_sign(EVP_PKEY *key, const chaindata_unit_t *u, char *sig)
{
    return chaindata_unit_sign_part(key, u, -1, sig);
}


int
chaindata_unit_sign_part(EVP_PKEY *key, const chaindata_unit_t *u,
    int64_t part, char *sig)
{
    int              rc;
    char             text[CHAINDATA_UNIT_TEXT_MAX];
    size_t           n, siglen;
    EVP_MD_CTX      *ctx;
    unsigned char    raw[CHAINDATA_UNIT_SIG_LEN];

    n = chaindata_unit_text(u, part, text);
    ctx = EVP_MD_CTX_new();

    if (n == 0 || ctx == NULL) {
        EVP_MD_CTX_free(ctx);
        return -1;
    }

    siglen = sizeof(raw);
    rc = EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) == 1
         && EVP_DigestSign(ctx, raw, &siglen, (unsigned char *) text, n)
            == 1
         && siglen == sizeof(raw);
    EVP_MD_CTX_free(ctx);

    if (!rc) {
        return -1;
    }

    EVP_EncodeBlock((unsigned char *) sig, raw, sizeof(raw));

    return 0;
}


static int
chaindata_unit_fail(char *err, size_t size, const char *why)
{
    snprintf(err, size, "%s", why);

    return -1;
}


int
chaindata_unit_verify(EVP_PKEY *key, const chaindata_unit_t *u,
    const char *sig, char *err, size_t size)
{
    return chaindata_unit_verify_part(key, u, -1, sig, err, size);
}


int
chaindata_unit_verify_part(EVP_PKEY *key, const chaindata_unit_t *u,
    int64_t part, const char *sig, char *err, size_t size)
{
    int             ok;
    char            text[CHAINDATA_UNIT_TEXT_MAX];
    size_t          n;
    EVP_MD_CTX     *ctx;
    unsigned char   raw[CHAINDATA_UNIT_SIG_LEN + 3];

    if (sig == NULL) {
        return chaindata_unit_fail(err, size, "it is not signed");
    }

    /* 64 bytes: 86 characters of base64 and "==" */
    if (strlen(sig) != CHAINDATA_UNIT_SIG_B64
        || sig[CHAINDATA_UNIT_SIG_B64 - 2] != '='
        || sig[CHAINDATA_UNIT_SIG_B64 - 1] != '='
        || EVP_DecodeBlock(raw, (const unsigned char *) sig,
                           CHAINDATA_UNIT_SIG_B64)
           != CHAINDATA_UNIT_SIG_LEN + 2)
    {
        return chaindata_unit_fail(err, size, "its signature is not the "
                                   "base64 of 64 bytes");
    }

    n = chaindata_unit_text(u, part, text);
    if (n == 0) {
        return chaindata_unit_fail(err, size, "its headers are too long "
                                   "to verify");
    }

    ctx = EVP_MD_CTX_new();
    if (ctx == NULL) {
        return chaindata_unit_fail(err, size, "out of memory");
    }

    ok = EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1
         && EVP_DigestVerify(ctx, raw, CHAINDATA_UNIT_SIG_LEN,
                             (unsigned char *) text, n)
            == 1;
    EVP_MD_CTX_free(ctx);

    return ok ? 0 : chaindata_unit_fail(err, size, "its signature does "
                                        "not verify with the key given");
}


int
chaindata_unit_number(const char *s, uint64_t max, uint64_t *v)
{
    size_t  i;

    *v = 0;

    for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
        if (i >= 19 || *v * 10 + (s[i] - '0') > max) {
            return -1;
        }

        *v = *v * 10 + (s[i] - '0');
    }

    return i > 0 && s[i] == '\0' ? 0 : -1;
}
