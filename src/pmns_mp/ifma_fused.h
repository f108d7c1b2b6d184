/* The fused IFMA kernels of the multi-precision PMNS (Alg. 3), unsplit
 * (fu_body) and with the Toeplitz split inside (fs_body, below), written once
 * for W = 1 or 2 independent products in one instruction stream
 * (pmns_mp/ifma_fused.c instantiates W = 1, pmns_mp/ifma_x2.c W = 2). Included by
 * those two files only.
 *
 * Lanes are coefficients: a polynomial is NV = ceil(n/8) vectors; lanes >= n
 * hold harmless partial sums of the zero padding and are never stored. A
 * product by a polynomial mod E = X^n - lambda is sum_c x[c] * (X^c Y mod E),
 * and lane r of X^c Y mod E is the Toeplitz sequence t_Y[(n-1) + r - c]:
 *   - operand products A_j B_i: x = the digits of A_j (broadcast), the
 *     windows of B_i's sequence read straight from memory (unaligned loads:
 *     each window serves the s digits A_j and both halves, so 2s vpmadd52 per
 *     load; nothing of size n^2 is built per call);
 *   - T M_j: x = T (just computed: broadcast loads forward from its store),
 *     the columns of the constant M_j stored aligned at creation;
 *   - T = X M'_0 mod 2^k: x = X, the columns of M'_0 mod 2^k stored aligned.
 * S, NV and W are compile-time constants of each instance, so accumulators
 * and carries stay in registers; n, k, lambda are run-time (per context: the
 * two products of an x2 call may come from different primes of one shape).
 * Every loop bound depends on (n, s) only and no branch or index depends on
 * data: constant time. */
#ifndef MNS_PMNS_MP_IFMA_FUSED_H
#define MNS_PMNS_MP_IFMA_FUSED_H

#include "core/simd512.h"
#include <string.h>

#include "pmns_mp/ctx.h"

#define IFMA_TARGET MNS_TARGET_IFMA
#define AI __attribute__((always_inline))

/* per-context scratch: seqa, seqb (S sequences each), rlo, rhi (2S x L), xb, tb */
#define FUSED_WORDS(S, NV) (2 * (S) * MP_FAST_SEQ + 4 * (S) * (NV) * 8 + 2 * (NV) * 8)

/* R[(j, v)] += (lo, hi)[j, v] for j < SJ, v in [v0, v0 + VB); the squaring's
 * cross products (DBL, j > 0) are doubled after the sum so that the inputs
 * keep their bounds */
static inline AI IFMA_TARGET void fu_store(uint64_t *rlo, uint64_t *rhi, const __m512i *lo,
                                           const __m512i *hi, const __m512i *lo2,
                                           const __m512i *hi2, int two, const int SJ,
                                           const int DBL, const size_t L, const int VB,
                                           const int v0)
{
#pragma GCC unroll 16
    for (int j = 0; j < SJ; j++)
#pragma GCC unroll 16
        for (int v = 0; v < VB; v++) {
            uint64_t *pl = rlo + j * L + 8 * (v0 + v), *ph = rhi + j * L + 8 * (v0 + v);
            __m512i l = lo[j * VB + v], h = hi[j * VB + v];
            if (two) {
                l = _mm512_add_epi64(l, lo2[j * VB + v]);
                h = _mm512_add_epi64(h, hi2[j * VB + v]);
            }
            if (DBL && j > 0) {
                l = _mm512_slli_epi64(l, 1);
                h = _mm512_slli_epi64(h, 1);
            }
            _mm512_store_si512(pl, _mm512_add_epi64(_mm512_load_si512(pl), l));
            _mm512_store_si512(ph, _mm512_add_epi64(_mm512_load_si512(ph), h));
        }
}

/* Operand product: R[(j, v)] += sum_c xd[j * MP_FAST_SEQ + c] * seq[8 v - c ..],
 * j < SJ, v in [v0, v0 + VB); seq points at t_Y + (n - 1). The sums start
 * from zero and reach R only at the end, so they do not wait for the
 * reduction chain; with few outputs the columns alternate between two sets
 * of accumulators (a vpmadd52 waits 4 cycles for its accumulator). */
static inline AI IFMA_TARGET void fu_prod_win(uint64_t *rlo, uint64_t *rhi, const uint64_t *seq,
                                              const uint64_t *xd, int n, const int SJ,
                                              const int DBL, const int NV, const int VB,
                                              const int v0)
{
    __m512i lo[16], hi[16], lo2[16], hi2[16];
    const size_t L = (size_t)NV * 8;
    const int two = SJ * VB <= 4;
#pragma GCC unroll 16
    for (int g = 0; g < SJ * VB; g++)
        lo[g] = hi[g] = lo2[g] = hi2[g] = _mm512_setzero_si512();
    const uint64_t *s0 = seq + 8 * v0;
    int cc = 0;
    if (two) {
        for (; cc + 2 <= n; cc += 2) {
            __m512i w0[8], w1[8];
#pragma GCC unroll 8
            for (int v = 0; v < VB; v++) {
                w0[v] = _mm512_loadu_si512(s0 + 8 * v - cc);
                w1[v] = _mm512_loadu_si512(s0 + 8 * v - cc - 1);
            }
#pragma GCC unroll 16
            for (int j = 0; j < SJ; j++) {
                const __m512i x0 = _mm512_set1_epi64((long long)xd[j * MP_FAST_SEQ + cc]);
                const __m512i x1 = _mm512_set1_epi64((long long)xd[j * MP_FAST_SEQ + cc + 1]);
#pragma GCC unroll 8
                for (int v = 0; v < VB; v++) {
                    lo[j * VB + v] = _mm512_madd52lo_epu64(lo[j * VB + v], w0[v], x0);
                    hi[j * VB + v] = _mm512_madd52hi_epu64(hi[j * VB + v], w0[v], x0);
                    lo2[j * VB + v] = _mm512_madd52lo_epu64(lo2[j * VB + v], w1[v], x1);
                    hi2[j * VB + v] = _mm512_madd52hi_epu64(hi2[j * VB + v], w1[v], x1);
                }
            }
        }
    }
    for (; cc < n; cc++) {
        __m512i w0[8];
#pragma GCC unroll 8
        for (int v = 0; v < VB; v++)
            w0[v] = _mm512_loadu_si512(s0 + 8 * v - cc);
#pragma GCC unroll 16
        for (int j = 0; j < SJ; j++) {
            const __m512i x0 = _mm512_set1_epi64((long long)xd[j * MP_FAST_SEQ + cc]);
#pragma GCC unroll 8
            for (int v = 0; v < VB; v++) {
                lo[j * VB + v] = _mm512_madd52lo_epu64(lo[j * VB + v], w0[v], x0);
                hi[j * VB + v] = _mm512_madd52hi_epu64(hi[j * VB + v], w0[v], x0);
            }
        }
    }
    fu_store(rlo, rhi, lo, hi, lo2, hi2, two, SJ, DBL, L, VB, v0);
}

/* all SJ x NV outputs, in blocks of VB vectors (SJ * VB <= 8: 16 accumulators) */
static inline AI IFMA_TARGET void fu_prod_win_all(uint64_t *rlo, uint64_t *rhi,
                                                  const uint64_t *seq, const uint64_t *xd, int n,
                                                  const int SJ, const int DBL, const int NV)
{
    const int VB = SJ >= 8 ? 1 : (8 / SJ < NV ? 8 / SJ : NV);
    int v0 = 0;
#pragma GCC unroll 8
    for (; v0 + VB <= NV; v0 += VB)
        fu_prod_win(rlo, rhi, seq, xd, n, SJ, DBL, NV, VB, v0);
    if (NV - v0 > 0)
        fu_prod_win(rlo, rhi, seq, xd, n, SJ, DBL, NV, NV - v0, v0);
}

/* T M_j: R[(j, v)] += sum_c x[c] * cols[c][j][v], j < S (the column matrices
 * of the constant M_j, stored aligned at creation) */
