/* Constant-time check in the manner of libsecp256k1's ctime_tests.c: the
 * secret inputs (element words, exponent words) are marked undefined for
 * valgrind memcheck, which then reports any branch or memory index that
 * depends on them as a use of uninitialised data.
 *
 * Usage: ctime SPEC [SPEC...]   (run under valgrind --error-exitcode=...)
 * Each spec runs mul, sqr, add, sub, reduce, powm and inv on several moduli, and
 * the element API of mns.h (set_bytes, get_bytes, equal, is_zero, cmov,
 * cswap, neg, inv, sqrt, legendre) on one prime of each square-root class:
 * 2^256 - 189 (3 mod 4), 2^255 - 19 (5 mod 8), P-224 (1 mod 2^96). inv and
 * sqrt make one bit public on purpose, their status (src/core/declassify.c).
 * Without
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
    /* inversion at every size here: each of safegcd's limb-count copies */
    const mns_status si = mns_field_inv(f, B, A);

    PUBLIC(R, 8 * L);
    PUBLIC(A, 8 * L);
    PUBLIC(B, 8 * L);
    mns_field_get_mpz(f, a, R);
    printf("ctime: %s on %zu-bit p: ran (inv %d; %s)\n", spec, mpz_sizeinbase(p, 2), (int)si,
           mns_field_describe(f));
    free(A);
    free(B);
    free(R);
    mns_field_free(f);
    mpz_clears(p, a, e, NULL);
    return 0;
}

/* The element API on secret values: the bytes in, the elements, the masks */
static int run_api(const char *spec, const mpz_t p, const char *pname)
{
    mns_field *f;
    mns_status st = mns_field_new(&f, p, spec);
    if (st != MNS_OK) {
        printf("ctime: api %s on %s: %s\n", spec, pname, mns_last_error());
        return st != MNS_ENOTSUP;
    }
    const size_t L = mns_field_limbs(f), len = (mpz_sizeinbase(p, 2) + 7) / 8 + 3;
    uint64_t *A = calloc(4 * L, 8), *B = A + L, *R = B + L, *S = R + L;
    unsigned char *buf = calloc(len, 1);
    uint64_t mask = ~(uint64_t)0, out[4];
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)(0x5a ^ (i * 37));
    SECRET(buf, len);
    SECRET(&mask, sizeof mask);
    mns_field_set_bytes(f, A, buf, len, MNS_BIG_ENDIAN); /* longer than p: reduced */
    mns_field_set_bytes(f, B, buf, len - 4, MNS_LITTLE_ENDIAN);
    mns_field_get_bytes(f, buf, len, A, MNS_LITTLE_ENDIAN);
    out[0] = mns_field_equal(f, A, B);
    out[1] = mns_field_is_zero(f, A);
    mns_field_cmov(f, A, B, mask);
    mns_field_cswap(f, A, B, mask);
    mns_field_neg(f, R, A);
    mns_status s1 = mns_field_inv(f, R, A);
    mns_field_sqr(f, S, B);
    mns_status s2 = mns_field_sqrt(f, S, S);
    out[2] = (uint64_t)mns_field_legendre(f, B);
    PUBLIC(A, 4 * 8 * L);
    PUBLIC(buf, len);
    PUBLIC(out, sizeof out);
    PUBLIC(&mask, sizeof mask);
    printf("ctime: api %s on %s: ran (inv %d, sqrt %d)\n", spec, pname, (int)s1, (int)s2);
    free(A);
    free(buf);
    mns_field_free(f);
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
    mpz_t p;
    mpz_init(p);
    for (int i = 1; i < argc; i++) {
        for (size_t k = 0; k < sizeof moduli / sizeof moduli[0]; k++)
            bad |= run(argv[i], moduli[k]);
        parse_modulus(p, "2^256-189");
        bad |= run_api(argv[i], p, "2^256-189");
        parse_modulus(p, "2^255-19");
        bad |= run_api(argv[i], p, "2^255-19");
        mpz_t t;
        mpz_init(t);
        mpz_ui_pow_ui(p, 2, 224); /* P-224 = 2^224 - 2^96 + 1 */
        mpz_ui_pow_ui(t, 2, 96);
        mpz_sub(p, p, t);
        mpz_add_ui(p, p, 1);
        mpz_clear(t);
        bad |= run_api(argv[i], p, "P-224");
    }
    mpz_clear(p);
    return bad;
}
