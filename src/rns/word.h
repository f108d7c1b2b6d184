/* Word-size arithmetic modulo one pseudo-Mersenne channel m = 2^e - c,
 * 48 <= e <= 63, 0 < c, c^2 < 2^e (the paper's c < 2^(e/2)).
 *
 * No division and no branch: 2^e = c (mod m), so the bits above e are folded
 * back multiplied by c; the last correction is a masked subtraction. Inputs
 * are residues in [0, m) unless said otherwise; results are in [0, m).
 * Used by the portable kernel, the standalone base extensions and setup. */
#ifndef MNS_RNS_WORD_H
#define MNS_RNS_WORD_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 mns_u128;

/* x - m if x >= m, else x; for x < 2^63 + m (true below: x < 2^e + c).
 * x - m has its top bit set exactly when it wrapped, since m < 2^63. */
static inline uint64_t mns_rns_csub(uint64_t x, uint64_t m)
{
    uint64_t t = x - m;
    uint64_t mask = (uint64_t)0 - (t >> 63);
    return t + (m & mask);
}

/* r mod m for r < 2^(1.5e + 10).
 *   fold 1: (r >> e) c < 2^(e + 10)                 -> r < 2^(e + 11)
 *   fold 2: (r >> e) < 2^11, (r >> e) c < 2^(e/2+11) -> r < 2^e + 2^(e/2 + 11), fits a word
 *   fold 3: (r >> e) <= 1 and when it is 1 the low part is small -> r < 2^e
 * then one masked subtraction of m (2^e - m = c < m). */
static inline uint64_t mns_rns_red_mid(mns_u128 r, uint64_t c, uint64_t m, unsigned e)
{
    const uint64_t me = ((uint64_t)1 << e) - 1;
    r = (r & me) + (r >> e) * c;
    uint64_t x = ((uint64_t)r & me) + (uint64_t)(r >> e) * c;
    x = (x & me) + (x >> e) * c;
    return mns_rns_csub(x, m);
}

/* (s + top 2^128) mod m for a value below 2^(2e + 8) (a sum of at most 256
 * products of residues). The first fold takes the part above bit e, which for
 * e = 63 spills into top, times c: below 2^(e + 8) 2^(e/2), so the sum is
 * below 2^(1.5e + 9) and mns_rns_red_mid finishes. */
static inline uint64_t mns_rns_red_acc(mns_u128 s, uint64_t top, uint64_t c, uint64_t m,
                                       unsigned e)
{
    const uint64_t me = ((uint64_t)1 << e) - 1;
    mns_u128 hi = (s >> e) | ((mns_u128)top << (128 - e));
    return mns_rns_red_mid((s & me) + hi * c, c, m, e);
}

/* a b mod m; a b < 2^(2e). */
static inline uint64_t mns_rns_mulmod(uint64_t a, uint64_t b, uint64_t c, uint64_t m, unsigned e)
{
    return mns_rns_red_acc((mns_u128)a * b, 0, c, m, e);
}

/* a + b mod m: a + b < 2m < 2^64 and the masked subtraction is exact. */
static inline uint64_t mns_rns_addmod(uint64_t a, uint64_t b, uint64_t m)
{
    return mns_rns_csub(a + b, m);
}

/* a - b mod m: a - b wraps (top bit set) exactly when a < b. */
static inline uint64_t mns_rns_submod(uint64_t a, uint64_t b, uint64_t m)
{
    uint64_t t = a - b;
    return t + (m & ((uint64_t)0 - (t >> 63)));
}

#define MNS_RNS_GW 4

/* The matrix-vector product of the portable kernels (rns and sor): walks the
 * matrix row by row and updates W <= MNS_RNS_GW targets at a time, so each
 * row segment is read contiguously and the accumulators stay in registers. An
 * accumulator is a 128-bit sum plus a count of its wrap-arounds: products are
 * below 2^(2e) <= 2^126 and at most 255 of them (with init) may be added,
 * which is what mns_rns_red_acc takes.
 * r[w] <- (init[w] + sum_i x[i] A[i * stride + j0 + w]) mod m[w],
 * for w < W; init is a 128-bit value per target, given as a product. */
static inline void mns_rns_matvec_block(const uint64_t *x, size_t rows, const uint64_t *A,
                                        size_t stride, size_t j0, size_t W,
                                        const uint64_t *ia, const uint64_t *ib,
                                        const uint64_t *m, const uint64_t *cc, unsigned e,
                                        uint64_t *r)
{
    mns_u128 s[MNS_RNS_GW];
    uint64_t top[MNS_RNS_GW];
    for (size_t w = 0; w < W; w++) {
        s[w] = (mns_u128)ia[w] * ib[w];
        top[w] = 0;
    }
    for (size_t i = 0; i < rows; i++) {
        const uint64_t xi = x[i];
        const uint64_t *row = A + i * stride + j0;
#pragma GCC unroll 4
        for (size_t w = 0; w < W; w++) {
            mns_u128 pr = (mns_u128)xi * row[w];
            s[w] += pr;
            top[w] += s[w] < pr;
        }
    }
    for (size_t w = 0; w < W; w++)
        r[w] = mns_rns_red_acc(s[w], top[w], cc[w], m[w], e);
}

#endif
