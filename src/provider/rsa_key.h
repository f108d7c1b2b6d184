/* The provider's RSA key object: n, e and, for a private key, d and its
 * 2..8 primes with OpenSSL's CRT exponents and coefficients (what the key
 * manager imports and exports). The private operation is built on first
 * use and shared by every operation and thread that holds the key:
 *   - first the quick CRT of rsa_crt.h (mns_field "mont" channels, made in
 *     microseconds), so a short-lived program pays no parameter generation;
 *   - after MNS_PROV_RSA_UPGRADE_AFTER private operations, a thread makes
 *     the full mns_rsa key (spec "auto": parameter generation, pairs,
 *     pools) and, once it is ready, every later operation runs on it.
 * The environment variable MNS_PROVIDER_RSA_UPGRADE sets that count
 * (0: the full key at once, before the first operation; -1: never). */
#ifndef MNS_PROVIDER_RSA_KEY_H
#define MNS_PROVIDER_RSA_KEY_H

#include <pthread.h>
#include <stdatomic.h>
#include <gmp.h>
#include "mns_rsa.h"
#include "provider/provider.h"
#include "provider/rsa_crt.h"

#define MNS_PROV_RSA_UPGRADE_AFTER 8

/* The parameters of an RSASSA-PSS key (RFC 4055 RSASSA-PSS-params, the
 * RSA-PSS key type): a key without them signs with any PSS parameters;
 * with them, only with its digest and MGF1 digest and a salt of at least
 * saltlen bytes. Either way it refuses PKCS#1 v1.5 and encryption. */
typedef struct mns_prov_pss_params {
    int restricted;
    char md[50], mgf1[50]; /* digest names as OpenSSL gives them */
    int saltlen;           /* the minimum */
} mns_prov_pss_params;

typedef struct mns_prov_rsa {
    mns_prov *prov;
    atomic_int refs;
    int k; /* primes; 0 for a public key */
    int has_d;
    mpz_t n, e, d;
    mpz_t p[MNS_RSA_MAX_PRIMES], dp[MNS_RSA_MAX_PRIMES], coef[MNS_RSA_MAX_PRIMES];
    pthread_mutex_t lock;
    _Atomic(mns_prov_crt *) quick;
    _Atomic(mns_rsa *) full;
    atomic_int upgrading; /* the thread below was started */
    pthread_t upgrader;
    int up_done, orphan; /* under lock: the thread ended; the key was freed before */
    atomic_ulong uses;
    int pss; /* an RSA-PSS key */
    mns_prov_pss_params pss_params;
} mns_prov_rsa;

mns_prov_rsa *mns_prov_rsa_new(mns_prov *prov);
/* A new key with the values of src that selection names (the key
 * manager's dup); its private operation is made again on first use. */
mns_prov_rsa *mns_prov_rsa_dup(const mns_prov_rsa *src, int selection);
void mns_prov_rsa_up_ref(mns_prov_rsa *key);
void mns_prov_rsa_free(mns_prov_rsa *key);
/* The key manager's import (rsa_kmgmt.c): n, e and, with the private
 * selection, d and the primes; then mns_prov_rsa_complete. */
int mns_prov_rsa_import(mns_prov_rsa *key, int selection, const OSSL_PARAM params[]);
/* Generation by another provider of the caller's context (rsa_gen.c), of
 * an RSA or an RSA-PSS key. */
void *mns_rsa_gen_init(void *provctx, int selection, const OSSL_PARAM params[]);
void *mns_rsa_pss_gen_init(void *provctx, int selection, const OSSL_PARAM params[]);
int mns_rsa_gen_set_params(void *genctx, const OSSL_PARAM params[]);
const OSSL_PARAM *mns_rsa_gen_settable_params(void *genctx, void *provctx);
void *mns_rsa_gen(void *genctx, OSSL_CALLBACK *cb, void *cbarg);
void mns_rsa_gen_cleanup(void *genctx);
/* After import: n, e (and d, primes) set; fills the missing CRT values and
 * checks the key (product of the primes is n, e d = 1 mod lcm(p_i - 1));
 * 0 with the reason raised. */
int mns_prov_rsa_complete(mns_prov_rsa *key);
/* The checks of mns_prov_rsa_complete alone (key manager's validate):
 * nothing is written, so it may run while other threads use the key. */
int mns_prov_rsa_check(const mns_prov_rsa *key);
size_t mns_prov_rsa_bytes(const mns_prov_rsa *key);
/* out <- in^d mod n; 0 <= in < n else an error. 0 on failure. */
int mns_prov_rsa_private(mns_prov_rsa *key, mpz_t out, const mpz_t in);
/* out <- in^e mod n (public data, variable time). 0 on failure. */
int mns_prov_rsa_public(const mns_prov_rsa *key, mpz_t out, const mpz_t in);
/* Which engine serves the key now (describe text of mns_rsa, or of the
 * quick CRT, or "public key"). */
const char *mns_prov_rsa_backend(mns_prov_rsa *key);

#endif /* MNS_PROVIDER_RSA_KEY_H */
