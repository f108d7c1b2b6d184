/* The thread pool of the mpart backends (see pool.h). */
#include "core/alloc.h"
#include "core/pool.h"

#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

/* Idle workers spin this many TSC ticks (about 1 ms at 2 GHz) before
 * parking. It must exceed the gap between two multiplications of a chain
 * with margin: a parked worker costs a futex wake-up, which on this VM takes
 * 50-100 us (100k-200k ticks), and with a spin shorter than one call plus
 * that wake-up a chain settles into waking the worker for every call (seen:
 * 148k ticks per 8192-bit product whose halves take 18k each). A slow wake-up
 * does not stall the caller (it takes the worker's share, see
 * mns_pool_run), but only an awake worker gives the speed-up. */
#define POOL_SPIN_TICKS 2000000u
/* Waits inside a call pause-spin this long before yielding the core. */
#define POOL_YIELD_TICKS 20000u

typedef struct {
    alignas(64) _Atomic uint64_t done; /* generation of the last job this worker saw through */
    _Atomic uint64_t claimed;          /* generation of the last job whose share w is taken */
} pool_slot;

/* gen, fn and arg share a cache line (the one a spinning worker watches, so
 * one transfer brings the whole job); sleepers has a line of its own, read by
 * the caller on every call while the workers spin on gen. */
struct mns_pool {
    int T;
    pthread_t *threads;
    pool_slot *slots;
    alignas(64) _Atomic uint64_t gen;
    mns_pool_job_fn fn;
    void *arg;
    _Atomic int stop;
    alignas(8) unsigned char inline_arg[MNS_POOL_INLINE];
    alignas(64) _Atomic int sleepers;
    alignas(64) _Atomic unsigned bar_count;
    _Atomic uint64_t bar_gen;
    pthread_mutex_t m;
    pthread_cond_t cv;
};

typedef struct {
    mns_pool *pool;
    int w;
} pool_start;

static inline void relax(uint64_t t0)
{
    if (__rdtsc() - t0 < POOL_YIELD_TICKS)
        _mm_pause();
    else
        sched_yield();
}

/* Share w of job g is run by whoever moves claimed from below g to g first:
 * worker w, or the caller once its own share is done (a worker that has not
 * started by then is asleep or descheduled, and waiting for it would cost
 * more than doing its share). */
static int claim(pool_slot *slot, uint64_t g)
{
    uint64_t e = atomic_load_explicit(&slot->claimed, memory_order_relaxed);
    return e < g && atomic_compare_exchange_strong(&slot->claimed, &e, g);
}

static void *worker_main(void *p)
{
    pool_start st = *(pool_start *)p;
    free(p);
    mns_pool *pool = st.pool;
    uint64_t seen = 0;
    for (;;) {
        uint64_t g, t0 = __rdtsc();
        while ((g = atomic_load_explicit(&pool->gen, memory_order_acquire)) == seen &&
               __rdtsc() - t0 < POOL_SPIN_TICKS)
            _mm_pause();
        if (g == seen) {
            /* park; sleepers is raised before gen is re-read, and the caller
             * bumps gen before reading sleepers (both sequentially
             * consistent), so one of the two sees the other: no lost wake */
            pthread_mutex_lock(&pool->m);
            atomic_fetch_add(&pool->sleepers, 1);
            while ((g = atomic_load(&pool->gen)) == seen)
                pthread_cond_wait(&pool->cv, &pool->m);
            atomic_fetch_sub(&pool->sleepers, 1);
            pthread_mutex_unlock(&pool->m);
        }
        seen = g;
        if (atomic_load_explicit(&pool->stop, memory_order_acquire))
            break;
        /* fn and arg belong to job g only while nobody has finished g's
         * share w: read them after winning the claim. A worker that lost it
         * (the caller took the share) only reports that it saw g. */
        if (claim(&pool->slots[st.w], g))
            pool->fn(pool->arg, st.w);
        atomic_store_explicit(&pool->slots[st.w].done, g, memory_order_release);
    }
    return NULL;
}

static void wake(mns_pool *pool)
{
    if (atomic_load(&pool->sleepers) > 0) {
        pthread_mutex_lock(&pool->m);
        pthread_cond_broadcast(&pool->cv);
        pthread_mutex_unlock(&pool->m);
    }
}

