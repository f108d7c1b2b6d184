/* Parameter sets: allocation, accessors, the checks every set passes before
 * it leaves the library, and conversion into the PMNS. GMP only. */
#include "gen/gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

void mns_pmns_gen_opts_init(mns_pmns_gen_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->word = MNS_PMNS_WORD_S64;
    o->s = 1;
    o->s_max = 6;
    o->delta = 0;
    o->n = 0;
    o->n_max = 0;
    o->eshape = MNS_PMNS_E_BINOMIAL;
    o->lambda_max = 16;
    o->toeplitz_adds = 0;
    o->gamma_tries = 1;
}

mns_pmns_params *mns_pmns_params_alloc(int n)
{
    if (n < 1 || n > MNS_PMNS_N_MAX)
        return NULL;
    mns_pmns_params *P = calloc(1, sizeof *P);
    if (!P)
        return NULL;
    P->m = malloc(sizeof(mpz_t) * (size_t)n);
    P->mprime = malloc(sizeof(mpz_t) * (size_t)n);
    if (!P->m || !P->mprime) {
        free(P->m);
        free(P->mprime);
        free(P);
        return NULL;
    }
    P->n = n;
    mpz_inits(P->p, P->gamma, P->rho, P->norm1, NULL);
    for (int i = 0; i < n; i++) {
        mpz_init(P->m[i]);
        mpz_init(P->mprime[i]);
    }
    return P;
}

void mns_pmns_params_free(mns_pmns_params *P)
{
    if (!P)
        return;
    for (int i = 0; i < P->n; i++) {
        mpz_clear(P->m[i]);
        mpz_clear(P->mprime[i]);
    }
    mpz_clears(P->p, P->gamma, P->rho, P->norm1, NULL);
    free(P->m);
    free(P->mprime);
    free(P->m_word);
    free(P->mprime_word);
    free(P);
}

mpz_srcptr mns_pmns_params_p(const mns_pmns_params *P) { return P->p; }
mns_pmns_word mns_pmns_params_word(const mns_pmns_params *P) { return P->word; }
int mns_pmns_params_n(const mns_pmns_params *P) { return P->n; }
int mns_pmns_params_s(const mns_pmns_params *P) { return P->s; }
int mns_pmns_params_delta(const mns_pmns_params *P) { return P->delta; }
mns_pmns_eshape mns_pmns_params_eshape(const mns_pmns_params *P) { return P->eshape; }
long mns_pmns_params_lambda(const mns_pmns_params *P) { return P->lambda; }
mpz_srcptr mns_pmns_params_gamma(const mns_pmns_params *P) { return P->gamma; }
mpz_srcptr mns_pmns_params_rho(const mns_pmns_params *P) { return P->rho; }
unsigned mns_pmns_params_rho_bits(const mns_pmns_params *P) { return P->rho_bits; }
unsigned mns_pmns_params_phi_log2(const mns_pmns_params *P) { return P->phi_log2; }
unsigned mns_pmns_params_chunk_bits(const mns_pmns_params *P) { return P->chunk_bits; }
unsigned mns_pmns_params_sigma_log2(const mns_pmns_params *P) { return mns_pmns_sigma_log2(P->word); }
int mns_pmns_params_toeplitz_adds(const mns_pmns_params *P) { return P->toeplitz_adds; }
int mns_pmns_params_lambda_carried(const mns_pmns_params *P) { return P->lambda_carried; }
uint64_t mns_pmns_params_w(const mns_pmns_params *P) { return P->w; }
mpz_srcptr mns_pmns_params_norm1(const mns_pmns_params *P) { return P->norm1; }
const char *mns_pmns_params_describe(const mns_pmns_params *P) { return P->describe; }
double mns_pmns_params_gen_seconds(const mns_pmns_params *P) { return P->gen_seconds; }

mpz_srcptr mns_pmns_params_m(const mns_pmns_params *P, int i)
{
    return (i >= 0 && i < P->n) ? P->m[i] : NULL;
}

mpz_srcptr mns_pmns_params_mprime(const mns_pmns_params *P, int i)
{
    return (i >= 0 && i < P->n) ? P->mprime[i] : NULL;
}

