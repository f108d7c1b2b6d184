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
 * through the plan of pmns_mp/plan.c. With no split R, T and the carries stay in
 * coefficient form, nothing is expanded or contracted and the carry of step
 * i is folded into R_(i+1); with a split R lives in the expanded (leaf)
 * domain and only the digit a step needs is contracted, twice per step.
 *
 * Why the expanded accumulators may wrap: leaf products are exact (64 x 64
 * -> 128 bits of entries that fit int64, checked at creation), sums are taken
 * mod 2^128 and the contraction is an integer linear map, so each contracted
 * value is right mod 2^128; the creation checks bound the contracted (true)
 * values below 2^127, hence they are exact. Only the entries need the
 * splitting's growth accounted for (mns_pmns_mp_generic_plan_ok).

 *
 * Leaves are compiled once per leaf size b <= MP_GEN_BMAX with every loop
 * unrolled; larger leaves run the same code with run-time loops. Constant
 * time: every loop bound and branch depends on (n, s, k, plan) only;
 * divisions by 2^k are shifts, reductions are masks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <x86intrin.h>

#include "pmns_mp/generic.h"
#include "core/tmp.h"

/* ---- leaves ------------------------------------------------------------- */

/* a += sum_c t[r - c] v[c] for one row r (t points at diagonal 0), a the
 * 128-bit sum as two words (passed by value: through pointers the compiler
 * kept them in memory inside the leaves' loops).
 * One row at a time, with the 128-bit sum as two words added with carry:
 * GCC then emits the ideal load, imul, add, adc per product with both
 * operands read from memory; with several int128 rows in flight it spilled
 * (5 instructions per product). */
typedef struct mp_acc {
    unsigned long long lo, hi;
} mp_acc;

static inline __attribute__((always_inline)) mp_acc row_mac(mp_acc a, const uint64_t *t,
                                                            const uint64_t *v, int b, int r)
{
    unsigned long long lo = a.lo, hi = a.hi;
#pragma GCC unroll 32
    for (int col = 0; col < b; col++) {
        mp_i128 p = (mp_i128)(int64_t)t[r - col] * (int64_t)v[col];
        unsigned char cf = _addcarry_u64(0, lo, (uint64_t)p, &lo);
        _addcarry_u64(cf, hi, (uint64_t)(p >> 64), &hi);
    }
    a.lo = lo, a.hi = hi;
    return a;
}

static inline mp_i128 mk128(unsigned long long lo, unsigned long long hi)
{
    return (mp_i128)(((mp_u128)hi << 64) | lo);
}


/* R[r] += dbl (t1 v1)[r] + two (t2 v2)[r] for r < b (dbl 1 or 2: the
 * squaring's doubled cross products, doubled after the sum so the entries
 * keep their bounds; two 0 or 1; constants). t1, t2 point at diagonal
 * -(b-1). */
static inline __attribute__((always_inline)) void
leaf_add(mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,
         const uint64_t *v2, int b, int dbl, int two)
{
    t1 += b - 1;
    t2 += two ? b - 1 : 0;
#pragma GCC unroll 32
    for (int r = 0; r < b; r++) {
        mp_acc a = {0, 0};
        a = row_mac(a, t1, v1, b, r);
        if (dbl == 2) {
            mp_u128 d = ((mp_u128)a.hi << 64 | a.lo) << 1;
            a.lo = (uint64_t)d;
            a.hi = (uint64_t)(d >> 64);
        }
        if (two)
            a = row_mac(a, t2, v2, b, r);
        R[r] += mk128(a.lo, a.hi);
    }
}


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

/* Rn[r] += (Ri[r] + (m0 T)[r]) >> k (exact), unsplit (b == n) */
static inline __attribute__((always_inline)) void
leaf_div(mp_i128 *Rn, const mp_i128 *Ri, const uint64_t *m0, const uint64_t *T, int b, int k)
{
    const uint64_t *t = m0 + (b - 1);
#pragma GCC unroll 32
    for (int r = 0; r < b; r++) {
        mp_acc a = {0, 0};
        a = row_mac(a, t, T, b, r);
        Rn[r] += sar128(Ri[r] + mk128(a.lo, a.hi), k);
    }
}

