/* The RSA key object and the choice between its quick CRT and its full
 * mns_rsa context (rsa_key.h says why there are two). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/crypto.h>

#include "provider/rsa_key.h"

mns_prov_rsa *mns_prov_rsa_new(mns_prov *prov)
{
    mns_prov_rsa *key = calloc(1, sizeof *key);
    if (!key)
        return NULL;
    key->prov = prov;
    atomic_init(&key->refs, 1);
    mpz_inits(key->n, key->e, key->d, NULL);
    for (int i = 0; i < MNS_RSA_MAX_PRIMES; i++)
        mpz_inits(key->p[i], key->dp[i], key->coef[i], NULL);
    pthread_mutex_init(&key->lock, NULL);
    atomic_init(&key->full, NULL);
    return key;
}

mns_prov_rsa *mns_prov_rsa_dup(const mns_prov_rsa *src, int selection)
{
    mns_prov_rsa *key = mns_prov_rsa_new(src->prov);
    if (!key)
        return NULL;
    key->pss = src->pss;
    key->pss_params = src->pss_params;
    if (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) {
        mpz_set(key->n, src->n);
        mpz_set(key->e, src->e);
    }
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && src->k > 0) {
        key->k = src->k;
        key->has_d = src->has_d;
        mpz_set(key->d, src->d);
        for (int i = 0; i < src->k; i++) {
            mpz_set(key->p[i], src->p[i]);
            mpz_set(key->dp[i], src->dp[i]);
            mpz_set(key->coef[i], src->coef[i]);
        }
    }
    return key;
}

void mns_prov_rsa_up_ref(mns_prov_rsa *key) { atomic_fetch_add(&key->refs, 1); }

static void destroy(mns_prov_rsa *key)
{
    mns_rsa_free(atomic_load(&key->full));
    mns_prov_crt_free(atomic_load(&key->quick));
    mpz_clears(key->n, key->e, NULL);
    mns_mpz_wipe_clear(key->d);
    for (int i = 0; i < MNS_RSA_MAX_PRIMES; i++) {
        mns_mpz_wipe_clear(key->p[i]);
        mns_mpz_wipe_clear(key->dp[i]);
        mns_mpz_wipe_clear(key->coef[i]);
    }
    pthread_mutex_destroy(&key->lock);
    free(key);
}

/* A running upgrade can take seconds (parameter generation): the last
 * reference leaves the key to it, and the thread frees the key when it is
 * done, so that neither this call nor the program's exit waits. */
void mns_prov_rsa_free(mns_prov_rsa *key)
{
    if (!key || atomic_fetch_sub(&key->refs, 1) != 1)
        return;
    pthread_mutex_lock(&key->lock);
    const int running = atomic_load(&key->upgrading) && !key->up_done;
    const pthread_t th = key->upgrader;
    key->orphan = running;
    pthread_mutex_unlock(&key->lock);
    if (running) {
        pthread_detach(th);
        return;
    }
    if (atomic_load(&key->upgrading))
        pthread_join(th, NULL);
    destroy(key);
}

size_t mns_prov_rsa_bytes(const mns_prov_rsa *key) { return (mpz_sizeinbase(key->n, 2) + 7) / 8; }

static int check_key(const mns_prov_rsa *key)
{
    mpz_t prod, l, t;
    mpz_inits(prod, l, t, NULL);
    mpz_set_ui(prod, 1);
    mpz_set_ui(l, 1);
    int ok = 1;
    for (int i = 0; i < key->k; i++) {
        ok &= mpz_cmp_ui(key->p[i], 3) >= 0 && mpz_odd_p(key->p[i]);
        mpz_mul(prod, prod, key->p[i]);
        mpz_sub_ui(t, key->p[i], 1);
        mpz_lcm(l, l, t);
    }
    if (!ok || mpz_cmp(prod, key->n) != 0) {
        MNS_PROV_ERR(key->prov, MNS_R_BAD_KEY, "RSA key: the product of the %d primes is not n",
                     key->k);
        ok = 0;
    } else {
        mpz_mul(t, key->e, key->d);
        mpz_mod(t, t, l);
        if (mpz_cmp_ui(t, 1) != 0) {
            MNS_PROV_ERR(key->prov, MNS_R_BAD_KEY, "RSA key: e d != 1 mod lcm(p_i - 1)");
            ok = 0;
        }
    }
    mpz_clears(prod, l, t, NULL);
    return ok;
}

int mns_prov_rsa_check(const mns_prov_rsa *key)
{
    return key->k == 0 || (key->has_d && key->k >= 2 && check_key(key));
}

int mns_prov_rsa_complete(mns_prov_rsa *key)
{
    if (mpz_cmp_ui(key->n, 3) < 0 || mpz_even_p(key->n) || mpz_cmp_ui(key->e, 3) < 0 ||
        mpz_even_p(key->e) || mpz_cmp(key->e, key->n) >= 0) {
        MNS_PROV_ERR(key->prov, MNS_R_BAD_KEY, "RSA key: n must be odd, e odd in [3, n)");
        return 0;
    }
    if (key->k == 0)
        return 1;
    if (!key->has_d || key->k < 2 || key->k > MNS_RSA_MAX_PRIMES) {
        MNS_PROV_ERR(key->prov, MNS_R_BAD_KEY, "RSA key: a private key needs d and 2..%d primes",
                     MNS_RSA_MAX_PRIMES);
        return 0;
    }
    if (!check_key(key))
        return 0;
    mpz_t m, t;
    mpz_inits(m, t, NULL);
    mpz_set(m, key->p[0]);
    for (int i = 0; i < key->k; i++) {
        mpz_sub_ui(t, key->p[i], 1);
        mpz_mod(key->dp[i], key->d, t);
        if (i == 0)
            continue;
        /* OpenSSL's coefficient i: (p_1 ... p_i)^-1 mod p_(i+1), q^-1 mod p for i = 1 */
        if (i == 1)
            mpz_invert(key->coef[1], key->p[1], key->p[0]);
        else
            mpz_invert(key->coef[i], m, key->p[i]);
        mpz_mul(m, m, key->p[i]);
    }
    mpz_clears(m, t, NULL);
    return 1;
}

