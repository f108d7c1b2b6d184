/* RSA encryption and decryption (RFC 8017 7.1, 7.2): no padding, OAEP with
 * any digest of the caller's context and a label, PKCS#1 v1.5 with
 * implicit rejection by default (OpenSSL 3.2's behaviour; the parameter
 * "implicit-rejection" = 0 asks for the error instead) and the TLS
 * pre-master secret form. Decryption is the key's private operation
 * (checked with e); encryption is the public operation, variable time
 * (it touches public data only), with OpenSSL's RSA_padding_add_* encoders. */
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/rsa.h>

#include "provider/rsa_pad.h"
#include "provider/rsa_pkcs1.h"

#define MNS_PARAM_IMPLICIT_REJECTION "implicit-rejection" /* OpenSSL 3.2's name */

typedef struct enc_ctx {
    mns_prov *prov;
    mns_prov_rsa *key;
    int pad, implicit;
    EVP_MD *md, *mgf1;
    unsigned char *label;
    size_t label_len;
    unsigned client_version;
} enc_ctx;

static void *enc_newctx(void *provctx)
{
    enc_ctx *c = calloc(1, sizeof *c);
    if (c) {
        c->prov = provctx;
        c->pad = RSA_PKCS1_PADDING;
        c->implicit = 1;
    }
    return c;
}

static void enc_freectx(void *vc)
{
    enc_ctx *c = vc;
    if (!c)
        return;
    mns_prov_rsa_free(c->key);
    EVP_MD_free(c->md);
    EVP_MD_free(c->mgf1);
    free(c->label);
    free(c);
}

static void *enc_dupctx(void *vc)
{
    const enc_ctx *c = vc;
    enc_ctx *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    *d = *c;
    d->label = NULL;
    if (c->label_len && !(d->label = malloc(c->label_len))) {
        free(d);
        return NULL;
    }
    if (c->label_len)
        memcpy(d->label, c->label, c->label_len);
    if (d->key)
        mns_prov_rsa_up_ref(d->key);
    if (d->md)
        EVP_MD_up_ref(d->md);
    if (d->mgf1)
        EVP_MD_up_ref(d->mgf1);
    return d;
}

static int enc_set_ctx_params(void *vc, const OSSL_PARAM params[]);

static int enc_init(void *vc, void *vkey, const OSSL_PARAM params[], int private)
{
    enc_ctx *c = vc;
    mns_prov_rsa *key = vkey;
    if (!key || (private && key->k == 0)) {
        MNS_PROV_ERR(c->prov, MNS_R_MISSING_KEY, "RSA: %s", key ? "not a private key" : "no key");
        return 0;
    }
    if (key->pss) {
        MNS_PROV_ERR(c->prov, MNS_R_NOT_SUPPORTED, "RSA-PSS key: signatures only");
        return 0;
    }
    mns_prov_rsa_up_ref(key);
    mns_prov_rsa_free(c->key);
    c->key = key;
    return enc_set_ctx_params(c, params);
}

static int enc_encrypt_init(void *c, void *key, const OSSL_PARAM params[])
{
    return enc_init(c, key, params, 0);
}

static int enc_decrypt_init(void *c, void *key, const OSSL_PARAM params[])
{
    return enc_init(c, key, params, 1);
}

/* em (k bytes) <- the padded message for the public operation */
static int pad_message(enc_ctx *c, unsigned char *em, size_t k, const unsigned char *in,
                       size_t inlen)
{
    int ok = 0;
    if (c->pad == RSA_NO_PADDING) {
        ok = inlen == k;
        if (ok)
            memcpy(em, in, k);
    } else if (c->pad == RSA_PKCS1_PADDING) {
        ok = RSA_padding_add_PKCS1_type_2(em, (int)k, in, (int)inlen);
    } else if (c->pad == RSA_PKCS1_OAEP_PADDING) {
        EVP_MD *md = c->md;
        if (!md && !mns_prov_fetch_md(c->prov, &c->md, "SHA1", NULL))
            return 0;
        md = c->md;
        ok = RSA_padding_add_PKCS1_OAEP_mgf1(em, (int)k, in, (int)inlen, c->label,
                                             (int)c->label_len, md, c->mgf1 ? c->mgf1 : md);
    }
    if (!ok)
        MNS_PROV_ERR(c->prov, MNS_R_VALUE_TOO_LARGE,
                     "RSA encryption: %zu bytes do not fit padding mode %d", inlen, c->pad);
    return ok;
}

