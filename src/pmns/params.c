/* Parameter sets: allocation, accessors, the checks every set passes before
 * it leaves the library, and conversion into the PMNS. GMP only. */
#include "pmns/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

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
