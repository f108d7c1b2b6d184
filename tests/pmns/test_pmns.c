/* PMNS arithmetic (src/pmns/): the pmns and pmns-ifma backends against GMP
 * through mt_field_check, and the representation itself through
 * include/mns_pmns_arith.h: polynomials built directly with coefficients at
 * the bounds (tight rho-1, loose kmax, both signs), the portable twin of the
 * IFMA kernel compared word for word with it, RedCoeff and conversions.
 * MNS_TEST_PMNS_PARAMS=dir adds every *.txt parameter file of dir. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mns.h"
#include "mns_pmns.h"
#include "mns_pmns_arith.h"
#include "core/cpu.h"
#include "testutil.h"

static int is_u52(const mns_pmns_ctx *c)
{
    return mns_pmns_params_word(mns_pmns_ctx_params(c)) == MNS_PMNS_WORD_U52;
}

/* A(gamma) phi^-1 mod p straight from the definition, independent of the
 * library's own conversion. */
static void value_of(const mns_pmns_ctx *c, mpz_t r, const uint64_t *a)
{
    const mns_pmns_params *P = mns_pmns_ctx_params(c);
    mpz_srcptr p = mns_pmns_params_p(P);
    int n = mns_pmns_params_n(P);
    mpz_t t, phi;
    mpz_inits(t, phi, NULL);
    mpz_set_ui(r, 0);
    for (int i = n - 1; i >= 0; i--) {
        mpz_mul(r, r, mns_pmns_params_gamma(P));
        if (is_u52(c))
            mpz_set_ui(t, a[i]);
        else
            mpz_set_si(t, (long)(int64_t)a[i]);
        mpz_add(r, r, t);
        /* keep r below p: unreduced, Horner grows to n |p| bits (quadratic
         * in n, and n reaches 64 here) */
        mpz_mod(r, r, p);
    }
    mpz_set_ui(phi, 0);
    mpz_setbit(phi, mns_pmns_params_phi_log2(P));
    mpz_invert(t, phi, p);
    mpz_mul(r, r, t);
    mpz_mod(r, r, p);
    mpz_clears(t, phi, NULL);
}

/* 1 if every coefficient is tight. */
static int tight(const mns_pmns_ctx *c, const uint64_t *a)
{
    const mns_pmns_params *P = mns_pmns_ctx_params(c);
    mpz_t r1;
    mpz_init(r1);
    mpz_sub_ui(r1, mns_pmns_params_rho(P), 1);
    uint64_t b = mpz_get_ui(r1);
    mpz_clear(r1);
    for (size_t i = 0; i < mns_pmns_ctx_words(c); i++) {
        if (is_u52(c) ? a[i] > b : ((int64_t)a[i] > (int64_t)b || (int64_t)a[i] < -(int64_t)b))
            return 0;
    }
    return 1;
}

/* Random polynomial with coefficients of magnitude <= bound; `kind` 0: random,
 * 1: all at +bound, 2: all at -bound (s64) / 0 (u52), 3: alternating
 * extremes, 4: random extremes. */
static void poly_at(const mns_pmns_ctx *c, uint64_t *a, uint64_t bound, int kind)
{
    int u = is_u52(c);
    for (size_t i = 0; i < mns_pmns_ctx_words(c); i++) {
        uint64_t m;
        int neg;
        switch (kind) {
        case 1: m = bound; neg = 0; break;
        case 2: m = bound; neg = 1; break;
        case 3: m = bound; neg = (int)(i & 1); break;
        case 4: m = bound; neg = (int)(mt_u64() & 1); break;
        default: m = mt_u64() % (bound + 1); neg = (int)(mt_u64() & 1); break;
        }
        if (u)
            a[i] = neg ? (kind == 0 ? m : 0) : m;
        else
            a[i] = neg ? (uint64_t)0 - m : m;
    }
}

