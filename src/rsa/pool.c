/* Threads for the channels: a small pool owned by a key, and fresh threads
 * per call as the fallback (and as the benchmark's comparison).
 *
 * Why not the library's pool (core/pool.c, the mpart backends'): that one
 * runs one share on each of its T workers per call and keeps them spinning
 * about a millisecond after it, which suits a chain of products on one
 * context. A key's calls differ on three counts: each call asks its own
 * number of threads (1..k, per call), and waking all k - 1 workers when a
 * call wants one took the cores from the working ones (below); a signature
 * is followed by idle time, where a millisecond of spin per worker would
 * burn a core per worker after every call (here 20 us); and calls from
 * several threads on one key must not wait for each other, so a busy pool
 * is reported (trylock) and the caller spawns threads, where core/pool.c
 * asks its caller to serialise. Making core/pool.c wake a subset and report
 * busy would make it this file; the two stay apart until then.
 *
 * Jobs are handed out by an atomic counter, so a thread that finishes its
 * job takes the next; which thread runs which job does not matter, since
 * every job writes only its own outputs. The caller is one of the threads.
 *
 * Only the workers a call needs are woken: each has its own generation
 * counter and condition variable (with one shared generation all k - 1
 * workers woke, and spun, on every call; on 2 cores the idle ones took the
 * cores from the working ones: a 4-prime key on 2 threads ran slower than
 * on 1 in one loaded run).
 *
 * Waiting: spin briefly, then sleep. A worker that finished a call watches
 * its generation for MNS_RSA_SPIN_NS before it sleeps, and the caller
 * watches the finished count as long before it sleeps, so that back-to-back
 * calls do not pay a sleeping thread's wake-up (two threads gave only 1.28x
 * one at RSA-2048 on the quiet machine with sleeping workers; docs/rsa.md
 * has what the spin was measured to cost under load). The spinning is
 * bounded, so an idle key costs no CPU after that.
 *
 * Synchronisation: `lock` serialises callers (trylock: a busy pool is
 * reported, the caller then spawns threads of its own). job, arg and jobs
 * are written before a worker's generation is published and read after the
 * worker sees it (sequentially consistent atomics: release and acquire); a
 * worker's writes happen-before its increment of `finished`, which the
 * caller reads. Sleeping on either side uses Dekker's pattern: the sleeper
 * announces itself (sleeping / waiting) then re-checks the condition under
 * `m`; the waker publishes the condition then checks for a sleeper and
 * signals under `m`, so no wake-up is lost. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/error.h"
#include "rsa/rsa_internal.h"

#ifndef MNS_RSA_SPIN_NS
#define MNS_RSA_SPIN_NS 20000 /* 20 us */
#endif

struct mns_rsa_pool {
    pthread_mutex_t lock; /* one call at a time */
    pthread_mutex_t m;
    pthread_cond_t done;
    atomic_int quit;
    atomic_int waiting;  /* the caller asleep (or about to be) on done */
    int workers, started;
    atomic_int finished;
    mns_rsa_job job;
    void *arg;
    int jobs;
    atomic_int next;
    pthread_t th[MNS_RSA_MAX_PRIMES];
    struct worker_arg {
        mns_rsa_pool *pool;
        atomic_ulong gen;   /* bumped by a call that needs this worker */
        atomic_int sleeping;
        pthread_cond_t go;
    } wa[MNS_RSA_MAX_PRIMES];
};

