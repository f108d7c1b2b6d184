/* Test support for the provider's C tests: the two library contexts (one
 * with mns.so and the default provider, one with the default provider
 * alone), RSA keys from GMP (rsa_keygen.h, so MNS_TEST_SEED reproduces
 * them) turned into EVP_PKEYs in either context, and the module's
 * operation counters. */
#ifndef MNS_TESTS_PROV_UTIL_H
#define MNS_TESTS_PROV_UTIL_H

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>
#include <string.h>

#include "rsa_keygen.h"

#define PT_MNS_PROPQ "provider=mns"

typedef struct pt_ctx {
    OSSL_LIB_CTX *mns, *def;
    OSSL_PROVIDER *pm, *pd, *pdd;
} pt_ctx;

static inline int pt_open(pt_ctx *c)
{
    c->mns = OSSL_LIB_CTX_new();
    c->def = OSSL_LIB_CTX_new();
    if (!c->mns || !c->def || !OSSL_PROVIDER_set_default_search_path(c->mns, MNS_PROVIDER_DIR))
        return 0;
    c->pm = OSSL_PROVIDER_load(c->mns, "mns");
    c->pd = OSSL_PROVIDER_load(c->mns, "default");
    c->pdd = OSSL_PROVIDER_load(c->def, "default");
    return c->pm && c->pd && c->pdd;
}

static inline void pt_close(pt_ctx *c)
{
    OSSL_PROVIDER_unload(c->pm);
    OSSL_PROVIDER_unload(c->pd);
    OSSL_PROVIDER_unload(c->pdd);
    OSSL_LIB_CTX_free(c->mns);
    OSSL_LIB_CTX_free(c->def);
}

static inline unsigned long pt_counter(pt_ctx *c, const char *name)
{
    unsigned long v = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_ulong(name, &v), OSSL_PARAM_END};
    return OSSL_PROVIDER_get_params(c->pm, p) ? v : ~0ul;
}

static inline BIGNUM *pt_bn(const mpz_t z)
{
    unsigned char buf[1100];
    size_t got = 0;
    mpz_export(buf, &got, 1, 1, 0, 0, z);
    return BN_bin2bn(buf, (int)got, NULL);
}

static inline void pt_push(OSSL_PARAM_BLD *b, const char *name, const mpz_t z, BIGNUM **keep, int *nk)
{
    keep[*nk] = pt_bn(z);
    OSSL_PARAM_BLD_push_BN(b, name, keep[*nk]);
    (*nk)++;
}

/* PSS restrictions of an RSA-PSS key for pt_rsa_pss_pkey (NULL md: none). */
typedef struct pt_pss {
    const char *md, *mgf1;
    int saltlen;
} pt_pss;

/* The key t in library context lib, of key type "RSA", or "RSA-PSS" with
 * the restrictions pss; propq selects the key manager. */
static inline EVP_PKEY *pt_rsa_typed_pkey(OSSL_LIB_CTX *lib, const char *propq, const rsa_test_key *t,
                                          const char *type, const pt_pss *pss)
{
    static const char *const fn[] = {"rsa-factor1", "rsa-factor2", "rsa-factor3", "rsa-factor4",
                                     "rsa-factor5", "rsa-factor6", "rsa-factor7", "rsa-factor8"};
    static const char *const en[] = {"rsa-exponent1", "rsa-exponent2", "rsa-exponent3",
                                     "rsa-exponent4", "rsa-exponent5", "rsa-exponent6",
                                     "rsa-exponent7", "rsa-exponent8"};
    static const char *const cn[] = {"rsa-coefficient1", "rsa-coefficient2", "rsa-coefficient3",
                                     "rsa-coefficient4", "rsa-coefficient5", "rsa-coefficient6",
                                     "rsa-coefficient7"};
    OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
    BIGNUM *keep[32];
    int nk = 0;
    mpz_t v, m;
    mpz_inits(v, m, NULL);
    pt_push(b, OSSL_PKEY_PARAM_RSA_N, t->n, keep, &nk);
    pt_push(b, OSSL_PKEY_PARAM_RSA_E, t->e, keep, &nk);
    pt_push(b, OSSL_PKEY_PARAM_RSA_D, t->d, keep, &nk);
    for (int i = 0; i < t->k; i++)
        pt_push(b, fn[i], t->p[i], keep, &nk);
    for (int i = 0; i < t->k; i++) {
        mpz_sub_ui(v, t->p[i], 1);
        mpz_mod(v, t->d, v);
        pt_push(b, en[i], v, keep, &nk);
    }
    mpz_set(m, t->p[0]);
    for (int i = 1; i < t->k; i++) {
        if (i == 1)
            mpz_invert(v, t->p[1], t->p[0]);
        else
            mpz_invert(v, m, t->p[i]);
        mpz_mul(m, m, t->p[i]);
        pt_push(b, cn[i - 1], v, keep, &nk);
    }
    if (pss && pss->md) {
        OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_RSA_DIGEST, pss->md, 0);
        OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, pss->mgf1, 0);
        OSSL_PARAM_BLD_push_int(b, OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, pss->saltlen);
    }
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(b);
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_name(lib, type, propq);
    EVP_PKEY *pk = NULL;
    if (!pc || EVP_PKEY_fromdata_init(pc) <= 0 || EVP_PKEY_fromdata(pc, &pk, EVP_PKEY_KEYPAIR, params) <= 0)
        pk = NULL;
    EVP_PKEY_CTX_free(pc);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(b);
    for (int i = 0; i < nk; i++)
        BN_clear_free(keep[i]);
    mpz_clears(v, m, NULL);
    return pk;
}

static inline EVP_PKEY *pt_rsa_pkey(OSSL_LIB_CTX *lib, const char *propq, const rsa_test_key *t)
{
    return pt_rsa_typed_pkey(lib, propq, t, "RSA", NULL);
}

/* The reason text of the newest error ("" if none); clears the queue. */
static inline const char *pt_error(void)
{
    static char buf[256];
    unsigned long e = ERR_peek_last_error();
    buf[0] = 0;
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return buf;
}

#endif /* MNS_TESTS_PROV_UTIL_H */