static void check_ctx(mns_pmns_ctx *c, mns_pmns_ctx *twin, const char *what, unsigned rounds)
{
    const mns_pmns_params *P = mns_pmns_ctx_params(c);
    mpz_srcptr p = mns_pmns_params_p(P);
    size_t n = mns_pmns_ctx_words(c);
    uint64_t *A = calloc(n, 8), *B = calloc(n, 8), *R = calloc(n, 8), *S = calloc(n, 8);
    mpz_t a, b, want, got;
    mpz_inits(a, b, want, got, NULL);
    mpz_t r1;
    mpz_init(r1);
    mpz_sub_ui(r1, mns_pmns_params_rho(P), 1);
    const uint64_t rho1 = mpz_get_ui(r1);
    const uint64_t kmax = mns_pmns_ctx_kmax(c);
    const uint64_t dlim = (uint64_t)(mns_pmns_ctx_delta(c) + 1) * rho1;
    MT_CHECK(kmax >= dlim, "%s: kmax %llu < (delta+1)(rho-1) %llu", what, (unsigned long long)kmax,
             (unsigned long long)dlim);

    for (unsigned it = 0; it < rounds; it++) {
        /* operands at the tight bound, the delta limit and the loose limit */
        uint64_t bounds[3] = {rho1, dlim, kmax};
        uint64_t ba = bounds[it % 3], bb = bounds[(it / 3) % 3];
        poly_at(c, A, ba, (int)(it % 5));
        poly_at(c, B, bb, (int)((it / 5) % 5));
        value_of(c, a, A);
        value_of(c, b, B);

        mns_pmns_mul(c, R, A, B);
        mpz_mul(want, a, b);
        mpz_mod(want, want, p);
        value_of(c, got, R);
        MT_CHECK(mpz_cmp(got, want) == 0 && tight(c, R), "%s: mul at bounds (%llu, %llu) round %u",
                 what, (unsigned long long)ba, (unsigned long long)bb, it);
        if (twin) {
            mns_pmns_mul(twin, S, A, B);
            MT_CHECK(memcmp(R, S, n * 8) == 0, "%s: IFMA and portable twin differ (mul) round %u",
                     what, it);
        }
        mns_pmns_sqr(c, R, A);
        mpz_mul(want, a, a);
        mpz_mod(want, want, p);
        value_of(c, got, R);
        MT_CHECK(mpz_cmp(got, want) == 0 && tight(c, R), "%s: sqr at bound %llu round %u", what,
                 (unsigned long long)ba, it);
        if (twin) {
            mns_pmns_sqr(twin, S, A);
            MT_CHECK(memcmp(R, S, n * 8) == 0, "%s: IFMA and portable twin differ (sqr) round %u",
                     what, it);
        }
        /* reduce and RedCoeff take any word */
        for (size_t i = 0; i < n; i++)
            A[i] = is_u52(c) ? mt_u64() : mt_u64() >> 1 ^ (mt_u64() & 1 ? ~(uint64_t)0 : 0);
        value_of(c, a, A);
        mns_pmns_reduce(c, R, A);
        value_of(c, got, R);
        MT_CHECK(mpz_cmp(got, a) == 0 && tight(c, R), "%s: reduce of any words round %u", what, it);
        mns_pmns_redcoeff(c, R, A);
        if (twin) {
            mns_pmns_redcoeff(twin, S, A);
            MT_CHECK(memcmp(R, S, n * 8) == 0, "%s: IFMA and portable twin differ (redcoeff)", what);
        }
        mns_pmns_one(c, S);
        mns_pmns_mul(c, S, R, S); /* RedCoeff(A) * 1 = a phi^-1 */
        mpz_set_ui(want, 0);
        mpz_setbit(want, mns_pmns_params_phi_log2(P));
        mpz_invert(want, want, p);
        mpz_mul(want, want, a);
        mpz_mod(want, want, p);
        value_of(c, got, S);
        MT_CHECK(mpz_cmp(got, want) == 0 && tight(c, R), "%s: redcoeff round %u", what, it);
    }

    /* sums and differences of delta+1 tight elements, extremes included */
    for (int round = 0; round < 6; round++) {
        int terms = mns_pmns_ctx_delta(c) + 1;
        poly_at(c, A, rho1, round % 2 ? 1 : 4);
        value_of(c, a, A);
        mpz_set(want, a);
        for (int t = 1; t < terms; t++) {
            poly_at(c, B, rho1, round < 2 ? 1 : 4);
            value_of(c, b, B);
            if ((round + t) % 2) {
                mns_pmns_sub(c, A, A, B);
                mpz_sub(want, want, b);
            } else {
                mns_pmns_add(c, A, A, B);
                mpz_add(want, want, b);
            }
        }
        mpz_mod(want, want, p);
        mns_pmns_mul(c, R, A, A);
        mpz_mul(a, want, want);
        mpz_mod(a, a, p);
        value_of(c, got, R);
        MT_CHECK(mpz_cmp(got, a) == 0 && tight(c, R), "%s: mul of a %d-term sum", what, terms);
        mns_pmns_sqr(c, R, A);
        value_of(c, got, R);
        MT_CHECK(mpz_cmp(got, a) == 0 && tight(c, R), "%s: sqr of a %d-term sum", what, terms);
        mns_pmns_neg(c, R, B);
        mns_pmns_add(c, R, R, B);
        mns_pmns_reduce(c, R, R);
        value_of(c, got, R);
        MT_CHECK(mpz_sgn(got) == 0, "%s: neg(b) + b != 0", what);
    }

    /* the exact delta limit. u52: t_0 - t_1 - ... - t_d with t_0 at rho-1
     * and the others 0 reaches (rho-1) + d zmax, the bound the context's
     * delta is computed from; it must fit kmax, and one more subtraction
     * must not (delta is the largest such d). s64: plain sums at the bound. */
    {
        const int d = mns_pmns_ctx_delta(c);
        uint64_t zmax = 0;
        memset(B, 0, n * 8);
        mns_pmns_neg(c, R, B); /* Z (u52), 0 (s64) */
        for (size_t i = 0; i < n; i++)
            zmax = is_u52(c) && R[i] > zmax ? R[i] : zmax;
        if (is_u52(c)) {
            MT_CHECK(zmax >= rho1 && rho1 + (uint64_t)d * zmax <= kmax, "%s: delta %d: rho-1 + d zmax > kmax",
                     what, d);
            MT_CHECK(d == MNS_PMNS_DELTA_MAX || rho1 + (uint64_t)(d + 1) * zmax > kmax,
                     "%s: delta %d is not the largest allowed", what, d);
        }
        for (int round = 0; round < 4; round++) {
            poly_at(c, A, rho1, 1);
            value_of(c, a, A);
            mpz_set(want, a);
            memset(B, 0, n * 8);
            /* at most 16 calls (delta reaches 1023 on small sets); the
             * rest of the d terms at once: d - 16 more subtractions of 0
             * add (d - 16) Z, additions of +-(rho-1) add (d - 16) B */
            const int calls = d < 16 ? d : 16;
            for (int t = 0; t < calls; t++) {
                if (is_u52(c)) {
                    /* 0, or a random tight element in later rounds */
                    if (round >= 2)
                        poly_at(c, B, rho1, 0);
                    value_of(c, b, B);
                    mns_pmns_sub(c, A, A, B);
                    mpz_sub(want, want, b);
                } else {
                    poly_at(c, B, rho1, round % 2 ? 1 : 2);
                    value_of(c, b, B);
                    mns_pmns_add(c, A, A, B);
                    mpz_add(want, want, b);
                }
            }
            if (d > calls) {
                if (is_u52(c)) {
                    mns_pmns_neg(c, S, (memset(B, 0, n * 8), B)); /* Z */
                    for (size_t i = 0; i < n; i++)
                        A[i] += (uint64_t)(d - calls) * S[i];
                } else {
                    for (size_t i = 0; i < n; i++)
                        A[i] += (uint64_t)(d - calls) * B[i];
                    mpz_mul_ui(b, b, (unsigned long)(d - calls));
                    mpz_add(want, want, b);
                }
            }
            uint64_t top = 0;
            for (size_t i = 0; i < n; i++) {
                uint64_t m = is_u52(c) ? A[i] : (uint64_t)((int64_t)A[i] < 0 ? -(int64_t)A[i] : (int64_t)A[i]);
                top = m > top ? m : top;
            }
            MT_CHECK(top <= kmax, "%s: %d-term operand above kmax", what, d + 1);
            if (is_u52(c) && round < 2)
                MT_CHECK(top == rho1 + (uint64_t)d * zmax, "%s: the delta-limit operand misses its bound",
                         what);
            mpz_mod(want, want, p);
            poly_at(c, B, kmax, round % 2 ? 1 : 0);
            value_of(c, b, B);
            mns_pmns_mul(c, R, A, B);
            mpz_mul(a, want, b);
            mpz_mod(a, a, p);
            value_of(c, got, R);
            MT_CHECK(mpz_cmp(got, a) == 0 && tight(c, R), "%s: mul at the delta limit round %d", what,
                     round);
            if (twin) {
                mns_pmns_mul(twin, S, A, B);
                MT_CHECK(memcmp(R, S, n * 8) == 0, "%s: IFMA and twin differ at the delta limit", what);
            }
            mns_pmns_sqr(c, R, A);
            mpz_mul(a, want, want);
            mpz_mod(a, a, p);
            value_of(c, got, R);
            MT_CHECK(mpz_cmp(got, a) == 0 && tight(c, R), "%s: sqr at the delta limit round %d", what,
                     round);
            if (twin) {
                mns_pmns_sqr(twin, S, A);
                MT_CHECK(memcmp(R, S, n * 8) == 0, "%s: IFMA and twin differ at the delta limit (sqr)",
                         what);
            }
        }
    }

    /* conversions of the structured values */
    for (int k = 0; k < MT_OP_KINDS; k++) {
        mt_operand(a, p, (mt_op_kind)k);
        MT_CHECK(mns_pmns_from_mpz_var(c, R, a) == MNS_OK, "%s: from_mpz", what);
        mns_pmns_to_mpz_var(c, got, R);
        mpz_mod(want, a, p);
        MT_CHECK(mpz_cmp(got, want) == 0 && tight(c, R), "%s: conversion kind %d", what, k);
        value_of(c, got, R);
        MT_CHECK(mpz_cmp(got, want) == 0, "%s: conversion kind %d (by definition)", what, k);
    }
    mpz_clears(a, b, want, got, r1, NULL);
    free(A);
    free(B);
    free(R);
    free(S);
}

