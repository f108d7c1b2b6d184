/* AVX-512 IFMA kernels for u52 sets with n <= 64 and E = X^n - lambda
 * (lambda > 0): register-only, one function per n.
 *
 * The general path (kernel_ifma.c) pays for memory traffic that dominates for few chunks and
 * still costs 10-30 % up to n = 64: the ext row of B is stored and read back
 * by unaligned windows straddling those stores (no store-to-load forwarding),
 * V and Q make a round trip through memory, and the pass/group dispatch
 * runs per call. Here N is a compile-time constant (one function per n,
 * chosen at context creation), so everything lives in zmm registers:
 *   - B, L = lambda B (exact from vpmadd52luq: lambda b < 2^52 for every
 *     accepted b, kmax is capped so) in NC = ceil(N/8) registers each;
 *   - the ext row E (f(d) = lambda b_{n+d} for d < 0, b_d for d >= 0) in
 *     2 NC + 1 registers, each one or two valignq of B and L;
 *   - each window of E is one valignq of two known registers (port 5);
 *   - v_i and q_i are broadcast from their registers by vpermq;
 *   - the rows of M' and M are the context's aligned copies (loads only).
 * V is accumulated into T's registers, so S = (V + T) >> 52 per lane costs
 * one shift and one add. Lanes >= n of V, Q, T carry garbage that is never
 * read (only lanes < n are broadcast or stored). At 8 chunks (n = 57-64)
 * the accumulators and E no longer fit the 32 zmm registers and the
 * compiler spills, still 22 % faster than the path above at 2048 bits
 * (n = 61: ~1540 -> ~1200 ticks, A/B single calls). About 8 KB of code per n
 * and operation; squaring: see SMALL_FN. Loop bounds, indices and masks
 * depend on N only. */
#include "pmns/pmns.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "core/simd512.h"

#define TGT MNS_TARGET_IFMA
#define INL static inline __attribute__((always_inline)) TGT


/* lane i of the register array X, broadcast (vpermq: 3 cycles, no store
 * round trip) */
#define BCAST(X, i) _mm512_permutexvar_epi64(_mm512_set1_epi64((i) & 7), (X)[(i) >> 3])

/* 8 words of the vector array X (index >= cnt or < 0: zero) from word
 * offset o: one valignq of two neighbours, or the vector itself. valignq
 * (immediate shift) instead of vpermt2q: the same port and latency, but no
 * index register per shift; those 7 registers made the compiler spill
 * accumulators from 4 chunks on (1214 bits: 80 stack accesses -> 7,
 * with the term order of small_mul; ~4 % at 1214-1621 bits). */
INL __m512i win_of(const __m512i *X, const int cnt, const int o)
{
    const __m512i z = _mm512_setzero_si512();
    const int q = o >= 0 ? o / 8 : -((7 - o) / 8), sh = o - 8 * q;
    const __m512i lo = q >= 0 && q < cnt ? X[q] : z;
    const __m512i hi = q + 1 >= 0 && q + 1 < cnt ? X[q + 1] : z;
    return sh == 0 ? lo : _mm512_alignr_epi64(hi, lo, sh);
}

/* lane mask of the t = 8q+j in [from, to] */
INL __mmask8 lanes_in(const int q, const int from, const int to)
{
    unsigned m = 0;
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        if (8 * q + j >= from && 8 * q + j <= to)
            m |= 1u << j;
    return (__mmask8)m;
}

/* off_a[i] of mns_pmns_ifma_prepare for copies of stride ST */
INL int off_const(const int N, const int ST, const int i)
{
    return ((N - 1 - i) & 7) * ST + 8 * ((N - 1 - i) >> 3);
}

/* The ii-th term of V in residue order 0, 8, 16, ..., 1, 9, ...: term i + 8
 * reads the windows of term i one chunk further, so consecutive terms share
 * all but one window and only NC + 1 windows are live at a time (in index
 * order a window is reused 8 terms later and the compiler kept dozens live,
 * spilling). */
