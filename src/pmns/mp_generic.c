/* Portable kernel of the multi-precision PMNS: Algorithm 3 of the CIOS paper
 * (polynomial Montgomery CIOS) on 64-bit words, signed digits, 128-bit
 * accumulators, in one fused flow per CIOS step:
 *
 *   R_i     += A_0 B_i                      (the digit T needs)
 *   T        = (R_i + carry) M'_0 mod (E, 2^k), centred
 *   carry    = (R_i + carry + T M_0) / 2^k   (exact)
 *   R_(i+j) += A_j B_i + T M_j,  j >= 1     (one register accumulation per
 *                                            row, one add into R)
 *
 * Every product by a polynomial mod E is a Toeplitz matrix-vector product
 * through the plan of mp_plan.c. With no split (the common case, n <= the
 * leaf limit) R, T and the carries stay in coefficient form and nothing is
 * expanded or contracted; with a split R lives in the expanded (leaf) domain
 * and only the digit a step needs is contracted, twice per step.
 *
 * Why the expanded accumulators may wrap: leaf products are exact (64 x 64
 * -> 128 bits of entries that fit int64, checked at creation), sums are taken
 * mod 2^128 and the contraction is an integer linear map, so each contracted
 * value is right mod 2^128; the creation checks bound the contracted (true)
 * values below 2^127, hence they are exact. Only the entries need the
 * splitting's growth accounted for (mns_pmns_mp_generic_plan_ok).
 *
 * Leaves are compiled once per leaf size b <= MP_GEN_BMAX with every column
 * loop unrolled (a product is load, imul, add, adc), four rows per pass (four
 * independent add/adc chains sharing the load of v[c]); larger leaves run the
 * same code with run-time loops. Constant time: every loop bound and branch
 * depends on (n, s, k, plan) only; divisions by 2^k are shifts, reductions
 * are masks. */
#include <stdlib.h>
#include <string.h>

#include <x86intrin.h>

#include "pmns/mp_ctx.h"

/* ---- leaves ------------------------------------------------------------- */

/* (hi:lo) += sum_c t[r - c] v[c] for one row r (t points at diagonal 0).
 * One row at a time, with the 128-bit sum as two words added with carry:
 * GCC then emits the ideal load, imul, add, adc per product with both
 * operands read from memory; with several int128 rows in flight it spilled
 * (5 instructions per product). The add/adc chain advances one product per
 * cycle, the multiplier's rate. */
static inline __attribute__((always_inline)) void
row_mac(unsigned long long *plo, unsigned long long *phi, const uint64_t *t, const uint64_t *v,
        int b, int r)
{
    unsigned long long lo = *plo, hi = *phi;
#pragma GCC unroll 32
    for (int col = 0; col < b; col++) {
        mp_i128 p = (mp_i128)(int64_t)t[r - col] * (int64_t)v[col];
        unsigned char cf = _addcarry_u64(0, lo, (uint64_t)p, &lo);
        _addcarry_u64(cf, hi, (uint64_t)(p >> 64), &hi);
    }
    *plo = lo;
    *phi = hi;
}

static inline mp_i128 mk128(unsigned long long lo, unsigned long long hi)
{
    return (mp_i128)(((mp_u128)hi << 64) | lo);
}

/* R[r] += (t v)[r] for r < b (t points at diagonal -(b-1)) */
static inline __attribute__((always_inline)) void
leaf_add(mp_i128 *R, const uint64_t *t, const uint64_t *v, int b)
{
    t += b - 1;
#pragma GCC unroll 32
    for (int r = 0; r < b; r++) {
        unsigned long long lo = 0, hi = 0;
        row_mac(&lo, &hi, t, v, b, r);
        R[r] += mk128(lo, hi);
    }
}

/* R[r] += dbl * (t1 v1)[r] + (t2 v2)[r], dbl 1 or 2 (the squaring's doubled
 * cross products, doubled after the sum so the entries keep their bounds) */
