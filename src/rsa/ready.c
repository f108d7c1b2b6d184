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
 * ("auto" with choose.c) from copies of d and the primes. It is created
 * with the key but starts working only when the key's first call has its
 * result (or at mns_rsa_wait): working from mns_rsa_new on, it took the CPU
 * from the first signature (RSA-1024 on the busy Zen 3: 0.3-21 ms instead
 * of 0.3 ms), and a program that signs once and exits never pays for it.
 * When it is complete it is published with one release store of
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
#define _GNU_SOURCE /* syscall */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

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

static void wipe_copies(mns_rsa *key)
{
    wipe_mpz(key->td);
    for (int i = 0; i < key->k; i++)
        wipe_mpz(key->tp[i]);
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
    if (st == MNS_OK && !__atomic_load_n(&key->cancel, __ATOMIC_RELAXED)) {
        t->pool = key->pool;
        key->tuned = t;
        __atomic_store_n(&key->cur, t, __ATOMIC_RELEASE);
    } else if (t) {
        mns_rsa_plan_free(t);
    }
    mns_error_clear(); /* a failed tuning leaves the starting plan: no error */
}

/* The tuner yields to the key's calls: before anything else its nice
 * value is raised by RSA_TUNE_NICE (Linux keeps one per thread, and the
 * generator's helper threads inherit it), then it sleeps until the key's
 * first call (or mns_rsa_wait, or mns_rsa_free) wakes it. A thread started
 * at that first call, at the default priority, took the core from the call
 * (RSA-2048 on the busy Zen 3: 21-31 ms in pthread_create's return instead
 * of 0.2-0.5 ms); woken at nice 10 it does not preempt it. On an idle CPU
 * the tuner runs at full speed all the same; beside calls that keep every
 * CPU busy it gets about a tenth of one. */
#define RSA_TUNE_NICE 10

static void *tune_main(void *arg)
{
    mns_rsa *key = arg;
    const id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (errno == 0)
        (void)setpriority(PRIO_PROCESS, tid, nice + RSA_TUNE_NICE);
    pthread_mutex_lock(&key->tune_lock);
    while (key->tune_state == MNS_RSA_TUNE_ARMED)
        pthread_cond_wait(&key->tune_cv, &key->tune_lock);
    pthread_mutex_unlock(&key->tune_lock);
    if (!__atomic_load_n(&key->cancel, __ATOMIC_RELAXED))
        tune_run(key);
    wipe_copies(key); /* the tuner's copies of d and the primes */
    return NULL;
}

static int tune_can_win(const mns_rsa *key)
{
    for (int i = 0; i < key->k; i++)
        if (key->ch[i].bits > RSA_TUNE_MIN_BITS)
            return 1;
    return 0;
}

void mns_rsa_tune_arm_(mns_rsa *key, const mpz_t d, const mpz_t *primes)
{
    if (key->kind != MNS_RSA_PLAN_START || !tune_can_win(key))
        return;
    mpz_init_set(key->td, d);
    for (int i = 0; i < key->k; i++)
        mpz_init_set(key->tp[i], primes[i]);
    key->tune_state = MNS_RSA_TUNE_ARMED;
    if (pthread_create(&key->tuner, NULL, tune_main, key) == 0) {
        key->tuning = 1;
    } else { /* no thread to be had: the key stays on its starting plan */
        key->tune_state = MNS_RSA_TUNE_NONE;
        wipe_copies(key);
    }
}

/* Wakes an armed tuner (the state under tune_lock: the tuner re-reads it). */
static void wake(mns_rsa *key)
{
    pthread_mutex_lock(&key->tune_lock);
    if (key->tune_state == MNS_RSA_TUNE_ARMED) {
        __atomic_store_n(&key->tune_state, MNS_RSA_TUNE_STARTED, __ATOMIC_RELEASE);
        pthread_cond_signal(&key->tune_cv);
    }
    pthread_mutex_unlock(&key->tune_lock);
}

void mns_rsa_tune_start_(mns_rsa *key, const mpz_t d, const mpz_t *primes)
{
    mns_rsa_tune_arm_(key, d, primes);
    wake(key);
}

void mns_rsa_tune_kick_(const mns_rsa *key)
{
    if (__atomic_load_n(&key->tune_state, __ATOMIC_ACQUIRE) == MNS_RSA_TUNE_ARMED)
        wake((mns_rsa *)key); /* the tuning's state is synchronised there */
}

/* Wakes the tuner and joins it (once: join_lock serialises the joiners). */
static void tune_join(mns_rsa *key)
{
    wake(key);
    pthread_mutex_lock(&key->join_lock);
    if (key->tuning) {
        pthread_join(key->tuner, NULL);
        key->tuning = 0;
    }
    pthread_mutex_unlock(&key->join_lock);
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
