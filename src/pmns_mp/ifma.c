/* AVX-512 IFMA kernel of the multi-precision PMNS (u52 sets: unsigned
 * digits, k <= 52 bits). Same flow as pmns_mp/generic.c, with:
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
#include "core/simd512.h"
#include "core/tmp.h"
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "pmns_mp/ctx.h"

#define IFMA_TARGET MNS_TARGET_IFMA
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

int mns_pmns_mp_ifma_prepare(mns_pmns_mp_ctx *c)
{
    const mp_plan *pl = &c->plan;
    const int b = pl->b, s = c->s;
    c->lanes_s = (s * b + 7) & ~7;
    c->lanes_1 = (b + 7) & ~7;
    size_t ls = (size_t)b * c->lanes_s, l1 = (size_t)b * c->lanes_1;
    c->mcol = mns_alloc64(((size_t)pl->leaves * ls + 64) * 8);
    c->mpcol = mns_alloc64(((size_t)pl->leaves * l1 + 64) * 8);
    if (!c->mcol || !c->mpcol)
        return 0;
    for (int l = 0; l < pl->leaves; l++) {
        uint64_t off = c->moff[l] ? (uint64_t)1 << c->moff[l] : 0;
        build_col_scalar(c->mcol + l * ls, c->mseq + (size_t)l * c->mstride,
                         (size_t)pl->leaves * c->mstride, s, b, c->lanes_s, off, ~(uint64_t)0);
        build_col_scalar(c->mpcol + l * l1, c->mpseq + (size_t)l * c->mstride, 0, 1, b,
                         c->lanes_1, 0, MASK52);
    }
    return mns_pmns_mp_ifma_fused_prepare(c);
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
    mns_tmp tmp;
    ifma_lay L;
    layout(c, &L);
    uint64_t *w = mns_tmp_get(&tmp, L.total);
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

/* Fused path (pmns_mp/ifma_fused.c): a dedicated squaring (s(s+1)/2 operand
 * products). The stacked split path runs its lanes over all j at once, so
 * there the symmetry would cut lanes, not vector operations: it shares the
 * multiplication. */
void mns_pmns_mp_sqr_ifma(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a)
{
    if (c->fast_sqr) {
        c->fast_sqr(c, r, a, a);
        return;
    }
    run(c, r, a, a, 1);
}
