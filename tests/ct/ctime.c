/* Constant-time check in the manner of libsecp256k1's ctime_tests.c: the
 * secret inputs (element words, exponent words) are marked undefined for
 * valgrind memcheck, which then reports any branch or memory index that
 * depends on them as a use of uninitialised data.
 *
 * Usage: ctime SPEC [SPEC...]   (run under valgrind --error-exitcode=...)
 * Each spec runs mul, sqr, add, sub, reduce and powm on 3 moduli. Without
 * valgrind the client requests are no-ops and the program just runs.
 *
 * Limitation: mns_field_powm takes the exponent's bit length (public by the
 * API contract) from mpz_sizeinbase, which reads the top limb; the top limb
 * of the exponent is therefore left defined and the others are secret. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "mns.h"

#define SECRET(p, len) VALGRIND_MAKE_MEM_UNDEFINED((p), (len))
#define PUBLIC(p, len) VALGRIND_MAKE_MEM_DEFINED((p), (len))

/* "2^k-c" */
static void parse_modulus(mpz_t p, const char *s)
{
    unsigned long k = strtoul(s + 2, NULL, 10), c = strtoul(strchr(s, '-') + 1, NULL, 10);
    mpz_ui_pow_ui(p, 2, k);
    mpz_sub_ui(p, p, c);
}

static int run(const char *spec, const char *pstr)
{
    mpz_t p, a, e;
    mpz_init(p);
    parse_modulus(p, pstr);
    mpz_inits(a, e, NULL);
    mns_field *f;
    mns_status st = mns_field_new(&f, p, spec);
    if (st == MNS_ENOTSUP) {
        printf("ctime: skip %s: %s\n", spec, mns_last_error());
        mpz_clears(p, a, e, NULL);
        return 0;
    }
    if (st != MNS_OK) {
        printf("ctime: %s: %s\n", spec, mns_last_error());
        mpz_clears(p, a, e, NULL);
        return 1;
    }
    size_t L = mns_field_limbs(f);
    uint64_t *A = malloc(8 * L), *B = malloc(8 * L), *R = malloc(8 * L);
    mpz_set_str(a, "123456789abcdef0fedcba98765432100123456789abcdef", 16);
    mns_field_set_mpz(f, A, a);
    mpz_sub_ui(a, p, 2);
    mns_field_set_mpz(f, B, a);

    SECRET(A, 8 * L);
    SECRET(B, 8 * L);
    mns_field_mul(f, R, A, B);
    mns_field_sqr(f, R, R);
    mns_field_add(f, R, R, A);
    mns_field_sub(f, R, R, B);
    mns_field_reduce(f, R, R);
    mns_field_mul(f, R, R, R);

    mpz_sub_ui(e, p, 2); /* a full-size exponent */
    mp_limb_t *el = mpz_limbs_modify(e, mpz_size(e));
    if (mpz_size(e) > 1)
        SECRET(el, 8 * (mpz_size(e) - 1));
    mns_field_powm(f, R, A, e);
    PUBLIC(el, 8 * mpz_size(e));

    PUBLIC(R, 8 * L);
    PUBLIC(A, 8 * L);
    PUBLIC(B, 8 * L);
    mns_field_get_mpz(f, a, R);
    printf("ctime: %s on %zu-bit p: ran (%s)\n", spec, mpz_sizeinbase(p, 2), mns_field_describe(f));
    free(A);
    free(B);
    free(R);
    mns_field_free(f);
    mpz_clears(p, a, e, NULL);
    return 0;
}

/* The harness must be able to fail: get_mpz is variable time by contract,
 * so running it on a secret has to be reported (ctest expects a failure). */
static int selftest(void)
{
    mpz_t p, a;
    mpz_inits(p, a, NULL);
    parse_modulus(p, "2^256-189");
    mns_field *f;
    if (mns_field_new(&f, p, "mont") != MNS_OK)
        return 1;
    uint64_t A[4];
    mpz_set_ui(a, 12345);
    mns_field_set_mpz(f, A, a);
    SECRET(A, sizeof A);
    mns_field_get_mpz(f, a, A);
    printf("ctime: selftest ran (valgrind must report the line above)\n");
    mns_field_free(f);
    mpz_clears(p, a, NULL);
    return 0;
}

int main(int argc, char **argv)
{
    /* 2^256 - 189, 2^768 - 825, 2^1024 - 105 and 2^2048 - 1942289 (all
     * prime): word sizes 4, 12, 16 and 32, the top word full; 2^521 - 1: 9
     * words, the top one nearly empty (9, 12 and 16 words: the largest of
     * mont's fixed-size kernels in each layout: the window in registers,
     * its top on the stack, its words from the tenth on the stack);
     * 2^127 - 1: 2 words, mont's squaring with one REDC step by 2^128;
     * 2^1408 - 413 (prime): 22 words, mont's adx kernel with two single
     * head rows, one block of four rows and two of eight, its loops entered
     * past their first column (2^2048 - 1942289 enters them at the first) */
    static const char *moduli[] = {
        "2^127-1", "2^256-189", "2^521-1", "2^768-825", "2^1024-105", "2^1408-413", "2^2048-1942289",
    };
    int bad = 0;
    if (argc == 2 && strcmp(argv[1], "--selftest") == 0)
        return selftest();
    for (int i = 1; i < argc; i++)
        for (size_t k = 0; k < sizeof moduli / sizeof moduli[0]; k++)
            bad |= run(argv[i], moduli[k]);
    return bad;
}
