/* An "auto" key signs at once, and becomes as fast as tuning makes it.
 *
 * Why: the fastest backends of a prime need parameters generated for it
 * (PMNS: a lattice search, 65 ms to seconds per prime) and "auto" times the
 * candidates on the key's own primes (choose.c): tens of milliseconds to a
 * minute per key, which a program that loads a key and signs a few times
 * (an OpenSSL provider's one-shot command) would pay in full. So
 * mns_rsa_new makes a starting plan whose channels need no generation
 * (mont-ifma where the CPU has IFMA, else mont: a Montgomery context is a
 * few modular inversions), and a background thread makes the tuned plan
 * ("auto" with choose.c, the creation path of before) from copies of d and
 * the primes. When it is complete it is published with one release store of
 * the key's plan pointer; every call loads that pointer once (acquire) and
 * runs wholly on the plan it found, so a call never mixes plans, and the
 * starting plan is kept until mns_rsa_free for the calls that began on it.
 * Both plans compute the same value (the private operation is a function of
 * the key alone), so the switch is invisible but for the time.
 *
 * mns_rsa_free sets the key's cancel flag, which the generator (through
 * core/deadline.h, in every helper thread of the tuning) and the timing
 * loops of choose.c read, and joins the thread; a plan that was being made
 * is freed there. Nothing here is on the signing path. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/deadline.h"
#include "core/error.h"
#include "rsa/rsa_internal.h"

/* The tuned plan's channel spec. A channel only exponentiates: plain "auto"
 * asks the tuning table's exponentiation rows (docs/auto.md). And it never
 * adds before a product (entry and exit are set_words/get_words; the Horner
 * entry of a backend without them checks the field's delta), so it asks
 * delta=0: a PMNS set then has two more bits of phi. */
#define RSA_TUNED_SPEC "auto:op=exp,delta=0"

/* Primes of at most this many bits stay on the starting plan: they fit two
 * 64-bit words, where mont's product is a handful of instructions and no
 * PMNS or RNS set can be smaller, and "auto" would only try (and see
 * refuse) backends that cannot serve them. */
#define RSA_TUNE_MIN_BITS 128

mns_status mns_rsa_start_channels(mns_rsa *key, const mpz_t d, const mpz_t *primes)
{
    const int k = key->k;
    const char *first = mns_cpu_has_ifma() ? "mont-ifma" : "mont";
    mns_status st = MNS_OK;
    for (int i = 0; i < k && st == MNS_OK; i++) {
        st = mns_rsa_channel_make(&key->ch[i], d, primes, i, first);
        if (st != MNS_OK && first[4]) { /* mont-ifma refused this prime: mont serves any */
            mns_rsa_channel_clear(&key->ch[i]);
            mns_error_clear();
            st = mns_rsa_channel_make(&key->ch[i], d, primes, i, "mont");
        }
    }
    return st;
}

static void wipe_mpz(mpz_t a)
{
    if (mpz_size(a))
        explicit_bzero(mpz_limbs_modify(a, (mp_size_t)mpz_size(a)), mpz_size(a) * sizeof(mp_limb_t));
    mpz_clear(a);
}

/* Makes the tuned plan and publishes it, unless the key is being freed. */
static void tune_run(mns_rsa *key)
{
    mns_deadline_set_cancel(&key->cancel);
    mns_rsa *t = calloc(1, sizeof *t);
    mns_status st = MNS_ENOMEM;
    if (t)
        st = mns_rsa_plan_make(t, key->n, key->e, key->td, (const mpz_t *)key->tp, key->k,
                               RSA_TUNED_SPEC, MNS_RSA_PLAN_TUNED);
    mns_deadline_set_cancel(NULL);
    wipe_mpz(key->td);
    for (int i = 0; i < key->k; i++)
        wipe_mpz(key->tp[i]);
    if (st == MNS_OK && !__atomic_load_n(&key->cancel, __ATOMIC_RELAXED)) {
        t->pool = key->pool;
        key->tuned = t;
        __atomic_store_n(&key->cur, t, __ATOMIC_RELEASE);
    } else if (t) {
        mns_rsa_plan_free(t);
    }
    mns_error_clear(); /* a failed tuning leaves the starting plan: no error */
}

static void *tune_main(void *arg)
{
    tune_run(arg);
    return NULL;
}

static int tune_can_win(const mns_rsa *key)
{
    for (int i = 0; i < key->k; i++)
        if (key->ch[i].bits > RSA_TUNE_MIN_BITS)
            return 1;
    return 0;
}

void mns_rsa_tune_start_(mns_rsa *key, const mpz_t d, const mpz_t *primes)
{
    if (key->kind != MNS_RSA_PLAN_START || !tune_can_win(key))
        return;
    mpz_init_set(key->td, d);
    for (int i = 0; i < key->k; i++)
        mpz_init_set(key->tp[i], primes[i]);
    if (pthread_create(&key->tuner, NULL, tune_main, key) == 0)
        key->tuning = 1;
    else
        tune_run(key); /* no thread to be had: tuned now, as before */
}

static void tune_join(mns_rsa *key)
{
    pthread_mutex_lock(&key->tune_lock);
    if (key->tuning) {
        pthread_join(key->tuner, NULL);
        key->tuning = 0;
    }
    pthread_mutex_unlock(&key->tune_lock);
}

void mns_rsa_tune_stop_(mns_rsa *key)
{
    __atomic_store_n(&key->cancel, 1, __ATOMIC_RELAXED);
    tune_join(key);
}

void mns_rsa_wait(const mns_rsa *key)
{
    if (key)
        tune_join((mns_rsa *)key); /* the join is the key's synchronised state */
}

int mns_rsa_tuned(const mns_rsa *key)
{
    return key && mns_rsa_now(key)->kind == MNS_RSA_PLAN_TUNED;
}