static inline AI IFMA_TARGET void fu_prod_col(uint64_t *rlo, uint64_t *rhi, const uint64_t *cols,
                                              const uint64_t *x, int n, const int S,
                                              const int NV, const int VB, const int v0)
{
    const size_t L = (size_t)NV * 8;
    const size_t CS = (size_t)S * L; /* words per column */
    __m512i lo[16], hi[16], lo2[16], hi2[16];
    const int two = S * VB <= 4;
#pragma GCC unroll 16
    for (int g = 0; g < S * VB; g++)
        lo[g] = hi[g] = lo2[g] = hi2[g] = _mm512_setzero_si512();
    const uint64_t *col = cols + 8 * v0;
    int cc = 0;
    if (two) {
        for (; cc + 2 <= n; cc += 2, col += 2 * CS) {
            const __m512i x0 = _mm512_set1_epi64((long long)x[cc]);
            const __m512i x1 = _mm512_set1_epi64((long long)x[cc + 1]);
#pragma GCC unroll 16
            for (int j = 0; j < S; j++)
#pragma GCC unroll 16
                for (int v = 0; v < VB; v++) {
                    const __m512i m0 = _mm512_load_si512(col + j * L + 8 * v);
                    const __m512i m1 = _mm512_load_si512(col + CS + j * L + 8 * v);
                    lo[j * VB + v] = _mm512_madd52lo_epu64(lo[j * VB + v], m0, x0);
                    hi[j * VB + v] = _mm512_madd52hi_epu64(hi[j * VB + v], m0, x0);
                    lo2[j * VB + v] = _mm512_madd52lo_epu64(lo2[j * VB + v], m1, x1);
                    hi2[j * VB + v] = _mm512_madd52hi_epu64(hi2[j * VB + v], m1, x1);
                }
        }
    }
    for (; cc < n; cc++, col += CS) {
        const __m512i xv = _mm512_set1_epi64((long long)x[cc]);
#pragma GCC unroll 16
        for (int j = 0; j < S; j++)
#pragma GCC unroll 16
            for (int v = 0; v < VB; v++) {
                const __m512i m = _mm512_load_si512(col + j * L + 8 * v);
                lo[j * VB + v] = _mm512_madd52lo_epu64(lo[j * VB + v], m, xv);
                hi[j * VB + v] = _mm512_madd52hi_epu64(hi[j * VB + v], m, xv);
            }
    }
    fu_store(rlo, rhi, lo, hi, lo2, hi2, two, S, 0, L, VB, v0);
}

static inline AI IFMA_TARGET void fu_prod_col_all(uint64_t *rlo, uint64_t *rhi,
                                                  const uint64_t *cols, const uint64_t *x, int n,
                                                  const int S, const int NV)
{
    const int VB = S >= 8 ? 1 : (8 / S < NV ? 8 / S : NV);
    int v0 = 0;
#pragma GCC unroll 8
    for (; v0 + VB <= NV; v0 += VB)
        fu_prod_col(rlo, rhi, cols, x, n, S, NV, VB, v0);
    if (NV - v0 > 0)
        fu_prod_col(rlo, rhi, cols, x, n, S, NV, NV - v0, v0);
}

/* Digit j of lambda x, x a carried coefficient given digit by digit
 * (ascending j): lambda x_j + carry, cut to k bits below the top digit, the
 * rest carried on; the top digit takes everything left. lambda x_j + carry
 * < 2^64 (fused_prepare: lambda 2^k < 2^63, lambda 2^lg_top < 2^52): the
 * 64-bit product is exact. The digits of
 * lambda x sum to lambda x, so a wrapped Toeplitz entry built from them gives
 * the same product as lambda times each digit, with entries below 2^k. */
static inline AI IFMA_TARGET __m512i fu_lam_digit(__m512i x, __m512i lam, __m512i *lcarry,
                                                  __m512i km, __m512i kc, const int cut)
{
    __m512i y = _mm512_add_epi64(_mm512_mullo_epi64(x, lam), *lcarry);
    if (cut) {
        *lcarry = _mm512_srlv_epi64(y, kc);
        y = _mm512_and_si512(y, km);
    }
    return y;
}

/* digits of a, carried (digits 0..S-2 in [0, 2^k), the top one takes the
 * rest), written as Toeplitz sequences t[n-1+d] = a_d, t[n-1-d] = digit j of
 * lambda a_(n-d) (the first half is lambda a shifted down by one), at
 * seq + j * MP_FAST_SEQ + MP_FAST_OFF; zeros after the end for the padding
 * lanes' windows. CARRY (the products): lambda multiplies the whole
 * coefficient and is carried like a (fu_lam_digit), so the wrapped entries
 * are digits below 2^k and lambda 2^k may pass 2^52 (sets generated with
 * MNS_PMNS_GEN_LAMBDA_CARRIED). The squaring (CARRY = 0) takes lambda times
 * each digit instead: its doubled products 2 A_j A_i stand for A_j A_i +
 * A_i A_j, which holds when the wrapped entries of A_i are lambda A_i, not
 * when they are digit i of lambda A (fused_prepare gives a set where lambda
 * times a digit can reach 2^52 the product kernel for its squarings). */
static inline AI IFMA_TARGET void fu_seq(const mns_pmns_mp_ctx *c, uint64_t *seq,
                                         const uint64_t *a, const int S, const int NV,
                                         const int CARRY)
{
    const int n = c->n;
    const __m512i km = _mm512_set1_epi64((long long)c->kmask);
    const __m512i kc = _mm512_set1_epi64(c->k);
    const __m512i lam = _mm512_set1_epi64((long long)c->lambda);
    __m512i carry[8], lcarry[8];
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++)
        carry[v] = lcarry[v] = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int j = 0; j < S; j++) {
        uint64_t *t = seq + (size_t)j * MP_FAST_SEQ + MP_FAST_OFF;
        _mm512_storeu_si512(t + 2 * n - 1, _mm512_setzero_si512());
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
            const int rem = n - 8 * v;
            const __mmask8 m = rem >= 8 ? 0xFF : (__mmask8)((1u << rem) - 1);
            __m512i x = _mm512_add_epi64(
                _mm512_maskz_loadu_epi64(m, a + (size_t)j * n + 8 * v), carry[v]);
            if (j < S - 1) {
                carry[v] = _mm512_srlv_epi64(x, kc);
                x = _mm512_and_si512(x, km);
            }
            _mm512_mask_storeu_epi64(t + (n - 1) + 8 * v, m, x);
            /* lane 0 of v = 0 lands in the front padding */
            _mm512_mask_storeu_epi64(t + 8 * v - 1, m,
                                     CARRY ? fu_lam_digit(x, lam, &lcarry[v], km, kc, j < S - 1)
                                           : _mm512_mullo_epi64(x, lam));
        }
    }
}

/* T = (R_i + carry) M'_0 mod (E, 2^k) into tb (NV vectors): IFMA reads the
 * low 52 bits of R_i + carry, enough for a result mod 2^k. c->mpfast holds
 * the columns of M'_0's Toeplitz matrix mod 2^k, aligned (n columns of
 * c->mpl lanes, NV * 8 <= c->mpl); one broadcast of X[c] serves the NV
 * vectors of its column, and the columns go round G groups of accumulators so
 * that NV G >= 8 chains are in flight. xb: scratch for the broadcasts. */
static inline AI IFMA_TARGET void fu_t(const mns_pmns_mp_ctx *c, const uint64_t *rlo,
                                       const __m512i *carry, uint64_t *xb, uint64_t *tb,
                                       __m512i km, const int NV)
{
    const int n = c->n;
    const size_t CL = (size_t)c->mpl;
    const int G = NV >= 8 ? 1 : 8 / NV;
    __m512i acc[8][8];
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++)
        _mm512_store_si512(xb + 8 * v, _mm512_add_epi64(_mm512_load_si512(rlo + 8 * v), carry[v]));
