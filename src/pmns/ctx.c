/* PMNS arithmetic context: bounds derived from the parameter set, the
 * precomputed representations the conversions need, kernel choice, and the
 * public entry points of include/mns_pmns_arith.h. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/error.h"
#include "core/tmp.h"
#include "pmns/get_words.h"
#include "pmns/pmns.h"

typedef __int128 i128;

/* Radix of the conversion in: x = sum_j d_j 2^(32 j). 32 bits keep the radix
 * sum, L (2^32-1)(rho-1), within what one RedCoeff brings back under rho for
 * every p up to MNS_PMNS_P_BITS_MAX (checked per set below). */
#define DIGIT_BITS 32

static void *alloc_words(size_t words)
{
    /* 64-byte alignment for the IFMA kernels' full-vector loads */
    return mns_alloc64_words_zero(words);
}

void mns_pmns_ctx_free(mns_pmns_ctx *c)
{
    if (!c)
        return;
    free(c->m);
    free(c->mp);
    free(c->zsub);
    free(c->one);
    free(c->phi2);
    free(c->digits);
    free(c->m_ext);
    free(c->mp_ext);
    free(c->m_row0);
    free(c->mp_row0);
    free(c->m_ext8);
    free(c->mp_ext8);
    free(c->off_u);
    free(c->off_a);
    free(c->gw_pow);
    mpz_clears(c->p, c->phi_inv, NULL);
    if (c->owned)
        mns_pmns_params_free(c->owned);
    free(c);
}

/* 1 if a + b < phi * rho, i.e. a RedCoeff whose input and Q M parts are at
 * most a and b in absolute value gives a tight output. */
static int lt_phi_rho(const mpz_t a, const mpz_t b, const mpz_t phirho)
{
    mpz_t s;
    mpz_init(s);
    mpz_add(s, a, b);
    int ok = mpz_cmp(s, phirho) < 0;
    mpz_clear(s);
    return ok;
}

/* r <- a tight representation of a (C(gamma) = a mod p) as words. */
static mns_status represent_words(const mns_pmns_ctx *c, uint64_t *r, const mpz_t a)
{
    const int n = c->n;
    mpz_t *cf = malloc(sizeof(mpz_t) * (size_t)n);
    if (!cf)
        return mns_error(MNS_ENOMEM, "pmns: out of memory");
    for (int i = 0; i < n; i++)
        mpz_init(cf[i]);
    mns_status st = mns_pmns_represent_var(c->P, cf, a);
    for (int i = 0; i < n; i++) {
        if (st == MNS_OK)
            r[i] = c->word == MNS_PMNS_WORD_S64 ? (uint64_t)mpz_get_si(cf[i]) : mpz_get_ui(cf[i]);
        mpz_clear(cf[i]);
    }
    free(cf);
    return st;
}

static mns_status bounds(mns_pmns_ctx *c)
{
    const mns_pmns_params *P = c->P;
    mpz_t phirho, qn, t, k;
    mpz_inits(phirho, qn, t, k, NULL);
    mns_status st = MNS_OK;

    /* Qmax N: s64 quotients are int64 (|q| <= 2^63), u52 ones in [0, 2^52) */
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, c->word == MNS_PMNS_WORD_S64 ? 63 : 52);
    if (c->word == MNS_PMNS_WORD_U52)
        mpz_sub_ui(t, t, 1);
    mpz_mul(qn, t, mns_pmns_params_norm1(P));
    mpz_mul_2exp(phirho, mns_pmns_params_rho(P), c->phi_log2);

    /* kmax: the largest K with w K^2 + Qmax N < phi rho (the closure the
     * generator checked for K = (delta+1)(rho-1)) */
    mpz_sub(t, phirho, qn);
    mpz_sub_ui(t, t, 1);
    mpz_fdiv_q_ui(t, t, mns_pmns_params_w(P));
    mpz_sqrt(k, t);
    /* kernel limits: s64 coefficients and sums stay within int64; u52 Toeplitz
     * rows hold max(|lambda|, 2) * K below 2^52 (IFMA operands) */
    uint64_t lim;
    if (c->word == MNS_PMNS_WORD_S64) {
        lim = (uint64_t)1 << 61;
    } else {
        uint64_t lf = c->eshape == MNS_PMNS_E_BINOMIAL ? (uint64_t)(c->lambda < 0 ? -c->lambda : c->lambda) : 2;
        if (lf < 2)
            lf = 2;
        lim = (((uint64_t)1 << 52) - 1) / lf;
    }
    if (mpz_cmp_ui(k, lim) > 0)
        mpz_set_ui(k, lim);
    c->kmax = mpz_get_ui(k);
    uint64_t need = (uint64_t)(mns_pmns_params_delta(P) + 1) * c->rho_m1;
    if (c->kmax < need || c->kmax < c->rho_m1)
        st = mns_error(MNS_ENOTSUP, "pmns: set too tight for the kernels (kmax < (delta+1)(rho-1))");

    /* RedCoeff of any single word (reduce) and of the conversion's radix sum
     * must come out tight */
    if (st == MNS_OK) {
        mpz_set_ui(t, 1);
        mpz_mul_2exp(t, t, c->word == MNS_PMNS_WORD_S64 ? 63 : 64);
        if (!lt_phi_rho(t, qn, phirho))
            st = mns_error(MNS_ENOTSUP, "pmns: RedCoeff of a word is not tight for this set");
        mpz_set_ui(t, 1);
        mpz_mul_2exp(t, t, DIGIT_BITS);
        mpz_sub_ui(t, t, 1);
        mpz_mul_ui(t, t, c->rho_m1);
        mpz_mul_ui(t, t, (unsigned long)c->ndigits);
        if (st == MNS_OK && !lt_phi_rho(t, qn, phirho))
            st = mns_error(MNS_ENOTSUP, "pmns: conversion radix sum too large for this set");
    }
    mpz_clears(phirho, qn, t, k, NULL);
    return st;
}