int64_t mns_pmns_params_m_word(const mns_pmns_params *P, int i)
{
    return (P->m_word && i >= 0 && i < P->n) ? P->m_word[i] : 0;
}

uint64_t mns_pmns_params_mprime_word(const mns_pmns_params *P, int i)
{
    return (P->mprime_word && i >= 0 && i < P->n) ? P->mprime_word[i] : 0;
}

int mns_pmns_nopt(size_t p_bits, unsigned sigma_log2)
{
    /* smallest n with p_bits <= n log2(sigma) - log2(n!) (CIOS paper 3.2);
     * log2(p) is taken as p_bits, the size the paper's tables use */
    double lf = 0;
    for (int n = 1; n <= MNS_PMNS_N_MAX; n++) {
        lf += log2((double)n);
        if ((double)p_bits <= (double)n * sigma_log2 - lf)
            return n < 2 ? 2 : n;
    }
    return MNS_PMNS_N_MAX + 1;
}

static uint64_t low_word(const mpz_t x, unsigned bits)
{
    /* x mod 2^bits (bits <= 64) as a word, for x of either sign */
    mpz_t t;
    mpz_init(t);
    mpz_fdiv_r_2exp(t, x, bits);
    uint64_t v = 0;
    size_t cnt = 0;
    mpz_export(&v, &cnt, -1, sizeof v, 0, 0, t);
    mpz_clear(t);
    return v;
}

/* Number of RedCoeff steps that bring any coefficient < p down to tight:
 * B <- floor((B + Qrep N) / phi) from B = p - 1, Qrep = phi/2 for centred
 * quotients (S64), phi - 1 for canonical ones (U52). */
static int repr_steps(const mns_pmns_params *P)
{
    mpz_t B, q;
    mpz_inits(B, q, NULL);
    mpz_sub_ui(B, P->p, 1);
    mpz_set_ui(q, 0);
    mpz_setbit(q, P->phi_log2);
    if (P->word == MNS_PMNS_WORD_U52)
        mpz_sub_ui(q, q, 1);
    else
        mpz_fdiv_q_2exp(q, q, 1);
    mpz_mul(q, q, P->norm1);
    int t = 0;
    while (mpz_cmp(B, P->rho) >= 0 && t < 100000) {
        mpz_add(B, B, q);
        mpz_fdiv_q_2exp(B, B, P->phi_log2);
        t++;
    }
    mpz_clears(B, q, NULL);
    return t;
}

mns_status mns_pmns_finish(mns_pmns_params *P)
{
    int n = P->n;
    if (P->s < 1 || P->s > MNS_PMNS_S_MAX || P->phi_log2 == 0 || P->phi_log2 % (unsigned)P->s)
        return mns_error(MNS_ERANGE, "pmns: phi_log2 %u is not a positive multiple of s = %d", P->phi_log2,
                         P->s);
    P->chunk_bits = P->phi_log2 / (unsigned)P->s;
    P->w = mns_pmns_w(n, P->eshape, P->lambda);
    mns_poly_norm1(P->norm1, NULL, P->m, n, P->eshape, P->lambda);
    P->rho_bits = 0;
    if (mpz_cmp_ui(P->rho, 1) > 0) {
        mpz_t t;
        mpz_init(t);
        mpz_sub_ui(t, P->rho, 1);
        P->rho_bits = (unsigned)mpz_sizeinbase(t, 2);
        mpz_clear(t);
    }
    free(P->m_word);
    free(P->mprime_word);
    P->m_word = NULL;
    P->mprime_word = NULL;
    if (P->s == 1 && P->phi_log2 <= 64) {
        P->m_word = malloc(sizeof(int64_t) * (size_t)n);
        P->mprime_word = malloc(sizeof(uint64_t) * (size_t)n);
        if (!P->m_word || !P->mprime_word)
            return mns_error(MNS_ENOMEM, "pmns: out of memory");
        for (int i = 0; i < n; i++) {
            P->m_word[i] = (int64_t)low_word(P->m[i], 64);
            P->mprime_word[i] = low_word(P->mprime[i], 64);
        }
    }
    mns_status st = mns_pmns_check_opt(P, P->p_prime_known);
    if (st != MNS_OK)
        return st;
    P->repr_steps = repr_steps(P);
    if (P->eshape == MNS_PMNS_E_BINOMIAL)
        snprintf(P->describe, sizeof P->describe,
                 "pmns word=%s s=%d n=%d delta=%d E=X^%d%+ld rho_bits=%u phi=2^%u k=%u bits=%zu",
                 P->word == MNS_PMNS_WORD_U52 ? "u52" : "s64", P->s, n, P->delta, n, -P->lambda, P->rho_bits,
                 P->phi_log2, P->chunk_bits, mpz_sizeinbase(P->p, 2));
    else
        snprintf(P->describe, sizeof P->describe,
                 "pmns word=%s s=%d n=%d delta=%d E=X^%d-X-1 rho_bits=%u phi=2^%u k=%u bits=%zu",
                 P->word == MNS_PMNS_WORD_U52 ? "u52" : "s64", P->s, n, P->delta, n, P->rho_bits, P->phi_log2,
                 P->chunk_bits, mpz_sizeinbase(P->p, 2));
    return MNS_OK;
}