#pragma GCC unroll 8
    for (int g = 0; g < G; g++)
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++)
            acc[g][v] = _mm512_setzero_si512();
    const uint64_t *col = c->mpfast;
    int cc = 0;
    for (; cc + G <= n; cc += G)
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) {
            const __m512i x = _mm512_set1_epi64((long long)xb[cc + g]);
#pragma GCC unroll 8
            for (int v = 0; v < NV; v++)
                acc[g][v] = _mm512_madd52lo_epu64(
                    acc[g][v], _mm512_load_si512(col + (size_t)(cc + g) * CL + 8 * v), x);
        }
    for (; cc < n; cc++) {
        const __m512i x = _mm512_set1_epi64((long long)xb[cc]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++)
            acc[0][v] = _mm512_madd52lo_epu64(acc[0][v],
                                              _mm512_load_si512(col + (size_t)cc * CL + 8 * v), x);
    }
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++) {
        __m512i t = acc[0][v];
#pragma GCC unroll 8
        for (int g = 1; g < G; g++)
            t = _mm512_add_epi64(t, acc[g][v]);
        _mm512_store_si512(tb + 8 * v, _mm512_and_si512(t, km));
    }
}

/* exact division: R_i + carry = lo + 2^52 hi + carry with lo + carry
 * divisible by 2^k. Arithmetic shifts: with the split, lo and hi may be
 * negative on their own (the value is not). */
static inline AI IFMA_TARGET void fu_div(const uint64_t *rlo, const uint64_t *rhi, __m512i *carry,
                                         __m512i kc, __m512i kh, const int NV)
{
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++) {
        __m512i x = _mm512_add_epi64(_mm512_load_si512(rlo + 8 * v), carry[v]);
        carry[v] = _mm512_add_epi64(_mm512_srav_epi64(x, kc),
                                    _mm512_sllv_epi64(_mm512_load_si512(rhi + 8 * v), kh));
    }
}

/* lines 15-18: C_j = R_(s+j) mod 2^k, carried; nothing lands in R_(2s-1),
 * so the top digit is the last carry. rlo/rhi: R_s.., L words per row. */
static inline AI IFMA_TARGET void fu_out(uint64_t *r, int n, const uint64_t *rlo,
                                         const uint64_t *rhi, const size_t L, __m512i *carry,
                                         __m512i km, __m512i kc, __m512i kh, const int S,
                                         const int NV)
{
#pragma GCC unroll 8
    for (int j = 0; j < S; j++)
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
            const int rem = n - 8 * v;
            const __mmask8 m = rem >= 8 ? 0xFF : (__mmask8)((1u << rem) - 1);
            uint64_t *o = r + (size_t)j * n + 8 * v;
            if (j < S - 1) {
                const size_t d = (size_t)j * L + 8 * v;
                __m512i x = _mm512_add_epi64(_mm512_load_si512(rlo + d), carry[v]);
                _mm512_mask_storeu_epi64(o, m, _mm512_and_si512(x, km));
                carry[v] = _mm512_add_epi64(_mm512_srav_epi64(x, kc),
                                            _mm512_sllv_epi64(_mm512_load_si512(rhi + d), kh));
            } else
                _mm512_mask_storeu_epi64(o, m, carry[v]);
        }
}

/* fu_body's operand products of step i: R_(i+j) += A_j B_i (SQ: (2) A_j A_i,
 * j >= i) for the W contexts */
static inline AI IFMA_TARGET void fu_ops(uint64_t *w, const int n, const int i, const int S,
                                         const int NV, const int SQ, const int W)
{
    const size_t L = (size_t)NV * 8;
    const size_t WS = FUSED_WORDS(S, NV);
#pragma GCC unroll 2
    for (int q = 0; q < W; q++) {
        uint64_t *wq = w + q * WS;
        uint64_t *seqa = wq, *seqb = wq + (size_t)S * MP_FAST_SEQ;
        uint64_t *rlo = seqb + (size_t)S * MP_FAST_SEQ, *rhi = rlo + 2 * (size_t)S * L;
        const uint64_t *adig = seqa + MP_FAST_OFF + (n - 1);
        if (!SQ)
            fu_prod_win_all(rlo + i * L, rhi + i * L,
                            seqb + (size_t)i * MP_FAST_SEQ + MP_FAST_OFF + (n - 1), adig, n,
                            S, 0, NV);
        else {
            const uint64_t *win = seqa + (size_t)i * MP_FAST_SEQ + MP_FAST_OFF + (n - 1);
            const uint64_t *xd = adig + (size_t)i * MP_FAST_SEQ;
            uint64_t *l2 = rlo + 2 * i * L, *h2 = rhi + 2 * i * L;
            switch (S - i) {
            case 6: fu_prod_win_all(l2, h2, win, xd, n, 6 <= S ? 6 : 1, 1, NV); break;
            case 5: fu_prod_win_all(l2, h2, win, xd, n, 5 <= S ? 5 : 1, 1, NV); break;
            case 4: fu_prod_win_all(l2, h2, win, xd, n, 4 <= S ? 4 : 1, 1, NV); break;
            case 3: fu_prod_win_all(l2, h2, win, xd, n, 3 <= S ? 3 : 1, 1, NV); break;
            case 2: fu_prod_win_all(l2, h2, win, xd, n, 2, 1, NV); break;
            default: fu_prod_win_all(l2, h2, win, xd, n, 1, 1, NV); break;
            }
        }
    }
}

/* W independent products r[w] <- a[w] b[w] phi^-1 (Alg. 3) in one stream;
 * every context has the same (n, s). SQ: b == a, the squaring
 * (R_(2i) += A_i A_i, R_(i+j) += 2 A_j A_i for j > i: s(s+1)/2 products).
 * EARLY: the operand products of step i + 1 are issued right after T of
 * step i (as fr_body does), before T M_j and the division; they touch rows
 * i + 1 .. only, and the next T waits for them anyway. Measured A/B on one
 * set (one process, six runs): 2048 bits (s = 3, two vectors)
 * mul 2-5% and sqr 3-5% faster; 3072-4096 (three vectors) within 1% either
 * way, so it is on for two vectors only. */
static inline AI IFMA_TARGET void fu_body(const mns_pmns_mp_ctx *const *cx, uint64_t *const *r,
                                          const uint64_t *const *a, const uint64_t *const *b,
                                          uint64_t *w, const int S, const int NV, const int SQ,
                                          const int W, const int EARLY)
{
    const int n = cx[0]->n;
    const size_t L = (size_t)NV * 8;
    const size_t WS = FUSED_WORDS(S, NV);
    const __m512i zero = _mm512_setzero_si512();
    __m512i km[2], kc[2], kh[2], carry[2][8];
#pragma GCC unroll 2
    for (int q = 0; q < W; q++) {
        uint64_t *wq = w + q * WS;
        km[q] = _mm512_set1_epi64((long long)cx[q]->kmask);
        kc[q] = _mm512_set1_epi64(cx[q]->k);
        kh[q] = _mm512_set1_epi64(52 - cx[q]->k);
        fu_seq(cx[q], wq, a[q], S, NV, !SQ);
        if (!SQ)
            fu_seq(cx[q], wq + (size_t)S * MP_FAST_SEQ, b[q], S, NV, 1);
        uint64_t *rlo = wq + 2 * (size_t)S * MP_FAST_SEQ;
#pragma GCC unroll 16
        for (size_t i = 0; i < 4 * (size_t)S * L; i += 8)
            _mm512_store_si512(rlo + i, zero);
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++)
            carry[q][v] = zero;
    }

#pragma GCC unroll 1
    for (int i = 0; i < S; i++) {
        /* R_(i+j) += A_j B_i; EARLY: issued in step i - 1, after its T */
        if (!EARLY || i == 0)
            fu_ops(w, n, i, S, NV, SQ, W);
        /* T = (R_i + carry) M'_0 mod (E, 2^k) */
#pragma GCC unroll 2
        for (int q = 0; q < W; q++) {
            uint64_t *wq = w + q * WS;
            uint64_t *rlo = wq + 2 * (size_t)S * MP_FAST_SEQ;
            uint64_t *xb = rlo + 4 * (size_t)S * L;
            fu_t(cx[q], rlo + i * L, carry[q], xb, xb + L, km[q], NV);
        }
        if (EARLY && i + 1 < S)
            fu_ops(w, n, i + 1, S, NV, SQ, W);
        /* R_(i+j) += T M_j */
#pragma GCC unroll 2
        for (int q = 0; q < W; q++) {
            uint64_t *wq = w + q * WS;
            uint64_t *rlo = wq + 2 * (size_t)S * MP_FAST_SEQ, *rhi = rlo + 2 * (size_t)S * L;
            const uint64_t *tb = rlo + 4 * (size_t)S * L + L;
            fu_prod_col_all(rlo + i * L, rhi + i * L, cx[q]->mfast, tb, n, S, NV);
        }
        /* exact division */
#pragma GCC unroll 2
        for (int q = 0; q < W; q++) {
            uint64_t *rlo = w + q * WS + 2 * (size_t)S * MP_FAST_SEQ, *rhi = rlo + 2 * (size_t)S * L;
            fu_div(rlo + i * L, rhi + i * L, carry[q], kc[q], kh[q], NV);
        }
    }
    /* r may alias a or b: both were read into the sequences */
