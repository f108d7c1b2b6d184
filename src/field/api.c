/* The constants of the constant-time element API, built once per field at
 * creation (public values only, so GMP's mpz layer is fine here): the tight
 * elements of 0, 1 and p - 1, p's size, and the exponents and Tonelli-Shanks
 * data of the square root. Also the scratch budget of the API's calls. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "field/field_impl.h"
#include "field/field_internal.h"
#include "field/safegcd.h"

/* Tonelli-Shanks data for p = 1 mod 8: p - 1 = 2^s q, and c = z^q for the
 * smallest z with Jacobi symbol -1 (a non-residue when p is prime). A square
 * p has no such z: ts_c stays NULL and sqrt answers MNS_ENOTSUP. */
static mns_status ts_init(mns_field_api *a, const mpz_t p)
{
    mpz_t q, z, c;
    mpz_inits(q, z, c, NULL);
    mpz_sub_ui(q, p, 1);
    a->ts_s = (unsigned)mpz_scan1(q, 0);
    mpz_fdiv_q_2exp(q, q, a->ts_s);
    mpz_sub_ui(a->e_sqrt, q, 1);
    mpz_fdiv_q_2exp(a->e_sqrt, a->e_sqrt, 1);
    mns_status st = MNS_OK;
    for (unsigned long k = 2; k < 100000; k++) {
        mpz_set_ui(z, k);
        if (mpz_jacobi(z, p) != -1)
            continue;
        mpz_powm(c, z, q, p);
        a->ts_c = mns_alloc64_words_zero(a->pn);
        if (!a->ts_c)
            st = mns_error(MNS_ENOMEM, "mns_field_new: out of memory");
        else
            mpz_export(a->ts_c, NULL, -1, sizeof(uint64_t), 0, 0, c);
        break;
    }
    mpz_clears(q, z, c, NULL);
    return st;
}

static mns_status sqrt_init(mns_field *f, int sqrt_data)
{
    mns_field_api *a = &f->api;
    a->pmod8 = (unsigned)mpz_fdiv_ui(f->p, 8);
    mpz_sub_ui(a->e_half, f->p, 1);
    mpz_fdiv_q_2exp(a->e_half, a->e_half, 1);
    if (a->pmod8 % 4 == 3) { /* r = a^((p + 1) / 4) */
        mpz_add_ui(a->e_sqrt, f->p, 1);
        mpz_fdiv_q_2exp(a->e_sqrt, a->e_sqrt, 2);
        return MNS_OK;
    }
    if (a->pmod8 == 5) { /* Atkin: b = (2a)^((p - 5) / 8) */
        mpz_sub_ui(a->e_sqrt, f->p, 5);
        mpz_fdiv_q_2exp(a->e_sqrt, a->e_sqrt, 3);
        return MNS_OK;
    }
    if (!sqrt_data) { /* a field that never takes a square root */
        a->ts_none = 1;
        return MNS_OK;
    }
    return ts_init(a, f->p);
}

static mns_status element(const mns_field *f, uint64_t **r, long v)
{
    *r = mns_alloc64_words_zero(f->inst.limbs);
    if (!*r)
        return mns_error(MNS_ENOMEM, "mns_field_new: out of memory");
    mpz_t t;
    mpz_init_set_si(t, v);
    mns_status st = f->inst.ops->set_mpz(f->ctx, *r, t);
    mpz_clear(t);
    return st;
}

size_t mns_field_api_powm_words(const mns_field *f)
{
    return mns_field_powm_scratch_words(f, f->api.pbits);
}

/* The largest block any call of the API takes (each file's own budget:
 * bytes.c, select.c, inv.c, sqrt.c; powm_var.c fits its window to what is
 * left). */
static size_t api_words(const mns_field *f)
{
    const size_t L = f->inst.limbs, n = f->api.pn;
    const size_t bytes = 2 * n + (size_t)mpn_sec_div_r_itch((mp_size_t)(2 * n), (mp_size_t)n);
    const size_t eq = 2 * L + 2 * n;
    const size_t sqrt = mns_field_api_powm_words(f) + 6 * L + 2 * n;
    const size_t pv = 4 * L;
    size_t m = bytes > eq ? bytes : eq;
    m = m > sqrt ? m : sqrt;
    return m > pv ? m : pv;
}

mns_status mns_field_api_init(mns_field *f, int sqrt_data)
{
    mns_field_api *a = &f->api;
    memset(a, 0, sizeof *a);
    mpz_inits(a->e_sqrt, a->e_half, NULL);
    a->pn = mpz_size(f->p);
    a->pbits = mpz_sizeinbase(f->p, 2);
    a->pbytes = (a->pbits + 7) / 8;
    a->pw = mpz_limbs_read(f->p);
    mns_status st;
    if ((st = element(f, &a->zero, 0)) != MNS_OK || (st = element(f, &a->one, 1)) != MNS_OK ||
        (st = element(f, &a->minus_one, -1)) != MNS_OK || (st = sqrt_init(f, sqrt_data)) != MNS_OK)
        return st;
    a->ok = f->inst.ops->set_words && f->inst.ops->get_words &&
            api_words(f) <= MNS_FIELD_API_WORDS;
    return MNS_OK;
}

void mns_field_api_clear(mns_field *f)
{
    mns_field_api *a = &f->api;
    if (!a->pw)
        return; /* never built */
    free(a->zero);
    free(a->one);
    free(a->minus_one);
    free(a->ts_c);
    mpz_clears(a->e_sqrt, a->e_half, NULL);
    memset(a, 0, sizeof *a);
}

mns_status mns_field_api_check(const mns_field *f, const char *who)
{
    if (!f)
        return mns_error(MNS_EINVAL, "%s: NULL field", who);
    if (!f->api.ok)
        return mns_error(MNS_ENOTSUP, "%s: elements of %zu words exceed the %d-word stack block",
                         who, f->inst.limbs, MNS_FIELD_API_WORDS);
    return MNS_OK;
}

void mns_field_canon(const mns_field *f, uint64_t *r, const uint64_t *a, uint64_t *t)
{
    f->inst.ops->reduce(f->ctx, t, a);
    f->inst.ops->get_words(f->ctx, r, t);
}
