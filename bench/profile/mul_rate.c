/* mul-rate: how many core cycles one scalar 64-bit multiplication costs when
 * many independent ones are in flight (throughput, not latency), for the
 * three forms the portable kernels use or could use:
 *   imul r64      the signed 64x64 -> 128 product (rdx:rax), what GCC emits
 *                 for an __int128 product: the portable pmns-mp leaf;
 *   mulx          the unsigned 64x64 -> 128 product of BMI2 (rdx implicit);
 *   imul r64,r64  the low 64 bits only: the products by M'_0 mod 2^k;
 *   fma           four 52 x 52-bit products at once with both halves as
 *                 64-bit integers, as the FMA kernel of pmns-mp makes them
 *                 (src/pmns_mp/fma.c: vfmadd, vsubpd, vfmsub, vaddpd and
 *                 two vpaddq per 4 lanes), counted per 4-lane product.
 * Each product is followed by the add / adc (or add) that accumulates it, as
 * in a Toeplitz row, over 8 independent accumulators. Cycles come from a
 * dependent chain of adds (one add per cycle) timed in the same
 * repetitions. Each loop counts its fastest repetition: an interruption or
 * a slower clock only ever adds time, and this VM's clock drifts, so the
 * minima of many short repetitions are the stable figures (medians of
 * per-repetition ratios moved by 20% from run to run while another process
 * ran on the other core). Why it matters: docs/pmns-mp.md, "session 10".
 * Not a test. Usage: mul-rate [repetitions] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#define ITERS 10000
#define MAXREP 10001

static inline uint64_t ticks(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

/* 16 dependent adds per iteration: one cycle each */
static uint64_t time_chain(void)
{
    uint64_t z = 1, t0 = ticks();
    for (int i = 0; i < ITERS; i++)
        __asm__ volatile(".rept 16\n\tadd %0, %0\n\t.endr" : "+r"(z));
    return ticks() - t0;
}

/* the accumulators, and the operands (registers: no load in the loop) */
#define ACC [r0] "+r"(r[0]), [r1] "+r"(r[1]), [r2] "+r"(r[2]), [r3] "+r"(r[3]), \
            [r4] "+r"(r[4]), [r5] "+r"(r[5]), [r6] "+r"(r[6]), [r7] "+r"(r[7])

/* 8 products per iteration */
static uint64_t time_imul128(uint64_t a, uint64_t b, uint64_t *r)
{
    uint64_t t0 = ticks();
    for (int i = 0; i < ITERS; i++)
        __asm__ volatile(".rept 2\n\t"
                         "mov %[a], %%rax\n\timulq %[b]\n\tadd %%rax, %[r0]\n\tadc %%rdx, %[r1]\n\t"
                         "mov %[b], %%rax\n\timulq %[a]\n\tadd %%rax, %[r2]\n\tadc %%rdx, %[r3]\n\t"
                         "mov %[a], %%rax\n\timulq %[a]\n\tadd %%rax, %[r4]\n\tadc %%rdx, %[r5]\n\t"
                         "mov %[b], %%rax\n\timulq %[b]\n\tadd %%rax, %[r6]\n\tadc %%rdx, %[r7]\n\t"
                         ".endr"
                         : ACC
                         : [a] "r"(a), [b] "r"(b)
                         : "rax", "rdx", "cc");
    return ticks() - t0;
}

__attribute__((target("bmi2"))) static uint64_t time_mulx(uint64_t a, uint64_t b, uint64_t *r)
{
    uint64_t t0 = ticks();
    for (int i = 0; i < ITERS; i++)
        __asm__ volatile(".rept 2\n\t"
                         "mulx %[b], %%rax, %%rcx\n\tadd %%rax, %[r0]\n\tadc %%rcx, %[r1]\n\t"
                         "mulx %[a], %%rax, %%rcx\n\tadd %%rax, %[r2]\n\tadc %%rcx, %[r3]\n\t"
                         "mulx %[b], %%rax, %%rcx\n\tadd %%rax, %[r4]\n\tadc %%rcx, %[r5]\n\t"
                         "mulx %[a], %%rax, %%rcx\n\tadd %%rax, %[r6]\n\tadc %%rcx, %[r7]\n\t"
                         ".endr"
                         : ACC
                         : [a] "r"(a), [b] "r"(b), "d"(a)
                         : "rax", "rcx", "cc");
    return ticks() - t0;
}

/* 3 independent 4-lane products per group, 4 groups per iteration: ymm0, 1
 * the operands, ymm2 = 2^104, ymm3 = 3 2^51 (set by the caller) */
#define FMA_PRODUCT(H, L, AH, AL)                                                                \
    "vmovapd %%ymm2, %%ymm" #H "\n\tvfmadd231pd %%ymm0, %%ymm1, %%ymm" #H "\n\t"                 \
    "vsubpd %%ymm2, %%ymm" #H ", %%ymm" #L "\n\tvfmsub231pd %%ymm0, %%ymm1, %%ymm" #L "\n\t"     \
    "vaddpd %%ymm3, %%ymm" #L ", %%ymm" #L "\n\t"                                                \
    "vpaddq %%ymm" #H ", %%ymm" #AH ", %%ymm" #AH "\n\tvpaddq %%ymm" #L ", %%ymm" #AL ", %%ymm" #AL \
    "\n\t"
