/* Paillier encryption on the mns field API: the ciphertext space is the
 * integers modulo n^2, an odd composite, which the field serves like a prime
 * (Montgomery, RNS, ... need only an odd modulus).
 *
 *   keys:     n = p q, lambda = lcm(p - 1, q - 1), g = n + 1,
 *             mu = lambda^-1 mod n (mns_field_inv modulo the composite n)
 *   encrypt:  c = (1 + m n) r^n mod n^2, r random in [1, n)
 *   decrypt:  m = L(c^lambda mod n^2) mu mod n, L(x) = (x - 1) / n
 * The exponentiations by the secret lambda and of the random r are the
 * field's constant-time powm. The program checks itself: decryption of
 * random messages, the additive homomorphism (a product of ciphertexts
 * decrypts to the sum) and that a multiple of p has no inverse modulo n.
 * L's exact division is done with GMP's mpz layer, which is not constant
 * time: a production decryption would divide by n with mpn_sec_* calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mns.h"

typedef struct paillier {
    mpz_t n, n2, lambda, p; /* p: one factor, kept for the self-check */
    mns_field *fn2, *fn; /* modulo n^2 and modulo n */
    uint64_t *mu;        /* an element of fn */
    size_t L2, L1;
} paillier;

static gmp_randstate_t rnd;

static void random_prime(mpz_t p, size_t bits)
{
    mpz_urandomb(p, rnd, bits);
    mpz_setbit(p, bits - 1);
    mpz_nextprime(p, p);
}

static int keygen(paillier *k, size_t bits)
{
    mpz_t p, q, t;
    mpz_inits(p, q, t, k->n, k->n2, k->lambda, k->p, NULL);
    random_prime(p, bits / 2);
    do
        random_prime(q, bits / 2);
    while (mpz_cmp(p, q) == 0);
    mpz_mul(k->n, p, q);
    mpz_set(k->p, p);
    mpz_mul(k->n2, k->n, k->n);
    mpz_sub_ui(p, p, 1);
    mpz_sub_ui(q, q, 1);
    mpz_lcm(k->lambda, p, q);
    if (mns_field_new(&k->fn2, k->n2, "auto:op=exp") != MNS_OK ||
        mns_field_new(&k->fn, k->n, "auto") != MNS_OK) {
        fprintf(stderr, "paillier: %s\n", mns_last_error());
        return 0;
    }
    k->L2 = mns_field_limbs(k->fn2);
    k->L1 = mns_field_limbs(k->fn);
    k->mu = calloc(k->L1, sizeof(uint64_t));
    mns_field_set_mpz(k->fn, k->mu, k->lambda);
    mns_status st = mns_field_inv(k->fn, k->mu, k->mu);
    mpz_clears(p, q, t, NULL);
    return st == MNS_OK;
}

static void paillier_clear(paillier *k)
{
    mns_field_free(k->fn2);
    mns_field_free(k->fn);
    free(k->mu);
    mpz_clears(k->n, k->n2, k->lambda, k->p, NULL);
}

/* c <- (1 + m n) r^n mod n^2 */
static void encrypt(const paillier *k, mpz_t c, const mpz_t m)
{
    uint64_t *G = calloc(2 * k->L2, sizeof(uint64_t)), *R = G + k->L2;
    mpz_t t;
    mpz_init(t);
    do
        mpz_urandomm(t, rnd, k->n);
    while (mpz_sgn(t) == 0);
    mns_field_set_mpz(k->fn2, R, t);
    mns_field_powm(k->fn2, R, R, k->n);
    mpz_mul(t, m, k->n);
    mpz_add_ui(t, t, 1);
    mns_field_set_mpz(k->fn2, G, t);
    mns_field_mul(k->fn2, G, G, R);
    mns_field_get_mpz(k->fn2, c, G);
    mpz_clear(t);
    free(G);
}

/* m <- L(c^lambda mod n^2) mu mod n */
static void decrypt(const paillier *k, mpz_t m, const mpz_t c)
{
    uint64_t *C = calloc(k->L2 + k->L1, sizeof(uint64_t)), *M = C + k->L2;
    mpz_t x;
    mpz_init(x);
    mns_field_set_mpz(k->fn2, C, c);
    mns_field_powm(k->fn2, C, C, k->lambda);
    mns_field_get_mpz(k->fn2, x, C);
    mpz_sub_ui(x, x, 1);
    mpz_divexact(x, x, k->n);
    mns_field_set_mpz(k->fn, M, x);
    mns_field_mul(k->fn, M, M, k->mu);
    mns_field_get_mpz(k->fn, m, M);
    mpz_clear(x);
    free(C);
}

int main(void)
{
    gmp_randinit_default(rnd);
    gmp_randseed_ui(rnd, 20240607);
    paillier k;
    if (!keygen(&k, 1024))
        return 1;
    printf("paillier: n of %zu bits, n^2 on %s\n", mpz_sizeinbase(k.n, 2),
           mns_field_describe(k.fn2));
    int failures = 0;
    mpz_t m1, m2, c1, c2, d;
    mpz_inits(m1, m2, c1, c2, d, NULL);
    for (int i = 0; i < 10; i++) {
        mpz_urandomm(m1, rnd, k.n);
        mpz_urandomm(m2, rnd, k.n);
        encrypt(&k, c1, m1);
        encrypt(&k, c2, m2);
        decrypt(&k, d, c1);
        failures += mpz_cmp(d, m1) != 0;
        mpz_mul(c1, c1, c2); /* E(m1) E(m2) = E(m1 + m2) */
        mpz_mod(c1, c1, k.n2);
        decrypt(&k, d, c1);
        mpz_add(m1, m1, m2);
        mpz_mod(m1, m1, k.n);
        failures += mpz_cmp(d, m1) != 0;
    }
    printf("%s: 10 messages decrypt, and 10 products of ciphertexts decrypt to the sums\n",
           failures ? "FAIL" : "ok  ");
    /* a multiple of a factor of n has no inverse modulo n */
    uint64_t *X = calloc(k.L1, sizeof(uint64_t));
    mpz_mul_ui(d, k.p, 12345);
    mns_field_set_mpz(k.fn, X, d);
    int bad = mns_field_inv(k.fn, X, X) != MNS_ERANGE;
    printf("%s: 12345 p has no inverse modulo n (MNS_ERANGE)\n", bad ? "FAIL" : "ok  ");
    failures += bad;
    free(X);
    mpz_clears(m1, m2, c1, c2, d, NULL);
    paillier_clear(&k);
    gmp_randclear(rnd);
    printf("%s\n", failures ? "paillier: FAILED" : "paillier: all passed");
    return failures != 0;
}
