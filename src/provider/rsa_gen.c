/* RSA and RSA-PSS key generation for the key managers: mns does not
 * generate primes, so the key is made by another provider of the caller's
 * context (the property query "provider!=mns" on the child context,
 * normally the default provider) and imported. Without it, a configuration
 * that prefers mns (docs/provider.cnf) would leave `openssl genpkey` with a
 * key manager that cannot generate. An RSA-PSS key's restrictions (digest,
 * MGF1 digest, salt length) are passed on as they were given. */
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "provider/rsa_key.h"

typedef struct rsa_gen_ctx {
    mns_prov *prov;
    size_t bits, primes;
    unsigned long e;
    int pss, saltlen;
    char md[50], mgf1[50]; /* "": not given */
} rsa_gen_ctx;

static void *gen_init(void *provctx, int selection, const OSSL_PARAM params[], int pss)
{
    rsa_gen_ctx *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->prov = provctx;
    g->pss = pss;
    g->saltlen = -1;
    g->bits = 2048;
    g->primes = 2;
    g->e = 65537;
    if (!(selection & OSSL_KEYMGMT_SELECT_KEYPAIR) || !mns_rsa_gen_set_params(g, params)) {
        free(g);
        return NULL;
    }
    return g;
}

void *mns_rsa_gen_init(void *provctx, int selection, const OSSL_PARAM params[])
{
    return gen_init(provctx, selection, params, 0);
}

void *mns_rsa_pss_gen_init(void *provctx, int selection, const OSSL_PARAM params[])
{
    return gen_init(provctx, selection, params, 1);
}

static int get_name(const OSSL_PARAM params[], const char *name, char *out, size_t cap)
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, name);
    return !p || OSSL_PARAM_get_utf8_string(p, &out, cap);
}

int mns_rsa_gen_set_params(void *vg, const OSSL_PARAM params[])
{
    rsa_gen_ctx *g = vg;
    const OSSL_PARAM *p;
    if (!params)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_BITS)) &&
        !OSSL_PARAM_get_size_t(p, &g->bits))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_PRIMES)) &&
        !OSSL_PARAM_get_size_t(p, &g->primes))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_E)) && !OSSL_PARAM_get_ulong(p, &g->e))
        return 0;
    if (!g->pss)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_PSS_SALTLEN)) &&
        !OSSL_PARAM_get_int(p, &g->saltlen))
        return 0;
    return get_name(params, OSSL_PKEY_PARAM_RSA_DIGEST, g->md, sizeof g->md) &&
           get_name(params, OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, g->mgf1, sizeof g->mgf1);
}

static const OSSL_PARAM settable[] = {
    OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_BITS, NULL),
    OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, NULL),
    OSSL_PARAM_ulong(OSSL_PKEY_PARAM_RSA_E, NULL), OSSL_PARAM_END};
static const OSSL_PARAM pss_settable[] = {
    OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_BITS, NULL),
    OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, NULL),
    OSSL_PARAM_ulong(OSSL_PKEY_PARAM_RSA_E, NULL),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, NULL, 0),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, NULL), OSSL_PARAM_END};

const OSSL_PARAM *mns_rsa_gen_settable_params(void *vg, void *provctx)
{
    (void)provctx;
    const rsa_gen_ctx *g = vg;
    return g && g->pss ? pss_settable : settable;
}

/* The generating provider's parameters: size, primes, e, and an RSA-PSS
 * key's restrictions where they were given. */
static void gen_params(rsa_gen_ctx *g, OSSL_PARAM *p)
{
    int n = 0;
    p[n++] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &g->bits);
    p[n++] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &g->primes);
    p[n++] = OSSL_PARAM_construct_ulong(OSSL_PKEY_PARAM_RSA_E, &g->e);
    if (g->md[0])
        p[n++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, g->md, 0);
    if (g->mgf1[0])
        p[n++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, g->mgf1, 0);
    if (g->saltlen >= 0)
        p[n++] = OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, &g->saltlen);
    p[n] = OSSL_PARAM_construct_end();
}

void *mns_rsa_gen(void *vg, OSSL_CALLBACK *cb, void *cbarg)
{
    (void)cb;
    (void)cbarg;
    rsa_gen_ctx *g = vg;
    EVP_PKEY *pk = NULL;
    OSSL_PARAM *kp = NULL;
    mns_prov_rsa *key = NULL;
    OSSL_PARAM p[7];
    gen_params(g, p);
    EVP_PKEY_CTX *pc =
        EVP_PKEY_CTX_new_from_name(g->prov->libctx, g->pss ? "RSA-PSS" : "RSA", "provider!=mns");
    if (pc && EVP_PKEY_keygen_init(pc) > 0 && EVP_PKEY_CTX_set_params(pc, p) > 0 &&
        EVP_PKEY_keygen(pc, &pk) > 0 && EVP_PKEY_todata(pk, EVP_PKEY_KEYPAIR, &kp) > 0 &&
        (key = mns_prov_rsa_new(g->prov)) && (key->pss = g->pss, 1) &&
        !mns_prov_rsa_import(key, OSSL_KEYMGMT_SELECT_KEYPAIR, kp)) {
        mns_prov_rsa_free(key);
        key = NULL;
    }
    if (!key)
        MNS_PROV_ERR(g->prov, MNS_R_NOT_SUPPORTED, "RSA: no other provider generated the key");
    OSSL_PARAM_free(kp);
    EVP_PKEY_free(pk);
    EVP_PKEY_CTX_free(pc);
    return key;
}

void mns_rsa_gen_cleanup(void *vg) { free(vg); }
