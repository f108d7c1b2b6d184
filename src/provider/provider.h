/* mns.so, the OpenSSL 3 provider: what its files share.
 *
 * The module links libmns statically and uses only its public API (mns.h,
 * mns_rsa.h). Each operation family has its file: prov.c (entry, dispatch,
 * parameters, counters), caps.c (TLS groups), util.c (errors, OSSL_PARAM
 * <-> mpz), rsa_key.c and rsa_crt.c (the key object and its private
 * operation), rsa_kmgmt.c (RSA and RSA-PSS keys), rsa_pss.c (PSS key
 * parameters and AlgorithmIdentifiers), rsa_sig.c, rsa_enc.c (+ rsa_pkcs1.c, the constant-time PKCS#1 v1.5
 * decoding with implicit rejection), dh_group.c (groups and their cached
 * fields), dh_kmgmt.c, dh_exch.c.
 *
 * libcrypto is used for what every provider takes from it: digests fetched
 * from the caller's library context (a child context), OSSL_PARAM helpers,
 * the ASN.1 of DigestInfo, and the PSS / OAEP encodings of RSA_padding_*
 * (public functions of OpenSSL 3.0, deprecated there: OPENSSL_API_COMPAT
 * keeps them declared). */
#ifndef MNS_PROVIDER_H
#define MNS_PROVIDER_H

#include <stdarg.h>
#include <stdatomic.h>
#include <gmp.h>
#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>

typedef struct mns_prov {
    const OSSL_CORE_HANDLE *handle;
    OSSL_LIB_CTX *libctx; /* child of the caller's context: digests, RNG */
} mns_prov;

/* Reasons of the errors the module raises (their texts: prov.c). */
enum {
    MNS_R_BAD_KEY = 1,
    MNS_R_MISSING_KEY,
    MNS_R_BUFFER_TOO_SMALL,
    MNS_R_VALUE_TOO_LARGE,
    MNS_R_BAD_PEER,
    MNS_R_BAD_PADDING,
    MNS_R_BAD_DIGEST,
    MNS_R_BAD_PARAM,
    MNS_R_NOT_SUPPORTED,
    MNS_R_FAULT,
    MNS_R_INTERNAL,
    MNS_R_VERIFY_FAILED,
    MNS_R_MAX
};
extern const OSSL_ITEM mns_prov_reasons[];

/* Operation counters (process-wide): what the tests read back (the
 * provider parameters "mns-rsa-private-ops" and "mns-dh-derives") to prove
 * that mns did the work. */
extern atomic_ulong mns_prov_rsa_ops;
extern atomic_ulong mns_prov_dh_ops;

void mns_prov_set_core(const OSSL_DISPATCH *in);
/* Raises an OpenSSL error with a reason and a message, through the core. */
void mns_prov_err(const mns_prov *prov, int reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define MNS_PROV_ERR(prov, reason, ...) mns_prov_err((prov), (reason), __VA_ARGS__)

/* OSSL_PARAM integers <-> mpz (non-negative). */
int mns_param_get_mpz(const OSSL_PARAM *p, mpz_t z);
int mns_param_set_mpz(OSSL_PARAM *p, const mpz_t z);
/* Big-endian bytes <-> mpz; to_bytes pads to len (0 if z needs more). */
void mns_mpz_from_bytes(mpz_t z, const unsigned char *b, size_t len);
int mns_mpz_to_bytes(unsigned char *b, size_t len, const mpz_t z);
/* The RSA padding mode of a "pad-mode" parameter, integer (RSA_*_PADDING)
 * or name ("none", "pkcs1", "oaep", "pss", "x931"); 0 if neither. */
int mns_param_pad_mode(const OSSL_PARAM *p, int *mode);
/* A digest fetched from the provider's (child) library context, for a
 * signature or cipher context: frees *md and sets it; 0 with an error if
 * the name is unknown. */
int mns_prov_fetch_md(const mns_prov *prov, EVP_MD **md, const char *name, const char *propq);
/* Overwrites z's limbs (a secret) before clearing it. */
void mns_mpz_wipe_clear(mpz_t z);
/* A random mpz in [1, bound) from the child context's RNG; 0 on failure. */
int mns_prov_random_below(const mns_prov *prov, mpz_t r, const mpz_t bound);

/* OSSL_FUNC_PROVIDER_GET_CAPABILITIES (caps.c). */
int mns_prov_get_capabilities(void *provctx, const char *capability, OSSL_CALLBACK *cb, void *arg);

extern const OSSL_DISPATCH mns_rsa_keymgmt_functions[];
extern const OSSL_DISPATCH mns_rsa_pss_keymgmt_functions[];
extern const OSSL_DISPATCH mns_rsa_signature_functions[];
extern const OSSL_DISPATCH mns_rsa_asym_cipher_functions[];
extern const OSSL_DISPATCH mns_dh_keymgmt_functions[];
extern const OSSL_DISPATCH mns_dh_keyexch_functions[];

#endif /* MNS_PROVIDER_H */