__attribute__((target("avx2,fma"))) static uint64_t time_fma(void)
{
    uint64_t t0 = ticks();
    for (int i = 0; i < ITERS; i++)
        __asm__ volatile(".rept 4\n\t" FMA_PRODUCT(4, 5, 6, 7) FMA_PRODUCT(8, 9, 10, 11)
                             FMA_PRODUCT(12, 13, 14, 15) ".endr"
                         :
                         :
                         : "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                           "xmm12", "xmm13", "xmm14", "xmm15");
    return ticks() - t0;
}

__attribute__((target("avx2,fma"))) static void fma_setup(void)
{
    static const double c[4] = {0x1p104, 0x1.8p52, 0x1.23456789abcdp51, 0x1.fedcba987654p50};
    __asm__ volatile("vbroadcastsd %0, %%ymm2\n\tvbroadcastsd %1, %%ymm3\n\t"
                     "vbroadcastsd %2, %%ymm0\n\tvbroadcastsd %3, %%ymm1\n\t"
                     "vpxor %%ymm6, %%ymm6, %%ymm6\n\tvpxor %%ymm7, %%ymm7, %%ymm7\n\t"
                     "vpxor %%ymm10, %%ymm10, %%ymm10\n\tvpxor %%ymm11, %%ymm11, %%ymm11\n\t"
                     "vpxor %%ymm14, %%ymm14, %%ymm14\n\tvpxor %%ymm15, %%ymm15, %%ymm15"
                     :
                     : "m"(c[0]), "m"(c[1]), "m"(c[2]), "m"(c[3])
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm6", "xmm7", "xmm10", "xmm11",
                       "xmm14", "xmm15");
}

static uint64_t time_imul64(uint64_t a, uint64_t b, uint64_t *r)
{
    uint64_t t0 = ticks();
    for (int i = 0; i < ITERS; i++)
        __asm__ volatile(".rept 2\n\t"
                         "mov %[a], %%rax\n\timul %[b], %%rax\n\tadd %%rax, %[r0]\n\t"
                         "mov %[b], %%rax\n\timul %[a], %%rax\n\tadd %%rax, %[r2]\n\t"
                         "mov %[a], %%rax\n\timul %[a], %%rax\n\tadd %%rax, %[r4]\n\t"
                         "mov %[b], %%rax\n\timul %[b], %%rax\n\tadd %%rax, %[r6]\n\t"
                         ".endr"
                         : ACC
                         : [a] "r"(a), [b] "r"(b)
                         : "rax", "cc");
    return ticks() - t0;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 1001;
    if (reps < 1 || reps > MAXREP)
        reps = 1001;
    const int bmi2 = __builtin_cpu_supports("bmi2");
    const int fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    uint64_t a = 0x123456789abcdefULL, b = 0xfedcba987654321ULL, r[8] = {0};
    uint64_t chain = UINT64_MAX, m128 = UINT64_MAX, mx = UINT64_MAX, m64 = UINT64_MAX;
    uint64_t mf = UINT64_MAX;
    for (int i = 0; i < reps; i++) { /* interleaved, so a slow spell hits all four */
        uint64_t t = time_chain();
        chain = t < chain ? t : chain;
        t = time_imul128(a, b, r);
        m128 = t < m128 ? t : m128;
        if (bmi2) {
            t = time_mulx(a, b, r);
            mx = t < mx ? t : mx;
        }
        t = time_imul64(a, b, r);
        m64 = t < m64 ? t : m64;
        if (fma) { /* the ymm registers are set again: nothing else keeps them */
            fma_setup();
            t = time_fma();
            mf = t < mf ? t : mf;
        }
    }
    const double tpc = (double)chain / (16.0 * ITERS), products = 8.0 * ITERS;
    printf("# cycles per product, 8 independent accumulators, fastest of %d repetitions\n", reps);
    printf("# (TSC ticks per core cycle, from the add chain: %.3f)\n", tpc);
    printf("imul r64 (64x64->128, signed) + add/adc  %.2f\n", (double)m128 / products / tpc);
    if (bmi2)
        printf("mulx     (64x64->128, unsigned) + add/adc %.2f\n", (double)mx / products / tpc);
    else
        printf("mulx     n/a (no BMI2)\n");
    printf("imul r64,r64 (low 64 bits) + add          %.2f\n", (double)m64 / products / tpc);
    if (fma)
        printf("fma: 4 x (52x52->104, both halves) + 2 vpaddq  %.2f per 4 lanes, %.2f per lane\n",
               (double)mf / (12.0 * ITERS) / tpc, (double)mf / (48.0 * ITERS) / tpc);
    else
        printf("fma      n/a (no AVX2 + FMA)\n");
    /* r is the asm's output: print nothing of it, but keep it live */
    return (int)((r[0] ^ r[1] ^ r[2] ^ r[3] ^ r[4] ^ r[5] ^ r[6] ^ r[7]) & 0);
}
