/* OpenSSL side of the RSA tests and benchmark: a key given by its numbers
 * (n, e, d, primes) imported into an EVP_PKEY, and EVP_PKEY_sign with
 * PKCS#1 v1.5 padding. Header-only, used by tests/rsa/test_rsa.c and
 * bench/profile/rsa_bench.c. OpenSSL takes at most 5 primes (RSA_MAX_PRIME_NUM);
 * rsa_ossl_key returns NULL beyond that. */
#ifndef MNS_TESTS_RSA_OSSL_H
#define MNS_TESTS_RSA_OSSL_H

#include <stdio.h>
#include <string.h>
#include <gmp.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

static inline BIGNUM *rsa_ossl_bn(const mpz_t a)
{
    char *hex = mpz_get_str(NULL, 16, a);
    BIGNUM *b = NULL;
    BN_hex2bn(&b, hex);
    void (*freefunc)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefunc);
    freefunc(hex, strlen(hex) + 1);
    return b;
}

/* NULL if OpenSSL refuses the key (or k > 5). */
static inline EVP_PKEY *rsa_ossl_key(const mpz_t n, const mpz_t e, const mpz_t d,
                                     const mpz_t *primes, int k)
{
    if (k < 2 || k > 5)
        return NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    BIGNUM *bns[3 + 3 * 5] = {0};
    int nb = 0;
    mpz_t t, m, pm1;
    mpz_inits(t, m, pm1, NULL);
    bns[nb] = rsa_ossl_bn(n);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bns[nb++]);
    bns[nb] = rsa_ossl_bn(e);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bns[nb++]);
    bns[nb] = rsa_ossl_bn(d);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_D, bns[nb++]);
    /* OSSL_PARAM_BLD keeps the key pointers: the names must outlive it */
    static const char *const factor[] = {"rsa-factor1", "rsa-factor2", "rsa-factor3",
                                         "rsa-factor4", "rsa-factor5"};
    static const char *const exponent[] = {"rsa-exponent1", "rsa-exponent2", "rsa-exponent3",
                                           "rsa-exponent4", "rsa-exponent5"};
    static const char *const coefficient[] = {"rsa-coefficient1", "rsa-coefficient2",
                                              "rsa-coefficient3", "rsa-coefficient4"};
    for (int i = 0; i < k; i++) {
        bns[nb] = rsa_ossl_bn(primes[i]);
        OSSL_PARAM_BLD_push_BN(bld, factor[i], bns[nb++]);
        mpz_sub_ui(pm1, primes[i], 1);
        mpz_mod(t, d, pm1);
        bns[nb] = rsa_ossl_bn(t);
        OSSL_PARAM_BLD_push_BN(bld, exponent[i], bns[nb++]);
    }
    /* coefficient1 = q^-1 mod p (p = factor1, q = factor2); coefficient i
     * (i >= 2) = (r_1 ... r_i)^-1 mod r_{i+1} (RFC 8017 OtherPrimeInfo) */
    mpz_set(m, primes[0]);
    for (int i = 1; i < k; i++) {
        if (i == 1)
            mpz_invert(t, primes[1], primes[0]);
        else
            mpz_invert(t, m, primes[i]);
        mpz_mul(m, m, primes[i]);
        bns[nb] = rsa_ossl_bn(t);
        OSSL_PARAM_BLD_push_BN(bld, coefficient[i - 1], bns[nb++]);
    }
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    EVP_PKEY *pkey = NULL;
    if (!ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_KEYPAIR, params) <= 0)
        pkey = NULL;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    for (int i = 0; i < nb; i++)
        BN_clear_free(bns[i]);
    mpz_clears(t, m, pm1, NULL);
    return pkey;
}

/* A signing context for pkey and hash ("sha256", ...); NULL on failure. */
static inline EVP_PKEY_CTX *rsa_ossl_sign_ctx(EVP_PKEY *pkey, const char *hash)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    if (!ctx || EVP_PKEY_sign_init(ctx) <= 0 ||
        EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) <= 0 ||
        EVP_PKEY_CTX_set_signature_md(ctx, EVP_get_digestbyname(hash)) <= 0) {
        EVP_PKEY_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* 1 on success; *siglen in: buffer size, out: signature length. */
static inline int rsa_ossl_sign(EVP_PKEY_CTX *ctx, unsigned char *sig, size_t *siglen,
                                const unsigned char *digest, size_t dlen)
{
    return EVP_PKEY_sign(ctx, sig, siglen, digest, dlen) > 0;
}

#endif
