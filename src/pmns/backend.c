/* The mns_field backends "pmns" (s64 sets, phi = 2^64, portable kernels)
 * and "pmns-ifma" (u52 sets, phi = 2^52, AVX-512 IFMA kernels).
 *
 * Options: delta=D (free additions before a mul, default 1; the field
 * reports what the set allows, which may be more), n=N (exact n,
 * default: the generator's smallest), E=lambda|x1 (X^n - lambda or
 * X^n - X - 1), params=FILE (a parameter file of mns_pmns.h instead of
 * generating; its p and word kind must match). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/error.h"
#include "core/kernel.h"
#include "pmns/get_words.h"
#include "pmns/pmns.h"

static void f_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_pmns_ctx *c = ctx;
    c->mul(c, r, a, b);
}

static void f_sqr(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_pmns_ctx *c = ctx;
    c->sqr(c, r, a);
}

static void f_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_pmns_add(ctx, r, a, b);
}

static void f_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_pmns_sub(ctx, r, a, b);
}

static void f_reduce(const void *ctx, uint64_t *r, const uint64_t *a) { mns_pmns_reduce(ctx, r, a); }

static void f_one(const void *ctx, uint64_t *r) { mns_pmns_one(ctx, r); }

static mns_status f_set_mpz(const void *ctx, uint64_t *r, const mpz_t a)
{
    return mns_pmns_from_mpz_var(ctx, r, a);
}

static void f_get_mpz(const void *ctx, mpz_t r, const uint64_t *a) { mns_pmns_to_mpz_var(ctx, r, a); }

static void f_destroy(void *ctx) { mns_pmns_ctx_free(ctx); }

static const mns_field_ops pmns_ops = {
    .mul = f_mul,
    .sqr = f_sqr,
    .add = f_add,
    .sub = f_sub,
    .reduce = f_reduce,
    .one = f_one,
    .set_mpz = f_set_mpz,
    .get_mpz = f_get_mpz,
    .powm = NULL, /* the shared constant-time fixed-window exponentiation */
    .set_words = mns_pmns_set_words,
    .get_words = mns_pmns_get_words,
    .destroy = f_destroy,
};

static const char *const pmns_options[] = {"delta", "n", "E", "params", "kernel", NULL};

/* Generates an s = 1 set for p and its context with at least `delta`
 * (n = 0: the generator's n). u52: sub adds a zero polynomial Z a little
 * above rho-1 (zsub.c), so a - b reaches rho-1 + zmax, slightly more than the
 * 2(rho-1) a set generated for delta 1 guarantees. Ask for the field's delta
 * first; if the set's kmax falls short, take the next n (with rho = 2N,
 * kmax/(rho-1) grows as N shrinks), then larger set deltas. */
static mns_status generate(mns_pmns_ctx **cp, mns_pmns_params **Pp, const mpz_t p, mns_pmns_word word,
                           mns_pmns_eshape eshape, int kernel, long delta, long n, const char *name)
{
    mns_pmns_params *P = NULL;
    mns_pmns_ctx *c = NULL;
    mns_status st;
    int set_delta = (int)delta, try_n = (int)n;
    for (int attempt = 0;; attempt++) {
        mns_pmns_gen_opts g;
        mns_pmns_gen_opts_init(&g);
        g.word = word;
        g.s = 1;
        g.delta = set_delta;
        g.n = try_n;
        g.eshape = eshape;
        st = mns_pmns_generate_var(&P, p, &g);
        if (st == MNS_OK && (st = mns_pmns_ctx_new_var(&c, P, kernel)) != MNS_OK) {
            mns_pmns_params_free(P);
            P = NULL;
        }
        /* the first attempt's failure is the answer; later ones (a
         * forced n, a larger set delta) only end the search */
        if (st != MNS_OK && (attempt == 0 || st != MNS_ENOTSUP))
            return st;
        if (st == MNS_OK && c->delta >= delta)
            break;
        const int got_n = st == MNS_OK ? c->n : try_n;
        mns_pmns_ctx_free(c);
        mns_pmns_params_free(P);
        c = NULL;
        P = NULL;
        if (attempt == 4)
            return mns_error(MNS_ENOTSUP, "backend \"%s\": no u52 set gives delta=%ld", name, delta);
        if (n == 0 && attempt < 2) {
            try_n = got_n + 1;
        } else {
            try_n = (int)n;
            set_delta = 2 * set_delta + 1;
        }
    }
    *cp = c;
    *Pp = P;
    return MNS_OK;
}

