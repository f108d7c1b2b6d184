/* Every check of include/mns_pmns.h on a parameter set, recomputed from its
 * primary fields: the generator's output and a file read from disk pass the
 * same checks before either is used. Each step returns why it failed (NULL
 * when it passed), so that the message names the first bound that fails. */
#include "pmns/params.h"

#include <stdlib.h>

#include "core/error.h"

/* p, the word kind, n, s, delta and the shape of E */
static const char *check_shape(const mns_pmns_params *P, int skip_prime)
{
    if (mpz_cmp_ui(P->p, 3) < 0 || mpz_even_p(P->p) || mpz_sizeinbase(P->p, 2) > MNS_PMNS_P_BITS_MAX)
        return "p must be odd, >= 3 and at most MNS_PMNS_P_BITS_MAX bits";
    if (!skip_prime && mpz_probab_prime_p(P->p, 25) == 0)
        return MNS_MSG_NOT_PRIME;
    if (P->word != MNS_PMNS_WORD_S64 && P->word != MNS_PMNS_WORD_U52)
        return "unknown word kind";
    if (P->n < 2 || P->n > MNS_PMNS_N_MAX || P->s < 1 || P->s > MNS_PMNS_S_MAX || P->delta < 0 ||
        P->delta > MNS_PMNS_DELTA_MAX)
        return "n, s or delta out of range";
    if (P->eshape == MNS_PMNS_E_BINOMIAL) {
        if (P->lambda == 0 || P->lambda > (1L << 20) || P->lambda < -(1L << 20))
            return "lambda is 0 or above 2^20 in absolute value";
        if (!mns_binomial_irreducible(P->n, P->lambda))
            return "X^n - lambda is reducible over Z";
        if (P->word == MNS_PMNS_WORD_U52 && P->lambda < 0)
            return "unsigned coefficients need lambda > 0";
        return NULL;
    }
    if (P->eshape == MNS_PMNS_E_TRINOMIAL)
        return P->lambda != 0 ? "lambda must be 0 with X^n - X - 1" : NULL;
    return "unknown shape of E";
}

/* phi = 2^(s k), and (B3) eq. (7): t lambda_eff 2^k < sigma (lambda_eff = 1
 * when the kernel carries lambda a into digits). t is scratch. */
static const char *check_chunks(const mns_pmns_params *P, mpz_t t)
{
    const unsigned sigma = mns_pmns_sigma_log2(P->word), k = P->chunk_bits;
    if (k == 0 || P->phi_log2 != (unsigned)P->s * k)
        return "phi_log2 is not s times the chunk size";
    if (P->s == 1 && P->phi_log2 != sigma)
        return "s = 1 needs phi = sigma (2^64 for s64, 2^52 for u52)";
    if (P->lambda_carried && (P->word != MNS_PMNS_WORD_U52 || P->s < 2 || P->eshape != MNS_PMNS_E_BINOMIAL))
        return "a lambda-carried set is U52, s > 1, X^n - lambda";
    if (P->s == 1)
        return P->toeplitz_adds < 1 || P->toeplitz_adds > P->n ? "toeplitz_adds must be in [1, n]" : NULL;
    if (P->toeplitz_adds < 1 || P->toeplitz_adds > P->n || k >= sigma)
        return "toeplitz_adds must be in [1, n] and the chunk smaller than a word";
    mpz_set_ui(t, (unsigned long)P->toeplitz_adds);
    if (!P->lambda_carried)
        mpz_mul_ui(t, t, mns_pmns_lambda_eff(P->eshape, P->lambda));
    mpz_mul_2exp(t, t, k);
    return mpz_sizeinbase(t, 2) > sigma ? "eq. (7) fails: toeplitz_adds * lambda * 2^k >= sigma" : NULL;
}

