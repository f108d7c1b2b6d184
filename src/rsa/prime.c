/* The probable-prime test of key validation (key.c): the test of
 * core/prime.c (trial division, one strong probable-prime test to base 2),
 * with its one exponentiation in a mont-ifma field (rns-ifma above mont-ifma's
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

/* x <- 2^q mod p in a mont-ifma (else rns-ifma) field of p; GMP where the
 * CPU has no IFMA, both refuse p, or memory is short */
static void field_pow2(void *ctx, mpz_t x, const mpz_t q, const mpz_t p)
{
    (void)ctx;
    mns_field *f = NULL;
    uint64_t *a = NULL, *b = NULL;
    mpz_set_ui(x, 2);
    if (mns_cpu_has_ifma() && (mns_field_new_nosqrt_(&f, p, "mont-ifma") == MNS_OK ||
                               mns_field_new_nosqrt_(&f, p, "rns-ifma") == MNS_OK)) {
        a = calloc(mns_field_limbs(f), sizeof *a);
        b = calloc(mns_field_limbs(f), sizeof *b);
    }
    mns_error_clear(); /* a refusal only means GMP decides */
    if (a && b) {
        (void)mns_field_set_mpz(f, a, x);
        mns_field_powm(f, b, a, q);
        mns_field_get_mpz(f, x, b);
    } else {
        mpz_powm(x, x, q, p);
    }
    free(a);
    free(b);
    mns_field_free(f);
}

int mns_rsa_probable_prime(const mpz_t p) { return mns_probable_prime_with(p, field_pow2, NULL); }
