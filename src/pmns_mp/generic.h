/* Portable kernel of the multi-precision PMNS: what the operand-scanning
 * flow (pmns_mp/generic.c) and the compiled product-scanning instances
 * (pmns_mp/generic_fi.c) share: the carry normalisation, the one-level linear maps
 * of the Toeplitz splitting, the leaf rows mod 2^64, and the entry points of
 * the instances. */
#ifndef MNS_PMNS_MP_GENERIC_H
#define MNS_PMNS_MP_GENERIC_H

#include "pmns_mp/ctx.h"

/* x >> k for 0 < k < 64, arithmetic, written as shrd and sar on the two
 * words: the 128-bit shift of GCC, even with k masked to 0..63, tests bit 6
 * of k and selects with two conditional moves */
static inline mp_i128 sar128(mp_i128 x, int k)
{
    const uint64_t lo = (uint64_t)x, hi = (uint64_t)((mp_u128)x >> 64);
    const uint64_t l = (lo >> k) | (hi << (64 - k));
    const uint64_t h = (uint64_t)((int64_t)hi >> k);
    return (mp_i128)(((mp_u128)h << 64) | l);
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

/* r <- a with its digits carried (mns_pmns_mp_normalize), digit-major so the
 * inner loops run over the coefficients; cy: n words of scratch */
static inline __attribute__((always_inline)) void
normalise_ns(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a, int64_t *cy, const int n,
             const int s)
{
    const int k = c->k;
    const uint64_t mask = c->kmask;
    for (int i = 0; i < n; i++) {
        int64_t x = (int64_t)a[i];
        r[i] = (uint64_t)x & mask;
        cy[i] = x >> k;
    }
    for (int j = 1; j < s - 1; j++)
        for (int i = 0; i < n; i++) {
            int64_t x = (int64_t)a[(size_t)j * n + i] + cy[i];
            r[(size_t)j * n + i] = (uint64_t)x & mask;
            cy[i] = x >> k;
        }
    for (int i = 0; i < n; i++)
        r[(size_t)(s - 1) * n + i] = a[(size_t)(s - 1) * n + i] + (uint64_t)cy[i];
}

/* The linear maps of the splitting: one level written out (the common plans),
 * deeper ones through pmns_mp/plan.c. Leaf order as in pmns_mp/plan.c. */
static inline __attribute__((always_inline)) void vexp1(const uint64_t *v, uint64_t *o, int h,
                                                        int f)
{
    if (f == 2)
        for (int i = 0; i < h; i++) {
            uint64_t v0 = v[i], v1 = v[h + i];
            o[i] = v0 + v1, o[h + i] = v1, o[2 * h + i] = v0;
        }
    else
        for (int i = 0; i < h; i++) {
            uint64_t v0 = v[i], v1 = v[h + i], v2 = v[2 * h + i];
            o[i] = v0 + v1 + v2, o[h + i] = v1 + v2, o[2 * h + i] = v0 + v1;
            o[3 * h + i] = v2, o[4 * h + i] = v0, o[5 * h + i] = v1;
        }
}

/* the matrix of sequence t (2n-1 entries, t[d + n - 1]) into its leaves, at
 * stride ms (mns_pmns_mp_expand_mat) */
static inline __attribute__((always_inline)) void
mexp1(const uint64_t *t, uint64_t *o, size_t ms, int h, int f, int n)
{
    const uint64_t *x = t + (n - 1) - (h - 1); /* x[i] = t[i - (h-1)] */
    if (f == 2)
        for (int i = 0; i < 2 * h - 1; i++) {
            uint64_t u0 = x[i];
            o[i] = u0, o[ms + i] = x[i - h] - u0, o[2 * ms + i] = x[i + h] - u0;
        }
    else
        for (int i = 0; i < 2 * h - 1; i++) {
            uint64_t u0 = x[i], um1 = x[i - h], up1 = x[i + h];
            o[i] = u0, o[ms + i] = um1 - u0, o[2 * ms + i] = up1 - u0;
            o[3 * ms + i] = x[i - 2 * h] - um1, o[4 * ms + i] = x[i + 2 * h] - up1;
            o[5 * ms + i] = up1 + um1 - 2 * u0;
        }
}

#define MP_CONTRACT1(o, in, h, f)                                                               \
    do {                                                                                        \
        if ((f) == 2)                                                                           \
            for (int i = 0; i < (h); i++) {                                                     \
                o[i] = in[i] + in[(h) + i];                                                     \
                o[(h) + i] = in[i] + in[2 * (h) + i];                                           \
            }                                                                                   \
        else                                                                                    \
            for (int i = 0; i < (h); i++) {                                                     \
                o[i] = in[i] + in[(h) + i] + in[3 * (h) + i];                                   \
                o[(h) + i] = in[i] + in[(h) + i] + in[2 * (h) + i] - in[5 * (h) + i];           \
                o[2 * (h) + i] = in[i] + in[2 * (h) + i] + in[4 * (h) + i];                     \
            }                                                                                   \
    } while (0)

/* The compiled instances (pmns_mp/generic_fi.c): 1 if one runs (n, s, plan) of c
 * and has computed r, 0 if the flow must */
int mns_pmns_mp_fi_mul(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                       const uint64_t *b);
int mns_pmns_mp_fi_sqr(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a);
/* 1 if a compiled instance runs (n, s, plan) */
int mns_pmns_mp_fi_has(int n, int s, const mp_plan *pl);

#endif
