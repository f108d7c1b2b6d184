/* Products that compute only the part a reduction needs, on GMP's mpn layer.
 *
 * GMP exports, without documenting them, mpn_mullo_n (the low n words of an
 * n x n product: the Montgomery quotient Q = S mu mod beta^t needs nothing
 * else) and mpn_mulmod_bnm1 (a product modulo beta^K - 1, by a wrap-around
 * recursion and the FFT mod beta^K + 1: Q P is needed only modulo beta^K - 1
 * once the result is known to be below beta^K - 1). GMP's own mpn_redc_n
 * combines the two the same way. Being internal to GMP they are declared
 * here; cmake/gmp_internals.cmake runs each against mpn_mul at configure
 * time and defines MNS_HAVE_GMPN_* when it agrees. Without them, or with
 * fast = 0 (MNS_CPU=generic, so that the tests run both paths), the
 * portable twins below compute the same values with full products. */
#include <string.h>

#include "core/ct.h"
#include "mpart/mpart.h"

#ifndef MNS_HAVE_GMPN_MULLO
#define MNS_HAVE_GMPN_MULLO 0
#endif
#ifndef MNS_HAVE_GMPN_MULMOD_BNM1
#define MNS_HAVE_GMPN_MULMOD_BNM1 0
#endif

#if MNS_HAVE_GMPN_MULLO
void __gmpn_mullo_n(mp_ptr, mp_srcptr, mp_srcptr, mp_size_t);
#endif
#if MNS_HAVE_GMPN_MULMOD_BNM1
void __gmpn_mulmod_bnm1(mp_ptr, mp_size_t, mp_srcptr, mp_size_t, mp_srcptr, mp_size_t, mp_ptr);
mp_size_t __gmpn_mulmod_bnm1_next_size(mp_size_t);
#endif

typedef unsigned __int128 u128;

int mns_mpart_have_mullo(void) { return MNS_HAVE_GMPN_MULLO; }
int mns_mpart_have_bnm1(void) { return MNS_HAVE_GMPN_MULMOD_BNM1; }

void mns_mpart_mul_any(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn)
{
    if (an >= bn)
        mpn_mul((mp_ptr)r, (mp_srcptr)a, (mp_size_t)an, (mp_srcptr)b, (mp_size_t)bn);
    else
        mpn_mul((mp_ptr)r, (mp_srcptr)b, (mp_size_t)bn, (mp_srcptr)a, (mp_size_t)an);
}

void mns_mpart_mullo(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n,
                     uint64_t *scratch, int fast)
{
#if MNS_HAVE_GMPN_MULLO
    if (fast) {
        __gmpn_mullo_n((mp_ptr)r, (mp_srcptr)a, (mp_srcptr)b, (mp_size_t)n);
        return;
    }
#endif
    (void)fast;
    mpn_mul_n((mp_ptr)scratch, (mp_srcptr)a, (mp_srcptr)b, (mp_size_t)n);
    memcpy(r, scratch, n * sizeof(uint64_t));
}

size_t mns_mpart_bnm1_size(size_t n, int fast)
{
#if MNS_HAVE_GMPN_MULMOD_BNM1
    if (fast)
        return (size_t)__gmpn_mulmod_bnm1_next_size((mp_size_t)n);
#endif
    (void)fast;
    return n;
}

size_t mns_mpart_bnm1_scratch(size_t K) { return 2 * K + 8; }

/* r (K words) += c at word 0, once around: used where c = 1 can only come
 * with r <= beta^K - 2, so nothing falls off the top. No early exit. */
