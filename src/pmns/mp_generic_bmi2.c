/* The portable flow of the multi-precision PMNS (mns_pmns_mp_flow,
 * mp_generic.c) with mulx leaves: BMI2, still 64-bit words and no vector
 * unit, chosen at run time when the CPU has it (MNS_CPU=generic and valgrind
 * runs keep the plain C twin).
 *
 * Why: a signed 64 x 64 -> 128 product is a one-operand imul, which reads
 * and clobbers rax: load, imul, add, adc per product, and measured here 0.80
 * TSC ticks per product at best (4 rows per column) against 0.64 for the
 * multiplier itself. mulx takes its multiplicand in rdx and clobbers nothing
 * else: one rdx load per column, then mulx, add, adc per product, four rows
 * in flight: 0.64 ticks per product (the multiplier's rate, measured in a
 * loop of this exact sequence).
 *
 * mulx is unsigned, so the operands are biased, the flow removes the biases:
 *   - every matrix entry y (int64) is stored as y ^ 2^63 = y + 2^63, in
 *     [0, 2^64); a leaf's sum picks up 2^63 sum(v), which the leaf removes
 *     from each row (one 128-bit subtraction per row, sum(v) once per leaf);
 *   - vectors must be >= 0: the low digits are; T enters as T + 2^(k-1)
 *     (c->rinit and c->m0bias hold the excess 2^(k-1) M_j 1, constant); the
 *     top digit of the vector operand enters as digit + D, D = 2^dbias > its
 *     bound (the flow removes D rowsum(A_j), O(n) per product digit).
 * Everything is computed mod 2^128 and the contracted values are exact, as
 * in mp_generic.c. Constant time: no branch or index depends on data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "pmns/mp_ctx.h"

#define BMI2 __attribute__((target("bmi2")))

typedef unsigned long long u64;

/* One column, g rows: a[2q] : a[2q+1] += x * m_q, x loaded into rdx by the
 * block itself (when the compiler loaded it, it also spilled it for the next
 * row group and moved it: 24 instead of 21 micro-ops per 4 products, and
 * the leaf is bound by the 6-wide rename, not by the multiplier) */
#define MP_MULX(m) "mulx %[" #m "], %[lo], %[hi]\n\t"
#define MP_ACC(al, ah) "add %[lo], %[" #al "]\n\tadc %[hi], %[" #ah "]\n\t"
#define MP_LDX "movq %[x], %%rdx\n\t"

static inline __attribute__((always_inline)) void col4(u64 *a, const uint64_t *x, const uint64_t *t,
                                                       int i)
{
    u64 lo, hi;
    __asm__(MP_LDX MP_MULX(m0) MP_ACC(a0, a1) MP_MULX(m1) MP_ACC(a2, a3) MP_MULX(m2)
                MP_ACC(a4, a5) MP_MULX(m3) MP_ACC(a6, a7)
            : [a0] "+r"(a[0]), [a1] "+r"(a[1]), [a2] "+r"(a[2]), [a3] "+r"(a[3]), [a4] "+r"(a[4]),
              [a5] "+r"(a[5]), [a6] "+r"(a[6]), [a7] "+r"(a[7]), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [x] "m"(*x), [m0] "m"(t[i]), [m1] "m"(t[i + 1]), [m2] "m"(t[i + 2]),
              [m3] "m"(t[i + 3])
            : "rdx", "cc");
}

static inline __attribute__((always_inline)) void col3(u64 *a, const uint64_t *x, const uint64_t *t,
                                                       int i)
{
    u64 lo, hi;
    __asm__(MP_LDX MP_MULX(m0) MP_ACC(a0, a1) MP_MULX(m1) MP_ACC(a2, a3) MP_MULX(m2)
                MP_ACC(a4, a5)
            : [a0] "+r"(a[0]), [a1] "+r"(a[1]), [a2] "+r"(a[2]), [a3] "+r"(a[3]), [a4] "+r"(a[4]),
              [a5] "+r"(a[5]), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [x] "m"(*x), [m0] "m"(t[i]), [m1] "m"(t[i + 1]), [m2] "m"(t[i + 2])
            : "rdx", "cc");
}

static inline __attribute__((always_inline)) void col2(u64 *a, const uint64_t *x, const uint64_t *t,
                                                       int i)
{
    u64 lo, hi;
    __asm__(MP_LDX MP_MULX(m0) MP_ACC(a0, a1) MP_MULX(m1) MP_ACC(a2, a3)
            : [a0] "+r"(a[0]), [a1] "+r"(a[1]), [a2] "+r"(a[2]), [a3] "+r"(a[3]), [lo] "=&r"(lo),
              [hi] "=&r"(hi)
            : [x] "m"(*x), [m0] "m"(t[i]), [m1] "m"(t[i + 1])
            : "rdx", "cc");
}

static inline __attribute__((always_inline)) void col1(u64 *a, const uint64_t *x, const uint64_t *t,
                                                       int i)
{
    u64 lo, hi;
    __asm__(MP_LDX MP_MULX(m0) MP_ACC(a0, a1)
            : [a0] "+r"(a[0]), [a1] "+r"(a[1]), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [x] "m"(*x), [m0] "m"(t[i])
            : "rdx", "cc");
}

