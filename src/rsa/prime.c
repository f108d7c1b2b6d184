/* The probable-prime test of key validation (key.c): the test of
 * core/prime.c (trial division, one strong probable-prime test to base 2),
 * with its exponentiation in a mont-ifma field (rns-ifma above mont-ifma's
 * 4158 bits) where the CPU has AVX-512 IFMA. Why: that exponentiation was
 * most of mns_rsa_new, and of a first signature's delay (by p - 1, AMD Zen
 * 5: GMP's mpz_powm 1.9 ms at 2048 bits, 15 ms at 4096, 104 ms at 8192;
 * mont-ifma 0.57 and 3.2 ms, rns-ifma 33 ms at 8192; a mont-ifma field is
 * made in 0.02-0.04 ms, an rns-ifma one in 5.8 ms at 8192 bits). Elsewhere
 * (no IFMA, MNS_CPU=generic, valgrind) GMP's is as fast as mont's, and is
 * kept.
 *
 * Both fields compute right for any odd modulus (neither tests p), so a
 * composite p gets the same verdict as from GMP. Variable time (branches
 * on the result, get_mpz), as the validation always was: key creation is
 * one trace per key. */
#include <stdlib.h>

#include "core/cpu.h"
#include "core/error.h"
#include "core/prime.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"

int mns_rsa_probable_prime(const mpz_t p)
{
    const int t = mns_prime_trial(p);
    if (t >= 0)
        return t;
    mns_field *f = NULL;
    if (!mns_cpu_has_ifma() || (mns_field_new_nosqrt_(&f, p, "mont-ifma") != MNS_OK &&
                                mns_field_new_nosqrt_(&f, p, "rns-ifma") != MNS_OK)) {
        mns_error_clear(); /* both refused p: GMP decides */
        return mns_probable_prime(p);
    }
    const size_t L = mns_field_limbs(f);
    uint64_t *a = calloc(L, sizeof *a), *b = calloc(L, sizeof *b);
    mpz_t q, x, pm1;
    mpz_inits(q, x, pm1, NULL);
    int ok;
    if (!a || !b) {
        ok = mns_probable_prime(p);
    } else {
        mpz_sub_ui(pm1, p, 1);
        const mp_bitcnt_t s = mpz_scan1(pm1, 0);
        mpz_tdiv_q_2exp(q, pm1, s);
        mpz_set_ui(x, 2);
        (void)mns_field_set_mpz(f, a, x);
        mns_field_powm(f, b, a, q); /* 2^q */
        mns_field_get_mpz(f, x, b);
        ok = mpz_cmp_ui(x, 1) == 0 || mpz_cmp(x, pm1) == 0;
        for (mp_bitcnt_t i = 1; i < s && !ok; i++) {
            mns_field_sqr(f, b, b);
            mns_field_get_mpz(f, x, b);
            ok = mpz_cmp(x, pm1) == 0;
        }
    }
    mpz_clears(q, x, pm1, NULL);
    free(a);
    free(b);
    mns_field_free(f);
    return ok;
}