static void drain(mns_rsa_job job, void *arg, int jobs, atomic_int *next)
{
    int i;
    while ((i = atomic_fetch_add_explicit(next, 1, memory_order_relaxed)) < jobs)
        job(arg, i);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Spins until done(p, v) or MNS_RSA_SPIN_NS have passed; returns done(p, v). */
static int spin(int (*done)(void *, unsigned long), void *p, unsigned long v)
{
    double start = 0;
    for (unsigned it = 0;; it++) {
        if (done(p, v))
            return 1;
        if ((it & 63) == 0) { /* the clock every 64 rounds: it costs a little */
            double t = mns_now_ns();
            if (it == 0)
                start = t;
            else if (t - start > MNS_RSA_SPIN_NS)
                return done(p, v);
        }
        cpu_relax();
    }
}

static int new_gen(void *q, unsigned long seen)
{
    struct worker_arg *wa = q;
    return atomic_load(&wa->gen) != seen || atomic_load(&wa->pool->quit);
}

static int all_finished(void *q, unsigned long active)
{
    mns_rsa_pool *p = q;
    return (unsigned long)atomic_load(&p->finished) >= active;
}

static void *worker(void *q)
{
    struct worker_arg *wa = q;
    mns_rsa_pool *pool = wa->pool;
    unsigned long seen = 0;
    for (;;) {
        if (!spin(new_gen, wa, seen)) {
            pthread_mutex_lock(&pool->m);
            atomic_store(&wa->sleeping, 1);
            while (!new_gen(wa, seen))
                pthread_cond_wait(&wa->go, &pool->m);
            atomic_store(&wa->sleeping, 0);
            pthread_mutex_unlock(&pool->m);
        }
        if (atomic_load(&pool->quit))
            break;
        seen = atomic_load(&wa->gen);
        drain(pool->job, pool->arg, pool->jobs, &pool->next);
        atomic_fetch_add(&pool->finished, 1);
        if (atomic_load(&pool->waiting)) {
            pthread_mutex_lock(&pool->m);
            pthread_cond_signal(&pool->done);
            pthread_mutex_unlock(&pool->m);
        }
    }
    return NULL;
}

mns_status mns_rsa_pool_new(mns_rsa_pool **out, int workers)
{
    *out = NULL;
    if (workers < 1 || workers > MNS_RSA_MAX_PRIMES)
        return mns_error(MNS_EINVAL, "rsa pool: %d workers", workers);
    mns_rsa_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return mns_error(MNS_ENOMEM, "rsa pool: out of memory");
    pthread_mutex_init(&pool->lock, NULL);
    pthread_mutex_init(&pool->m, NULL);
    pthread_cond_init(&pool->done, NULL);
    atomic_init(&pool->quit, 0);
    atomic_init(&pool->waiting, 0);
    atomic_init(&pool->finished, 0);
    atomic_init(&pool->next, 0);
    pool->workers = workers;
    for (int i = 0; i < workers; i++) {
        pool->wa[i].pool = pool;
        atomic_init(&pool->wa[i].gen, 0);
        atomic_init(&pool->wa[i].sleeping, 0);
        pthread_cond_init(&pool->wa[i].go, NULL);
    }
    for (int i = 0; i < workers; i++) {
        if (pthread_create(&pool->th[i], NULL, worker, &pool->wa[i]) != 0) {
            mns_rsa_pool_free(pool);
            return mns_error(MNS_ENOMEM, "rsa pool: cannot start thread %d of %d", i + 1, workers);
        }
        pool->started = i + 1;
    }
    *out = pool;
    return MNS_OK;
}

void mns_rsa_pool_free(mns_rsa_pool *pool)
{
    if (!pool)
        return;
    atomic_store(&pool->quit, 1);
    pthread_mutex_lock(&pool->m);
    for (int i = 0; i < pool->workers; i++)
        pthread_cond_signal(&pool->wa[i].go);
    pthread_mutex_unlock(&pool->m);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->th[i], NULL);
    for (int i = 0; i < pool->workers; i++)
        pthread_cond_destroy(&pool->wa[i].go);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->m);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

mns_status mns_rsa_pool_run(mns_rsa_pool *pool, int threads, mns_rsa_job job, void *arg, int jobs)
{
    if (pthread_mutex_trylock(&pool->lock) != 0)
        return MNS_EINVAL;
    int helpers = threads - 1;
    if (helpers > pool->workers)
        helpers = pool->workers;
    pool->job = job;
    pool->arg = arg;
    pool->jobs = jobs;
    atomic_store(&pool->finished, 0);
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    for (int i = 0; i < helpers; i++) {
        struct worker_arg *wa = &pool->wa[i];
        atomic_fetch_add(&wa->gen, 1); /* publishes the call to this worker */
        if (atomic_load(&wa->sleeping)) {
            pthread_mutex_lock(&pool->m);
            pthread_cond_signal(&wa->go);
            pthread_mutex_unlock(&pool->m);
        }
    }

    drain(job, arg, jobs, &pool->next);

    if (!spin(all_finished, pool, (unsigned long)helpers)) {
        pthread_mutex_lock(&pool->m);
        atomic_store(&pool->waiting, 1);
        while (!all_finished(pool, (unsigned long)helpers))
            pthread_cond_wait(&pool->done, &pool->m);
        atomic_store(&pool->waiting, 0);
        pthread_mutex_unlock(&pool->m);
    }
    pthread_mutex_unlock(&pool->lock);
    return MNS_OK;
}

typedef struct spawn_arg {
    mns_rsa_job job;
    void *arg;
    int jobs;
    atomic_int *next;
} spawn_arg;

static void *spawned(void *p)
{
    spawn_arg *s = p;
    drain(s->job, s->arg, s->jobs, s->next);
    return NULL;
}

mns_status mns_rsa_spawn_run(int threads, mns_rsa_job job, void *arg, int jobs)
{
    pthread_t th[MNS_RSA_MAX_PRIMES];
    atomic_int next;
    atomic_init(&next, 0);
    spawn_arg sa = {job, arg, jobs, &next};
    int started = 0;
    if (threads > MNS_RSA_MAX_PRIMES)
        threads = MNS_RSA_MAX_PRIMES;
    for (int i = 0; i < threads - 1; i++) {
        if (pthread_create(&th[i], NULL, spawned, &sa) != 0)
            break; /* the threads we have (the caller at least) do the work */
        started++;
    }
    drain(job, arg, jobs, &next);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return MNS_OK;
}
