/* The portable Montgomery steps, written once for both portable kernels:
 * mont_generic.c calls them with the run-time word count n, mont_fixed.c
 * with a constant one, where the compiler unrolls every loop and keeps the
 * running sum in registers. 64-bit words, unsigned __int128 products. No
 * branch and no memory index depends on the operands (n is public). */
#ifndef MNS_MONT_MONT_BODY_H
#define MNS_MONT_MONT_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "core/ct.h"

typedef unsigned __int128 mont_u128;

#define MONT_AI __attribute__((always_inline))

/* r <- a - p if (hi, a) >= p, else a (a < 2p held as n words and a carry
 * word hi); r may alias a: the first pass only finds the borrow, so a is
 * still intact for the masked select of the second */
static inline MONT_AI void mont_final_sub(uint64_t *r, const uint64_t *a, uint64_t hi,
                                          const uint64_t *p, const size_t n)
{
    uint64_t borrow = 0;
#pragma GCC unroll 16
    for (size_t i = 0; i < n; i++) {
        const mont_u128 d = (mont_u128)a[i] - p[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    /* a >= p <=> hi = 1 or no borrow: keep a otherwise */
    const uint64_t keep = ~(mns_ct_mask_nonzero(hi) | ~mns_ct_mask_nonzero(borrow));
    borrow = 0;
#pragma GCC unroll 16
    for (size_t i = 0; i < n; i++) {
        const mont_u128 d = (mont_u128)a[i] - p[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
        const uint64_t s = (uint64_t)d;
        r[i] = s ^ (keep & (s ^ a[i]));
    }
}

/* r <- a b R^-1 mod p: CIOS (Koç, Acar, Kaliski) with its two inner loops
 * fused, step i adding a b_i and m p (m = t_0 pinv) in one pass, one carry
 * per product chain:
 *   s  = a_j b_i + t_j + c1      < 2^128 (each term below 2^64 - 1 squared
 *   s2 = m p_j + lo(s) + c2      plus twice 2^64 - 1)
 *   t_(j-1) = lo(s2)
 * t < 2p after every step, so its n + 1 words (zero on entry) hold it; r may
 * alias a or b (written only at the end) */
static inline MONT_AI void mont_mul_body(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                         const uint64_t *p, uint64_t pinv, uint64_t *t,
                                         const size_t n)
{
#pragma GCC unroll 16
    for (size_t i = 0; i < n; i++) {
        const uint64_t bi = b[i];
        mont_u128 s = (mont_u128)a[0] * bi + t[0];
        uint64_t c1 = (uint64_t)(s >> 64);
        const uint64_t t0 = (uint64_t)s, m = t0 * pinv;
        mont_u128 s2 = (mont_u128)m * p[0] + t0;
        uint64_t c2 = (uint64_t)(s2 >> 64);
#pragma GCC unroll 16
        for (size_t j = 1; j < n; j++) {
            s = (mont_u128)a[j] * bi + t[j] + c1;
            c1 = (uint64_t)(s >> 64);
            s2 = (mont_u128)m * p[j] + (uint64_t)s + c2;
            c2 = (uint64_t)(s2 >> 64);
            t[j - 1] = (uint64_t)s2;
        }
        s = (mont_u128)t[n] + c1 + c2;
        t[n - 1] = (uint64_t)s;
        t[n] = (uint64_t)(s >> 64);
    }
    mont_final_sub(r, t, t[n], p, n);
}

/* r <- t R^-1 mod p for the 2n-word t < p R (clobbered): a separated REDC.
 * After row i, t_i is zero by construction; it keeps the row's carry
 * instead, and all rows' carries are added at once at the end (the
 * mpn_redc_1 layout), so no carry ripples a variable number of words */
static inline MONT_AI void mont_redc_body(uint64_t *r, uint64_t *t, const uint64_t *p,
                                          uint64_t pinv, const size_t n)
{
#pragma GCC unroll 16
    for (size_t i = 0; i < n; i++) {
        const uint64_t m = t[i] * pinv;
        uint64_t k = 0;
#pragma GCC unroll 16
        for (size_t j = 0; j < n; j++) {
            const mont_u128 s = (mont_u128)m * p[j] + t[i + j] + k;
            t[i + j] = (uint64_t)s;
            k = (uint64_t)(s >> 64);
        }
        t[i] = k;
    }
    uint64_t cy = 0;
#pragma GCC unroll 16
    for (size_t i = 0; i < n; i++) {
        const mont_u128 s = (mont_u128)t[n + i] + t[i] + cy;
        t[n + i] = (uint64_t)s;
        cy = (uint64_t)(s >> 64);
    }
    mont_final_sub(r, t + n, cy, p, n);
}

/* t (2n words, zero on entry) <- a^2: each cross product a_i a_j (i < j)
 * once, doubled, plus the squares a_i^2 (n(n+1)/2 products) */
static inline MONT_AI void mont_sqr_words(uint64_t *t, const uint64_t *a, const size_t n)
{
#pragma GCC unroll 16
    for (size_t i = 0; i + 1 < n; i++) {
        uint64_t cy = 0;
#pragma GCC unroll 16
        for (size_t j = i + 1; j < n; j++) {
            const mont_u128 s = (mont_u128)a[i] * a[j] + t[i + j] + cy;
            t[i + j] = (uint64_t)s;
            cy = (uint64_t)(s >> 64);
        }
        t[i + n] = cy;
    }
    uint64_t top = 0, cy = 0;
#pragma GCC unroll 32
    for (size_t i = 0; i < 2 * n; i++) {
        const uint64_t w = t[i];
        t[i] = (w << 1) | top;
        top = w >> 63;
    }
#pragma GCC unroll 16
    for (size_t i = 0; i < n; i++) {
        const mont_u128 sq = (mont_u128)a[i] * a[i];
        mont_u128 s = (mont_u128)t[2 * i] + (uint64_t)sq + cy;
        t[2 * i] = (uint64_t)s;
        s = (mont_u128)t[2 * i + 1] + (uint64_t)(sq >> 64) + (uint64_t)(s >> 64);
        t[2 * i + 1] = (uint64_t)s;
        cy = (uint64_t)(s >> 64);
    }
}

#endif
