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

/* Its trial division alone: 0 if p is even, below 3 or has a factor up to
 * 47 other than itself, 1 if p is one of those primes, -1 if undecided
 * (the strong test to base 2 decides; src/rsa/prime.c runs it in a field). */
int mns_prime_trial(const mpz_t p);

#endif
