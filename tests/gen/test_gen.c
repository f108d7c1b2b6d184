/* PMNS parameter generation (src/gen/): random primes of 64 to 4096 bits for
 * both word kinds, several s and delta, both shapes of E; every returned set
 * is checked independently (gen_check.h) and converted into by the lattice;
 * n-th roots and irreducibility against FLINT; bad inputs get a status;
 * progress and cancellation; shipped params/ load, and a sample regenerates
 * identically. 8192 bits and the large single-precision sets live in
 * test_slow_gen.c; the reader's fuzz target in test_gen_fuzz.c. */
#include <dirent.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flint/fmpz_mod.h>
#include <flint/fmpz_mod_poly.h>
#include <flint/fmpz_mod_poly_factor.h>

#include "core/deadline.h"
#include "gen/gen.h"
#include "gen/tools/pi_prime.h"
#include "gen_check.h"

#ifndef MNS_SOURCE_DIR
#define MNS_SOURCE_DIR "."
#endif

/* FLINT's roots of X^n + c1 X + c0 mod p: how many, and up to max of them
 * (in [0, p), sorted) in r (NULL: count only). */
static int flint_roots(mpz_t *r, int max, const mpz_t p, int n, long c1, const mpz_t c0)
{
    fmpz_t P, c;
    fmpz_init(P);
    fmpz_init(c);
    fmpz_set_mpz(P, p);
    fmpz_mod_ctx_t ctx;
    fmpz_mod_ctx_init(ctx, P);
    fmpz_mod_poly_t f;
    fmpz_mod_poly_init(f, ctx);
    fmpz_mod_poly_set_coeff_ui(f, (slong)n, 1, ctx);
    fmpz_mod_poly_set_coeff_si(f, 1, c1, ctx);
    fmpz_set_mpz(c, c0);
    fmpz_mod_poly_set_coeff_fmpz(f, 0, c, ctx);
    fmpz_mod_poly_factor_t fac;
    fmpz_mod_poly_factor_init(fac, ctx);
    fmpz_mod_poly_roots(fac, f, 0, ctx);
    int num = (int)fac->num;
    for (int i = 0; r && i < num && i < max; i++) {
        fmpz_mod_poly_get_coeff_fmpz(c, fac->poly + i, 0, ctx);
        fmpz_neg(c, c);
        fmpz_mod(c, c, P);
        fmpz_get_mpz(r[i], c);
        for (int j = i; j > 0 && mpz_cmp(r[j - 1], r[j]) > 0; j--)
            mpz_swap(r[j - 1], r[j]);
    }
    fmpz_mod_poly_factor_clear(fac, ctx);
    fmpz_mod_poly_clear(f, ctx);
    fmpz_mod_ctx_clear(ctx);
    fmpz_clear(P);
    fmpz_clear(c);
    return num;
}

static void test_nroots(void)
{
    /* every root found is a root, and the count matches FLINT's */
    mpz_t p, a, t, r[64];
    mpz_inits(p, a, t, NULL);
    for (int i = 0; i < 64; i++)
        mpz_init(r[i]);
    long bad = 0, cmp = 0;
    for (int it = 0; it < 300; it++) {
        mt_modulus(p, 32 + mt_below(200), MT_MOD_PRIME);
        unsigned long n = 2 + mt_below(47);
        long lam = (long)mt_below(13) - 6;
        if (it % 7 == 0)
            mpz_urandomm(a, mt_rand, p);
        else
            mpz_set_si(a, lam ? lam : 3);
        mpz_mod(a, a, p);
        if (mpz_sgn(a) == 0)
            continue;
        /* the cached power-residue characters of the lambda search agree
         * with the direct test for every small lambda */
        if (it % 5 == 0) {
            mns_chi_cache cc = {0};
            for (long l = -16; l <= 16; l++) {
                mpz_set_si(t, l);
                mpz_mod(t, t, p);
                if (mpz_sgn(t) == 0)
                    continue;
                bad += mns_is_nth_power_si(&cc, l, n, p) != mns_is_nth_power(t, n, p);
            }
            mns_chi_cache_clear(&cc);
        }
        int c = mns_nroots(r, 64, a, n, p);
        for (int i = 0; i < c; i++) {
            mpz_powm_ui(t, r[i], n, p);
            bad += mpz_cmp(t, a) != 0;
            if (i)
                bad += mpz_cmp(r[i - 1], r[i]) >= 0; /* sorted, distinct */
        }
        if (it % 3 == 0) {
            mpz_neg(t, a);
            int num = flint_roots(NULL, 0, p, (int)n, 0, t);
            cmp++;
            if (num != c && !(c == 64 && num > 64))
                bad++;
        }
    }
    MT_CHECK(bad == 0, "n-th roots: %ld bad (of which FLINT comparisons: %ld run)", bad, cmp);
    for (int i = 0; i < 64; i++)
        mpz_clear(r[i]);
    mpz_clears(p, a, t, NULL);
}

/* The roots of X^n - X - 1 (troot.c: Kronecker squarings, then FLINT on the
 * gcd) are FLINT's fmpz_mod_poly_roots, sorted, for random and tiny p. */
