/* The moduli of the benchmark: one fixed, reproducible prime per size.
 *
 * p(bits, seed) = nextprime(x), x a uniform random bits-bit integer with its
 * top bit set, drawn from GMP's Mersenne Twister seeded with
 * seed * 2^20 + bits (so a size's prime does not depend on the other sizes
 * asked for); drawn again in the rare case nextprime overflows to bits + 1
 * bits. Every implementation gets the same p.
 *
 * Finding an 8192-bit prime costs about a minute here, so the primes of the
 * default seed are shipped in primes_table.c (regenerate with
 * `mns-bench --gen-primes`); other seeds and sizes are generated at run time. */
#ifndef MNS_BENCH_PRIMES_H
#define MNS_BENCH_PRIMES_H

#include <gmp.h>

#define MB_DEFAULT_SEED 1UL

/* p <- the prime of this size and seed, from the table when there, else
 * generated. Returns 1 if it came from the table, 0 if generated. */
int mb_prime(mpz_t p, unsigned bits, unsigned long seed);

/* 1 if mb_prime would take it from the table. */
int mb_prime_in_table(unsigned bits, unsigned long seed);

/* The pseudo-Mersenne prime of this size (--moduli pseudo-mersenne, for the
 * sum-of-residues backend): the standard curve primes 2^255 - 19,
 * secp256k1's 2^256 - 2^32 - 977, P-384's, Curve448's 2^448 - 2^224 - 1 and
 * P-521's 2^521 - 1 at their sizes; elsewhere the largest prime below 2^bits. */
void mb_prime_pm(mpz_t p, unsigned bits);

/* Always generates (slow for large sizes). */
void mb_prime_generate(mpz_t p, unsigned bits, unsigned long seed);

/* The shipped table (primes_table.c): hex strings for mb_prime_table_seed
 * (MB_DEFAULT_SEED as shipped). */
typedef struct mb_prime_entry {
    unsigned bits;
    const char *hex;
} mb_prime_entry;
extern const mb_prime_entry mb_prime_table[];
extern const unsigned mb_prime_table_len;
extern const unsigned long mb_prime_table_seed;

#endif
