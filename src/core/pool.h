/* A fixed team of threads for one context (the fork-join and the barrier of
 * the paper's OpenMP code, without OpenMP).
 *
 * Created with the context, T - 1 threads plus the caller as worker 0. Between
 * calls the threads spin for about a millisecond (so a chain of
 * multiplications, as in an exponentiation, finds them awake) and then park
 * on a condition variable, so an idle context costs no CPU. A call writes the job, bumps a generation
 * counter and, only if some thread is parked, signals; nothing is allocated
 * and no thread is created per call.
 *
 * One job at a time: the caller serialises mns_pool_run (the contexts
 * hold a mutex around it). Waits that last long (another process holding the
 * core) fall back from pause-spinning to sched_yield. */
#ifndef MNS_CORE_POOL_H
#define MNS_CORE_POOL_H

#include <pthread.h>
#include <stddef.h>

typedef struct mns_pool mns_pool;
typedef void (*mns_pool_job_fn)(void *arg, int worker);

/* T >= 2 workers (T - 1 threads). NULL if threads cannot be created. */
mns_pool *mns_pool_new(int T);
void mns_pool_free(mns_pool *pool);
int mns_pool_size(const mns_pool *pool);
/* fn(arg, w) for every share w = 0..T-1, returns when all have returned.
 * Share 0 runs on the caller, share w normally on worker w; an arg of at most
 * MNS_POOL_INLINE bytes (size) is copied into the cache line the
 * workers watch, and they get that copy. If the shares
 * are independent (no barrier, nothing one waits for from another), the
 * caller takes every share whose worker has not started it by the time its
 * own share is done, so a sleeping or descheduled worker costs at most the
 * sequential time instead of a wake-up latency. */
#define MNS_POOL_INLINE 32
void mns_pool_run(mns_pool *pool, mns_pool_job_fn fn, void *arg, size_t size,
                        int independent);
/* Inside a job: wait until all T workers reach this point. */
void mns_pool_barrier(mns_pool *pool);

#endif