/* Small leaves (b <= 4), all L of a product in one loop: a row's sum is a
 * plain __int128 (few rows, no spill: 5-6 instructions per product with the
 * loop), where per-leaf calls would cost more than the leaf itself. */
static inline __attribute__((always_inline)) void
small_leaves(mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,
             const uint64_t *v2, size_t ms, int b, int L, int dbl, int two)
{
    for (int l = 0; l < L; l++) {
        const int64_t *a1 = (const int64_t *)(t1 + l * ms + b - 1);
        const int64_t *x1 = (const int64_t *)(v1 + (size_t)l * b);
        const int64_t *a2 = (const int64_t *)(t2 + l * ms + b - 1);
        const int64_t *x2 = (const int64_t *)(v2 + (size_t)l * b);
        mp_i128 *Rl = R + (size_t)l * b;
#pragma GCC unroll 4
        for (int r = 0; r < b; r++) {
            mp_i128 acc = 0;
#pragma GCC unroll 4
            for (int c = 0; c < b; c++)
                acc += (mp_i128)a1[r - c] * x1[c];
            if (dbl == 2)
                acc += acc;
            if (two)
#pragma GCC unroll 4
                for (int c = 0; c < b; c++)
                    acc += (mp_i128)a2[r - c] * x2[c];
            Rl[r] += acc;
        }
    }
}

/* The leaves of one size b, compiled apart (noinline) so that each gets the
 * whole register file (inlined into the flow, the compiler spilled the
 * 128-bit accumulators: 3 moves per product; inside a loop over the leaves
 * it kept the two words of a row's sum in memory, so a product leaf is
 * called once per leaf). Each entry runs the L leaves of a product: leaf l
 * has its Toeplitz entries at t + l ms (2b-1 from diagonal -(b-1)), its
 * vector at v + l b and its outputs at R + l b.
 *   ab:    R_l += t_l v_l
 *   fused: R_l += dbl t1_l v1_l + t2_l v2_l      (dbl 1 or 2)
 *   lo:    out_l = t_l v_l mod 2^64
 *   tq:    T = centre((t R) mod 2^k), R read through its low words (b = n)
 *   div:   Rn += (Ri + t T) >> k                  (b = n, no split) */
typedef struct mp_leaves {
    void (*ab)(mp_i128 *R, const uint64_t *t, size_t ms, const uint64_t *v, int b, int L);
    void (*fused)(mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,
                  const uint64_t *v2, size_t ms, int b, int L, int dbl);
    void (*lo)(uint64_t *out, const uint64_t *t, size_t ms, const uint64_t *v, int b, int L);
    void (*tq)(uint64_t *T, const uint64_t *t, const mp_i128 *R, int b, int sh);
    void (*div)(mp_i128 *Rn, const mp_i128 *Ri, const uint64_t *m0, const uint64_t *T, int b,
                int k);
} mp_leaves;

#define MP_GEN_BMAX 16
#define MP_GEN_CASES(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
    X(14) X(15) X(16)

