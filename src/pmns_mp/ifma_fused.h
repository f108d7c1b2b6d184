/* The fused IFMA kernels of the multi-precision PMNS (Alg. 3): here the
 * unsplit one (fu_body) and the helpers all three share; the register
 * kernel for n <= 8 (fr_body) is pmns_mp/ifma_fused_reg.h, the one with the
 * Toeplitz split inside (fs_body) pmns_mp/ifma_fused_split.h. Each is written once
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

#endif
