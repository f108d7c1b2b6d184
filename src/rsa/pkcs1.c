/* RSASSA-PKCS1-v1_5 signature generation (RFC 8017, 8.2.1) with the
 * EMSA-PKCS1-v1_5 encoding of 9.2:
 *     EM = 0x00 || 0x01 || PS (0xff bytes, at least 8) || 0x00 || T,
 *     T  = DER DigestInfo prefix of the hash || digest, |EM| = bytes of n.
 * The prefixes are those of RFC 8017 9.2 note 1 and, for SHA-3, NIST's; tests/rsa/test_rsa.c checks
 * the signatures byte for byte against OpenSSL's. Everything here is public
 * (the digest and its encoding); the secret work is mns_rsa_private. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "rsa/rsa_internal.h"

typedef struct digest_info {
    const char *name; /* canonical, lower case, "-" between family and size */
    size_t digest_len;
    size_t prefix_len;
    unsigned char prefix[19];
} digest_info;

/* The DigestInfo of a hash under NIST's arc 2.16.840.1.101.3.4.2 (id:
 * its last arc; RFC 8017 9.2 note 1 for SHA-2, NIST's Computer Security
 * Objects Register for SHA-3): SEQUENCE { SEQUENCE { OID, NULL },
 * OCTET STRING of len bytes }. */
#define NIST_HASH(nm, id, len)                                                                   \
    {                                                                                            \
        nm, len, 19,                                                                             \
        {0x30, 0x11 + (len), 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04,    \
         0x02, (id), 0x05, 0x00, 0x04, (len)}                                                    \
    }

static const digest_info infos[] = {
    {"sha1", 20, 15,
     {0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14}},
    NIST_HASH("sha224", 0x04, 28),     NIST_HASH("sha256", 0x01, 32),
    NIST_HASH("sha384", 0x02, 48),     NIST_HASH("sha512", 0x03, 64),
    NIST_HASH("sha512-224", 0x05, 28), NIST_HASH("sha512-256", 0x06, 32),
    NIST_HASH("sha3-224", 0x07, 28),   NIST_HASH("sha3-256", 0x08, 32),
    NIST_HASH("sha3-384", 0x09, 48),   NIST_HASH("sha3-512", 0x0a, 64),
};

/* hash in the canonical spelling: lower case, "_" and "/" read as "-",
 * OpenSSL's "sha2-" and the "sha-" of FIPS 180-4 read as "sha" (so
 * "SHA2-512/224", "sha512_224" and "SHA-256" all name their hash); 0 if it
 * is longer than any name. */
static int canonical(char *out, size_t cap, const char *hash)
{
    size_t n = 0;
    const char *h = hash;
    if (strncasecmp(h, "sha2-", 5) == 0 || strncasecmp(h, "sha-", 4) == 0) {
        memcpy(out, "sha", 3);
        n = 3;
        h += h[3] == '-' ? 4 : 5;
    }
    for (; *h; h++) {
        if (n + 1 >= cap)
            return 0;
        char c = *h == '_' || *h == '/' ? '-' : (char)tolower((unsigned char)*h);
        out[n++] = c;
    }
    out[n] = 0;
    return 1;
}

static const digest_info *find_hash(const char *hash)
{
    char name[16];
    if (!canonical(name, sizeof name, hash))
        return NULL;
    for (size_t i = 0; i < sizeof infos / sizeof infos[0]; i++)
        if (strcmp(name, infos[i].name) == 0)
            return &infos[i];
    return NULL;
}

mns_status mns_rsa_sign_pkcs1v15(const mns_rsa *key, unsigned char *sig, const char *hash,
                                 const unsigned char *digest, size_t digest_len, int threads)
{
    mns_error_clear();
    if (!key || !sig || !hash || !digest)
        return mns_error(MNS_EINVAL, "mns_rsa_sign_pkcs1v15: NULL argument");
    if (key->flags & MNS_RSA_PSS_ONLY)
        return mns_error(MNS_EINVAL, "mns_rsa_sign_pkcs1v15: the key is restricted to RSASSA-PSS "
                                     "(mns_rsa_restrict); PKCS#1 v1.5 signing refused");
    const digest_info *di = find_hash(hash);
    if (!di)
        return mns_error(MNS_EINVAL,
                         "mns_rsa_sign_pkcs1v15: unknown hash \"%s\" (sha1, sha224, sha256, "
                         "sha384, sha512, sha512-224, sha512-256, sha3-224, sha3-256, sha3-384, "
                         "sha3-512)",
                         hash);
    if (digest_len != di->digest_len)
        return mns_error(MNS_EINVAL, "mns_rsa_sign_pkcs1v15: %s digest has %zu bytes, got %zu",
                         di->name, di->digest_len, digest_len);
    const size_t em_len = key->nbytes, t_len = di->prefix_len + di->digest_len;
    if (em_len < t_len + 11)
        return mns_error(MNS_EINVAL,
                         "mns_rsa_sign_pkcs1v15: a %zu-byte modulus is too short for %s "
                         "(needs %zu bytes)",
                         em_len, di->name, t_len + 11);

    if (threads < 1)
        return mns_error(MNS_EINVAL, "mns_rsa_sign_pkcs1v15: threads must be >= 1 (got %d)",
                         threads);
    /* everything below works in the call slot of the key's current plan: no allocation */
    const mns_rsa *handle = key;
    key = mns_rsa_now(key);
    int own;
    mns_rsa_slot *sl = mns_rsa_slot_take(key, &own);
    if (!sl)
        return mns_error(MNS_ENOMEM, "mns_rsa_sign_pkcs1v15: out of memory");
    unsigned char *em = sl->em;
    size_t ps_len = em_len - t_len - 3;
    em[0] = 0x00;
    em[1] = 0x01;
    memset(em + 2, 0xff, ps_len);
    em[2 + ps_len] = 0x00;
    memcpy(em + 3 + ps_len, di->prefix, di->prefix_len);
    memcpy(em + 3 + ps_len + di->prefix_len, digest, digest_len);

    /* OS2IP into the slot's input words (EM < n: its first byte is 0, the
     * length is that of n); the slot was wiped, so the words start at 0 */
    for (size_t i = 0; i < em_len; i++)
        sl->in[i / 8] |= (mp_limb_t)em[em_len - 1 - i] << (8 * (i % 8));
    mns_status st = mns_rsa_private_slot(key, sl, threads, MNS_RSA_THREADS_POOL, -1, 0);
    if (st == MNS_OK) /* I2OSP: big-endian, the length of n (x < n) */
        for (size_t i = 0; i < em_len; i++)
            sig[em_len - 1 - i] = (unsigned char)(sl->x[i / 8] >> (8 * (i % 8)));
    mns_rsa_slot_give(key, sl, own);
    mns_rsa_tune_kick_(handle); /* after the signature: the first one is not slowed */
    return st;
}

mns_status mns_rsa_restrict(mns_rsa *key, unsigned flags)
{
    mns_error_clear();
    if (!key)
        return mns_error(MNS_EINVAL, "mns_rsa_restrict: NULL key");
    if (flags & ~MNS_RSA_PSS_ONLY)
        return mns_error(MNS_EINVAL, "mns_rsa_restrict: unknown flags 0x%x", flags & ~MNS_RSA_PSS_ONLY);
    key->flags |= flags;
    return MNS_OK;
}