static void test_trinomial_roots(void)
{
    mpz_t p, t, m1, r[64], f[64];
    mpz_inits(p, t, NULL);
    mpz_init_set_si(m1, -1);
    for (int i = 0; i < 64; i++) {
        mpz_init(r[i]);
        mpz_init(f[i]);
    }
    long bad = 0, with_roots = 0;
    for (int it = 0; it < 120; it++) {
        if (it < 12)
            mpz_set_ui(p, (unsigned long[]){3, 5, 7, 11, 13, 17, 19, 23, 101, 257, 65537, 4294967291UL}[it]);
        else
            mt_modulus(p, 16 + mt_below(it < 110 ? 300 : 1100), MT_MOD_PRIME);
        int n = 2 + (int)mt_below(it < 110 ? 40 : 12);
        int c = mns_trinomial_roots(r, 64, n, p);
        int want = flint_roots(f, 64, p, n, -1, m1);
        if (c != (want > 64 ? 64 : want)) {
            bad++;
            gmp_printf("  X^%d - X - 1 mod %Zd: %d roots, FLINT %d\n", n, p, c, want);
        }
        with_roots += c > 0;
        for (int i = 0; i < c; i++) {
            /* a root, in [0, p), sorted and distinct, and FLINT's */
            mpz_powm_ui(t, r[i], (unsigned long)n, p);
            mpz_sub(t, t, r[i]);
            mpz_sub_ui(t, t, 1);
            bad += !mpz_divisible_p(t, p) || mpz_sgn(r[i]) < 0 || mpz_cmp(r[i], p) >= 0;
            if (i)
                bad += mpz_cmp(r[i - 1], r[i]) >= 0;
            bad += mpz_cmp(r[i], f[i]) != 0;
        }
    }
    MT_CHECK(bad == 0 && with_roots > 20, "X^n - X - 1 roots agree with FLINT (%ld bad, %ld with roots)", bad,
             with_roots);
    for (int i = 0; i < 64; i++) {
        mpz_clear(r[i]);
        mpz_clear(f[i]);
    }
    mpz_clears(p, t, m1, NULL);
}

static void test_irreducible(void)
{
    long bad = 0;
    fmpz_poly_t E;
    fmpz_poly_init(E);
    for (int n = 2; n <= 16; n++)
        for (long lam = -20; lam <= 20; lam++) {
            if (!lam)
                continue;
            fmpz_poly_zero(E);
            fmpz_poly_set_coeff_si(E, n, 1);
            fmpz_poly_set_coeff_si(E, 0, -lam);
            fmpz_poly_factor_t fac;
            fmpz_poly_factor_init(fac);
            fmpz_poly_factor(fac, E);
            int irr = fac->num == 1 && fac->exp[0] == 1;
            fmpz_poly_factor_clear(fac);
            if (irr != mns_binomial_irreducible(n, lam)) {
                bad++;
                printf("  X^%d - (%ld): FLINT says %d\n", n, lam, irr);
            }
        }
    fmpz_poly_clear(E);
    MT_CHECK(bad == 0, "Capelli irreducibility agrees with FLINT's factorisation (%ld bad)", bad);
}

static double total_gen;

/* One random prime per size from 2048 bits on: finding a 4096-bit prime
 * costs more than generating its PMNS. */
static void test_prime(mpz_t p, size_t bits)
{
    static mpz_t cache[8];
    static size_t cache_bits[8];
    static int used;
    if (bits < 2048) {
        mt_modulus(p, bits, MT_MOD_PRIME);
        return;
    }
    for (int i = 0; i < used; i++)
        if (cache_bits[i] == bits) {
            mpz_set(p, cache[i]);
            return;
        }
    mt_modulus(p, bits, MT_MOD_PRIME);
    if (used < 8) {
        mpz_init_set(cache[used], p);
        cache_bits[used++] = bits;
    }
}

static void gen_one(size_t bits, mns_pmns_word word, int s, int delta, mns_pmns_eshape e, int reps)
{
    mpz_t p;
    mpz_init(p);
    test_prime(p, bits);
    mns_pmns_gen_opts o;
    mns_pmns_gen_opts_init(&o);
    o.word = word;
    o.s = s;
    o.delta = delta;
    o.eshape = e;
    mns_pmns_params *P = NULL;
    double t0 = mns_gen_now();
    mns_status st = mns_pmns_generate_var(&P, p, &o);
    double dt = mns_gen_now() - t0;
    total_gen += dt;
    char tag[160];
    snprintf(tag, sizeof tag, "%zu bits %s s=%s%d delta=%d %s", bits, word == MNS_PMNS_WORD_U52 ? "u52" : "s64",
             s ? "" : "auto", s, delta,
             e == MNS_PMNS_E_TRINOMIAL ? "X^n-X-1" : e == MNS_PMNS_E_AUTO ? "E auto" : "X^n-lambda");
    if (e == MNS_PMNS_E_TRINOMIAL && st == MNS_ENOTSUP) {
        /* possible in principle (no root for any n tried); say so */
        printf("  %s: ENOTSUP: %s\n", tag, mns_last_error());
    } else {
        MT_CHECK(st == MNS_OK, "%s: generate: %s", tag, mns_last_error());
    }
    if (P) {
        printf("  %-44s n=%-3d s*n=%-4d %-14s %.2f s\n", tag, mns_pmns_params_n(P),
               mns_pmns_params_n(P) * mns_pmns_params_s(P), strstr(mns_pmns_params_describe(P), "E="), dt);
        MT_CHECK(s == 0 || mns_pmns_params_s(P) == s, "%s: s as asked", tag);
        MT_CHECK(mns_pmns_params_delta(P) == delta, "%s: delta as asked", tag);
        gen_check(P, tag, reps);
        mns_pmns_params_free(P);
    }
    mpz_clear(p);
}

