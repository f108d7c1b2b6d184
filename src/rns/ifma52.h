/* AVX-512 IFMA pieces shared by the RNS kernels (Montgomery RNS in
 * kernel_ifma.c, sum of residues in sor_ifma.c): channels m = 2^52 - c with
 * c < 2^16, 8 channels per zmm vector. Include only inside
 * #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)). */
#ifndef MNS_RNS_IFMA52_H
#define MNS_RNS_IFMA52_H

#include <stddef.h>
#include <stdint.h>
#include "core/simd512.h"

#define MNS_IFMA MNS_TARGET_IFMA

/* (lo + hi 2^52) mod m per lane, lo, hi < 2^60, c < 2^16 (the kernel's own
 * bound, stronger than the paper's c < 2^26), m = 2^52 - c.
 *   hi = h1 2^52 + h0:  hi 2^52 = h0 c + h1 c^2  (mod m)
 *   h0 c = lo52(h0 c) + hh 2^52,  hh < 2^16:  hh 2^52 = hh c
 *   so value = lo + lo52(h0 c) + (hh + h1 c) c; every product below is exact
 *   in 52 bits (h1 c < 2^24, (hh + h1 c) c < 2^41) and the sum is < 2^61.
 * One more fold, r = (r mod 2^52) + (r >> 52) c < 2^52 + 2^25 < 2m, and the
 * unsigned minimum of r and r - m (which wraps when r < m) corrects it. */
MNS_IFMA static inline __m512i red52(__m512i lo, __m512i hi, __m512i c, __m512i m)
{
    const __m512i mask = _mm512_set1_epi64(((int64_t)1 << 52) - 1);
    __m512i h0 = _mm512_and_si512(hi, mask);
    __m512i h1 = _mm512_srli_epi64(hi, 52);
    __m512i r = _mm512_madd52lo_epu64(lo, h0, c);
    __m512i hh = _mm512_madd52hi_epu64(_mm512_setzero_si512(), h0, c);
    __m512i u = _mm512_madd52lo_epu64(hh, h1, c);
    r = _mm512_madd52lo_epu64(r, u, c);
    r = _mm512_madd52lo_epu64(_mm512_and_si512(r, mask), _mm512_srli_epi64(r, 52), c);
    return _mm512_min_epu64(r, _mm512_sub_epi64(r, m));
}

MNS_IFMA static inline __m512i mulmod52(__m512i a, __m512i b, __m512i c, __m512i m)
{
    const __m512i z = _mm512_setzero_si512();
    return red52(_mm512_madd52lo_epu64(z, a, b), _mm512_madd52hi_epu64(z, a, b), c, m);
}

#define LD(p) _mm512_loadu_si512((const void *)(p))
#define ST(p, v) _mm512_storeu_si512((void *)(p), (v))

/* lo/hi[v] += sum_i x[i] A[i * stride + 8 v] for v < VB: the hot loop. With
 * 4 or more target vectors there are 8+ independent chains; with fewer the
 * rows are split in two halves with their own accumulators. */
MNS_IFMA static inline __attribute__((always_inline)) void
matvec(const uint64_t *x, size_t rows, const uint64_t *A, size_t stride, int VB, __m512i *lo,
       __m512i *hi)
{
    if (VB >= 4) {
        for (size_t i = 0; i < rows; i++) {
            const __m512i xi = _mm512_set1_epi64((int64_t)x[i]);
            const uint64_t *row = A + i * stride;
#pragma GCC unroll 6
            for (int v = 0; v < VB; v++) {
                __m512i av = LD(row + 8 * v);
                lo[v] = _mm512_madd52lo_epu64(lo[v], xi, av);
                hi[v] = _mm512_madd52hi_epu64(hi[v], xi, av);
            }
        }
        return;
    }
    __m512i lo2[3], hi2[3];
    for (int v = 0; v < VB; v++)
        lo2[v] = hi2[v] = _mm512_setzero_si512();
    const size_t half = rows / 2;
    for (size_t i = 0; i < half; i++) {
        const __m512i xa = _mm512_set1_epi64((int64_t)x[i]);
        const __m512i xb = _mm512_set1_epi64((int64_t)x[i + half]);
        const uint64_t *ra = A + i * stride, *rb = A + (i + half) * stride;
#pragma GCC unroll 3
        for (int v = 0; v < VB; v++) {
            __m512i aa = LD(ra + 8 * v), ab = LD(rb + 8 * v);
            lo[v] = _mm512_madd52lo_epu64(lo[v], xa, aa);
            hi[v] = _mm512_madd52hi_epu64(hi[v], xa, aa);
            lo2[v] = _mm512_madd52lo_epu64(lo2[v], xb, ab);
            hi2[v] = _mm512_madd52hi_epu64(hi2[v], xb, ab);
        }
    }
    if (rows & 1) {
        const __m512i xa = _mm512_set1_epi64((int64_t)x[rows - 1]);
        const uint64_t *ra = A + (rows - 1) * stride;
        for (int v = 0; v < VB; v++) {
            __m512i aa = LD(ra + 8 * v);
            lo[v] = _mm512_madd52lo_epu64(lo[v], xa, aa);
            hi[v] = _mm512_madd52hi_epu64(hi[v], xa, aa);
        }
    }
    for (int v = 0; v < VB; v++) {
        lo[v] = _mm512_add_epi64(lo[v], lo2[v]);
        hi[v] = _mm512_add_epi64(hi[v], hi2[v]);
    }
}

/* r = a + b mod m over len words (len a multiple of 8), residues in [0, m). */
MNS_IFMA static inline void mns_ifma52_add(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                           const uint64_t *m, size_t len)
{
    for (size_t i = 0; i < len; i += 8) {
        __m512i s = _mm512_add_epi64(LD(a + i), LD(b + i));
        ST(r + i, _mm512_min_epu64(s, _mm512_sub_epi64(s, LD(m + i))));
    }
}

/* r = a + off - b mod m over len words: the subtraction that keeps the value
 * non-negative by adding a multiple of p (off = its residues). */
MNS_IFMA static inline void mns_ifma52_sub(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                           const uint64_t *off, const uint64_t *m, size_t len)
{
    for (size_t i = 0; i < len; i += 8) {
        __m512i mv = LD(m + i);
        __m512i s = _mm512_add_epi64(LD(a + i), LD(off + i));
        s = _mm512_min_epu64(s, _mm512_sub_epi64(s, mv));
        __m512i d = _mm512_sub_epi64(s, LD(b + i));
        ST(r + i, _mm512_min_epu64(d, _mm512_add_epi64(d, mv)));
    }
}

#endif
