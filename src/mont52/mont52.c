/* The `mont-ifma` backend: Montgomery arithmetic in radix 2^52 (amm52.h) --
 * context, conversions, add / sub, the way in and out for RSA-CRT, and the
 * kernel choice.
 *
 * Spec: "mont-ifma", option kernel=ifma|generic. "generic" runs the portable
 * twin on the same digits (any CPU); the default IFMA kernel answers
 * MNS_ENOTSUP where the CPU lacks IFMA or MNS_CPU=generic, as rns-ifma
 * does. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/ct.h"
#include "core/inverse.h"
#include "core/error.h"
#include "field/field_internal.h"
#include "core/kernel.h"
#include "mont52/amm52.h"
#include "mont52/digits.h"

static const uint64_t M52 = MNS_AMM52_MASK;

/* The backend's context: the kernels' one first, so that the field's ctx
 * pointer is also an mns_amm52_ctx pointer (tests reach the kernels through
 * it), then p as an integer for the variable-time conversions. */
typedef struct {
    mns_amm52_ctx amm;
    mpz_t p;
} m52_ctx;

static size_t limbs_of(const mns_amm52_ctx *c)
{
    return 8 * c->nv;
}

/* digits of a non-negative a < 2^(52 m) (variable time: set_mpz and setup) */
static void digits_of_mpz(const mns_amm52_ctx *c, uint64_t *r, const mpz_t a)
{
    mpz_t t;
    mpz_init_set(t, a);
    for (size_t j = 0; j < limbs_of(c); j++) {
        r[j] = j < c->m ? mpz_getlimbn(t, 0) & M52 : 0;
        mpz_fdiv_q_2exp(t, t, 52);
    }
    mpz_clear(t);
}

static void mpz_of_digits(const mns_amm52_ctx *c, mpz_t r, const uint64_t *a)
{
    mpz_set_ui(r, 0);
    for (size_t j = c->m; j-- > 0;) {
        mpz_mul_2exp(r, r, 52);
        mpz_add_ui(r, r, a[j]);
    }
}

static void digits_of_words(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a)
{
    mns_digits52_of_words(r, c->m, limbs_of(c), a, c->words);
}

static void words_of_digits(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a)
{
    mns_words_of_digits52(r, c->words, a, c->m);
}

/* r <- a - b over m digits; returns the borrow (1 if a < b) */
static uint64_t digits_sub(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a,
                           const uint64_t *b)
{
    uint64_t borrow = 0;
    for (size_t j = 0; j < c->m; j++) {
        uint64_t t = a[j] - b[j] - borrow;
        r[j] = t & M52;
        borrow = t >> 63;
    }
    return borrow;
}

/* r <- a, or a - s if a >= s (masked; r may alias a) */
static void sub_if_ge(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *s)
{
    uint64_t d[MNS_AMM52_MAX_DIGITS];
    uint64_t keep = mns_ct_mask_bit(digits_sub(c, d, a, s));
    for (size_t j = 0; j < c->m; j++)
        r[j] = (a[j] & keep) | (d[j] & ~keep);
}

static void m52_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_amm52_ctx *c = ctx;
    c->mul(c, r, a, b);
}

static void m52_sqr(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_amm52_ctx *c = ctx;
    c->mul(c, r, a, a);
}

static void m52_mul_x2(const void *ctx0, const void *ctx1, uint64_t *r0, const uint64_t *a0,
                       const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1)
{
    const mns_amm52_ctx *c0 = ctx0, *c1 = ctx1;
    c0->mul_x2(c0, c1, r0, a0, b0, r1, a1, b1);
}

static void m52_sqr_x2(const void *ctx0, const void *ctx1, uint64_t *r0, const uint64_t *a0,
                       uint64_t *r1, const uint64_t *a1)
{
    const mns_amm52_ctx *c0 = ctx0, *c1 = ctx1;
    c0->mul_x2(c0, c1, r0, a0, a0, r1, a1, a1);
}

/* r's words from digit m up to 8 nv: zero, as the representation has them
 * (the products read whole vectors of their first operand, padding
 * included); add and sub write them because r may be fresh memory */
static void zero_padding(const mns_amm52_ctx *c, uint64_t *r)
{
    for (size_t j = c->m; j < limbs_of(c); j++)
        r[j] = 0;
}

/* a + b < 4p; one masked subtraction of 2p brings it under 2p */
static void m52_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_amm52_ctx *c = ctx;
    uint64_t carry = 0;
    for (size_t j = 0; j < c->m; j++) {
        uint64_t s = a[j] + b[j] + carry;
        r[j] = s & M52;
        carry = s >> 52;
    }
    /* the sum fits m digits: 4p <= R */
    sub_if_ge(c, r, r, c->p2);
    zero_padding(c, r);
}

/* a - b > -2p; 2p added back, masked, when it is negative */
static void m52_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_amm52_ctx *c = ctx;
    uint64_t mask = mns_ct_mask_bit(digits_sub(c, r, a, b)), carry = 0;
    for (size_t j = 0; j < c->m; j++) {
        uint64_t s = r[j] + (c->p2[j] & mask) + carry;
        r[j] = s & M52;
        carry = s >> 52;
    }
    zero_padding(c, r);
}

static void m52_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    /* every element is tight already (add and sub keep it) */
    const mns_amm52_ctx *c = ctx;
    if (r != a)
        memcpy(r, a, limbs_of(c) * sizeof(uint64_t));
}

static void m52_one(const void *ctx, uint64_t *r)
{
    const mns_amm52_ctx *c = ctx;
    memcpy(r, c->one, limbs_of(c) * sizeof(uint64_t));
}

