/* The documented primes of params/: p_B = the smallest prime >= floor(pi *
 * 2^(B-2)), a B-bit prime with no special shape, reproducible anywhere with
 * GMP alone (pi by Machin's formula in fixed point). Shared by mns-pmns-gen
 * and the tests that regenerate params/. */
#ifndef MNS_GEN_TOOLS_PI_PRIME_H
#define MNS_GEN_TOOLS_PI_PRIME_H

#include <gmp.h>

/* r <- floor(pi * 2^bits) */
static inline void mns_pi_fixed(mpz_t r, unsigned long bits)
{
    unsigned long guard = 64, prec = bits + guard;
    mpz_t one, s, term, x2, t;
    mpz_inits(one, s, term, x2, t, NULL);
    mpz_set_ui(one, 1);
    mpz_mul_2exp(one, one, prec);
    mpz_set_ui(r, 0);
    const unsigned long xs[2] = {5, 239};
    const long mult[2] = {16, -4};
    for (int k = 0; k < 2; k++) {
        unsigned long x = xs[k];
        mpz_set_ui(s, 0);
        mpz_tdiv_q_ui(term, one, x); /* 1/x */
        mpz_set_ui(x2, x * x);
        for (unsigned long i = 0; mpz_sgn(term); i++) {
            mpz_tdiv_q_ui(t, term, 2 * i + 1);
            if (i & 1)
                mpz_sub(s, s, t);
            else
                mpz_add(s, s, t);
            mpz_tdiv_q(term, term, x2);
        }
        if (mult[k] > 0)
            mpz_addmul_ui(r, s, (unsigned long)mult[k]);
        else
            mpz_submul_ui(r, s, (unsigned long)-mult[k]);
    }
    mpz_tdiv_q_2exp(r, r, guard);
    mpz_clears(one, s, term, x2, t, NULL);
}

/* p <- the smallest prime >= floor(pi * 2^(bits-2)), bits >= 4 */
static inline void mns_pi_prime(mpz_t p, unsigned long bits)
{
    mns_pi_fixed(p, bits - 2);
    if (mpz_even_p(p))
        mpz_add_ui(p, p, 1);
    while (!mpz_probab_prime_p(p, 25))
        mpz_add_ui(p, p, 2);
}

#endif
