/* The PMNS parameter set (include/mns_pmns.h) seen from inside: its fields,
 * the checks every set passes before it leaves the library, and the
 * polynomial arithmetic mod E those checks need. GMP only: reading, checking
 * and using a set never needs FLINT; the generator (src/gen/) builds sets
 * and hands them to mns_pmns_finish like any reader does.
 *
 * Invariants of a finished mns_pmns_params: exactly those listed in
 * include/mns_pmns.h, established by mns_pmns_check() before any set leaves
 * the library (generator and reader alike). Polynomials are arrays of n mpz_t,
 * coefficient i of X^i at index i.
 */
#ifndef MNS_PMNS_PARAMS_H
#define MNS_PMNS_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns_pmns.h"

/* The reason the parameter check (and the generator) gives for a composite
 * p: "auto" reads it to skip the other prime-only candidates of its ranking,
 * each of which would repeat the probable-prime test (src/field/field.c). */
#define MNS_MSG_NOT_PRIME "p is not prime"

struct mns_pmns_params {
    mpz_t p;
    mns_pmns_word word;
    int n, s, delta;
    mns_pmns_eshape eshape;
    long lambda;            /* 0 for X^n - X - 1 */
    mpz_t gamma;
    unsigned phi_log2;      /* s * chunk_bits */
    unsigned chunk_bits;    /* k */
    int toeplitz_adds;      /* t of eq. (7) as checked */
    int lambda_carried;     /* (B3) with lambda_eff = 1 (MNS_PMNS_GEN_LAMBDA_CARRIED) */
    mpz_t rho;
    uint64_t w;
    mpz_t norm1;            /* N = ||\mathcal{M}||_1 */
    mpz_t *m, *mprime;      /* n each */
    int64_t *m_word;        /* s = 1 only, else NULL */
    uint64_t *mprime_word;  /* s = 1 only, else NULL */
    unsigned rho_bits;
    int repr_steps;         /* RedCoeff steps of mns_pmns_represent_var */
    int p_prime_known;      /* the generator tested p at its input: finish skips
                               the second, identical test (0.35 s at 8192 bits) */
    double gen_seconds;
    int has_gen;            /* gen holds the options used (for "# regenerate") */
    mns_pmns_gen_opts gen;
    char describe[192];
};

/* Allocates a set with n zeroed coefficients (other fields zero), or NULL. */
mns_pmns_params *mns_pmns_params_alloc(int n);

/* Fills the derived fields from the primary ones (p, word, n, s, delta,
 * eshape, lambda, gamma, phi_log2, toeplitz_adds, rho, m, mprime): w, norm1,
 * chunk_bits, rho_bits, words, repr_steps, describe. Then runs every check.
 * MNS_OK, or MNS_ERANGE with mns_last_error() saying which check failed. */
mns_status mns_pmns_finish(mns_pmns_params *P);

/* Every check of include/mns_pmns.h on a finished set. */
mns_status mns_pmns_check(const mns_pmns_params *P);
/* The same, without the primality test of p when skip_prime (a caller that
 * has just run the same test). */
mns_status mns_pmns_check_opt(const mns_pmns_params *P, int skip_prime);

static inline unsigned mns_pmns_sigma_log2(mns_pmns_word w) { return w == MNS_PMNS_WORD_U52 ? 52 : 64; }

/* ---- polynomial helpers (GMP), all of length n ---------------------- */

/* r <- a*b mod E. r may alias a or b. */
void mns_poly_mulmod(mpz_t *r, mpz_t *const a, mpz_t *const b, int n, mns_pmns_eshape e, long lambda);
/* r <- X*a mod E (r may alias a). */
void mns_poly_mulx(mpz_t *r, mpz_t *const a, int n, mns_pmns_eshape e, long lambda);
/* v <- A(x) mod p, in [0, p). */
void mns_poly_eval(mpz_t v, mpz_t *const a, int n, const mpz_t x, const mpz_t p);
/* N <- largest column sum of |X^i * M mod E|; *nonneg <- whether every entry
 * of that matrix is >= 0. */
void mns_poly_norm1(mpz_t N, int *nonneg, mpz_t *const m, int n, mns_pmns_eshape e, long lambda);
/* w of include/mns_pmns.h */
uint64_t mns_pmns_w(int n, mns_pmns_eshape e, long lambda);
/* 1 if X^n - lambda is irreducible over Z (Capelli's theorem). */
int mns_binomial_irreducible(int n, long lambda);
/* lambda_eff of (B3) */
unsigned long mns_pmns_lambda_eff(mns_pmns_eshape e, long lambda);

/* Qmax of the closure check for this word kind, s and chunk bits k. */
void mns_pmns_qmax(mpz_t q, mns_pmns_word word, int s, unsigned k);
/* 1 if rho passes the exact Montgomery closure and (B1), (B2). */
int mns_pmns_rho_ok(const mpz_t rho, const mpz_t N, uint64_t w, int delta, mns_pmns_word word, int s,
                    unsigned k);
/* The smallest rho that passes mns_pmns_rho_ok for phi = 2^(s*k), or 0 in
 * rho if none does. */
void mns_pmns_rho_min(mpz_t rho, const mpz_t N, uint64_t w, int delta, mns_pmns_word word, int s,
                      unsigned k);

#endif
