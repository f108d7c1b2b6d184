#include "timing.h"

#include <cpuid.h>
#include <stdlib.h>
#include <time.h>

/* noinline: the empty call of mb_overhead and the real calls go through the
 * same code, so the overhead subtracted is the one paid. */
__attribute__((noinline)) uint64_t mb_batch_min(mb_call_fn fn, void *arg, unsigned batch)
{
    uint64_t best = UINT64_MAX;
    for (unsigned i = 0; i < batch; i++) {
        uint64_t t0 = mb_tsc_start();
        fn(arg);
        uint64_t t1 = mb_tsc_stop();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    return best;
}

uint64_t mb_warmup(mb_call_fn fn, void *arg, unsigned calls, uint64_t max_ticks)
{
    uint64_t best = UINT64_MAX;
    uint64_t begin = mb_tsc_start();
    for (unsigned i = 0; i < calls || i == 0; i++) {
        uint64_t d = mb_batch_min(fn, arg, 1);
        if (d < best)
            best = d;
        if (mb_tsc_stop() - begin > max_ticks)
            break;
    }
    return best;
}

static void empty_call(void *arg)
{
    __asm__ volatile("" : : "r"(arg) : "memory");
}

uint64_t mb_overhead(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 200; i++) {
        uint64_t t = mb_batch_min(empty_call, NULL, 100);
        if (t < best)
            best = t;
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