#pragma GCC unroll 2
    for (int q = 0; q < W; q++) {
        uint64_t *rlo = w + q * WS + 2 * (size_t)S * MP_FAST_SEQ, *rhi = rlo + 2 * (size_t)S * L;
        fu_out(r[q], n, rlo + S * L, rhi + S * L, L, carry[q], km[q], kc[q], kh[q], S, NV);
    }
}


/* One vector per polynomial (n <= 8, a compile-time constant here), one
 * product (W = 1; W = 2: the x2 squaring, see pmns_mp/ifma_x2.c): fu_body with
 * R (two sets of 2s - 1 rows, lo and hi), the carry
 * and every accumulator in registers, so that the chain of a CIOS step,
 * R_i + carry -> T -> T M_0, T M_1 -> carry, has no store and reload of R
 * on it (only the broadcasts of X and T go through memory). The operand
 * products of step i + 1 are issued right after T of step i: they fill the
 * latency of T -> T M_j -> carry (issued before that chain, or all of them
 * up front, they delayed R_0 and the chain: 5-15% slower than fu_body).
 * RW: B's windows are permutations of B_i and (lambda B)_i in registers
 * instead of loads from the sequences (fr_ab). */
/* the smallest n with an fr_body instance (up to 8: one vector) */
#define FR_NMIN 6
/* B's windows built in registers up to this s (fr_ab's RW) */
#define FR_RW_SMAX 4

/* fr_body's operand products of step i: R_(i+j) += A_j B_i (squaring:
 * A_i A_i, and 2 A_j A_i for j > i into the second set, doubled later),
 * even and odd columns into two sets, so that a row's chain is short. The
 * digits of A_j are broadcast from ad + j DS. Windows of B_i: RW = 0, loaded
 * from its sequence (win - c); RW = 1, built in registers: lane r of window
 * c is B_i[r - c] (r >= c) or (lambda B)_i[n + r - c] (r < c), one vpermt2q
 * of (bi, lbi = digit i of lambda B, fu_lam_digit) per column (a window loaded from the
 * sequence just written spans two stores and is not forwarded from them). */
static inline AI IFMA_TARGET void fr_ab(__m512i *lo, __m512i *hi, __m512i *lo2, __m512i *hi2,
                                        const uint64_t *ad, const size_t DS, const uint64_t *win,
                                        __m512i bi, __m512i lbi, const int RW, const int i,
                                        const int S, const int SQ, const int n)
{
    /* a fresh read of the digits per step: otherwise the compiler keeps the
     * s n broadcasts of every step in registers and spills R */
    __asm__("" : "+r"(ad));
#pragma GCC unroll 8
    for (int cc = 0; cc < n; cc++) {
        __m512i y;
        if (!RW)
            y = _mm512_loadu_si512(win - cc);
        else if (cc == 0)
            y = bi;
        else {
            long long ix[8];
#pragma GCC unroll 8
            for (int rr = 0; rr < 8; rr++)
                ix[rr] = rr >= cc ? rr - cc : 8 + n + rr - cc;
            y = _mm512_permutex2var_epi64(
                bi, _mm512_set_epi64(ix[7], ix[6], ix[5], ix[4], ix[3], ix[2], ix[1], ix[0]), lbi);
        }
#pragma GCC unroll 8
        for (int j = SQ ? i : 0; j < S; j++) {
            const __m512i x = _mm512_set1_epi64((long long)ad[(size_t)j * DS + cc]);
            if (SQ ? j > i : (cc & 1)) {
                lo2[i + j] = _mm512_madd52lo_epu64(lo2[i + j], y, x);
                hi2[i + j] = _mm512_madd52hi_epu64(hi2[i + j], y, x);
            } else {
                lo[i + j] = _mm512_madd52lo_epu64(lo[i + j], y, x);
                hi[i + j] = _mm512_madd52hi_epu64(hi[i + j], y, x);
            }
        }
    }
}

/* the digits of a carried (fu_seq's), in registers and stored aligned at
 * d + 8 j for the broadcasts, beside them the digits of lambda a
 * (fu_lam_digit; CARRY = 0, the squaring: lambda times each digit mod 2^52,
 * see fu_seq) */
static inline AI IFMA_TARGET void fr_norm(const mns_pmns_mp_ctx *c, const uint64_t *a, uint64_t *d,
                                          __m512i *v, __m512i *lv, const int S, const int n,
                                          const int CARRY)
{
    const __m512i km = _mm512_set1_epi64((long long)c->kmask);
    const __m512i kc = _mm512_set1_epi64(c->k);
    const __m512i lam = _mm512_set1_epi64((long long)c->lambda);
    const __mmask8 m = (__mmask8)((1u << n) - 1);
    __m512i carry = _mm512_setzero_si512(), lcarry = carry;
#pragma GCC unroll 8
    for (int j = 0; j < S; j++) {
        __m512i x = _mm512_add_epi64(_mm512_maskz_loadu_epi64(m, a + (size_t)j * n), carry);
        if (j < S - 1) {
            carry = _mm512_srlv_epi64(x, kc);
            x = _mm512_and_si512(x, km);
        }
        v[j] = x;
        lv[j] = CARRY ? fu_lam_digit(x, lam, &lcarry, km, kc, j < S - 1)
                      : _mm512_madd52lo_epu64(_mm512_setzero_si512(), x, lam);
        _mm512_store_si512(d + 8 * j, x);
    }
}

/* p, opaque to the compiler, after the 8 words at p were stored: the
 * broadcasts that follow are then loads (load ports, forwarded from the
 * store) instead of what GCC makes of a store it can see through: each lane
 * extracted by shuffles and broadcast from a register, two p5 uops per lane
 * (about 100 per product at 1024 bits, on the ports of the vpmadd52). 1024
 * bits (s = 3, n = 8), one process A/B: 7-9% faster. */
static inline AI const uint64_t *fr_opaque(const uint64_t *p)
{
    __asm__("" : "+r"(p) : "m"(*(const uint64_t(*)[8])p));
    return p;
}

/* per product: the sequences (RW = 0) or the digits (RW = 1), X and T */
#define FR_WORDS(S) (2 * (S) * MP_FAST_SEQ + 16)

/* W = 1 or 2 products r[q] <- a[q] b[q] phi^-1 of one (n, s) in one
 * instruction stream (x2: the contexts may be two primes), phase by phase:
 * while one product waits on its chain the other's products are in flight */
