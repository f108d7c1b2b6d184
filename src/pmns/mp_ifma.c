/* AVX-512 IFMA kernel of the multi-precision PMNS (u52 sets: unsigned
 * digits, k <= 52 bits). Same flow as mp_generic.c, with:
 *   - lanes over (j, r): the s products of one vector by the s matrices of a
 *     CIOS step (A_j B_i, or T M_j) are one stacked product whose output rows
 *     are the consecutive digits R_i..R_(i+s-1) of the accumulator, so the
 *     leaf kernel loads and stores R directly and keeps 2 x ceil(s b / 8)
 *     independent accumulators (>= 8 at the sizes that matter: the machine
 *     needs 8 chains in flight for its 2 vpmadd52 per cycle);
 *   - each R coefficient as two 64-bit lanes lo + 2^52 hi (vpmadd52luq /
 *     vpmadd52huq), combined only where Alg. 3 needs the value;
 *   - signs: the sub-quadratic differences make matrix entries negative;
 *     IFMA multiplies unsigned 52-bit words, so every entry of an offset leaf
 *     gets + 2^o and the known excess 2^o sum(v) is subtracted from each
 *     output row afterwards: no branch and no mask depends on data;
 *   - the product by M'_0 mod 2^k needs low halves only: differences wrap
 *     mod 2^52 (IFMA reads 52 bits), no offset at all.
 * Every loop bound depends on (n, s, k, plan) only. */
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "pmns/mp_ctx.h"

#define IFMA_TARGET __attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw,avx512dq")))
#define MASK52 ((uint64_t)0xFFFFFFFFFFFFF)

/* column matrix of leaf l: [c][lanes], lane j*b + r = seq_j[r - c] + off */
static void build_col_scalar(uint64_t *col, const uint64_t *seq, size_t jstride, int nm, int b,
                             int lanes, uint64_t off, uint64_t mask)
{
    for (int cc = 0; cc < b; cc++) {
        uint64_t *o = col + (size_t)cc * lanes;
        for (int q = 0; q < lanes; q++)
            o[q] = off;
        for (int j = 0; j < nm; j++)
            for (int r = 0; r < b; r++)
                o[j * b + r] = ((seq[(size_t)j * jstride + (r - cc) + (b - 1)] + off) & mask);
    }
}

static int fast_prepare(mns_pmns_mp_ctx *c);

int mns_pmns_mp_ifma_prepare(mns_pmns_mp_ctx *c)
{
    const mp_plan *pl = &c->plan;
    const int b = pl->b, s = c->s;
    c->lanes_s = (s * b + 7) & ~7;
    c->lanes_1 = (b + 7) & ~7;
    size_t ls = (size_t)b * c->lanes_s, l1 = (size_t)b * c->lanes_1;
    c->mcol = aligned_alloc(64, ((size_t)pl->leaves * ls + 64) * 8);
    c->mpcol = aligned_alloc(64, ((size_t)pl->leaves * l1 + 64) * 8);
    if (!c->mcol || !c->mpcol)
        return 0;
    for (int l = 0; l < pl->leaves; l++) {
        uint64_t off = c->moff[l] ? (uint64_t)1 << c->moff[l] : 0;
        build_col_scalar(c->mcol + l * ls, c->mseq + (size_t)l * c->mstride,
                         (size_t)pl->leaves * c->mstride, s, b, c->lanes_s, off, ~(uint64_t)0);
        build_col_scalar(c->mpcol + l * l1, c->mpseq + (size_t)l * c->mstride, 0, 1, b,
                         c->lanes_1, 0, MASK52);
    }
    return fast_prepare(c);
}



/* ---- fused path: no Toeplitz split ------------------------------------------
 * At the sizes IFMA serves (n <= 64) the leaf is the whole product, so there
 * is nothing to expand or contract. A product by a polynomial mod E is then
 * sum_c x[c] * column_c, and column c of the Toeplitz matrix of sequence t is
 * the contiguous window t[(n-1) - c ..]: one unaligned load, no column matrix
 * built per call. Lanes are coefficients (NV = ceil(n/8) vectors per
 * polynomial; lanes >= n hold harmless partial sums of the zero padding and
 * are never stored). s and NV are compile-time constants of each instance, so
 * the accumulators stay in zmm registers within a product and the carries of
 * Alg. 3 stay in registers across the whole multiplication. Every loop bound
 * depends on (n, s, k) only; no branch or mask depends on data. */

