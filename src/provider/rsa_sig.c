/* RSA signatures: PKCS#1 v1.5 and PSS (RFC 8017 8.1 and 8.2), through
 * EVP_PKEY_sign / EVP_PKEY_verify (an already computed digest, or raw
 * bytes for PKCS#1 v1.5 without a digest) and EVP_DigestSign* /
 * EVP_DigestVerify*. Digests come from the caller's library context (the
 * provider's child context), so every digest the default provider has
 * works. Salt lengths as OpenSSL names them: "digest" (-1), "max" (-3),
 * "auto" (-2: the maximum when signing, recovered when verifying), or a
 * number. An RSA-PSS key signs with PSS only, within its restrictions
 * (rsa_key.h). The private operation is the key's (rsa_key.h: checked
 * with e); verification is the public operation, variable time (public
 * data). */
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/x509.h>

#include "provider/rsa_pad.h"
#include "provider/rsa_pss.h"

typedef struct sig_ctx {
    mns_prov *prov;
    mns_prov_rsa *key;
    RSA *pub; /* n, e for the PSS encoders */
    int pad, saltlen;
    EVP_MD *md, *mgf1;
    EVP_MD_CTX *mdctx;
} sig_ctx;

/* The caller's property query selected this provider; digests come from
 * any provider of the caller's context, so it is not passed on. */
static void *sig_newctx(void *provctx, const char *propq)
{
    (void)propq;
    sig_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->prov = provctx;
    c->pad = RSA_PKCS1_PADDING;
    c->saltlen = RSA_PSS_SALTLEN_AUTO;
    return c;
}

static void sig_freectx(void *vc)
{
    sig_ctx *c = vc;
    if (!c)
        return;
    mns_prov_rsa_free(c->key);
    RSA_free(c->pub);
    EVP_MD_free(c->md);
    EVP_MD_free(c->mgf1);
    EVP_MD_CTX_free(c->mdctx);
    free(c);
}

static void *sig_dupctx(void *vc)
{
    const sig_ctx *c = vc;
    sig_ctx *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *c;
    if (d->key)
        mns_prov_rsa_up_ref(d->key);
    if (d->pub)
        RSA_up_ref(d->pub);
    if (d->md)
        EVP_MD_up_ref(d->md);
    if (d->mgf1)
        EVP_MD_up_ref(d->mgf1);
    d->mdctx = NULL;
    if (c->mdctx && (!(d->mdctx = EVP_MD_CTX_new()) || !EVP_MD_CTX_copy_ex(d->mdctx, c->mdctx))) {
        sig_freectx(d);
        return NULL;
    }
    return d;
}

static int sig_set_ctx_params(void *vc, const OSSL_PARAM params[]);

static int sig_init(void *vc, void *vkey, const OSSL_PARAM params[], int private)
{
    sig_ctx *c = vc;
    mns_prov_rsa *key = vkey;
    if (!key && !c->key) {
        MNS_PROV_ERR(c->prov, MNS_R_MISSING_KEY, "RSA signature: no key");
        return 0;
    }
    if (key) {
        if (private && key->k == 0) {
            MNS_PROV_ERR(c->prov, MNS_R_MISSING_KEY, "RSA signature: not a private key");
            return 0;
        }
        mns_prov_rsa_up_ref(key);
        mns_prov_rsa_free(c->key);
        c->key = key;
        RSA_free(c->pub);
        if (!(c->pub = mns_pad_rsa_public(key)))
            return 0;
    }
    c->pad = c->key->pss ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING;
    c->saltlen = RSA_PSS_SALTLEN_AUTO;
    const mns_prov_pss_params *pp = &c->key->pss_params;
    if (c->key->pss && pp->restricted) {
        c->saltlen = pp->saltlen;
        if (!mns_prov_fetch_md(c->prov, &c->md, pp->md, NULL) ||
            !mns_prov_fetch_md(c->prov, &c->mgf1, pp->mgf1, NULL))
            return 0;
    }
    return sig_set_ctx_params(c, params);
}

/* What an RSA-PSS key allows (PSS; with restrictions, its digests and at
 * least its salt length); 0 with the reason raised otherwise. */