/* a (g rows from r0) += sum_c t[r0 + q - c] v[c]; t points at diagonal 0 */
static inline __attribute__((always_inline)) void
rows(u64 *a, const uint64_t *t, const uint64_t *v, int b, int r0, int g)
{
#pragma GCC unroll 32
    for (int col = 0; col < b; col++) {
        if (g == 4)
            col4(a, v + col, t, r0 - col);
        else if (g == 3)
            col3(a, v + col, t, r0 - col);
        else if (g == 2)
            col2(a, v + col, t, r0 - col);
        else
            col1(a, v + col, t, r0 - col);
    }
}

/* R[r] += dbl (t1 v1)[r] + two (t2 v2)[r] - x for r < b (dbl 1 or 2, two 0
 * or 1, constants); t1, t2 point at diagonal -(b-1); x removes the matrix
 * bias (2^63 times the vectors' sum, from the flow) */
static inline __attribute__((always_inline)) void
leaf(mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2, const uint64_t *v2,
     int b, int dbl, int two, mp_u128 x)
{
    t1 += b - 1;
    t2 += two ? b - 1 : 0;
#pragma GCC unroll 8
    for (int r0 = 0; r0 < b; r0 += 4) {
        const int g = b - r0 < 4 ? b - r0 : 4;
        u64 a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        rows(a, t1, v1, b, r0, g);
        if (dbl == 2)
#pragma GCC unroll 4
            for (int q = 0; q < g; q++) {
                mp_u128 d = ((mp_u128)a[2 * q + 1] << 64 | a[2 * q]) << 1;
                a[2 * q] = (u64)d, a[2 * q + 1] = (u64)(d >> 64);
            }
        if (two)
            rows(a, t2, v2, b, r0, g);
#pragma GCC unroll 4
        for (int q = 0; q < g; q++)
            R[r0 + q] += (mp_i128)(((mp_u128)a[2 * q + 1] << 64 | a[2 * q]) - x);
    }
}

/* Rn[r] += (Ri[r] - y[r] + (t T)[r] - x) >> k, unsplit */
static inline __attribute__((always_inline)) void
leaf_div(mp_i128 *Rn, const mp_i128 *Ri, const uint64_t *t, const uint64_t *T, int b, int k,
         mp_u128 x, const mp_i128 *y)
{
    t += b - 1;
#pragma GCC unroll 8
    for (int r0 = 0; r0 < b; r0 += 4) {
        const int g = b - r0 < 4 ? b - r0 : 4;
        u64 a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        rows(a, t, T, b, r0, g);
#pragma GCC unroll 4
        for (int q = 0; q < g; q++) {
            mp_i128 v = Ri[r0 + q] - y[r0 + q] +
                        (mp_i128)(((mp_u128)a[2 * q + 1] << 64 | a[2 * q]) - x);
            Rn[r0 + q] += v >> (k & 63);
        }
    }
}

#define MP_B2_BMAX 16
#define MP_B2_CASES(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
    X(14) X(15) X(16)

#define MP_B2_INST(NAME, B)                                                                     \
    static BMI2 __attribute__((noinline)) void ab_##NAME(mp_i128 *R, const uint64_t *t,          \
                                                        const uint64_t *v, int b, mp_u128 x)    \
    {                                                                                           \
        (void)b;                                                                                \
        leaf(R, t, v, t, v, B, 1, 0, x);                                                        \
    }                                                                                           \
    static BMI2 __attribute__((noinline)) void fused_##NAME(                                     \
        mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,                 \
        const uint64_t *v2, int b, mp_u128 x)                                                   \
    {                                                                                           \
        (void)b;                                                                                \
        leaf(R, t1, v1, t2, v2, B, 1, 1, x);                                                    \
    }                                                                                           \
    static BMI2 __attribute__((noinline)) void fused2_##NAME(                                    \
        mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,                 \
        const uint64_t *v2, int b, mp_u128 x)                                                   \
    {                                                                                           \
        (void)b;                                                                                \
        leaf(R, t1, v1, t2, v2, B, 2, 1, x);                                                    \
    }                                                                                           \
    static BMI2 __attribute__((noinline)) void div_##NAME(mp_i128 *Rn, const mp_i128 *Ri,        \
                                                         const uint64_t *t, const uint64_t *T,  \
                                                         int b, int k, mp_u128 x,               \
                                                         const mp_i128 *y)                      \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_div(Rn, Ri, t, T, B, k, x, y);                                                     \
    }
#define MP_B2_FIXED(B) MP_B2_INST(b##B, B)
MP_B2_CASES(MP_B2_FIXED)
MP_B2_INST(any, b)
#undef MP_B2_FIXED
#undef MP_B2_INST