#define MP_LEAF_INST(NAME, B)                                                                   \
    static __attribute__((noinline)) void ab1_##NAME(mp_i128 *R, const uint64_t *t,              \
                                                    const uint64_t *v, int b)                   \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_add(R, t, v, t, v, B, 1, 0);                                                       \
    }                                                                                           \
    static __attribute__((noinline)) void f1_##NAME(mp_i128 *R, const uint64_t *t1,              \
                                                   const uint64_t *v1, const uint64_t *t2,      \
                                                   const uint64_t *v2, int b)                   \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_add(R, t1, v1, t2, v2, B, 1, 1);                                                   \
    }                                                                                           \
    static __attribute__((noinline)) void f2_##NAME(mp_i128 *R, const uint64_t *t1,              \
                                                   const uint64_t *v1, const uint64_t *t2,      \
                                                   const uint64_t *v2, int b)                   \
    {                                                                                           \
        (void)b;                                                                                \
        leaf_add(R, t1, v1, t2, v2, B, 2, 1);                                                   \
    }                                                                                           \
    static __attribute__((noinline)) void ab_##NAME(mp_i128 *R, const uint64_t *t, size_t ms,    \
                                                   const uint64_t *v, int b, int L)             \
    {                                                                                           \
        if (B <= 3) {                                                                           \
            small_leaves(R, t, v, t, v, ms, B, L, 1, 0);                                        \
            return;                                                                             \
        }                                                                                       \
        for (int l = 0; l < L; l++)                                                             \
            ab1_##NAME(R + (size_t)l * b, t + l * ms, v + (size_t)l * b, b);                    \
    }                                                                                           \
    static __attribute__((noinline)) void fused_##NAME(                                          \
        mp_i128 *R, const uint64_t *t1, const uint64_t *v1, const uint64_t *t2,                 \
        const uint64_t *v2, size_t ms, int b, int L, int dbl)                                   \
    {                                                                                           \
        if (B <= 3) {                                                                           \
            if (dbl == 2)                                                                       \
                small_leaves(R, t1, v1, t2, v2, ms, B, L, 2, 1);                                \
            else                                                                                \
                small_leaves(R, t1, v1, t2, v2, ms, B, L, 1, 1);                                \
            return;                                                                             \
        }                                                                                       \
        for (int l = 0; l < L; l++)                                                             \
            (dbl == 2 ? f2_##NAME : f1_##NAME)(R + (size_t)l * b, t1 + l * ms,                  \
                                               v1 + (size_t)l * b, t2 + l * ms,                 \
                                               v2 + (size_t)l * b, b);                          \
    }                                                                                           \
    static __attribute__((noinline)) void lo_##NAME(uint64_t *out, const uint64_t *t, size_t ms, \
                                                   const uint64_t *v, int b, int L)             \
    {                                                                                           \
        (void)b;                                                                                \
        for (int l = 0; l < L; l++)                                                             \
            leaf_lo(out + (size_t)l * B, t + l * ms, v + (size_t)l * B, B);                     \
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
#define MP_ENTRY(B) [B] = {ab_b##B, fused_b##B, lo_b##B, tq_b##B, div_b##B},
    MP_GEN_CASES(MP_ENTRY)
#undef MP_ENTRY
    [MP_GEN_BMAX + 1] = {ab_any, fused_any, lo_any, tq_any, div_any},
};

/* ---- the flow ------------------------------------------------------------ */

typedef struct mp_lay {
    size_t na, nb, cy, aseq, bv, r, carry, x, ctmp, tx, tout, t, tv, etmp, total;
} mp_lay;