INL int v_term(const int N, const int ii)
{
    int cnt = 0;
#pragma GCC unroll 8
    for (int s = 0; s < 8; s++) {
        const int len = s < N ? (N - 1 - s) / 8 + 1 : 0;
        if (ii < cnt + len)
            return s + 8 * (ii - cnt);
        cnt += len;
    }
    return 0;
}

/* Squaring (the symmetric-product scheme of the RSA-CRT PMNS slides): the
 * lanes of chunk q where term i meets a partner j > i (lane k pairs a_i
 * with a_{k-i}, or with a_{k+N-i} times lambda when k < i). Each pair
 * i != j is taken once, from its smaller index, and doubled. */
INL __mmask8 sqr_lanes(const int N, const int i, const int q)
{
    unsigned m = 0;
#pragma GCC unroll 8
    for (int l = 0; l < 8; l++) {
        const int k = 8 * q + l, j = k >= i ? k - i : k + N - i;
        if (k < N && j > i)
            m |= 1u << l;
    }
    return (__mmask8)m;
}

/* The diagonal a_i^2 lands in lane k = 2i (factor 1) or 2i - N (factor
 * lambda): the which-th (0 or 1) such i for lane k, or -1. In closed form:
 * an unrolled search over i does not fold to a constant. */
INL int sqr_diag(const int N, const int k, const int which)
{
    const int i0 = k < N && k % 2 == 0 ? k / 2 : -1;
    const int i1 = k < N && (k + N) % 2 == 0 && (k + N) / 2 < N ? (k + N) / 2 : -1;
    if (which == 0)
        return i0 >= 0 ? i0 : i1;
    return i0 >= 0 ? i1 : -1;
}

/* SQ = 0: r <- a b; SQ = 1: r <- a^2 (b == a) with V from the pairs j > i,
 * doubled, plus the diagonal; Q and T as for a product. */
