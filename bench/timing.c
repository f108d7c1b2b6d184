#include "timing.h"

#include <cpuid.h>
#include <stdlib.h>
#include <time.h>

/* The TSC's step: 1 where it counts every tick (Intel), about 26 on AMD Zen
 * (a 100 MHz reference clock adding 26 at 2.6 GHz). Deltas between reads
 * separated by a varying spin are all within one tick of a multiple of the
 * step; the largest q <= 64 for which 95% of them are is taken. */
static uint64_t tsc_step(void)
{
    static uint64_t step;
    if (step)
        return step;
    enum { SAMPLES = 2000 };
    static uint64_t d[SAMPLES];
    volatile unsigned sink = 0;
    for (int i = 0; i < SAMPLES; i++) {
        uint64_t t0 = mb_tsc_start();
        for (unsigned j = 0; j < (unsigned)(i * 7919u) % 97u; j++)
            sink += j;
        d[i] = mb_tsc_stop() - t0;
    }
    step = 1;
    for (uint64_t q = 64; q >= 2; q--) {
        int hit = 0;
        for (int i = 0; i < SAMPLES; i++) {
            uint64_t r = d[i] % q;
            hit += r <= 1 || r == q - 1;
        }
        if (hit >= SAMPLES * 95 / 100) {
            step = q;
            break;
        }
    }
    return step;
}

uint64_t mb_tsc_step(void) { return tsc_step(); }

/* One reading: `group` calls back to back, an lfence between them so that
 * each starts after the previous one has finished (as a single timed call
 * does); raw ticks of the whole reading. noinline: the empty calls of the
 * overheads and the real calls go through the same code. */
__attribute__((noinline)) static uint64_t reading(mb_call_fn fn, void *arg, unsigned group)
{
    uint64_t t0 = mb_tsc_start();
    for (unsigned g = 1; g < group; g++) {
        fn(arg);
        _mm_lfence();
    }
    fn(arg);
    uint64_t t1 = mb_tsc_stop();
    return t1 - t0;
}

static void empty_call(void *arg)
{
    __asm__ volatile("" : : "r"(arg) : "memory");
}

/* Raw ticks of an empty reading of `group` calls: the least of many. */
static uint64_t empty_reading(unsigned group)
{
    enum { CACHED = 4097 };
    static uint64_t cache[CACHED];
    if (group < CACHED && cache[group])
        return cache[group];
    uint64_t best = UINT64_MAX;
    const int n = group > 64 ? 400 : 20000;
    for (int i = 0; i < n; i++) {
        uint64_t t = reading(empty_call, NULL, group);
        if (t < best)
            best = t;
    }
    if (group < CACHED)
        cache[group] = best;
    return best;
}

uint64_t mb_overhead(void) { return empty_reading(1); }

/* A call shorter than 100 TSC steps cannot be timed alone on a TSC that
 * advances by 26 (its reading is off by up to a step, and the minimum of a
 * batch picks the readings that were rounded down): it is timed `group` at a
 * time instead, enough for 100 steps, and the empty reading of as many calls
 * is subtracted. On a TSC with step 1 every call is timed alone, as the
 * papers do. */
__attribute__((noinline)) uint64_t mb_batch_min(mb_call_fn fn, void *arg, unsigned batch)
{
    const uint64_t target = 100 * tsc_step();
    uint64_t first = reading(fn, arg, 1);
    unsigned group = 1;
    if (tsc_step() > 1 && first < target)
        group = (unsigned)((target + first - 1) / (first ? first : 1));
    if (group == 1) {
        uint64_t best = first;
        for (unsigned i = 1; i < batch; i++) {
            uint64_t t = reading(fn, arg, 1);
            if (t < best)
                best = t;
        }
        return best;
    }
    /* as many calls as the batch asked for, in readings of `group` calls
     * (at least 5 readings) */
    unsigned readings = (batch + group - 1) / group;
    if (readings < 5)
        readings = 5;
    uint64_t best = UINT64_MAX;
    for (unsigned i = 0; i < readings; i++) {
        uint64_t t = reading(fn, arg, group);
        if (t < best)
            best = t;
    }
    const uint64_t empty = empty_reading(group);
    const uint64_t net = best > empty ? (best - empty + group / 2) / group : 1;
    /* per call, with the single-call overhead that mb_net subtracts */
    return net + mb_overhead();
}

uint64_t mb_warmup(mb_call_fn fn, void *arg, unsigned calls, uint64_t max_ticks)
{
    uint64_t best = UINT64_MAX;
    uint64_t begin = mb_tsc_start();
    for (unsigned i = 0; i < calls || i == 0; i++) {
        uint64_t d = reading(fn, arg, 1);
        if (d < best)
            best = d;
        if (mb_tsc_stop() - begin > max_ticks)
            break;
    }
    return best;
}

uint64_t mb_net(uint64_t raw, uint64_t overhead) { return raw > overhead ? raw - overhead : 1; }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double mb_tsc_ghz(void)
{
    double t0 = now_s();
    uint64_t c0 = mb_tsc_start();
    double t1;
    do
        t1 = now_s();
    while (t1 - t0 < 0.05);
    uint64_t c1 = mb_tsc_stop();
    return (double)(c1 - c0) / (t1 - t0) * 1e-9;
}

int mb_tsc_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

uint64_t mb_median(uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    return v[(n - 1) / 2];
}