static inline AI IFMA_TARGET void fr_body(const mns_pmns_mp_ctx *const *cx, uint64_t *const *r,
                                          const uint64_t *const *a, const uint64_t *const *b,
                                          uint64_t *w, const int S, const int SQ, const int n,
                                          const int RW, const int W, const int SKEW)
{
    const __m512i zero = _mm512_setzero_si512();
    __m512i km[2], kc[2], kh[2];
    uint64_t *seqb[2], *xb[2], *tb[2];
    const uint64_t *ad[2];
    __m512i bv[2][MP_FAST_SMAX], lbv[2][MP_FAST_SMAX], av[2][MP_FAST_SMAX], lav[2][MP_FAST_SMAX];
#pragma GCC unroll 2
    for (int q = 0; q < W; q++) {
        const mns_pmns_mp_ctx *c = cx[q];
        uint64_t *wq = w + (size_t)q * FR_WORDS(S);
        km[q] = _mm512_set1_epi64((long long)c->kmask);
        kc[q] = _mm512_set1_epi64(c->k), kh[q] = _mm512_set1_epi64(52 - c->k);
        uint64_t *seqa = wq;
        seqb[q] = SQ ? wq : wq + (size_t)S * MP_FAST_SEQ;
        xb[q] = wq + 2 * (size_t)S * MP_FAST_SEQ, tb[q] = xb[q] + 8;
        if (RW) {
            fr_norm(c, a[q], wq, av[q], lav[q], S, n, !SQ);
            if (!SQ)
                fr_norm(c, b[q], wq + 8 * S, bv[q], lbv[q], S, n, 1);
            ad[q] = wq;
            xb[q] = wq + 16 * S, tb[q] = xb[q] + 8;
        } else {
#pragma GCC unroll 8
            for (int j = 0; j < S; j++) /* unused (fr_ab reads the sequences) */
                bv[q][j] = lbv[q][j] = av[q][j] = lav[q][j] = zero;
            fu_seq(c, seqa, a[q], S, 1, !SQ);
            if (!SQ)
                fu_seq(c, seqb[q], b[q], S, 1, 1);
            ad[q] = seqa + MP_FAST_OFF + (n - 1); /* digit j of A at ad[j SEQ + col] */
        }
    }
#define FR_AB(Q, I)                                                                            \
    fr_ab(lo[Q], hi[Q], lo2[Q], hi2[Q], ad[Q], RW ? 8 : MP_FAST_SEQ,                           \
          seqb[Q] + (size_t)(I) * MP_FAST_SEQ + MP_FAST_OFF + (n - 1),                          \
          SQ ? av[Q][I] : bv[Q][I], SQ ? lav[Q][I] : lbv[Q][I], RW, I, S, SQ, n)
    /* R_(i+j) += A_j B_i (squaring: A_i A_i, 2 A_j A_i for j > i) straight
     * into R, even and odd columns in two sets (lo2, hi2: the squaring's
     * doubled products), so a row's chain is at most s n / 2 deep */
    __m512i lo[2][2 * MP_FAST_SMAX], hi[2][2 * MP_FAST_SMAX];
    __m512i lo2[2][2 * MP_FAST_SMAX], hi2[2][2 * MP_FAST_SMAX];
    __m512i carry[2];
    const int sh = SQ ? 1 : 0;
#pragma GCC unroll 2
    for (int q = 0; q < W; q++) {
#pragma GCC unroll 16
        for (int d = 0; d < 2 * S; d++)
            lo[q][d] = hi[q][d] = lo2[q][d] = hi2[q][d] = zero;
        carry[q] = zero;
        FR_AB(q, 0);
    }
    /* step i of product q is phase 2i (T, then the operand products of
     * step i + 1) and phase 2i + 1 (T M_j, the division); SKEW: product 1
     * runs one phase behind product 0, so that one's T waits while the
     * other's T M_j are in flight */
    const uint64_t *tbr[2];
#pragma GCC unroll 16
    for (int ph = 0; ph < 2 * S + (W - 1) * SKEW; ph++)
#pragma GCC unroll 2
        for (int q = 0; q < W; q++) {
            const int pq = ph - q * SKEW;
            if (pq < 0 || pq >= 2 * S)
                continue;
            const int i = pq / 2;
            const mns_pmns_mp_ctx *c = cx[q];
            if (pq % 2 == 0) {
                /* T = (R_i + carry) M'_0 mod (E, 2^k): n independent products */
                const size_t CL = (size_t)c->mpl;
                lo[q][i] = _mm512_add_epi64(lo[q][i], _mm512_slli_epi64(lo2[q][i], sh));
                hi[q][i] = _mm512_add_epi64(hi[q][i], _mm512_slli_epi64(hi2[q][i], sh));
                const __m512i x = _mm512_add_epi64(lo[q][i], carry[q]);
                _mm512_store_si512(xb[q], x);
                const uint64_t *xbr = fr_opaque(xb[q]);
                __m512i t8[8];
#pragma GCC unroll 8
                for (int cc = 0; cc < n; cc++)
                    t8[cc] = _mm512_madd52lo_epu64(
                        zero, _mm512_load_si512(c->mpfast + (size_t)cc * CL),
                        _mm512_set1_epi64((long long)xbr[cc]));
                /* their sum as a tree (n = 6..8: 4 + 2 + 1, constant
                 * strides so that t8 stays in registers) */
#pragma GCC unroll 8
                for (int cc = 0; cc + 4 < n; cc++)
                    t8[cc] = _mm512_add_epi64(t8[cc], t8[cc + 4]);
#pragma GCC unroll 8
                for (int cc = 0; cc < 2; cc++)
                    t8[cc] = _mm512_add_epi64(t8[cc], t8[cc + 2]);
                t8[0] = _mm512_add_epi64(t8[0], t8[1]);
                _mm512_store_si512(tb[q], _mm512_and_si512(t8[0], km[q]));
                tbr[q] = fr_opaque(tb[q]);
                /* the next step's operand products: they fill the latency of T */
                if (i + 1 < S)
                    FR_AB(q, i + 1);
                continue;
            }
            /* R_(i+j) += T M_j */
            const size_t CS = (size_t)S * 8;
            __m512i ml[2][MP_FAST_SMAX], mh[2][MP_FAST_SMAX];
#pragma GCC unroll 8
            for (int j = 0; j < S; j++)
                ml[0][j] = mh[0][j] = ml[1][j] = mh[1][j] = zero;
#pragma GCC unroll 8
            for (int cc = 0; cc < n; cc++) {
                const __m512i t = _mm512_set1_epi64((long long)tbr[q][cc]);
                const int e = cc & 1;
#pragma GCC unroll 8
                for (int j = 0; j < S; j++) {
                    const __m512i m = _mm512_load_si512(c->mfast + (size_t)cc * CS + 8 * j);
                    ml[e][j] = _mm512_madd52lo_epu64(ml[e][j], m, t);
                    mh[e][j] = _mm512_madd52hi_epu64(mh[e][j], m, t);
                }
            }
#pragma GCC unroll 8
            for (int j = 0; j < S; j++) {
                lo[q][i + j] =
                    _mm512_add_epi64(lo[q][i + j], _mm512_add_epi64(ml[0][j], ml[1][j]));
                hi[q][i + j] =
                    _mm512_add_epi64(hi[q][i + j], _mm512_add_epi64(mh[0][j], mh[1][j]));
            }
            /* exact division */
            const __m512i xd = _mm512_add_epi64(lo[q][i], carry[q]);
            carry[q] = _mm512_add_epi64(_mm512_srav_epi64(xd, kc[q]),
                                        _mm512_sllv_epi64(hi[q][i], kh[q]));
        }
    /* lines 15-18 (fu_out); r may alias a or b: both were read */
    const __mmask8 m = (__mmask8)((1u << n) - 1);
#pragma GCC unroll 2
    for (int q = 0; q < W; q++) {
#pragma GCC unroll 16
        for (int d = S; d < 2 * S - 1; d++) {
            lo[q][d] = _mm512_add_epi64(lo[q][d], _mm512_slli_epi64(lo2[q][d], sh));
            hi[q][d] = _mm512_add_epi64(hi[q][d], _mm512_slli_epi64(hi2[q][d], sh));
        }
#pragma GCC unroll 8
        for (int j = 0; j < S - 1; j++) {
            const __m512i x = _mm512_add_epi64(lo[q][S + j], carry[q]);
            _mm512_mask_storeu_epi64(r[q] + (size_t)j * n, m, _mm512_and_si512(x, km[q]));
            carry[q] = _mm512_add_epi64(_mm512_srav_epi64(x, kc[q]),
                                        _mm512_sllv_epi64(hi[q][S + j], kh[q]));
        }
        _mm512_mask_storeu_epi64(r[q] + (size_t)(S - 1) * n, m, carry[q]);
    }
#undef FR_AB
}

