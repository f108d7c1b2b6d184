/* AVX-512 IFMA kernels of the lane-sliced Montgomery product (mb52.h): one
 * operand per 64-bit lane, digit j of the eight in vector j, so a step of
 * the product is m vpmadd52lo/hi pairs for the b-terms and m for the
 * q-terms, and the eight q digits come from one vpmadd52luq.
 *
 * The product keeps a window of m + 1 accumulator vectors (positions
 * i .. i + m at step i) that moves down one vector per step; with m a
 * compile-time constant and the loops over j unrolled, the window can live
 * in registers (m = 20: 21 of the 32 zmm). The square computes a^2 first,
 * column by column, then runs the m reduction rows (mb_sqr): 1.5 m^2
 * vpmadd52 pairs instead of 2 m^2. The table selection of the
 * exponentiation is here too, as it wants the same per-m instances.
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

/* Columns k and k + 1 (k even) of a^2 into t[k], t[k + 1] (mb_sqr), for
 * the large m, as a loop. Column k takes the cross products a_i a_{k-i},
 * i < k / 2, column k + 1 the a_i a_{k+1-i}, i <= k / 2: both columns
 * share a_i, and a_{k-i} serves column k at step i and column k + 1 at
 * step i + 1, so a step loads two vectors for four vpmadd52 (one column at
 * a time loads one per vpmadd52, and two loads per cycle bound it). Each
 * sum is doubled with the hi halves of the column below; the diagonal
 * a_{k/2}^2 adds its lo half to column k and its hi half, undoubled, to
 * column k + 1. *hi_prev: the hi halves of column k - 1's cross products
 * in, of column k + 1's out. */
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
mb_column_pair(__m512i *t, const uint64_t *a, size_t k, const size_t M, __m512i *hi_prev)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i l0a = z, l0b = z, h0a = z, h0b = z; /* column k */
    __m512i l1a = z, l1b = z, h1a = z, h1b = z; /* column k + 1 */
    const size_t h = k / 2;
    const size_t first0 = k + 1 > M ? k + 1 - M : 0, first1 = k + 2 > M ? k + 2 - M : 0;
    if (first0 < first1 && first0 < h) { /* column k alone at its first step */
        const __m512i A = LD(a + 8 * first0), B = LD(a + 8 * (k - first0));
        l0a = LO(l0a, A, B);
        h0a = HI(h0a, A, B);
    }
    if (first1 < h) {
        __m512i B1 = LD(a + 8 * (k + 1 - first1));
        size_t i = first1;
        for (; i + 2 <= h; i += 2) {
            const __m512i A0 = LD(a + 8 * i), B0 = LD(a + 8 * (k - i));
            l0a = LO(l0a, A0, B0);
            h0a = HI(h0a, A0, B0);
            l1a = LO(l1a, A0, B1);
            h1a = HI(h1a, A0, B1);
            const __m512i A1 = LD(a + 8 * (i + 1)), B2 = LD(a + 8 * (k - i - 1));
            l0b = LO(l0b, A1, B2);
            h0b = HI(h0b, A1, B2);
            l1b = LO(l1b, A1, B0);
            h1b = HI(h1b, A1, B0);
            B1 = B2;
        }
        if (i < h) {
            const __m512i A0 = LD(a + 8 * i), B0 = LD(a + 8 * (k - i));
            l0a = LO(l0a, A0, B0);
            h0a = HI(h0a, A0, B0);
            l1a = LO(l1a, A0, B1);
            h1a = HI(h1a, A0, B1);
        }
    }
    const __m512i D = LD(a + 8 * h);
    if (h + 1 < M && h >= first1) { /* column k + 1's last: a_h a_{h+1} */
        const __m512i E = LD(a + 8 * (h + 1));
        l1b = LO(l1b, D, E);
        h1b = HI(h1b, D, E);
    }
    const __m512i lo0 = _mm512_add_epi64(l0a, l0b), hi0 = _mm512_add_epi64(h0a, h0b);
    const __m512i lo1 = _mm512_add_epi64(l1a, l1b), hi1 = _mm512_add_epi64(h1a, h1b);
    t[k] = LO(_mm512_slli_epi64(_mm512_add_epi64(lo0, *hi_prev), 1), D, D);
    t[k + 1] = HI(_mm512_slli_epi64(_mm512_add_epi64(lo1, hi0), 1), D, D);
    *hi_prev = hi1;
}