mns_status mns_pmns_check(const mns_pmns_params *P) { return mns_pmns_check_opt(P, 0); }

/* Every check of include/mns_pmns.h, recomputed from the primary fields. */
mns_status mns_pmns_check_opt(const mns_pmns_params *P, int skip_prime)
{
    int n = P->n;
    mns_status st = MNS_ERANGE;
    const char *why = NULL;
    mpz_t t, u;
    mpz_t *prod = NULL;
    mpz_inits(t, u, NULL);

    if (mpz_cmp_ui(P->p, 3) < 0 || mpz_even_p(P->p) || mpz_sizeinbase(P->p, 2) > MNS_PMNS_P_BITS_MAX) {
        why = "p must be odd, >= 3 and at most MNS_PMNS_P_BITS_MAX bits";
        goto out;
    }
    if (!skip_prime && mpz_probab_prime_p(P->p, 25) == 0) {
        why = MNS_MSG_NOT_PRIME;
        goto out;
    }
    if (P->word != MNS_PMNS_WORD_S64 && P->word != MNS_PMNS_WORD_U52) {
        why = "unknown word kind";
        goto out;
    }
    if (n < 2 || n > MNS_PMNS_N_MAX || P->s < 1 || P->s > MNS_PMNS_S_MAX || P->delta < 0 ||
        P->delta > MNS_PMNS_DELTA_MAX) {
        why = "n, s or delta out of range";
        goto out;
    }
    unsigned sigma = mns_pmns_sigma_log2(P->word);
    if (P->eshape == MNS_PMNS_E_BINOMIAL) {
        if (P->lambda == 0 || P->lambda > (1L << 20) || P->lambda < -(1L << 20)) {
            why = "lambda is 0 or above 2^20 in absolute value";
            goto out;
        }
        if (!mns_binomial_irreducible(n, P->lambda)) {
            why = "X^n - lambda is reducible over Z";
            goto out;
        }
        if (P->word == MNS_PMNS_WORD_U52 && P->lambda < 0) {
            why = "unsigned coefficients need lambda > 0";
            goto out;
        }
    } else if (P->eshape == MNS_PMNS_E_TRINOMIAL) {
        if (P->lambda != 0) {
            why = "lambda must be 0 with X^n - X - 1";
            goto out;
        }
    } else {
        why = "unknown shape of E";
        goto out;
    }
    unsigned k = P->chunk_bits;
    if (k == 0 || P->phi_log2 != (unsigned)P->s * k) {
        why = "phi_log2 is not s times the chunk size";
        goto out;
    }
    if (P->s == 1 && P->phi_log2 != sigma) {
        why = "s = 1 needs phi = sigma (2^64 for s64, 2^52 for u52)";
        goto out;
    }
    if (P->lambda_carried &&
        (P->word != MNS_PMNS_WORD_U52 || P->s < 2 || P->eshape != MNS_PMNS_E_BINOMIAL)) {
        why = "a lambda-carried set is U52, s > 1, X^n - lambda";
        goto out;
    }
    if (P->s > 1) {
        /* (B3) eq. (7): t lambda_eff 2^k < sigma (lambda_eff = 1 when the
         * kernel carries lambda a into digits) */
        if (P->toeplitz_adds < 1 || P->toeplitz_adds > n || k >= sigma) {
            why = "toeplitz_adds must be in [1, n] and the chunk smaller than a word";
            goto out;
        }
        mpz_set_ui(t, (unsigned long)P->toeplitz_adds);
        if (!P->lambda_carried)
            mpz_mul_ui(t, t, mns_pmns_lambda_eff(P->eshape, P->lambda));
        mpz_mul_2exp(t, t, k);
        if (mpz_sizeinbase(t, 2) > sigma) {
            why = "eq. (7) fails: toeplitz_adds * lambda * 2^k >= sigma";
            goto out;
        }
    } else if (P->toeplitz_adds < 1 || P->toeplitz_adds > n) {
        why = "toeplitz_adds must be in [1, n]";
        goto out;
    }
    /* (B4) */
    if (mpz_sgn(P->gamma) <= 0 || mpz_cmp(P->gamma, P->p) >= 0) {
        why = "gamma outside [1, p-1]";
        goto out;
    }
    if (P->eshape == MNS_PMNS_E_BINOMIAL) {
        mpz_powm_ui(t, P->gamma, (unsigned long)n, P->p);
        mpz_set_si(u, P->lambda);
        mpz_mod(u, u, P->p);
    } else {
        mpz_powm_ui(t, P->gamma, (unsigned long)n, P->p);
        mpz_add_ui(u, P->gamma, 1);
        mpz_mod(u, u, P->p);
    }
    if (mpz_cmp(t, u) != 0) {
        why = "E(gamma) != 0 mod p";
        goto out;
    }
    int nonzero = 0;
    for (int i = 0; i < n; i++)
        nonzero |= mpz_sgn(P->m[i]) != 0;
    if (!nonzero) {
        why = "M = 0";
        goto out;
    }
    mns_poly_eval(t, P->m, n, P->gamma, P->p);
    if (mpz_sgn(t) != 0) {
        why = "M(gamma) != 0 mod p";
        goto out;
    }
    /* w and N, recomputed */
    if (P->w != mns_pmns_w(n, P->eshape, P->lambda)) {
        why = "w inconsistent with E";
        goto out;
    }
    int nonneg = 0;
    mns_poly_norm1(t, &nonneg, P->m, n, P->eshape, P->lambda);
    if (mpz_cmp(t, P->norm1) != 0) {
        why = "norm1 inconsistent with M";
        goto out;
    }
    if (P->word == MNS_PMNS_WORD_U52 && !nonneg) {
        why = "unsigned coefficients need M and its reduction matrix >= 0";
        goto out;
    }
    /* (B5) M' in [0, phi), M M' = -1 mod (E, phi) */
    for (int i = 0; i < n; i++) {
        if (mpz_sgn(P->mprime[i]) < 0 || mpz_sizeinbase(P->mprime[i], 2) > P->phi_log2) {
            why = "M' coefficient outside [0, phi)";
            goto out;
        }
    }
    prod = malloc(sizeof(mpz_t) * (size_t)n);
    if (!prod) {
        st = MNS_ENOMEM;
        why = "out of memory";
        goto out;
    }
    for (int i = 0; i < n; i++)
        mpz_init(prod[i]);
    mns_poly_mulmod(prod, P->m, P->mprime, n, P->eshape, P->lambda);
    for (int i = 0; i < n; i++) {
        mpz_fdiv_r_2exp(t, prod[i], P->phi_log2);
        if (i == 0) {
            mpz_add_ui(t, t, 1);
            mpz_fdiv_r_2exp(t, t, P->phi_log2);
        }
        if (mpz_sgn(t) != 0) {
            why = "M * M' != -1 mod (E, phi)";
            goto out;
        }
    }
    /* (B1), (B2), closure, (B6) */
    if (!mns_pmns_rho_ok(P->rho, P->norm1, P->w, P->delta, P->word, P->s, k)) {
        why = "rho fails (B1) phi > 2 w rho (delta+1)^2, (B2) rho vs ||M||_1, or the Montgomery closure";
        goto out;
    }
    mpz_sub_ui(t, P->p, 1);
    if (mpz_cmp(P->rho, t) > 0) {
        why = "rho > p - 1 (Definition 1): p too small for this PMNS";
        goto out;
    }
    if (P->s == 1) {
        /* implied by (B1)-(B2); checked because the word accessors rely on it */
        for (int i = 0; i < n; i++)
            if (mpz_sizeinbase(P->m[i], 2) >= (P->word == MNS_PMNS_WORD_U52 ? 52u : 63u)) {
                why = "an M coefficient does not fit a word";
                goto out;
            }
    }
    st = MNS_OK;
out:
    if (prod) {
        for (int i = 0; i < n; i++)
            mpz_clear(prod[i]);
        free(prod);
    }
    mpz_clears(t, u, NULL);
    if (st != MNS_OK)
        return mns_error(st, "pmns check: %s", why ? why : "failed");
    return MNS_OK;
}

