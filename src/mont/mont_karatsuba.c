/* Constant-time Karatsuba product and square for the mpn Montgomery kernel.
 *
 * Why: above ~32 words GMP's sub-quadratic mpn_mul_n beats any schoolbook
 * product, but its Toom code branches on the sign of a0 - a1. Here the
 * absolute differences are taken with masks (two's complement negation by
 * XOR and +1), the sign of the middle product is applied by the same mask,
 * and every carry runs over a fixed length with mpn_add_n / mpn_sub_n, so
 * the instruction and memory trace depends on n only. Below the threshold
 * the base case is GMP's side-channel-silent mpn_sec_mul / mpn_sec_sqr.
 *
 * Split: a = a0 + a1 B^h, h = ceil(n/2), a1 of l = n - h words.
 * a b = a0 b0 + (a0 b1 + a1 b0) B^h + a1 b1 B^2h and
 * a0 b1 + a1 b0 = a0 b0 + a1 b1 + (a0 - a1)(b1 - b0). */
#include <string.h>

#include "core/ct.h"
#include "mont/mont.h"

/* r[0..n) <- -r mod B^n when mask is all ones, r when 0 (two's complement
 * by XOR and +1, over every word); returns the carry out of the +1. */
static mp_limb_t cond_negate(mp_limb_t *r, mp_size_t n, mp_limb_t mask)
{
    mp_limb_t carry = mask & 1;
    for (mp_size_t i = 0; i < n; i++) {
        mp_limb_t v = (r[i] ^ mask) + carry;
        carry = (mp_limb_t)(v < carry);
        r[i] = v;
    }
    return carry;
}

/* r[0..h) <- |x - y| for x of h words and y of l <= h words; returns an
 * all-ones mask when x < y. */
static mp_limb_t abs_diff(mp_limb_t *r, const mp_limb_t *x, const mp_limb_t *y, mp_size_t h,
                          mp_size_t l)
{
    mp_limb_t borrow = mpn_sub_n(r, x, y, l);
    /* propagate over the fixed remaining length (no early exit) */
    for (mp_size_t i = l; i < h; i++) {
        mp_limb_t xi = x[i];
        r[i] = xi - borrow;
        borrow = (mp_limb_t)(borrow > xi);
    }
    mp_limb_t mask = (mp_limb_t)0 - (mp_limb_t)mns_ct_barrier(borrow);
    cond_negate(r, h, mask);
    return mask;
}

/* r[0..h) <- |y - x| for y of l <= h words and x of h words (the b1 - b0 of
 * Karatsuba); mask when y < x. tmp holds h words. */
static mp_limb_t abs_diff_rev(mp_limb_t *r, const mp_limb_t *x, const mp_limb_t *y, mp_size_t h,
                              mp_size_t l, mp_limb_t *tmp)
{
    memcpy(tmp, y, (size_t)l * sizeof(mp_limb_t));
    memset(tmp + l, 0, (size_t)(h - l) * sizeof(mp_limb_t));
    return abs_diff(r, tmp, x, h, h);
}

size_t mns_mont_kara_itch(size_t n)
{
    /* per level: |a0-a1|, |b1-b0|, a widened operand (3h), the middle
     * product (2h) and the middle sum (2n - h + 1), then the next level */
    size_t total = 0;
    while (n >= MNS_MONT_KARA_THRESHOLD) {
        size_t h = n - n / 2;
        total += 3 * h + 2 * h + (2 * n - h + 1) + 4;
        n = h;
    }
    mp_size_t base = mpn_sec_mul_itch((mp_size_t)n, (mp_size_t)n);
    mp_size_t base2 = mpn_sec_sqr_itch((mp_size_t)n);
    return total + (size_t)(base > base2 ? base : base2) + 2 * n + 4;
}

/* r[0..2n) += m[0..len) at offset h, over the fixed length 2n - h */
static void add_middle(mp_limb_t *r, mp_size_t n, mp_size_t h, mp_limb_t *m, mp_size_t len)
{
    memset(m + len, 0, (size_t)(2 * n - h - len) * sizeof(mp_limb_t));
    mpn_add_n(r + h, r + h, m, 2 * n - h);
}

