/* Portable kernel of the multi-precision PMNS: Algorithm 3 of the CIOS paper
 * (polynomial Montgomery CIOS) on 64-bit words, signed digits, 128-bit
 * accumulators. Every product by a polynomial mod E goes through the Toeplitz
 * plan (mp_plan.c); the accumulator R lives in the expanded domain so that the
 * s products A_j B_i and the s products T M_j landing in one digit R_(i+j) are
 * contracted once. Constant time: every loop bound and branch depends on
 * (n, s, k, plan) only; divisions by 2^k are shifts, reductions are masks. */
#include <stdlib.h>
#include <string.h>

#include "pmns/mp_ctx.h"

/* word offsets of the scratch areas */
typedef struct mp_lay {
    size_t aseq, bv, av2, r, carry, x, xv, tout, t, tv, etmp, ctmp, total;
} mp_lay;

static void layout(const mns_pmns_mp_ctx *c, mp_lay *L)
{
    const mp_plan *pl = &c->plan;
    size_t s = (size_t)c->s, n = (size_t)c->n, o = 0;
    L->aseq = o, o += s * pl->leaves * c->mstride + 16;
    L->bv = o, o += s * pl->nv + 8;
    L->av2 = o, o += 2 * s * n + 8; /* the normalised operands */
    o = (o + 1) & ~(size_t)1; /* 16-byte alignment for the 128-bit words */
    L->r = o, o += 2 * (size_t)pl->leaves * 2 * s * pl->b;
    L->carry = o, o += 2 * n;
    L->x = o, o += 2 * n;
    L->ctmp = o, o += 2 * (size_t)pl->ctmp;
    L->xv = o, o += pl->nv + 8;
    L->tout = o, o += pl->nv + 8;
    L->t = o, o += n + 8;
    L->tv = o, o += pl->nv + 8;
    L->etmp = o, o += pl->tmp;
    L->total = o + 2;
}

size_t mns_pmns_mp_scratch_generic(const mns_pmns_mp_ctx *c)
{
    mp_lay L;
    layout(c, &L);
    return L.total;
}

/* R[r] += sum_c t[r - c] v[c] for r < b (t indexed from -(b-1)), rows
 * rows at a time (at most 4): they share the load of v[col], and a signed
 * 64x64 product with its 128-bit add/adc is 4 instructions, so the loop
 * overhead is spread over 4 products (the loop is front-end bound, not
 * multiplier bound) and four independent add/adc chains keep the multiplier
 * busy. The squaring's doubled cross products are doubled after the sum, so
 * the inputs keep their bounds. */
static inline __attribute__((always_inline)) void
leaf_rows(mp_i128 *R, const uint64_t *t0, const uint64_t *v, int b, int twice, int rows)
{
    mp_i128 acc[4] = {0, 0, 0, 0};
#pragma GCC unroll 16
    for (int col = 0; col < b; col++) {
        const int64_t x = (int64_t)v[col];
#pragma GCC unroll 4
        for (int q = 0; q < rows; q++)
            acc[q] += (mp_i128)(int64_t)t0[q - col] * x;
    }
#pragma GCC unroll 4
    for (int q = 0; q < rows; q++)
        R[q] += twice ? 2 * acc[q] : acc[q];
}

static inline __attribute__((always_inline)) void
leaf_acc_body(mp_i128 *R, const uint64_t *t, const uint64_t *v, int b, int twice)
{
    const uint64_t *tc = t + (b - 1);
    int r = 0;
    for (; r + 4 <= b; r += 4)
        leaf_rows(R + r, tc + r, v, b, twice, 4);
    for (; r + 2 <= b; r += 2)
        leaf_rows(R + r, tc + r, v, b, twice, 2);
    for (; r < b; r++)
        leaf_rows(R + r, tc + r, v, b, twice, 1);
}

/* the same modulo 2^64 (four rows per pass for the same reason) */
static inline __attribute__((always_inline)) void
leaf_lo_body(uint64_t *out, const uint64_t *t, const uint64_t *v, int b)
{
    const uint64_t *tc = t + (b - 1);
    int r = 0;
    for (; r + 4 <= b; r += 4) {
        uint64_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
        const uint64_t *t0 = tc + r;
#pragma GCC unroll 16
        for (int col = 0; col < b; col++) {
            const uint64_t x = v[col];
            acc0 += t0[-col] * x;
            acc1 += t0[1 - col] * x;
            acc2 += t0[2 - col] * x;
            acc3 += t0[3 - col] * x;
        }
        out[r] = acc0, out[r + 1] = acc1, out[r + 2] = acc2, out[r + 3] = acc3;
    }
    for (; r < b; r++) {
        uint64_t acc = 0;
#pragma GCC unroll 16
        for (int col = 0; col < b; col++)
            acc += tc[r - col] * v[col];
        out[r] = acc;
    }
}