static void test_generate(void)
{
    const mns_pmns_word W[2] = {MNS_PMNS_WORD_S64, MNS_PMNS_WORD_U52};
    static const size_t small[] = {64, 100, 128, 192, 256, 384, 512, 768, 1024};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        for (int w = 0; w < 2; w++) {
            size_t b = small[i];
            gen_one(b, W[w], 1, (int)((i + (size_t)w) % 3 == 2 ? 5 : (i + (size_t)w) % 3), MNS_PMNS_E_BINOMIAL, 6);
            if (b >= 256)
                gen_one(b, W[w], 2, (int)(i % 2), MNS_PMNS_E_BINOMIAL, 4);
            if (b >= 512)
                gen_one(b, W[w], 0, 1, MNS_PMNS_E_BINOMIAL, 3);
        }
    gen_one(256, MNS_PMNS_WORD_S64, 1, 0, MNS_PMNS_E_TRINOMIAL, 4);
    gen_one(512, MNS_PMNS_WORD_U52, 1, 5, MNS_PMNS_E_TRINOMIAL, 4);
    gen_one(1024, MNS_PMNS_WORD_S64, 3, 2, MNS_PMNS_E_TRINOMIAL, 2);
    gen_one(768, MNS_PMNS_WORD_U52, 1, 1, MNS_PMNS_E_AUTO, 3);
    gen_one(1024, MNS_PMNS_WORD_S64, 2, 0, MNS_PMNS_E_AUTO, 2); /* s > 1: X^n - lambda */
    gen_one(2048, MNS_PMNS_WORD_S64, 1, 0, MNS_PMNS_E_BINOMIAL, 2);
    gen_one(2048, MNS_PMNS_WORD_S64, 3, 0, MNS_PMNS_E_BINOMIAL, 2);
    gen_one(2048, MNS_PMNS_WORD_U52, 3, 1, MNS_PMNS_E_BINOMIAL, 2);
    gen_one(3072, MNS_PMNS_WORD_S64, 3, 1, MNS_PMNS_E_BINOMIAL, 2);
    gen_one(4096, MNS_PMNS_WORD_S64, 4, 0, MNS_PMNS_E_BINOMIAL, 2);
    gen_one(4096, MNS_PMNS_WORD_U52, 4, 5, MNS_PMNS_E_BINOMIAL, 1);
}

static int parse_regen(const char *line, mpz_t p, mns_pmns_gen_opts *o);

/* E auto: never a larger n than X^n - lambda, the set says which E it has,
 * and it is X^n - lambda whenever s > 1. Primes where X^n - X - 1 wins an n
 * (found with mns-pmns-gen --random-bits B --seed S --e auto) are among the
 * random ones here often enough: at 1024 bits u52 about one in three. */
static void test_eshape_auto(void)
{
    mpz_t p;
    mpz_init(p);
    int won = 0, tried = 0;
    for (int it = 0; it < 6; it++) {
        size_t bits = it < 4 ? 512 + 128 * (size_t)it : 1024;
        mns_pmns_word word = it % 2 ? MNS_PMNS_WORD_S64 : MNS_PMNS_WORD_U52;
        mt_modulus(p, bits, MT_MOD_PRIME);
        mns_pmns_gen_opts o;
        mns_pmns_gen_opts_init(&o);
        o.word = word;
        o.delta = it % 3;
        mns_pmns_params *B = NULL, *A = NULL;
        mns_status sb = mns_pmns_generate_var(&B, p, &o);
        o.eshape = MNS_PMNS_E_AUTO;
        mns_status sa = mns_pmns_generate_var(&A, p, &o);
        char tag[96];
        snprintf(tag, sizeof tag, "E auto %zu bits %s delta=%d", bits, word == MNS_PMNS_WORD_U52 ? "u52" : "s64",
                 o.delta);
        MT_CHECK(sb == MNS_OK && sa == MNS_OK, "%s: generate: %s", tag, mns_last_error());
        if (A && B) {
            tried++;
            int na = mns_pmns_params_n(A), nb = mns_pmns_params_n(B);
            MT_CHECK(na <= nb, "%s: n = %d, X^n - lambda gives %d", tag, na, nb);
            MT_CHECK((na < nb) == (mns_pmns_params_eshape(A) == MNS_PMNS_E_TRINOMIAL),
                     "%s: X^n - X - 1 exactly when it wins an n", tag);
            won += na < nb;
            gen_check(A, tag, 2);
            /* the regenerate line says --e auto and gives the same set */
            char *t = mns_pmns_params_to_string_var(A, NULL);
            MT_CHECK(t && strstr(t, " --e auto "), "%s: regenerate line has --e auto", tag);
            if (t && it < 2) {
                char line[8192];
                const char *nl = strchr(t, '\n');
                snprintf(line, sizeof line, "%.*s", nl ? (int)(nl - t) - 14 : 0, t + 14);
                mpz_t q;
                mpz_init(q);
                mns_pmns_gen_opts ro;
                mns_pmns_params *R = NULL;
                MT_CHECK(parse_regen(line, q, &ro) && ro.eshape == MNS_PMNS_E_AUTO &&
                             mns_pmns_generate_var(&R, q, &ro) == MNS_OK,
                         "%s: regenerates from its first line", tag);
                char *t2 = R ? mns_pmns_params_to_string_var(R, NULL) : NULL;
                MT_CHECK(t2 && !strcmp(t, t2), "%s: regenerates identically", tag);
                free(t2);
                mns_pmns_params_free(R);
                mpz_clear(q);
            }
            free(t);
        }
        mns_pmns_params_free(A);
        mns_pmns_params_free(B);
    }
    printf("  E auto: X^n - X - 1 won an n for %d of %d primes\n", won, tried);
    mpz_clear(p);
}

