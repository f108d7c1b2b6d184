/* AVX-512 IFMA kernels of the lane-sliced Montgomery product (mb52.h): one
 * operand per 64-bit lane, digit j of the eight in vector j, so a step of
 * the product is m vpmadd52lo/hi pairs for the b-terms and m for the
 * q-terms, and the eight q digits come from one vpmadd52luq.
 *
 * The product keeps a window of m + 1 accumulator vectors (positions
 * i .. i + m at step i) that moves down one vector per step; with m a
 * compile-time constant and the loops over j unrolled, the window can live
 * in registers (m = 20: 21 of the 32 zmm). The square adds each cross
 * product once into 2 m accumulators, doubles them, adds the diagonal, then
 * runs the m reduction rows on them: 1.5 m^2 vpmadd52 pairs instead of 2 m^2.
 *
 * Instances: m = 5, 8 (256-, 384-bit moduli), 20, 30, 40, 60, 79 (1024,
 * 1536, 2048, 3072, 4096 bits) as constants, any other m through the same
 * code with a run-time m. */
#include "mont52_mb/mb52.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "core/simd512.h"

#define LD(p) _mm512_loadu_si512((const void *)(p))
#define ST(p, x) _mm512_storeu_si512((void *)(p), (x))
#define LO(acc, x, y) _mm512_madd52lo_epu64((acc), (x), (y))
#define HI(acc, x, y) _mm512_madd52hi_epu64((acc), (x), (y))

/* r <- the normalized digits of sum_j acc[j] 2^(52 j) (a value < R): a
 * vector carry chain, m steps */
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
mb_out(uint64_t *r, const __m512i *acc, const size_t M)
{
    const __m512i mask = _mm512_set1_epi64((long long)MNS_MB52_MASK);
    __m512i carry = _mm512_setzero_si512();
#pragma GCC unroll 80
    for (size_t j = 0; j < M; j++) {
        const __m512i s = _mm512_add_epi64(acc[j], carry);
        ST(r + 8 * j, _mm512_and_si512(s, mask));
        carry = _mm512_srli_epi64(s, 52);
    }
}

/* acc[j .. j + m] += q p at position 0, q from acc[0] */
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
mb_row(const mns_mb52_ctx *c, __m512i *acc, const size_t M)
{
    const __m512i Q = LO(_mm512_setzero_si512(), acc[0], LD(c->k0v));
#pragma GCC unroll 80
    for (size_t j = 0; j < M; j++) {
        const __m512i P = _mm512_load_si512((const void *)(c->pv + 8 * j));
        acc[j] = LO(acc[j], P, Q);
        acc[j + 1] = HI(acc[j + 1], P, Q);
    }
    acc[1] = _mm512_add_epi64(acc[1], _mm512_srli_epi64(acc[0], 52));
}

MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
mb_mul(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b, const size_t M)
{
    __m512i acc[MNS_MB52_MAX_DIGITS + 1];
#pragma GCC unroll 81
    for (size_t j = 0; j <= M; j++)
        acc[j] = _mm512_setzero_si512();
    for (size_t i = 0; i < M; i++) {
        const __m512i B = LD(b + 8 * i);
#pragma GCC unroll 80
        for (size_t j = 0; j < M; j++) {
            const __m512i A = LD(a + 8 * j);
            acc[j] = LO(acc[j], A, B);
            acc[j + 1] = HI(acc[j + 1], A, B);
        }
        mb_row(c, acc, M);
#pragma GCC unroll 80
        for (size_t j = 0; j < M; j++)
            acc[j] = acc[j + 1];
        acc[M] = _mm512_setzero_si512();
    }
    mb_out(r, acc, M);
}

MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
mb_sqr(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a, const size_t M)
{
    __m512i t[2 * MNS_MB52_MAX_DIGITS + 1];
    for (size_t k = 0; k <= 2 * M; k++)
        t[k] = _mm512_setzero_si512();
    for (size_t i = 0; i < M; i++) {
        const __m512i A = LD(a + 8 * i);
#pragma GCC unroll 80
        for (size_t j = i + 1; j < M; j++) {
            const __m512i B = LD(a + 8 * j);
            t[i + j] = LO(t[i + j], A, B);
            t[i + j + 1] = HI(t[i + j + 1], A, B);
        }
    }
    for (size_t i = 0; i < M; i++) {
        const __m512i A = LD(a + 8 * i);
        t[2 * i] = LO(_mm512_slli_epi64(t[2 * i], 1), A, A);
        t[2 * i + 1] = HI(_mm512_slli_epi64(t[2 * i + 1], 1), A, A);
    }
    for (size_t i = 0; i < M; i++)
        mb_row(c, t + i, M);
    mb_out(r, t + M, M);
}

#define MB_INST(NAME, M)                                                                       \
    MNS_TARGET_IFMA static void mul_##NAME(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a, \
                                           const uint64_t *b)                                  \
    {                                                                                          \
        mb_mul(c, r, a, b, M);                                                                 \
    }                                                                                          \
    MNS_TARGET_IFMA static void sqr_##NAME(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a) \
    {                                                                                          \
        mb_sqr(c, r, a, M);                                                                    \
    }
MB_INST(5, 5)
MB_INST(8, 8)
MB_INST(20, 20)
MB_INST(30, 30)
MB_INST(40, 40)
MB_INST(60, 60)
MB_INST(79, 79)
MB_INST(any, c->m)

void mns_mb52_mul_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    switch (c->m) {
    case 5: mul_5(c, r, a, b); break;
    case 8: mul_8(c, r, a, b); break;
    case 20: mul_20(c, r, a, b); break;
    case 30: mul_30(c, r, a, b); break;
    case 40: mul_40(c, r, a, b); break;
    case 60: mul_60(c, r, a, b); break;
    case 79: mul_79(c, r, a, b); break;
    default: mul_any(c, r, a, b); break;
    }
}

void mns_mb52_sqr_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a)
{
    switch (c->m) {
    case 5: sqr_5(c, r, a); break;
    case 8: sqr_8(c, r, a); break;
    case 20: sqr_20(c, r, a); break;
    case 30: sqr_30(c, r, a); break;
    case 40: sqr_40(c, r, a); break;
    case 60: sqr_60(c, r, a); break;
    case 79: sqr_79(c, r, a); break;
    default: sqr_any(c, r, a); break;
    }
}

#else
/* no x86-64: never selected (mns_cpu_has_ifma() is 0) */
void mns_mb52_mul_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_mb52_mul_generic(c, r, a, b);
}

void mns_mb52_sqr_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a)
{
    mns_mb52_sqr_generic(c, r, a);
}
#endif
