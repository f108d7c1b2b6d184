/* Signature encodings (rsa_pad.h). */
#include <string.h>
#include <openssl/bn.h>
#include <openssl/objects.h>

#include "provider/rsa_pad.h"

/* DER of DigestInfo ::= SEQUENCE { SEQUENCE { OID, NULL }, OCTET STRING }:
 * every length is below 128 for the OIDs and digests in use (at most 64
 * bytes of digest), so each is one byte. Returns the length, 0 if none. */
static size_t digest_info(unsigned char *out, size_t cap, const EVP_MD *md,
                          const unsigned char *digest, size_t dlen)
{
    const ASN1_OBJECT *obj = OBJ_nid2obj(EVP_MD_get_type(md));
    size_t olen = obj ? (size_t)OBJ_length(obj) : 0;
    if (olen == 0 || olen > 32 || dlen > 64)
        return 0;
    size_t alg = olen + 2 + 2;               /* OID and NULL, with their tags */
    size_t body = 2 + alg + 2 + dlen, total = 2 + body;
    if (total > cap)
        return 0;
    unsigned char *q = out;
    *q++ = 0x30;
    *q++ = (unsigned char)body;
    *q++ = 0x30;
    *q++ = (unsigned char)alg;
    *q++ = 0x06;
    *q++ = (unsigned char)olen;
    memcpy(q, OBJ_get0_data(obj), olen);
    q += olen;
    *q++ = 0x05;
    *q++ = 0x00;
    *q++ = 0x04;
    *q++ = (unsigned char)dlen;
    memcpy(q, digest, dlen);
    return total;
}

int mns_pad_pkcs1_sign(const mns_prov *prov, unsigned char *em, size_t emlen, const EVP_MD *md,
                       const unsigned char *digest, size_t dlen)
{
    unsigned char t[128];
    size_t tlen = dlen;
    const unsigned char *tp = digest;
    if (md && EVP_MD_get_type(md) != NID_md5_sha1) {
        if ((size_t)EVP_MD_get_size(md) != dlen) {
            MNS_PROV_ERR(prov, MNS_R_BAD_DIGEST, "RSA: digest of %zu bytes, %s has %d", dlen,
                         EVP_MD_get0_name(md), EVP_MD_get_size(md));
            return 0;
        }
        tlen = digest_info(t, sizeof t, md, digest, dlen);
        if (tlen == 0) {
            MNS_PROV_ERR(prov, MNS_R_BAD_DIGEST, "RSA: no DigestInfo for %s", EVP_MD_get0_name(md));
            return 0;
        }
        tp = t;
    }
    if (tlen + 11 > emlen) {
        MNS_PROV_ERR(prov, MNS_R_VALUE_TOO_LARGE, "RSA: %zu bytes to sign, modulus of %zu", tlen,
                     emlen);
        return 0;
    }
    em[0] = 0x00;
    em[1] = 0x01;
    memset(em + 2, 0xff, emlen - tlen - 3);
    em[emlen - tlen - 1] = 0x00;
    memcpy(em + emlen - tlen, tp, tlen);
    return 1;
}

static BIGNUM *bn_of(const mpz_t z)
{
    size_t len = mpz_sizeinbase(z, 256);
    unsigned char buf[2100]; /* up to 16800-bit moduli */
    if (len > sizeof buf || !mns_mpz_to_bytes(buf, len, z))
        return NULL;
    return BN_bin2bn(buf, (int)len, NULL);
}

RSA *mns_pad_rsa_public(const mns_prov_rsa *key)
{
    RSA *r = RSA_new();
    BIGNUM *n = bn_of(key->n), *e = bn_of(key->e);
    if (!r || !n || !e || !RSA_set0_key(r, n, e, NULL)) {
        RSA_free(r);
        BN_free(n);
        BN_free(e);
        return NULL;
    }
    return r;
}
