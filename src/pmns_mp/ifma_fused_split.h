/* The fused IFMA kernel of the multi-precision PMNS with the Toeplitz split
 * inside (fs_body).
 * Included by pmns_mp/ifma_fused.c and pmns_mp/ifma_x2.c only; builds on
 * the shared helpers of pmns_mp/ifma_fused.h. */
#ifndef MNS_PMNS_MP_IFMA_FUSED_SPLIT_H
#define MNS_PMNS_MP_IFMA_FUSED_SPLIT_H

#include "pmns_mp/ifma_fused.h"

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