#define AI __attribute__((always_inline))

/* lo/hi[(j, v)] += sum_c x[c] * seq_j[(n-1) + 8 v - c] for j < S, v in
 * [v0, v0 + VB). The sums start from zero and are added to R only at the
 * end, so a product does not wait for the previous step's stores: the A B
 * products of step i+1 overlap the reduction of step i. With few outputs
 * the columns alternate between two sets of accumulators, which halves the
 * dependent chain (a vpmadd52 waits 4 cycles for its accumulator). */
static inline AI IFMA_TARGET void fast_prod(uint64_t *rlo, uint64_t *rhi, const uint64_t *cols,
                                            const uint64_t *x, int n, const int S, const int CSJ,
                                            const int DBL, const int NV, const int VB,
                                            const int v0)
{
    const int CS = CSJ * NV * 8; /* words per column: CSJ matrices stacked */
    __m512i lo[16], hi[16], lo2[16], hi2[16];
    const size_t L = (size_t)NV * 8;
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
#pragma GCC unroll 16
    for (int j = 0; j < S; j++)
#pragma GCC unroll 16
        for (int v = 0; v < VB; v++) {
            uint64_t *pl = rlo + j * L + 8 * (v0 + v), *ph = rhi + j * L + 8 * (v0 + v);
            __m512i l = lo[j * VB + v], h = hi[j * VB + v];
            if (two) {
                l = _mm512_add_epi64(l, lo2[j * VB + v]);
                h = _mm512_add_epi64(h, hi2[j * VB + v]);
            }
            if (DBL && j > 0) { /* the squaring's cross products, doubled after the sum */
                l = _mm512_slli_epi64(l, 1);
                h = _mm512_slli_epi64(h, 1);
            }
            _mm512_store_si512(pl, _mm512_add_epi64(_mm512_load_si512(pl), l));
            _mm512_store_si512(ph, _mm512_add_epi64(_mm512_load_si512(ph), h));
        }
}

/* all S x NV outputs, in blocks of VB vectors (S*VB <= 8: 16 accumulators) */
static inline AI IFMA_TARGET void fast_prod_all(uint64_t *rlo, uint64_t *rhi, const uint64_t *cols,
                                                const uint64_t *x, int n, const int S,
                                                const int CSJ, const int DBL, const int NV)
{
    const int VB = S >= 8 ? 1 : (8 / S < NV ? 8 / S : NV);
    int v0 = 0;
#pragma GCC unroll 8
    for (; v0 + VB <= NV; v0 += VB)
        fast_prod(rlo, rhi, cols, x, n, S, CSJ, DBL, NV, VB, v0);
    if (NV - v0 > 0)
        fast_prod(rlo, rhi, cols, x, n, S, CSJ, DBL, NV, NV - v0, v0);
}

/* digits of a, carried (digits 0..S-2 in [0, 2^k), the top one takes the
 * rest), written as Toeplitz sequences t[n-1+d] = a_d, t[n-1-d] = lambda
 * a_(n-d): the first half is lambda * a shifted down by one. */
static inline AI IFMA_TARGET void fast_seq(const mns_pmns_mp_ctx *c, uint64_t *seq,
                                           const uint64_t *a, const int S, const int NV)
{
    const int n = c->n, k = c->k;
    const __m512i km = _mm512_set1_epi64((long long)c->kmask);
    const __m512i lam = _mm512_set1_epi64((long long)c->lambda);
    __m512i carry[8];
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++)
        carry[v] = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int j = 0; j < S; j++) {
        uint64_t *t = seq + (size_t)j * MP_FAST_SEQ + MP_FAST_OFF;
        /* the padding read by the last lanes of column 0 */
        _mm512_storeu_si512(t + 2 * n - 1, _mm512_setzero_si512());
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
            const int rem = n - 8 * v;
            const __mmask8 m = rem >= 8 ? 0xFF : (__mmask8)((1u << rem) - 1);
            __m512i x = _mm512_add_epi64(
                _mm512_maskz_loadu_epi64(m, a + (size_t)j * n + 8 * v), carry[v]);
            if (j < S - 1) {
                carry[v] = _mm512_srli_epi64(x, (unsigned)k);
                x = _mm512_and_si512(x, km);
            }
            _mm512_mask_storeu_epi64(t + (n - 1) + 8 * v, m, x);
            /* lane 0 of v = 0 lands in the front padding */
            _mm512_mask_storeu_epi64(t + 8 * v - 1, m, _mm512_mullo_epi64(x, lam));
        }
    }
}