mns_pool *mns_pool_new(int T)
{
    if (T < 2)
        return NULL;
    mns_pool *pool = mns_alloc64(sizeof *pool);
    if (!pool)
        return NULL;
    pool->T = T;
    pool->threads = calloc((size_t)T, sizeof(pthread_t));
    pool->slots = mns_alloc64((size_t)T * sizeof(pool_slot));
    if (!pool->threads || !pool->slots) {
        free(pool->threads);
        free(pool->slots);
        free(pool);
        return NULL;
    }
    for (int w = 0; w < T; w++) {
        atomic_init(&pool->slots[w].done, 0);
        atomic_init(&pool->slots[w].claimed, 0);
    }
    atomic_init(&pool->gen, 0);
    atomic_init(&pool->stop, 0);
    atomic_init(&pool->sleepers, 0);
    atomic_init(&pool->bar_count, 0);
    atomic_init(&pool->bar_gen, 0);
    pool->fn = NULL;
    pool->arg = NULL;
    pthread_mutex_init(&pool->m, NULL);
    pthread_cond_init(&pool->cv, NULL);
    int made = 1;
    for (int w = 1; w < T; w++) {
        pool_start *st = malloc(sizeof *st);
        if (!st)
            break;
        st->pool = pool;
        st->w = w;
        if (pthread_create(&pool->threads[w], NULL, worker_main, st) != 0) {
            free(st);
            break;
        }
        made++;
    }
    if (made < T) {
        pool->T = made; /* join those that started */
        mns_pool_free(pool);
        return NULL;
    }
    return pool;
}

void mns_pool_free(mns_pool *pool)
{
    if (!pool)
        return;
    atomic_store(&pool->stop, 1);
    atomic_fetch_add(&pool->gen, 1);
    pthread_mutex_lock(&pool->m);
    pthread_cond_broadcast(&pool->cv);
    pthread_mutex_unlock(&pool->m);
    for (int w = 1; w < pool->T; w++)
        pthread_join(pool->threads[w], NULL);
    pthread_mutex_destroy(&pool->m);
    pthread_cond_destroy(&pool->cv);
    free(pool->threads);
    free(pool->slots);
    free(pool);
}

int mns_pool_size(const mns_pool *pool) { return pool ? pool->T : 1; }

void mns_pool_run(mns_pool *pool, mns_pool_job_fn fn, void *arg, size_t size,
                        int independent)
{
    pool->fn = fn;
    pool->arg = arg;
    if (size <= MNS_POOL_INLINE) {
        memcpy(pool->inline_arg, arg, size);
        pool->arg = pool->inline_arg;
    }
    uint64_t g = atomic_load_explicit(&pool->gen, memory_order_relaxed) + 1;
    /* A release store does not wait for the line to reach this core (a
     * sequentially consistent one, an xchg, stalls for the transfer from the
     * spinning workers: 200-400 ticks here). A worker that parks sees g, or
     * raised sleepers before it looked (it parks only after a sequentially
     * consistent increment and reload); the check after the fence below
     * sees every such increment. Parked workers are woken before the share
     * that waits at a barrier for them, or after the caller's own share of an
     * independent job (the caller takes over the shares they have not
     * started), unless the quick look below already found them asleep. */
    atomic_store_explicit(&pool->gen, g, memory_order_release);
    int woken = atomic_load_explicit(&pool->sleepers, memory_order_relaxed) > 0;
    if (woken)
        wake(pool);
    else if (!independent) {
        atomic_thread_fence(memory_order_seq_cst);
        wake(pool);
        woken = 1;
    }
    fn(arg, 0);
    if (!woken) {
        atomic_thread_fence(memory_order_seq_cst);
        wake(pool);
    }
    for (int w = 1; w < pool->T; w++) {
        if (independent && claim(&pool->slots[w], g)) {
            fn(arg, w);
            continue;
        }
        uint64_t t0 = __rdtsc();
        while (atomic_load_explicit(&pool->slots[w].done, memory_order_acquire) < g)
            relax(t0);
    }
}

void mns_pool_barrier(mns_pool *pool)
{
    /* every share runs on its own worker in a job with a barrier (the
     * caller never takes a share of such a job), so T threads arrive */
    uint64_t my = atomic_load_explicit(&pool->bar_gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&pool->bar_count, 1, memory_order_acq_rel) ==
        (unsigned)pool->T - 1) {
        atomic_store_explicit(&pool->bar_count, 0, memory_order_relaxed);
        atomic_store_explicit(&pool->bar_gen, my + 1, memory_order_release);
        return;
    }
    uint64_t t0 = __rdtsc();
    while (atomic_load_explicit(&pool->bar_gen, memory_order_acquire) == my)
        relax(t0);
}
