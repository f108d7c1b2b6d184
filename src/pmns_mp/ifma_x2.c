/* Two independent products in one instruction stream (the mul_x2 / sqr_x2
 * ops of backend.h): the fused kernel of pmns_mp/ifma_fused.h with W = 2. At the
 * RSA-CRT sizes one product is latency-bound (the chain T -> T M_0 -> carry
 * -> T of Alg. 3 leaves the IFMA units idle); the other product's
 * independent work fills those cycles. The contexts may differ (two primes)
 * but must share (n, s): k, lambda and the constants are per context.
 * Instances for n <= 32 (the 1024-2048-bit channels and a margin): the
 * squaring at every such shape (unsplit, split, and the register kernel for
 * s <= 4), the multiplication at n < 6 and with the register kernel at s = 2
 * (see mns_pmns_mp_ifma_x2_prepare); other shapes make two calls. */
#include "mns_pmns_mp.h"
#include "pmns_mp/ifma_fused_reg.h"
#include "pmns_mp/ifma_fused_split.h"

#define X2_NVMAX 4

#define X2_INST1(S, NV, SQ, NAME)                                                              \
    IFMA_TARGET static void NAME(const mns_pmns_mp_ctx *c0, const mns_pmns_mp_ctx *c1,         \
                                 uint64_t *r0, const uint64_t *a0, const uint64_t *b0,          \
                                 uint64_t *r1, const uint64_t *a1, const uint64_t *b1)          \
    {                                                                                          \
        _Alignas(64) uint64_t w[2 * FUSED_WORDS(S, NV)];                                       \
        const mns_pmns_mp_ctx *cx[2] = {c0, c1};                                               \
        uint64_t *rr[2] = {r0, r1};                                                            \
        const uint64_t *aa[2] = {a0, a1}, *bb[2] = {b0, b1};                                   \
        fu_body(cx, rr, aa, bb, w, S, NV, SQ, 2, (NV) == 2);                                              \
    }
