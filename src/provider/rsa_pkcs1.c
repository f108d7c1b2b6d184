/* Constant-time PKCS#1 v1.5 decryption padding (rsa_pkcs1.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "provider/rsa_pkcs1.h"

/* all-ones masks from comparisons, without branches */
static unsigned ct_msb(unsigned a) { return 0u - (a >> (sizeof a * 8 - 1)); }
static unsigned ct_lt(unsigned a, unsigned b) { return ct_msb(a ^ ((a ^ b) | ((a - b) ^ b))); }
static unsigned ct_ge(unsigned a, unsigned b) { return ~ct_lt(a, b); }
static unsigned ct_is_zero(unsigned a) { return ct_msb(~a & (a - 1)); }
static unsigned ct_eq(unsigned a, unsigned b) { return ct_is_zero(a ^ b); }
static unsigned ct_sel(unsigned m, unsigned a, unsigned b) { return (m & a) | (~m & b); }

/* The padding's checks: mask of a good encoding, and the message's index. */
static unsigned check_type2(const unsigned char *em, size_t k, unsigned *msg_index)
{
    unsigned good = ct_is_zero(em[0]) & ct_eq(em[1], 2);
    unsigned found = 0, zero_index = 0;
    for (size_t i = 2; i < k; i++) {
        unsigned z = ct_is_zero(em[i]);
        zero_index = ct_sel(~found & z, (unsigned)i, zero_index);
        found |= z;
    }
    good &= found & ct_ge(zero_index, 2 + 8);
    *msg_index = zero_index + 1;
    return good;
}

/* Moves em[index .. k) to em[0 ..) in log2(k) passes of fixed shifts,
 * then copies len (public bound tsize) bytes out under the mask i < len. */
static void ct_copy_from(unsigned char *to, size_t tsize, unsigned char *em, size_t k,
                         unsigned index, unsigned len)
{
    for (size_t shift = 1; shift < k; shift <<= 1) {
        unsigned m = ct_is_zero(index & (unsigned)shift) ^ ~0u; /* this bit of index set */
        for (size_t i = 0; i + shift < k; i++)
            em[i] = (unsigned char)ct_sel(m, em[i + shift], em[i]);
    }
    for (size_t i = 0; i < tsize && i < k; i++) {
        unsigned m = ct_lt((unsigned)i, len);
        to[i] = (unsigned char)ct_sel(m, em[i], to[i]);
    }
}

int mns_pkcs1_decode(const mns_prov *prov, unsigned char *to, size_t tsize, unsigned char *em,
                     size_t k)
{
    unsigned idx;
    unsigned good = check_type2(em, k, &idx);
    unsigned mlen = (unsigned)k - idx;
    good &= ct_ge((unsigned)tsize, mlen);
    ct_copy_from(to, tsize, em, k, idx, good & mlen);
    if (!good) { /* the only branch on the padding: the error itself */
        MNS_PROV_ERR(prov, MNS_R_BAD_PADDING, "RSA: PKCS#1 v1.5 decryption error");
        return -1;
    }
    return (int)mlen;
}

/* PRF(key, label) of draft-irtf-cfrg-rsa-guidance: HMAC-SHA256(key,
 * I || label || L), I the 16-bit block counter, L the output bit length. */
static int prf(const EVP_MD *sha256, const unsigned char kdk[32], const char *label,
               unsigned char *out, size_t bytes)
{
    unsigned char in[2 + 16 + 2], blk[32];
    const size_t ll = strlen(label);
    const unsigned bits = (unsigned)(bytes * 8);
    memcpy(in + 2, label, ll);
    in[2 + ll] = (unsigned char)(bits >> 8);
    in[3 + ll] = (unsigned char)bits;
    for (size_t i = 0, pos = 0; pos < bytes; i++, pos += 32) {
        unsigned len = 0;
        in[0] = (unsigned char)(i >> 8);
        in[1] = (unsigned char)i;
        if (!HMAC(sha256, kdk, 32, in, 4 + ll, blk, &len))
            return 0;
        memcpy(out + pos, blk, bytes - pos < 32 ? bytes - pos : 32);
    }
    return 1;
}

