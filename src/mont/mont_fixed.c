/* Montgomery kernels for a fixed number of words, 1 to MNS_MONT_FIXED_MAX
 * (`mont` kernel=fixed, the default there on every CPU).
 *
 * Why: below about 800 bits the loop kernels pay per call more than the
 * products cost. The mpn kernel is a call of mpn_sec_sqr (or _mul), then one
 * mpn_addmul_1 call per word of the REDC, then a masked subtraction: at 512
 * bits about 1450 instructions a squaring, a third of them loop and call
 * overhead (callgrind), and 1.1-2.2x the time of GMP's and OpenSSL's own
 * Montgomery products at 256-512 bits on a Zen 3 (mns-bench). Here the word
 * count is a constant of each instance, so the compiler unrolls every loop
 * and keeps the running sum in registers.
 *
 * The product is CIOS (Koç, Acar, Kaliski) with its two inner loops fused:
 * step i adds a b_i and m p, m = t_0 pinv, in one pass over the words, with
 * one carry per product chain:
 *   s  = a_j b_i + t_j + c1      < 2^128 (each term below 2^64 - 1 squared
 *   s2 = m p_j + lo(s) + c2      plus twice 2^64 - 1)
 *   t_(j-1) = lo(s2)
 * and t < 2p after every step, so N + 1 words hold it; the last word is 0 or
 * 1 and the final subtraction is masked (mns_mont_final_sub's rule).
 *
 * The squaring computes each cross product a_i a_j (i < j) once, doubles
 * them, adds the squares a_i^2, and reduces with a separated REDC whose row
 * carries are kept in the zeroed low words and added once at the end (as
 * mns_mont_redc_generic): N(N+1)/2 + N^2 products against 2N^2.
 *
 * Constant time: no branch and no memory index depends on the operands (the
 * word count is public); the final subtraction selects by mask. */
#include <string.h>

#include "core/ct.h"
#include "mont/mont.h"

typedef unsigned __int128 u128;

#define AI __attribute__((always_inline))