/* ---- the fused kernel with the Toeplitz split inside ------------------------
 * For larger n the products by polynomials mod E are split (Hasan-Negre, as in
 * pmns_mp/plan.c) on the padded size N = 8 M: up to three levels of factor 2 (3
 * products of N/2) or 3 (6 products of N/3), down to leaves of exactly 8
 * lanes, so every split, sum, difference and contraction is whole-vector
 * arithmetic on aligned blocks. Padding is exact: a Toeplitz matrix of size n
 * is the top-left corner of one of size N whose other entries are 0, and the
 * vector entries beyond n are 0, so the first n rows are the true product.
 *   - vector side (broadcast): the digits of A (expanded once per call) and
 *     of the constant M_j (at creation): block sums, nonnegative;
 *   - matrix side (windows): B_i (expanded once per call) and T (per step):
 *     block differences of their Toeplitz sequences, so signed. IFMA is
 *     unsigned: every leaf entry gets + 2^51 (entries stay below 2^52 because
 *     the bounds checked at creation keep |entry| < 2^51), and each leaf
 *     product starts from - 2^51 sum(x) (split in lo, hi), which removes the
 *     excess exactly: no branch and no data-dependent mask. A leaf window
 *     serves the s vectors (A_j, or M_j) of one product: 2s vpmadd52 per
 *     load, and the constant data per context is s NL 8 words.
 * The product by M'_0 stays unsplit (low halves only) and so do the division
 * and the output. Layouts: a sequence of size m (entries d in [-m, m-1],
 * m a multiple of 8) is 2m words at position d + m; a leaf block is 16 words
 * (d + 8, window for column c at + 8 - c); leaves in the depth-first order of
 * pmns_mp/plan.c (kids of block q at q * kids + e). */
#define FS_KIDS(f) ((f) == 2 ? 3 : (f) == 3 ? 6 : 1)
#define FS_F(f) ((f) ? (f) : 1)
#define FS_M(F0, F1, F2) (FS_F(F0) * FS_F(F1) * FS_F(F2))          /* N / 8 */
#define FS_NL(F0, F1, F2) (FS_KIDS(F0) * FS_KIDS(F1) * FS_KIDS(F2)) /* leaves */
#define FS_OFF ((uint64_t)1 << 51)
/* per-context scratch (words, every part a multiple of 8): dA, dB (S N
 * each), seq (2N), xA (S NL 8), mB (S NL 16), cA (S NL 8), Rx (2S NL 16: R
 * in the leaf domain, lo and hi), cr (2N: one row contracted), xb, tb (N
 * each), mT (NL 16: T's leaves), tmp (16 N) */
#define FS_WORDS(S, F0, F1, F2)                                                                \
    (2 * (size_t)(S) * 8 * FS_M(F0, F1, F2) + 22 * 8 * FS_M(F0, F1, F2) +                      \
     64 * (size_t)(S) * FS_NL(F0, F1, F2) + 16 * FS_NL(F0, F1, F2))

/* Vector expansion of x (N words, entries beyond n zero) into NL blocks of 8:
 * 2-way (x0 + x1, x1, x0), 3-way (x0+x1+x2, x1+x2, x0+x1, x2, x0, x1). */
static inline AI IFMA_TARGET void fs_expand_vec(const uint64_t *x, uint64_t *out, uint64_t *tmp,
                                                int N, const int F0, const int F1, const int F2)
{
    const int F[3] = {F0, F1, F2};
    const int lev = (F0 != 0) + (F1 != 0) + (F2 != 0);
    const uint64_t *src = x;
    int count = 1, m = N;
    for (int l = 0; l < lev; l++) {
        uint64_t *dst = l == lev - 1 ? out : tmp + (l & 1) * (size_t)(N * 8);
        const int f = F[l], h = m / f;
        for (int q = 0; q < count; q++) {
            const uint64_t *xs = src + (size_t)q * m;
            uint64_t *d = dst + (size_t)q * FS_KIDS(f) * h;
            for (int i = 0; i < h; i += 8) {
                const __m512i v0 = _mm512_load_si512(xs + i), v1 = _mm512_load_si512(xs + h + i);
                if (f == 2) {
                    _mm512_store_si512(d + i, _mm512_add_epi64(v0, v1));
                    _mm512_store_si512(d + h + i, v1);
                    _mm512_store_si512(d + 2 * h + i, v0);
                } else {
                    const __m512i v2 = _mm512_load_si512(xs + 2 * h + i);
                    const __m512i v12 = _mm512_add_epi64(v1, v2);
                    _mm512_store_si512(d + i, _mm512_add_epi64(v0, v12));
                    _mm512_store_si512(d + h + i, v12);
                    _mm512_store_si512(d + 2 * h + i, _mm512_add_epi64(v0, v1));
                    _mm512_store_si512(d + 3 * h + i, v2);
                    _mm512_store_si512(d + 4 * h + i, v0);
                    _mm512_store_si512(d + 5 * h + i, v1);
                }
            }
        }
        count *= FS_KIDS(f);
        m = h;
        src = dst;
    }
}

/* - 2^51 sum(x_l) as (lo, hi) per leaf l of the vector expansion of x (N
 * words): the lane sums of the 8-lane blocks of x, then the same expansion
 * on those sums (it is linear), so M reductions instead of one per leaf.
 * 2^51 sx = 2^51 (sx & 1) + 2^52 (sx >> 1). */
static inline AI IFMA_TARGET void fs_corr(const uint64_t *x, uint64_t *c, int N, const int F0,
                                          const int F1, const int F2)
{
    const int F[3] = {F0, F1, F2};
    const int lev = (F0 != 0) + (F1 != 0) + (F2 != 0);
    uint64_t buf[2][32];
    int m = N / 8, count = 1;
    for (int b = 0; b < m; b++)
        buf[0][b] = (uint64_t)_mm512_reduce_add_epi64(_mm512_load_si512(x + 8 * b));
    int cur = 0;
    for (int l = 0; l < lev; l++) {
        const int f = F[l], h = m / f, kids = FS_KIDS(f);
        uint64_t *d = buf[cur ^ 1];
        for (int q = count - 1; q >= 0; q--) { /* in place order: from the end */
            const uint64_t *xs = buf[cur] + (size_t)q * m;
            uint64_t *o = d + (size_t)q * kids * h;
            for (int i = 0; i < h; i++) {
                const uint64_t v0 = xs[i], v1 = xs[h + i];
                if (f == 2) {
                    o[i] = v0 + v1;
                    o[h + i] = v1;
                    o[2 * h + i] = v0;
                } else {
                    const uint64_t v2 = xs[2 * h + i];
                    o[i] = v0 + v1 + v2;
                    o[h + i] = v1 + v2;
                    o[2 * h + i] = v0 + v1;
                    o[3 * h + i] = v2;
                    o[4 * h + i] = v0;
                    o[5 * h + i] = v1;
                }
            }
        }
        count *= kids;
        m = h;
        cur ^= 1;
    }
    for (int l = 0; l < count; l++) {
        const uint64_t sx = buf[cur][l];
        c[2 * l] = (uint64_t)0 - ((sx & 1) << 51);
        c[2 * l + 1] = (uint64_t)0 - (sx >> 1);
    }
}

/* Leaf products into rows of Rx (leaf domain): row j, j < SJ,
 * += (DBL and j > 0: 2 x) (sum_c x_j[l][c] win_c(Y[l]) - 2^51 sum_c x_j[l][c])
 * for every leaf l: the window of the matrix side Y (B_i, A_i or T, entries
 * + 2^51) is shared by the SJ vectors x_j (expanded digits of A, or of the
 * M_j); cx: the excess - 2^51 sum(x_j[l]) as (lo, hi), per (j, l). */
static inline AI IFMA_TARGET void fs_leaf(uint64_t *Rx, const uint64_t *Y, const uint64_t *x,
                                          size_t xst, const uint64_t *cx, size_t cst,
                                          const int SJ, const int DBL, const int NL)
{
    for (int l = 0; l < NL; l++) {
        __m512i lo[6], hi[6];
        const uint64_t *blk = Y + 16 * (size_t)l;
#pragma GCC unroll 6
        for (int j = 0; j < SJ; j++) {
            lo[j] = _mm512_set1_epi64((long long)cx[j * cst + 2 * l]);
            hi[j] = _mm512_set1_epi64((long long)cx[j * cst + 2 * l + 1]);
        }
#pragma GCC unroll 8
        for (int cc = 0; cc < 8; cc++) {
            const __m512i wv = _mm512_loadu_si512(blk + 8 - cc);
#pragma GCC unroll 6
            for (int j = 0; j < SJ; j++) {
                const __m512i xv = _mm512_set1_epi64((long long)x[j * xst + 8 * l + cc]);
                lo[j] = _mm512_madd52lo_epu64(lo[j], wv, xv);
                hi[j] = _mm512_madd52hi_epu64(hi[j], wv, xv);
            }
        }
#pragma GCC unroll 6
        for (int j = 0; j < SJ; j++) {
            uint64_t *pr = Rx + ((size_t)j * NL + l) * 16;
            __m512i vl = lo[j], vh = hi[j];
            if (DBL && j > 0) {
                vl = _mm512_slli_epi64(vl, 1);
                vh = _mm512_slli_epi64(vh, 1);
            }
            _mm512_store_si512(pr, _mm512_add_epi64(_mm512_load_si512(pr), vl));
            _mm512_store_si512(pr + 8, _mm512_add_epi64(_mm512_load_si512(pr + 8), vh));
        }
    }
}