static void layout(const mns_pmns_mp_ctx *c, mp_lay *L)
{
    const mp_plan *pl = &c->plan;
    size_t s = (size_t)c->s, n = (size_t)c->n, nv = (size_t)pl->nv, Lv = (size_t)pl->leaves;
    size_t o = 0;
    L->na = o, o += s * n + 8;
    L->nb = o, o += s * n + 8;
    L->cy = o, o += n + 8;
    L->aseq = o, o += s * Lv * c->mstride + 16;
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


static void normalise(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, int64_t *cy)
{
    normalise_ns(c, r, a, cy, c->n, c->s);
}


static void vexp(const mp_plan *pl, const uint64_t *v, uint64_t *o, uint64_t *tmp)
{
    if (pl->levels != 1)
        mns_pmns_mp_expand_vec(pl, v, o, tmp);
    else
        vexp1(v, o, pl->b, pl->f[0]);
}


static void mexp(const mp_plan *pl, const uint64_t *t, uint64_t *o, size_t ms, uint64_t *tmp)
{
    if (pl->levels != 1)
        mns_pmns_mp_expand_mat(pl, t, o, (int)ms, tmp);
    else
        mexp1(t, o, ms, pl->b, pl->f[0], pl->n);
}


static void cont128(const mp_plan *pl, const mp_i128 *in, mp_i128 *o, mp_u128 *tmp)
{
    if (pl->levels == 1)
        MP_CONTRACT1(o, in, pl->b, pl->f[0]);
    else
        mns_pmns_mp_contract_u128(pl, (const mp_u128 *)in, pl->b, (mp_u128 *)o, tmp);
}

static void cont64(const mp_plan *pl, const uint64_t *in, uint64_t *o, uint64_t *tmp)
{
    if (pl->levels == 1)
        MP_CONTRACT1(o, in, pl->b, pl->f[0]);
    else
        mns_pmns_mp_contract_u64(pl, in, pl->b, o, tmp);
}

/* Algorithm 3 (sqr: b == a, squaring schedule) for the leaves lf. */
static void flow(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *bb,
                 int sqr)
{
    const mp_plan *pl = &c->plan;
    const int B = pl->b;
    const mp_leaves *lf = &leaves_tab[B <= MP_GEN_BMAX ? B : MP_GEN_BMAX + 1];
    const int n = c->n, s = c->s, k = c->k, Lv = pl->leaves, nv = pl->nv, split = pl->levels > 0;
    const size_t ms = (size_t)c->mstride, mstep = (size_t)Lv * ms; /* one digit's matrices */
    mns_tmp tmp;
    mp_lay L;
    layout(c, &L);
    uint64_t *w = mns_tmp_get(&tmp, L.total + 2);
    if (((uintptr_t)w & 15) != 0)
        w += 1;
    uint64_t *na = w + L.na, *nb = sqr ? na : w + L.nb;
    uint64_t *aseq = w + L.aseq, *bv = w + L.bv, *etmp = w + L.etmp;
    mp_i128 *R = (mp_i128 *)(w + L.r), *carry = (mp_i128 *)(w + L.carry);
    mp_i128 *X = (mp_i128 *)(w + L.x);
    mp_u128 *ct = (mp_u128 *)(w + L.ctmp);
    uint64_t *tx = w + L.tx, *tout = w + L.tout, *T = w + L.t, *tv = w + L.tv;
    const int sh = 64 - k;

    normalise(c, na, a, (int64_t *)(w + L.cy));
    if (!sqr)
        normalise(c, nb, bb, (int64_t *)(w + L.cy));
    /* A_j as (expanded) Toeplitz matrices, B_i as (expanded) vectors */
    for (int j = 0; j < s; j++) {
        uint64_t *seq = aseq + (size_t)j * mstep;
        if (split) {
            mns_pmns_mp_toeplitz_seq(tx, na + (size_t)j * n, n, c->lambda);
            mexp(pl, tx, seq, ms, etmp);
        } else
            mns_pmns_mp_toeplitz_seq(seq, na + (size_t)j * n, n, c->lambda);
    }
    const uint64_t *vbase = nb;
    size_t vstep = (size_t)n;
    if (split) {
        for (int i = 0; i < s; i++)
            vexp(pl, nb + (size_t)i * n, bv + (size_t)i * nv, etmp);
        vbase = bv, vstep = (size_t)nv;
        memset(carry, 0, (size_t)n * sizeof *carry);
    }
    memset(R, 0, (size_t)(2 * s) * nv * sizeof *R);

    for (int i = 0; i < s; i++) {
        mp_i128 *Ri = R + (size_t)i * nv;
        const uint64_t *vb = vbase + (size_t)i * vstep;
        const uint64_t *vt = split ? tv : T;
        /* R_i += A_0 B_i (squaring: only at i = 0, A_0 A_0) */
        if (!sqr || i == 0)
            lf->ab(Ri, aseq, ms, vb, B, Lv);
        if (!split) {
            /* T = R_i M'_0 mod 2^k, centred in [-2^(k-1), 2^(k-1)); R_i + T M_0
             * is divisible by 2^k: the exact division is a shift, its result
             * the carry into R_(i+1) */
            lf->tq(T, c->mpseq, Ri, B, sh);
            lf->div(Ri + nv, Ri, c->mseq, T, B, k);
        } else {
            /* X = R_i + carry; only its low words make T */
            cont128(pl, Ri, X, ct);
            for (int q = 0; q < n; q++)
                T[q] = (uint64_t)X[q] + (uint64_t)carry[q];
            vexp(pl, T, tx, etmp);
            lf->lo(tout, c->mpseq, ms, tx, B, Lv);
            cont64(pl, tout, T, (uint64_t *)ct);
            for (int q = 0; q < n; q++)
                T[q] = (uint64_t)((int64_t)(T[q] << sh) >> sh);
            vexp(pl, T, tv, etmp);
            lf->ab(Ri, c->mseq, ms, tv, B, Lv);
            cont128(pl, Ri, X, ct);
            for (int q = 0; q < n; q++)
                carry[q] = sar128(X[q] + carry[q], k);
        }
        /* R_(i+j) += A_j B_i + T M_j (squaring: A_j A_i for j >= i, doubled
         * for j > i) */
        for (int j = 1; j < s; j++) {
            const int mode = !sqr ? 1 : (j < i ? 0 : (j == i ? 1 : 2));
            mp_i128 *Rd = R + (size_t)(i + j) * nv;
            const uint64_t *sa = aseq + (size_t)j * mstep, *sm = c->mseq + (size_t)j * mstep;
            if (mode)
                lf->fused(Rd, sa, vb, sm, vt, ms, B, Lv, mode);
            else
                lf->ab(Rd, sm, ms, vt, B, Lv);
        }
    }
    /* lines 15-18: the digits R_s .. R_(2s-1) plus the carries, normalised
     * (unsplit: the carry of the last step is already in R_s) */
    const mp_i128 *Z = R + (size_t)s * nv;
    if (split) {
        for (int j = 0; j < s - 1; j++) {
            cont128(pl, R + (size_t)(s + j) * nv, X, ct);
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
}


void mns_pmns_mp_mul_generic(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                             const uint64_t *b)
{
    if (!mns_pmns_mp_fi_mul(c, r, a, b))
        flow(c, r, a, b, 0);
}

void mns_pmns_mp_sqr_generic(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    if (!mns_pmns_mp_fi_sqr(c, r, a))
        flow(c, r, a, a, 1);
}

/* ---- plan choice: the bounds and the cost of this kernel ------------------- */

/* Cost model of this kernel, TSC ticks per multiplication, fitted (least
 * squares on relative error) to 80 timings of every 2/3 plan of 16 (n, s)
 * sets at 1024-8192 bits on this machine, leaves 2..16 (docs/pmns-mp.md):
 * worst error 14%. Terms: products mod 2^64 (the M'_0 leaves), products
 * with a 128-bit sum, leaf rows (a row's sum into R), and per split level
 * s times the number of h-coefficient blocks it splits (its expansions and
 * contractions). Leaves of 1 are far slower (the per-row work dominates: measured
 * 1.2-1.6x the model) and leaves above 16 run without unrolling (3.2x the
 * products' cost): both are priced accordingly. */
#define MP_COST_LOW 0.65
#define MP_COST_FULL 0.812
#define MP_COST_ROW 1.774
#define MP_COST_LIN2 24.5
#define MP_COST_LIN3 31.9
#define MP_COST_FIXED 221.0

typedef struct mp_iv {
    mp_i128 lo, hi;
} mp_iv;

static mp_i128 absmax(mp_iv x) { return x.hi > -x.lo ? x.hi : -x.lo; }
static mp_i128 max128(mp_i128 a, mp_i128 b) { return a > b ? a : b; }

/* largest |entry| over the leaves of a matrix (vec = 0) or vector (vec = 1)
 * whose root entries lie in x, through levels lev.. of the plan: the
 * differences of the splitting widen the range, the sums scale it. Exact
 * (128-bit integers: < 2^64 4^12). */
static mp_i128 leaf_range(const mp_plan *pl, int lev, mp_iv x, int vec)
{
    if (lev == pl->levels)
        return absmax(x);
    mp_i128 m, w = x.hi - x.lo;
    if (vec) {
        mp_iv s2 = {2 * x.lo, 2 * x.hi}, s3 = {3 * x.lo, 3 * x.hi};
        m = max128(leaf_range(pl, lev + 1, x, 1), leaf_range(pl, lev + 1, s2, 1));
        if (pl->f[lev] == 3)
            m = max128(m, leaf_range(pl, lev + 1, s3, 1));
    } else {
        mp_iv d = {-w, w}, d2 = {-2 * w, 2 * w};
        m = max128(leaf_range(pl, lev + 1, x, 0), leaf_range(pl, lev + 1, d, 0));
        if (pl->f[lev] == 3)
            m = max128(m, leaf_range(pl, lev + 1, d2, 0));
    }
    return m;
}

/* hull of the Toeplitz sequence entries {a, lambda a} for a in x */
static mp_iv seq_range(mp_iv x, long lambda)
{
    mp_i128 p = lambda * x.lo, q = lambda * x.hi;
    mp_iv r = {x.lo, x.hi};
    r.lo = p < r.lo ? p : r.lo;
    r.lo = q < r.lo ? q : r.lo;
    r.hi = p > r.hi ? p : r.hi;
    r.hi = q > r.hi ? q : r.hi;
    return r;
}

/* 1 if the kernel is exact on plan pl: every expanded vector and matrix entry
 * fits int64, and every digit R_d of Algorithm 3 (the true, contracted value,
 * carries included) fits int128. dtop bounds the operands' top digit after
 * normalisation; md holds M's digits. Bounds in doubles with a margin of
 * 2^-20 relative (the values are < 2^127, doubles hold 53 bits). */
int mns_pmns_mp_generic_plan_ok(const mns_pmns_mp_ctx *c, const mp_plan *pl, const uint64_t *md,
                                double dtop)
{
    const int n = c->n, s = c->s, k = c->k;
    const mp_i128 e63 = ((mp_i128)1 << 63) - 1;
    const double e127 = ldexp(1, 127) * (1 - ldexp(1, -20));
    const mp_i128 dmax = ((mp_i128)1 << k) - 1, tmax = (mp_i128)1 << (k - 1);
    const mp_i128 dt = (mp_i128)ceil(dtop);
    double amax[MNS_PMNS_S_MAX], mrow[MNS_PMNS_S_MAX];
    for (int j = 0; j < s; j++) {
        mp_iv dig = {0, dmax};
        if (j == s - 1)
            dig.lo = -dt, dig.hi = dt;
        amax[j] = (double)absmax(dig);
        /* operands: matrix entries (A_j) and vector entries (B_i) */
        if (leaf_range(pl, 0, seq_range(dig, c->lambda), 0) > e63 ||
            leaf_range(pl, 0, dig, 1) > e63)
            return 0;
        /* M_j: its exact digits; the largest row sum of |Toeplitz(M_j)| */
        mp_iv mr = {0, 0};
        double best = 0;
        for (int r = 0; r < n; r++) {
            double sum = 0;
            for (int q = 0; q < n; q++) {
                int64_t v = (int64_t)md[(size_t)j * n + q];
                mr.lo = v < mr.lo ? v : mr.lo;
                mr.hi = v > mr.hi ? v : mr.hi;
                sum += fabs((double)v) * (q <= r ? 1.0 : fabs((double)c->lambda));
            }
            best = fmax(best, sum);
        }
        mrow[j] = best;
        if (leaf_range(pl, 0, seq_range(mr, c->lambda), 0) > e63)
            return 0;
    }
    mp_iv tr = {-tmax, tmax};
    if (leaf_range(pl, 0, tr, 1) > e63)
        return 0;
    /* R_d: A_j B_i and T_i M_j with i + j = d, plus the carry from R_(d-1)
     * (doubles, rounding up by the margin) */
    const double w = fabs((double)c->lambda) * (n - 1) + 1;
    double carry = 0;
    for (int d = 0; d < 2 * s - 1; d++) {
        double b = carry;
        for (int j = 0; j < s; j++) {
            int i = d - j;
            if (i < 0 || i >= s)
                continue;
            b += w * amax[j] * amax[i] + mrow[j] * (double)tmax;
        }
        if (b > e127)
            return 0;
        carry = ldexp(b, -k) + 1;
    }
    return 1;
}

double mns_pmns_mp_generic_cost(int n, int s, const mp_plan *pl)
{
    (void)n;
    const double leaf = (double)pl->leaves * pl->b * pl->b;
    double full = 2.0 * s * s * leaf, low = s * leaf;
    double rows = (double)(s * s + s) * pl->leaves * pl->b, lin2 = 0, lin3 = 0;
    int m = pl->n, cnt = 1;
    for (int l = 0; l < pl->levels; l++) {
        int h = m / pl->f[l];
        if (pl->f[l] == 2)
            lin2 += (double)s * cnt * h;
        else
            lin3 += (double)s * cnt * h;
        cnt *= pl->f[l] == 2 ? 3 : 6;
        m = h;
    }
    if (pl->b > 16)
        full *= 3.2;
    double cost = MP_COST_LOW * low + MP_COST_FULL * full + MP_COST_ROW * rows +
                  MP_COST_LIN2 * lin2 + MP_COST_LIN3 * lin3 + MP_COST_FIXED;
    return pl->b == 1 && pl->levels ? 1.5 * cost : cost;
}


/* Cost of a compiled instance (TSC ticks): its products (128-bit, and mod
 * 2^64 for T), its leaf rows (a row's sum and store), and per split level
 * the contraction of each of the 3s - 1 digit passes. Fitted (least squares
 * on relative error, worst 2.5%) to the timings of the nine instances
 * (docs/pmns-mp.md: 1024-8192 bits, one and two levels); it ranks their
 * plans against the flow's (mns_pmns_mp_generic_cost) and the candidate
 * (n, s) (mns_pmns_mp_generic_candidates). */
#define MP_ICOST_FULL 0.893
#define MP_ICOST_LOW 0.590
#define MP_ICOST_LIN 1.340
#define MP_ICOST_ROW 0.988

static double mp_instance_cost(int s, const mp_plan *pl)
{
    const double leaf = (double)pl->leaves * pl->b * pl->b;
    return MP_ICOST_FULL * 2.0 * s * s * leaf + MP_ICOST_LOW * s * leaf +
           MP_ICOST_LIN * pl->levels * (3 * s - 1) * pl->n +
           MP_ICOST_ROW * (s * s + s) * pl->leaves * pl->b;
}

/* Every plan of n (split factors 2 and 3, any order, leaves >= 1) */
static void plan_walk(int n, int m, int *f, int depth, mp_plan *out, int *cnt, int max)
{
    if (*cnt < max)
        mns_pmns_mp_plan_make_factors(&out[(*cnt)++], n, f, depth);
    if (depth == MP_PLAN_MAX)
        return;
    for (int g = 2; g <= 3; g++)
        if (m % g == 0) {
            f[depth] = g;
            plan_walk(n, m / g, f, depth + 1, out, cnt, max);
        }
}

static int plan_list(int n, mp_plan *out, int max)
{
    int f[MP_PLAN_MAX] = {0}, cnt = 0;
    plan_walk(n, n, f, 0, out, &cnt, max);
    return cnt;
}

int mns_pmns_mp_generic_plan_choose(mns_pmns_mp_ctx *c, const uint64_t *md, double dtop, int base)
{
    mp_plan cand[256];
    int cnt = plan_list(c->n, cand, 256);
    int best = -1, fallback = -1;
    double best_cost = 0;
    for (int q = 0; q < cnt; q++) {
        if (!mns_pmns_mp_generic_plan_ok(c, &cand[q], md, dtop))
            continue;
        /* base: the leaf size limit asked for (tests use it to force deep
         * splits); if no plan meets it, the smallest leaf that passes */
        if (base > 0 && cand[q].b > base) {
            if (fallback < 0 || cand[q].b < cand[fallback].b)
                fallback = q;
            continue;
        }
        double cost = mns_pmns_mp_generic_cost(c->n, c->s, &cand[q]);
        if (mns_pmns_mp_fi_has(c->n, c->s, &cand[q]))
            cost = mp_instance_cost(c->s, &cand[q]);
        if (best < 0 || cost < best_cost)
            best = q, best_cost = cost;
    }
    if (best < 0)
        best = fallback;
    if (best < 0)
        return 0;
    c->plan = cand[best];
    return 1;
}

/* Candidates (n, s) for a p of `bits` bits, cheapest first by the cost model
 * of this kernel, before any generation: rho is estimated with the CIOS
 * paper's bound (3.1), log2 rho ~ bits/n + log2(n!)/n + log2 |lambda|
 * (lambda = 2, the common case; the generator's actual rho has been within a
 * bit of it at 1024-8192 bits), k = ceil(log2(2 w rho) / s) + a bit for
 * reduce, and a plan counts if its entries stay below 2^63 with that k and
 * lambda = 2. The generator then decides; a candidate it refuses is
 * skipped. */
int mns_pmns_mp_generic_candidates(size_t bits, int *out_n, int *out_s, int max)
{
    typedef struct {
        double cost;
        int n, s;
    } cand_t;
    cand_t best[64];
    int cnt = 0;
    mp_plan *pls = malloc(256 * sizeof *pls);
    if (!pls)
        return 0;
    for (int s = 2; s <= 6; s++) {
        int found = 0;
        double lgfact = 0;
        for (int n = 2; n <= 256 && found < 10; n++) {
            lgfact += log2((double)n);
            double rho = (double)bits / n + lgfact / n + 1.0;
            double w = 2.0 * (n - 1) + 1;
            int k = (int)ceil((rho + 1 + log2(w)) / s);
            if (k > 61)
                continue;
            found++;
            int np = plan_list(n, pls, 256);
            double c_best = -1;
            for (int q = 0; q < np; q++) {
                double gv = 1, gm = 1;
                for (int l = 0; l < pls[q].levels; l++)
                    gv *= pls[q].f[l], gm *= pls[q].f[l] == 2 ? 2 : 4;
                /* entries below 2^k (vectors), lambda 2^k (matrices), times
                 * the growth; a digit of R: A_0 B_0 (w 2^2k) and T M_0
                 * (n 2^2k) */
                if (k + log2(gv) > 62.9 || k + 1 + log2(gm) > 63 ||
                    2 * k + log2(w + n) > 126.9)
                    continue;
                /* priced as the plan choice will run it */
                double cst = mns_pmns_mp_fi_has(n, s, &pls[q])
                                 ? mp_instance_cost(s, &pls[q])
                                 : mns_pmns_mp_generic_cost(n, s, &pls[q]);
                if (c_best < 0 || cst < c_best)
                    c_best = cst;
            }
            if (c_best < 0 || cnt >= 64)
                continue;
            best[cnt].cost = c_best, best[cnt].n = n, best[cnt].s = s;
            cnt++;
        }
    }
    free(pls);
    /* selection sort, cheapest first */
    int m = cnt < max ? cnt : max;
    for (int i = 0; i < m; i++) {
        int b = i;
        for (int j = i + 1; j < cnt; j++)
            if (best[j].cost < best[b].cost)
                b = j;
        cand_t t = best[i];
        best[i] = best[b], best[b] = t;
        out_n[i] = best[i].n, out_s[i] = best[i].s;
    }
    return m;
}
