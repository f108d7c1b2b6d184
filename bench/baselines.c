#include "baselines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>

/* ---- GMP, mpn layer ------------------------------------------------------ */

typedef struct gmp_state {
    mp_size_t n;
    mp_limb_t *p, *a, *b, *r, *t, *q; /* n, n, n, n, 2n, n + 1 limbs */
    mp_limb_t pinv;                   /* -p^-1 mod 2^64 */
    int mont;                         /* operands and result in Montgomery form */
    mpz_t zp, rinv;                   /* p, R^-1 mod p with R = 2^(64 n) */
} gmp_state;

/* x (in [0, p)) -> exactly n limbs, zero-padded. */
static void to_limbs(mp_limb_t *dst, mp_size_t n, const mpz_t x)
{
    size_t cnt = 0;
    memset(dst, 0, n * sizeof *dst);
    mpz_export(dst, &cnt, -1, sizeof *dst, 0, 0, x);
}

static void from_limbs(mpz_t dst, const mp_limb_t *src, mp_size_t n)
{
    mpz_import(dst, n, -1, sizeof *src, 0, 0, src);
}

/* Montgomery reduction in the manner of GMP's own redc_1, on public mpn
 * functions only: each step's carry word is parked in the word it has just
 * cleared and all of them are added once at the end. t (2n limbs, < p R) is
 * clobbered; r <- t R^-1 mod p. */
static void gmp_redc(const gmp_state *s, mp_limb_t *r, mp_limb_t *t)
{
    const mp_size_t n = s->n;
    for (mp_size_t i = 0; i < n; i++)
        t[i] = mpn_addmul_1(t + i, s->p, n, t[i] * s->pinv);
    mp_limb_t cy = mpn_add_n(r, t + n, t, n);
    if (cy || mpn_cmp(r, s->p, n) >= 0)
        mpn_sub_n(r, r, s->p, n);
}

static void gmp_mul_tdiv_call(void *arg)
{
    gmp_state *s = arg;
    mpn_mul_n(s->t, s->a, s->b, s->n);
    mpn_tdiv_qr(s->q, s->r, 0, s->t, 2 * s->n, s->p, s->n);
}

static void gmp_sqr_tdiv_call(void *arg)
{
    gmp_state *s = arg;
    mpn_sqr(s->t, s->a, s->n);
    mpn_tdiv_qr(s->q, s->r, 0, s->t, 2 * s->n, s->p, s->n);
}

static void gmp_mont_mul_call(void *arg)
{
    gmp_state *s = arg;
    mpn_mul_n(s->t, s->a, s->b, s->n);
    gmp_redc(s, s->r, s->t);
}

static void gmp_mont_sqr_call(void *arg)
{
    gmp_state *s = arg;
    mpn_sqr(s->t, s->a, s->n);
    gmp_redc(s, s->r, s->t);
}

static void gmp_load(void *arg, mb_op op, const mpz_t a, const mpz_t b, const mpz_t e)
{
    gmp_state *s = arg;
    (void)op;
    (void)e;
    if (s->mont) {
        mpz_t x;
        mpz_init(x);
        mpz_mul_2exp(x, a, 64 * s->n);
        mpz_mod(x, x, s->zp);
        to_limbs(s->a, s->n, x);
        mpz_mul_2exp(x, b, 64 * s->n);
        mpz_mod(x, x, s->zp);
        to_limbs(s->b, s->n, x);
        mpz_clear(x);
    } else {
        to_limbs(s->a, s->n, a);
        to_limbs(s->b, s->n, b);
    }
}

static void gmp_result(void *arg, mb_op op, mpz_t out)
{
    gmp_state *s = arg;
    (void)op;
    from_limbs(out, s->r, s->n);
    if (s->mont) {
        mpz_mul(out, out, s->rinv);
        mpz_mod(out, out, s->zp);
    }
}

static void gmp_destroy(void *arg)
{
    gmp_state *s = arg;
    free(s->p);
    mpz_clear(s->zp);
    mpz_clear(s->rinv);
    free(s);
}