/* What the set and the kernel asked for allow: s = 1, n within the
 * arithmetic's and the scratch's bounds, IFMA only on u52 sets and on a CPU
 * that has it. *ifma: whether the IFMA kernels serve. */
static mns_status check_request(const mns_pmns_params *P, int kernel, int *ifma)
{
    if (kernel != MNS_PMNS_KERNEL_AUTO && kernel != MNS_PMNS_KERNEL_GENERIC && kernel != MNS_PMNS_KERNEL_IFMA)
        return mns_error(MNS_EINVAL, "pmns: unknown kernel %d", kernel);
    if (mns_pmns_params_s(P) != 1)
        return mns_error(MNS_ENOTSUP, "pmns: single-precision arithmetic needs s = 1 (set has s = %d)",
                         mns_pmns_params_s(P));
    int n = mns_pmns_params_n(P);
    if (n < 2 || n > MNS_PMNS_ARITH_N_MAX)
        return mns_error(MNS_ENOTSUP, "pmns: n = %d outside [2, %d]", n, MNS_PMNS_ARITH_N_MAX);
    if (n > MNS_PMNS_SCRATCH_N_MAX)
        return mns_error(MNS_ENOTSUP, "pmns: n = %d above %d, the largest whose per-call scratch fits the stack bound",
                         n, MNS_PMNS_SCRATCH_N_MAX);
    mns_pmns_word word = mns_pmns_params_word(P);
    *ifma = 0;
    if (kernel == MNS_PMNS_KERNEL_IFMA || (kernel == MNS_PMNS_KERNEL_AUTO && word == MNS_PMNS_WORD_U52)) {
        int have = mns_cpu_has_ifma() && mns_cpu_features() != 0;
        if (kernel == MNS_PMNS_KERNEL_IFMA && word != MNS_PMNS_WORD_U52)
            return mns_error(MNS_ENOTSUP, "pmns: the IFMA kernel needs a u52 parameter set");
        if (kernel == MNS_PMNS_KERNEL_IFMA && !have)
            return mns_error(MNS_ENOTSUP, "pmns: the IFMA kernel needs AVX-512 IFMA (CPU has: %s%s)",
                             mns_cpu_features_string(),
                             mns_cpu_features() == 0 ? "; disabled by MNS_CPU=generic" : "");
        *ifma = have;
    }
    return MNS_OK;
}

/* The additions a caller may make before a product: for u52, t_0 +- t_1
 * ... +- t_d with j subtractions (each adds Z and takes away at least 0) is
 * at most (d+1-j)(rho-1) + j zmax <= (rho-1) + d zmax (zmax >= rho-1), so the
 * largest d with (rho-1) + d zmax <= kmax; for s64 what the closure allows
 * for free, the largest d with (d+1)(rho-1) <= kmax, at least the set's own
 * delta. */
static mns_status free_additions(mns_pmns_ctx *c)
{
    if (c->word == MNS_PMNS_WORD_U52) {
        mns_status st = mns_pmns_make_zsub(c);
        long d = st == MNS_OK ? (long)((c->kmax - c->rho_m1) / c->zmax) : 0;
        c->delta = d > MNS_PMNS_DELTA_MAX ? MNS_PMNS_DELTA_MAX : (int)d;
        return st;
    }
    uint64_t d = c->kmax / c->rho_m1 - 1;
    if (d < (uint64_t)mns_pmns_params_delta(c->P))
        d = (uint64_t)mns_pmns_params_delta(c->P);
    c->delta = d > MNS_PMNS_DELTA_MAX ? MNS_PMNS_DELTA_MAX : (int)d;
    return MNS_OK;
}