#define X2_INST(S, NV) X2_INST1(S, NV, 1, x2_sqr_##S##_##NV)
#define X2_ROW(S)                                                                              \
    X2_INST1(S, 1, 0, x2_mul_##S##_1) X2_INST(S, 1) X2_INST(S, 2) X2_INST(S, 3) X2_INST(S, 4)
X2_ROW(2)
X2_ROW(3)
X2_ROW(4)
X2_ROW(5)
X2_ROW(6)
/* with the split: plans 2, 3, 22 (n <= 32) */
#define X2S_INST1(S, F0, F1, F2, SQ, NAME)                                                     \
    IFMA_TARGET static void NAME(const mns_pmns_mp_ctx *c0, const mns_pmns_mp_ctx *c1,         \
                                 uint64_t *r0, const uint64_t *a0, const uint64_t *b0,          \
                                 uint64_t *r1, const uint64_t *a1, const uint64_t *b1)          \
    {                                                                                          \
        _Alignas(64) uint64_t w[2 * FS_WORDS(S, F0, F1, F2)];                                  \
        const mns_pmns_mp_ctx *cx[2] = {c0, c1};                                               \
        uint64_t *rr[2] = {r0, r1};                                                            \
        const uint64_t *aa[2] = {a0, a1}, *bb[2] = {b0, b1};                                   \
        fs_body(cx, rr, aa, bb, w, S, (c0->n + 7) / 8, SQ, 2, F0, F1, F2);                     \
    }
#define X2S_INST(S, P, F0, F1, F2) X2S_INST1(S, F0, F1, F2, 1, x2s_sqr_##S##_##P)
#define X2S_ROW(S) X2S_INST(S, 2, 2, 0, 0) X2S_INST(S, 3, 3, 0, 0) X2S_INST(S, 22, 2, 2, 0)
X2S_ROW(2)
X2S_ROW(3)
X2S_ROW(4)
X2S_ROW(5)
X2S_ROW(6)
/* n = 6..8: the register kernel with the two products interleaved, product
 * 1 one phase behind product 0 (fr_body's SKEW). Against two calls of the
 * single kernel, one process (1024-bit pair s = 3 n = 8, 768 s = 3 n = 6,
 * 1024 s = 4 n = 6, 512-640 s = 2, 1536 s = 5 n = 7; load 3-4): the squaring
 * 9-10% faster at s = 3, 6% at s = 4, 16-21% at s = 2, 3-7% slower at s = 5;
 * the multiplication 8-12% faster at s = 2, equal at s = 3 n = 8 and 5-13%
 * slower elsewhere (the two products' state spills). Instances where it
 * wins: the squaring for s = 2..4, the multiplication for s = 2. */
#define X2R_INST1(S, N, SQ, NAME)                                                              \
    IFMA_TARGET static void NAME(const mns_pmns_mp_ctx *c0, const mns_pmns_mp_ctx *c1,         \
                                 uint64_t *r0, const uint64_t *a0, const uint64_t *b0,          \
                                 uint64_t *r1, const uint64_t *a1, const uint64_t *b1)          \
    {                                                                                          \
        _Alignas(64) uint64_t w[2 * FR_WORDS(S)];                                              \
        const mns_pmns_mp_ctx *cx[2] = {c0, c1};                                               \
        uint64_t *rr[2] = {r0, r1};                                                            \
        const uint64_t *aa[2] = {a0, a1}, *bb[2] = {b0, b1};                                   \
        fr_body(cx, rr, aa, bb, w, S, SQ, N, (S) <= FR_RW_SMAX, 2, 1);                         \
    }
#define X2R_ROW(S, SQ, P) X2R_INST1(S, 6, SQ, P##S##_6) X2R_INST1(S, 7, SQ, P##S##_7)        \
    X2R_INST1(S, 8, SQ, P##S##_8)
X2R_ROW(2, 0, x2r_mul_)
X2R_ROW(2, 1, x2r_sqr_)
X2R_ROW(3, 1, x2r_sqr_)
X2R_ROW(4, 1, x2r_sqr_)
#define X2R_SMAX 4
#define X2R_REF(P, S) {P##S##_6, P##S##_7, P##S##_8}
static const mp_mul2_fn x2r_mul_tab[3] = X2R_REF(x2r_mul_, 2);
static const mp_mul2_fn x2r_sqr_tab[X2R_SMAX - 1][3] = {
    X2R_REF(x2r_sqr_, 2), X2R_REF(x2r_sqr_, 3), X2R_REF(x2r_sqr_, 4)};

#define X2S_REF(P, S) {P##S##_2, P##S##_3, P##S##_22}
static const mp_mul2_fn x2s_sqr_tab[MP_FAST_SMAX - 1][3] = {
    X2S_REF(x2s_sqr_, 2), X2S_REF(x2s_sqr_, 3), X2S_REF(x2s_sqr_, 4), X2S_REF(x2s_sqr_, 5),
    X2S_REF(x2s_sqr_, 6)};

#define X2_REF(P, S) {P##S##_1, P##S##_2, P##S##_3, P##S##_4}
static const mp_mul2_fn x2_mul_tab[MP_FAST_SMAX - 1] = {x2_mul_2_1, x2_mul_3_1, x2_mul_4_1,
                                                         x2_mul_5_1, x2_mul_6_1};
static const mp_mul2_fn x2_sqr_tab[MP_FAST_SMAX - 1][X2_NVMAX] = {
    X2_REF(x2_sqr_, 2), X2_REF(x2_sqr_, 3), X2_REF(x2_sqr_, 4), X2_REF(x2_sqr_, 5),
    X2_REF(x2_sqr_, 6)};

/* after the fused path's data: contexts without it make two calls. The
 * interleaved multiplication is kept where it beats two calls (which the
 * out-of-order core already overlaps): one vector per polynomial below n = 6;
 * at two or more vectors it measured 5-12% slower (2048 bits, s = 3 and 5),
 * so those make two calls. The interleaved squaring was faster than two
 * calls of fu_body at every shape measured (4-14%). From n = 6 to 8 the
 * register kernel fr_body: interleaved (W = 2) for the squaring at s <= 4
 * and the multiplication at s = 2, two calls otherwise (see X2R_INST1). */
void mns_pmns_mp_ifma_x2_prepare(mns_pmns_mp_ctx *c)
{
    const int nv = (c->n + 7) / 8;
    if (!c->fast || nv > X2_NVMAX)
        return;
    if (c->fs_plan) {
        const int pi = c->fs_plan == 2 ? 0 : c->fs_plan == 3 ? 1 : c->fs_plan == 22 ? 2 : -1;
        if (pi < 0)
            return;
        c->fast2_sqr = x2s_sqr_tab[c->s - 2][pi];
        return;
    }
    if (nv == 1 && c->n >= FR_NMIN) { /* the interleaved fr_body where it wins (above) */
        if (c->s == 2)
            c->fast2 = x2r_mul_tab[c->n - FR_NMIN];
        if (c->s <= X2R_SMAX)
            c->fast2_sqr = x2r_sqr_tab[c->s - 2][c->n - FR_NMIN];
        return;
    }
    if (nv == 1)
        c->fast2 = x2_mul_tab[c->s - 2];
    c->fast2_sqr = x2_sqr_tab[c->s - 2][nv - 1];
}

/* the same instance (so the same s and ceil(n/8)) and the same n: one shape */
static int same_shape(mp_mul2_fn f0, mp_mul2_fn f1, const mns_pmns_mp_ctx *c0,
                      const mns_pmns_mp_ctx *c1)
{
    return f0 && f0 == f1 && c0->n == c1->n;
}

void mns_pmns_mp_mul_x2_any(const mns_pmns_mp_ctx *c0, const mns_pmns_mp_ctx *c1, uint64_t *r0,
                            const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                            const uint64_t *a1, const uint64_t *b1)
{
    if (same_shape(c0->fast2, c1->fast2, c0, c1)) {
        c0->fast2(c0, c1, r0, a0, b0, r1, a1, b1);
        return;
    }
    c0->mul(c0, r0, a0, b0);
    c1->mul(c1, r1, a1, b1);
}

void mns_pmns_mp_sqr_x2_any(const mns_pmns_mp_ctx *c0, const mns_pmns_mp_ctx *c1, uint64_t *r0,
                            const uint64_t *a0, uint64_t *r1, const uint64_t *a1)
{
    if (same_shape(c0->fast2_sqr, c1->fast2_sqr, c0, c1)) {
        c0->fast2_sqr(c0, c1, r0, a0, a0, r1, a1, a1);
        return;
    }
    c0->sqr(c0, r0, a0);
    c1->sqr(c1, r1, a1);
}

void mns_pmns_mp_mul_x2(const mns_pmns_mp *c0, const mns_pmns_mp *c1, uint64_t *r0,
                        const uint64_t *a0, const uint64_t *b0, uint64_t *r1, const uint64_t *a1,
                        const uint64_t *b1)
{
    mns_pmns_mp_mul_x2_any(c0, c1, r0, a0, b0, r1, a1, b1);
}

void mns_pmns_mp_sqr_x2(const mns_pmns_mp *c0, const mns_pmns_mp *c1, uint64_t *r0,
                        const uint64_t *a0, uint64_t *r1, const uint64_t *a1)
{
    mns_pmns_mp_sqr_x2_any(c0, c1, r0, a0, r1, a1);
}
