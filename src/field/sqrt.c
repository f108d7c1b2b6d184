/* Constant-time square roots and the Legendre symbol.
 *
 *   p = 3 mod 4: r = a^((p + 1) / 4);
 *   p = 5 mod 8: Atkin, b = (2a)^((p - 5) / 8), i = 2a b^2, r = a b (i - 1);
 *   p = 1 mod 8: Tonelli-Shanks with a fixed number of steps (RFC 9380,
 *                appendix I.4): every one of the s - 1 rounds squares its
 *                full count and both candidates are computed and selected by
 *                mask, so the time depends on p only.
 * Each candidate is checked, r^2 = a, in constant time; the outcome (a
 * square or not) is the status, the one public bit. The candidates are only
 * right for a prime p: on a composite modulus the check still guarantees
 * that an MNS_OK root is a root. Legendre is Euler's criterion, a^((p-1)/2).
 *
 * Scratch: the exponentiation's block, then the elements, all in one stack
 * block of the size fixed at field creation (field_impl.h). */
#include <string.h>

#include "core/ct.h"
#include "core/ct_words.h"
#include "core/error.h"
#include "field/field_impl.h"
#include "field/field_internal.h"

typedef struct sq {
    const mns_field *f;
    size_t L;
    uint64_t *pw;             /* powm scratch */
    uint64_t *x, *z, *t, *b, *c, *u; /* elements */
    uint64_t *eq;             /* mns_field_eq_in scratch */
} sq;

static void sq_init(sq *s, const mns_field *f, uint64_t *blk)
{
    s->f = f;
    s->L = f->inst.limbs;
    s->pw = blk;
    uint64_t *e = blk + mns_field_api_powm_words(f);
    uint64_t **el[] = {&s->x, &s->z, &s->t, &s->b, &s->c, &s->u};
    for (size_t i = 0; i < 6; i++)
        *el[i] = e + i * s->L;
    s->eq = e + 6 * s->L;
}

static size_t sq_words(const sq *s)
{
    return (size_t)(s->eq - s->pw) + MNS_FIELD_EQ_WORDS(s->f);
}

/* z <- x^e for the fixed public exponent e */
static void sq_pow(const sq *s, uint64_t *z, const uint64_t *x, const mpz_t e)
{
    mns_field_powm_scratch(s->f, z, x, e, s->pw);
}

static void sqrt_3mod4(const sq *s) { sq_pow(s, s->z, s->x, s->f->api.e_sqrt); }

/* r <- (k x + d) mod p for k in {1, 2}, d in {0, -1}, through the canonical
 * words: the same on every backend whatever its delta (a tight sum or
 * difference may be more than reduce takes where delta is 0) */
static void sq_affine(const sq *s, uint64_t *r, const uint64_t *x, unsigned k, int dec)
{
    const mns_field *f = s->f;
    const size_t n = f->api.pn;
    uint64_t *w = s->eq, *t = s->eq + n;
    mns_field_canon(f, w, x, t);
    if (k == 2) { /* 2w < 2p: subtract p when the sum carried or is >= p */
        const uint64_t c = mpn_add_n((mp_ptr)w, (mp_srcptr)w, (mp_srcptr)w, (mp_size_t)n);
        const uint64_t ge = ~mns_ct_words_lt(w, f->api.pw, n);
        mpn_cnd_sub_n((c | ge) & 1, (mp_ptr)w, (mp_srcptr)w, (mp_srcptr)f->api.pw, (mp_size_t)n);
    }
    if (dec) { /* w - 1, plus p when it borrowed (w was 0) */
        uint64_t borrow = 1;
        for (size_t i = 0; i < n; i++) {
            const unsigned __int128 d = (unsigned __int128)w[i] - borrow;
            w[i] = (uint64_t)d;
            borrow = (uint64_t)(d >> 127);
        }
        mpn_cnd_add_n(borrow, (mp_ptr)w, (mp_srcptr)w, (mp_srcptr)f->api.pw, (mp_size_t)n);
    }
    f->inst.ops->set_words(f->ctx, r, w);
}