/* (B4): gamma a root of E mod p, M(gamma) = 0 mod p, and w, N recomputed. */
static const char *check_lattice(const mns_pmns_params *P, mpz_t t, mpz_t u)
{
    const int n = P->n;
    if (mpz_sgn(P->gamma) <= 0 || mpz_cmp(P->gamma, P->p) >= 0)
        return "gamma outside [1, p-1]";
    mpz_powm_ui(t, P->gamma, (unsigned long)n, P->p);
    if (P->eshape == MNS_PMNS_E_BINOMIAL)
        mpz_set_si(u, P->lambda);
    else
        mpz_add_ui(u, P->gamma, 1);
    mpz_mod(u, u, P->p);
    if (mpz_cmp(t, u) != 0)
        return "E(gamma) != 0 mod p";
    int nonzero = 0;
    for (int i = 0; i < n; i++)
        nonzero |= mpz_sgn(P->m[i]) != 0;
    if (!nonzero)
        return "M = 0";
    mns_poly_eval(t, P->m, n, P->gamma, P->p);
    if (mpz_sgn(t) != 0)
        return "M(gamma) != 0 mod p";
    if (P->w != mns_pmns_w(n, P->eshape, P->lambda))
        return "w inconsistent with E";
    int nonneg = 0;
    mns_poly_norm1(t, &nonneg, P->m, n, P->eshape, P->lambda);
    if (mpz_cmp(t, P->norm1) != 0)
        return "norm1 inconsistent with M";
    if (P->word == MNS_PMNS_WORD_U52 && !nonneg)
        return "unsigned coefficients need M and its reduction matrix >= 0";
    return NULL;
}

/* (B5): M' in [0, phi) and M M' = -1 mod (E, phi). *st becomes MNS_ENOMEM
 * when the product cannot be held. */
static const char *check_mprime(const mns_pmns_params *P, mpz_t t, mns_status *st)
{
    const int n = P->n;
    for (int i = 0; i < n; i++)
        if (mpz_sgn(P->mprime[i]) < 0 || mpz_sizeinbase(P->mprime[i], 2) > P->phi_log2)
            return "M' coefficient outside [0, phi)";
    mpz_t *prod = malloc(sizeof(mpz_t) * (size_t)n);
    if (!prod) {
        *st = MNS_ENOMEM;
        return "out of memory";
    }
    for (int i = 0; i < n; i++)
        mpz_init(prod[i]);
    mns_poly_mulmod(prod, P->m, P->mprime, n, P->eshape, P->lambda);
    const char *why = NULL;
    for (int i = 0; i < n && !why; i++) {
        mpz_fdiv_r_2exp(t, prod[i], P->phi_log2);
        if (i == 0) {
            mpz_add_ui(t, t, 1);
            mpz_fdiv_r_2exp(t, t, P->phi_log2);
        }
        if (mpz_sgn(t) != 0)
            why = "M * M' != -1 mod (E, phi)";
    }
    for (int i = 0; i < n; i++)
        mpz_clear(prod[i]);
    free(prod);
    return why;
}

/* (B1), (B2), the closure, (B6), and the word fit the s = 1 accessors rely
 * on (implied by (B1)-(B2), checked because they read words directly). */
static const char *check_rho(const mns_pmns_params *P, mpz_t t)
{
    if (!mns_pmns_rho_ok(P->rho, P->norm1, P->w, P->delta, P->word, P->s, P->chunk_bits))
        return "rho fails (B1) phi > 2 w rho (delta+1)^2, (B2) rho vs ||M||_1, or the Montgomery closure";
    mpz_sub_ui(t, P->p, 1);
    if (mpz_cmp(P->rho, t) > 0)
        return "rho > p - 1 (Definition 1): p too small for this PMNS";
    if (P->s == 1)
        for (int i = 0; i < P->n; i++)
            if (mpz_sizeinbase(P->m[i], 2) >= (P->word == MNS_PMNS_WORD_U52 ? 52u : 63u))
                return "an M coefficient does not fit a word";
    return NULL;
}

mns_status mns_pmns_check(const mns_pmns_params *P) { return mns_pmns_check_opt(P, 0); }

mns_status mns_pmns_check_opt(const mns_pmns_params *P, int skip_prime)
{
    mns_status st = MNS_ERANGE;
    mpz_t t, u;
    mpz_inits(t, u, NULL);
    const char *why = check_shape(P, skip_prime);
    if (!why)
        why = check_chunks(P, t);
    if (!why)
        why = check_lattice(P, t, u);
    if (!why)
        why = check_mprime(P, t, &st);
    if (!why)
        why = check_rho(P, t);
    mpz_clears(t, u, NULL);
    if (why)
        return mns_error(st, "pmns check: %s", why);
    return MNS_OK;
}
