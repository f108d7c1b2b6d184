/* Random RSA primes for the RSA tests and benchmark: b bits with the top
 * two set (so a product of k of them has the full size), p - 1 prime to e. */
#ifndef MNS_TESTS_RSA_KEYGEN_H
#define MNS_TESTS_RSA_KEYGEN_H

#include <stddef.h>
#include <gmp.h>

static inline void rsa_test_prime(mpz_t p, size_t b, const mpz_t e, gmp_randstate_t r)
{
    mpz_t g;
    mpz_init(g);
    do {
        mpz_urandomb(p, r, b);
        mpz_setbit(p, b - 1);
        mpz_setbit(p, b - 2);
        mpz_nextprime(p, p);
        mpz_sub_ui(g, p, 1);
        mpz_gcd(g, g, e);
    } while (mpz_cmp_ui(g, 1) != 0);
    mpz_clear(g);
}

/* A k-prime key of exactly `bits` bits, e = 65537, d = e^-1 mod lcm(p_i - 1).
 * Prime i has bits/k bits, one more for the first bits mod k of them (so a
 * product of k primes with their top two bits set can reach `bits`: with
 * bits/k for all, 4096 bits and k = 3 could never be reached). */
typedef struct rsa_test_key {
    int k;
    size_t bits;
    mpz_t n, e, d, p[8];
} rsa_test_key;

static inline void rsa_test_key_init(rsa_test_key *t)
{
    t->k = 0;
    t->bits = 0;
    mpz_inits(t->n, t->e, t->d, NULL);
    for (int i = 0; i < 8; i++)
        mpz_init(t->p[i]);
}

/* n = product of the k primes, d = e^-1 mod lcm(p_i - 1); 0 if e has no
 * inverse there. */
static inline int rsa_test_key_finish(rsa_test_key *t)
{
    mpz_t pm1, l;
    mpz_inits(pm1, l, NULL);
    mpz_set_ui(t->n, 1);
    mpz_set_ui(l, 1);
    for (int i = 0; i < t->k; i++) {
        mpz_mul(t->n, t->n, t->p[i]);
        mpz_sub_ui(pm1, t->p[i], 1);
        mpz_lcm(l, l, pm1);
    }
    int ok = mpz_invert(t->d, t->e, l) != 0;
    mpz_clears(pm1, l, NULL);
    return ok;
}

/* A fresh random key in an initialised t: distinct primes, n of exactly
 * `bits` bits. */
static inline void rsa_test_key_random(rsa_test_key *t, size_t bits, int k, gmp_randstate_t r)
{
    t->k = k;
    t->bits = bits;
    mpz_set_ui(t->e, 65537);
    int ok;
    do {
        ok = 1;
        for (int i = 0; i < k; i++) {
            rsa_test_prime(t->p[i], bits / (size_t)k + (i < (int)(bits % (size_t)k)), t->e, r);
            for (int j = 0; j < i; j++)
                ok &= mpz_cmp(t->p[i], t->p[j]) != 0;
        }
        ok = ok && rsa_test_key_finish(t) && mpz_sizeinbase(t->n, 2) == bits;
    } while (!ok);
}

static inline void rsa_test_key_make(rsa_test_key *t, size_t bits, int k, gmp_randstate_t r)
{
    rsa_test_key_init(t);
    rsa_test_key_random(t, bits, k, r);
}

static inline void rsa_test_key_clear(rsa_test_key *t)
{
    mpz_clears(t->n, t->e, t->d, NULL);
    for (int i = 0; i < 8; i++)
        mpz_clear(t->p[i]);
}

#endif