static mns_status m52_set_mpz(const void *ctx, uint64_t *r, const mpz_t a)
{
    const m52_ctx *w = ctx;
    const mns_amm52_ctx *c = &w->amm;
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, a, w->p);
    mpz_mul_2exp(t, t, 52 * c->m);
    mpz_mod(t, t, w->p);
    digits_of_mpz(c, r, t);
    mpz_clear(t);
    return MNS_OK;
}

static void m52_get_mpz(const void *ctx, mpz_t r, const uint64_t *a)
{
    const m52_ctx *w = ctx;
    const mns_amm52_ctx *c = &w->amm;
    uint64_t x[MNS_AMM52_MAX_DIGITS];
    c->mul(c, x, a, c->unit); /* a R^-1 mod p, in [0, p] */
    mpz_of_digits(c, r, x);
    mpz_mod(r, r, w->p);
}

/* backend.h's set_words: r <- a R mod p = AMM(a, R^2 mod p), for a < p */
static void m52_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_amm52_ctx *c = ctx;
    uint64_t d[MNS_AMM52_MAX_DIGITS];
    digits_of_words(c, d, a);
    c->mul(c, r, d, c->r2);
}

/* backend.h's get_words: AMM(a, 1) = a R^-1 mod p or p itself (see
 * amm52.h), then one masked subtraction of p */
static void m52_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_amm52_ctx *c = ctx;
    uint64_t x[MNS_AMM52_MAX_DIGITS];
    c->mul(c, x, a, c->unit);
    sub_if_ge(c, x, x, c->p);
    words_of_digits(c, r, x);
}

static void m52_destroy(void *ctx)
{
    m52_ctx *w = ctx;
    if (!w)
        return;
    free(w->amm.p);
    mpz_clear(w->p);
    free(w);
}

static const mns_field_ops m52_ops = {
    .mul = m52_mul,
    .sqr = m52_sqr,
    .add = m52_add,
    .sub = m52_sub,
    .reduce = m52_reduce,
    .one = m52_one,
    .set_mpz = m52_set_mpz,
    .get_mpz = m52_get_mpz,
    .powm = NULL, /* the shared fixed-window exponentiation */
    .set_words = m52_set_words,
    .get_words = m52_get_words,
    .mul_x2 = m52_mul_x2,
    .sqr_x2 = m52_sqr_x2,
    .destroy = m52_destroy,
};

static const char *const m52_options[] = {"kernel", NULL};


static mns_status m52_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    mns_status st = mns_opts_check(opts, "mont-ifma", m52_options);
    if (st != MNS_OK)
        return st;
    const int k = mns_kernel_choose_ifma("mont-ifma", 1, mns_opts_get(opts, "kernel"), &st);
    if (k < 0)
        return st;
    const int generic = k == 0;
    size_t bits = mpz_sizeinbase(p, 2), m = (bits + 2 + 51) / 52;
    if (m > MNS_AMM52_MAX_DIGITS)
        return mns_error(MNS_ENOTSUP, "mont-ifma: %zu-bit prime above the %d-bit limit", bits,
                         52 * MNS_AMM52_MAX_DIGITS - 2);

    m52_ctx *w = calloc(1, sizeof *w);
    if (!w)
        return mns_error(MNS_ENOMEM, "mont-ifma: out of memory");
    mns_amm52_ctx *c = &w->amm;
    c->m = m;
    c->nv = (m + 7) / 8;
    c->words = mpz_size(p);
    size_t L = limbs_of(c);
    /* one block, 64-byte aligned rows: p and a zero vector (the kernel reads
     * p shifted down one digit, p + 1, as whole vectors), 2p, one, r2,
     * unit */
    c->p = aligned_alloc(64, (5 * L + 8) * sizeof(uint64_t));
    if (!c->p) {
        free(w);
        return mns_error(MNS_ENOMEM, "mont-ifma: out of memory");
    }
    memset(c->p, 0, (5 * L + 8) * sizeof(uint64_t));
    c->p2 = c->p + L + 8;
    c->one = c->p2 + L;
    c->r2 = c->one + L;
    c->unit = c->r2 + L;

    mpz_t t;
    mpz_init(t);
    digits_of_mpz(c, c->p, p);
    mpz_mul_2exp(t, p, 1);
    digits_of_mpz(c, c->p2, t);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 52 * m);
    mpz_mod(t, t, p);
    digits_of_mpz(c, c->one, t);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 104 * m);
    mpz_mod(t, t, p);
    digits_of_mpz(c, c->r2, t);
    mpz_set_ui(t, 1);
    digits_of_mpz(c, c->unit, t);
    /* k0 = -p^-1 mod 2^52: the word inverse, reduced (2^52 divides 2^64) */
    c->k0 = mns_neg_inverse_word(mpz_getlimbn(p, 0)) & M52;
    mpz_clear(t);
    mpz_init_set(w->p, p);

    if (generic) {
        c->mul = mns_amm52_mul_generic;
        c->mul_x2 = mns_amm52_mul_x2_generic;
        c->kernel = "generic";
    } else {
        c->mul = mns_amm52_mul_ifma;
        c->mul_x2 = mns_amm52_mul_x2_ifma;
        c->kernel = "ifma";
    }
    out->ctx = w;
    out->ops = &m52_ops;
    out->limbs = L;
    out->delta = INT_MAX;
    snprintf(out->describe, sizeof out->describe, "mont-ifma kernel=%s digits=%zu vectors=%zu bits=%zu",
             c->kernel, c->m, c->nv, bits);
    return MNS_OK;
}

int mns_mont52_is(const mns_backend_inst *inst) { return inst->ops == &m52_ops; }

const mns_backend mns_backend_mont_ifma = {"mont-ifma", m52_create};