typedef struct mp_b2_leaves {
    void (*ab)(mp_i128 *, const uint64_t *, const uint64_t *, int, mp_u128);
    void (*fused)(mp_i128 *, const uint64_t *, const uint64_t *, const uint64_t *,
                  const uint64_t *, int, mp_u128);
    void (*fused2)(mp_i128 *, const uint64_t *, const uint64_t *, const uint64_t *,
                   const uint64_t *, int, mp_u128);
    void (*div)(mp_i128 *, const mp_i128 *, const uint64_t *, const uint64_t *, int, int, mp_u128,
                const mp_i128 *);
} mp_b2_leaves;

static const mp_b2_leaves b2_tab[MP_B2_BMAX + 2] = {
#define MP_ENTRY(B) [B] = {ab_b##B, fused_b##B, fused2_b##B, div_b##B},
    MP_B2_CASES(MP_ENTRY)
#undef MP_ENTRY
        [MP_B2_BMAX + 1] = {ab_any, fused_any, fused2_any, div_any},
};

/* the full leaf table for b: mulx products, and the generic products mod
 * 2^64 (an imul reads both operands modulo 2^64: sign-agnostic) */
static mp_leaves leaves_for(int b)
{
    const mp_b2_leaves *x = &b2_tab[b <= MP_B2_BMAX ? b : MP_B2_BMAX + 1];
    const mp_leaves *g = mns_pmns_mp_generic_leaves(b);
    mp_leaves l = {x->ab, x->fused, x->fused2, g->lo, g->tq, x->div};
    return l;
}

void mns_pmns_mp_mul_bmi2(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                          const uint64_t *b)
{
    mp_leaves l = leaves_for(c->plan.b);
    mns_pmns_mp_flow(c, r, a, b, 0, &l, 1);
}

void mns_pmns_mp_sqr_bmi2(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    mp_leaves l = leaves_for(c->plan.b);
    mns_pmns_mp_flow(c, r, a, a, 1, &l, 1);
}

int mns_pmns_mp_bmi2_prepare(mns_pmns_mp_ctx *c, double dtop)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, s = c->s, k = c->k, Lv = pl->leaves, nv = pl->nv, B = pl->b;
    const size_t ms = (size_t)c->mstride;
    /* the top digit enters as digit + D, in [0, 2D): its expanded entries
     * must stay below 2^64 */
    int e = (int)ceil(log2(dtop + 1));
    double growth = 1;
    for (int l = 0; l < pl->levels; l++)
        growth *= pl->f[l];
    if (e < 1 || ldexp(growth, e + 1) >= ldexp(1, 64) * (1 - ldexp(1, -20)) ||
        e + log2(fabs(1.0 - (double)c->lambda) + 1) >= 62)
        return 0;
    c->dbias = e;
    c->mseq_b = malloc((size_t)s * Lv * ms * sizeof *c->mseq_b);
    c->rinit = aligned_alloc(16, (size_t)2 * s * nv * sizeof *c->rinit);
    c->m0bias = aligned_alloc(16, (size_t)n * sizeof *c->m0bias);
    mp_i128 *P = aligned_alloc(16, (size_t)s * nv * sizeof *P);
    mp_u128 *ctmp = aligned_alloc(16, (size_t)pl->ctmp * sizeof *ctmp);
    uint64_t *ones = calloc((size_t)n + nv + pl->tmp + 8, sizeof *ones);
    if (!c->mseq_b || !c->rinit || !c->m0bias || !P || !ctmp || !ones) {
        free(P);
        free(ctmp);
        free(ones);
        return 0;
    }
    for (size_t q = 0; q < (size_t)s * Lv * ms; q++)
        c->mseq_b[q] = c->mseq[q] ^ ((uint64_t)1 << 63);
    /* P_j = M_j 1 in the leaf domain (exact: the generic signed leaves) */
    uint64_t *e1 = ones + n, *et = e1 + nv;
    for (int q = 0; q < n; q++)
        ones[q] = 1;
    if (pl->levels)
        mns_pmns_mp_expand_vec(pl, ones, e1, et);
    else
        memcpy(e1, ones, (size_t)n * sizeof *e1);
    const mp_leaves *g = mns_pmns_mp_generic_leaves(B);
    memset(P, 0, (size_t)s * nv * sizeof *P);
    for (int j = 0; j < s; j++)
        for (int l = 0; l < Lv; l++)
            g->ab(P + (size_t)j * nv + (size_t)l * B, c->mseq + ((size_t)j * Lv + l) * ms,
                  e1 + (size_t)l * B, B, 0);
    const mp_i128 half = (mp_i128)1 << (k - 1);
    memset(c->rinit, 0, (size_t)2 * s * nv * sizeof *c->rinit);
    for (int i = 0; i < s; i++)
        for (int j = 1; j < s; j++)
            for (int q = 0; q < nv; q++)
                c->rinit[(size_t)(i + j) * nv + q] -= half * P[(size_t)j * nv + q];
    if (pl->levels)
        mns_pmns_mp_contract_u128(pl, (const mp_u128 *)P, B, (mp_u128 *)c->m0bias, ctmp);
    else
        memcpy(c->m0bias, P, (size_t)n * sizeof *P);
    for (int q = 0; q < n; q++)
        c->m0bias[q] *= half;
    free(P);
    free(ctmp);
    free(ones);
    return 1;
}