/* KDK = HMAC-SHA256(SHA-256(d as k bytes), ciphertext). */
static int derive_kdk(const EVP_MD *sha256, const mns_prov_rsa *key, const unsigned char *ct,
                      size_t k, unsigned char kdk[32])
{
    unsigned char *db = malloc(k), dh[32];
    unsigned len = 0;
    int ok = db && mns_mpz_to_bytes(db, k, key->d) && EVP_Digest(db, k, dh, &len, sha256, NULL) &&
             HMAC(sha256, dh, 32, ct, k, kdk, &len);
    if (db)
        OPENSSL_clear_free(db, k);
    OPENSSL_cleanse(dh, sizeof dh);
    return ok;
}

#define MNS_IR_LENGTHS 128

/* The synthetic message's length: the last of 128 PRF candidates, masked
 * to the bit size of the largest, that is below it. */
static unsigned synthetic_length(const unsigned char *cand, size_t k)
{
    unsigned max = (unsigned)k - 2 - 8, mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    unsigned len = 0;
    for (int i = 0; i < MNS_IR_LENGTHS; i++) {
        unsigned c = ((unsigned)cand[2 * i] << 8 | cand[2 * i + 1]) & mask;
        len = ct_sel(ct_lt(c, max), c, len);
    }
    return len;
}

int mns_pkcs1_decode_implicit(const mns_prov *prov, const mns_prov_rsa *key, unsigned char *to,
                              size_t tsize, unsigned char *em, const unsigned char *ct, size_t k)
{
    EVP_MD *sha256 = EVP_MD_fetch(prov->libctx, "SHA256", NULL);
    unsigned char kdk[32], cand[2 * MNS_IR_LENGTHS];
    unsigned char *syn = malloc(k);
    int ok = sha256 && syn && derive_kdk(sha256, key, ct, k, kdk) &&
             prf(sha256, kdk, "length", cand, sizeof cand) && prf(sha256, kdk, "message", syn, k);
    int ret = -1;
    if (ok) {
        unsigned idx;
        unsigned good = check_type2(em, k, &idx) & ct_ge((unsigned)tsize, (unsigned)k - idx);
        unsigned slen = synthetic_length(cand, k);
        for (size_t i = 0; i < k; i++)
            em[i] = (unsigned char)ct_sel(good, em[i], syn[i]);
        unsigned from = ct_sel(good, idx, (unsigned)k - slen);
        unsigned len = ct_sel(good, (unsigned)k - idx, slen);
        ct_copy_from(to, tsize, em, k, from, len);
        ret = (int)len;
    } else {
        MNS_PROV_ERR(prov, MNS_R_INTERNAL, "RSA: implicit rejection needs SHA-256 and HMAC");
    }
    OPENSSL_cleanse(kdk, sizeof kdk);
    if (syn)
        OPENSSL_clear_free(syn, k);
    EVP_MD_free(sha256);
    return ret;
}

int mns_pkcs1_decode_tls(const mns_prov *prov, unsigned char *to, unsigned char *em, size_t k,
                         unsigned version)
{
    unsigned char rnd[48];
    if (RAND_priv_bytes_ex(prov->libctx, rnd, sizeof rnd, 0) != 1) {
        MNS_PROV_ERR(prov, MNS_R_INTERNAL, "RSA: no random bytes for the TLS pre-master secret");
        return -1;
    }
    unsigned idx;
    unsigned good = check_type2(em, k, &idx) & ct_eq((unsigned)k - idx, 48);
    const unsigned char *m = em + k - 48;
    good &= ct_eq(m[0], version >> 8) & ct_eq(m[1], version & 0xff);
    for (size_t i = 0; i < 48; i++)
        to[i] = (unsigned char)ct_sel(good, m[i], rnd[i]);
    OPENSSL_cleanse(rnd, sizeof rnd);
    return 48;
}