/* The square in two passes. First t = a^2 column by column (product
 * scanning): column k sums lo(a_i a_j) over i < j, i + j = k, and the hi
 * halves of column k - 1's products; the sum is doubled and the diagonal
 * a_{k/2}^2 added. The columns are independent chains, so the products of
 * several columns are in flight at once (a window of accumulators updated
 * in place would chain every product of a column through one register).
 * Up to 20 digits the columns are unrolled one by one; beyond, the
 * unrolled code outgrows the instruction caches and a loop over pairs of
 * columns (mb_column_pair) is faster (Zen 5, side by side in one process:
 * m = 20 unrolled 28% faster; pairs 6-9% faster at m = 30, 8% at m = 40,
 * 23% at m = 79).
 * Then the m reduction rows of mb_mul on a window of m + 1 accumulators
 * that takes digit i + m + 1 of t as it moves down. */
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
mb_sqr(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a, const size_t M)
{
    __m512i t[2 * MNS_MB52_MAX_DIGITS];
    /* hi halves of the previous column's cross products, and of its
     * diagonal square (which is not doubled) */
    __m512i hi_prev = _mm512_setzero_si512(), diag_hi = _mm512_setzero_si512();
    (void)diag_hi;
    if (M > 20) {
        for (size_t k = 0; k < 2 * M; k += 2)
            mb_column_pair(t, a, k, M, &hi_prev);
    } else {
    #pragma GCC unroll 160
        for (size_t k = 0; k + 1 < 2 * M; k++) {
            /* two chains per half: a long column is otherwise one serial
             * chain of vpmadd52 latencies */
            __m512i lo[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
            __m512i hi[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
            const size_t i0 = k + 1 > M ? k + 1 - M : 0;
    #pragma GCC unroll 80
            for (size_t i = i0; 2 * i < k; i++) {
                const __m512i A = LD(a + 8 * i), B = LD(a + 8 * (k - i));
                lo[i & 1] = LO(lo[i & 1], A, B);
                hi[i & 1] = HI(hi[i & 1], A, B);
            }
            const __m512i lo_sum = _mm512_add_epi64(lo[0], lo[1]);
            const __m512i hi_sum = _mm512_add_epi64(hi[0], hi[1]);
            __m512i s = _mm512_add_epi64(_mm512_slli_epi64(_mm512_add_epi64(lo_sum, hi_prev), 1), diag_hi);
            diag_hi = _mm512_setzero_si512();
            if (k % 2 == 0) {
                const __m512i D = LD(a + 8 * (k / 2));
                s = LO(s, D, D);
                diag_hi = HI(diag_hi, D, D);
            }
            t[k] = s;
            hi_prev = hi_sum;
        }
        t[2 * M - 1] = _mm512_add_epi64(_mm512_slli_epi64(hi_prev, 1), diag_hi);
    }
    __m512i acc[MNS_MB52_MAX_DIGITS + 1];
    /* every t[0 .. 2M - 1] is written above (the pairs cover k = 0 .. 2M - 1),
     * which gcc cannot see through the loop */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC unroll 81
    for (size_t j = 0; j <= M; j++)
        acc[j] = t[j];
#pragma GCC diagnostic pop
    for (size_t i = 0; i < M; i++) {
        mb_row(c, acc, M);
#pragma GCC unroll 80
        for (size_t j = 0; j < M; j++)
            acc[j] = acc[j + 1];
        acc[M] = i + M + 1 < 2 * M ? t[i + M + 1] : _mm512_setzero_si512();
    }
    mb_out(r, acc, M);
}

/* r <- per lane l, entry idx[l] of the table (count blocks of M vectors):
 * every entry is read and merged under a lane mask, so neither time nor
 * addresses depend on idx. The vectors of a block of up to 24 stay in
 * registers over one pass through the entries: passes of 8 vectors re-read
 * the table's rows three times as often and measured 3x slower at M = 20. */
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
mb_select(uint64_t *r, const uint64_t *table, size_t count, const uint64_t *idx, const size_t M)
{
    const size_t blocks = (M + 23) / 24, NV = (M + blocks - 1) / blocks;
    const __m512i I = LD(idx);
    for (size_t b = 0; b < blocks; b++) {
        const size_t j0 = b * NV;
        __m512i acc[24];
#pragma GCC unroll 24
        for (size_t v = 0; v < 24; v++)
            acc[v] = _mm512_setzero_si512();
        for (size_t k = 0; k < count; k++) {
            const __m512i mask = _mm512_maskz_set1_epi64(
                _mm512_cmpeq_epu64_mask(I, _mm512_set1_epi64((long long)k)), -1);
            const uint64_t *t = table + 8 * (k * M + j0);
#pragma GCC unroll 24
            for (size_t v = 0; v < NV; v++)
                if (j0 + v < M) /* acc | (mask & t) */
                    acc[v] = _mm512_ternarylogic_epi64(acc[v], mask, LD(t + 8 * v), 0xF8);
        }
#pragma GCC unroll 24
        for (size_t v = 0; v < NV; v++)
            if (j0 + v < M)
                ST(r + 8 * (j0 + v), acc[v]);
    }
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
    }                                                                                          \
    MNS_TARGET_IFMA static void sel_##NAME(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *t, \
                                           size_t count, const uint64_t *idx)                  \
    {                                                                                          \
        (void)c;                                                                               \
        mb_select(r, t, count, idx, M);                                                        \
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

void mns_mb52_select_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *table, size_t count,
                          const uint64_t *idx)
{
    switch (c->m) {
    case 5: sel_5(c, r, table, count, idx); break;
    case 8: sel_8(c, r, table, count, idx); break;
    case 20: sel_20(c, r, table, count, idx); break;
    case 30: sel_30(c, r, table, count, idx); break;
    case 40: sel_40(c, r, table, count, idx); break;
    case 60: sel_60(c, r, table, count, idx); break;
    case 79: sel_79(c, r, table, count, idx); break;
    default: sel_any(c, r, table, count, idx); break;
    }
}

/* r[0..7] <- its transpose, as 8 x 8 words: three rounds that swap 1 x 1,
 * 2 x 2 and 4 x 4 blocks between pairs of rows (24 permutes) */
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void transpose8(__m512i *r)
{
    static const long long idx[3][2][8] = {
        {{0, 8, 2, 10, 4, 12, 6, 14}, {1, 9, 3, 11, 5, 13, 7, 15}},
        {{0, 1, 8, 9, 4, 5, 12, 13}, {2, 3, 10, 11, 6, 7, 14, 15}},
        {{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}}};
#pragma GCC unroll 3
    for (unsigned round = 0, d = 1; round < 3; round++, d *= 2) {
        const __m512i lo = LD(idx[round][0]), hi = LD(idx[round][1]);
#pragma GCC unroll 8
        for (unsigned i = 0; i < 8; i++) {
            if (i & d)
                continue;
            const __m512i a = r[i], b = r[i + d];
            r[i] = _mm512_permutex2var_epi64(a, lo, b);
            r[i + d] = _mm512_permutex2var_epi64(a, hi, b);
        }
    }
}

/* Lane block <-> eight elements of m digits at a stride, 8 digits at a
 * time: the elements' rows in (masked to the digits there are), transposed,
 * the digit vectors out, or the reverse. */
MNS_TARGET_IFMA static void mb_transpose(const mns_mb52_ctx *c, uint64_t *block, uint64_t *elems,
                                         size_t stride, int to_block)
{
    for (size_t j = 0; j < c->m; j += 8) {
        const size_t n = c->m - j < 8 ? c->m - j : 8;
        const __mmask8 k = (__mmask8)((1u << n) - 1);
        __m512i v[8];
#pragma GCC unroll 8
        for (unsigned i = 0; i < 8; i++)
            v[i] = to_block ? _mm512_maskz_loadu_epi64(k, elems + i * stride + j)
                 : i < n    ? LD(block + 8 * (j + i))
                            : _mm512_setzero_si512();
        transpose8(v);
#pragma GCC unroll 8
        for (unsigned i = 0; i < 8; i++) {
            if (to_block && i < n)
                ST(block + 8 * (j + i), v[i]);
            else if (!to_block)
                _mm512_mask_storeu_epi64(elems + i * stride + j, k, v[i]);
        }
    }
}

void mns_mb52_gather_ifma(const mns_mb52_ctx *c, uint64_t *x, const uint64_t *a, size_t stride)
{
    mb_transpose(c, x, (uint64_t *)a, stride, 1); /* a is only read */
}

void mns_mb52_scatter_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x, size_t stride)
{
    mb_transpose(c, (uint64_t *)x, r, stride, 0); /* x is only read */
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

void mns_mb52_select_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *table, size_t count,
                          const uint64_t *idx)
{
    mns_mb52_select_generic(c, r, table, count, idx);
}

void mns_mb52_gather_ifma(const mns_mb52_ctx *c, uint64_t *x, const uint64_t *a, size_t stride)
{
    for (unsigned l = 0; l < MNS_MB52_LANES; l++)
        mns_mb52_lane_put(c, x, l, a + l * stride);
}

void mns_mb52_scatter_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x, size_t stride)
{
    for (unsigned l = 0; l < MNS_MB52_LANES; l++)
        mns_mb52_lane_get(c, r + l * stride, x, l);
}
#endif