static void check_params(mns_pmns_params *P, const char *what, unsigned rounds)
{
    mns_pmns_ctx *g = NULL, *f = NULL;
    MT_CHECK(mns_pmns_ctx_new_var(&g, P, MNS_PMNS_KERNEL_GENERIC) == MNS_OK, "%s: ctx: %s", what,
             mns_last_error());
    if (!g)
        return;
    char buf[160];
    snprintf(buf, sizeof buf, "%s generic", what);
    check_ctx(g, NULL, buf, rounds);
    if (mns_pmns_params_word(P) == MNS_PMNS_WORD_U52) {
        mns_status st = mns_pmns_ctx_new_var(&f, P, MNS_PMNS_KERNEL_IFMA);
        if (st == MNS_OK) {
            snprintf(buf, sizeof buf, "%s ifma", what);
            check_ctx(f, g, buf, rounds);
            mns_pmns_ctx_free(f);
        } else {
            MT_CHECK(st == MNS_ENOTSUP, "%s: ifma ctx: %s", what, mns_last_error());
            printf("  skip ifma kernel: %s\n", mns_last_error());
        }
    }
    mns_pmns_ctx_free(g);
}

static void gen_and_check_n(size_t bits, mns_pmns_word word, mns_pmns_eshape e, int delta,
                            int n, unsigned rounds)
{
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, bits, MT_MOD_PRIME);
    mns_pmns_gen_opts o;
    mns_pmns_gen_opts_init(&o);
    o.word = word;
    o.s = 1;
    o.eshape = e;
    o.delta = delta;
    o.n = n;
    mns_pmns_params *P = NULL;
    mns_status st = mns_pmns_generate_var(&P, p, &o);
    /* a forced n may have no lambda <= 16 for this p: another prime, so
     * that every kernel n is covered */
    for (int tries = 0; st == MNS_ENOTSUP && n != 0 && tries < 8; tries++) {
        mt_modulus(p, bits, MT_MOD_PRIME);
        st = mns_pmns_generate_var(&P, p, &o);
    }
    char what[128];
    snprintf(what, sizeof what, "%zu-bit %s E=%s delta=%d n=%d", bits,
             word == MNS_PMNS_WORD_U52 ? "u52" : "s64", e == MNS_PMNS_E_BINOMIAL ? "lambda" : "x1",
             delta, n);
    if (st == MNS_ENOTSUP) {
        printf("  skip %s: %s\n", what, mns_last_error());
    } else {
        MT_CHECK(st == MNS_OK, "%s: generate: %s", what, mns_last_error());
        if (P) {
            printf("  %s: %s\n", what, mns_pmns_params_describe(P));
            check_params(P, what, rounds);
            mns_pmns_params_free(P);
        }
    }
    mpz_clear(p);
}

