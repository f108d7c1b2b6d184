/* The `mont` backend: context, conversions, add/sub, kernel choice. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/ct.h"
#include "core/inverse.h"
#include "core/kernel.h"
#include "core/error.h"
#include "core/tmp.h"
#include "core/words.h"
#include "mont/mont.h"

typedef unsigned __int128 u128;

static void mont_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_mont_ctx *c = ctx;
    c->mul(c, r, a, b);
}

static void mont_sqr(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_mont_ctx *c = ctx;
    c->sqr(c, r, a);
}

/* k squarings: the kernel's own loop where it has one (registers kept
 * between squarings), else k calls */
static void mont_sqr_k(const void *ctx, uint64_t *r, const uint64_t *a, unsigned k)
{
    const mns_mont_ctx *c = ctx;
    if (c->sqrk) {
        c->sqrk(c, r, a, k);
        return;
    }
    c->sqr(c, r, a);
    for (unsigned i = 1; i < k; i++)
        c->sqr(c, r, r);
}

static void mont_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_mont_ctx *c = ctx;
    uint64_t carry = 0;
    for (size_t i = 0; i < c->n; i++) {
        u128 s = (u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    mns_mont_final_sub(c, r, r, carry);
}

static void mont_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_mont_ctx *c = ctx;
    uint64_t borrow = 0;
    for (size_t i = 0; i < c->n; i++) {
        u128 d = (u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    /* a - b < 0: add p back, masked */
    uint64_t mask = mns_ct_mask_bit(borrow), carry = 0;
    for (size_t i = 0; i < c->n; i++) {
        u128 s = (u128)r[i] + (c->p[i] & mask) + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
}

static void mont_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    /* elements are always tight; one masked subtraction also brings any
     * n-word value below 2p back under p */
    const mns_mont_ctx *c = ctx;
    mns_mont_final_sub(c, r, a, 0);
}

static void mont_one(const void *ctx, uint64_t *r)
{
    const mns_mont_ctx *c = ctx;
    memcpy(r, c->one, c->n * sizeof(uint64_t));
}

static mns_status mont_set_mpz(const void *ctx, uint64_t *r, const mpz_t a)
{
    const mns_mont_ctx *c = ctx;
    mpz_t t, p;
    mpz_init(t);
    mpz_roinit_n(p, (const mp_limb_t *)c->p, (mp_size_t)c->n);
    mpz_mod(t, a, p);
    mpz_mul_2exp(t, t, 64 * c->n);
    mpz_mod(t, t, p);
    mns_words_from_mpz(r, c->n, t);
    mpz_clear(t);
    return MNS_OK;
}

static void mont_get_mpz(const void *ctx, mpz_t r, const uint64_t *a)
{
    const mns_mont_ctx *c = ctx;
    mns_tmp tmp;
    uint64_t *one = mns_tmp_get(&tmp, 2 * c->n);
    uint64_t *x = one + c->n;
    memset(one, 0, c->n * sizeof(uint64_t));
    one[0] = 1;
    c->mul(c, x, a, one); /* a R^-1, fully reduced */
    mns_words_to_mpz(r, x, c->n);
}

static void mont_destroy(void *ctx)
{
    mns_mont_ctx *c = ctx;
    if (!c)
        return;
    free(c->p);
    free(c->p_pad);
    free(c->one);
    free(c->r2);
    free(c);
}

static const mns_field_ops mont_ops = {
    .mul = mont_mul,
    .sqr = mont_sqr,
    .sqr_k = mont_sqr_k,
    .add = mont_add,
    .sub = mont_sub,
    .reduce = mont_reduce,
    .one = mont_one,
    .set_mpz = mont_set_mpz,
    .get_mpz = mont_get_mpz,
    .powm = NULL, /* the shared fixed-window exponentiation */
    .set_words = mns_mont_set_words,
    .get_words = mns_mont_get_words,
    .destroy = mont_destroy,
};

static const char *const mont_options[] = {"kernel", NULL};

/* The kernels, in order of preference (core/kernel.h; thresholds in
 * mont/mparam.h). Below MNS_MONT_ADX_MIN_WORDS
 * on CPUs with BMI2 and ADX the fixed-size mulx kernels (mont_mulx.c), up to
 * MNS_MONT_FIXED_MAX words elsewhere the unrolled portable one
 * (mont_fixed.c), from MNS_MONT_ADX_MIN_WORDS the adx kernel (four and
 * eight rows per pass with mulx, mont_adx_mul.c, mont_adx.c), else the
 * kernel over GMP's constant-time mpn primitives (its own assembly,
 * dispatched on the CPU); the portable schoolbook kernel under
 * MNS_CPU=generic. kernel=fixed-adx still takes 16 words when asked. */
enum { K_FIXED_ADX, K_FIXED, K_ADX, K_MPN, K_GENERIC };
#define ADX_FEATURES (MNS_CPU_BMI2 | MNS_CPU_ADX)
static const mns_kernel_desc mont_kernels[] = {
    [K_FIXED_ADX] = {"fixed-adx", ADX_FEATURES, MNS_MONT_MULX_MIN, MNS_MONT_MULX_MAX,
                     MNS_MONT_MULX_MIN, MNS_MONT_ADX_MIN_WORDS - 1, 1, 0},
    [K_FIXED] = {"fixed", 0, 1, MNS_MONT_FIXED_MAX, 1, MNS_MONT_FIXED_MAX, 2, 0},
    [K_ADX] = {"adx", ADX_FEATURES, 1, 0, MNS_MONT_ADX_MIN_WORDS, 0, 3, 0},
    [K_MPN] = {"gmp-mpn", 0, 1, 0, 1, 0, 4, 0},
    [K_GENERIC] = {"generic", 0, 1, 0, MNS_KERNEL_NEVER, 8, MNS_KERNEL_TWIN},
};

/* The features an explicit kernel= may use: the CPU's own, whatever
 * MNS_CPU says. MNS_MONT_ASSUME_ADX=1 vouches that the CPU runs ADX although
 * CPUID hides it: valgrind 3.19 executes adcx/adox but clears the ADX bit,
 * and the constant-time test runs the adx kernel under it that way. */
static unsigned explicit_features(void)
{
    unsigned f = mns_cpu_features_raw();
    const char *assume = getenv("MNS_MONT_ASSUME_ADX");
    if (assume && strcmp(assume, "1") == 0 && (f & MNS_CPU_BMI2))
        f |= MNS_CPU_ADX;
    return f;
}

static void mont_set_kernel(mns_mont_ctx *c, int k)
{
    c->kernel = mont_kernels[k].name;
    switch (k) {
    case K_FIXED_ADX:
        (void)mns_mont_mulx_kernels(c->n, &c->mul, &c->sqr);
        c->sqrk = mns_mont_mulx_sqrk(c->n);
        break;
    case K_FIXED: mns_mont_fixed_kernels(c->n, &c->mul, &c->sqr); break;
    case K_ADX:
        c->mul = mns_mont_mul_adx;
        c->sqr = mns_mont_sqr_adx;
        break;
    case K_MPN:
        c->mul = mns_mont_mul_mpn;
        c->sqr = mns_mont_sqr_mpn;
        break;
    default:
        c->mul = mns_mont_mul_generic;
        c->sqr = mns_mont_sqr_generic;
        break;
    }
}

/* one, R mod p, R^2 mod p and -p^-1 mod 2^256 of a context whose p is set */
static void mont_constants(mns_mont_ctx *c, const mpz_t p)
{
    mns_words_from_mpz(c->p, c->n, p);
    memcpy(c->p_pad, c->p, c->n * sizeof(uint64_t));
    c->pinv = mns_neg_inverse_word(c->p[0]);
    mpz_t t, b4;
    mpz_inits(t, b4, NULL);
    /* -p^-1 mod 2^256 (p is odd, so the inverse exists) */
    mpz_set_ui(b4, 1);
    mpz_mul_2exp(b4, b4, 256);
    mpz_invert(t, p, b4);
    mpz_sub(t, b4, t);
    mpz_fdiv_r_2exp(t, t, 256);
    memset(c->pinv4, 0, sizeof c->pinv4);
    mpz_export(c->pinv4, NULL, -1, sizeof(uint64_t), 0, 0, t);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 64 * c->n);
    mpz_mod(t, t, p);
    mns_words_from_mpz(c->one, c->n, t);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 128 * c->n);
    mpz_mod(t, t, p);
    mns_words_from_mpz(c->r2, c->n, t);
    mpz_clears(t, b4, NULL);
}

