/* The `mont` backend: context, conversions, add/sub, kernel choice. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/ct.h"
#include "core/inverse.h"
#include "core/error.h"
#include "core/tmp.h"
#include "mont/mont.h"

typedef unsigned __int128 u128;

static void export_words(uint64_t *r, size_t n, const mpz_t a)
{
    size_t count = 0;
    memset(r, 0, n * sizeof(uint64_t));
    mpz_export(r, &count, -1, sizeof(uint64_t), 0, 0, a);
}

static void import_words(mpz_t r, const uint64_t *a, size_t n)
{
    mpz_import(r, n, -1, sizeof(uint64_t), 0, 0, a);
}

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
    export_words(r, c->n, t);
    mpz_clear(t);
    return MNS_OK;
}

static void mont_get_mpz(const void *ctx, mpz_t r, const uint64_t *a)
{
    const mns_mont_ctx *c = ctx;
    mns_tmp tmp;
    uint64_t *one = mns_tmp_get(&tmp, 2 * c->n);
    if (!one) {
        mpz_set_ui(r, 0);
        mns_error(MNS_ENOMEM, "mont: get_mpz out of memory");
        return;
    }
    uint64_t *x = one + c->n;
    memset(one, 0, c->n * sizeof(uint64_t));
    one[0] = 1;
    c->mul(c, x, a, one); /* a R^-1, fully reduced */
    import_words(r, x, c->n);
    mns_tmp_release(&tmp);
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