static int gmp_new(mb_impl *out, const mpz_t p, int mont)
{
    gmp_state *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->n = (mp_size_t)((mpz_sizeinbase(p, 2) + 63) / 64);
    s->p = calloc(7 * (size_t)s->n + 1, sizeof(mp_limb_t));
    if (!s->p) {
        free(s);
        return -1;
    }
    s->a = s->p + s->n;
    s->b = s->a + s->n;
    s->r = s->b + s->n;
    s->t = s->r + s->n;
    s->q = s->t + 2 * s->n;
    to_limbs(s->p, s->n, p);
    mp_limb_t inv = s->p[0]; /* p0 * p0 = 1 mod 8: 3 bits, Newton doubles them */
    for (int i = 0; i < 5; i++)
        inv *= 2 - s->p[0] * inv;
    s->pinv = -inv;
    s->mont = mont;
    mpz_init_set(s->zp, p);
    mpz_init_set_ui(s->rinv, 1);
    mpz_mul_2exp(s->rinv, s->rinv, 64 * s->n);
    mpz_invert(s->rinv, s->rinv, p);

    memset(out, 0, sizeof *out);
    out->kind = MB_KIND_GMP;
    out->state = s;
    out->load = gmp_load;
    out->result = gmp_result;
    out->destroy = gmp_destroy;
    if (mont) {
        snprintf(out->name, sizeof out->name, "gmp-mont");
        snprintf(out->describe, sizeof out->describe,
                 "mpn_mul_n/mpn_sqr + REDC (mpn_addmul_1 x %ld, mpn_add_n, mpn_sub_n)",
                 (long)s->n);
        out->call[MB_MODMUL] = gmp_mont_mul_call;
        out->call[MB_MODSQR] = gmp_mont_sqr_call;
    } else {
        snprintf(out->name, sizeof out->name, "gmp-mul-tdiv");
        snprintf(out->describe, sizeof out->describe, "mpn_mul_n/mpn_sqr + mpn_tdiv_qr");
        out->call[MB_MODMUL] = gmp_mul_tdiv_call;
        out->call[MB_MODSQR] = gmp_sqr_tdiv_call;
    }
    return 0;
}

int mb_gmp_mul_tdiv_new(mb_impl *out, const mpz_t p) { return gmp_new(out, p, 0); }
int mb_gmp_mont_new(mb_impl *out, const mpz_t p) { return gmp_new(out, p, 1); }

/* ---- GMP, mpz_powm_sec --------------------------------------------------- */

typedef struct gmp_powm_state {
    mpz_t p, a, e, r;
} gmp_powm_state;

static void gmp_powm_sec_call(void *arg)
{
    gmp_powm_state *s = arg;
    mpz_powm_sec(s->r, s->a, s->e, s->p);
}

static void gmp_powm_load(void *arg, mb_op op, const mpz_t a, const mpz_t b, const mpz_t e)
{
    gmp_powm_state *s = arg;
    (void)op;
    (void)b;
    mpz_set(s->a, a);
    mpz_set(s->e, e);
}

static void gmp_powm_result(void *arg, mb_op op, mpz_t out)
{
    (void)op;
    mpz_set(out, ((gmp_powm_state *)arg)->r);
}

static void gmp_powm_destroy(void *arg)
{
    gmp_powm_state *s = arg;
    mpz_clears(s->p, s->a, s->e, s->r, NULL);
    free(s);
}

int mb_gmp_powm_sec_new(mb_impl *out, const mpz_t p)
{
    gmp_powm_state *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    mpz_init_set(s->p, p);
    /* sized once so that no call reallocates */
    mpz_init2(s->a, mpz_sizeinbase(p, 2) + 64);
    mpz_init2(s->e, mpz_sizeinbase(p, 2) + 64);
    mpz_init2(s->r, mpz_sizeinbase(p, 2) + 64);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "gmp-powm-sec");
    snprintf(out->describe, sizeof out->describe, "mpz_powm_sec");
    out->kind = MB_KIND_GMP;
    out->state = s;
    out->call[MB_MODEXP] = gmp_powm_sec_call;
    out->load = gmp_powm_load;
    out->result = gmp_powm_result;
    out->destroy = gmp_powm_destroy;
    return 0;
}

/* ---- OpenSSL ------------------------------------------------------------- */

typedef struct ossl_state {
    BN_CTX *ctx;
    BN_MONT_CTX *mont;
    BIGNUM *p, *a, *b, *r, *e, *tmp; /* a, b, r in Montgomery form for modmul/modsqr */
} ossl_state;

