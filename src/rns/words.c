/* The constant-time entry and exit of the RNS backends (set_words and
 * get_words of backend.h). Entry: the residues of the words, then one
 * Montgomery product.
 *
 *   x_i = a mod m_i by Horner over the words, acc <- acc 2^64 + a_j mod m_i,
 *         with 2^64 mod m_i public (the base is public) and the fold of
 *         word.h (no division, no branch): a < p is then a valid operand
 *         (tight means below (n + 1) p in value);
 *   r   = x (M'^2 mod p) M'^-1 = a M' mod p, the Montgomery form.
 *
 * Cost: 2n pn word folds and one product (the product dominates).
 *
 * Exit, for a tight X = x M' (mod p):
 *   y   = X * 1 * M'^-1, one product by the residues of 1: y = x (mod p),
 *         y < tau p <= M / 2 (the bounds of mns_rns.h);
 *   v   = sum_j xi_j M_j - k M, xi_j = y_j (M_j)^-1 mod m_j (the CRT on Bm;
 *         k is Kawamura's, exact because y < M / 2), so v = y;
 *   r   = v mod p by mpn_sec_div_r.
 * The sum is built without the M_j by mns_rns_crt_sum (crt_sum.h), and
 * with the residue arithmetic of word.h the exit is constant time in x and
 * p. Cost: one product and about 3 n^2 e / 64 word products. */
#include <string.h>

#include "core/tmp.h"
#include "rns/crt_sum.h"
#include "rns/rns.h"
#include "rns/word.h"

void mns_rns_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_rns *c = ctx;
    const size_t pn = mpz_size(c->p), n2 = 2 * c->n;
    if (c->kernel == MNS_RNS_KERNEL_IFMA) { /* radix 2^52, 8 channels a vector */
        mns_rns_set_words_ifma(c, r, a, pn);
        return;
    }
    const unsigned e = c->e;
    uint64_t x[2 * MNS_RNS_NMAX], t64[2 * MNS_RNS_NMAX];
    for (size_t i = 0; i < n2; i++) {
        t64[i] = mns_rns_red_mid((mns_u128)1 << 64, c->c[i], c->m[i], e);
        x[i] = 0;
    }
    /* words outer, channels inner: each channel's Horner step depends on
     * its previous one (a fold of ~30 ticks), so the 2n channels are the
     * independent chains the core overlaps (channels outer ran them one
     * after the other: 24k ticks at 1024 bits, 75 products' worth) */
    for (size_t j = pn; j-- > 0;)
        for (size_t i = 0; i < n2; i++)
            /* acc t64 + a_j < 2^(2e) + 2^64 <= 2^(2e + 8): red_acc's range */
            x[i] = mns_rns_red_acc((mns_u128)x[i] * t64[i] + a[j], 0, c->c[i], c->m[i], e);
    c->mul(c, r, x, c->r2);
}

void mns_rns_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_rns *c = ctx;
    const size_t n = c->n, pn = mpz_size(c->p);
    const unsigned e = c->e;
    uint64_t y[2 * MNS_RNS_NMAX], xi[MNS_RNS_NMAX];
    for (size_t i = 0; i < 2 * n; i++)
        y[i] = 1;
    c->mul(c, y, a, y);

    mns_u128 ksum = (mns_u128)1 << (e - 1); /* Kawamura's k, as convert.c */
    for (size_t j = 0; j < n; j++) {
        xi[j] = mns_rns_mulmod(y[j], c->minv[j], c->c[j], c->m[j], e);
        ksum += xi[j];
    }
    const mp_limb_t k = (mp_limb_t)(ksum >> e);

    /* M < 2^(e n): wn words hold A, P and v (v < M); the lengths are public */
    const size_t wn = (e * n + 63) / 64 + 1;
    const size_t itch = (size_t)mpn_sec_div_r_itch((mp_size_t)wn, (mp_size_t)pn);
    /* n <= MNS_RNS_NMAX words of e <= 64 bits: 2 wn + itch stays below
     * 1300 words, within the per-call scratch bound at every size */
    mns_tmp tmp;
    mp_limb_t *A = (mp_limb_t *)mns_tmp_get(&tmp, 2 * wn + itch);
    mp_limb_t *P = A + wn, *tp = P + wn;
    mns_rns_crt_sum(r, xi, c->m, n, k, mpz_limbs_read(c->p), pn, A, P, wn, tp);
}