static mns_status mont_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    mns_status st = mns_opts_check(opts, "mont", mont_options);
    if (st != MNS_OK)
        return st;
    const char *want = mns_opts_get(opts, "kernel");
    if (want && strcmp(want, "generic") != 0 && strcmp(want, "gmp-mpn") != 0 &&
        strcmp(want, "adx") != 0 && strcmp(want, "fixed") != 0 && strcmp(want, "fixed-adx") != 0)
        return mns_error(MNS_EINVAL,
                         "mont: unknown kernel \"%s\" (generic, gmp-mpn, adx, fixed, fixed-adx)",
                         want);
    if (want && strcmp(want, "fixed") == 0 && mpz_size(p) > MNS_MONT_FIXED_MAX)
        return mns_error(MNS_ENOTSUP, "mont: kernel fixed takes p of at most %d words",
                         MNS_MONT_FIXED_MAX);
    mns_mont_mul_fn mx_mul;
    mns_mont_sqr_fn mx_sqr;
    const int mx_size = mns_mont_mulx_kernels(mpz_size(p), &mx_mul, &mx_sqr);
    if (want && strcmp(want, "fixed-adx") == 0 && !mx_size)
        return mns_error(MNS_ENOTSUP,
                         "mont: kernel fixed-adx takes p of %d to %d words (x86-64 ELF builds)",
                         MNS_MONT_MULX_MIN, MNS_MONT_MULX_MAX);
    const unsigned adx = MNS_CPU_BMI2 | MNS_CPU_ADX;
    /* MNS_MONT_ASSUME_ADX=1 vouches that the CPU runs ADX although CPUID
     * hides it: valgrind 3.19 executes adcx/adox but clears the ADX bit, and
     * the constant-time test runs the adx kernel under it that way. */
    const char *assume = getenv("MNS_MONT_ASSUME_ADX");
    int has_adx = (mns_cpu_features_raw() & adx) == adx ||
                  (assume && strcmp(assume, "1") == 0 && (mns_cpu_features_raw() & MNS_CPU_BMI2));
    if (want && (strcmp(want, "adx") == 0 || strcmp(want, "fixed-adx") == 0) && !has_adx)
        return mns_error(MNS_ENOTSUP, "mont: kernel %s needs a CPU with BMI2 and ADX", want);

    mns_mont_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return mns_error(MNS_ENOMEM, "mont: out of memory");
    c->n = mpz_size(p);
    c->n_pad = c->n < 8 ? 8 : (c->n + 3) / 4 * 4;
    c->p = calloc(c->n, sizeof(uint64_t));
    c->p_pad = calloc(c->n_pad, sizeof(uint64_t));
    c->one = calloc(c->n, sizeof(uint64_t));
    c->r2 = calloc(c->n, sizeof(uint64_t));
    if (!c->p || !c->p_pad || !c->one || !c->r2) {
        mont_destroy(c);
        return mns_error(MNS_ENOMEM, "mont: out of memory");
    }
    export_words(c->p, c->n, p);
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
    export_words(c->one, c->n, t);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 128 * c->n);
    mpz_mod(t, t, p);
    export_words(c->r2, c->n, t);
    mpz_clears(t, b4, NULL);

    /* Kernel choice. The portable C kernel under MNS_CPU=generic (so tests
     * compare the paths); otherwise the mpn kernel (GMP's assembly, itself
     * dispatched on the CPU; 2.2x the C kernel at 2048 bits), and from
     * MNS_MONT_ADX_MIN_WORDS words on CPUs with BMI2 and ADX the adx kernel,
     * whose products and REDC add four rows at a time with mulx
     * (mont_adx_mul.c, mont_adx.c): TSC ticks per squaring / product on the
     * Zen 3 (one process, session 27) 948/1088 against the mpn kernel's
     * 1121/1348 at 17 words, 1191/1360 vs 1438/1776 at 20, 1602/1856 vs
     * 2025/2531 at 24, 2615/3287 vs 3473/4191 at 32.
     * Up to MNS_MONT_FIXED_MAX words the unrolled fixed-size kernel
     * (mont_fixed.c): against the mpn kernel, TSC ticks per squaring /
     * product on a Zen 3 (one process, session 22): 16/20 vs 53/56 at 64
     * bits, 74/74 vs 117/122 at 256, 136/144 vs 195/207 at 384, 224/241 vs
     * 275/307 at 512, 277/306 vs 314/348 at 576; at 640 bits its product
     * was already slower (432 vs 420: the sum no longer fits the registers).
     * From 2 words to below MNS_MONT_ADX_MIN_WORDS on CPUs with BMI2 and
     * ADX, the fixed-size mulx kernel (mont_mulx.c) instead: on the Zen 3, one process (mns-bench,
     * session 23), ticks per product / squaring 49/62 against fixed's 74/86
     * at 256 bits, 111/111 vs 160/147 at 384, 172/160 vs 245/221 at 512,
     * 196/172 vs 343/294 at 576 (at 128 bits a tie); products of 269 /
     * 318 / 343 ticks at 640 / 704 / 768 bits (mns-tune), where the mpn
     * kernel took about 1.7x that. One word keeps the fixed kernel. At 16
     * words the adx kernel again (mont.h, MNS_MONT_ADX_MIN_WORDS: the fixed
     * pair no longer fits the instruction cache together). */
    c->mpn_scratch = mns_mont_mpn_scratch(c->n);
    const char *kernel = want                                         ? want
                         : mns_cpu_features() == 0                    ? "generic"
                         : (mns_cpu_features() & adx) == adx && mx_size &&
                                   c->n < MNS_MONT_ADX_MIN_WORDS ? "fixed-adx"
                         : c->n <= MNS_MONT_FIXED_MAX                 ? "fixed"
                         : (mns_cpu_features() & adx) == adx &&
                                   c->n >= MNS_MONT_ADX_MIN_WORDS ? "adx"
                                                                      : "gmp-mpn";
    if (strcmp(kernel, "generic") == 0) {
        c->mul = mns_mont_mul_generic;
        c->sqr = mns_mont_sqr_generic;
        c->kernel = "generic";
    } else if (strcmp(kernel, "fixed") == 0) {
        mns_mont_fixed_kernels(c->n, &c->mul, &c->sqr);
        c->kernel = "fixed";
    } else if (strcmp(kernel, "fixed-adx") == 0) {
        c->mul = mx_mul;
        c->sqr = mx_sqr;
        c->sqrk = mns_mont_mulx_sqrk(c->n);
        c->kernel = "fixed-adx";
    } else if (strcmp(kernel, "adx") == 0) {
        c->mul = mns_mont_mul_adx;
        c->sqr = mns_mont_sqr_adx;
        c->kernel = "adx";
    } else {
        c->mul = mns_mont_mul_mpn;
        c->sqr = mns_mont_sqr_mpn;
        c->kernel = "gmp-mpn";
    }

    out->ctx = c;
    out->ops = &mont_ops;
    out->limbs = c->n;
    out->delta = INT_MAX;
    snprintf(out->describe, sizeof out->describe, "mont kernel=%s limbs=%zu bits=%zu", c->kernel,
             c->n, mpz_sizeinbase(p, 2));
    return MNS_OK;
}

const mns_backend mns_backend_mont = {"mont", mont_create};