/* digits of a, carried, zero-padded to N (S rows of N words) */
static inline AI IFMA_TARGET void fs_digits(const mns_pmns_mp_ctx *c, uint64_t *dig,
                                            const uint64_t *a, int N, const int S, const int NV)
{
    const int n = c->n;
    const __m512i km = _mm512_set1_epi64((long long)c->kmask);
    const __m512i kc = _mm512_set1_epi64(c->k);
    __m512i carry[8];
#pragma GCC unroll 8
    for (int v = 0; v < 8; v++) /* all 8: NV may be a run-time value */
        carry[v] = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int j = 0; j < S; j++) {
        uint64_t *d = dig + (size_t)j * N;
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
            const int rem = n - 8 * v;
            const __mmask8 m = rem >= 8 ? 0xFF : (__mmask8)((1u << rem) - 1);
            __m512i x = _mm512_add_epi64(_mm512_maskz_loadu_epi64(m, a + (size_t)j * n + 8 * v),
                                         carry[v]);
            if (j < S - 1) {
                carry[v] = _mm512_srlv_epi64(x, kc);
                x = _mm512_and_si512(x, km);
            }
            _mm512_store_si512(d + 8 * v, x);
        }
        for (int v = NV; v < N / 8; v++)
            _mm512_store_si512(d + 8 * v, _mm512_setzero_si512());
    }
}

/* The Toeplitz sequence of a digit row d (M vectors, lanes >= n zero) and
 * its matrix expansion into the NL leaf blocks (+ 2^51), with every level in
 * an array indexed by compile-time constants (the compiler keeps what fits in
 * registers and spills the rest with whole-vector stores, which the loads
 * that follow can forward from; a sequence written with masked or unaligned
 * stores and read back with aligned loads cannot). The first half of the
 * sequence is lambda d shifted up by sh = N - n lanes: one two-source permute
 * per vector from the products stored 2 vectors past zero padding. */
static inline AI IFMA_TARGET void fs_seq_leaves(const mns_pmns_mp_ctx *c, const uint64_t *d,
                                                uint64_t *out, uint64_t *lt, const int F0,
                                                const int F1, const int F2)
{
    const int F[3] = {F0, F1, F2};
    const int lev = (F0 != 0) + (F1 != 0) + (F2 != 0);
    const int M = FS_M(F0, F1, F2), N = 8 * M;
    const int sh = N - c->n, shv = sh >> 3, shr = sh & 7;
    const __m512i lam = _mm512_set1_epi64((long long)c->lambda);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i off = _mm512_set1_epi64((long long)FS_OFF);
    /* idx[r] = 8 - shr + r: lanes below 8 from the lower source */
    const __m512i idx = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                                         _mm512_set1_epi64(8 - shr));
    __m512i A[64], B[64];
    _mm512_store_si512(lt, zero);
    _mm512_store_si512(lt + 8, zero);
#pragma GCC unroll 8
    for (int u = 0; u < M; u++) {
        A[M + u] = _mm512_load_si512(d + 8 * u);
        /* lambda d_e < 2^52 (checked at creation): the low half is exact */
        _mm512_store_si512(lt + 16 + 8 * u, _mm512_madd52lo_epu64(zero, A[M + u], lam));
    }
#pragma GCC unroll 8
    for (int u = 0; u < M; u++) /* element e = 8u + r - sh of lambda d */
        A[u] = _mm512_permutex2var_epi64(_mm512_load_si512(lt + 8 * (u - shv + 1)), idx,
                                         _mm512_load_si512(lt + 8 * (u - shv + 2)));
    __m512i *src = A, *dst = B;
    int count = 1, m = N;
#pragma GCC unroll 3
    for (int l = 0; l < lev; l++) {
        const int f = F[l], h = m / f, kids = FS_KIDS(f), last = l == lev - 1;
        const int pv = 2 * m / 8, cv = 2 * h / 8; /* vectors per parent, per child */
#pragma GCC unroll 9
        for (int q = 0; q < count; q++)
#pragma GCC unroll 8
            for (int i = 0; i < cv; i++) {
                const __m512i *x = src + q * pv;
                const int b0 = (8 * i - h + m) / 8; /* vector of entry 8i - h */
                const __m512i u0 = x[b0], um1 = x[b0 - h / 8], up1 = x[b0 + h / 8];
                __m512i e[6];
                e[0] = u0;
                e[1] = _mm512_sub_epi64(um1, u0);
                e[2] = _mm512_sub_epi64(up1, u0);
                if (f == 3) {
                    const __m512i um2 = x[b0 - 2 * h / 8], up2 = x[b0 + 2 * h / 8];
                    e[3] = _mm512_sub_epi64(um2, um1);
                    e[4] = _mm512_sub_epi64(up2, up1);
                    e[5] = _mm512_sub_epi64(_mm512_add_epi64(up1, um1), _mm512_slli_epi64(u0, 1));
                }
#pragma GCC unroll 6
                for (int k = 0; k < kids; k++) {
                    if (last)
                        _mm512_store_si512(out + ((size_t)(q * kids + k) * cv + i) * 8,
                                           _mm512_add_epi64(e[k], off));
                    else
                        dst[(q * kids + k) * cv + i] = e[k];
                }
            }
        __m512i *t = src;
        src = dst;
        dst = t;
        count *= kids;
        m = h;
    }
}

/* Contraction of one row of the leaf domain (NL vectors at stride pst
 * words) into N lanes at dst, levels in compile-time-indexed arrays (see
 * fs_seq_leaves): 2-way out0 = P0 + P1, out1 = P0 + P2; 3-way
 * out0 = P0 + P1 + P3, out1 = P0 + P1 + P2 - P5, out2 = P0 + P2 + P4. */
static inline AI IFMA_TARGET void fs_contract_r(const uint64_t *P, size_t pst, uint64_t *dst,
                                                const int F0, const int F1, const int F2)
{
    const int F[3] = {F0, F1, F2};
    const int lev = (F0 != 0) + (F1 != 0) + (F2 != 0);
    const int NL = FS_NL(F0, F1, F2);
    int size[4], cnt[4];
    size[0] = 8 * FS_M(F0, F1, F2);
    cnt[0] = 1;
#pragma GCC unroll 3
    for (int l = 0; l < lev; l++) {
        size[l + 1] = size[l] / F[l];
        cnt[l + 1] = cnt[l] * FS_KIDS(F[l]);
    }
    __m512i A[32], B[32];
#pragma GCC unroll 27
    for (int l = 0; l < NL; l++)
        A[l] = _mm512_load_si512(P + (size_t)l * pst);
    __m512i *src = A, *dst2 = B;
#pragma GCC unroll 3
    for (int l = lev - 1; l >= 0; l--) {
        const int hv = size[l + 1] / 8, mv = size[l] / 8, kids = FS_KIDS(F[l]);
#pragma GCC unroll 9
        for (int q = 0; q < cnt[l]; q++)
#pragma GCC unroll 8
            for (int i = 0; i < hv; i++) {
                const __m512i *p0 = src + q * kids * hv;
                const __m512i a0 = p0[i], a1 = p0[hv + i], a2 = p0[2 * hv + i];
                __m512i y[3];
                if (F[l] == 2) {
                    y[0] = _mm512_add_epi64(a0, a1);
                    y[1] = _mm512_add_epi64(a0, a2);
                } else {
                    const __m512i s01 = _mm512_add_epi64(a0, a1);
                    y[0] = _mm512_add_epi64(s01, p0[3 * hv + i]);
                    y[1] = _mm512_sub_epi64(_mm512_add_epi64(s01, a2), p0[5 * hv + i]);
                    y[2] = _mm512_add_epi64(_mm512_add_epi64(a0, a2), p0[4 * hv + i]);
                }
#pragma GCC unroll 3
                for (int k = 0; k < F[l]; k++) {
                    if (l == 0)
                        _mm512_store_si512(dst + 8 * (size_t)(k * hv + i), y[k]);
                    else
                        dst2[q * mv + k * hv + i] = y[k];
                }
            }
        __m512i *t = src;
        src = dst2;
        dst2 = t;
    }
}