mns_status mns_pmns_verify_var(const mns_pmns_params *P)
{
    if (!P)
        return mns_error(MNS_EINVAL, "pmns: NULL parameter set");
    return mns_pmns_check(P);
}

mns_status mns_pmns_represent_var(const mns_pmns_params *P, mpz_t *c, const mpz_t a)
{
    if (!P || !c)
        return mns_error(MNS_EINVAL, "pmns_represent: NULL argument");
    int n = P->n;
    unsigned h = P->phi_log2;
    mpz_t x, half, phi;
    mpz_t *q = malloc(sizeof(mpz_t) * (size_t)n);
    if (!q)
        return mns_error(MNS_ENOMEM, "pmns_represent: out of memory");
    mpz_inits(x, half, phi, NULL);
    for (int i = 0; i < n; i++)
        mpz_init(q[i]);
    mpz_set_ui(phi, 0);
    mpz_setbit(phi, h);
    mpz_fdiv_q_2exp(half, phi, 1);
    /* V = (a phi^t mod p, 0, ..., 0); t RedCoeff steps give V(gamma) = a */
    mpz_set_ui(x, (unsigned long)P->repr_steps);
    mpz_powm(x, phi, x, P->p);
    mpz_mul(x, x, a);
    mpz_mod(x, x, P->p);
    mpz_set(c[0], x);
    for (int i = 1; i < n; i++)
        mpz_set_ui(c[i], 0);
    mns_status st = MNS_OK;
    for (int step = 0; step < P->repr_steps; step++) {
        mns_poly_mulmod(q, c, P->mprime, n, P->eshape, P->lambda);
        for (int i = 0; i < n; i++) {
            mpz_fdiv_r_2exp(q[i], q[i], h);
            if (P->word == MNS_PMNS_WORD_S64 && mpz_cmp(q[i], half) > 0)
                mpz_sub(q[i], q[i], phi);
        }
        mns_poly_mulmod(q, q, P->m, n, P->eshape, P->lambda);
        for (int i = 0; i < n; i++) {
            mpz_add(c[i], c[i], q[i]);
            if (!mpz_divisible_2exp_p(c[i], h))
                st = MNS_ERANGE;
            mpz_fdiv_q_2exp(c[i], c[i], h);
        }
    }
    for (int i = 0; i < n && st == MNS_OK; i++) {
        mpz_abs(x, c[i]);
        if (mpz_cmp(x, P->rho) >= 0 || (P->word == MNS_PMNS_WORD_U52 && mpz_sgn(c[i]) < 0))
            st = MNS_ERANGE;
    }
    for (int i = 0; i < n; i++)
        mpz_clear(q[i]);
    free(q);
    mpz_clears(x, half, phi, NULL);
    if (st != MNS_OK)
        return mns_error(st, "pmns_represent: internal bound violated (parameter set corrupted?)");
    return MNS_OK;
}

mns_status mns_pmns_generate_var(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *opts)
{
    if (!out)
        return mns_error(MNS_EINVAL, "pmns_generate: NULL output");
    *out = NULL;
    if (!p)
        return mns_error(MNS_EINVAL, "pmns_generate: NULL p");
#ifdef MNS_HAVE_FLINT
    mns_pmns_gen_opts def;
    if (!opts) {
        mns_pmns_gen_opts_init(&def);
        opts = &def;
    }
    return mns_pmns_generate_flint(out, p, opts);
#else
    (void)opts;
    return mns_error(MNS_ENOTSUP, "pmns_generate: mns was built without FLINT (needed for LLL)");
#endif
}
