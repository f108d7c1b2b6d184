/* Independent checks of a PMNS parameter set for the generator's tests
 * (test_gen.c, test_slow_gen.c, test_gen_fuzz.c). Everything is recomputed
 * here from the accessors with FLINT's polynomial and matrix arithmetic,
 * not with the library's own helpers, so a bug in src/gen/ cannot hide
 * itself. Header-only: each test program is one translation unit. */
#ifndef MNS_TESTS_GEN_CHECK_H
#define MNS_TESTS_GEN_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flint/fmpz.h>
#include <flint/fmpz_mat.h>
#include <flint/fmpz_poly.h>
#include <flint/fmpz_poly_factor.h>

#include "mns_pmns.h"
#include "testutil.h"

static void gc_E(fmpz_poly_t E, const mns_pmns_params *P)
{
    int n = mns_pmns_params_n(P);
    fmpz_poly_zero(E);
    fmpz_poly_set_coeff_si(E, n, 1);
    if (mns_pmns_params_eshape(P) == MNS_PMNS_E_BINOMIAL) {
        fmpz_poly_set_coeff_si(E, 0, -mns_pmns_params_lambda(P));
    } else {
        fmpz_poly_set_coeff_si(E, 1, -1);
        fmpz_poly_set_coeff_si(E, 0, -1);
    }
}

static void gc_poly(fmpz_poly_t r, const mns_pmns_params *P, int prime)
{
    int n = mns_pmns_params_n(P);
    fmpz_t c;
    fmpz_init(c);
    fmpz_poly_zero(r);
    for (int i = 0; i < n; i++) {
        fmpz_set_mpz(c, prime ? mns_pmns_params_mprime(P, i) : mns_pmns_params_m(P, i));
        fmpz_poly_set_coeff_fmpz(r, i, c);
    }
    fmpz_clear(c);
}

static void gc_eval(mpz_t v, const fmpz_poly_t a, const mpz_t x, const mpz_t p)
{
    mpz_t c;
    mpz_init(c);
    mpz_set_ui(v, 0);
    for (slong i = fmpz_poly_degree(a); i >= 0; i--) {
        mpz_mul(v, v, x);
        fmpz_get_mpz(c, a->coeffs + i);
        mpz_add(v, v, c);
        mpz_mod(v, v, p);
    }
    mpz_clear(c);
}

/* Checks every property of include/mns_pmns.h; `reps` random conversions by
 * the lattice. Returns the number of failures. */
