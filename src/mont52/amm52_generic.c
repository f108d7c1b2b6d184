/* The portable twin of the IFMA AMM kernels (amm52_ifma.c): the same steps
 * on one 64-bit lane at a time, hence the same digits (see amm52.h). */
#include <string.h>

#include "mont52/amm52.h"

typedef unsigned __int128 u128;

/* r <- the m normalized digits of the value sum_j x[j] 2^(52 j) + carry,
 * which is known to be < 2^(52 m); zero words up to 8 nv. x has 8 nv
 * entries, each < 2^63. The IFMA kernels do the same in vectors (amm_finish
 * in amm52_ifma.c): the normalized digits are unique, so both give the same
 * words. */
static void normalize(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *x, uint64_t carry)
{
    for (size_t j = 0; j < c->m; j++) {
        uint64_t s = x[j] + carry;
        r[j] = s & MNS_AMM52_MASK;
        carry = s >> 52;
    }
    for (size_t j = c->m; j < 8 * c->nv; j++)
        r[j] = 0;
}

/* One step of the AMM per digit b_i of b, on a window x of relative digit
 * positions (x[0] is position i):
 *   t = x[0] + carry + lo(a_0 b_i),  q = t k0 mod 2^52,
 *   carry = (t + lo(p_0 q)) / 2^52            (exact: the sum is 0 mod 2^52)
 *   x[j] += lo(a_j b_i) + lo(p_j q), then x moves down one position and
 *   x[j] += hi(a_j b_i) + hi(p_j q).
 * Position 0 leaves the window through the scalar carry only, as in the
 * vector kernel, where lane 0 is dropped by the shift. Each entry collects
 * at most 4 terms < 2^52 per step (plus one carry < 2^12): below 2^61 after
 * 80 steps. */
void mns_amm52_mul_generic(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a,
                           const uint64_t *b)
{
    const size_t m = c->m, w = 8 * c->nv;
    const uint64_t *p = c->p, M = MNS_AMM52_MASK;
    uint64_t x[MNS_AMM52_MAX_DIGITS + 1] = {0}, carry = 0;
    for (size_t i = 0; i < m; i++) {
        const uint64_t bi = b[i];
        const uint64_t t = x[0] + carry + ((a[0] * bi) & M);
        const uint64_t q = (t * c->k0) & M;
        carry = (t + ((p[0] * q) & M)) >> 52;
        for (size_t j = 1; j < w; j++)
            x[j - 1] = x[j] + ((a[j] * bi) & M) + ((p[j] * q) & M);
        x[w - 1] = 0;
        for (size_t j = 0; j < w; j++)
            x[j] += (uint64_t)(((u128)a[j] * bi) >> 52) + (uint64_t)(((u128)p[j] * q) >> 52);
    }
    normalize(c, r, x, carry);
}

void mns_amm52_mul_x2_generic(const mns_amm52_ctx *c0, const mns_amm52_ctx *c1, uint64_t *r0,
                              const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                              const uint64_t *a1, const uint64_t *b1)
{
    mns_amm52_mul_generic(c0, r0, a0, b0);
    mns_amm52_mul_generic(c1, r1, a1, b1);
}