static void incr_wrap(uint64_t *r, size_t K, uint64_t c)
{
    for (size_t i = 0; i < K; i++) {
        u128 s = (u128)r[i] + c;
        r[i] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
}

/* swap so that *an >= *bn */
static void longer_first(const uint64_t **a, size_t *an, const uint64_t **b, size_t *bn)
{
    if (*an < *bn) {
        const uint64_t *t = *a;
        *a = *b;
        *b = t;
        size_t tn = *an;
        *an = *bn;
        *bn = tn;
    }
}

size_t mns_mpart_mulmod_bnm1(uint64_t *r, size_t K, const uint64_t *a, size_t an,
                             const uint64_t *b, size_t bn, uint64_t *tp, int fast)
{
    longer_first(&a, &an, &b, &bn);
    if (an + bn <= K) {
        mpn_mul((mp_ptr)r, (mp_srcptr)a, (mp_size_t)an, (mp_srcptr)b, (mp_size_t)bn);
        return an + bn;
    }
#if MNS_HAVE_GMPN_MULMOD_BNM1
    /* GMP asks an <= rn and an + bn > rn / 2 (true here) */
    if (fast && an <= K) {
        __gmpn_mulmod_bnm1((mp_ptr)r, (mp_size_t)K, (mp_srcptr)a, (mp_size_t)an, (mp_srcptr)b,
                           (mp_size_t)bn, (mp_ptr)tp);
        return K;
    }
#endif
    (void)fast;
    /* the full product folded: beta^K = 1. an, bn <= K, so two slices */
    mpn_mul((mp_ptr)tp, (mp_srcptr)a, (mp_size_t)an, (mp_srcptr)b, (mp_size_t)bn);
    uint64_t cy = mpn_add((mp_ptr)r, (mp_srcptr)tp, (mp_size_t)K, (mp_srcptr)(tp + K),
                          (mp_size_t)(an + bn - K));
    incr_wrap(r, K, cy);
    return K;
}

size_t mns_mpart_mullo_any(uint64_t *r, size_t L, const uint64_t *a, size_t an, const uint64_t *b,
                           size_t bn, uint64_t *scratch, int fast)
{
    longer_first(&b, &bn, &a, &an);
    /* an <= bn <= L */
    if (an + bn <= L) {
        mpn_mul((mp_ptr)r, (mp_srcptr)b, (mp_size_t)bn, (mp_srcptr)a, (mp_size_t)an);
        memset(r + an + bn, 0, (L - an - bn) * sizeof(uint64_t));
        return L;
    }
    /* a b = a (b mod beta^m) + a (b div beta^m) beta^m, m = L - an: the first
     * whole (L words), of the second only the low an words */
    const size_t m = L - an, rest = bn - m;
    uint64_t *bh = scratch, *lo = bh + an, *tmp = lo + an;
    if (m)
        mns_mpart_mul_any(r, a, an, b, m);
    else
        memset(r, 0, L * sizeof(uint64_t));
    memcpy(bh, b + m, rest * sizeof(uint64_t));
    memset(bh + rest, 0, (an - rest) * sizeof(uint64_t));
    mns_mpart_mullo(lo, a, bh, an, tmp, fast);
    mpn_add_n((mp_ptr)(r + m), (mp_srcptr)(r + m), (mp_srcptr)lo, (mp_size_t)an);
    return L;
}

void mns_mpart_mulhi_known(uint64_t *x, int64_t adj[2], const uint64_t *q, const uint64_t *p,
                           size_t h, const uint64_t *s, uint64_t *scratch, int fast)
{
    uint64_t any = 0;
    for (size_t i = 0; i < h; i++)
        any |= s[i];
    const uint64_t c = mns_ct_mask_nonzero(any) & 1;
    if (!(fast && h % 2 == 0 && h >= MNS_MPART_MULHI_BNM1_MIN)) {
        mpn_mul_n((mp_ptr)scratch, (mp_srcptr)q, (mp_srcptr)p, (mp_size_t)h);
        memcpy(x, scratch + h, h * sizeof(uint64_t));
        adj[0] = (int64_t)c;
        adj[1] = 0;
        return;
    }
    /* X = q p = X_hi beta^h + X_lo with X_lo = -s mod beta^h = c - s mod
     * (beta^h - 1), and X_hi <= beta^h - 2. Z = X mod (beta^h - 1) by the
     * wrap-around product, so X_hi = Z + s - c mod (beta^h - 1). Let T = Z + s
     * mod beta^h with carry c1, and D = T + c1 beta^h - c, in [0, 2 beta^h -
     * 3] (s >= 1 when c = 1): X_hi = D - j (beta^h - 1) with j = [D >= beta^h -
     * 1], i.e. j = 1 when c1 = 1, and when c1 = 0 only if T is all ones and c =
     * 0. So X_hi + c = T + j + (c1 - j) beta^h: x = T, no pass to propagate. */
    mns_mpart_mulmod_bnm1(x, h, q, h, p, h, scratch, fast);
    uint64_t c1 = mpn_add_n((mp_ptr)x, (mp_srcptr)x, (mp_srcptr)s, (mp_size_t)h);
    uint64_t all = ~(uint64_t)0;
    for (size_t i = 0; i < h; i++)
        all &= x[i];
    uint64_t j = c1 | (mns_ct_mask_eq(all, ~(uint64_t)0) & ~mns_ct_mask_bit(c) & 1);
    adj[0] = (int64_t)j;
    adj[1] = (int64_t)c1 - (int64_t)j;
}