static int enc_encrypt(void *vc, unsigned char *out, size_t *outlen, size_t outsize,
                       const unsigned char *in, size_t inlen)
{
    enc_ctx *c = vc;
    const size_t k = mns_prov_rsa_bytes(c->key);
    if (!out) {
        *outlen = k;
        return 1;
    }
    if (outsize < k) {
        MNS_PROV_ERR(c->prov, MNS_R_BUFFER_TOO_SMALL, "RSA: %zu bytes needed, %zu given", k, outsize);
        return 0;
    }
    unsigned char *em = calloc(1, k);
    mpz_t m;
    mpz_init(m);
    int ok = em && pad_message(c, em, k, in, inlen);
    if (ok) {
        mns_mpz_from_bytes(m, em, k);
        ok = mns_prov_rsa_public(c->key, m, m) && mns_mpz_to_bytes(out, k, m);
    }
    if (ok)
        *outlen = k;
    if (em)
        OPENSSL_clear_free(em, k);
    mpz_clear(m);
    return ok;
}

/* The padding's decoding of em (k bytes) into out; the message length or -1. */
static int unpad(enc_ctx *c, unsigned char *out, size_t outsize, unsigned char *em,
                 const unsigned char *ct, size_t k)
{
    switch (c->pad) {
    case RSA_NO_PADDING:
        memcpy(out, em, k);
        return (int)k;
    case RSA_PKCS1_PADDING:
        return c->implicit ? mns_pkcs1_decode_implicit(c->prov, c->key, out, outsize, em, ct, k)
                           : mns_pkcs1_decode(c->prov, out, outsize, em, k);
    case RSA_PKCS1_WITH_TLS_PADDING:
        return mns_pkcs1_decode_tls(c->prov, out, em, k, c->client_version);
    case RSA_PKCS1_OAEP_PADDING: {
        if (!c->md && !mns_prov_fetch_md(c->prov, &c->md, "SHA1", NULL))
            return -1;
        int r = RSA_padding_check_PKCS1_OAEP_mgf1(out, (int)outsize, em, (int)k, (int)k, c->label,
                                                  (int)c->label_len, c->md,
                                                  c->mgf1 ? c->mgf1 : c->md);
        if (r < 0)
            MNS_PROV_ERR(c->prov, MNS_R_BAD_PADDING, "RSA: OAEP decoding error");
        return r;
    }
    }
    MNS_PROV_ERR(c->prov, MNS_R_NOT_SUPPORTED, "RSA decryption: padding mode %d", c->pad);
    return -1;
}

static size_t min_out(const enc_ctx *c, size_t k)
{
    if (c->pad == RSA_PKCS1_WITH_TLS_PADDING)
        return 48;
    return c->pad == RSA_NO_PADDING ? k : k - 11;
}

static int enc_decrypt(void *vc, unsigned char *out, size_t *outlen, size_t outsize,
                       const unsigned char *in, size_t inlen)
{
    enc_ctx *c = vc;
    const size_t k = mns_prov_rsa_bytes(c->key);
    if (!out) {
        *outlen = c->pad == RSA_PKCS1_WITH_TLS_PADDING ? 48 : k;
        return 1;
    }
    if (outsize < min_out(c, k)) {
        MNS_PROV_ERR(c->prov, MNS_R_BUFFER_TOO_SMALL, "RSA decryption: %zu bytes needed, %zu given",
                     min_out(c, k), outsize);
        return 0;
    }
    if (inlen > k) {
        MNS_PROV_ERR(c->prov, MNS_R_VALUE_TOO_LARGE, "RSA: ciphertext longer than the modulus");
        return 0;
    }
    unsigned char *buf = calloc(2, k); /* the ciphertext as k bytes, then its decryption */
    mpz_t m;
    mpz_init(m);
    int ok = buf != NULL, r = -1;
    if (ok) {
        memcpy(buf + k - inlen, in, inlen);
        mns_mpz_from_bytes(m, buf, k);
        ok = mns_prov_rsa_private(c->key, m, m) && mns_mpz_to_bytes(buf + k, k, m);
    }
    if (ok && (r = unpad(c, out, outsize, buf + k, buf, k)) < 0)
        ok = 0;
    if (ok)
        *outlen = (size_t)r;
    if (buf)
        OPENSSL_clear_free(buf, 2 * k);
    mpz_clear(m);
    return ok;
}

