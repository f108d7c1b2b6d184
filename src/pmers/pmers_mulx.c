/* The pmers kernels for four-word elements (2^255 - 19, 2^256 - 189, ...)
 * with mulx and the two carry chains of adcx / adox, as OpenSSL's
 * x25519-x86_64 and Intel's ADX white paper do: the 4x4 product row by row
 * into eight words, then the fold by m (pmers.h) in registers, and the
 * result stored last so r may alias a or b. Constant time: straight-line
 * code, no branch, no operand-dependent address. Chosen only where the CPU
 * has BMI2 and ADX (pmers.c). */
#include "pmers/pmers.h"
#include "pmers/pmers_body.h"
#include "pmers/pmers_ops.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

/* one row of the product: T0..T4 <- T0..T3 + a_i b, T0 stored to `out` */
#define ROW(AI, T0, T1, T2, T3, T4, OUT)                                                      \
    "movq " AI "(%[a]), %%rdx\n\t"                                                            \
    "xorl %k[z], %k[z]\n\t"                                                                   \
    "mulxq 0(%[b]), %[lo], %[hi]\n\t"                                                         \
    "adcxq %[lo], %[" T0 "]\n\t"                                                              \
    "adoxq %[hi], %[" T1 "]\n\t"                                                              \
    "mulxq 8(%[b]), %[lo], %[hi]\n\t"                                                         \
    "adcxq %[lo], %[" T1 "]\n\t"                                                              \
    "adoxq %[hi], %[" T2 "]\n\t"                                                              \
    "mulxq 16(%[b]), %[lo], %[hi]\n\t"                                                        \
    "adcxq %[lo], %[" T2 "]\n\t"                                                              \
    "adoxq %[hi], %[" T3 "]\n\t"                                                              \
    "mulxq 24(%[b]), %[lo], %[" T4 "]\n\t"                                                    \
    "adcxq %[lo], %[" T3 "]\n\t"                                                              \
    "adoxq %[z], %[" T4 "]\n\t"                                                               \
    "adcxq %[z], %[" T4 "]\n\t"                                                               \
    "movq %[" T0 "], " OUT "(%[t])\n\t"

static void pm_mul_mulx4(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const uint64_t m = ((const mns_pmers_ctx *)ctx)->m;
    uint64_t t[8];
    uint64_t x0, x1, x2, x3, x4, lo, hi, z;
    __asm__ volatile(
        /* row 0: x0..x4 <- a0 b */
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq 0(%[b]), %[x0], %[x1]\n\t"
        "mulxq 8(%[b]), %[lo], %[x2]\n\t"
        "addq %[lo], %[x1]\n\t"
        "mulxq 16(%[b]), %[lo], %[x3]\n\t"
        "adcq %[lo], %[x2]\n\t"
        "mulxq 24(%[b]), %[lo], %[x4]\n\t"
        "adcq %[lo], %[x3]\n\t"
        "adcq $0, %[x4]\n\t"
        "movq %[x0], 0(%[t])\n\t"
        ROW("8", "x1", "x2", "x3", "x4", "x0", "8")
        ROW("16", "x2", "x3", "x4", "x0", "x1", "16")
        ROW("24", "x3", "x4", "x0", "x1", "x2", "24")
        /* t4..t7 are x4 x0 x1 x2, the pointers a and b are free: the
         * fold r = t_lo + m t_hi in registers, t0..t3 from the stack */
        "movq %[m], %%rdx\n\t"
        "mulxq %[x4], %[lo], %[hi]\n\t"
        "mulxq %[x0], %[a], %[b]\n\t"
        "mulxq %[x1], %[x0], %[x4]\n\t"
        "mulxq %[x2], %[x1], %[x3]\n\t"
        "xorl %k[z], %k[z]\n\t"
        "adcxq %[a], %[hi]\n\t"
        "adcxq %[x0], %[b]\n\t"
        "adcxq %[x1], %[x4]\n\t"
        "adcxq %[z], %[x3]\n\t"
        "addq 0(%[t]), %[lo]\n\t"
        "adcq 8(%[t]), %[hi]\n\t"
        "adcq 16(%[t]), %[b]\n\t"
        "adcq 24(%[t]), %[x4]\n\t"
        "adcq %[z], %[x3]\n\t"
        /* the top word x3 <= m folds as x3 m; a last carry as m */
        "mulxq %[x3], %[a], %[x2]\n\t"
        "addq %[a], %[lo]\n\t"
        "adcq %[x2], %[hi]\n\t"
        "adcq %[z], %[b]\n\t"
        "adcq %[z], %[x4]\n\t"
        "sbbq %[a], %[a]\n\t"
        "andq %%rdx, %[a]\n\t"
        "addq %[a], %[lo]\n\t"
        "adcq %[z], %[hi]\n\t"
        "movq %[lo], 0(%[r])\n\t"
        "movq %[hi], 8(%[r])\n\t"
        "movq %[b], 16(%[r])\n\t"
        "movq %[x4], 24(%[r])\n\t"
        : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4),
          [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z), [a] "+r"(a), [b] "+r"(b)
        : [t] "r"(t), [r] "r"(r), [m] "m"(m)
        : "rdx", "cc", "memory");
}

