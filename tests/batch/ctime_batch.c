/* Constant-time check of the portable batch path under valgrind memcheck
 * (tests/ct/ctime.c's method: secrets marked undefined, every branch or
 * address that depends on them reported): the portable lane kernels
 * (mul, sqr, the eight-lane exponentiation with its per-lane table
 * selection) through mns_field_mul_n / _sqr_n / _powm_n, on a mont-ifma
 * field (elements are lane digits) and on mont (through set_words /
 * get_words), at 255, 1024 and 2048 bits, with a batch of 8 and one of 5
 * (three dummy lanes).
 *
 * The exponents' top limbs stay defined: the batch's time depends on the
 * largest bit length among them, which is public by the API contract and
 * read with mpz_sizeinbase. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "field/field_internal.h"
#include "mns.h"
#include "mont52_mb/mb52.h"

#define SECRET(p, len) VALGRIND_MAKE_MEM_UNDEFINED((p), (len))
#define PUBLIC(p, len) VALGRIND_MAKE_MEM_DEFINED((p), (len))
#define N 8

static int run(const char *spec, size_t bits, size_t count)
{
    mpz_t p, a, e[N];
    mpz_inits(p, a, NULL);
    mpz_ui_pow_ui(p, 2, bits);
    mpz_sub_ui(p, p, bits == 255 ? 19 : 159);
    mns_field *f;
    if (mns_field_new(&f, p, spec) != MNS_OK ||
        mns_field_lanes_use_(f, MNS_MB52_GENERIC) != MNS_OK) {
        printf("ctime_batch: %s: %s\n", spec, mns_last_error());
        mpz_clears(p, a, NULL);
        return 1;
    }
    const size_t L = mns_field_limbs(f);
    uint64_t *A = calloc(N * L, 8), *B = calloc(N * L, 8), *R = calloc(N * L, 8);
    for (size_t i = 0; i < N; i++) {
        mpz_set_ui(a, 0x1234567 + 977 * i);
        mpz_pow_ui(a, a, 40);
        mns_field_set_mpz(f, A + i * L, a);
        mpz_sub_ui(a, p, 2 + i);
        mns_field_set_mpz(f, B + i * L, a);
        mpz_init(e[i]);
        mpz_setbit(e[i], 100 + 3 * i); /* the longest: 121 bits */
        mpz_add_ui(e[i], e[i], 0x5555 * i);
    }
    SECRET(A, N * L * 8);
    SECRET(B, N * L * 8);
    mns_field_mul_n(f, R, A, B, count);
    mns_field_sqr_n(f, R, R, count);
    for (size_t i = 0; i < count; i++) /* all limbs but the top one */
        SECRET(mpz_limbs_read(e[i]), (mpz_size(e[i]) - 1) * 8);
    mns_field_powm_n(f, R, R, (const mpz_t *)e, count);
    PUBLIC(R, N * L * 8);
    for (size_t i = 0; i < N; i++) {
        PUBLIC(mpz_limbs_read(e[i]), mpz_size(e[i]) * 8);
        mpz_clear(e[i]);
    }
    free(A), free(B), free(R);
    mns_field_free(f);
    mpz_clears(p, a, NULL);
    printf("ctime_batch: %s %zu bits, count %zu: done\n", spec, bits, count);
    return 0;
}

int main(void)
{
    static const char *const specs[] = {"mont-ifma:kernel=generic", "mont"};
    static const size_t bits[] = {255, 1024, 2048};
    int bad = 0;
    for (size_t s = 0; s < 2; s++)
        for (size_t b = 0; b < 3; b++) {
            bad |= run(specs[s], bits[b], N);
            bad |= run(specs[s], bits[b], 5);
        }
    return bad;
}