static long gen_check(const mns_pmns_params *P, const char *tag, int reps)
{
    long f0 = mt_failed();
    int n = mns_pmns_params_n(P), s = mns_pmns_params_s(P), delta = mns_pmns_params_delta(P);
    if (n < 2 || n > MNS_PMNS_N_MAX) {
        MT_CHECK(0, "%s: n = %d out of range", tag, n);
        return 1;
    }
    mns_pmns_word word = mns_pmns_params_word(P);
    int uns = word == MNS_PMNS_WORD_U52;
    unsigned h = mns_pmns_params_phi_log2(P), k = mns_pmns_params_chunk_bits(P);
    unsigned sigma = uns ? 52 : 64;
    long lambda = mns_pmns_params_lambda(P);
    mpz_srcptr p = mns_pmns_params_p(P), gamma = mns_pmns_params_gamma(P), rho = mns_pmns_params_rho(P);
    mpz_t t, u, v, phi, N, qmax, pm1;
    mpz_inits(t, u, v, phi, N, qmax, pm1, NULL);
    mpz_set_ui(phi, 0);
    mpz_setbit(phi, h);
    mpz_sub_ui(pm1, p, 1);

    MT_CHECK(mpz_probab_prime_p(p, 30) > 0, "%s: p prime", tag);
    MT_CHECK(n >= 2 && s >= 1 && delta >= 0, "%s: n, s, delta sane", tag);
    MT_CHECK(h == (unsigned)s * k && k >= 1, "%s: phi_log2 = s k", tag);
    MT_CHECK(s > 1 || h == sigma, "%s: s = 1 has phi = sigma", tag);
    MT_CHECK(mns_pmns_params_sigma_log2(P) == sigma, "%s: sigma", tag);

    fmpz_poly_t E, M, Mp, r, x;
    fmpz_poly_init(E);
    fmpz_poly_init(M);
    fmpz_poly_init(Mp);
    fmpz_poly_init(r);
    fmpz_poly_init(x);
    gc_E(E, P);
    gc_poly(M, P, 0);
    gc_poly(Mp, P, 1);
    if (mns_pmns_params_eshape(P) == MNS_PMNS_E_BINOMIAL) {
        MT_CHECK(lambda != 0, "%s: lambda != 0", tag);
        MT_CHECK(!uns || lambda > 0, "%s: u52 needs lambda > 0", tag);
    } else {
        MT_CHECK(lambda == 0, "%s: trinomial reports lambda 0", tag);
    }
    if (n <= 12) { /* Zassenhaus recombination grows fast with n */
        fmpz_poly_factor_t fac;
        fmpz_poly_factor_init(fac);
        fmpz_poly_factor(fac, E);
        MT_CHECK(fac->num == 1 && fac->exp[0] == 1, "%s: E irreducible over Z (FLINT factor)", tag);
        fmpz_poly_factor_clear(fac);
    }
    /* gamma, E(gamma), M(gamma) */
    MT_CHECK(mpz_sgn(gamma) > 0 && mpz_cmp(gamma, p) < 0, "%s: 1 <= gamma <= p-1", tag);
    gc_eval(t, E, gamma, p);
    MT_CHECK(mpz_sgn(t) == 0, "%s: E(gamma) = 0 mod p", tag);
    gc_eval(t, M, gamma, p);
    MT_CHECK(mpz_sgn(t) == 0 && !fmpz_poly_is_zero(M), "%s: M(gamma) = 0 mod p, M != 0", tag);
    MT_CHECK(fmpz_poly_length(M) <= n, "%s: deg M < n", tag);
    /* M M' = -1 mod (E, phi), M' in [0, phi) */
    fmpz_poly_mul(r, M, Mp);
    fmpz_poly_rem(r, r, E);
    int inv_ok = 1;
    {
        fmpz_t c;
        fmpz_init(c);
        for (int i = 0; i < n; i++) {
            fmpz_poly_get_coeff_fmpz(c, r, i);
            fmpz_get_mpz(t, c);
            if (i == 0)
                mpz_add_ui(t, t, 1);
            mpz_fdiv_r_2exp(t, t, h);
            if (mpz_sgn(t))
                inv_ok = 0;
            mpz_srcptr mp = mns_pmns_params_mprime(P, i);
            if (mpz_sgn(mp) < 0 || mpz_cmp(mp, phi) >= 0)
                inv_ok = 0;
        }
        fmpz_clear(c);
    }
    MT_CHECK(inv_ok, "%s: M M' = -1 mod (E, phi), M' in [0, phi)", tag);
    /* reduction matrix: rows X^i M mod E; N its 1-norm; u52: all >= 0 */
    fmpz_mat_t RM;
    fmpz_mat_init(RM, n, n);
    int nonneg = 1;
    mpz_set_ui(N, 0);
    for (int i = 0; i < n; i++) {
        fmpz_poly_shift_left(r, M, i);
        fmpz_poly_rem(r, r, E);
        for (int j = 0; j < n; j++) {
            fmpz_poly_get_coeff_fmpz(fmpz_mat_entry(RM, i, j), r, j);
            if (fmpz_sgn(fmpz_mat_entry(RM, i, j)) < 0)
                nonneg = 0;
        }
    }
    for (int j = 0; j < n; j++) {
        mpz_set_ui(t, 0);
        for (int i = 0; i < n; i++) {
            fmpz_get_mpz(u, fmpz_mat_entry(RM, i, j));
            mpz_abs(u, u);
            mpz_add(t, t, u);
        }
        if (mpz_cmp(t, N) > 0)
            mpz_set(N, t);
    }
    MT_CHECK(mpz_cmp(N, mns_pmns_params_norm1(P)) == 0, "%s: norm1 = ||M||_1 of the reduction matrix", tag);
    MT_CHECK(!uns || nonneg, "%s: u52: reduction matrix >= 0", tag);
    /* w by brute force: column j of A*B mod E collects X^m mod E, m = i + l */
    {
        uint64_t wmax = 0;
        uint64_t *col = calloc((size_t)(n > 0 ? n : 1), sizeof(uint64_t));
        for (int m = 0; m <= 2 * n - 2; m++) {
            fmpz_poly_zero(x);
            fmpz_poly_set_coeff_si(x, m, 1);
            fmpz_poly_rem(x, x, E);
            uint64_t cnt = (uint64_t)(m < n ? m + 1 : 2 * n - 1 - m);
            for (int j = 0; j < n; j++) {
                fmpz_t c;
                fmpz_init(c);
                fmpz_poly_get_coeff_fmpz(c, x, j);
                fmpz_abs(c, c);
                col[j] += cnt * fmpz_get_ui(c);
                fmpz_clear(c);
            }
        }
        for (int j = 0; j < n; j++)
            if (col[j] > wmax)
                wmax = col[j];
        free(col);
        MT_CHECK(wmax == mns_pmns_params_w(P), "%s: w = %llu (brute force %llu)", tag,
                 (unsigned long long)mns_pmns_params_w(P), (unsigned long long)wmax);
    }
    uint64_t w = mns_pmns_params_w(P);
    unsigned long d1 = (unsigned long)delta + 1;
    /* (B1) phi > 2 w rho (delta+1)^2 */
    mpz_mul_ui(t, rho, w);
    mpz_mul_ui(t, t, 2 * d1 * d1);
    MT_CHECK(mpz_cmp(phi, t) > 0, "%s: (B1) phi > 2 w rho (delta+1)^2", tag);
    /* (B2) */
    mpz_set(t, N);
    if (uns)
        mpz_mul_2exp(t, t, 1);
    MT_CHECK(mpz_cmp(rho, t) >= 0, "%s: (B2) rho >= %sN", tag, uns ? "2" : "");
    /* closure: w ((delta+1)(rho-1))^2 + Qmax N < phi rho */
    if (uns) {
        mpz_sub_ui(qmax, phi, 1);
    } else {
        mpz_set_ui(qmax, 0);
        for (int i = 0; i < s; i++)
            mpz_setbit(qmax, (mp_bitcnt_t)i * k + k - 1);
    }
    mpz_sub_ui(t, rho, 1);
    mpz_mul_ui(t, t, d1);
    mpz_mul(t, t, t);
    mpz_mul_ui(t, t, w);
    mpz_addmul(t, qmax, N);
    mpz_mul(u, phi, rho);
    MT_CHECK(mpz_cmp(t, u) < 0, "%s: Montgomery closure", tag);
    /* (B3) eq. (7) */
    if (s > 1) {
        int ta = mns_pmns_params_toeplitz_adds(P);
        unsigned long le = mns_pmns_params_eshape(P) == MNS_PMNS_E_TRINOMIAL ? 2 : (unsigned long)labs(lambda);
        mpz_set_ui(t, (unsigned long)ta);
        mpz_mul_ui(t, t, le);
        mpz_mul_2exp(t, t, k);
        mpz_set_ui(u, 0);
        mpz_setbit(u, sigma);
        MT_CHECK(ta >= 1 && ta <= n && mpz_cmp(t, u) < 0, "%s: (B3) eq. (7)", tag);
    }
    /* (B6) */
    MT_CHECK(mpz_cmp_ui(rho, 2) >= 0 && mpz_cmp(rho, pm1) <= 0, "%s: (B6) 2 <= rho <= p-1", tag);
    mpz_sub_ui(t, rho, 1);
    MT_CHECK(mns_pmns_params_rho_bits(P) == mpz_sizeinbase(t, 2), "%s: rho_bits", tag);
    /* word accessors */
    if (s == 1) {
        int ok = 1;
        for (int i = 0; i < n; i++) {
            mpz_set_si(t, mns_pmns_params_m_word(P, i));
            if (mpz_cmp(t, mns_pmns_params_m(P, i)) != 0)
                ok = 0;
            mpz_set_ui(t, 0);
            mpz_import(t, 1, -1, 8, 0, 0, (uint64_t[]){mns_pmns_params_mprime_word(P, i)});
            if (mpz_cmp(t, mns_pmns_params_mprime(P, i)) != 0)
                ok = 0;
        }
        MT_CHECK(ok, "%s: m_word / mprime_word", tag);
    }

    /* conversions by the lattice: the rows of the reduction matrix are a
     * basis of a sub-lattice; x = a e_0 - round(a e_0 RM^-1) RM (floor for
     * u52, whose RM is >= 0) is a representation of a with coefficients in
     * (-N/2, N/2] resp. [0, N): tight. */
    fmpz_mat_t RT, B, X;
    fmpz_t den;
    fmpz_init(den);
    fmpz_mat_init(RT, n, n);
    fmpz_mat_init(B, n, 1);
    fmpz_mat_init(X, n, 1);
    fmpz_mat_transpose(RT, RM);
    fmpz_one(fmpz_mat_entry(B, 0, 0));
    int solved = fmpz_mat_solve(X, den, RT, B);
    MT_CHECK(solved && !fmpz_is_zero(den), "%s: reduction matrix invertible over Q", tag);
    mpz_t a, dz, c, *rep = malloc(sizeof(mpz_t) * (size_t)n);
    mpz_inits(a, dz, c, NULL);
    for (int i = 0; i < n; i++)
        mpz_init(rep[i]);
    fmpz_get_mpz(dz, den);
    if (mpz_sgn(dz) < 0) {
        mpz_neg(dz, dz);
        for (int i = 0; i < n; i++)
            fmpz_neg(fmpz_mat_entry(X, i, 0), fmpz_mat_entry(X, i, 0));
    }
    for (int it = 0; solved && it < reps + 3; it++) {
        if (it == 0)
            mpz_set_ui(a, 0);
        else if (it == 1)
            mpz_set_ui(a, 1);
        else if (it == 2)
            mpz_sub_ui(a, p, 1);
        else
            mpz_urandomm(a, mt_rand, p);
        for (int i = 0; i < n; i++)
            mpz_set_ui(rep[i], 0);
        mpz_set(rep[0], a);
        for (int i = 0; i < n; i++) {
            fmpz_get_mpz(c, fmpz_mat_entry(X, i, 0));
            mpz_mul(c, c, a);
            if (!uns) {
                mpz_mul_2exp(c, c, 1);
                mpz_add(c, c, dz);
                mpz_mul_2exp(t, dz, 1);
                mpz_fdiv_q(c, c, t);
            } else {
                mpz_fdiv_q(c, c, dz);
            }
            for (int j = 0; j < n; j++) {
                fmpz_get_mpz(u, fmpz_mat_entry(RM, i, j));
                mpz_submul(rep[j], c, u);
            }
        }
        int ok = 1;
        for (int j = 0; j < n; j++) {
            mpz_abs(t, rep[j]);
            if (mpz_cmp(t, rho) >= 0 || (uns && mpz_sgn(rep[j]) < 0))
                ok = 0;
        }
        mpz_set_ui(v, 0);
        for (int j = n - 1; j >= 0; j--) {
            mpz_mul(v, v, gamma);
            mpz_add(v, v, rep[j]);
            mpz_mod(v, v, p);
        }
        MT_CHECK(ok && mpz_cmp(v, a) == 0, "%s: lattice conversion of a (round %d) is tight and evaluates to a",
                 tag, it);
        /* the library's own conversion */
        mns_status st = mns_pmns_represent_var(P, rep, a);
        ok = st == MNS_OK;
        for (int j = 0; j < n && ok; j++) {
            mpz_abs(t, rep[j]);
            if (mpz_cmp(t, rho) >= 0 || (uns && mpz_sgn(rep[j]) < 0))
                ok = 0;
        }
        mpz_set_ui(v, 0);
        for (int j = n - 1; j >= 0; j--) {
            mpz_mul(v, v, gamma);
            mpz_add(v, v, rep[j]);
            mpz_mod(v, v, p);
        }
        MT_CHECK(ok && mpz_cmp(v, a) == 0, "%s: mns_pmns_represent_var round %d", tag, it);
    }
    for (int i = 0; i < n; i++)
        mpz_clear(rep[i]);
    free(rep);
    mpz_clears(a, dz, c, NULL);
    fmpz_mat_clear(RT);
    fmpz_mat_clear(B);
    fmpz_mat_clear(X);
    fmpz_clear(den);
    fmpz_mat_clear(RM);

    /* the library agrees, and the text format round-trips exactly */
    MT_CHECK(mns_pmns_verify_var(P) == MNS_OK, "%s: mns_pmns_verify_var: %s", tag, mns_last_error());
    char *txt = mns_pmns_params_to_string_var(P, NULL);
    MT_CHECK(txt != NULL, "%s: to_string", tag);
    if (txt) {
        mns_pmns_params *Q = NULL;
        mns_status st = mns_pmns_params_from_string_var(&Q, txt, strlen(txt));
        MT_CHECK(st == MNS_OK, "%s: re-read: %s", tag, mns_last_error());
        if (Q) {
            int same = mns_pmns_params_n(Q) == n && mns_pmns_params_s(Q) == s &&
                       mpz_cmp(mns_pmns_params_rho(Q), rho) == 0 && mpz_cmp(mns_pmns_params_gamma(Q), gamma) == 0;
            for (int i = 0; i < n; i++)
                same &= mpz_cmp(mns_pmns_params_m(Q, i), mns_pmns_params_m(P, i)) == 0 &&
                        mpz_cmp(mns_pmns_params_mprime(Q, i), mns_pmns_params_mprime(P, i)) == 0;
            MT_CHECK(same, "%s: re-read set equals the original", tag);
            mns_pmns_params_free(Q);
        }
        free(txt);
    }

    fmpz_poly_clear(E);
    fmpz_poly_clear(M);
    fmpz_poly_clear(Mp);
    fmpz_poly_clear(r);
    fmpz_poly_clear(x);
    mpz_clears(t, u, v, phi, N, qmax, pm1, NULL);
    return mt_failed() - f0;
}

#endif