static inline AI IFMA_TARGET void fast_body(const mns_pmns_mp_ctx *c, uint64_t *r,
                                            const uint64_t *a, const uint64_t *b, uint64_t *w,
                                            const int S, const int NV, const int SQ)
{
    const int n = c->n, k = c->k;
    const size_t L = (size_t)NV * 8;
    uint64_t *seqa = w;                                  /* S x MP_FAST_SEQ */
    uint64_t *seqb = seqa + (size_t)S * MP_FAST_SEQ;     /* S x MP_FAST_SEQ */
    uint64_t *rlo = seqb + (size_t)S * MP_FAST_SEQ;      /* 2S x L */
    uint64_t *rhi = rlo + 2 * (size_t)S * L;             /* 2S x L */
    uint64_t *xb = rhi + 2 * (size_t)S * L;              /* L */
    uint64_t *tb = xb + L;                               /* L */
    uint64_t *cola = tb + L;                             /* n x S x L */
    const __m512i km = _mm512_set1_epi64((long long)c->kmask);
    const __m512i zero = _mm512_setzero_si512();

    fast_seq(c, seqa, a, S, NV);
    /* A's column matrices, aligned: each column is read s times, an
     * unaligned window of the sequence would split cache lines every time */
    for (int cc = 0; cc < n; cc++)
#pragma GCC unroll 8
        for (int j = 0; j < S; j++)
#pragma GCC unroll 8
            for (int v = 0; v < NV; v++)
                _mm512_store_si512(cola + ((size_t)cc * S + j) * L + 8 * v,
                                   _mm512_loadu_si512(seqa + (size_t)j * MP_FAST_SEQ + MP_FAST_OFF +
                                                      (n - 1) - cc + 8 * v));
    const uint64_t *bdig = seqa + MP_FAST_OFF + (n - 1); /* digit i at + i*MP_FAST_SEQ */
    if (!SQ) {
        fast_seq(c, seqb, b, S, NV);
        bdig = seqb + MP_FAST_OFF + (n - 1);
    }
#pragma GCC unroll 16
    for (size_t q = 0; q < 2 * (size_t)S * L; q += 8) {
        _mm512_store_si512(rlo + q, zero);
        _mm512_store_si512(rhi + q, zero);
    }
    __m512i carry[8];
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++)
        carry[v] = zero;

