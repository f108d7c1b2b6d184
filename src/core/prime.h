/* A cheap probable-prime test for the places that must refuse a composite
 * before expensive work (RSA key validation, PMNS parameter generation). */
#ifndef MNS_CORE_PRIME_H
#define MNS_CORE_PRIME_H

#include <gmp.h>

/* 1 if p (odd, >= 3) passes trial division by the primes up to 47 and the
 * strong probable-prime test to base 2 (Miller-Rabin): one exponentiation,
 * where GMP's mpz_probab_prime_p (BPSW and more rounds) takes about three
 * on a prime. A composite that passes is a strong pseudoprime to base 2,
 * which has to be made on purpose; callers that compute with p either
 * check their results (RSA: every signature is checked with e) or test p
 * again fully before trusting it (the PMNS generator). 0 otherwise. */
int mns_probable_prime(const mpz_t p);

/* The same test with its one exponentiation, x <- 2^q mod p (q odd, p - 1
 * = q 2^s), done by pow2 (src/rsa/prime.c: in an IFMA field); called only
 * once trial division has not decided. The s squarings after it are GMP's
 * (s is small: they cost under 1% of the power). */
typedef void (*mns_prime_pow2_fn)(void *ctx, mpz_t x, const mpz_t q, const mpz_t p);
int mns_probable_prime_with(const mpz_t p, mns_prime_pow2_fn pow2, void *ctx);

#endif