static void expect(mns_status want, const mpz_t p, const mns_pmns_gen_opts *o, const char *what)
{
    mns_pmns_params *P = (mns_pmns_params *)1;
    mns_status st = mns_pmns_generate_var(&P, p, o);
    MT_CHECK(st == want, "%s: status %s, want %s (%s)", what, mns_strerror(st), mns_strerror(want),
             mns_last_error());
    MT_CHECK(st == MNS_OK ? P != NULL : P == NULL, "%s: *out set iff MNS_OK", what);
    MT_CHECK(st == MNS_OK || mns_last_error()[0] != '\0', "%s: a message explains the status", what);
    if (st == MNS_OK) {
        gen_check(P, what, 2);
        mns_pmns_params_free(P);
    }
}

static void test_bad_inputs(void)
{
    mpz_t p;
    mpz_init(p);
    mns_pmns_gen_opts o;
    mns_pmns_gen_opts_init(&o);
    /* tiny primes: either a verified set or ENOTSUP, never a crash */
    const unsigned long tiny[] = {3, 5, 7, 101, 65537};
    for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++)
        for (int w = 0; w < 2; w++) {
            mpz_set_ui(p, tiny[i]);
            o.word = w ? MNS_PMNS_WORD_U52 : MNS_PMNS_WORD_S64;
            mns_pmns_params *P = NULL;
            mns_status st = mns_pmns_generate_var(&P, p, &o);
            MT_CHECK(st == MNS_OK || st == MNS_ENOTSUP, "p = %lu: status %s (%s)", tiny[i], mns_strerror(st),
                     mns_last_error());
            if (P) {
                char tag[32];
                snprintf(tag, sizeof tag, "p = %lu", tiny[i]);
                gen_check(P, tag, 3);
                mns_pmns_params_free(P);
            }
        }
    mns_pmns_gen_opts_init(&o);
    mpz_set_ui(p, 0);
    expect(MNS_EINVAL, p, &o, "p = 0");
    mpz_set_ui(p, 1);
    expect(MNS_EINVAL, p, &o, "p = 1");
    mpz_set_si(p, -7);
    expect(MNS_EINVAL, p, &o, "p = -7");
    mpz_set_ui(p, 1ul << 40);
    expect(MNS_EINVAL, p, &o, "p even");
    mt_modulus(p, 512, MT_MOD_PRIME);
    mpz_mul_ui(p, p, 3);
    expect(MNS_EINVAL, p, &o, "p composite");
    mpz_set_ui(p, 1);
    mpz_mul_2exp(p, p, MNS_PMNS_P_BITS_MAX + 10);
    mpz_add_ui(p, p, 1);
    expect(MNS_EINVAL, p, &o, "p too large");
    mt_modulus(p, 1024, MT_MOD_PRIME);
    o.n = 100000;
    expect(MNS_ERANGE, p, &o, "huge n");
    o.n = 1;
    expect(MNS_ERANGE, p, &o, "n = 1");
    o.n = 2;
    expect(MNS_ENOTSUP, p, &o, "n = 2 for 1024 bits");
    o.n = 5;
    o.s = 0;
    /* whether some |lambda| <= 16 gives X^5 - lambda a root mod p depends
     * on p (about 1 prime in 5 has none for n = 5 here): 2^1024 - 105 has
     * lambda = 2 (checked when this test was written), so use it */
    mpz_ui_pow_ui(p, 2, 1024);
    mpz_sub_ui(p, p, 105);
    expect(MNS_OK, p, &o, "n = 5 with automatic s");
    mns_pmns_gen_opts_init(&o);
    o.s = -1;
    expect(MNS_EINVAL, p, &o, "s = -1");
    mns_pmns_gen_opts_init(&o);
    o.delta = -1;
    expect(MNS_EINVAL, p, &o, "delta = -1");
    mns_pmns_gen_opts_init(&o);
    o.word = (mns_pmns_word)7;
    expect(MNS_EINVAL, p, &o, "unknown word");
    mns_pmns_gen_opts_init(&o);
    o.eshape = (mns_pmns_eshape)9;
    expect(MNS_EINVAL, p, &o, "unknown E");
    mns_pmns_gen_opts_init(&o);
    o.lambda_max = 0;
    expect(MNS_EINVAL, p, &o, "lambda_max = 0");
    mns_pmns_gen_opts_init(&o);
    o.n_max = 10;
    expect(MNS_ENOTSUP, p, &o, "n_max too small");
    mns_pmns_gen_opts_init(&o);
    o.delta = 1000;
    o.n_max = 30;
    expect(MNS_ENOTSUP, p, &o, "delta 1000 with n <= 30");
    MT_CHECK(mns_pmns_generate_var(NULL, p, &o) == MNS_EINVAL, "NULL out");
    mns_pmns_params *P = NULL;
    MT_CHECK(mns_pmns_generate_var(&P, NULL, &o) == MNS_EINVAL && !P, "NULL p");
    MT_CHECK(mns_pmns_verify_var(NULL) == MNS_EINVAL, "verify NULL");
    mns_pmns_params_free(NULL);
    mpz_clear(p);
}

