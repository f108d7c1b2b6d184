/* Garner's mixed-radix CRT in constant time.
 *
 *   x_1 = s_0;  for i = 1..k-1:
 *     h   = (s_i - x mod p_i) * (p_0 ... p_{i-1})^-1 mod p_i
 *     x  += (p_0 ... p_{i-1}) * h
 *
 * For k = 2 this is the slides' Garner formula S = Sq + q |(Sp - Sq) q^-1|_p
 * with the roles named the other way round. The incremental form needs one
 * product by the running modulus per prime and no final reduction mod n
 * (x < p_0 ... p_i at every step), unlike the CRT sum, which needs k products
 * by N/p_i and a reduction of a value up to k n.
 *
 * Every operation is an mpn_sec_* or mpn_*_n / mpn_cnd_* call on operands
 * whose lengths are fixed by the key's word counts, so neither time nor
 * memory trace depends on the s_i or the primes' values.
 */
#include <string.h>

#include "core/error.h"
#include "rsa/rsa_internal.h"

typedef struct crt_layout {
    size_t t, h, prod, div, mul, total;
} crt_layout;

static size_t zmax(size_t a, size_t b) { return a > b ? a : b; }

static crt_layout layout_of(const mns_rsa *key)
{
    size_t tmax = 0, pmax = 0, divi = 0, muli = 0;
    for (int i = 1; i < key->k; i++) {
        const mns_rsa_channel *c = &key->ch[i];
        size_t len = zmax(c->mn, c->pn);
        tmax = zmax(tmax, len);
        pmax = zmax(pmax, c->pn);
        divi = zmax(divi, (size_t)mpn_sec_div_r_itch((mp_size_t)len, (mp_size_t)c->pn));
        divi = zmax(divi, (size_t)mpn_sec_div_r_itch((mp_size_t)(2 * c->pn), (mp_size_t)c->pn));
        muli = zmax(muli, (size_t)mpn_sec_mul_itch((mp_size_t)c->pn, (mp_size_t)c->pn));
        size_t big = zmax(c->mn, c->pn), small = c->mn + c->pn - big;
        muli = zmax(muli, (size_t)mpn_sec_mul_itch((mp_size_t)big, (mp_size_t)small));
    }
    crt_layout l;
    l.t = 0;
    l.h = l.t + tmax;
    l.prod = l.h + pmax;
    l.div = l.prod + zmax(2 * pmax, key->xn);
    l.mul = l.div + divi;
    l.total = l.mul + muli;
    return l;
}

size_t mns_rsa_crt_scratch(const mns_rsa *key) { return layout_of(key).total; }

void mns_rsa_crt(const mns_rsa *key, mp_limb_t *x, mp_limb_t *const *s, mp_limb_t *scratch)
{
    const crt_layout l = layout_of(key);
    mp_limb_t *t = scratch + l.t, *h = scratch + l.h, *prod = scratch + l.prod;
    mp_limb_t *div = scratch + l.div, *mul = scratch + l.mul;

    memset(x, 0, key->xn * sizeof(mp_limb_t));
    memcpy(x, s[0], key->ch[0].pn * sizeof(mp_limb_t));
    for (int i = 1; i < key->k; i++) {
        const mns_rsa_channel *c = &key->ch[i];
        const size_t pn = c->pn, mn = c->mn;
        /* x < p_0 ... p_{i-1}, so it fits in mn words; x mod p_i */
        size_t len = zmax(mn, pn);
        memcpy(t, x, len * sizeof(mp_limb_t)); /* x is zero beyond mn words */
        mpn_sec_div_r(t, (mp_size_t)len, c->p, (mp_size_t)pn, div);
        /* h = (s_i - t) mod p_i */
        mp_limb_t borrow = mpn_sub_n(h, s[i], t, (mp_size_t)pn);
        mpn_cnd_add_n(borrow, h, h, c->p, (mp_size_t)pn);
        /* h = h * inv mod p_i */
        mpn_sec_mul(prod, h, (mp_size_t)pn, c->inv, (mp_size_t)pn, mul);
        mpn_sec_div_r(prod, (mp_size_t)(2 * pn), c->p, (mp_size_t)pn, div);
        memcpy(h, prod, pn * sizeof(mp_limb_t));
        /* x += mprev * h; no carry out: the sum is < p_0 ... p_i */
        if (mn >= pn)
            mpn_sec_mul(prod, c->mprev, (mp_size_t)mn, h, (mp_size_t)pn, mul);
        else
            mpn_sec_mul(prod, h, (mp_size_t)pn, c->mprev, (mp_size_t)mn, mul);
        mpn_add_n(x, x, prod, (mp_size_t)(mn + pn));
    }
}
/* Garner's constants of every channel i >= 1, in the channels' final order:
 * mprev = p_0 ... p_{i-1}, inv = mprev^-1 mod p_i. Variable time (key
 * creation). */
mns_status mns_rsa_garner_constants(mns_rsa *key, const mpz_t *primes)
{
    mpz_t m, inv;
    mpz_inits(m, inv, NULL);
    mns_status st = MNS_OK;
    mpz_set(m, primes[key->ch[0].pi]);
    for (int i = 1; i < key->k && st == MNS_OK; i++) {
        mns_rsa_channel *c = &key->ch[i];
        const mpz_t *p = &primes[c->pi];
        c->mn = mpz_size(m);
        mpz_invert(inv, m, *p); /* distinct primes: always invertible */
        c->mprev = mns_rsa_limbs_of(m, c->mn);
        c->inv = mns_rsa_limbs_of(inv, c->pn);
        if (!c->mprev || !c->inv)
            st = mns_error(MNS_ENOMEM, "rsa: out of memory");
        mpz_mul(m, m, *p);
    }
    mpz_clears(m, inv, NULL);
    return st;
}