static void gen_and_check(size_t bits, mns_pmns_word word, mns_pmns_eshape e, int delta,
                          unsigned rounds)
{
    gen_and_check_n(bits, word, e, delta, 0, rounds);
}

/* 1 if pmns-ifma may answer MNS_ENOTSUP here (no IFMA, or MNS_CPU=generic):
 * the only refusal the field checks accept, so that a generation failure
 * cannot pass as a skip. */
static int ifma_refused(const char *spec)
{
    return strncmp(spec, "pmns-ifma", 9) == 0 && !(mns_cpu_has_ifma() && mns_cpu_features() != 0);
}

static void field_checks(size_t bits, const char *const *specs, unsigned chain)
{
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, bits, MT_MOD_PRIME);
    for (int i = 0; specs[i]; i++) {
        mt_field_opts o = {.iters = 30, .chain = chain, .powms = 8,
                           .allow_notsup = ifma_refused(specs[i])};
        long bad = mt_field_check(specs[i], p, &o);
        MT_CHECK(bad == 0, "mt_field_check(%s, %zu bits): %ld failures", specs[i], bits, bad);
    }
    mpz_clear(p);
}

static void bad_input(void)
{
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 256, MT_MOD_PRIME);
    mns_field *f = NULL;
    const char *bad[] = {"pmns:delta=-1", "pmns:E=foo", "pmns:n=1", "pmns:zz=1",
                         "pmns-ifma:delta=x", "pmns:params=/nonexistent/file", NULL};
    for (int i = 0; bad[i]; i++) {
        mns_status st = mns_field_new(&f, p, bad[i]);
        MT_CHECK(st != MNS_OK && f == NULL, "%s accepted", bad[i]);
    }
    /* a composite modulus: the generator refuses, no crash */
    mpz_set_ui(p, 1);
    mpz_mul_2exp(p, p, 200);
    mpz_add_ui(p, p, 1);
    mpz_mul_ui(p, p, 3);
    mns_status st = mns_field_new(&f, p, "pmns");
    MT_CHECK(st != MNS_OK && f == NULL, "pmns on a composite modulus accepted");
    mns_pmns_ctx *c = NULL;
    MT_CHECK(mns_pmns_ctx_new_var(&c, NULL, 0) == MNS_EINVAL, "NULL params accepted");
    mpz_clear(p);
}