typedef struct prog {
    int calls, cancel_at;
    double last;
    int monotone, done;
} prog;

static int on_progress(void *arg, const char *stage, int n, double f)
{
    prog *g = arg;
    (void)n;
    g->calls++;
    if (f < 0 || f > 1)
        g->monotone = 0;
    if (!strcmp(stage, "done"))
        g->done++;
    return g->cancel_at && g->calls >= g->cancel_at;
}

static void test_progress(void)
{
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 768, MT_MOD_PRIME);
    mns_pmns_gen_opts o;
    mns_pmns_gen_opts_init(&o);
    prog g = {0, 0, 0, 1, 0};
    o.progress = on_progress;
    o.progress_arg = &g;
    mns_pmns_params *P = NULL;
    MT_CHECK(mns_pmns_generate_var(&P, p, &o) == MNS_OK, "progress run: %s", mns_last_error());
    MT_CHECK(g.calls >= 3 && g.done == 1 && g.monotone, "progress called (%d calls, done %d)", g.calls, g.done);
    mns_pmns_params_free(P);
    prog c = {0, 2, 0, 1, 0};
    o.progress_arg = &c;
    P = NULL;
    mns_status st = mns_pmns_generate_var(&P, p, &o);
    MT_CHECK(st == MNS_ERANGE && !P, "cancel from the callback: %s (%s)", mns_strerror(st), mns_last_error());

    /* the calling thread's deadline (core/deadline.h): passed, the
     * generator gives up before any work and says why; a distant one and
     * none change nothing */
    o.progress = NULL;
    o.progress_arg = NULL;
    mns_deadline_set_ms(1e-9);
    for (volatile int spin = 0; spin < 1000; spin++)
        ;
    P = NULL;
    st = mns_pmns_generate_var(&P, p, &o);
    MT_CHECK(st == MNS_ERANGE && !P && strstr(mns_last_error(), "deadline"),
             "passed deadline: %s (%s)", mns_strerror(st), mns_last_error());
    mns_deadline_set_ms(1e7);
    st = mns_pmns_generate_var(&P, p, &o);
    MT_CHECK(st == MNS_OK, "distant deadline: %s", mns_last_error());
    mns_pmns_params_free(P);
    mns_deadline_set_ms(0);
    P = NULL;
    st = mns_pmns_generate_var(&P, p, &o);
    MT_CHECK(st == MNS_OK, "deadline removed: %s", mns_last_error());
    mns_pmns_params_free(P);
    mpz_clear(p);
}