static int pss_allows(const sig_ctx *c)
{
    const mns_prov_pss_params *pp = &c->key->pss_params;
    if (!c->key->pss)
        return 1;
    if (c->pad != RSA_PKCS1_PSS_PADDING) {
        MNS_PROV_ERR(c->prov, MNS_R_NOT_SUPPORTED, "RSA-PSS key: PSS padding only");
        return 0;
    }
    if (!pp->restricted)
        return 1;
    const EVP_MD *mgf1 = c->mgf1 ? c->mgf1 : c->md;
    if (!c->md || !EVP_MD_is_a(c->md, pp->md) || !EVP_MD_is_a(mgf1, pp->mgf1) ||
        mns_pss_salt_bytes(c->key, c->md, c->saltlen) < pp->saltlen) {
        MNS_PROV_ERR(c->prov, MNS_R_BAD_PARAM,
                     "RSA-PSS key: restricted to %s, MGF1 with %s, salt of %d bytes or more", pp->md,
                     pp->mgf1, pp->saltlen);
        return 0;
    }
    return 1;
}

static int sig_sign_init(void *c, void *key, const OSSL_PARAM params[])
{
    return sig_init(c, key, params, 1);
}

static int sig_verify_init(void *c, void *key, const OSSL_PARAM params[])
{
    return sig_init(c, key, params, 0);
}

/* The encoded message of a digest (or raw bytes), emlen = size of n. */
static int encode(sig_ctx *c, unsigned char *em, size_t emlen, const unsigned char *tbs,
                  size_t tbslen)
{
    if (!pss_allows(c))
        return 0;
    if (c->pad == RSA_PKCS1_PADDING)
        return mns_pad_pkcs1_sign(c->prov, em, emlen, c->md, tbs, tbslen);
    if (c->pad != RSA_PKCS1_PSS_PADDING) {
        MNS_PROV_ERR(c->prov, MNS_R_NOT_SUPPORTED, "RSA signature: padding mode %d", c->pad);
        return 0;
    }
    if (!c->md || (size_t)EVP_MD_get_size(c->md) != tbslen) {
        MNS_PROV_ERR(c->prov, MNS_R_BAD_DIGEST, "RSA-PSS: needs a digest of the digest's length");
        return 0;
    }
    int slen = c->saltlen == RSA_PSS_SALTLEN_AUTO ? RSA_PSS_SALTLEN_MAX : c->saltlen;
    if (!RSA_padding_add_PKCS1_PSS_mgf1(c->pub, em, tbs, c->md, c->mgf1 ? c->mgf1 : c->md, slen)) {
        MNS_PROV_ERR(c->prov, MNS_R_BAD_PARAM, "RSA-PSS: salt of %d bytes does not fit", slen);
        return 0;
    }
    return 1;
}

static int sig_sign(void *vc, unsigned char *sig, size_t *siglen, size_t sigsize,
                    const unsigned char *tbs, size_t tbslen)
{
    sig_ctx *c = vc;
    const size_t len = mns_prov_rsa_bytes(c->key);
    if (!sig) {
        *siglen = len;
        return 1;
    }
    if (sigsize < len) {
        MNS_PROV_ERR(c->prov, MNS_R_BUFFER_TOO_SMALL, "RSA signature: %zu bytes needed, %zu given",
                     len, sigsize);
        return 0;
    }
    unsigned char *em = calloc(1, len);
    mpz_t m;
    mpz_init(m);
    int ok = em && encode(c, em, len, tbs, tbslen);
    if (ok) {
        mns_mpz_from_bytes(m, em, len);
        ok = mns_prov_rsa_private(c->key, m, m) && mns_mpz_to_bytes(sig, len, m);
    }
    if (ok)
        *siglen = len;
    if (em)
        OPENSSL_clear_free(em, len);
    mpz_clear(m);
    return ok;
}

/* em <- sig^e mod n, len bytes; 0 if sig is not a number below n. */
static int recover(sig_ctx *c, unsigned char *em, size_t len, const unsigned char *sig,
                   size_t siglen)
{
    mpz_t m;
    mpz_init(m);
    int ok = siglen <= len;
    if (ok) {
        mns_mpz_from_bytes(m, sig, siglen);
        ok = mns_prov_rsa_public(c->key, m, m) && mns_mpz_to_bytes(em, len, m);
    }
    mpz_clear(m);
    return ok;
}