/* The conversion constants, computed with the portable kernels: phi2 ~
 * phi^2, g ~ 2^32 phi, digits[j] = phi2 * g^j * phi^-j ~ 2^(32j) phi^2, one,
 * and phi^-1 mod p. */
static mns_status precompute(mns_pmns_ctx *c)
{
    const int n = c->n;
    uint64_t *g = alloc_words((size_t)n);
    mpz_t t;
    mpz_init_set_ui(t, 1);
    mpz_mul_2exp(t, t, 2 * c->phi_log2);
    mpz_mod(t, t, c->p);
    mns_status st = g ? represent_words(c, c->phi2, t) : mns_error(MNS_ENOMEM, "pmns: out of memory");
    if (st == MNS_OK) {
        mpz_set_ui(t, 1);
        mpz_mul_2exp(t, t, DIGIT_BITS + c->phi_log2);
        mpz_mod(t, t, c->p);
        st = represent_words(c, g, t);
    }
    if (st == MNS_OK) {
        memcpy(c->digits, c->phi2, (size_t)n * 8);
        for (int j = 1; j < c->ndigits; j++)
            c->mul(c, c->digits + (size_t)j * n, c->digits + (size_t)(j - 1) * n, g);
        c->redc(c, c->one, c->phi2);
    }
    free(g);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, c->phi_log2);
    if (st == MNS_OK && !mpz_invert(c->phi_inv, t, c->p))
        st = mns_error(MNS_EINVAL, "pmns: phi not invertible mod p");
    mpz_clear(t);
    return st;
}

/* The context's fields from the set, its word arrays, and the bounds. */
static mns_status fill(mns_pmns_ctx *c, const mns_pmns_params *P)
{
    const int n = mns_pmns_params_n(P);
    mpz_inits(c->p, c->phi_inv, NULL);
    c->P = P;
    c->n = n;
    c->word = mns_pmns_params_word(P);
    c->eshape = mns_pmns_params_eshape(P);
    c->lambda = mns_pmns_params_lambda(P);
    c->phi_log2 = mns_pmns_params_phi_log2(P);
    mpz_set(c->p, mns_pmns_params_p(P));
    c->ndigits = (int)((mpz_sizeinbase(c->p, 2) + DIGIT_BITS - 1) / DIGIT_BITS);
    mpz_t t;
    mpz_init(t);
    mpz_sub_ui(t, mns_pmns_params_rho(P), 1);
    c->rho_m1 = mpz_get_ui(t);
    mpz_clear(t);
    if ((c->phi_log2 != 64 && c->phi_log2 != 52) || (c->word == MNS_PMNS_WORD_S64 && c->phi_log2 != 64) ||
        (c->word == MNS_PMNS_WORD_U52 && c->phi_log2 != 52))
        return mns_error(MNS_ENOTSUP, "pmns: phi = 2^%u not served", c->phi_log2);
    c->m = alloc_words((size_t)n);
    c->mp = alloc_words((size_t)n);
    c->zsub = alloc_words((size_t)n);
    c->one = alloc_words((size_t)n);
    c->phi2 = alloc_words((size_t)n);
    c->digits = alloc_words((size_t)n * (size_t)c->ndigits);
    if (!c->m || !c->mp || !c->zsub || !c->one || !c->phi2 || !c->digits)
        return mns_error(MNS_ENOMEM, "pmns: out of memory");
    for (int i = 0; i < n; i++) {
        c->m[i] = mns_pmns_params_m_word(P, i);
        c->mp[i] = mns_pmns_params_mprime_word(P, i);
    }
    return bounds(c);
}

mns_status mns_pmns_ctx_new_var(mns_pmns_ctx **out, const mns_pmns_params *P, int kernel)
{
    if (!out)
        return mns_error(MNS_EINVAL, "pmns: NULL output");
    *out = NULL;
    if (!P)
        return mns_error(MNS_EINVAL, "pmns: NULL parameter set");
    int ifma;
    mns_status st = check_request(P, kernel, &ifma);
    if (st != MNS_OK)
        return st;
    mns_pmns_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return mns_error(MNS_ENOMEM, "pmns: out of memory");
    st = fill(c, P);
    if (st == MNS_OK)
        st = free_additions(c);
    /* the portable kernels serve the precomputation */
    c->mul = mns_pmns_mul_generic;
    c->sqr = mns_pmns_sqr_generic;
    c->redc = mns_pmns_redc_generic;
    c->kernel = "generic";
    if (st == MNS_OK)
        st = precompute(c);
    if (st == MNS_OK && ifma) {
        st = mns_pmns_ifma_prepare(c);
        if (st == MNS_OK) {
            c->mul = mns_pmns_mul_ifma;
            c->sqr = mns_pmns_sqr_ifma;
            c->redc = mns_pmns_redc_ifma;
            c->kernel = "ifma";
            mns_pmns_ifma_pick_small(c);
        }
    }
    if (st == MNS_OK && !(c->gw_pow = mns_pmns_gw_powers(c->p, mns_pmns_params_gamma(c->P), c->n)))
        st = mns_error(MNS_ENOMEM, "pmns: out of memory");
    if (st == MNS_OK)
        st = mns_scratch_check("pmns", mns_pmns_gw_scratch((size_t)c->n, mpz_size(c->p), 1, c->n));
    if (st != MNS_OK) {
        mns_pmns_ctx_free(c);
        return st;
    }
    *out = c;
    return MNS_OK;
}