/* The options of a "# regenerate: mns-pmns-gen ..." line. */
static int parse_regen(const char *line, mpz_t p, mns_pmns_gen_opts *o)
{
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", line);
    mns_pmns_gen_opts_init(o);
    int have_p = 0;
    char *save = NULL;
    char *t = strtok_r(buf, " \n", &save);
    if (!t || strcmp(t, "mns-pmns-gen"))
        return 0;
    while ((t = strtok_r(NULL, " \n", &save))) {
        if (!strcmp(t, "--smooth-n")) {
            o->flags |= MNS_PMNS_GEN_SMOOTH_N;
            continue;
        }
        if (!strcmp(t, "--no-improve")) {
            o->flags |= MNS_PMNS_GEN_NO_IMPROVE;
            continue;
        }
        char *v = strtok_r(NULL, " \n", &save);
        if (!v)
            return 0;
        if (!strcmp(t, "--pi-bits")) {
            mns_pi_prime(p, strtoul(v, NULL, 10));
            have_p = 1;
        } else if (!strcmp(t, "--p")) {
            have_p = mpz_set_str(p, v, 0) == 0;
        } else if (!strcmp(t, "--word")) {
            o->word = strcmp(v, "u52") ? MNS_PMNS_WORD_S64 : MNS_PMNS_WORD_U52;
        } else if (!strcmp(t, "--s")) {
            o->s = strcmp(v, "auto") ? atoi(v) : 0;
        } else if (!strcmp(t, "--s-max")) {
            o->s_max = atoi(v);
        } else if (!strcmp(t, "--delta")) {
            o->delta = atoi(v);
        } else if (!strcmp(t, "--n")) {
            o->n = strcmp(v, "auto") ? atoi(v) : 0;
        } else if (!strcmp(t, "--n-max")) {
            o->n_max = atoi(v);
        } else if (!strcmp(t, "--e")) {
            o->eshape = !strcmp(v, "trinomial") ? MNS_PMNS_E_TRINOMIAL
                        : !strcmp(v, "auto")      ? MNS_PMNS_E_AUTO
                                                  : MNS_PMNS_E_BINOMIAL;
        } else if (!strcmp(t, "--lambda-max")) {
            o->lambda_max = atol(v);
        } else if (!strcmp(t, "--toeplitz-adds")) {
            o->toeplitz_adds = atoi(v);
        } else if (!strcmp(t, "--gamma-tries")) {
            o->gamma_tries = atoi(v);
        } else {
            return 0;
        }
    }
    return have_p;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_params_dir(void)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/params", MNS_SOURCE_DIR);
    DIR *d = opendir(dir);
    if (!d) {
        printf("  no %s: shipped sets not checked\n", dir);
        return;
    }
    char *names[512];
    int cnt = 0;
    struct dirent *de;
    while ((de = readdir(d)) && cnt < 512) {
        size_t l = strlen(de->d_name);
        if (l > 4 && !strcmp(de->d_name + l - 4, ".txt"))
            names[cnt++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)cnt, sizeof names[0], cmp_str);
    int regenerated = 0;
    for (int i = 0; i < cnt; i++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        mns_pmns_params *P = NULL;
        mns_status st = mns_pmns_params_load_var(&P, path);
        MT_CHECK(st == MNS_OK, "params/%s loads: %s", names[i], mns_last_error());
        if (P && mpz_sizeinbase(mns_pmns_params_p(P), 2) <= 1100 && regenerated < 3) {
            /* regenerate from the first line and compare byte for byte */
            FILE *f = fopen(path, "r");
            char *line = malloc(16384);
            size_t len = 0;
            char *text = NULL;
            if (f) {
                fseek(f, 0, SEEK_END);
                len = (size_t)ftell(f);
                fseek(f, 0, SEEK_SET);
                text = malloc(len + 1);
                if (text && fread(text, 1, len, f) == len)
                    text[len] = '\0';
                fclose(f);
            }
            if (text && line) {
                const char *nl = strchr(text, '\n');
                size_t l1 = nl ? (size_t)(nl - text) : 0;
                snprintf(line, 16384, "%.*s", (int)(l1 > 14 ? l1 - 14 : 0), text + 14);
                mpz_t p;
                mpz_init(p);
                mns_pmns_gen_opts o;
                int ok = parse_regen(line, p, &o);
                MT_CHECK(ok, "params/%s: first line parses as a mns-pmns-gen command", names[i]);
                mns_pmns_params *Q = NULL;
                if (ok && mns_pmns_generate_var(&Q, p, &o) == MNS_OK) {
                    char *t2 = mns_pmns_params_to_string_var(Q, line);
                    MT_CHECK(t2 && !strcmp(t2, text), "params/%s regenerates identically", names[i]);
                    free(t2);
                    mns_pmns_params_free(Q);
                    regenerated++;
                } else {
                    MT_CHECK(0, "params/%s: regeneration failed: %s", names[i], mns_last_error());
                }
                mpz_clear(p);
            }
            free(text);
            free(line);
        }
        mns_pmns_params_free(P);
        free(names[i]);
    }
    printf("  params/: %d sets loaded and verified, %d regenerated\n", cnt, regenerated);
}

/* The prime of the two tests below and their options: u52, s = 3, n = 8,
 * delta = 1, t = 1 (the unsplit IFMA kernel's request). */
static void walk_prime(mpz_t p, mns_pmns_gen_opts *o)
{
    mpz_init_set_str(p,
                     "faa1a4777eae6549beb770db06a8ec8ce26ecc34b4d9366c56d59834176dcf4599e1ba9f02"
                     "3d7ffb72f46881fcea9b6b8946c9a3320900b05f39919a54aa29adfd26b0422a80d9c253409"
                     "1bbe08b96257b7e8e983fe62c1da465829c3bb1d9b6378b242f329153199d1eab4496d8af16"
                     "e4c740761ae33519a6135aa03a706ae5",
                     16);
    mns_pmns_gen_opts_init(o);
    o->word = MNS_PMNS_WORD_U52;
    o->s = 3;
    o->n = 8;
    o->delta = 1;
    o->toeplitz_adds = 1;
}

/* MNS_PMNS_GEN_LAMBDA_WALK: a 1024-bit prime (found by search, about 1 in
 * 200) whose smallest lambda for X^8 - lambda gives no u52 set with s = 3,
 * delta = 1, while a later one (14) does. Without the walk: refused; with
 * it: a set that verifies, with that lambda, whose regenerate line says so. */
