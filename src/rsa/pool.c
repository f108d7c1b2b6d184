/* Threads for the channels: a small pool owned by a key, and fresh threads
 * per call as the fallback (and as the benchmark's comparison).
 *
 * Jobs are handed out by an atomic counter, so a thread that finishes its
 * channel takes the next; which thread runs which channel does not matter,
 * since every channel writes only its own output. The caller is one of the
 * threads. Workers sleep on a condition variable between calls (no spinning:
 * the machine's cores are shared).
 *
 * Synchronisation: `lock` serialises callers (trylock: a busy pool is
 * reported, the caller then spawns threads of its own); `m` guards the
 * generation counter and the finished count; job, arg, jobs and active are
 * written under `m` before the generation changes and read by workers after
 * they see the change, so every write of a call happens-before the workers'
 * reads, and every worker's writes happen-before the caller returns. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/error.h"
#include "rsa/rsa_internal.h"

struct mns_rsa_pool {
    pthread_mutex_t lock; /* one call at a time */
    pthread_mutex_t m;
    pthread_cond_t go, done;
    unsigned long gen;
    int quit;
    int workers, started;
    int active;           /* workers taking part in this call */
    int finished;
    mns_rsa_job job;
    void *arg;
    int jobs;
    atomic_int next;
    pthread_t th[MNS_RSA_MAX_PRIMES];
    struct worker_arg {
        mns_rsa_pool *pool;
        int index;
    } wa[MNS_RSA_MAX_PRIMES];
};

static void drain(mns_rsa_job job, void *arg, int jobs, atomic_int *next)
{
    int i;
    while ((i = atomic_fetch_add_explicit(next, 1, memory_order_relaxed)) < jobs)
        job(arg, i);
}

static void *worker(void *p)
{
    struct worker_arg *wa = p;
    mns_rsa_pool *pool = wa->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool->m);
    for (;;) {
        while (pool->gen == seen && !pool->quit)
            pthread_cond_wait(&pool->go, &pool->m);
        if (pool->quit)
            break;
        seen = pool->gen;
        if (wa->index >= pool->active)
            continue;
        mns_rsa_job job = pool->job;
        void *arg = pool->arg;
        int jobs = pool->jobs;
        pthread_mutex_unlock(&pool->m);
        drain(job, arg, jobs, &pool->next);
        pthread_mutex_lock(&pool->m);
        if (++pool->finished == pool->active)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->m);
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
    pthread_cond_init(&pool->go, NULL);
    pthread_cond_init(&pool->done, NULL);
    atomic_init(&pool->next, 0);
    pool->workers = workers;
    for (int i = 0; i < workers; i++) {
        pool->wa[i].pool = pool;
        pool->wa[i].index = i;
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
    pthread_mutex_lock(&pool->m);
    pool->quit = 1;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->m);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->th[i], NULL);
    pthread_cond_destroy(&pool->go);
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
    pthread_mutex_lock(&pool->m);
    pool->job = job;
    pool->arg = arg;
    pool->jobs = jobs;
    pool->active = helpers;
    pool->finished = 0;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    pool->gen++;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->m);

    drain(job, arg, jobs, &pool->next);

    pthread_mutex_lock(&pool->m);
    while (pool->finished < pool->active)
        pthread_cond_wait(&pool->done, &pool->m);
    pthread_mutex_unlock(&pool->m);
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
