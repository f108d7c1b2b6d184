/* Cycle measurement the way the papers do it (pmns-vs-rns-simd IV.C,
 * pmns-multiprecision-cios 6, after Intel's "How to benchmark code execution
 * times"): each call is timed on its own between serialising reads of the
 * time-stamp counter, a batch of calls gives its minimum, and the figure of a
 * data set series is the median of those minima.
 *
 * Start: lfence; rdtsc; lfence -- earlier work has finished and later work
 * has not started when the counter is read. Stop: rdtscp; lfence -- rdtscp
 * waits for the timed call to retire, the lfence keeps what follows out.
 *
 * The counts are TSC ticks: the TSC runs at a constant (nominal) rate, not at
 * the core clock, which may be faster under turbo. The cost of the
 * measurement itself (an empty call through the same path) is measured once
 * and subtracted.
 *
 * Where the TSC advances in steps (AMD Zen: 26 ticks, 10 ns), one short call
 * cannot be timed alone: a call below 100 steps is timed in groups of calls
 * (an lfence between them) long enough for 100 steps, less the empty group
 * (mb_batch_min). Where it counts every tick, every call is timed alone. */
#ifndef MNS_BENCH_TIMING_H
#define MNS_BENCH_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include <x86intrin.h>

static inline uint64_t mb_tsc_start(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static inline uint64_t mb_tsc_stop(void)
{
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
}

/* One timed call: fn(arg). */
typedef void (*mb_call_fn)(void *arg);

/* Minimum over `batch` calls of the raw ticks of one call (overhead included:
 * mb_net(result, mb_overhead()) is the call's own time). Calls shorter than
 * 100 TSC steps are timed in groups (about `batch` calls in all, at least 5
 * groups), the result then per call. */
uint64_t mb_batch_min(mb_call_fn fn, void *arg, unsigned batch);

/* Runs fn until `calls` calls or `max_ticks` ticks have passed, whichever
 * comes first (at least one call); returns the minimum ticks of one call. */
uint64_t mb_warmup(mb_call_fn fn, void *arg, unsigned calls, uint64_t max_ticks);

/* Ticks of timing an empty call through mb_batch_min (its minimum over many
 * batches): what mb_net subtracts. */
uint64_t mb_overhead(void);
/* raw - overhead, at least 1. */
uint64_t mb_net(uint64_t raw, uint64_t overhead);

/* The TSC's step: 1, or the ticks it advances by at once (26 on AMD Zen). */
uint64_t mb_tsc_step(void);

/* TSC rate in GHz measured against CLOCK_MONOTONIC (about 50 ms). */
double mb_tsc_ghz(void);
/* 1 if CPUID reports an invariant TSC (constant rate in every P/C-state). */
int mb_tsc_invariant(void);

/* Median of v[0..n) (v is sorted in place); for even n, the lower middle. */
uint64_t mb_median(uint64_t *v, size_t n);

#endif