INL void small_mul(const int N, const int SQ, const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a,
                   const uint64_t *b)
{
    enum { NCMAX = 8, NE = 2 * NCMAX + 1 };
    const int NC = (N + 7) / 8;
    /* V and T: 2 UV NC chains, Q: UQ NC. Measured (A/B, single calls):
     * UV = 2, UQ = 4 at NC = 3 take 807 bits from ~198 to ~184 ticks; at
     * NC >= 4 more chains spill registers and lose 3-5 % */
    const int UV = NC == 1 ? 4 : NC <= 3 ? 2 : 1;
    const int UQ = NC <= 3 ? 4 : 2;
    const __m512i z = _mm512_setzero_si512();
    const __m512i lam = _mm512_set1_epi64(c->lambda);
    __m512i Bv[NCMAX], Lv[NCMAX];
#pragma GCC unroll 8
    for (int k = 0; k < NC; k++) {
        const __mmask8 mk = lanes_in(k, 0, N - 1);
        Bv[k] = _mm512_maskz_loadu_epi64(mk, (const void *)(b + 8 * k));
        Lv[k] = _mm512_madd52lo_epu64(z, Bv[k], lam);
    }

    /* E: ext[t] = L[t+1] (t < N-1), B[t-N+1] (N-1 <= t <= 2N-2), 0 beyond */
    __m512i E[NE];
#pragma GCC unroll 17
    for (int q = 0; q < NE; q++) {
        if (8 * q > 2 * N - 2) {
            E[q] = z;
            continue;
        }
        const __mmask8 ml = lanes_in(q, 0, N - 2), mb = lanes_in(q, N - 1, 2 * N - 2);
        __m512i v = z;
        if (ml)
            v = win_of(Lv, NC, 8 * q + 1);
        if (mb)
            v = _mm512_mask_mov_epi64(v, mb, win_of(Bv, NC, 8 * q - N + 1));
        E[q] = _mm512_maskz_mov_epi64((__mmask8)(ml | mb), v);
    }

    /* V = A B mod E: chunk k, term i reads ext[8k + N-1-i .. +7] */
    __m512i vl[4][NCMAX], vh[4][NCMAX];
#pragma GCC unroll 4
    for (int u = 0; u < UV; u++)
#pragma GCC unroll 8
        for (int k = 0; k < NC; k++)
            vl[u][k] = vh[u][k] = z;
#pragma GCC unroll 64
    for (int ii = 0; ii < N; ii++) {
        const int i = v_term(N, ii);
        const __m512i bx = _mm512_set1_epi64((long long)a[i]);
        const int u = ii % UV;
#pragma GCC unroll 8
        for (int k = 0; k < NC; k++) {
            const __m512i W = win_of(E, NE, 8 * k + N - 1 - i);
            /* (the product's path stays free of mask logic: with it, GCC
             * no longer folded the masks before register allocation and
             * the products spilled heavily) */
            const __mmask8 m = SQ ? sqr_lanes(N, i, k) : 0;
            if (SQ && !m)
                continue;
            if (!SQ || m == lanes_in(k, 0, N - 1)) {
                vl[u][k] = _mm512_madd52lo_epu64(vl[u][k], bx, W);
                vh[u][k] = _mm512_madd52hi_epu64(vh[u][k], bx, W);
            } else {
                vl[u][k] = _mm512_mask_madd52lo_epu64(vl[u][k], m, bx, W);
                vh[u][k] = _mm512_mask_madd52hi_epu64(vh[u][k], m, bx, W);
            }
        }
    }
    __m512i Vl[NCMAX], Vh[NCMAX];
#pragma GCC unroll 8
    for (int k = 0; k < NC; k++) {
        Vl[k] = vl[0][k];
        Vh[k] = vh[0][k];
#pragma GCC unroll 4
        for (int u = 1; u < UV; u++) {
            Vl[k] = _mm512_add_epi64(Vl[k], vl[u][k]);
            Vh[k] = _mm512_add_epi64(Vh[k], vh[u][k]);
        }
        if (SQ) {
            /* V = 2 (pairs j > i) + G * (factor G), G[k] = a_i of lane k's
             * diagonal (up to two per lane when N is even), gathered from
             * the B registers by masked vpermq; the same lo/hi splits as
             * mul(a, a), so the same words */
            Vl[k] = _mm512_add_epi64(Vl[k], Vl[k]);
            Vh[k] = _mm512_add_epi64(Vh[k], Vh[k]);
#pragma GCC unroll 2
            for (int w = 0; w < 2; w++) {
                __m512i G = z;
                unsigned any = 0, mlam = 0;
#pragma GCC unroll 8
                for (int sr = 0; sr < NC; sr++) {
                    unsigned msk = 0;
                    long long ix[8] = {0};
#pragma GCC unroll 8
                    for (int l = 0; l < 8; l++) {
                        const int src = sqr_diag(N, 8 * k + l, w);
                        if (src >= 0 && src >> 3 == sr) {
                            msk |= 1u << l;
                            ix[l] = src & 7;
                            if (2 * src >= N)
                                mlam |= 1u << l;
                        }
                    }
                    if (msk) {
                        const __m512i idx = _mm512_set_epi64(ix[7], ix[6], ix[5], ix[4], ix[3], ix[2], ix[1], ix[0]);
                        G = _mm512_mask_permutexvar_epi64(G, (__mmask8)msk, idx, Bv[sr]);
                        any |= msk;
                    }
                }
                if (!any)
                    continue;
                /* lambda G on the wrapped lanes: G + (lambda - 1) G */
                const __m512i GF = mlam ? _mm512_mask_madd52lo_epu64(G, (__mmask8)mlam, G,
                                                                     _mm512_set1_epi64(c->lambda - 1))
                                        : G;
                Vl[k] = _mm512_madd52lo_epu64(Vl[k], G, GF);
                Vh[k] = _mm512_madd52hi_epu64(Vh[k], G, GF);
            }
        }
    }

    /* Q = V M' mod (E, 2^52): v_i broadcast from the register (vpermq),
     * aligned constant windows */
    __m512i ql[4][NCMAX];
#pragma GCC unroll 4
    for (int u = 0; u < UQ; u++)
#pragma GCC unroll 8
        for (int k = 0; k < NC; k++)
            ql[u][k] = z;
    const uint64_t *mpx = c->mp_ext8;
    /* the window offsets of prepare's off_a as constants of N (the copies'
     * stride is a function of n alone): one base register per row and
     * immediate displacements, instead of an offset load, a lea and GPR
     * spills per term (3-4 % at 807-1621 bits) */
    const int ST = (8 * NC + N + 8 + 7) & ~7;
    /* terms in v_term's order here too: consecutive terms read the same
     * M' window one chunk apart, so a window is loaded once instead of per
     * (term, chunk) (the loads fell from ~420 to ~190 at 1214 bits; 3-7 %
     * at 1621-2048 bits) */
#pragma GCC unroll 64
    for (int ii = 0; ii < N; ii++) {
        const int i = v_term(N, ii);
        const __m512i bx = BCAST(Vl, i);
#pragma GCC unroll 8
        for (int k = 0; k < NC; k++)
            ql[ii % UQ][k] = _mm512_madd52lo_epu64(
                ql[ii % UQ][k], bx, _mm512_load_si512((const void *)(mpx + off_const(N, ST, i) + 8 * k)));
    }
    __m512i Q[NCMAX];
#pragma GCC unroll 8
    for (int k = 0; k < NC; k++) {
        Q[k] = ql[0][k];
#pragma GCC unroll 4
        for (int u = 1; u < UQ; u++)
            Q[k] = _mm512_add_epi64(Q[k], ql[u][k]);
    }

    /* T = Q M mod E, accumulated onto V: S = (V + T) / 2^52 */
    const uint64_t *mx = c->m_ext8;
    __m512i tl[4][NCMAX], th[4][NCMAX];
#pragma GCC unroll 4
    for (int u = 0; u < UV; u++)
#pragma GCC unroll 8
        for (int k = 0; k < NC; k++) {
            tl[u][k] = u == UV - 1 ? Vl[k] : z;
            th[u][k] = u == UV - 1 ? Vh[k] : z;
        }
#pragma GCC unroll 64
    for (int ii = 0; ii < N; ii++) {
        const int i = v_term(N, ii);
        const __m512i bx = BCAST(Q, i);
        const int u = ii % UV;
#pragma GCC unroll 8
        for (int k = 0; k < NC; k++) {
            const __m512i W = _mm512_load_si512((const void *)(mx + off_const(N, ST, i) + 8 * k));
            tl[u][k] = _mm512_madd52lo_epu64(tl[u][k], bx, W);
            th[u][k] = _mm512_madd52hi_epu64(th[u][k], bx, W);
        }
    }
#pragma GCC unroll 8
    for (int k = 0; k < NC; k++) {
        __m512i l = tl[0][k], h = th[0][k];
#pragma GCC unroll 4
        for (int u = 1; u < UV; u++) {
            l = _mm512_add_epi64(l, tl[u][k]);
            h = _mm512_add_epi64(h, th[u][k]);
        }
        h = _mm512_add_epi64(h, _mm512_srli_epi64(l, 52));
        _mm512_mask_storeu_epi64((void *)(r + 8 * k), lanes_in(k, 0, N - 1), h);
    }
}