/* W independent products with the split (F0, F1, F2) on N = 8 FS_M lanes;
 * every context has the same (n, s). SQ as in fu_body. R stays in the leaf
 * domain (Rx) and only the row a step needs is contracted: its low halves
 * for T, then both halves for the exact division. */
static inline AI IFMA_TARGET void fs_body(const mns_pmns_mp_ctx *const *cx, uint64_t *const *r,
                                          const uint64_t *const *a, const uint64_t *const *b,
                                          uint64_t *w, const int S, const int NV, const int SQ,
                                          const int W, const int F0, const int F1, const int F2)
{
    const int n = cx[0]->n;
    const int M = FS_M(F0, F1, F2), NL = FS_NL(F0, F1, F2), N = 8 * M;
    const size_t WS = FS_WORDS(S, F0, F1, F2);
    const size_t RW = (size_t)NL * 16; /* one row of Rx */
    /* layout of one context's scratch */
    const size_t oA = 0, oB = oA + (size_t)S * N, oS = oB + (size_t)S * N, oX = oS + 2 * (size_t)N,
                 oM = oX + (size_t)S * NL * 8, oC = oM + (size_t)S * NL * 16,
                 oR = oC + (size_t)S * NL * 8, oCR = oR + 2 * (size_t)S * RW, oXB = oCR + 2 * (size_t)N,
                 oTB = oXB + N, oMT = oTB + N, oT = oMT + (size_t)NL * 16;
    const __m512i zero = _mm512_setzero_si512();
    __m512i km[2], kc[2], kh[2], carry[2][8];
#pragma GCC unroll 2
    for (int q = 0; q < W; q++) {
        uint64_t *wq = w + q * WS;
        km[q] = _mm512_set1_epi64((long long)cx[q]->kmask);
        kc[q] = _mm512_set1_epi64(cx[q]->k);
        kh[q] = _mm512_set1_epi64(52 - cx[q]->k);
        fs_digits(cx[q], wq + oA, a[q], N, S, NV);
        if (!SQ)
            fs_digits(cx[q], wq + oB, b[q], N, S, NV);
        const uint64_t *mdig = SQ ? wq + oA : wq + oB; /* the matrix side */
        for (int j = 0; j < S; j++) {
            fs_expand_vec(wq + oA + (size_t)j * N, wq + oX + (size_t)j * NL * 8, wq + oT, N, F0, F1,
                          F2);
            fs_corr(wq + oA + (size_t)j * N, wq + oC + (size_t)j * NL * 8, N, F0, F1, F2);
            fs_seq_leaves(cx[q], mdig + (size_t)j * N, wq + oM + (size_t)j * NL * 16, wq + oS, F0,
                          F1, F2);
        }
        for (size_t i = 0; i < 2 * (size_t)S * RW; i += 8)
            _mm512_store_si512(wq + oR + i, zero);
#pragma GCC unroll 8
        for (int v = 0; v < 8; v++)
            carry[q][v] = zero;
    }

#pragma GCC unroll 1
    for (int i = 0; i < S; i++) {
        /* Rx_(i+j) += A_j B_i (SQ: Rx_(i+j) += (2) A_j A_i, j >= i) */
#pragma GCC unroll 2
        for (int q = 0; q < W; q++) {
            uint64_t *wq = w + q * WS;
            const int j0 = SQ ? i : 0;
            const uint64_t *mB = wq + oM + (size_t)i * NL * 16;
            const uint64_t *xA = wq + oX + (size_t)j0 * NL * 8, *cA = wq + oC + (size_t)j0 * NL * 8;
            uint64_t *rx = wq + oR + (size_t)(i + j0) * RW;
            const size_t xs = (size_t)NL * 8;
            switch (S - j0) {
            case 6: fs_leaf(rx, mB, xA, xs, cA, xs, 6 <= S ? 6 : 1, SQ, NL); break;
            case 5: fs_leaf(rx, mB, xA, xs, cA, xs, 5 <= S ? 5 : 1, SQ, NL); break;
            case 4: fs_leaf(rx, mB, xA, xs, cA, xs, 4 <= S ? 4 : 1, SQ, NL); break;
            case 3: fs_leaf(rx, mB, xA, xs, cA, xs, 3 <= S ? 3 : 1, SQ, NL); break;
            case 2: fs_leaf(rx, mB, xA, xs, cA, xs, 2, SQ, NL); break;
            default: fs_leaf(rx, mB, xA, xs, cA, xs, 1, SQ, NL); break;
            }
        }
        /* T = (R_i + carry) M'_0 mod (E, 2^k) from the low halves of row i,
         * lanes >= n cleared; T is the matrix side of T M_j (its Toeplitz
         * sequence expanded into leaves), the M_j the vector side (expanded
         * at creation), so the products share the windows of T */
#pragma GCC unroll 2
        for (int q = 0; q < W; q++) {
            uint64_t *wq = w + q * WS;
            fs_contract_r(wq + oR + (size_t)i * RW, 16, wq + oCR, F0, F1, F2);
            fu_t(cx[q], wq + oCR, carry[q], wq + oXB, wq + oTB, km[q], M);
            {
                const int rem = n - 8 * (NV - 1);
                const __mmask8 m = rem >= 8 ? 0xFF : (__mmask8)((1u << rem) - 1);
                uint64_t *tl = wq + oTB + 8 * (NV - 1);
                _mm512_store_si512(tl, _mm512_maskz_mov_epi64(m, _mm512_load_si512(tl)));
                for (int v = NV; v < M; v++)
                    _mm512_store_si512(wq + oTB + 8 * v, zero);
            }
            fs_seq_leaves(cx[q], wq + oTB, wq + oMT, wq + oS, F0, F1, F2);
        }
        /* Rx_(i+j) += T M_j */
#pragma GCC unroll 2
        for (int q = 0; q < W; q++) {
            uint64_t *wq = w + q * WS;
            const uint64_t *xM = cx[q]->msplit, *cM = xM + (size_t)S * NL * 8;
            fs_leaf(wq + oR + (size_t)i * RW, wq + oMT, xM, (size_t)NL * 8, cM, (size_t)NL * 2, S,
                    0, NL);
        }
        /* exact division on row i, contracted */
#pragma GCC unroll 2
        for (int q = 0; q < W; q++) {
            uint64_t *wq = w + q * WS;
            fs_contract_r(wq + oR + (size_t)i * RW, 16, wq + oCR, F0, F1, F2);
            fs_contract_r(wq + oR + (size_t)i * RW + 8, 16, wq + oCR + N, F0, F1, F2);
            fu_div(wq + oCR, wq + oCR + N, carry[q], kc[q], kh[q], M);
        }
    }
    /* rows s .. 2s-2 contracted (R_(2s-1) gets nothing), then lines 15-18 */
#pragma GCC unroll 2
    for (int q = 0; q < W; q++) {
        uint64_t *wq = w + q * WS;
        uint64_t *o = wq + oA; /* the digits are no longer needed: (S-1) x 2N words */
        for (int j = 0; j < S - 1; j++) {
            fs_contract_r(wq + oR + (size_t)(S + j) * RW, 16, o + (size_t)j * 2 * N, F0, F1, F2);
            fs_contract_r(wq + oR + (size_t)(S + j) * RW + 8, 16, o + (size_t)j * 2 * N + N, F0,
                          F1, F2);
        }
        fu_out(r[q], n, o, o + N, 2 * (size_t)N, carry[q], km[q], kc[q], kh[q], S, NV);
    }
}

#endif
