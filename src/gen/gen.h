/* The PMNS parameter generator (FLINT: LLL, roots of E mod p) and the
 * number theory it shares between its files: n-th roots and power-residue
 * characters mod p (nroot.c), roots of X^n - X - 1 (troot.c). The
 * parameter type it fills and the checks it must pass are pmns/params.h.
 */
#ifndef MNS_GEN_GEN_H
#define MNS_GEN_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "pmns/params.h"

/* ---- n-th roots mod p (GMP) ----------------------------------------- */

/* Roots of X^n = a mod p (p an odd prime, a != 0 mod p): up to `max` of
 * them in roots[0..], smallest first not promised; returns how many were
 * stored (0 if a is not an n-th power). roots must hold max initialised
 * mpz_t. Deterministic. */
int mns_nroots(mpz_t *roots, int max, const mpz_t a, unsigned long n, const mpz_t p);
/* 1 if a is an n-th power mod p (a != 0 mod p). */
int mns_is_nth_power(const mpz_t a, unsigned long n, const mpz_t p);

/* Power-residue characters of small integers, cached: the lambda search asks
 * "is lambda an n-th power mod p" for up to 2 lambda_max candidates and many
 * n, each a full-size exponentiation (0.12 s at 8192 bits). With
 * g = gcd(n, p-1), chi_g(x) = x^((p-1)/g) is multiplicative, so chi_g of the
 * primes (and -1) dividing lambda, each computed once per g, decide every
 * candidate by a few multiplications. */
typedef struct mns_chi_entry {
    unsigned long g;
    long q;
    mpz_t chi;
} mns_chi_entry;
typedef struct mns_chi_cache {
    mns_chi_entry *e;
    int cnt, cap;
} mns_chi_cache;
void mns_chi_cache_clear(mns_chi_cache *c);
/* 1 if lambda (lambda != 0 mod p) is an n-th power mod p; same answer as
 * mns_is_nth_power. -1 on allocation failure. */
int mns_is_nth_power_si(mns_chi_cache *c, long lambda, unsigned long n, const mpz_t p);

/* Roots of X^n - X - 1 mod p (troot.c, FLINT): up to max of them, smallest
 * first; returns how many (0: none). */
int mns_trinomial_roots(mpz_t *roots, int max, int n, const mpz_t p);

/* Internal generator entry, compiled with FLINT only. */
mns_status mns_pmns_generate_flint(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *o);

/* Seconds of a monotonic clock. */
double mns_gen_now(void);

#endif