static void sqrt_5mod8(const sq *s)
{
    const mns_field *f = s->f;
    sq_affine(s, s->t, s->x, 2, 0);                 /* t = 2a */
    sq_pow(s, s->b, s->t, f->api.e_sqrt);
    f->sqr(f->ctx, s->c, s->b);
    f->mul(f->ctx, s->c, s->c, s->t);               /* i = 2a b^2 */
    sq_affine(s, s->c, s->c, 1, 1);                 /* i - 1 */
    f->mul(f->ctx, s->z, s->x, s->b);
    f->mul(f->ctx, s->z, s->z, s->c);
}

/* RFC 9380 I.4: z = x^((q+1)/2) t-corrected; the round for k multiplies by c
 * exactly when t^(2^(k-2)) != 1, chosen by mask */
static void sqrt_ts(const sq *s)
{
    const mns_field *f = s->f;
    sq_pow(s, s->z, s->x, f->api.e_sqrt);            /* z = x^((q-1)/2) */
    f->sqr(f->ctx, s->t, s->z);
    f->mul(f->ctx, s->t, s->t, s->x);                /* t = x^q */
    f->mul(f->ctx, s->z, s->z, s->x);                /* z = x^((q+1)/2) */
    f->inst.ops->set_words(f->ctx, s->c, f->api.ts_c);
    for (unsigned k = f->api.ts_s; k >= 2; k--) {
        memcpy(s->b, s->t, s->L * sizeof(uint64_t));
        for (unsigned i = 1; i + 2 <= k; i++)
            f->sqr(f->ctx, s->b, s->b);
        const uint64_t keep = mns_field_eq_in(f, s->b, f->api.one, s->eq);
        f->mul(f->ctx, s->u, s->z, s->c);
        mns_ct_cmov(s->z, s->u, s->L, ~keep);
        f->sqr(f->ctx, s->c, s->c);
        f->mul(f->ctx, s->u, s->t, s->c);
        mns_ct_cmov(s->t, s->u, s->L, ~keep);
    }
}

mns_status mns_field_sqrt(const mns_field *f, uint64_t *r, const uint64_t *a)
{
    mns_status st = mns_field_api_check(f, "mns_field_sqrt");
    if (st != MNS_OK)
        return st;
    if (!r || !a)
        return mns_error(MNS_EINVAL, "mns_field_sqrt: NULL argument");
    if (f->api.ts_none)
        return mns_error(MNS_ENOTSUP, "mns_field_sqrt: a library-internal field made without "
                                      "square-root data");
    if (f->api.pmod8 == 1 && !f->api.ts_c)
        return mns_error(MNS_ENOTSUP, "mns_field_sqrt: p is a square (no non-residue)");
    _Alignas(64) uint64_t blk[MNS_FIELD_API_WORDS];
    sq s;
    sq_init(&s, f, blk);
    f->inst.ops->reduce(f->ctx, s.x, a);
    if (f->api.pmod8 % 4 == 3)
        sqrt_3mod4(&s);
    else if (f->api.pmod8 == 5)
        sqrt_5mod8(&s);
    else
        sqrt_ts(&s);
    f->sqr(f->ctx, s.u, s.z);
    uint64_t ok = mns_field_eq_in(f, s.u, s.x, s.eq);
    mns_ct_cmov(s.z, f->api.zero, s.L, ~ok);
    memcpy(r, s.z, s.L * sizeof(uint64_t));
    explicit_bzero(blk, sq_words(&s) * sizeof(uint64_t));
    mns_ct_declassify(&ok, sizeof ok);
    return ok ? MNS_OK : mns_error(MNS_ERANGE, "mns_field_sqrt: not a square modulo p");
}

int mns_field_legendre(const mns_field *f, const uint64_t *a)
{
    if (mns_field_api_check(f, "mns_field_legendre") != MNS_OK || !a)
        return 0;
    _Alignas(64) uint64_t blk[MNS_FIELD_API_WORDS];
    sq s;
    sq_init(&s, f, blk);
    f->inst.ops->reduce(f->ctx, s.x, a);
    sq_pow(&s, s.z, s.x, f->api.e_half);
    const uint64_t zero = mns_field_eq_in(f, s.x, NULL, s.eq);
    const uint64_t one = mns_field_eq_in(f, s.z, f->api.one, s.eq);
    /* 0 for a = 0, 1 for a square, -1 otherwise: two masks, no branch */
    const uint64_t v = ~zero & ((one & 1) | (~one & ~(uint64_t)0));
    explicit_bzero(blk, sq_words(&s) * sizeof(uint64_t));
    return (int)(int64_t)v;
}