static int set_label(enc_ctx *c, const OSSL_PARAM *p)
{
    void *v = NULL;
    size_t len = 0;
    if (!OSSL_PARAM_get_octet_string(p, &v, 0, &len))
        return 0;
    free(c->label);
    c->label = v;
    c->label_len = len;
    return 1;
}

static int enc_set_ctx_params(void *vc, const OSSL_PARAM params[])
{
    enc_ctx *c = vc;
    const OSSL_PARAM *p;
    if (!params)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_ASYM_CIPHER_PARAM_PAD_MODE)) &&
        !mns_param_pad_mode(p, &c->pad)) {
        MNS_PROV_ERR(c->prov, MNS_R_NOT_SUPPORTED, "RSA: unknown padding mode");
        return 0;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST)) &&
        (p->data_type != OSSL_PARAM_UTF8_STRING || !mns_prov_fetch_md(c->prov, &c->md, p->data, NULL)))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST)) &&
        (p->data_type != OSSL_PARAM_UTF8_STRING ||
         !mns_prov_fetch_md(c->prov, &c->mgf1, p->data, NULL)))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL)) && !set_label(c, p))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION)) &&
        !OSSL_PARAM_get_uint(p, &c->client_version))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, MNS_PARAM_IMPLICIT_REJECTION)) &&
        !OSSL_PARAM_get_int(p, &c->implicit))
        return 0;
    return 1;
}

static const OSSL_PARAM settable[] = {
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL, NULL, 0),
    OSSL_PARAM_uint(OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION, NULL),
    OSSL_PARAM_uint(OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION, NULL),
    OSSL_PARAM_int(MNS_PARAM_IMPLICIT_REJECTION, NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *enc_settable(void *vc, void *provctx)
{
    (void)vc;
    (void)provctx;
    return settable;
}

static int enc_get_ctx_params(void *vc, OSSL_PARAM params[])
{
    enc_ctx *c = vc;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_ASYM_CIPHER_PARAM_PAD_MODE)) &&
        p->data_type == OSSL_PARAM_INTEGER && !OSSL_PARAM_set_int(p, c->pad))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST)) &&
        !OSSL_PARAM_set_utf8_string(p, c->md ? EVP_MD_get0_name(c->md) : "SHA1"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, MNS_PARAM_IMPLICIT_REJECTION)) &&
        !OSSL_PARAM_set_int(p, c->implicit))
        return 0;
    return 1;
}

static const OSSL_PARAM gettable[] = {
    OSSL_PARAM_int(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, NULL),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, NULL, 0),
    OSSL_PARAM_int(MNS_PARAM_IMPLICIT_REJECTION, NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *enc_gettable(void *vc, void *provctx)
{
    (void)vc;
    (void)provctx;
    return gettable;
}

typedef void (*fn)(void);
const OSSL_DISPATCH mns_rsa_asym_cipher_functions[] = {
    {OSSL_FUNC_ASYM_CIPHER_NEWCTX, (fn)enc_newctx},
    {OSSL_FUNC_ASYM_CIPHER_FREECTX, (fn)enc_freectx},
    {OSSL_FUNC_ASYM_CIPHER_DUPCTX, (fn)enc_dupctx},
    {OSSL_FUNC_ASYM_CIPHER_ENCRYPT_INIT, (fn)enc_encrypt_init},
    {OSSL_FUNC_ASYM_CIPHER_ENCRYPT, (fn)enc_encrypt},
    {OSSL_FUNC_ASYM_CIPHER_DECRYPT_INIT, (fn)enc_decrypt_init},
    {OSSL_FUNC_ASYM_CIPHER_DECRYPT, (fn)enc_decrypt},
    {OSSL_FUNC_ASYM_CIPHER_GET_CTX_PARAMS, (fn)enc_get_ctx_params},
    {OSSL_FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS, (fn)enc_gettable},
    {OSSL_FUNC_ASYM_CIPHER_SET_CTX_PARAMS, (fn)enc_set_ctx_params},
    {OSSL_FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS, (fn)enc_settable},
    {0, NULL}};