static inline __attribute__((always_inline)) void
leaf_add2(mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,
          const uint64_t *v2, int b, int dbl)
{
    t1 += b - 1;
    t2 += b - 1;
#pragma GCC unroll 32
    for (int r = 0; r < b; r++) {
        unsigned long long lo = 0, hi = 0;
        row_mac(&lo, &hi, t1, v1, b, r);
        if (dbl == 2) {
            mp_u128 d = ((mp_u128)hi << 64 | lo) << 1;
            lo = (uint64_t)d;
            hi = (uint64_t)(d >> 64);
        }
        row_mac(&lo, &hi, t2, v2, b, r);
        R[r] += mk128(lo, hi);
    }
}

/* out[r] = sum_c t[r - c] v[c] mod 2^64, one row at a time (load, imul,
 * add per product). V: uint64_t, or mp_i128 read through its low word. */
#define MP_LEAF_LO(out, t, v, b, V, EPI)                                                        \
    do {                                                                                        \
        const uint64_t *tt = (t) + ((b) - 1);                                                   \
        _Pragma("GCC unroll 32") for (int r = 0; r < (b); r++)                                  \
        {                                                                                       \
            uint64_t acc = 0;                                                                   \
            _Pragma("GCC unroll 32") for (int col = 0; col < (b); col++) acc +=                 \
                tt[r - col] * (uint64_t)(V)[col];                                               \
            (out)[r] = EPI(acc);                                                                \
        }                                                                                       \
    } while (0)

#define MP_RAW(x) (x)

static inline __attribute__((always_inline)) void
leaf_lo(uint64_t *out, const uint64_t *t, const uint64_t *v, int b)
{
    MP_LEAF_LO(out, t, v, b, v, MP_RAW);
}

/* T[r] = ((R M'_0)[r] mod 2^k), centred in [-2^(k-1), 2^(k-1)): unsplit, R
 * read through the low words of its 128-bit coefficients */
static inline __attribute__((always_inline)) void
leaf_t(uint64_t *T, const uint64_t *t, const mp_i128 *R, int b, int sh)
{
#define MP_CENTRE(x) ((uint64_t)((int64_t)((x) << sh) >> sh))
    MP_LEAF_LO(T, t, R, b, R, MP_CENTRE);
#undef MP_CENTRE
}

/* x >> k for 0 < k < 64, arithmetic (without the mask the compiler's 128-bit
 * shift also handles k >= 64, with a test and conditional moves) */
static inline mp_i128 sar128(mp_i128 x, int k)
{
    return x >> (k & 63); /* shrd, sar */
}

static inline __attribute__((always_inline)) void
leaf_div(mp_i128 *Rn, const mp_i128 *Ri, const uint64_t *m0, const uint64_t *T, int b, int k)
{
    const uint64_t *t = m0 + (b - 1);
#pragma GCC unroll 32
    for (int r = 0; r < b; r++) {
        unsigned long long lo = 0, hi = 0;
        row_mac(&lo, &hi, t, T, b, r);
        Rn[r] += sar128(Ri[r] + mk128(lo, hi), k);
    }
}

/* The leaves of one size, compiled apart (noinline) so that each gets the
 * whole register file: inlined into the flow, the compiler spilled the
 * 128-bit accumulators (3 moves per product). */
typedef struct mp_leaves {
    void (*ab)(mp_i128 *R, const uint64_t *t, const uint64_t *v, int b);
    /* fused: R += t1 v1 + t2 v2; fused2: R += 2 t1 v1 + t2 v2 */
    void (*fused)(mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,
                  const uint64_t *v2, int b);
    void (*fused2)(mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,
                   const uint64_t *v2, int b);
    void (*lo)(uint64_t *out, const uint64_t *t, const uint64_t *v, int b);
    void (*tq)(uint64_t *T, const uint64_t *t, const mp_i128 *R, int b, int sh);
    void (*div)(mp_i128 *Rn, const mp_i128 *Ri, const uint64_t *m0, const uint64_t *T, int b,
                int k);
} mp_leaves;