/* Fixed-size specialisations: with b a constant the column loops unroll
 * completely (no counter, no branch, loads with constant offsets) and a
 * product costs its 4 instructions (load, imul, add, adc). The leaf sizes of
 * the default plans are small (MP_BASE_GENERIC and the n the generator
 * gives), so the sizes up to 16 are specialised; the dispatch depends on the
 * public leaf size only. */
#define MP_LEAF_CASES(X) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
    X(14) X(15) X(16)

static void leaf_acc(mp_i128 *R, const uint64_t *t, const uint64_t *v, int b, int twice)
{
    switch (b) {
#define MP_CASE(B)                                                                                 \
    case B:                                                                                        \
        if (twice)                                                                                 \
            leaf_acc_body(R, t, v, B, 1);                                                          \
        else                                                                                       \
            leaf_acc_body(R, t, v, B, 0);                                                          \
        return;
        MP_LEAF_CASES(MP_CASE)
#undef MP_CASE
    default:
        leaf_acc_body(R, t, v, b, twice);
    }
}

static void leaf_lo(uint64_t *out, const uint64_t *t, const uint64_t *v, int b)
{
    switch (b) {
#define MP_CASE(B)                                                                                 \
    case B:                                                                                        \
        leaf_lo_body(out, t, v, B);                                                                \
        return;
        MP_LEAF_CASES(MP_CASE)
#undef MP_CASE
    default:
        leaf_lo_body(out, t, v, b);
    }
}

/* Products of one expanded vector by the s expanded matrices seq (s x leaves
 * x mstride), matrix j into digit d0 + j. */
static void products(const mns_pmns_mp_ctx *c, mp_i128 *R, const uint64_t *seq, const uint64_t *v,
                     int d0)
{
    const mp_plan *pl = &c->plan;
    const int b = pl->b, s = c->s;
    const size_t lstride = (size_t)2 * s * b;
    for (int l = 0; l < pl->leaves; l++)
        for (int j = 0; j < s; j++)
            leaf_acc(R + l * lstride + (size_t)(d0 + j) * b,
                     seq + ((size_t)j * pl->leaves + l) * c->mstride, v + (size_t)l * b, b, 0);
}

/* One CIOS digit step after the A B products of step i: T, T M_j, divide. */
static void reduce_step(const mns_pmns_mp_ctx *c, const mp_lay *L, uint64_t *w, int i)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, b = pl->b, s = c->s;
    const size_t lstride = (size_t)2 * s * b;
    mp_i128 *R = (mp_i128 *)(w + L->r);
    mp_i128 *carry = (mp_i128 *)(w + L->carry);
    mp_i128 *X = (mp_i128 *)(w + L->x);
    mp_u128 *ct = (mp_u128 *)(w + L->ctmp);
    uint64_t *xv = w + L->xv, *tout = w + L->tout, *T = w + L->t, *tv = w + L->tv;
    uint64_t *et = w + L->etmp;

    /* X = R_i (+ the carry of the previous division) */
    mns_pmns_mp_contract_u128(pl, (const mp_u128 *)(R + (size_t)i * b), (int)lstride,
                              (mp_u128 *)X, ct);
    for (int q = 0; q < n; q++)
        T[q] = (uint64_t)(X[q] + carry[q]);
    /* T = R_i M'_0 mod (E, 2^k): only the low word matters */
    mns_pmns_mp_expand_vec(pl, T, xv, et);
    for (int l = 0; l < pl->leaves; l++)
        leaf_lo(tout + (size_t)l * b, c->mpseq + (size_t)l * c->mstride, xv + (size_t)l * b, b);
    mns_pmns_mp_contract_u64(pl, tout, b, T, (uint64_t *)ct);
    const int sh = 64 - c->k;
    for (int q = 0; q < n; q++) {
        uint64_t t = T[q] & c->kmask;
        /* S64: the quotient digit centred in [-2^(k-1), 2^(k-1)), the range
         * the generator's closure check assumes; U52: [0, 2^k) */
        T[q] = c->u52 ? t : (uint64_t)((int64_t)(t << sh) >> sh);
    }
    mns_pmns_mp_expand_vec(pl, T, tv, et);
    products(c, R, c->mseq, tv, i);
    /* R_i + T M_0 is divisible by 2^k: the exact division is a shift */
    mns_pmns_mp_contract_u128(pl, (const mp_u128 *)(R + (size_t)i * b), (int)lstride,
                              (mp_u128 *)X, ct);
    for (int q = 0; q < n; q++)
        carry[q] = (X[q] + carry[q]) >> c->k;
}

