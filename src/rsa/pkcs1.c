/* RSASSA-PKCS1-v1_5 signature generation (RFC 8017, 8.2.1) with the
 * EMSA-PKCS1-v1_5 encoding of 9.2:
 *     EM = 0x00 || 0x01 || PS (0xff bytes, at least 8) || 0x00 || T,
 *     T  = DER DigestInfo prefix of the hash || digest, |EM| = bytes of n.
 * The prefixes are those of RFC 8017 9.2 note 1; tests/rsa/test_rsa.c checks
 * the signatures byte for byte against OpenSSL's. Everything here is public
 * (the digest and its encoding); the secret work is mns_rsa_private. */
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "rsa/rsa_internal.h"

struct mns_rsa_digest_info {
    const char *name;
    size_t digest_len;
    size_t prefix_len;
    unsigned char prefix[19];
};
typedef mns_rsa_digest_info digest_info;

static const digest_info infos[] = {
    {"sha1", 20, 15,
     {0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14}},
    {"sha224", 28, 19,
     {0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04,
      0x05, 0x00, 0x04, 0x1c}},
    {"sha256", 32, 19,
     {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01,
      0x05, 0x00, 0x04, 0x20}},
    {"sha384", 48, 19,
     {0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02,
      0x05, 0x00, 0x04, 0x30}},
    {"sha512", 64, 19,
     {0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03,
      0x05, 0x00, 0x04, 0x40}},
};

mns_status mns_rsa_pkcs1_info(const mns_rsa *key, const char *who, const char *hash,
                              size_t digest_len, const digest_info **out)
{
    const digest_info *di = NULL;
    for (size_t i = 0; i < sizeof infos / sizeof infos[0]; i++)
        if (strcasecmp(hash, infos[i].name) == 0)
            di = &infos[i];
    if (!di)
        return mns_error(MNS_EINVAL,
                         "%s: unknown hash \"%s\" (sha1, sha224, sha256, sha384, sha512)", who,
                         hash);
    if (digest_len != di->digest_len)
        return mns_error(MNS_EINVAL, "%s: %s digest has %zu bytes, got %zu", who, di->name,
                         di->digest_len, digest_len);
    const size_t em_len = key->nbytes, t_len = di->prefix_len + di->digest_len;
    if (em_len < t_len + 11)
        return mns_error(MNS_EINVAL, "%s: a %zu-byte modulus is too short for %s (needs %zu bytes)",
                         who, em_len, di->name, t_len + 11);
    *out = di;
    return MNS_OK;
}

void mns_rsa_pkcs1_in(const mns_rsa *key, const digest_info *di, const unsigned char *digest,
                      unsigned char *em, mp_limb_t *in)
{
    const size_t em_len = key->nbytes, t_len = di->prefix_len + di->digest_len;
    const size_t ps_len = em_len - t_len - 3;
    em[0] = 0x00;
    em[1] = 0x01;
    memset(em + 2, 0xff, ps_len);
    em[2 + ps_len] = 0x00;
    memcpy(em + 3 + ps_len, di->prefix, di->prefix_len);
    memcpy(em + 3 + ps_len + di->prefix_len, digest, di->digest_len);
    /* OS2IP (EM < n: its first byte is 0, the length is that of n) */
    for (size_t i = 0; i < em_len; i++)
        in[i / 8] |= (mp_limb_t)em[em_len - 1 - i] << (8 * (i % 8));
}

void mns_rsa_pkcs1_out(const mns_rsa *key, unsigned char *sig, const mp_limb_t *x)
{
    const size_t em_len = key->nbytes; /* I2OSP: big-endian, x < n */
    for (size_t i = 0; i < em_len; i++)
        sig[em_len - 1 - i] = (unsigned char)(x[i / 8] >> (8 * (i % 8)));
}

mns_status mns_rsa_sign_pkcs1v15(const mns_rsa *key, unsigned char *sig, const char *hash,
                                 const unsigned char *digest, size_t digest_len, int threads)
{
    mns_error_clear();
    if (!key || !sig || !hash || !digest)
        return mns_error(MNS_EINVAL, "mns_rsa_sign_pkcs1v15: NULL argument");
    const digest_info *di;
    mns_status st = mns_rsa_pkcs1_info(key, "mns_rsa_sign_pkcs1v15", hash, digest_len, &di);
    if (st != MNS_OK)
        return st;
    if (threads < 1)
        return mns_error(MNS_EINVAL, "mns_rsa_sign_pkcs1v15: threads must be >= 1 (got %d)",
                         threads);
    /* everything below works in the key's call slot: no allocation; the
     * slot was wiped, so its input words start at 0 */
    int own;
    mns_rsa_slot *sl = mns_rsa_slot_take(key, &own);
    if (!sl)
        return mns_error(MNS_ENOMEM, "mns_rsa_sign_pkcs1v15: out of memory");
    mns_rsa_pkcs1_in(key, di, digest, sl->em, sl->in);
    st = mns_rsa_private_slot(key, sl, threads, MNS_RSA_THREADS_POOL, -1, 0);
    if (st == MNS_OK)
        mns_rsa_pkcs1_out(key, sig, sl->x);
    mns_rsa_slot_give(key, sl, own);
    return st;
}