static void test_lambda_walk(void)
{
    mpz_t p;
    mns_pmns_gen_opts o;
    walk_prime(p, &o);
    o.lambda_max = 64;
    mns_pmns_params *P = NULL;
    MT_CHECK(mns_pmns_generate_var(&P, p, &o) == MNS_ENOTSUP, "no walk: a set (lambda %ld)",
             P ? mns_pmns_params_lambda(P) : 0);
    mns_pmns_params_free(P);
    P = NULL;
    o.flags |= MNS_PMNS_GEN_LAMBDA_WALK;
    mns_status st = mns_pmns_generate_var(&P, p, &o);
    MT_CHECK(st == MNS_OK, "walk: %s", mns_last_error());
    if (st == MNS_OK) {
        MT_CHECK(mns_pmns_params_n(P) == 8 && mns_pmns_params_s(P) == 3 &&
                     mns_pmns_params_lambda(P) == 14,
                 "walk: n=%d s=%d lambda=%ld", mns_pmns_params_n(P), mns_pmns_params_s(P),
                 mns_pmns_params_lambda(P));
        MT_CHECK(mns_pmns_verify_var(P) == MNS_OK, "walk: verify: %s", mns_last_error());
        char *t = mns_pmns_params_to_string_var(P, NULL);
        MT_CHECK(t && strstr(t, "--lambda-walk") && strstr(t, "--lambda-max 64"),
                 "regenerate line: %.200s", t ? t : "(null)");
        free(t);
        mns_pmns_params_free(P);
    }
    /* the walk stops at lambda_max */
    o.lambda_max = 13;
    P = NULL;
    MT_CHECK(mns_pmns_generate_var(&P, p, &o) == MNS_ENOTSUP, "walk to 13: a set (lambda %ld)",
             P ? mns_pmns_params_lambda(P) : 0);
    /* and says why: the lambdas it walked (those with a root) failed the
     * bounds, not "no lambda has a root" (the walk's last step) */
    const char *e = mns_last_error();
    MT_CHECK(strstr(e, "the bounds do not hold with any of the") && strstr(e, "|lambda| <= 13: "),
             "walk to 13: message: %s", e);
    mns_pmns_params_free(P);
    mpz_clear(p);
}

/* MNS_PMNS_GEN_LAMBDA_CARRIED on the prime above: (B3) with lambda_eff = 1
 * gives a set at n = 8, s = 3 with the smallest lambda (no walk), whose
 * lambda 2^k passes 2^52 (the plain (B3) refuses it); it verifies, says so
 * in its text (line and regenerate flag), reads back to the same text, and
 * without the line the reader refuses it ((B3) fails). The flag is refused
 * for s64 words. */
static void test_lambda_carried(void)
{
    mpz_t p;
    mns_pmns_gen_opts o;
    walk_prime(p, &o);
    o.flags = MNS_PMNS_GEN_LAMBDA_CARRIED;
    mns_pmns_params *P = NULL;
    mns_status st = mns_pmns_generate_var(&P, p, &o);
    MT_CHECK(st == MNS_OK, "carried: %s", mns_last_error());
    if (st == MNS_OK) {
        const long lam = mns_pmns_params_lambda(P);
        const unsigned k = mns_pmns_params_chunk_bits(P);
        MT_CHECK(mns_pmns_params_n(P) == 8 && mns_pmns_params_lambda_carried(P) == 1,
                 "carried: n=%d carried=%d", mns_pmns_params_n(P),
                 mns_pmns_params_lambda_carried(P));
        MT_CHECK(lam < 14 && (double)lam * ldexp(1.0, (int)k) >= ldexp(1.0, 52),
                 "carried: lambda=%ld k=%u: not past the plain (B3)", lam, k);
        MT_CHECK(mns_pmns_verify_var(P) == MNS_OK, "carried: verify: %s", mns_last_error());
        char *t = mns_pmns_params_to_string_var(P, NULL);
        MT_CHECK(t && strstr(t, "\nlambda_carried 1\n") && strstr(t, "--lambda-carried"),
                 "carried text: %.300s", t ? t : "(null)");
        mns_pmns_params *R = NULL;
        if (t) {
            st = mns_pmns_params_from_string_var(&R, t, strlen(t));
            MT_CHECK(st == MNS_OK, "carried: read back: %s", mns_last_error());
            char *t2 = R ? mns_pmns_params_to_string_var(R, NULL) : NULL;
            /* the same set (the regenerate lines differ: options vs. the set) */
            const char *b1 = strstr(t, "\nmns-pmns 1\n"), *b2 = t2 ? strstr(t2, "\nmns-pmns 1\n") : NULL;
            MT_CHECK(b1 && b2 && strcmp(b1, b2) == 0, "carried: read back differs");
            MT_CHECK(t2 && strstr(t2, "--lambda-carried"), "carried: read back regenerate line");
            MT_CHECK(R && mns_pmns_params_lambda_carried(R) == 1, "carried: read back flag");
            free(t2);
            mns_pmns_params_free(R);
            /* without the line: the plain (B3), which this set fails */
            char *l = strstr(t, "lambda_carried 1\n");
            if (l) {
                memmove(l, l + 17, strlen(l + 17) + 1);
                R = NULL;
                st = mns_pmns_params_from_string_var(&R, t, strlen(t));
                MT_CHECK(st == MNS_EPARSE && strstr(mns_last_error(), "eq. (7)"),
                         "carried line removed: %d %s", (int)st, mns_last_error());
                mns_pmns_params_free(R);
            }
        }
        free(t);
        mns_pmns_params_free(P);
    }
    o.word = MNS_PMNS_WORD_S64;
    P = NULL;
    MT_CHECK(mns_pmns_generate_var(&P, p, &o) == MNS_EINVAL, "carried s64: not refused");
    mns_pmns_params_free(P);
    mpz_clear(p);
}