static void make_full(mns_prov_rsa *key)
{
    mns_rsa *r = NULL;
    if (mns_rsa_new(&r, key->n, key->e, key->d, (const mpz_t *)key->p, key->k, "auto") != MNS_OK)
        return;
    /* the module encodes PKCS#1 v1.5 itself (rsa_sig.c refuses it for an
     * RSA-PSS key); the context carries the restriction all the same */
    if (key->pss && mns_rsa_restrict(r, MNS_RSA_PSS_ONLY) != MNS_OK) {
        mns_rsa_free(r);
        return;
    }
    atomic_store(&key->full, r);
}

static void *upgrade_thread(void *arg)
{
    mns_prov_rsa *key = arg;
    make_full(key);
    pthread_mutex_lock(&key->lock);
    key->up_done = 1;
    const int orphan = key->orphan;
    pthread_mutex_unlock(&key->lock);
    if (orphan)
        destroy(key);
    return NULL;
}

static long upgrade_after(void)
{
    static atomic_long cached = LONG_MIN;
    long v = atomic_load(&cached);
    if (v == LONG_MIN) {
        const char *s = getenv("MNS_PROVIDER_RSA_UPGRADE");
        v = s && *s ? strtol(s, NULL, 10) : MNS_PROV_RSA_UPGRADE_AFTER;
        atomic_store(&cached, v);
    }
    return v;
}

/* The quick CRT on first use, the full key's thread after `after` uses;
 * with after == 0 the full key is made here, before the first operation. */
static int prepare(mns_prov_rsa *key, unsigned long uses)
{
    const long after = upgrade_after();
    int ok = 1;
    pthread_mutex_lock(&key->lock);
    if (after == 0 && !atomic_load(&key->full)) {
        make_full(key);
    } else if (after > 0 && uses >= (unsigned long)after && !atomic_load(&key->upgrading)) {
        atomic_store(&key->upgrading, pthread_create(&key->upgrader, NULL, upgrade_thread, key) == 0);
    }
    if (!atomic_load(&key->full) && !atomic_load(&key->quick)) {
        mns_prov_crt *q = NULL;
        ok = mns_prov_crt_new(&q, key->prov, key->n, key->e, key->d, (const mpz_t *)key->p, key->k);
        atomic_store(&key->quick, q);
    }
    pthread_mutex_unlock(&key->lock);
    return ok;
}

int mns_prov_rsa_private(mns_prov_rsa *key, mpz_t out, const mpz_t in)
{
    if (key->k == 0) {
        MNS_PROV_ERR(key->prov, MNS_R_MISSING_KEY, "RSA: not a private key");
        return 0;
    }
    if (mpz_sgn(in) < 0 || mpz_cmp(in, key->n) >= 0) {
        MNS_PROV_ERR(key->prov, MNS_R_VALUE_TOO_LARGE, "RSA: input not below the modulus");
        return 0;
    }
    unsigned long uses = atomic_fetch_add(&key->uses, 1);
    mns_rsa *full = atomic_load(&key->full);
    const long after = upgrade_after();
    if (!full && (!atomic_load(&key->quick) ||
                  (after > 0 && uses >= (unsigned long)after && !atomic_load(&key->upgrading)))) {
        if (!prepare(key, uses))
            return 0;
        full = atomic_load(&key->full);
    }
    int ok;
    if (full) {
        mns_status st = mns_rsa_private(full, out, in, 1);
        ok = st == MNS_OK;
        if (!ok)
            MNS_PROV_ERR(key->prov, st == MNS_ERANGE ? MNS_R_FAULT : MNS_R_INTERNAL, "RSA: %s",
                         mns_last_error());
    } else {
        ok = mns_prov_crt_private(atomic_load(&key->quick), key->prov, out, in);
    }
    if (ok)
        atomic_fetch_add(&mns_prov_rsa_ops, 1);
    return ok;
}

int mns_prov_rsa_public(const mns_prov_rsa *key, mpz_t out, const mpz_t in)
{
    if (mpz_sgn(in) < 0 || mpz_cmp(in, key->n) >= 0) {
        MNS_PROV_ERR(key->prov, MNS_R_VALUE_TOO_LARGE, "RSA: input not below the modulus");
        return 0;
    }
    mpz_powm(out, in, key->e, key->n);
    return 1;
}

const char *mns_prov_rsa_backend(mns_prov_rsa *key)
{
    mns_rsa *full = atomic_load(&key->full);
    if (full)
        return mns_rsa_describe(full);
    if (key->k == 0)
        return "public key (no private operation)";
    if (!atomic_load(&key->quick) && !prepare(key, 0))
        return "unavailable";
    full = atomic_load(&key->full);
    return full ? mns_rsa_describe(full) : mns_prov_crt_describe(atomic_load(&key->quick));
}
