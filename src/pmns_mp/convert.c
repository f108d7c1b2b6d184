/* The multi-precision PMNS: conversions in and out of the Montgomery domain
 * and the element operations of include/mns_pmns_mp.h. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/tmp.h"
#include "mns_pmns_mp.h"
#include "gen/gen.h"
#include "pmns_mp/ctx.h"
#include "pmns/get_words.h"
#include "pmns_mp/create.h"

/* ---- conversions ---------------------------------------------------------- */

/* digits of x: low s-1 digits in [0, 2^k), the top digit takes the rest
 * (floor division, so it carries the sign) */
int mns_pmns_mp_split_digits(uint64_t *d, size_t stride, const mpz_t x, int s, int k)
{
    mpz_t t, q;
    mpz_init_set(t, x);
    mpz_init(q);
    for (int j = 0; j < s - 1; j++) {
        mpz_fdiv_r_2exp(q, t, (mp_bitcnt_t)k);
        d[(size_t)j * stride] = mpz_get_ui(q);
        mpz_fdiv_q_2exp(t, t, (mp_bitcnt_t)k);
    }
    int ok = mpz_fits_slong_p(t);
    d[(size_t)(s - 1) * stride] = (uint64_t)(int64_t)mpz_get_si(t);
    mpz_clears(t, q, NULL);
    return ok;
}

void mns_pmns_mp_coef_value(mpz_t v, const mns_pmns_mp_ctx *c, const uint64_t *a, int i)
{
    mpz_set_si(v, 0);
    for (int j = c->s - 1; j >= 0; j--) {
        mpz_mul_2exp(v, v, (mp_bitcnt_t)c->k);
        int64_t d = (int64_t)a[(size_t)j * c->n + i];
        if (d >= 0)
            mpz_add_ui(v, v, (unsigned long)d);
        else
            mpz_sub_ui(v, v, (unsigned long)(-(d + 1)) + 1);
    }
}

/* r <- tight digits of a polynomial with A(gamma) = x (not Montgomery) */
mns_status mns_pmns_mp_represent(const mns_pmns_mp_ctx *c, uint64_t *r, const mpz_t x)
{
    mpz_t *co = malloc((size_t)c->n * sizeof *co);
    if (!co)
        return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
    for (int i = 0; i < c->n; i++)
        mpz_init(co[i]);
    mns_status st = mns_pmns_represent_var(c->P, co, x);
    for (int i = 0; st == MNS_OK && i < c->n; i++)
        if (!mns_pmns_mp_split_digits(r + i, (size_t)c->n, co[i], c->s, c->k))
            st = mns_error(MNS_ERANGE, "pmns-mp: top digit out of range");
    for (int i = 0; i < c->n; i++)
        mpz_clear(co[i]);
    free(co);
    return st;
}

/* S64: the raw value a phi^2 is represented (|y_i| < rho) and divided by phi
 * with one Montgomery product by the constant polynomial 1, so set_mpz's
 * output has the bound of a product's output (about N_i / 2, see
 * tight_bounds), not only |a_i| < rho. U52 (and S64 while the context is
 * built, before the kernel exists): the representation of a phi itself. */
mns_status mns_pmns_mp_set_mpz_var(const mns_pmns_mp *c, uint64_t *r, const mpz_t a)
{
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, a, c->p);
    mpz_mul_2exp(t, t, mns_pmns_params_phi_log2(c->P) * (c->unit ? 2 : 1)); /* Montgomery */
    mpz_mod(t, t, c->p);
    mns_status st;
    if (c->unit) {
        uint64_t *y = malloc(c->limbs * sizeof *y);
        st = y ? mns_pmns_mp_represent(c, y, t) : mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        if (st == MNS_OK)
            c->mul(c, r, y, c->unit);
        free(y);
    } else
        st = mns_pmns_mp_represent(c, r, t);
    mpz_clear(t);
    return st;
}

void mns_pmns_mp_get_mpz_var(const mns_pmns_mp *c, mpz_t r, const uint64_t *a)
{
    mpz_t v;
    mpz_init(v);
    mpz_set_ui(r, 0);
    for (int i = c->n - 1; i >= 0; i--) { /* Horner in gamma */
        mpz_mul(r, r, c->gamma);
        mns_pmns_mp_coef_value(v, c, a, i);
        mpz_add(r, r, v);
        mpz_mod(r, r, c->p);
    }
    mpz_mul(r, r, c->phi_inv);
    mpz_mod(r, r, c->p);
    mpz_clear(v);
}

/* ---- arithmetic ------------------------------------------------------------ */

void mns_pmns_mp_mul(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    c->mul(c, r, a, b);
}

void mns_pmns_mp_sqr(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a) { c->sqr(c, r, a); }

/* Carry-free: the digit bounds of loose elements were checked at creation. */
void mns_pmns_mp_add(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    for (size_t i = 0; i < c->limbs; i++)
        r[i] = a[i] + b[i];
}

void mns_pmns_mp_sub(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    if (c->u52) /* unsigned digits: a + Z - b, Z's digits dominate b's */
        for (size_t i = 0; i < c->limbs; i++)
            r[i] = a[i] + (c->zero_z[i] - b[i]);
    else
        for (size_t i = 0; i < c->limbs; i++)
            r[i] = a[i] - b[i];
}

/* a * (phi mod p) * phi^-1 = a, through the Montgomery closure with a tight
 * second operand (checked at creation for the loosest operand). */
void mns_pmns_mp_reduce(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a)
{
    c->mul(c, r, a, c->one);
}