void mns_mont_kara_mul(mp_limb_t *r, const mp_limb_t *a, const mp_limb_t *b, mp_size_t n,
                       mp_limb_t *scratch, mns_mont_base base)
{
    if (n < (base == MNS_MONT_BASE_ADX ? MNS_MONT_KARA_ADX_THRESHOLD : MNS_MONT_KARA_THRESHOLD)) {
        if (base == MNS_MONT_BASE_ADX)
            mns_mont_mul_rows_adx((uint64_t *)r, (const uint64_t *)a, (const uint64_t *)b,
                                  (size_t)n);
        else
            mpn_sec_mul(r, a, n, b, n, scratch);
        return;
    }
    const mp_size_t h = n - n / 2, l = n / 2;
    mp_limb_t *da = scratch, *db = da + h, *tmp = db + h, *mid = tmp + h;
    mp_limb_t *sum = mid + 2 * h, *next = sum + (2 * n - h + 1) + 4;

    /* the signs: a0 - a1 negative (sa), b1 - b0 negative (sb) */
    mp_limb_t sa = abs_diff(da, a, a + h, h, l);
    mp_limb_t sb = abs_diff_rev(db, b, b + h, h, l, tmp);

    mns_mont_kara_mul(r, a, b, h, next, base);                 /* a0 b0 -> r[0..2h) */
    mns_mont_kara_mul(r + 2 * h, a + h, b + h, l, next, base); /* a1 b1 -> r[2h..2n) */
    mns_mont_kara_mul(mid, da, db, h, next, base);             /* |a0-a1||b1-b0| */

    /* sum = a0 b0 + a1 b1 over 2h + 1 words */
    memcpy(sum, r, (size_t)(2 * h) * sizeof(mp_limb_t));
    mp_limb_t *w = next; /* a1 b1 on 2h words */
    memcpy(w, r + 2 * h, (size_t)(2 * l) * sizeof(mp_limb_t));
    memset(w + 2 * l, 0, (size_t)(2 * h - 2 * l) * sizeof(mp_limb_t));
    sum[2 * h] = mpn_add_n(sum, sum, w, 2 * h);

    /* middle = sum + (sa == sb ? +mid : -mid): negate mid by the mask over
     * 2h + 1 words (the true middle is >= 0 and fits, so arithmetic modulo
     * B^(2h+1) gives it exactly) */
    mp_limb_t neg = sa ^ sb;
    mp_limb_t top = neg + cond_negate(mid, 2 * h, neg); /* sign extension of -mid (all ones), or 0 */
    mp_limb_t c = mpn_add_n(sum, sum, mid, 2 * h);
    sum[2 * h] += top + c;
    add_middle(r, n, h, sum, 2 * h + 1);
}

void mns_mont_kara_sqr(mp_limb_t *r, const mp_limb_t *a, mp_size_t n, mp_limb_t *scratch,
                       mns_mont_base base)
{
    if (n < MNS_MONT_KARA_SQR_THRESHOLD) {
        if (base == MNS_MONT_BASE_ADX)
            mns_mont_sqr_rows_adx((uint64_t *)r, (const uint64_t *)a, (size_t)n);
        else
            mpn_sec_sqr(r, a, n, scratch);
        return;
    }
    const mp_size_t h = n - n / 2, l = n / 2;
    mp_limb_t *da = scratch, *tmp = da + h, *mid = tmp + 2 * h;
    mp_limb_t *sum = mid + 2 * h, *next = sum + (2 * n - h + 1) + 4;

    abs_diff(da, a, a + h, h, l);
    mns_mont_kara_sqr(r, a, h, next, base);
    mns_mont_kara_sqr(r + 2 * h, a + h, l, next, base);
    mns_mont_kara_sqr(mid, da, h, next, base);

    /* 2 a0 a1 = a0^2 + a1^2 - (a0 - a1)^2 */
    memcpy(sum, r, (size_t)(2 * h) * sizeof(mp_limb_t));
    mp_limb_t *w = next;
    memcpy(w, r + 2 * h, (size_t)(2 * l) * sizeof(mp_limb_t));
    memset(w + 2 * l, 0, (size_t)(2 * h - 2 * l) * sizeof(mp_limb_t));
    sum[2 * h] = mpn_add_n(sum, sum, w, 2 * h);
    sum[2 * h] -= mpn_sub_n(sum, sum, mid, 2 * h);
    add_middle(r, n, h, sum, 2 * h + 1);
}
