/* Portable Montgomery kernels: CIOS multiplication (Koç, Acar, Kaliski),
 * a squaring that computes each cross product once, and a separated REDC.
 * 64-bit words, unsigned __int128 products. No branch and no memory index
 * depend on the operands. */
#include <string.h>

#include "core/ct.h"
#include "core/tmp.h"
#include "mont/mont.h"

typedef unsigned __int128 u128;

void mns_mont_final_sub(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, uint64_t hi)
{
    const size_t n = c->n;
    const uint64_t *p = c->p;
    uint64_t borrow = 0;
    /* r may alias a: compute a - p into r word by word, keeping a[i] first */
    uint64_t keep_mask;
    /* first pass: only the borrow, so that a is still intact for the select */
    for (size_t i = 0; i < n; i++) {
        u128 d = (u128)a[i] - p[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    /* a >= p  <=>  hi = 1 or no borrow */
    keep_mask = ~(mns_ct_mask_nonzero(hi) | ~mns_ct_mask_nonzero(borrow));
    borrow = 0;
    for (size_t i = 0; i < n; i++) {
        u128 d = (u128)a[i] - p[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
        uint64_t s = (uint64_t)d;
        r[i] = s ^ (keep_mask & (s ^ a[i]));
    }
}

void mns_mont_mul_generic(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,
                          const uint64_t *b)
{
    const size_t n = c->n;
    const uint64_t *p = c->p;
    const uint64_t pinv = c->pinv;
    mns_tmp tmp;
    uint64_t *t = mns_tmp_get(&tmp, n + 2);
    memset(t, 0, (n + 2) * sizeof(uint64_t));

    for (size_t i = 0; i < n; i++) {
        uint64_t bi = b[i];
        uint64_t carry = 0;
        for (size_t j = 0; j < n; j++) {
            u128 s = (u128)a[j] * bi + t[j] + carry;
            t[j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        u128 s = (u128)t[n] + carry;
        t[n] = (uint64_t)s;
        t[n + 1] = (uint64_t)(s >> 64);

        uint64_t m = t[0] * pinv;
        s = (u128)m * p[0] + t[0];
        carry = (uint64_t)(s >> 64);
        for (size_t j = 1; j < n; j++) {
            s = (u128)m * p[j] + t[j] + carry;
            t[j - 1] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        s = (u128)t[n] + carry;
        t[n - 1] = (uint64_t)s;
        t[n] = t[n + 1] + (uint64_t)(s >> 64);
    }
    mns_mont_final_sub(c, r, t, t[n]);
    mns_tmp_release(&tmp);
}

void mns_mont_redc_generic(const mns_mont_ctx *c, uint64_t *r, uint64_t *t)
{
    const size_t n = c->n;
    const uint64_t *p = c->p;
    const uint64_t pinv = c->pinv;
    /* After step i, t[i] is zero by construction; it keeps the carry out of
     * the row instead, and all rows' carries are added at once at the end
     * (the mpn_redc_1 layout), so no carry ripples through a variable
     * number of words. */
    for (size_t i = 0; i < n; i++) {
        uint64_t m = t[i] * pinv;
        uint64_t carry = 0;
        for (size_t j = 0; j < n; j++) {
            u128 s = (u128)m * p[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        t[i] = carry;
    }
    uint64_t cy = 0;
    for (size_t i = 0; i < n; i++) {
        u128 s = (u128)t[n + i] + t[i] + cy;
        t[n + i] = (uint64_t)s;
        cy = (uint64_t)(s >> 64);
    }
    mns_mont_final_sub(c, r, t + n, cy);
}

void mns_mont_sqr_generic(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)
{
    const size_t n = c->n;
    mns_tmp tmp;
    uint64_t *t = mns_tmp_get(&tmp, 2 * n);
    memset(t, 0, 2 * n * sizeof(uint64_t));

    /* cross products a_i a_j, i < j, once each */
    for (size_t i = 0; i + 1 < n; i++) {
        uint64_t carry = 0;
        for (size_t j = i + 1; j < n; j++) {
            u128 s = (u128)a[i] * a[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        t[i + n] = carry;
    }
    /* double them and add the squares a_i^2 */
    uint64_t top = 0, cy = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        uint64_t w = t[i];
        t[i] = (w << 1) | top;
        top = w >> 63;
    }
    for (size_t i = 0; i < n; i++) {
        u128 sq = (u128)a[i] * a[i];
        u128 s = (u128)t[2 * i] + (uint64_t)sq + cy;
        t[2 * i] = (uint64_t)s;
        s = (u128)t[2 * i + 1] + (uint64_t)(sq >> 64) + (uint64_t)(s >> 64);
        t[2 * i + 1] = (uint64_t)s;
        cy = (uint64_t)(s >> 64);
    }
    mns_mont_redc_generic(c, r, t);
    mns_tmp_release(&tmp);
}