/* The symmetric squaring saves about a third of V's IFMAs but adds masks,
 * the doubling and the diagonal: measured (A/B against mul(a, a), single
 * calls) 5-10 % faster from 4 chunks on (1024: 278 -> 266 ticks, 1214:
 * 392 -> 372, 1621: 612 -> 566, 2048: 1078 -> 966), even at 3 chunks and
 * 4-13 % slower at 1-2 chunks: up to 24 coefficients sqr stays mul(a, a).
 * GCC's default register allocator spills the squaring's accumulators
 * heavily from 4 chunks on (1214 bits: ~390 stack accesses, and slower than
 * mul(a, a)); the priority allocator keeps them in registers (15), so the
 * squaring functions ask for it. The products do better with the default. */
#if defined(__clang__)
#define SQR_RA
#else
#define SQR_RA __attribute__((optimize("ira-algorithm=priority")))
#endif
#define SQR_SYM_N_MIN 25
#define SMALL_FN(N)                                                                                \
    TGT static void mul_small_##N(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a,          \
                                  const uint64_t *b)                                               \
    {                                                                                              \
        small_mul(N, 0, c, r, a, b);                                                               \
    }                                                                                              \
    TGT SQR_RA static void sqr_small_##N(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)   \
    {                                                                                              \
        if (N < SQR_SYM_N_MIN)                                                                     \
            mul_small_##N(c, r, a, a);                                                             \
        else                                                                                       \
            small_mul(N, 1, c, r, a, a);                                                           \
    }