/* r <- a - p if (hi, a) >= p, else a (a < 2p); N words */
static inline AI void fx_final_sub(uint64_t *r, const uint64_t *a, uint64_t hi,
                                   const uint64_t *p, const int N)
{
    uint64_t d[MNS_MONT_FIXED_MAX], borrow = 0;
#pragma GCC unroll 16
    for (int i = 0; i < N; i++) {
        const u128 x = (u128)a[i] - p[i] - borrow;
        d[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    /* a >= p <=> hi = 1 or no borrow: keep a otherwise */
    const uint64_t keep = ~(mns_ct_mask_nonzero(hi) | ~mns_ct_mask_nonzero(borrow));
#pragma GCC unroll 16
    for (int i = 0; i < N; i++)
        r[i] = d[i] ^ (keep & (d[i] ^ a[i]));
}

static inline AI void fx_mul(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,
                             const uint64_t *b, const int N)
{
    const uint64_t *p = c->p, pinv = c->pinv;
    uint64_t t[MNS_MONT_FIXED_MAX + 1] = {0};
#pragma GCC unroll 16
    for (int i = 0; i < N; i++) {
        const uint64_t bi = b[i];
        u128 s = (u128)a[0] * bi + t[0];
        uint64_t c1 = (uint64_t)(s >> 64);
        const uint64_t t0 = (uint64_t)s, m = t0 * pinv;
        u128 s2 = (u128)m * p[0] + t0;
        uint64_t c2 = (uint64_t)(s2 >> 64);
#pragma GCC unroll 16
        for (int j = 1; j < N; j++) {
            s = (u128)a[j] * bi + t[j] + c1;
            c1 = (uint64_t)(s >> 64);
            s2 = (u128)m * p[j] + (uint64_t)s + c2;
            c2 = (uint64_t)(s2 >> 64);
            t[j - 1] = (uint64_t)s2;
        }
        s = (u128)t[N] + c1 + c2;
        t[N - 1] = (uint64_t)s;
        t[N] = (uint64_t)(s >> 64);
    }
    fx_final_sub(r, t, t[N], p, N);
}

static inline AI void fx_sqr(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, const int N)
{
    const uint64_t *p = c->p, pinv = c->pinv;
    uint64_t t[2 * MNS_MONT_FIXED_MAX] = {0};
    /* cross products a_i a_j, i < j */
#pragma GCC unroll 16
    for (int i = 0; i + 1 < N; i++) {
        uint64_t cy = 0;
#pragma GCC unroll 16
        for (int j = i + 1; j < N; j++) {
            const u128 s = (u128)a[i] * a[j] + t[i + j] + cy;
            t[i + j] = (uint64_t)s;
            cy = (uint64_t)(s >> 64);
        }
        t[i + N] = cy;
    }
    /* doubled, plus the squares */
    uint64_t top = 0, cy = 0;
#pragma GCC unroll 32
    for (int i = 0; i < 2 * N; i++) {
        const uint64_t w = t[i];
        t[i] = (w << 1) | top;
        top = w >> 63;
    }
#pragma GCC unroll 16
    for (int i = 0; i < N; i++) {
        const u128 sq = (u128)a[i] * a[i];
        u128 s = (u128)t[2 * i] + (uint64_t)sq + cy;
        t[2 * i] = (uint64_t)s;
        s = (u128)t[2 * i + 1] + (uint64_t)(sq >> 64) + (uint64_t)(s >> 64);
        t[2 * i + 1] = (uint64_t)s;
        cy = (uint64_t)(s >> 64);
    }
    /* REDC: row i zeroes t_i, which keeps the row's carry instead */
#pragma GCC unroll 16
    for (int i = 0; i < N; i++) {
        const uint64_t m = t[i] * pinv;
        uint64_t k = 0;
#pragma GCC unroll 16
        for (int j = 0; j < N; j++) {
            const u128 s = (u128)m * p[j] + t[i + j] + k;
            t[i + j] = (uint64_t)s;
            k = (uint64_t)(s >> 64);
        }
        t[i] = k;
    }
    cy = 0;
#pragma GCC unroll 16
    for (int i = 0; i < N; i++) {
        const u128 s = (u128)t[N + i] + t[i] + cy;
        t[N + i] = (uint64_t)s;
        cy = (uint64_t)(s >> 64);
    }
    fx_final_sub(r, t + N, cy, p, N);
}

#define FX_INST(N)                                                                              \
    static void fx_mul_##N(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,               \
                           const uint64_t *b)                                                   \
    {                                                                                           \
        fx_mul(c, r, a, b, N);                                                                  \
    }                                                                                           \
    static void fx_sqr_##N(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)               \
    {                                                                                           \
        fx_sqr(c, r, a, N);                                                                     \
    }
FX_INST(1)
FX_INST(2)
FX_INST(3)
FX_INST(4)
FX_INST(5)
FX_INST(6)
FX_INST(7)
FX_INST(8)
FX_INST(9)

_Static_assert(MNS_MONT_FIXED_MAX == 9, "one instance per word count up to the maximum");

static const mns_mont_mul_fn fx_muls[] = {fx_mul_1, fx_mul_2, fx_mul_3, fx_mul_4, fx_mul_5,
                                          fx_mul_6, fx_mul_7, fx_mul_8, fx_mul_9};
static const mns_mont_sqr_fn fx_sqrs[] = {fx_sqr_1, fx_sqr_2, fx_sqr_3, fx_sqr_4, fx_sqr_5,
                                          fx_sqr_6, fx_sqr_7, fx_sqr_8, fx_sqr_9};

int mns_mont_fixed_kernels(size_t n, mns_mont_mul_fn *mul, mns_mont_sqr_fn *sqr)
{
    if (n < 1 || n > MNS_MONT_FIXED_MAX)
        return 0;
    *mul = fx_muls[n - 1];
    *sqr = fx_sqrs[n - 1];
    return 1;
}
