/* The register-only fused IFMA kernel of the multi-precision PMNS (fr_body,
 * n <= 8: one vector per polynomial).
 * Included by pmns_mp/ifma_fused.c and pmns_mp/ifma_x2.c only; builds on
 * the shared helpers of pmns_mp/ifma_fused.h. */
#ifndef MNS_PMNS_MP_IFMA_FUSED_REG_H
#define MNS_PMNS_MP_IFMA_FUSED_REG_H

#include "pmns_mp/ifma_fused.h"

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

#endif
