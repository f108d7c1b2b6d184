/* A program outside the tree, built against the installed library through
 * pkg-config: mns_field with "mont" and "auto" on moduli from 3 words to
 * 8192 bits, every product and power compared with GMP. */
#include <stdio.h>
#include <stdlib.h>
#include <mns.h>

int main(void)
{
    static const unsigned bits[] = {129, 192, 256, 521, 1024, 2048, 3072, 4096, 8192};
    static const char *specs[] = {"mont", "auto"};
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 20261122);
    mpz_t p, a, b, e, got, want;
    mpz_inits(p, a, b, e, got, want, NULL);
    int bad = 0, ran = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        for (size_t s = 0; s < 2; s++) {
            mpz_urandomb(p, rs, bits[i]);
            mpz_setbit(p, bits[i] - 1);
            mpz_setbit(p, 0);
            mns_field *f;
            if (mns_field_new(&f, p, specs[s]) != MNS_OK) {
                printf("mns_field_new(%s): %s\n", specs[s], mns_last_error());
                return 1;
            }
            size_t L = mns_field_limbs(f);
            uint64_t *A = malloc(8 * L), *B = malloc(8 * L), *R = malloc(8 * L);
            mpz_urandomm(a, rs, p);
            mpz_urandomm(b, rs, p);
            mpz_urandomb(e, rs, bits[i]);
            mns_field_set_mpz(f, A, a);
            mns_field_set_mpz(f, B, b);
            mns_field_mul(f, R, A, B);
            mns_field_get_mpz(f, got, R);
            mpz_mul(want, a, b);
            mpz_mod(want, want, p);
            bad |= mpz_cmp(got, want) != 0;
            mns_field_powm(f, R, A, e);
            mns_field_get_mpz(f, got, R);
            mpz_powm(want, a, e, p);
            bad |= mpz_cmp(got, want) != 0;
            ran += 2;
            printf("%-5s %5u bits: %s\n", specs[s], bits[i], mns_field_describe(f));
            free(A);
            free(B);
            free(R);
            mns_field_free(f);
        }
    printf("install: %d passed, %d failed\n", bad ? 0 : ran, bad ? 1 : 0);
    mpz_clears(p, a, b, e, got, want, NULL);
    gmp_randclear(rs);
    return bad;
}