#pragma GCC unroll 1
    for (int i = 0; i < S; i++) {
        uint64_t *li = rlo + (size_t)i * L, *hi_ = rhi + (size_t)i * L;
        const uint64_t *bi = bdig + (size_t)i * MP_FAST_SEQ;
        if (!SQ) /* R_(i+j) += A_j B_i */
            fast_prod_all(li, hi_, cola, bi, n, S, S, 0, NV);
        else {
            /* A^2: R_(2i) += A_i A_i, R_(i+j) += 2 A_j A_i for j > i (step
             * j < i would have added A_i A_j, which is the same): the j >= i
             * matrices are consecutive in each column; s(s+1)/2 products */
            uint64_t *l2 = rlo + 2 * (size_t)i * L, *h2 = rhi + 2 * (size_t)i * L;
            const uint64_t *ci = cola + (size_t)i * L;
            switch (S - i) {
            case 6: fast_prod_all(l2, h2, ci, bi, n, 6 <= S ? 6 : 1, S, 1, NV); break;
            case 5: fast_prod_all(l2, h2, ci, bi, n, 5 <= S ? 5 : 1, S, 1, NV); break;
            case 4: fast_prod_all(l2, h2, ci, bi, n, 4 <= S ? 4 : 1, S, 1, NV); break;
            case 3: fast_prod_all(l2, h2, ci, bi, n, 3 <= S ? 3 : 1, S, 1, NV); break;
            case 2: fast_prod_all(l2, h2, ci, bi, n, 2, S, 1, NV); break;
            default: fast_prod_all(l2, h2, ci, bi, n, 1, S, 1, NV); break;
            }
        }
        /* T = (R_i + carry) M'_0 mod (E, 2^k): IFMA reads the low 52 bits of
         * R_i + carry, enough for a result mod 2^k; four chains per vector */
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++)
            _mm512_store_si512(xb + 8 * v, _mm512_add_epi64(_mm512_load_si512(li + 8 * v), carry[v]));
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
            __m512i t0 = zero, t1 = zero, t2 = zero, t3 = zero;
            const uint64_t *col = c->mpfast + MP_FAST_OFF + (n - 1) + 8 * v;
            int cc = 0;
            for (; cc + 4 <= n; cc += 4) {
                t0 = _mm512_madd52lo_epu64(t0, _mm512_loadu_si512(col - cc), _mm512_set1_epi64((long long)xb[cc]));
                t1 = _mm512_madd52lo_epu64(t1, _mm512_loadu_si512(col - cc - 1), _mm512_set1_epi64((long long)xb[cc + 1]));
                t2 = _mm512_madd52lo_epu64(t2, _mm512_loadu_si512(col - cc - 2), _mm512_set1_epi64((long long)xb[cc + 2]));
                t3 = _mm512_madd52lo_epu64(t3, _mm512_loadu_si512(col - cc - 3), _mm512_set1_epi64((long long)xb[cc + 3]));
            }
            for (; cc < n; cc++)
                t0 = _mm512_madd52lo_epu64(t0, _mm512_loadu_si512(col - cc), _mm512_set1_epi64((long long)xb[cc]));
            __m512i t = _mm512_add_epi64(_mm512_add_epi64(t0, t1), _mm512_add_epi64(t2, t3));
            _mm512_store_si512(tb + 8 * v, _mm512_and_si512(t, km));
        }
        /* R_(i+j) += T M_j */
        fast_prod_all(li, hi_, c->mfast, tb, n, S, S, 0, NV);
        /* exact division: R_i + carry = lo + 2^52 hi + carry, lo + carry
         * divisible by 2^k; everything is >= 0 (u52, no split) */
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
            __m512i x = _mm512_add_epi64(_mm512_load_si512(li + 8 * v), carry[v]);
            carry[v] = _mm512_add_epi64(_mm512_srli_epi64(x, (unsigned)k),
                                        _mm512_slli_epi64(_mm512_load_si512(hi_ + 8 * v), (unsigned)(52 - k)));
        }
    }
    /* lines 15-18: C_j = R_(s+j) mod 2^k, carried; nothing lands in R_(2s-1),
     * so the top digit is the last carry. r may alias a or b: both are read. */
#pragma GCC unroll 8
    for (int j = 0; j < S; j++)
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
            const int rem = n - 8 * v;
            const __mmask8 m = rem >= 8 ? 0xFF : (__mmask8)((1u << rem) - 1);
            uint64_t *o = r + (size_t)j * n + 8 * v;
            if (j < S - 1) {
                const size_t d = (size_t)(S + j) * L + 8 * v;
                __m512i x = _mm512_add_epi64(_mm512_load_si512(rlo + d), carry[v]);
                _mm512_mask_storeu_epi64(o, m, _mm512_and_si512(x, km));
                carry[v] = _mm512_add_epi64(_mm512_srli_epi64(x, (unsigned)k),
                                            _mm512_slli_epi64(_mm512_load_si512(rhi + d), (unsigned)(52 - k)));
            } else
                _mm512_mask_storeu_epi64(o, m, carry[v]);
        }
}

#define FAST_WORDS(S, NV)                                                                      \
    (2 * (S) * MP_FAST_SEQ + 4 * (S) * (NV) * 8 + 2 * (NV) * 8 + 8 * (NV) * (S) * (NV) * 8)
#define FAST_INST1(S, NV, SQ, NAME)                                                            \
    IFMA_TARGET static void NAME(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,     \
                                 const uint64_t *b)                                            \
    {                                                                                          \
        /* sizes are public: the stack up to 64 KiB, beyond it the heap */                  \
        if (FAST_WORDS(S, NV) <= MP_STACK_WORDS) {                                             \
            _Alignas(64) uint64_t w[FAST_WORDS(S, NV) <= MP_STACK_WORDS ? FAST_WORDS(S, NV) : 1]; \
            fast_body(c, r, a, b, w, S, NV, SQ);                                               \
        } else {                                                                               \
            uint64_t *w = aligned_alloc(64, (size_t)FAST_WORDS(S, NV) * 8);                    \
            if (!w) {                                                                          \
                memset(r, 0, c->limbs * sizeof *r);                                            \
                return;                                                                        \
            }                                                                                  \
            fast_body(c, r, a, b, w, S, NV, SQ);                                               \
            free(w);                                                                           \
        }                                                                                      \
    }