/* Fields made in threads: several threads generate at once (the generator
 * keeps no shared state), each set is checked by a product against GMP, and
 * threads that made a field and exited leave no memory behind: FLINT's
 * per-thread caches (about 170 KB a thread, src/gen/flint_thread.c) are
 * freed when the thread ends. The leak is measured with glibc's mallinfo2
 * over threads made after a warm-up (the sanitizer build's LeakSanitizer,
 * whose allocator mallinfo2 does not see, reports it at exit instead). */
typedef struct gen_thread {
    mpz_t p, a, b;
    const char *spec;
    int ok;
    char err[256];
} gen_thread;

static void *gen_thread_run(void *arg)
{
    gen_thread *t = arg;
    mns_field *f = NULL;
    t->ok = 0;
    t->err[0] = 0;
    if (mns_field_new(&f, t->p, t->spec) != MNS_OK) {
        snprintf(t->err, sizeof t->err, "%s: %s", t->spec, mns_last_error());
        return NULL;
    }
    size_t n = mns_field_limbs(f);
    uint64_t *x = calloc(3 * n, sizeof(uint64_t));
    mpz_t r, want;
    mpz_inits(r, want, NULL);
    if (x) {
        mns_field_set_mpz(f, x, t->a);
        mns_field_set_mpz(f, x + n, t->b);
        mns_field_mul(f, x + 2 * n, x, x + n);
        mns_field_get_mpz(f, r, x + 2 * n);
        mpz_mul(want, t->a, t->b);
        mpz_mod(want, want, t->p);
        t->ok = mpz_cmp(r, want) == 0;
    }
    mpz_clears(r, want, NULL);
    if (!t->ok)
        snprintf(t->err, sizeof t->err, "%s: wrong product", t->spec);
    free(x);
    mns_field_free(f);
    return NULL;
}

/* Runs m threads at once over t[0 .. m); returns how many made a correct field. */
static int gen_threads_round(gen_thread *t, int m)
{
    pthread_t th[4];
    int started[4] = {0}, good = 0;
    for (int i = 0; i < m; i++)
        started[i] = pthread_create(&th[i], NULL, gen_thread_run, &t[i]) == 0;
    for (int i = 0; i < m; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        good += started[i] && t[i].ok;
    }
    return good;
}

static void test_threads(void)
{
    enum { M = 4, ROUNDS = 3 };
    static const char *const specs[] = {"pmns-mp:delta=0", "pmns", "pmns-mp", "pmns-mp:s=2"};
    gen_thread t[M];
    for (int i = 0; i < M; i++) {
        mpz_inits(t[i].p, t[i].a, t[i].b, NULL);
        t[i].spec = specs[i];
    }
    size_t growth[ROUNDS] = {0};
    for (int round = 0; round < ROUNDS; round++) {
        /* new primes each round, drawn here: the seed's state is not shared */
        for (int i = 0; i < M; i++) {
            mt_modulus(t[i].p, 256 + 128 * (size_t)mt_below(4), MT_MOD_PRIME);
            mpz_urandomm(t[i].a, mt_rand, t[i].p);
            mpz_urandomm(t[i].b, mt_rand, t[i].p);
        }
#ifdef __GLIBC__
        malloc_trim(0);
        size_t before = mallinfo2().uordblks;
#endif
        int good = gen_threads_round(t, M);
        for (int i = 0; i < M; i++)
            MT_CHECK(t[i].ok, "threads round %d, %zu-bit prime: %s", round,
                     mpz_sizeinbase(t[i].p, 2), t[i].err);
        MT_CHECK(good == M, "threads round %d: %d of %d threads made a correct field", round, good,
                 M);
#ifdef __GLIBC__
        size_t after = mallinfo2().uordblks;
        growth[round] = after > before ? after - before : 0;
#endif
    }
#ifdef __GLIBC__
    /* round 0 warms the process's own one-time state (tables, GMP's and
     * FLINT's globals); every later round must give its memory back: four
     * leaked threads would be about 680 KB */
    for (int round = 1; round < ROUNDS; round++)
        MT_CHECK(growth[round] < 64 * 1024,
                 "threads round %d: %zu bytes still allocated after %d threads ended", round,
                 growth[round], M);
    printf("  threads: heap growth per round of %d threads %zu / %zu / %zu bytes\n", M, growth[0],
           growth[1], growth[2]);
#endif
    for (int i = 0; i < M; i++)
        mpz_clears(t[i].p, t[i].a, t[i].b, NULL);
}

int main(void)
{
    mt_init("test_gen");
    double t0 = mns_gen_now();
    struct {
        const char *name;
        void (*fn)(void);
    } parts[] = {{"n-th roots", test_nroots},   {"X^n-X-1 roots", test_trinomial_roots},
                 {"irreducibility", test_irreducible}, {"E auto", test_eshape_auto},
                 {"bad inputs", test_bad_inputs}, {"progress", test_progress},
                 {"generate", test_generate},   {"params/", test_params_dir},
                 {"lambda walk", test_lambda_walk},
                 {"lambda carried", test_lambda_carried}, {"threads", test_threads}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        double t = mns_gen_now();
        parts[i].fn();
        printf("  [%s: %.1f s]\n", parts[i].name, mns_gen_now() - t);
    }
    printf("  generation %.1f s, whole test %.1f s\n", total_gen, mns_gen_now() - t0);
    return mt_finish();
}