static int sig_verify(void *vc, const unsigned char *sig, size_t siglen, const unsigned char *tbs,
                      size_t tbslen)
{
    sig_ctx *c = vc;
    const size_t len = mns_prov_rsa_bytes(c->key);
    unsigned char *em = calloc(2, len);
    if (!em)
        return 0;
    int ok = recover(c, em, len, sig, siglen);
    if (ok && c->pad == RSA_PKCS1_PSS_PADDING) {
        ok = c->md && (size_t)EVP_MD_get_size(c->md) == tbslen &&
             RSA_verify_PKCS1_PSS_mgf1(c->pub, tbs, c->md, c->mgf1 ? c->mgf1 : c->md, em,
                                       c->saltlen) == 1;
    } else if (ok) {
        ok = encode(c, em + len, len, tbs, tbslen) && CRYPTO_memcmp(em, em + len, len) == 0;
    }
    free(em);
    if (!ok)
        MNS_PROV_ERR(c->prov, MNS_R_VERIFY_FAILED, "RSA signature does not verify");
    return ok;
}

static int digest_init(void *vc, const char *mdname, void *key, const OSSL_PARAM params[],
                       int private)
{
    sig_ctx *c = vc;
    if (!sig_init(c, key, params, private))
        return 0;
    if (mdname && *mdname && !mns_prov_fetch_md(c->prov, &c->md, mdname, NULL))
        return 0;
    if (!c->md && !mns_prov_fetch_md(c->prov, &c->md, "SHA256", NULL))
        return 0;
    if (!c->mdctx && !(c->mdctx = EVP_MD_CTX_new()))
        return 0;
    return EVP_DigestInit_ex2(c->mdctx, c->md, NULL);
}

static int dsign_init(void *c, const char *md, void *key, const OSSL_PARAM params[])
{
    return digest_init(c, md, key, params, 1);
}

static int dverify_init(void *c, const char *md, void *key, const OSSL_PARAM params[])
{
    return digest_init(c, md, key, params, 0);
}

static int digest_update(void *vc, const unsigned char *data, size_t len)
{
    sig_ctx *c = vc;
    return c->mdctx && EVP_DigestUpdate(c->mdctx, data, len);
}

static int dsign_final(void *vc, unsigned char *sig, size_t *siglen, size_t sigsize)
{
    sig_ctx *c = vc;
    unsigned char dg[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    if (!sig)
        return sig_sign(c, NULL, siglen, sigsize, NULL, 0);
    if (sigsize < mns_prov_rsa_bytes(c->key))
        return sig_sign(c, sig, siglen, sigsize, NULL, 0); /* the size error */
    return c->mdctx && EVP_DigestFinal_ex(c->mdctx, dg, &dlen) &&
           sig_sign(c, sig, siglen, sigsize, dg, dlen);
}

static int dverify_final(void *vc, const unsigned char *sig, size_t siglen)
{
    sig_ctx *c = vc;
    unsigned char dg[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    return c->mdctx && EVP_DigestFinal_ex(c->mdctx, dg, &dlen) &&
           sig_verify(c, sig, siglen, dg, dlen);
}

static int set_saltlen(sig_ctx *c, const OSSL_PARAM *p)
{
    if (p->data_type == OSSL_PARAM_INTEGER)
        return OSSL_PARAM_get_int(p, &c->saltlen);
    if (p->data_type != OSSL_PARAM_UTF8_STRING)
        return 0;
    const char *s = p->data;
    if (strcmp(s, "digest") == 0)
        c->saltlen = RSA_PSS_SALTLEN_DIGEST;
    else if (strcmp(s, "max") == 0)
        c->saltlen = RSA_PSS_SALTLEN_MAX;
    else if (strcmp(s, "auto") == 0)
        c->saltlen = RSA_PSS_SALTLEN_AUTO;
    else
        c->saltlen = atoi(s);
    return c->saltlen >= RSA_PSS_SALTLEN_MAX;
}

static int sig_set_ctx_params(void *vc, const OSSL_PARAM params[])
{
    sig_ctx *c = vc;
    const OSSL_PARAM *p;
    if (!params)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_PAD_MODE)) &&
        (!mns_param_pad_mode(p, &c->pad) ||
         (c->pad != RSA_PKCS1_PADDING && c->pad != RSA_PKCS1_PSS_PADDING))) {
        MNS_PROV_ERR(c->prov, MNS_R_NOT_SUPPORTED, "RSA signature: padding mode not supported");
        return 0;
    }
    if (p && c->key && c->key->pss && !pss_allows(c))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST)) &&
        (p->data_type != OSSL_PARAM_UTF8_STRING || !mns_prov_fetch_md(c->prov, &c->md, p->data, NULL)))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_MGF1_DIGEST)) &&
        (p->data_type != OSSL_PARAM_UTF8_STRING ||
         !mns_prov_fetch_md(c->prov, &c->mgf1, p->data, NULL)))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_PSS_SALTLEN)) &&
        !set_saltlen(c, p)) {
        MNS_PROV_ERR(c->prov, MNS_R_BAD_PARAM, "RSA-PSS: bad salt length");
        return 0;
    }
    return 1;
}