#define MP_GEN_BMAX 16
#define MP_GEN_CASES(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
    X(14) X(15) X(16)

#define MP_LEAF_INST(NAME, B)                                                                   \
    static __attribute__((noinline)) void ab_##NAME(mp_i128 *R, const uint64_t *t,               \
                                                   const uint64_t *v, int b)                    \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_add(R, t, v, B);                                                    \
    }                                                                                           \
    static __attribute__((noinline)) void fused_##NAME(mp_i128 *R, const uint64_t *t1,           \
                                                      const uint64_t *v1, const uint64_t *t2,   \
                                                      const uint64_t *v2, int b)                \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_add2(R, t1, v1, t2, v2, B, 1);                                                      \
    }                                                                                           \
    static __attribute__((noinline)) void fused2_##NAME(mp_i128 *R, const uint64_t *t1,          \
                                                       const uint64_t *v1, const uint64_t *t2,  \
                                                       const uint64_t *v2, int b)               \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_add2(R, t1, v1, t2, v2, B, 2);                                                      \
    }                                                                                           \
    static __attribute__((noinline)) void lo_##NAME(uint64_t *out, const uint64_t *t,            \
                                                   const uint64_t *v, int b)                    \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_lo(out, t, v, B);                                                                  \
    }                                                                                           \
    static __attribute__((noinline)) void tq_##NAME(uint64_t *T, const uint64_t *t,              \
                                                   const mp_i128 *R, int b, int sh)             \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_t(T, t, R, B, sh);                                                                 \
    }                                                                                           \
    static __attribute__((noinline)) void div_##NAME(mp_i128 *Rn, const mp_i128 *Ri,             \
                                                    const uint64_t *m0, const uint64_t *T,      \
                                                    int b, int k)                               \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_div(Rn, Ri, m0, T, B, k);                                                          \
    }
#define MP_LEAF_FIXED(B) MP_LEAF_INST(b##B, B)
MP_GEN_CASES(MP_LEAF_FIXED)
MP_LEAF_INST(any, b)
#undef MP_LEAF_FIXED
#undef MP_LEAF_INST

static const mp_leaves leaves_tab[MP_GEN_BMAX + 2] = {
#define MP_ENTRY(B) [B] = {ab_b##B, fused_b##B, fused2_b##B, lo_b##B, tq_b##B, div_b##B},
    MP_GEN_CASES(MP_ENTRY)
#undef MP_ENTRY
    [MP_GEN_BMAX + 1] = {ab_any, fused_any, fused2_any, lo_any, tq_any, div_any},
};

/* ---- the flow ------------------------------------------------------------ */

typedef struct mp_lay {
    size_t na, nb, aseq, bv, r, carry, x, tx, tout, t, tv, etmp, ctmp, total;
} mp_lay;

static void layout(const mns_pmns_mp_ctx *c, mp_lay *L)
{
    const mp_plan *pl = &c->plan;
    size_t s = (size_t)c->s, n = (size_t)c->n, nv = (size_t)pl->nv, o = 0;
    L->na = o, o += s * n + 8;
    L->nb = o, o += s * n + 8;
    L->aseq = o, o += s * (size_t)pl->leaves * c->mstride + 16;
    L->bv = o, o += s * nv + 8;
    o = (o + 1) & ~(size_t)1; /* 16-byte alignment for the 128-bit words */
    L->r = o, o += 2 * (2 * s) * nv;
    L->carry = o, o += 2 * n;
    L->x = o, o += 2 * n;
    L->ctmp = o, o += 2 * (size_t)pl->ctmp;
    L->tx = o, o += nv + 8;
    L->tout = o, o += nv + 8;
    L->t = o, o += n + 8;
    L->tv = o, o += nv + 8;
    L->etmp = o, o += (size_t)pl->tmp;
    L->total = o + 2;
}