#define FAST_INST(S, NV)                                                                       \
    FAST_INST1(S, NV, 0, fast_##S##_##NV) FAST_INST1(S, NV, 1, fsqr_##S##_##NV)
#define FAST_ROW(S)                                                                            \
    FAST_INST(S, 1) FAST_INST(S, 2) FAST_INST(S, 3) FAST_INST(S, 4) FAST_INST(S, 5)             \
    FAST_INST(S, 6) FAST_INST(S, 7) FAST_INST(S, 8)
FAST_ROW(2)
FAST_ROW(3)
FAST_ROW(4)
FAST_ROW(5)
FAST_ROW(6)
#define FAST_REF(P, S)                                                                         \
    {P##S##_1, P##S##_2, P##S##_3, P##S##_4, P##S##_5, P##S##_6, P##S##_7, P##S##_8}
static const mp_mul_fn fast_tab[MP_FAST_SMAX - 1][8] = {
    FAST_REF(fast_, 2), FAST_REF(fast_, 3), FAST_REF(fast_, 4), FAST_REF(fast_, 5),
    FAST_REF(fast_, 6)};
static const mp_mul_fn fsqr_tab[MP_FAST_SMAX - 1][8] = {
    FAST_REF(fsqr_, 2), FAST_REF(fsqr_, 3), FAST_REF(fsqr_, 4), FAST_REF(fsqr_, 5),
    FAST_REF(fsqr_, 6)};

/* the padded sequences of the fused path (creation time) */
static int fast_prepare(mns_pmns_mp_ctx *c)
{
    const int n = c->n, s = c->s;
    if (c->plan.levels != 0 || n > MP_FAST_NMAX || s > MP_FAST_SMAX || s < 2)
        return 1;
    const size_t L = (size_t)(n + 7) / 8 * 8;
    c->mfast = aligned_alloc(64, (size_t)n * s * L * 8);
    c->mpfast = aligned_alloc(64, (size_t)MP_FAST_SEQ * 8);
    if (!c->mfast || !c->mpfast)
        return 0;
    memset(c->mfast, 0, (size_t)n * s * L * 8);
    memset(c->mpfast, 0, (size_t)MP_FAST_SEQ * 8);
    /* with no split the leaf sequence is the whole Toeplitz sequence t;
     * column c of M_j, lane r: t_j[(n-1) + r - c] (lanes >= n stay 0) */
    for (int cc = 0; cc < n; cc++)
        for (int j = 0; j < s; j++)
            for (int r = 0; r < n; r++)
                c->mfast[((size_t)cc * s + j) * L + r] =
                    c->mseq[(size_t)j * c->plan.leaves * c->mstride + (size_t)(n - 1 + r - cc)];
    for (int q = 0; q < 2 * n - 1; q++)
        c->mpfast[MP_FAST_OFF + q] = c->mpseq[q] & c->kmask;
    c->fast = fast_tab[s - 2][(n + 7) / 8 - 1];
    c->fast_sqr = fsqr_tab[s - 2][(n + 7) / 8 - 1];
    return 1;
}

typedef struct ifma_lay {
    size_t na, nb, seqa, acol, bv, rlo, rhi, carry, xlo, xhi, t, xv, tv, tout, etmp, ctmp, total;
    size_t sr; /* stride of one leaf in rlo / rhi */
} ifma_lay;

static void layout(const mns_pmns_mp_ctx *c, ifma_lay *L)
{
    const mp_plan *pl = &c->plan;
    size_t s = (size_t)c->s, n = (size_t)c->n, b = (size_t)pl->b, o = 0;
#define A8(x) (((x) + 7) & ~(size_t)7)
    L->sr = A8(2 * s * b + (size_t)c->lanes_s + 8);
    L->na = o, o += A8(s * n);
    L->nb = o, o += A8(s * n);
    L->seqa = o, o += A8(s * pl->leaves * c->mstride + 16);
    L->acol = o, o += A8((size_t)pl->leaves * b * c->lanes_s + 16);
    L->bv = o, o += A8(s * pl->nv + 8);
    L->rlo = o, o += L->sr * pl->leaves;
    L->rhi = o, o += L->sr * pl->leaves;
    L->carry = o, o += A8(n);
    L->xlo = o, o += A8(n);
    L->xhi = o, o += A8(n);
    L->t = o, o += A8(n + 8);
    L->xv = o, o += A8(pl->nv + 8);
    L->tv = o, o += A8(pl->nv + 8);
    L->tout = o, o += A8((size_t)pl->leaves * c->lanes_1 + 8);
    L->etmp = o, o += A8((size_t)pl->tmp);
    L->ctmp = o, o += A8((size_t)pl->ctmp);
    L->total = o;
#undef A8
}

size_t mns_pmns_mp_scratch_ifma(const mns_pmns_mp_ctx *c)
{
    ifma_lay L;
    layout(c, &L);
    return L.total;
}

/* Stacked leaf product: G vectors of 8 lanes of R (lo, hi) at rlo/rhi,
 * += sum_c col[c] * v[c], minus the offset excess corr = 2^o sum(v). */
static inline __attribute__((always_inline)) IFMA_TARGET void
leaf_group(uint64_t *rlo, uint64_t *rhi, const uint64_t *col, size_t cstride, const uint64_t *v,
           int b, const int G, __m512i corr_lo, __m512i corr_hi)
{
    __m512i lo[8], hi[8];
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        lo[g] = _mm512_loadu_si512(rlo + 8 * g);
        hi[g] = _mm512_loadu_si512(rhi + 8 * g);
    }
    for (int cc = 0; cc < b; cc++) {
        const __m512i x = _mm512_set1_epi64((long long)v[cc]);
        const uint64_t *cp = col + (size_t)cc * cstride;
#pragma GCC unroll 8
        for (int g = 0; g < G; g++) {
            const __m512i m = _mm512_loadu_si512(cp + 8 * g);
            lo[g] = _mm512_madd52lo_epu64(lo[g], m, x);
            hi[g] = _mm512_madd52hi_epu64(hi[g], m, x);
        }
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        _mm512_storeu_si512(rlo + 8 * g, _mm512_sub_epi64(lo[g], corr_lo));
        _mm512_storeu_si512(rhi + 8 * g, _mm512_sub_epi64(hi[g], corr_hi));
    }
}

IFMA_TARGET static void leaf_stacked(uint64_t *rlo, uint64_t *rhi, const uint64_t *col, int lanes,
                                     const uint64_t *v, int b, int off)
{
    uint64_t sv = 0;
    for (int cc = 0; cc < b; cc++)
        sv += v[cc];
    /* 2^off sum(v) as lo + 2^52 hi (off = 0: no offset, nothing to remove) */
    uint64_t on = off ? ~(uint64_t)0 : 0;
    uint64_t clo = ((sv << (off & 63)) & MASK52) & on;
    uint64_t chi = (off ? sv >> (52 - off) : 0);
    const __m512i corr_lo = _mm512_set1_epi64((long long)clo);
    const __m512i corr_hi = _mm512_set1_epi64((long long)chi);
    int nvec = lanes / 8, g0 = 0;
    while (nvec - g0 > 0) {
        int G = nvec - g0 > 8 ? 8 : nvec - g0;
        uint64_t *pl_ = rlo + 8 * g0, *ph = rhi + 8 * g0;
        const uint64_t *cp = col + 8 * g0;
        switch (G) {
        case 8: leaf_group(pl_, ph, cp, lanes, v, b, 8, corr_lo, corr_hi); break;
        case 7: leaf_group(pl_, ph, cp, lanes, v, b, 7, corr_lo, corr_hi); break;
        case 6: leaf_group(pl_, ph, cp, lanes, v, b, 6, corr_lo, corr_hi); break;
        case 5: leaf_group(pl_, ph, cp, lanes, v, b, 5, corr_lo, corr_hi); break;
        case 4: leaf_group(pl_, ph, cp, lanes, v, b, 4, corr_lo, corr_hi); break;
        case 3: leaf_group(pl_, ph, cp, lanes, v, b, 3, corr_lo, corr_hi); break;
        case 2: leaf_group(pl_, ph, cp, lanes, v, b, 2, corr_lo, corr_hi); break;
        default: leaf_group(pl_, ph, cp, lanes, v, b, 1, corr_lo, corr_hi); break;
        }
        g0 += G;
    }
}

/* low halves only (the product by M'_0 mod 2^k) */
IFMA_TARGET static void leaf_low(uint64_t *out, const uint64_t *col, int lanes, const uint64_t *v,
                                 int b)
{
    for (int g = 0; g < lanes / 8; g++) {
        __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512();
        int cc = 0;
        /* two chains: the columns alternate between them */
        for (; cc + 1 < b; cc += 2) {
            a0 = _mm512_madd52lo_epu64(a0, _mm512_loadu_si512(col + (size_t)cc * lanes + 8 * g),
                                       _mm512_set1_epi64((long long)v[cc]));
            a1 = _mm512_madd52lo_epu64(a1,
                                       _mm512_loadu_si512(col + (size_t)(cc + 1) * lanes + 8 * g),
                                       _mm512_set1_epi64((long long)v[cc + 1]));
        }
        if (cc < b)
            a0 = _mm512_madd52lo_epu64(a0, _mm512_loadu_si512(col + (size_t)cc * lanes + 8 * g),
                                       _mm512_set1_epi64((long long)v[cc]));
        _mm512_storeu_si512(out + 8 * g, _mm512_add_epi64(a0, a1));
    }
}

/* the operand's column matrices: lanes (j, r) of leaf l, column c */
IFMA_TARGET static void build_acol(const mns_pmns_mp_ctx *c, const ifma_lay *L, uint64_t *w,
                                   const uint64_t *a)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, s = c->s, b = pl->b, lanes = c->lanes_s;
    const size_t ms = (size_t)pl->leaves * c->mstride;
    uint64_t *seqa = w + L->seqa, *tseq = w + L->ctmp;
    for (int j = 0; j < s; j++) {
        mns_pmns_mp_toeplitz_seq(tseq, a + (size_t)j * n, n, c->lambda);
        mns_pmns_mp_expand_mat(pl, tseq, seqa + (size_t)j * ms, c->mstride, w + L->etmp);
    }
    const int nv8 = (b + 7) / 8;
    for (int l = 0; l < pl->leaves; l++) {
        const __m512i off =
            _mm512_set1_epi64(c->aoff[l] ? (long long)((uint64_t)1 << c->aoff[l]) : 0);
        uint64_t *col = w + L->acol + (size_t)l * b * lanes;
        for (int cc = 0; cc < b; cc++) {
            uint64_t *o = col + (size_t)cc * lanes;
            /* ascending j: each j's last store spills into j+1's lanes,
             * which j+1 then overwrites; the padding gets the offset */
            for (int j = 0; j < s; j++) {
                const uint64_t *sq = seqa + (size_t)j * ms + (size_t)l * c->mstride + (b - 1) - cc;
                for (int v = 0; v < nv8; v++)
                    _mm512_storeu_si512(o + j * b + 8 * v,
                                        _mm512_add_epi64(_mm512_loadu_si512(sq + 8 * v), off));
            }
            _mm512_storeu_si512(o + s * b, off);
        }
    }
}