static const OSSL_PARAM settable[] = {
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PROPERTIES, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM *sig_settable(void *vc, void *provctx)
{
    (void)vc;
    (void)provctx;
    return settable;
}

/* The DER AlgorithmIdentifier of the signature (what X.509, CMS and
 * `openssl req` write beside it): <digest>WithRSAEncryption and NULL for
 * PKCS#1 v1.5, id-RSASSA-PSS with the parameters for PSS (rsa_pss.c). */
static int algorithm_id(const sig_ctx *c, OSSL_PARAM *p)
{
    int sig_nid = NID_undef;
    unsigned char *der = NULL;
    if (!c->md || !c->key)
        return 0;
    if (c->pad == RSA_PKCS1_PSS_PADDING)
        return mns_pss_algorithm_id(p, c->md, c->mgf1 ? c->mgf1 : c->md,
                                    mns_pss_salt_bytes(c->key, c->md, c->saltlen));
    if (c->pad != RSA_PKCS1_PADDING ||
        !OBJ_find_sigid_by_algs(&sig_nid, EVP_MD_get_type(c->md), NID_rsaEncryption))
        return 0;
    X509_ALGOR *alg = X509_ALGOR_new();
    int len = alg && X509_ALGOR_set0(alg, OBJ_nid2obj(sig_nid), V_ASN1_NULL, NULL)
                  ? i2d_X509_ALGOR(alg, &der)
                  : -1;
    int ok = len > 0 && OSSL_PARAM_set_octet_string(p, der, (size_t)len);
    OPENSSL_free(der);
    X509_ALGOR_free(alg);
    return ok;
}

static int sig_get_ctx_params(void *vc, OSSL_PARAM params[])
{
    sig_ctx *c = vc;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID)) && !algorithm_id(c, p))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_PAD_MODE)) &&
        !(p->data_type == OSSL_PARAM_INTEGER
              ? OSSL_PARAM_set_int(p, c->pad)
              : OSSL_PARAM_set_utf8_string(p, c->pad == RSA_PKCS1_PSS_PADDING ? "pss" : "pkcs1")))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_DIGEST)) &&
        !OSSL_PARAM_set_utf8_string(p, c->md ? EVP_MD_get0_name(c->md) : ""))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_PSS_SALTLEN)) &&
        p->data_type == OSSL_PARAM_INTEGER && !OSSL_PARAM_set_int(p, c->saltlen))
        return 0;
    return 1;
}

static const OSSL_PARAM gettable[] = {
    OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL, 0),
    OSSL_PARAM_int(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *sig_gettable(void *vc, void *provctx)
{
    (void)vc;
    (void)provctx;
    return gettable;
}

typedef void (*fn)(void);
const OSSL_DISPATCH mns_rsa_signature_functions[] = {
    {OSSL_FUNC_SIGNATURE_NEWCTX, (fn)sig_newctx},
    {OSSL_FUNC_SIGNATURE_FREECTX, (fn)sig_freectx},
    {OSSL_FUNC_SIGNATURE_DUPCTX, (fn)sig_dupctx},
    {OSSL_FUNC_SIGNATURE_SIGN_INIT, (fn)sig_sign_init},
    {OSSL_FUNC_SIGNATURE_SIGN, (fn)sig_sign},
    {OSSL_FUNC_SIGNATURE_VERIFY_INIT, (fn)sig_verify_init},
    {OSSL_FUNC_SIGNATURE_VERIFY, (fn)sig_verify},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, (fn)dsign_init},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, (fn)digest_update},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, (fn)dsign_final},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, (fn)dverify_init},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, (fn)digest_update},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, (fn)dverify_final},
    {OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, (fn)sig_get_ctx_params},
    {OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, (fn)sig_gettable},
    {OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, (fn)sig_set_ctx_params},
    {OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, (fn)sig_settable},
    {0, NULL}};