size_t mns_pmns_mp_scratch_generic(const mns_pmns_mp_ctx *c)
{
    mp_lay L;
    layout(c, &L);
    return L.total;
}

/* The whole multiplication (sqr: b == a, squaring schedule) for leaf size B
 * (a constant in the instances below, so the leaves unroll). */
static void mul_body(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *bb,
                     int sqr)
{
    const int B = c->plan.b;
    const mp_leaves *lf = &leaves_tab[B <= MP_GEN_BMAX ? B : MP_GEN_BMAX + 1];
    const mp_plan *pl = &c->plan;
    const int n = c->n, s = c->s, k = c->k, Lv = pl->leaves, nv = pl->nv, split = pl->levels > 0;
    const size_t ms = (size_t)c->mstride;
    mp_scratch tmp;
    mp_lay L;
    layout(c, &L);
    uint64_t *w = mp_scratch_get(&tmp, L.total + 2);
    if (!w) {
        memset(r, 0, c->limbs * sizeof *r);
        return;
    }
    if (((uintptr_t)w & 15) != 0)
        w += 1;
    uint64_t *na = w + L.na, *nb = sqr ? na : w + L.nb;
    uint64_t *aseq = w + L.aseq, *bv = w + L.bv, *etmp = w + L.etmp;
    mp_i128 *R = (mp_i128 *)(w + L.r), *carry = (mp_i128 *)(w + L.carry);
    mp_i128 *X = (mp_i128 *)(w + L.x);
    mp_u128 *ct = (mp_u128 *)(w + L.ctmp);
    uint64_t *tx = w + L.tx, *tout = w + L.tout, *T = w + L.t, *tv = w + L.tv;
    const int sh = 64 - k;

    mns_pmns_mp_normalize(c, na, a);
    if (!sqr)
        mns_pmns_mp_normalize(c, nb, bb);
    /* A_j as (expanded) Toeplitz matrices, B_i as (expanded) vectors */
    for (int j = 0; j < s; j++) {
        uint64_t *seq = aseq + (size_t)j * Lv * ms;
        if (split) {
            mns_pmns_mp_toeplitz_seq(tx, na + (size_t)j * n, n, c->lambda);
            mns_pmns_mp_expand_mat(pl, tx, seq, (int)ms, etmp);
        } else
            mns_pmns_mp_toeplitz_seq(seq, na + (size_t)j * n, n, c->lambda);
    }
    if (split)
        for (int i = 0; i < s; i++)
            mns_pmns_mp_expand_vec(pl, nb + (size_t)i * n, bv + (size_t)i * nv, etmp);
    memset(R, 0, (size_t)(2 * s) * nv * sizeof *R);
    if (split)
        memset(carry, 0, (size_t)n * sizeof *carry);

    for (int i = 0; i < s; i++) {
        mp_i128 *Ri = R + (size_t)i * nv;
        const uint64_t *vb = split ? bv + (size_t)i * nv : nb + (size_t)i * n;
        const uint64_t *vt = split ? tv : T;
        if (!split) {
            if (!sqr || i == 0)
                lf->ab(Ri, aseq, vb, B);
            lf->tq(T, c->mpseq, Ri, B, sh);
            lf->div(Ri + nv, Ri, c->mseq, T, B, k);
        } else {
            /* R_i += A_0 B_i (squaring: only at i = 0, A_0 A_0) */
            if (!sqr || i == 0)
                for (int l = 0; l < Lv; l++)
                    lf->ab(Ri + (size_t)l * B, aseq + (size_t)l * ms, vb + (size_t)l * B, B);
            /* X = R_i + carry; T = X M'_0 mod 2^k, centred in [-2^(k-1), 2^(k-1)) */
            mns_pmns_mp_contract_u128(pl, (const mp_u128 *)Ri, B, (mp_u128 *)X, ct);
            for (int q = 0; q < n; q++)
                T[q] = (uint64_t)(X[q] + carry[q]);
            mns_pmns_mp_expand_vec(pl, T, tx, etmp);
            for (int l = 0; l < Lv; l++)
                lf->lo(tout + (size_t)l * B, c->mpseq + (size_t)l * ms, tx + (size_t)l * B, B);
            mns_pmns_mp_contract_u64(pl, tout, B, T, (uint64_t *)ct);
            for (int q = 0; q < n; q++)
                T[q] = (uint64_t)((int64_t)(T[q] << sh) >> sh);
            mns_pmns_mp_expand_vec(pl, T, tv, etmp);
            /* R_i + T M_0 is divisible by 2^k: the exact division is a shift */
            for (int l = 0; l < Lv; l++)
                lf->ab(Ri + (size_t)l * B, c->mseq + (size_t)l * ms, tv + (size_t)l * B, B);
            mns_pmns_mp_contract_u128(pl, (const mp_u128 *)Ri, B, (mp_u128 *)X, ct);
            for (int q = 0; q < n; q++)
                carry[q] = sar128(X[q] + carry[q], k);
        }
        /* R_(i+j) += A_j B_i + T M_j (squaring: A_j A_i for j >= i, doubled
         * for j > i) */
        for (int j = 1; j < s; j++) {
            const int mode = !sqr ? 1 : (j < i ? 0 : (j == i ? 1 : 2));
            mp_i128 *Rd = R + (size_t)(i + j) * nv;
            const uint64_t *sa = aseq + (size_t)j * Lv * ms, *sm = c->mseq + (size_t)j * Lv * ms;
            for (int l = 0; l < Lv; l++) {
                mp_i128 *Rl = Rd + (size_t)l * B;
                const uint64_t *ta = sa + (size_t)l * ms, *tm = sm + (size_t)l * ms;
                if (mode == 1)
                    lf->fused(Rl, ta, vb + (size_t)l * B, tm, vt + (size_t)l * B, B);
                else if (mode == 2)
                    lf->fused2(Rl, ta, vb + (size_t)l * B, tm, vt + (size_t)l * B, B);
                else
                    lf->ab(Rl, tm, vt + (size_t)l * B, B);
            }
        }
    }
    /* lines 15-18: the digits R_s .. R_(2s-1) plus the carries, normalised
     * (unsplit: the carry of the last step is already in R_s) */
    const mp_i128 *Z = R + (size_t)s * nv;
    if (split) {
        for (int j = 0; j < s - 1; j++) {
            mns_pmns_mp_contract_u128(pl, (const mp_u128 *)(R + (size_t)(s + j) * nv), B,
                                      (mp_u128 *)X, ct);
            for (int q = 0; q < n; q++) {
                mp_i128 y = X[q] + carry[q];
                r[(size_t)j * n + q] = (uint64_t)y & c->kmask;
                carry[q] = sar128(y, k);
            }
        }
        for (int q = 0; q < n; q++)
            r[(size_t)(s - 1) * n + q] = (uint64_t)carry[q];
    } else {
        for (int q = 0; q < n; q++) {
            mp_i128 y = Z[q];
            for (int j = 0; j < s - 1; j++) {
                r[(size_t)j * n + q] = (uint64_t)y & c->kmask;
                y = sar128(y, k) + Z[(size_t)(j + 1) * nv + q];
            }
            r[(size_t)(s - 1) * n + q] = (uint64_t)y;
        }
    }
    mp_scratch_release(&tmp);
}

void mns_pmns_mp_mul_generic(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                             const uint64_t *b)
{
    mul_body(c, r, a, b, 0);
}

void mns_pmns_mp_sqr_generic(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    mul_body(c, r, a, a, 1);
}