/* T, T M_j, the exact division; after the A B products of step i */
IFMA_TARGET static void reduce_step(const mns_pmns_mp_ctx *c, const ifma_lay *L, uint64_t *w,
                                    int i)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, b = pl->b, k = c->k;
    uint64_t *rlo = w + L->rlo, *rhi = w + L->rhi;
    int64_t *carry = (int64_t *)(w + L->carry);
    uint64_t *xlo = w + L->xlo, *xhi = w + L->xhi, *T = w + L->t;
    uint64_t *ct = w + L->ctmp, *et = w + L->etmp;

    mns_pmns_mp_contract_u64(pl, rlo + (size_t)i * b, (int)L->sr, xlo, ct);
    for (int q = 0; q < n; q++)
        T[q] = (xlo[q] + (uint64_t)carry[q]) & MASK52; /* X mod 2^52 suffices */
    mns_pmns_mp_expand_vec(pl, T, w + L->xv, et);
    for (int l = 0; l < pl->leaves; l++)
        leaf_low(w + L->tout + (size_t)l * c->lanes_1, c->mpcol + (size_t)l * b * c->lanes_1,
                 c->lanes_1, w + L->xv + (size_t)l * b, b);
    mns_pmns_mp_contract_u64(pl, w + L->tout, c->lanes_1, T, ct);
    for (int q = 0; q < n; q++)
        T[q] &= c->kmask;
    mns_pmns_mp_expand_vec(pl, T, w + L->tv, et);
    const size_t ls = (size_t)b * c->lanes_s;
    for (int l = 0; l < pl->leaves; l++)
        leaf_stacked(rlo + (size_t)l * L->sr + (size_t)i * b, rhi + (size_t)l * L->sr + (size_t)i * b,
                     c->mcol + l * ls, c->lanes_s, w + L->tv + (size_t)l * b, b, c->moff[l]);
    mns_pmns_mp_contract_u64(pl, rlo + (size_t)i * b, (int)L->sr, xlo, ct);
    mns_pmns_mp_contract_u64(pl, rhi + (size_t)i * b, (int)L->sr, xhi, ct);
    for (int q = 0; q < n; q++) {
        /* lo + carry is divisible by 2^k (2^52 hi is) */
        int64_t lo = (int64_t)(xlo[q] + (uint64_t)carry[q]);
        carry[q] = (lo >> k) + (int64_t)(xhi[q] << (52 - k));
    }
}

