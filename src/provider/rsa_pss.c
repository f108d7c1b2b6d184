/* RSASSA-PSS key parameters and AlgorithmIdentifiers (rsa_pss.h). RFC 4055
 * leaves out what equals its defaults (SHA-1, MGF1 with SHA-1, a salt of
 * 20 bytes, trailer 1), so the encoding omits those fields; the decoder of
 * every verifier fills them back in. */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "provider/rsa_pss.h"

#define PSS_DEFAULT_SALT 20

const OSSL_PARAM mns_pss_param_types[] = {
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MASKGENFUNC, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, NULL, 0),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, NULL), OSSL_PARAM_END};

static int get_name(const OSSL_PARAM params[], const char *name, char *out, size_t cap, int *found)
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, name);
    if (!p)
        return 1;
    *found = 1;
    return OSSL_PARAM_get_utf8_string(p, &out, cap);
}

int mns_pss_import(mns_prov_rsa *key, const OSSL_PARAM params[])
{
    mns_prov_pss_params *pp = &key->pss_params;
    char mgf[20] = "MGF1";
    int found = 0, ok = 1;
    memset(pp, 0, sizeof *pp);
    strcpy(pp->md, "SHA1");
    strcpy(pp->mgf1, "SHA1");
    pp->saltlen = PSS_DEFAULT_SALT;
    ok &= get_name(params, OSSL_PKEY_PARAM_RSA_DIGEST, pp->md, sizeof pp->md, &found);
    ok &= get_name(params, OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, pp->mgf1, sizeof pp->mgf1, &found);
    ok &= get_name(params, OSSL_PKEY_PARAM_RSA_MASKGENFUNC, mgf, sizeof mgf, &found);
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_PSS_SALTLEN);
    if (p) {
        found = 1;
        ok &= OSSL_PARAM_get_int(p, &pp->saltlen) && pp->saltlen >= 0;
    }
    if (!ok || OPENSSL_strcasecmp(mgf, "MGF1") != 0) {
        MNS_PROV_ERR(key->prov, MNS_R_BAD_PARAM, "RSA-PSS key: bad parameters (mask generation %s)",
                     mgf);
        return 0;
    }
    pp->restricted = found;
    return 1;
}

int mns_pss_get_params(const mns_prov_rsa *key, OSSL_PARAM params[])
{
    const mns_prov_pss_params *pp = &key->pss_params;
    OSSL_PARAM *p;
    if (!key->pss || !pp->restricted)
        return 1;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_DIGEST)) &&
        !OSSL_PARAM_set_utf8_string(p, pp->md))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_MASKGENFUNC)) &&
        !OSSL_PARAM_set_utf8_string(p, "MGF1"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_MGF1_DIGEST)) &&
        !OSSL_PARAM_set_utf8_string(p, pp->mgf1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_RSA_PSS_SALTLEN)) &&
        !OSSL_PARAM_set_int(p, pp->saltlen))
        return 0;
    return 1;
}

int mns_pss_salt_bytes(const mns_prov_rsa *key, const EVP_MD *md, int saltlen)
{
    const int hlen = EVP_MD_get_size(md);
    const int embits = (int)mpz_sizeinbase(key->n, 2) - 1, emlen = (embits + 7) / 8;
    if (saltlen == RSA_PSS_SALTLEN_DIGEST)
        return hlen;
    if (saltlen == RSA_PSS_SALTLEN_MAX || saltlen == RSA_PSS_SALTLEN_AUTO)
        return emlen - hlen - 2;
    return saltlen;
}

/* An AlgorithmIdentifier of a digest: the OID, parameters absent (RFC
 * 4055 allows both; absent is what OpenSSL writes for SHA-2). */
static X509_ALGOR *md_algor(const EVP_MD *md)
{
    X509_ALGOR *a = X509_ALGOR_new();
    if (a && !X509_ALGOR_set0(a, OBJ_nid2obj(EVP_MD_get_type(md)), V_ASN1_UNDEF, NULL)) {
        X509_ALGOR_free(a);
        a = NULL;
    }
    return a;
}

/* maskGenAlgorithm: id-mgf1 with the digest's AlgorithmIdentifier */
static X509_ALGOR *mgf1_algor(const EVP_MD *mgf1)
{
    X509_ALGOR *h = md_algor(mgf1), *a = X509_ALGOR_new();
    ASN1_STRING *seq = h ? ASN1_item_pack(h, ASN1_ITEM_rptr(X509_ALGOR), NULL) : NULL;
    X509_ALGOR_free(h);
    if (!a || !seq || !X509_ALGOR_set0(a, OBJ_nid2obj(NID_mgf1), V_ASN1_SEQUENCE, seq)) {
        ASN1_STRING_free(seq);
        X509_ALGOR_free(a);
        return NULL;
    }
    return a;
}

static RSA_PSS_PARAMS *pss_params(const EVP_MD *md, const EVP_MD *mgf1, int salt)
{
    RSA_PSS_PARAMS *pp = RSA_PSS_PARAMS_new();
    int ok = pp != NULL;
    if (ok && EVP_MD_get_type(md) != NID_sha1)
        ok = (pp->hashAlgorithm = md_algor(md)) != NULL;
    if (ok && EVP_MD_get_type(mgf1) != NID_sha1) {
        ok = (pp->maskGenAlgorithm = mgf1_algor(mgf1)) != NULL;
        ok = ok && (pp->maskHash = md_algor(mgf1)) != NULL;
    }
    if (ok && salt != PSS_DEFAULT_SALT)
        ok = (pp->saltLength = ASN1_INTEGER_new()) != NULL && ASN1_INTEGER_set(pp->saltLength, salt);
    if (!ok) {
        RSA_PSS_PARAMS_free(pp);
        pp = NULL;
    }
    return pp;
}

int mns_pss_algorithm_id(OSSL_PARAM *p, const EVP_MD *md, const EVP_MD *mgf1, int salt)
{
    RSA_PSS_PARAMS *pp = salt >= 0 ? pss_params(md, mgf1, salt) : NULL;
    ASN1_STRING *seq = pp ? ASN1_item_pack(pp, ASN1_ITEM_rptr(RSA_PSS_PARAMS), NULL) : NULL;
    X509_ALGOR *alg = seq ? X509_ALGOR_new() : NULL;
    unsigned char *der = NULL;
    int len = -1;
    if (alg && X509_ALGOR_set0(alg, OBJ_nid2obj(NID_rsassaPss), V_ASN1_SEQUENCE, seq)) {
        seq = NULL; /* alg owns it */
        len = i2d_X509_ALGOR(alg, &der);
    }
    int ok = len > 0 && OSSL_PARAM_set_octet_string(p, der, (size_t)len);
    OPENSSL_free(der);
    ASN1_STRING_free(seq);
    X509_ALGOR_free(alg);
    RSA_PSS_PARAMS_free(pp);
    return ok;
}