#define SMALL_FN8(x) SMALL_FN(x##0) SMALL_FN(x##1) SMALL_FN(x##2) SMALL_FN(x##3) SMALL_FN(x##4) \
    SMALL_FN(x##5) SMALL_FN(x##6) SMALL_FN(x##7) SMALL_FN(x##8) SMALL_FN(x##9)
SMALL_FN(2) SMALL_FN(3) SMALL_FN(4) SMALL_FN(5) SMALL_FN(6) SMALL_FN(7) SMALL_FN(8) SMALL_FN(9)
SMALL_FN8(1) SMALL_FN8(2) SMALL_FN8(3) SMALL_FN(40) SMALL_FN(41) SMALL_FN(42) SMALL_FN(43)
SMALL_FN(44) SMALL_FN(45) SMALL_FN(46) SMALL_FN(47) SMALL_FN(48)
SMALL_FN(49) SMALL_FN(50) SMALL_FN(51) SMALL_FN(52) SMALL_FN(53) SMALL_FN(54) SMALL_FN(55) SMALL_FN(56)
SMALL_FN(57) SMALL_FN(58) SMALL_FN(59) SMALL_FN(60) SMALL_FN(61) SMALL_FN(62) SMALL_FN(63) SMALL_FN(64)

#define E1(N) [N] = {mul_small_##N, sqr_small_##N}
#define E10(x) E1(x##0), E1(x##1), E1(x##2), E1(x##3), E1(x##4), E1(x##5), E1(x##6), E1(x##7), \
    E1(x##8), E1(x##9)
#define SMALL_N_MAX 64
static const struct {
    mns_pmns_mul_fn mul;
    mns_pmns_sqr_fn sqr;
} small_table[SMALL_N_MAX + 1] = {
    E1(2), E1(3), E1(4), E1(5), E1(6), E1(7), E1(8), E1(9), E10(1), E10(2), E10(3), E1(40),
    E1(41), E1(42), E1(43), E1(44), E1(45), E1(46), E1(47), E1(48),
    E1(49), E1(50), E1(51), E1(52), E1(53), E1(54), E1(55), E1(56), E1(57), E1(58), E1(59), E1(60),
    E1(61), E1(62), E1(63), E1(64),
};

int mns_pmns_ifma_pick_small(mns_pmns_ctx *c)
{
    /* small_mul's off_const assumes prepare's stride */
    if (c->n > SMALL_N_MAX || c->eshape != MNS_PMNS_E_BINOMIAL || c->lambda <= 0 ||
        c->ext8_stride != (size_t)((8 * c->nchunks + c->n + 8 + 7) & ~7))
        return 0;
    c->mul = small_table[c->n].mul;
    c->sqr = small_table[c->n].sqr;
    return 1;
}

#else /* no x86-64 GCC: the IFMA kernels are never selected */

int mns_pmns_ifma_pick_small(mns_pmns_ctx *c)
{
    (void)c;
    return 0;
}

#endif