const mns_pmns_params *mns_pmns_ctx_params(const mns_pmns_ctx *c) { return c ? c->P : NULL; }
size_t mns_pmns_ctx_words(const mns_pmns_ctx *c) { return c ? (size_t)c->n : 0; }
int mns_pmns_ctx_delta(const mns_pmns_ctx *c) { return c ? c->delta : 0; }
uint64_t mns_pmns_ctx_kmax(const mns_pmns_ctx *c) { return c ? c->kmax : 0; }
const char *mns_pmns_ctx_kernel(const mns_pmns_ctx *c) { return c ? c->kernel : "(null)"; }

mns_status mns_pmns_from_mpz_var(const mns_pmns_ctx *c, uint64_t *r, const mpz_t a)
{
    if (!c || !r || !a)
        return mns_error(MNS_EINVAL, "pmns_from_mpz: NULL argument");
    const int n = c->n;
    i128 *v = malloc(sizeof(i128) * (size_t)n);
    if (!v)
        return mns_error(MNS_ENOMEM, "pmns_from_mpz: out of memory");
    mpz_t x;
    mpz_init(x);
    mpz_mod(x, a, c->p);
    for (int i = 0; i < n; i++)
        v[i] = 0;
    /* V = sum_j d_j digits[j] ~ x phi^2; one RedCoeff gives x phi, tight */
    for (int j = 0; j < c->ndigits; j++) {
        uint64_t limb = j / 2 < (int)mpz_size(x) ? mpz_getlimbn(x, j / 2) : 0;
        i128 d = (i128)((limb >> (DIGIT_BITS * (j & 1))) & 0xffffffffu);
        const uint64_t *t = c->digits + (size_t)j * n;
        for (int i = 0; i < n; i++)
            v[i] += d * (c->word == MNS_PMNS_WORD_S64 ? (i128)(int64_t)t[i] : (i128)t[i]);
    }
    mns_pmns_redc_wide_generic(c, r, v);
    mpz_clear(x);
    free(v);
    return MNS_OK;
}

void mns_pmns_to_mpz_var(const mns_pmns_ctx *c, mpz_t r, const uint64_t *a)
{
    const mpz_srcptr gamma = mns_pmns_params_gamma(c->P);
    mpz_t t;
    mpz_init(t);
    mpz_set_ui(r, 0);
    for (int i = c->n - 1; i >= 0; i--) {
        mpz_mul(r, r, gamma);
        if (c->word == MNS_PMNS_WORD_S64)
            mpz_set_si(t, (long)(int64_t)a[i]);
        else
            mpz_set_ui(t, (unsigned long)a[i]);
        mpz_add(r, r, t);
        mpz_mod(r, r, c->p);
    }
    mpz_mul(r, r, c->phi_inv);
    mpz_mod(r, r, c->p);
    mpz_clear(t);
}

void mns_pmns_mul(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    c->mul(c, r, a, b);
}

void mns_pmns_sqr(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a) { c->sqr(c, r, a); }

void mns_pmns_add(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    for (int i = 0; i < c->n; i++)
        r[i] = a[i] + b[i];
}

void mns_pmns_sub(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    /* zsub is all zeros for s64 */
    for (int i = 0; i < c->n; i++)
        r[i] = a[i] + c->zsub[i] - b[i];
}

void mns_pmns_neg(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)
{
    for (int i = 0; i < c->n; i++)
        r[i] = c->zsub[i] - a[i];
}

void mns_pmns_redcoeff(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a) { c->redc(c, r, a); }

void mns_pmns_reduce(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)
{
    /* RedCoeff takes any word to a tight a phi^-1; the mul by phi^2 brings the
     * value back */
    uint64_t s[MNS_PMNS_ARITH_N_MAX];
    c->redc(c, s, a);
    c->mul(c, r, s, c->phi2);
}

void mns_pmns_one(const mns_pmns_ctx *c, uint64_t *r) { memcpy(r, c->one, (size_t)c->n * 8); }