IFMA_TARGET static void run(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                            const uint64_t *b_, int square)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, s = c->s, b = pl->b, k = c->k;
    mp_scratch tmp;
    ifma_lay L;
    layout(c, &L);
    uint64_t *w = mp_scratch_get(&tmp, L.total);
    if (!w) {
        memset(r, 0, c->limbs * sizeof *r);
        return;
    }
    uint64_t *na = w + L.na, *nb = w + L.nb;
    mns_pmns_mp_normalize(c, na, a);
    if (!square)
        mns_pmns_mp_normalize(c, nb, b_);
    else
        nb = na;
    build_acol(c, &L, w, na);
    for (int i = 0; i < s; i++)
        mns_pmns_mp_expand_vec(pl, nb + (size_t)i * n, w + L.bv + (size_t)i * pl->nv, w + L.etmp);
    memset(w + L.rlo, 0, L.sr * pl->leaves * 2 * sizeof(uint64_t));
    memset(w + L.carry, 0, (size_t)n * sizeof(uint64_t));
    uint64_t *rlo = w + L.rlo, *rhi = w + L.rhi;
    const size_t ls = (size_t)b * c->lanes_s;
    for (int i = 0; i < s; i++) {
        for (int l = 0; l < pl->leaves; l++)
            leaf_stacked(rlo + (size_t)l * L.sr + (size_t)i * b, rhi + (size_t)l * L.sr + (size_t)i * b,
                         w + L.acol + l * ls, c->lanes_s, w + L.bv + (size_t)i * pl->nv + (size_t)l * b,
                         b, c->aoff[l]);
        reduce_step(c, &L, w, i);
    }
    /* R_s .. R_(2s-1): the value lo + 2^52 hi + carry, then the carries of
     * Alg. 3 lines 15-18 */
    int64_t *carry = (int64_t *)(w + L.carry);
    uint64_t *xlo = w + L.xlo, *xhi = w + L.xhi;
    for (int j = 0; j < s; j++) {
        if (j < s - 1) {
            mns_pmns_mp_contract_u64(pl, rlo + (size_t)(s + j) * b, (int)L.sr, xlo, w + L.ctmp);
            mns_pmns_mp_contract_u64(pl, rhi + (size_t)(s + j) * b, (int)L.sr, xhi, w + L.ctmp);
        } else {
            memset(xlo, 0, (size_t)n * 8);
            memset(xhi, 0, (size_t)n * 8);
        }
        for (int q = 0; q < n; q++) {
            mp_i128 y = (mp_i128)(int64_t)xlo[q] + carry[q] + (((mp_i128)(int64_t)xhi[q]) << 52);
            if (j < s - 1) {
                r[(size_t)j * n + q] = (uint64_t)y & c->kmask;
                carry[q] = (int64_t)(y >> k);
            } else
                r[(size_t)j * n + q] = (uint64_t)y;
        }
    }
    mp_scratch_release(&tmp);
}

void mns_pmns_mp_mul_ifma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                          const uint64_t *b)
{
    if (c->fast) {
        c->fast(c, r, a, b);
        return;
    }
    run(c, r, a, b, 0);
}

/* Fused path: a dedicated squaring (s(s+1)/2 operand products). The stacked
 * split path runs its lanes over all j at once, so there the symmetry would
 * cut lanes, not vector operations: it shares the multiplication. */
void mns_pmns_mp_sqr_ifma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    if (c->fast_sqr) {
        c->fast_sqr(c, r, a, a);
        return;
    }
    run(c, r, a, a, 1);
}
