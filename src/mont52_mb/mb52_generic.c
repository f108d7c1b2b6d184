/* The portable twin of the lane-sliced IFMA kernels (mb52_ifma.c): the same
 * products one lane at a time. Both give the normalized digits of the same
 * value (mb52.h), so their words agree. */
#include "mont52_mb/mb52.h"

typedef unsigned __int128 u128;

#define L MNS_MB52_LANES
#define M52 MNS_MB52_MASK

/* acc[pos] += lo(x y), acc[pos + 1] += hi(x y) for x, y < 2^52 */
static inline void madd(uint64_t *acc, size_t pos, uint64_t x, uint64_t y)
{
    const u128 t = (u128)x * y;
    acc[pos] += (uint64_t)t & M52;
    acc[pos + 1] += (uint64_t)(t >> 52);
}

/* One reduction row: q_i from the exact digit i, q_i p added at position i,
 * the digit's carry passed up (the digit is then 0 mod 2^52). */
static inline void reduce_row(const mns_mb52_ctx *c, uint64_t *acc, size_t i)
{
    const uint64_t q = (acc[i] * c->k0) & M52;
    for (size_t j = 0; j < c->m; j++)
        madd(acc, i + j, c->p[j], q);
    acc[i + 1] += acc[i] >> 52;
}

/* lane l of r <- the normalized digits of sum_j acc[m + j] 2^(52 j), a value
 * below R (the result of a reduction: < 2p). Each entry is < 2^62: at most
 * 4 terms below 2^53 per row over 2 m rows. */
static void lane_out(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *acc, unsigned l)
{
    uint64_t carry = 0;
    for (size_t j = 0; j < c->m; j++) {
        const uint64_t s = acc[c->m + j] + carry;
        r[L * j + l] = s & M52;
        carry = s >> 52;
    }
}

void mns_mb52_mul_generic(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const size_t m = c->m;
    for (unsigned l = 0; l < L; l++) {
        uint64_t acc[2 * MNS_MB52_MAX_DIGITS + 1] = {0};
        for (size_t i = 0; i < m; i++) {
            const uint64_t bi = b[L * i + l];
            for (size_t j = 0; j < m; j++)
                madd(acc, i + j, a[L * j + l], bi);
            reduce_row(c, acc, i);
        }
        lane_out(c, r, acc, l);
    }
}

/* The square first (each cross product once, doubled), then the m reduction
 * rows: 1.5 m^2 products instead of 2 m^2. */
void mns_mb52_sqr_generic(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a)
{
    const size_t m = c->m;
    for (unsigned l = 0; l < L; l++) {
        uint64_t acc[2 * MNS_MB52_MAX_DIGITS + 1] = {0};
        for (size_t i = 0; i < m; i++)
            for (size_t j = i + 1; j < m; j++)
                madd(acc, i + j, a[L * i + l], a[L * j + l]);
        for (size_t k = 0; k < 2 * m; k++)
            acc[k] <<= 1;
        for (size_t i = 0; i < m; i++)
            madd(acc, 2 * i, a[L * i + l], a[L * i + l]);
        for (size_t i = 0; i < m; i++)
            reduce_row(c, acc, i);
        lane_out(c, r, acc, l);
    }
}