static mns_status mont_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    mns_status st = mns_opts_check(opts, "mont", mont_options);
    if (st != MNS_OK)
        return st;
    const size_t n = mpz_size(p);
    mns_mont_mul_fn mx_mul;
    mns_mont_sqr_fn mx_sqr;
    /* the mulx kernels exist in x86-64 ELF builds only */
    const unsigned long have =
        ~0ul & ~(mns_mont_mulx_kernels(MNS_MONT_MULX_MIN, &mx_mul, &mx_sqr) ? 0ul : 1ul << K_FIXED_ADX);
    const int k = mns_kernel_choose("mont", mont_kernels, sizeof mont_kernels / sizeof mont_kernels[0],
                                    mns_opts_get(opts, "kernel"), n, have, explicit_features(), &st);
    if (k < 0)
        return st;
    /* the kernels' scratch (the mpn and adx kernels need the most) and
     * get_mpz's 2n words, on the stack of each call */
    const size_t itch = mns_mont_mpn_scratch(n);
    if ((st = mns_scratch_check("mont", itch > 2 * n ? itch : 2 * n)) != MNS_OK)
        return st;

    mns_mont_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return mns_error(MNS_ENOMEM, "mont: out of memory");
    c->n = n;
    c->n_pad = c->n < 8 ? 8 : (c->n + 3) / 4 * 4;
    c->p = calloc(c->n, sizeof(uint64_t));
    c->p_pad = calloc(c->n_pad, sizeof(uint64_t));
    c->one = calloc(c->n, sizeof(uint64_t));
    c->r2 = calloc(c->n, sizeof(uint64_t));
    if (!c->p || !c->p_pad || !c->one || !c->r2) {
        mont_destroy(c);
        return mns_error(MNS_ENOMEM, "mont: out of memory");
    }
    mont_constants(c, p);
    c->mpn_scratch = itch;
    mont_set_kernel(c, k);

    out->ctx = c;
    out->ops = &mont_ops;
    out->limbs = c->n;
    out->delta = INT_MAX;
    snprintf(out->describe, sizeof out->describe, "mont kernel=%s limbs=%zu bits=%zu", c->kernel,
             c->n, mpz_sizeinbase(p, 2));
    return MNS_OK;
}

const mns_backend mns_backend_mont = {"mont", mont_create};
