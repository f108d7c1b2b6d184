/* An "auto" key signs at once, and becomes as fast as tuning makes it.
 *
 * Why: the fastest backends of a prime need parameters generated for it
 * (PMNS: a lattice search, 65 ms to seconds per prime), which a program
 * that loads a key and signs a few times (an OpenSSL provider's one-shot
 * command) would pay in full. So mns_rsa_new makes a starting plan whose
 * channels need no generation (mont-ifma where the CPU has IFMA, else
 * mont: a Montgomery context is a few modular inversions), and a
 * background thread makes the tuned plan from copies of d and the primes:
 * every channel on the tuning table's choice (RSA_TUNED_SPEC), guarded and
 * paired by choose.c. It is created with the key but starts working only
 * once the key's first call has returned (or at mns_rsa_wait): working
 * from mns_rsa_new on, it took the CPU from the first signature (RSA-1024
 * on the busy Zen 3: 0.3-21 ms instead of 0.3 ms), and a program that
 * signs once and exits never pays for it. When it is complete it is
 * published with one release store of the key's plan pointer; every call
 * loads that pointer once (acquire) and runs wholly on the plan it found,
 * so a call never mixes plans, and the starting plan is kept until
 * mns_rsa_free for the calls that began on it. Both plans compute the same
 * value (the private operation is a function of the key alone), so the
 * switch is invisible but for the time.
 *
 * mns_rsa_free sets the key's cancel flag, which the generator (through
 * core/deadline.h, in every helper thread of the tuning) and the guard's
 * timing in choose.c read, and joins the thread; a plan that was being
 * made is freed there. Nothing here is on the signing path but the store
 * of mns_rsa_tune_kick_. */
#define _GNU_SOURCE /* syscall */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
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

const char *mns_rsa_start_backend(void) { return mns_cpu_has_ifma() ? "mont-ifma" : "mont"; }

/* mont-ifma serves primes up to 4158 bits. Above, rns-ifma needs no
 * generation either (its bases are taken, not searched: 5.8 ms for an
 * 8192-bit prime) and exponentiates 3x faster than mont, which keeps GMP's
 * mpn products there (by an 8192-bit prime's p - 1, AMD Zen 5: 33 ms
 * against GMP's mpz_powm 104 ms). mont serves any odd prime. */
mns_status mns_rsa_start_channel(mns_rsa_channel *c, const mpz_t d, const mpz_t *primes, int pi)
{
    static const char *const ifma[] = {"mont-ifma", "rns-ifma", "mont"}, *const plain[] = {"mont"};
    const int has = mns_cpu_has_ifma();
    const char *const *list = has ? ifma : plain;
    const int m = has ? 3 : 1;
    mns_status st = MNS_ENOTSUP;
    for (int i = 0; i < m; i++) {
        st = mns_rsa_channel_make(c, d, primes, pi, list[i]);
        if (st == MNS_OK || st == MNS_ENOMEM || i + 1 == m)
            break;
        mns_rsa_channel_clear(c); /* this backend refused the prime: the next */
        mns_error_clear();
    }
    return st;
}

mns_status mns_rsa_start_channels(mns_rsa *key, const mpz_t d, const mpz_t *primes)
{
    mns_status st = MNS_OK;
    for (int i = 0; i < key->k && st == MNS_OK; i++)
        st = mns_rsa_start_channel(&key->ch[i], d, primes, i);
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
 * first call has returned (or mns_rsa_wait, or mns_rsa_free, wakes it). A
 * thread started at that first call, at the default priority, took the
 * core from the call (RSA-2048 on the busy Zen 3: 21-31 ms in
 * pthread_create's return instead of 0.2-0.5 ms); so did a tuner woken by
 * the call itself (the futex wake of a thread that slept long lets it
 * preempt the waker: 10-35 ms more in the first call's return under load).
 * So the call only sets key->called, and the tuner looks at it on its own
 * timer, every RSA_TUNE_POLL_MIN_MS at first, backing off to
 * RSA_TUNE_POLL_MAX_MS (an idle key costs a few wake-ups a second). On an
 * idle CPU the tuner then runs at full speed; beside calls that keep every
 * CPU busy it gets about a tenth of one. */
#define RSA_TUNE_NICE 10
#define RSA_TUNE_POLL_MIN_MS 2
#define RSA_TUNE_POLL_MAX_MS 256

static void wait_first_call(mns_rsa *key)
{
    long ms = RSA_TUNE_POLL_MIN_MS;
    pthread_mutex_lock(&key->tune_lock);
    while (key->tune_state == MNS_RSA_TUNE_ARMED &&
           !__atomic_load_n(&key->called, __ATOMIC_ACQUIRE)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        (void)pthread_cond_timedwait(&key->tune_cv, &key->tune_lock, &ts);
        if (ms < RSA_TUNE_POLL_MAX_MS)
            ms *= 2;
    }
    __atomic_store_n(&key->tune_state, MNS_RSA_TUNE_STARTED, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&key->tune_lock);
}

static void *tune_main(void *arg)
{
    mns_rsa *key = arg;
    const id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (errno == 0)
        (void)setpriority(PRIO_PROCESS, tid, nice + RSA_TUNE_NICE);
    wait_first_call(key);
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
    if (!__atomic_load_n(&key->called, __ATOMIC_RELAXED))
        __atomic_store_n(&((mns_rsa *)key)->called, 1, __ATOMIC_RELEASE); /* the tuner's cue */
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