static mns_status create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts, const char *name,
                         mns_pmns_word word)
{
    mns_status st = mns_opts_check(opts, name, pmns_options);
    if (st != MNS_OK)
        return st;
    /* default delta 1: the element contract of mns.h (sum or difference of
     * two tight elements into mul) must hold without options */
    long delta = 1, n = 0;
    const int delta_given = mns_opts_get(opts, "delta") != NULL;
    if ((st = mns_opts_get_long(opts, name, "delta", 0, 64, &delta)) != MNS_OK)
        return st;
    if ((st = mns_opts_get_long(opts, name, "n", 2, MNS_PMNS_ARITH_N_MAX, &n)) != MNS_OK)
        return st;
    mns_pmns_eshape eshape = MNS_PMNS_E_BINOMIAL;
    const char *e = mns_opts_get(opts, "E");
    if (e) {
        if (strcmp(e, "lambda") == 0)
            eshape = MNS_PMNS_E_BINOMIAL;
        else if (strcmp(e, "x1") == 0)
            eshape = MNS_PMNS_E_TRINOMIAL;
        else
            return mns_error(MNS_EINVAL, "backend \"%s\": E=%s (lambda or x1)", name, e);
    }
    /* s64 sets: the portable kernel; u52 sets (pmns-ifma): the IFMA kernel,
     * or its portable twin when asked */
    const int k = mns_kernel_choose_ifma(name, word == MNS_PMNS_WORD_U52,
                                         mns_opts_get(opts, "kernel"), &st);
    if (k < 0)
        return st;
    const int kernel = k ? MNS_PMNS_KERNEL_IFMA : MNS_PMNS_KERNEL_GENERIC;
    if (mpz_sizeinbase(p, 2) < 16)
        return mns_error(MNS_ENOTSUP, "backend \"%s\": p below 16 bits has no useful PMNS", name);

    const char *file = mns_opts_get(opts, "params");
    mns_pmns_params *P = NULL;
    mns_pmns_ctx *c = NULL;
    if (file) {
        if ((st = mns_pmns_params_load_var(&P, file)) != MNS_OK)
            return st;
        if (mpz_cmp(mns_pmns_params_p(P), p) != 0 || mns_pmns_params_word(P) != word ||
            mns_pmns_params_s(P) != 1) {
            mns_pmns_params_free(P);
            return mns_error(MNS_EINVAL, "backend \"%s\": %s is not an s=1 %s set for this p", name,
                             file, word == MNS_PMNS_WORD_U52 ? "u52" : "s64");
        }
        if ((st = mns_pmns_ctx_new_var(&c, P, kernel)) != MNS_OK) {
            mns_pmns_params_free(P);
            return st;
        }
    } else {
        /* An explicit n first runs the default search and keeps its set if
         * it lands on that n: the generator's M for an n depends on the n
         * evaluated before it, so `n=N` evaluated alone can get another M, a
         * larger rho and too small a delta where the default's N did not (a
         * 512-bit pmns-ifma with n = 13 was refused so). */
        if (n && generate(&c, &P, p, word, eshape, kernel, delta, 0, name) == MNS_OK && c->n != n) {
            mns_pmns_ctx_free(c);
            mns_pmns_params_free(P);
            c = NULL;
            P = NULL;
        }
        if (!c && (st = generate(&c, &P, p, word, eshape, kernel, delta, n, name)) != MNS_OK)
            return st;
    }
    c->owned = P;
    /* the field's delta is what the set allows (at least the one asked for
     * when generated): extra additions cost nothing */
    if (file && delta_given && c->delta < delta) {
        int have = c->delta;
        mns_pmns_ctx_free(c);
        return mns_error(MNS_ENOTSUP, "backend \"%s\": %s allows delta=%d only (asked %ld)", name,
                         file, have, delta);
    }
    out->ctx = c;
    out->ops = &pmns_ops;
    out->limbs = (size_t)c->n;
    out->delta = c->delta;
    char es[48];
    if (c->eshape == MNS_PMNS_E_BINOMIAL)
        snprintf(es, sizeof es, "X^%d%c%lld", c->n, c->lambda < 0 ? '+' : '-',
                 (long long)(c->lambda < 0 ? -c->lambda : c->lambda));
    else
        snprintf(es, sizeof es, "X^%d-X-1", c->n);
    snprintf(out->describe, sizeof out->describe,
             "%s kernel=%s word=%s n=%d E=%s delta=%d rho_bits=%u phi=2^%u bits=%zu%s", name,
             c->kernel, word == MNS_PMNS_WORD_U52 ? "u52" : "s64", c->n, es, c->delta,
             mns_pmns_params_rho_bits(P), c->phi_log2, mpz_sizeinbase(p, 2),
             file ? " params=file" : "");
    return MNS_OK;
}

static mns_status pmns_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create(out, p, opts, "pmns", MNS_PMNS_WORD_S64);
}

static mns_status pmns_ifma_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create(out, p, opts, "pmns-ifma", MNS_PMNS_WORD_U52);
}

const mns_backend mns_backend_pmns = {"pmns", pmns_create};
const mns_backend mns_backend_pmns_ifma = {"pmns-ifma", pmns_ifma_create};