static void finish(const mns_pmns_mp_ctx *c, const mp_lay *L, uint64_t *w, uint64_t *r)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, b = pl->b, s = c->s;
    const size_t lstride = (size_t)2 * s * b;
    mp_i128 *R = (mp_i128 *)(w + L->r);
    mp_i128 *carry = (mp_i128 *)(w + L->carry);
    mp_i128 *X = (mp_i128 *)(w + L->x);
    mp_u128 *ct = (mp_u128 *)(w + L->ctmp);
    for (int j = 0; j < s; j++) {
        if (j < s - 1)
            mns_pmns_mp_contract_u128(pl, (const mp_u128 *)(R + (size_t)(s + j) * b), (int)lstride,
                                      (mp_u128 *)X, ct);
        else
            memset(X, 0, (size_t)n * sizeof *X); /* nothing lands in R_(2s-1) */
        for (int q = 0; q < n; q++) {
            mp_i128 y = X[q] + carry[q];
            if (j < s - 1) {
                r[(size_t)j * n + q] = (uint64_t)y & c->kmask;
                carry[q] = y >> c->k;
            } else
                r[(size_t)j * n + q] = (uint64_t)y;
        }
    }
}

static uint64_t *scratch_get(const mns_pmns_mp_ctx *c, mp_scratch *tmp, mp_lay *L)
{
    layout(c, L);
    uint64_t *w = mp_scratch_get(tmp, L->total + 2);
    if (!w)
        return NULL;
    /* 16-byte alignment of the 128-bit areas */
    if (((uintptr_t)w & 15) != 0)
        w += 1;
    return w;
}

static void prepare_matrices(const mns_pmns_mp_ctx *c, const mp_lay *L, uint64_t *w,
                             const uint64_t *a)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, s = c->s;
    uint64_t *tseq = w + L->ctmp; /* 2n-1 words, free at this point */
    for (int j = 0; j < s; j++) {
        mns_pmns_mp_toeplitz_seq(tseq, a + (size_t)j * n, n, c->lambda);
        mns_pmns_mp_expand_mat(pl, tseq, w + L->aseq + (size_t)j * pl->leaves * c->mstride,
                               c->mstride, w + L->etmp);
    }
}

void mns_pmns_mp_mul_generic(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                             const uint64_t *b)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, s = c->s;
    mp_scratch tmp;
    mp_lay L;
    uint64_t *w = scratch_get(c, &tmp, &L);
    if (!w) {
        memset(r, 0, c->limbs * sizeof *r);
        return;
    }
    uint64_t *na = w + L.av2, *nb = na + (size_t)s * n;
    mns_pmns_mp_normalize(c, na, a);
    mns_pmns_mp_normalize(c, nb, b);
    prepare_matrices(c, &L, w, na);
    for (int i = 0; i < s; i++)
        mns_pmns_mp_expand_vec(pl, nb + (size_t)i * n, w + L.bv + (size_t)i * pl->nv, w + L.etmp);
    memset(w + L.r, 0, (size_t)2 * pl->leaves * 2 * s * pl->b * sizeof(uint64_t));
    memset(w + L.carry, 0, (size_t)2 * n * sizeof(uint64_t));
    mp_i128 *R = (mp_i128 *)(w + L.r);
    for (int i = 0; i < s; i++) {
        products(c, R, w + L.aseq, w + L.bv + (size_t)i * pl->nv, i);
        reduce_step(c, &L, w, i);
    }
    finish(c, &L, w, r);
    mp_scratch_release(&tmp);
}

/* A^2: A_j A_i = A_i A_j, so step i adds A_i A_i once and 2 A_j A_i for
 * j > i into R_(i+j) (which step j < i would otherwise have done): s(s+1)/2
 * products instead of s^2. R_(i+j) is only read at step i+j >= i. */
void mns_pmns_mp_sqr_generic(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, s = c->s;
    mp_scratch tmp;
    mp_lay L;
    uint64_t *w = scratch_get(c, &tmp, &L);
    if (!w) {
        memset(r, 0, c->limbs * sizeof *r);
        return;
    }
    uint64_t *na = w + L.av2;
    mns_pmns_mp_normalize(c, na, a);
    prepare_matrices(c, &L, w, na);
    for (int i = 0; i < s; i++)
        mns_pmns_mp_expand_vec(pl, na + (size_t)i * n, w + L.bv + (size_t)i * pl->nv, w + L.etmp);
    memset(w + L.r, 0, (size_t)2 * pl->leaves * 2 * s * pl->b * sizeof(uint64_t));
    memset(w + L.carry, 0, (size_t)2 * n * sizeof(uint64_t));
    mp_i128 *R = (mp_i128 *)(w + L.r);
    for (int i = 0; i < s; i++) {
        const uint64_t *v = w + L.bv + (size_t)i * pl->nv;
        const size_t ls = (size_t)2 * s * pl->b;
        for (int l = 0; l < pl->leaves; l++)
            for (int j = i; j < s; j++)
                leaf_acc(R + l * ls + (size_t)(i + j) * pl->b,
                         w + L.aseq + ((size_t)j * pl->leaves + l) * c->mstride,
                         v + (size_t)l * pl->b, pl->b, j != i);
        reduce_step(c, &L, w, i);
    }
    finish(c, &L, w, r);
    mp_scratch_release(&tmp);
}