/* `n=N` with the N the default chose gives the same set: the generator's M
 * depends on the n it evaluated before, so an explicit n runs the search
 * capped at N (backend.c). Found on 512-bit primes where the default's
 * n = 13 reached delta 1 and `pmns-ifma:n=13` alone did not and was refused. */
static void explicit_n_matches_default(size_t bits, int primes)
{
    static const char *const specs[] = {"pmns", "pmns-ifma", NULL};
    mpz_t p;
    mpz_init(p);
    for (int k = 0; k < primes; k++) {
        mt_modulus(p, bits, MT_MOD_PRIME);
        for (int i = 0; specs[i]; i++) {
            mns_field *f = NULL, *g = NULL;
            if (mns_field_new(&f, p, specs[i]) != MNS_OK) {
                MT_CHECK(ifma_refused(specs[i]), "%s at %zu bits: %s", specs[i], bits, mns_last_error());
                continue;
            }
            char want[512], spec[64];
            snprintf(want, sizeof want, "%s", mns_field_describe(f));
            const char *np = strstr(want, " n=");
            MT_CHECK(np != NULL, "no n= in \"%s\"", want);
            if (np) {
                snprintf(spec, sizeof spec, "%s:n=%d", specs[i], atoi(np + 3));
                mns_status st = mns_field_new(&g, p, spec);
                MT_CHECK(st == MNS_OK, "%s refused where the default chose it (%zu bits): %s", spec,
                         bits, mns_last_error());
                MT_CHECK(st != MNS_OK || strcmp(mns_field_describe(g), want) == 0,
                         "%s: \"%s\" differs from the default's \"%s\"", spec,
                         st == MNS_OK ? mns_field_describe(g) : "", want);
                mns_field_free(g);
            }
            mns_field_free(f);
        }
    }
    mpz_clear(p);
}

