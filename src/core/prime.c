/* The cheap probable-prime test (prime.h). Variable time: p is tested once,
 * when a context or key is made. */
#include "core/prime.h"

/* 0 if p is even, below 3 or has a factor up to 47 other than itself, 1 if
 * p is one of those primes, -1 if undecided */
static int trial(const mpz_t p)
{
    static const unsigned small[] = {3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47};
    if (mpz_cmp_ui(p, 3) < 0 || mpz_even_p(p))
        return 0;
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        if (mpz_cmp_ui(p, small[i]) == 0)
            return 1;
        else if (mpz_divisible_ui_p(p, small[i]))
            return 0;
    return -1;
}

static void gmp_pow2(void *ctx, mpz_t x, const mpz_t q, const mpz_t p)
{
    (void)ctx;
    mpz_set_ui(x, 2);
    mpz_powm(x, x, q, p);
}

int mns_probable_prime_with(const mpz_t p, mns_prime_pow2_fn pow2, void *ctx)
{
    int t = trial(p);
    if (t >= 0)
        return t;
    mpz_t q, x, pm1;
    mpz_inits(q, x, pm1, NULL);
    mpz_sub_ui(pm1, p, 1);
    mp_bitcnt_t s = mpz_scan1(pm1, 0);
    mpz_tdiv_q_2exp(q, pm1, s);
    pow2(ctx, x, q, p);
    int ok = mpz_cmp_ui(x, 1) == 0 || mpz_cmp(x, pm1) == 0;
    for (mp_bitcnt_t i = 1; i < s && !ok; i++) {
        mpz_mul(x, x, x);
        mpz_mod(x, x, p);
        ok = mpz_cmp(x, pm1) == 0;
    }
    mpz_clears(q, x, pm1, NULL);
    return ok;
}

int mns_probable_prime(const mpz_t p) { return mns_probable_prime_with(p, gmp_pow2, NULL); }
