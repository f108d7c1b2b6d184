/* The fused IFMA kernels (no Toeplitz split) for one product: one instance
 * per (s, ceil(n/8)), s <= MP_FAST_SMAX, n <= MP_FAST_NMAX, and the constant
 * data they read (mp_ifma_fused.h has the method). */
#include <stdlib.h>
#include <string.h>

#include "pmns/mp_ifma_fused.h"

#define FU_INST1(S, NV, SQ, NAME)                                                              \
    IFMA_TARGET static void NAME(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,     \
                                 const uint64_t *b)                                            \
    {                                                                                          \
        _Alignas(64) uint64_t w[FUSED_WORDS(S, NV)];                                           \
        const mns_pmns_mp_ctx *cx[1] = {c};                                                    \
        uint64_t *rr[1] = {r};                                                                 \
        const uint64_t *aa[1] = {a}, *bb[1] = {b};                                             \
        fu_body(cx, rr, aa, bb, w, S, NV, SQ, 1);                                              \
    }
#define FU_INST(S, NV) FU_INST1(S, NV, 0, fu_mul_##S##_##NV) FU_INST1(S, NV, 1, fu_sqr_##S##_##NV)
#define FU_ROW(S)                                                                              \
    FU_INST(S, 1) FU_INST(S, 2) FU_INST(S, 3) FU_INST(S, 4) FU_INST(S, 5) FU_INST(S, 6)        \
    FU_INST(S, 7) FU_INST(S, 8)
FU_ROW(2)
FU_ROW(3)
FU_ROW(4)
FU_ROW(5)
FU_ROW(6)
#define FU_REF(P, S) {P##S##_1, P##S##_2, P##S##_3, P##S##_4, P##S##_5, P##S##_6, P##S##_7, P##S##_8}
static const mp_mul_fn fu_mul_tab[MP_FAST_SMAX - 1][8] = {
    FU_REF(fu_mul_, 2), FU_REF(fu_mul_, 3), FU_REF(fu_mul_, 4), FU_REF(fu_mul_, 5),
    FU_REF(fu_mul_, 6)};
static const mp_mul_fn fu_sqr_tab[MP_FAST_SMAX - 1][8] = {
    FU_REF(fu_sqr_, 2), FU_REF(fu_sqr_, 3), FU_REF(fu_sqr_, 4), FU_REF(fu_sqr_, 5),
    FU_REF(fu_sqr_, 6)};

/* The constant data of the fused path (creation time): the M_j column
 * matrices (column c of M_j, lane r: t_j[(n-1) + r - c]; lanes >= n stay 0)
 * and M'_0's sequence mod 2^k. Only plans with no split. */
int mns_pmns_mp_ifma_fused_prepare(mns_pmns_mp_ctx *c)
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
    for (int cc = 0; cc < n; cc++)
        for (int j = 0; j < s; j++)
            for (int r = 0; r < n; r++)
                c->mfast[((size_t)cc * s + j) * L + r] =
                    c->mseq[(size_t)j * c->plan.leaves * c->mstride + (size_t)(n - 1 + r - cc)];
    for (int q = 0; q < 2 * n - 1; q++)
        c->mpfast[MP_FAST_OFF + q] = c->mpseq[q] & c->kmask;
    c->fast = fu_mul_tab[s - 2][(n + 7) / 8 - 1];
    c->fast_sqr = fu_sqr_tab[s - 2][(n + 7) / 8 - 1];
    mns_pmns_mp_ifma_x2_prepare(c);
    return 1;
}