static void shipped(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".txt") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        mns_pmns_params *P = NULL;
        mns_status st = mns_pmns_params_load_var(&P, path);
        MT_CHECK(st == MNS_OK, "load %s: %s", path, mns_last_error());
        if (st != MNS_OK)
            continue;
        if (mns_pmns_params_s(P) == 1) {
            printf("  shipped %s: %s\n", e->d_name, mns_pmns_params_describe(P));
            check_params(P, e->d_name, 30);
            /* the field on the set (params=FILE): round trips of 0, 1, p-1,
             * far above p and negative, aliasing, the delta limit, a chain of
             * 10^4 products, powm; the sizes above 1024 bits that are too slow
             * to generate here */
            char spec[1100], cwd[4096];
            snprintf(spec, sizeof spec, "%s:params=%s",
                     mns_pmns_params_word(P) == MNS_PMNS_WORD_U52 ? "pmns-ifma" : "pmns", e->d_name);
            /* option values are short (MNS_OPT_VAL_MAX): the file by its
             * name, from its directory */
            MT_CHECK(getcwd(cwd, sizeof cwd) && chdir(dir) == 0, "chdir %s", dir);
            mt_field_opts o = {.iters = 20, .chain = 10000, .powms = 8,
                               .allow_notsup = ifma_refused(spec)};
            long bad = mt_field_check(spec, mns_pmns_params_p(P), &o);
            MT_CHECK(bad == 0, "mt_field_check(%s): %ld failures", spec, bad);
            MT_CHECK(chdir(cwd) == 0, "chdir back to %s", cwd);
        }
        mns_pmns_params_free(P);
    }
    closedir(d);
}

int main(void)
{
    mt_init("test_pmns");
    bad_input();

    static const size_t sizes[] = {128, 192, 256, 384, 521, 768, 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned rounds = sizes[i] <= 521 ? 60 : 30;
        gen_and_check(sizes[i], MNS_PMNS_WORD_S64, MNS_PMNS_E_BINOMIAL, 0, rounds);
        gen_and_check(sizes[i], MNS_PMNS_WORD_U52, MNS_PMNS_E_BINOMIAL, 0, rounds);
        if (sizes[i] <= 521) {
            gen_and_check(sizes[i], MNS_PMNS_WORD_S64, MNS_PMNS_E_TRINOMIAL, 0, rounds);
            gen_and_check(sizes[i], MNS_PMNS_WORD_U52, MNS_PMNS_E_TRINOMIAL, 0, rounds);
            gen_and_check(sizes[i], MNS_PMNS_WORD_S64, MNS_PMNS_E_BINOMIAL, 3, rounds);
            gen_and_check(sizes[i], MNS_PMNS_WORD_U52, MNS_PMNS_E_BINOMIAL, 8, rounds);
        }
    }

    /* the IFMA register kernels are one function per n (up to 64,
     * kernel_ifma.c): every one of them here (forced n, p of 24n bits so
     * that rho stays large enough for reduce), compared with GMP and word for
     * word with the portable twin; n = 65 and more (the general path)
     * through the shipped sets and test_slow_pmns */
    for (int n = 2; n <= 64; n++)
        gen_and_check_n((size_t)(24 * n), MNS_PMNS_WORD_U52, MNS_PMNS_E_BINOMIAL, 0, n, 8);

    static const char *const small_specs[] = {"pmns", "pmns-ifma", "pmns:E=x1", "pmns-ifma:E=x1",
                                              "pmns:delta=2", "pmns-ifma:delta=1", NULL};
    static const char *const specs[] = {"pmns", "pmns-ifma", NULL};
    /* delta=3: more than the first u52 set gives, so the backend's search
     * (next n, larger set delta) runs */
    static const char *const big_specs[] = {"pmns", "pmns-ifma", "pmns-ifma:delta=3", NULL};
    field_checks(128, small_specs, 10000);
    field_checks(256, small_specs, 10000);
    field_checks(521, specs, 10000);
    field_checks(1024, big_specs, 10000);
    explicit_n_matches_default(512, 40);
    explicit_n_matches_default(1024, 4);

    const char *dir = getenv("MNS_TEST_PMNS_PARAMS");
    if (dir)
        shipped(dir);
    shipped(MNS_SOURCE_DIR "/params");
    return mt_finish();
}