static BIGNUM *bn_from_mpz(BIGNUM *dst, const mpz_t x)
{
    size_t len = (mpz_sizeinbase(x, 2) + 7) / 8, cnt = 0;
    unsigned char *buf = malloc(len + 1);
    if (!buf)
        return NULL;
    mpz_export(buf, &cnt, 1, 1, 1, 0, x);
    BIGNUM *r = BN_bin2bn(buf, (int)cnt, dst);
    free(buf);
    return r;
}

static void mpz_from_bn(mpz_t dst, const BIGNUM *x)
{
    int len = BN_num_bytes(x);
    unsigned char *buf = malloc((size_t)len + 1);
    if (!buf) {
        mpz_set_ui(dst, 0);
        return;
    }
    BN_bn2bin(x, buf);
    mpz_import(dst, (size_t)len, 1, 1, 1, 0, buf);
    free(buf);
}

static void ossl_mul_call(void *arg)
{
    ossl_state *s = arg;
    BN_mod_mul_montgomery(s->r, s->a, s->b, s->mont, s->ctx);
}

static void ossl_sqr_call(void *arg)
{
    ossl_state *s = arg;
    BN_mod_mul_montgomery(s->r, s->a, s->a, s->mont, s->ctx);
}

static void ossl_exp_call(void *arg)
{
    ossl_state *s = arg;
    BN_mod_exp_mont_consttime(s->r, s->a, s->e, s->p, s->ctx, s->mont);
}

static void ossl_load(void *arg, mb_op op, const mpz_t a, const mpz_t b, const mpz_t e)
{
    ossl_state *s = arg;
    bn_from_mpz(s->a, a);
    bn_from_mpz(s->b, b);
    if (op == MB_MODEXP) {
        bn_from_mpz(s->e, e);
    } else {
        BN_to_montgomery(s->a, s->a, s->mont, s->ctx);
        BN_to_montgomery(s->b, s->b, s->mont, s->ctx);
    }
}

static void ossl_result(void *arg, mb_op op, mpz_t out)
{
    ossl_state *s = arg;
    if (op == MB_MODEXP) {
        mpz_from_bn(out, s->r);
    } else {
        BN_from_montgomery(s->tmp, s->r, s->mont, s->ctx);
        mpz_from_bn(out, s->tmp);
    }
}

static void ossl_destroy(void *arg)
{
    ossl_state *s = arg;
    BN_free(s->p);
    BN_free(s->a);
    BN_free(s->b);
    BN_free(s->r);
    BN_free(s->e);
    BN_free(s->tmp);
    BN_MONT_CTX_free(s->mont);
    BN_CTX_free(s->ctx);
    free(s);
}

static int ossl_new(mb_impl *out, const mpz_t p, int exp)
{
    ossl_state *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->ctx = BN_CTX_new();
    s->mont = BN_MONT_CTX_new();
    s->p = BN_new();
    s->a = BN_new();
    s->b = BN_new();
    s->r = BN_new();
    s->e = BN_new();
    s->tmp = BN_new();
    if (!s->ctx || !s->mont || !s->p || !s->a || !s->b || !s->r || !s->e || !s->tmp ||
        !bn_from_mpz(s->p, p) || !BN_MONT_CTX_set(s->mont, s->p, s->ctx)) {
        fprintf(stderr, "mns-bench: OpenSSL setup failed\n");
        ossl_destroy(s);
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->kind = MB_KIND_OPENSSL;
    out->state = s;
    out->load = ossl_load;
    out->result = ossl_result;
    out->destroy = ossl_destroy;
    if (exp) {
        snprintf(out->name, sizeof out->name, "openssl-mont-ct");
        snprintf(out->describe, sizeof out->describe, "BN_mod_exp_mont_consttime");
        out->call[MB_MODEXP] = ossl_exp_call;
    } else {
        snprintf(out->name, sizeof out->name, "openssl-mont");
        snprintf(out->describe, sizeof out->describe,
                 "BN_mod_mul_montgomery (a == b for modsqr)");
        out->call[MB_MODMUL] = ossl_mul_call;
        out->call[MB_MODSQR] = ossl_sqr_call;
    }
    return 0;
}

int mb_openssl_mont_new(mb_impl *out, const mpz_t p) { return ossl_new(out, p, 0); }
int mb_openssl_mont_ct_new(mb_impl *out, const mpz_t p) { return ossl_new(out, p, 1); }

const char *mb_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }
