/* AVX-512 IFMA kernels of the radix-2^52 Montgomery product (amm52.h).
 *
 * One step per digit b_i of b, on nv accumulator vectors holding a window of
 * digit positions (the portable twin, amm52_generic.c, spells the step out
 * lane by lane):
 *   - t = (exact value of position i) + lo(a_0 b_i), q = t k0 mod 2^52, in
 *     general registers;
 *   - X_i = shift(X_{i-1}) + lo(a' b_i) + hi(a b_i) + lo(p' q) + hi(p q),
 *     where a' and p' are a and p shifted down one digit (a'_j = a_{j+1}):
 *     every term of the step lands on the window of positions i+1 ..., and
 *     position i leaves through a scalar carry.
 * The b-terms of a step need no q, so they are added before q is known; the
 * exact value of the next position is the window's lane 0 before the q-terms
 * plus lo(p_1 q) + hi(p_0 q) + carry, computed by scalar products so that
 * the broadcast of q and the q-terms' vpmadd52 stay off the q chain.
 *
 * The loop body is a few dozen instructions per product, so it runs from the
 * uop cache or the loop buffer even when a neighbour's hyperthread competes
 * for them (the reason this backend exists, see amm52.h). One product leaves
 * the IFMA ports half idle (the chain above is ~25 cycles a step on the
 * Xeon of docs/results); mul_x2 runs the steps of two products interleaved
 * in one loop, as OpenSSL's rsaz _x2 kernels do (two forms of the step,
 * below). Tried and left out: p scaled to k0 p = -1 mod 2^52, so that
 * q = t mod 2^52 without an imul, at one more digit: 392 / 633 / 871 TSC
 * ticks alone and 447 / 907 / 1293 for two at 1024 / 1536 / 2048 bits,
 * against the kept forms' 357 / 539 / 707 and 478 / 911 / 1096.
 * nv is a compile-time constant in every instance (1 .. MNS_AMM52_MAX_NV),
 * so the window lives in registers. */
#include "mont52/amm52.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "core/simd512.h"

#define LD(p) _mm512_loadu_si512((const void *)(p))

/* One product in flight: the window x, a and a' in registers, the scalars
 * of the q chain (x0: the exact value of the window's first position).
 *
 * Two forms of a step, a compile-time SPLIT:
 *   - chained (SPLIT = 0, mul_x2): the b-terms of the next step are added to
 *     the shifted window itself, so the window's chain is a shift and four
 *     vpmadd52 a step;
 *   - split (SPLIT = 1, mul): they are summed from zero in bt, beside the
 *     chain, and added with one vpaddq after the shift: the chain is a
 *     shift, an add and two vpmadd52, at nv more additions a step.
 * Alone, a product is latency-bound and the split form wins; two
 * interleaved products fill the IFMA ports, and the additions cost more than
 * the shorter chain gains. Measured in one process (TSC ticks per call,
 * 1024 / 1536 / 2048-bit p): alone, chained 400 / 594 / 787 and split
 * 357 / 539 / 707; two products, chained 478 / 911 / 1096 and split 472 /
 * 1004 / 1224. */
typedef struct {
    __m512i x[MNS_AMM52_MAX_NV], bt[MNS_AMM52_MAX_NV];
    __m512i a[MNS_AMM52_MAX_NV], a1[MNS_AMM52_MAX_NV];
    const uint64_t *p;
    uint64_t k0, a0, p0, p1, x0, carry;
} amm_lane;
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
amm_b_terms(amm_lane *s, uint64_t bi, int shift, const int NV, const int SPLIT)
{
    const __m512i B = _mm512_set1_epi64((long long)bi);
    if (SPLIT) {
#pragma GCC unroll 10
        for (int v = 0; v < NV; v++)
            s->bt[v] = _mm512_madd52hi_epu64(
                _mm512_madd52lo_epu64(_mm512_setzero_si512(), B, s->a1[v]), B, s->a[v]);
        return;
    }
    if (shift) {
#pragma GCC unroll 10
        for (int v = 0; v < NV - 1; v++)
            s->x[v] = _mm512_alignr_epi64(s->x[v + 1], s->x[v], 1);
        s->x[NV - 1] = _mm512_alignr_epi64(_mm512_setzero_si512(), s->x[NV - 1], 1);
    }
#pragma GCC unroll 10
    for (int v = 0; v < NV; v++) {
        s->x[v] = _mm512_madd52lo_epu64(s->x[v], B, s->a1[v]);
        s->x[v] = _mm512_madd52hi_epu64(s->x[v], B, s->a[v]);
    }
}
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
amm_q_terms(amm_lane *s, uint64_t bi, const int NV, const int SPLIT)
{
    const uint64_t M = MNS_AMM52_MASK;
    if (SPLIT) { /* the window of the step: shift(X_{i-1}) + bt */
#pragma GCC unroll 10
        for (int v = 0; v < NV - 1; v++)
            s->x[v] = _mm512_add_epi64(_mm512_alignr_epi64(s->x[v + 1], s->x[v], 1), s->bt[v]);
        s->x[NV - 1] = _mm512_add_epi64(
            _mm512_alignr_epi64(_mm512_setzero_si512(), s->x[NV - 1], 1), s->bt[NV - 1]);
    }
    const uint64_t t = s->x0 + ((s->a0 * bi) & M);
    const uint64_t q = (t * s->k0) & M;
    const __m512i Q = _mm512_set1_epi64((long long)q);
    const uint64_t carry = (t + ((s->p0 * q) & M)) >> 52;
    s->carry = carry;
    s->x0 = (uint64_t)s->x[0][0] + ((s->p1 * q) & M) +
            (uint64_t)(((unsigned __int128)s->p0 * q) >> 52) + carry;
#pragma GCC unroll 10
    for (int v = 0; v < NV; v++) {
        s->x[v] = _mm512_madd52lo_epu64(s->x[v], Q, LD(s->p + 1 + 8 * v));
        s->x[v] = _mm512_madd52hi_epu64(s->x[v], Q, LD(s->p + 8 * v));
    }
}
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
amm_start(amm_lane *s, const mns_amm52_ctx *c, const uint64_t *a, const uint64_t *b, const int NV,
          const int SPLIT)
{
#pragma GCC unroll 10
    for (int v = 0; v < NV; v++) {
        s->a[v] = LD(a + 8 * v);
        s->x[v] = _mm512_setzero_si512();
    }
#pragma GCC unroll 10
    for (int v = 0; v < NV - 1; v++)
        s->a1[v] = _mm512_alignr_epi64(s->a[v + 1], s->a[v], 1);
    s->a1[NV - 1] = _mm512_alignr_epi64(_mm512_setzero_si512(), s->a[NV - 1], 1);
    s->p = c->p;
    s->k0 = c->k0;
    s->a0 = a[0];
    s->p0 = c->p[0];
    s->p1 = c->p[1];
    s->x0 = 0;
    s->carry = 0;
    amm_b_terms(s, b[0], 0, NV, SPLIT);
}
/* r <- the normalized digits of sum_j x_j 2^(52 j) + carry (< 2^(52 m)),
 * in vectors: every lane gives its bits above 52 to the next one, after
 * which a lane is at most 2^52 + 2^12 and passes on at most one more carry.
 * Those ripple as in an adder: with G the lanes that reached 2^52 and P the
 * lanes equal to 2^52 - 1 (one bit per lane), the lanes that receive a
 * carry are ((G << 1) + P) xor P. Constant time (masks, no branch). */
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
amm_finish(uint64_t *r, const amm_lane *s, const int NV)
{
    const __m512i M = _mm512_set1_epi64((long long)MNS_AMM52_MASK);
    __m512i y[MNS_AMM52_MAX_NV];
    __m512i below = _mm512_maskz_set1_epi64(0x80, (long long)s->carry);
    unsigned __int128 G = 0, P = 0;
#pragma GCC unroll 10
    for (int v = 0; v < NV; v++) {
        const __m512i hi = _mm512_srli_epi64(s->x[v], 52);
        y[v] = _mm512_add_epi64(_mm512_and_si512(s->x[v], M), _mm512_alignr_epi64(hi, below, 7));
        below = hi;
        G |= (unsigned __int128)_mm512_cmpgt_epu64_mask(y[v], M) << (8 * v);
        P |= (unsigned __int128)_mm512_cmpeq_epu64_mask(y[v], M) << (8 * v);
    }
    const unsigned __int128 C = ((G << 1) + P) ^ P;
#pragma GCC unroll 10
    for (int v = 0; v < NV; v++) {
        const __mmask8 k = (__mmask8)(C >> (8 * v));
        y[v] = _mm512_and_si512(_mm512_mask_add_epi64(y[v], k, y[v], _mm512_set1_epi64(1)), M);
        _mm512_storeu_si512((void *)(r + 8 * v), y[v]);
    }
}
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
amm_x1(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b, const int NV)
{
    amm_lane s;
    amm_start(&s, c, a, b, NV, 1);
    const size_t m = c->m;
    for (size_t i = 0; i + 1 < m; i++) {
        amm_q_terms(&s, b[i], NV, 1);
        amm_b_terms(&s, b[i + 1], 1, NV, 1);
    }
    amm_q_terms(&s, b[m - 1], NV, 1);
    amm_finish(r, &s, NV);
}
MNS_TARGET_IFMA static inline __attribute__((always_inline)) void
amm_x2(const mns_amm52_ctx *c0, const mns_amm52_ctx *c1, uint64_t *r0, const uint64_t *a0,
       const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1, const int NV)
{
    amm_lane s0, s1;
    amm_start(&s0, c0, a0, b0, NV, 0);
    amm_start(&s1, c1, a1, b1, NV, 0);
    const size_t m = c0->m;
    for (size_t i = 0; i + 1 < m; i++) {
        amm_q_terms(&s0, b0[i], NV, 0);
        amm_q_terms(&s1, b1[i], NV, 0);
        amm_b_terms(&s0, b0[i + 1], 1, NV, 0);
        amm_b_terms(&s1, b1[i + 1], 1, NV, 0);
    }
    amm_q_terms(&s0, b0[m - 1], NV, 0);
    amm_q_terms(&s1, b1[m - 1], NV, 0);
    amm_finish(r0, &s0, NV);
    amm_finish(r1, &s1, NV);
}
#define AMM_INST(NV)                                                                           \
    MNS_TARGET_IFMA static void mul_##NV(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a, \
                                         const uint64_t *b)                                    \
    {                                                                                          \
        amm_x1(c, r, a, b, NV);                                                                \
    }                                                                                          \
    MNS_TARGET_IFMA static void mul_x2_##NV(const mns_amm52_ctx *c0, const mns_amm52_ctx *c1,  \
                                            uint64_t *r0, const uint64_t *a0,                  \
                                            const uint64_t *b0, uint64_t *r1,                  \
                                            const uint64_t *a1, const uint64_t *b1)            \
    {                                                                                          \
        amm_x2(c0, c1, r0, a0, b0, r1, a1, b1, NV);                                            \
    }
AMM_INST(1)
AMM_INST(2)
AMM_INST(3)
AMM_INST(4)
AMM_INST(5)
AMM_INST(6)
AMM_INST(7)
AMM_INST(8)
AMM_INST(9)
AMM_INST(10)

static const mns_amm52_mul_fn mul_of[MNS_AMM52_MAX_NV + 1] = {
    NULL, mul_1, mul_2, mul_3, mul_4, mul_5, mul_6, mul_7, mul_8, mul_9, mul_10};
static const mns_amm52_mul_x2_fn mul_x2_of[MNS_AMM52_MAX_NV + 1] = {
    NULL,     mul_x2_1, mul_x2_2, mul_x2_3, mul_x2_4, mul_x2_5,
    mul_x2_6, mul_x2_7, mul_x2_8, mul_x2_9, mul_x2_10};

void mns_amm52_mul_ifma(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a,
                        const uint64_t *b)
{
    mul_of[c->nv](c, r, a, b);
}

void mns_amm52_mul_x2_ifma(const mns_amm52_ctx *c0, const mns_amm52_ctx *c1, uint64_t *r0,
                           const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                           const uint64_t *a1, const uint64_t *b1)
{
    if (c0->m != c1->m) {
        mul_of[c0->nv](c0, r0, a0, b0);
        mul_of[c1->nv](c1, r1, a1, b1);
        return;
    }
    mul_x2_of[c0->nv](c0, c1, r0, a0, b0, r1, a1, b1);
}

#else
/* no x86-64: the backend never selects these (mns_cpu_has_ifma() is 0) */
void mns_amm52_mul_ifma(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a,
                        const uint64_t *b)
{
    mns_amm52_mul_generic(c, r, a, b);
}

void mns_amm52_mul_x2_ifma(const mns_amm52_ctx *c0, const mns_amm52_ctx *c1, uint64_t *r0,
                           const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                           const uint64_t *a1, const uint64_t *b1)
{
    mns_amm52_mul_x2_generic(c0, c1, r0, a0, b0, r1, a1, b1);
}
#endif