/* the square: the six cross products once, then one pass that doubles
 * them on the adox chain while the adcx chain adds the four squares
 * (Intel's ADX squaring), and the fold of pm_mul_mulx4 done in registers */
static void pm_sqr_mulx4(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const uint64_t m = ((const mns_pmers_ctx *)ctx)->m;
    uint64_t t0, t1, t2, t3, t4, t5, t6, t7, lo, hi, z;
    __asm__ volatile(
        /* cross products at words 1..6 */
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq 8(%[a]), %[t1], %[t2]\n\t"
        "mulxq 16(%[a]), %[lo], %[t3]\n\t"
        "addq %[lo], %[t2]\n\t"
        "mulxq 24(%[a]), %[lo], %[t4]\n\t"
        "adcq %[lo], %[t3]\n\t"
        "adcq $0, %[t4]\n\t"
        "movq 8(%[a]), %%rdx\n\t"
        "xorl %k[z], %k[z]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq 24(%[a]), %[lo], %[t5]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[z], %[t5]\n\t"
        "adcxq %[z], %[t5]\n\t"
        "movq 16(%[a]), %%rdx\n\t"
        "mulxq 24(%[a]), %[lo], %[t6]\n\t"
        "addq %[lo], %[t5]\n\t"
        "adcq $0, %[t6]\n\t"
        /* 2 (cross products) + squares */
        "xorl %k[z], %k[z]\n\t"
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[t0], %[hi]\n\t"
        "adoxq %[t1], %[t1]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "movq 8(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[hi]\n\t"
        "adoxq %[t2], %[t2]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[t3], %[t3]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "movq 16(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[hi]\n\t"
        "adoxq %[t4], %[t4]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[t5], %[t5]\n\t"
        "adcxq %[hi], %[t5]\n\t"
        "movq 24(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[t7]\n\t"
        "adoxq %[t6], %[t6]\n\t"
        "adcxq %[lo], %[t6]\n\t"
        "adoxq %[z], %[t7]\n\t"
        "adcxq %[z], %[t7]\n\t"
        /* fold: t0..t3 + m t4..t7, the top word in t4 */
        "movq %[m], %%rdx\n\t"
        "xorl %k[z], %k[z]\n\t"
        "mulxq %[t4], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "mulxq %[t5], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "mulxq %[t6], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "mulxq %[t7], %[lo], %[t4]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[z], %[t4]\n\t"
        "adcxq %[z], %[t4]\n\t"
        "mulxq %[t4], %[lo], %[hi]\n\t"
        "addq %[lo], %[t0]\n\t"
        "adcq %[hi], %[t1]\n\t"
        "adcq %[z], %[t2]\n\t"
        "adcq %[z], %[t3]\n\t"
        "sbbq %[lo], %[lo]\n\t"
        "andq %%rdx, %[lo]\n\t"
        "addq %[lo], %[t0]\n\t"
        "adcq %[z], %[t1]\n\t"
        /* r from memory: every register is taken until here (a build with
         * a frame pointer has 13 for this block) */
        "movq %[r], %[hi]\n\t"
        "movq %[t0], 0(%[hi])\n\t"
        "movq %[t1], 8(%[hi])\n\t"
        "movq %[t2], 16(%[hi])\n\t"
        "movq %[t3], 24(%[hi])\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi),
          [z] "=&r"(z)
        : [a] "r"(a), [r] "m"(r), [m] "m"(m)
        : "rdx", "cc", "memory");
}

static void pm_add_4(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    pm_add_words(r, a, b, ((const mns_pmers_ctx *)ctx)->m, 4);
}

static void pm_sub_4(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    pm_sub_words(r, a, b, ((const mns_pmers_ctx *)ctx)->m, 4);
}

static const mns_field_ops ops_mulx4 = MNS_PMERS_OPS(pm_mul_mulx4, pm_sqr_mulx4, pm_add_4, pm_sub_4);
const mns_field_ops *const mns_pmers_ops_mulx4 = &ops_mulx4;

#else

const mns_field_ops *const mns_pmers_ops_mulx4 = NULL;

#endif
