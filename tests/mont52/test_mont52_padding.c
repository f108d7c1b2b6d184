/* mont-ifma's padding words (digits m .. 8 nv of an element, zero in the
 * representation, src/mont52/amm52.h) are written by add and sub, not only
 * by the products: a caller's output buffer may hold anything before the
 * call (a fresh allocation, a reused element), and both kernels' products
 * read whole vectors of their first operand, padding included. For the IFMA
 * kernel (skipped without IFMA or under MNS_CPU=generic) and its portable
 * twin: outputs prefilled with all-ones words, random and structured
 * operands (0, 1, p - 1, p - 2), sizes with and without padding; the padding
 * must come out zero and the sum or difference, squared and multiplied by a
 * third element, must agree with GMP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field_internal.h"
#include "mont52/amm52.h"
#include "testutil.h"

static void operand(mpz_t a, const mpz_t p, unsigned i)
{
    switch (i % 6) {
    case 0: mpz_set_ui(a, 0); break;
    case 1: mpz_set_ui(a, 1); break;
    case 2: mpz_sub_ui(a, p, 1); break;
    case 3: mpz_sub_ui(a, p, 2); break;
    default: mpz_urandomm(a, mt_rand, p);
    }
}

/* r (prefilled with garbage) <- a + b or a - b; checks the padding and the value */
static void one(const mns_field *f, const mpz_t p, const mpz_t a, const mpz_t b, int sub)
{
    const mns_amm52_ctx *c = mns_field_backend_ctx(f);
    const size_t L = mns_field_limbs(f);
    uint64_t *A = calloc(4 * L, sizeof *A), *B = A + L, *R = B + L, *S = R + L;
    mpz_t want, got;
    mpz_inits(want, got, NULL);
    MT_CHECK(mns_field_set_mpz(f, A, a) == MNS_OK && mns_field_set_mpz(f, B, b) == MNS_OK,
             "set_mpz: %s", mns_last_error());
    memset(R, 0xff, L * sizeof *R);
    (sub ? mns_field_sub : mns_field_add)(f, R, A, B);
    int pad_ok = 1;
    for (size_t j = c->m; j < L; j++)
        pad_ok &= R[j] == 0;
    MT_CHECK(pad_ok, "%s %zu bits (%s): padding words not zero", sub ? "sub" : "add",
             mpz_sizeinbase(p, 2), c->kernel);
    (sub ? mpz_sub : mpz_add)(want, a, b);
    /* the sum as the first operand of a square and of a product */
    mns_field_sqr(f, S, R);
    mns_field_get_mpz(f, got, S);
    mpz_mul(want, want, want);
    mpz_mod(want, want, p);
    MT_CHECK(mpz_cmp(got, want) == 0, "%s %zu bits (%s): (a op b)^2 differs from GMP",
             sub ? "sub" : "add", mpz_sizeinbase(p, 2), c->kernel);
    mns_field_mul(f, S, R, A);
    mns_field_get_mpz(f, got, S);
    (sub ? mpz_sub : mpz_add)(want, a, b);
    mpz_mul(want, want, a);
    mpz_mod(want, want, p);
    MT_CHECK(mpz_cmp(got, want) == 0, "%s %zu bits (%s): (a op b) a differs from GMP",
             sub ? "sub" : "add", mpz_sizeinbase(p, 2), c->kernel);
    mpz_clears(want, got, NULL);
    free(A);
}

static void size(const char *spec, size_t bits)
{
    mpz_t p, a, b;
    mpz_inits(p, a, b, NULL);
    mt_modulus(p, bits, MT_MOD_PRIME);
    mns_field *f = NULL;
    if (mns_field_new(&f, p, spec) != MNS_OK) {
        printf("  skip %s %zu bits: %s\n", spec, bits, mns_last_error());
        mpz_clears(p, a, b, NULL);
        return;
    }
    for (unsigned i = 0; i < mt_scaled(36); i++) {
        operand(a, p, i);
        operand(b, p, i / 6 + 5 * i);
        one(f, p, a, b, 0);
        one(f, p, a, b, 1);
    }
    mns_field_free(f);
    mpz_clears(p, a, b, NULL);
}

int main(void)
{
    mt_init("test_mont52_padding");
    static const char *const specs[] = {"mont-ifma", "mont-ifma:kernel=generic"};
    /* m = ceil((bits + 2) / 52) of 8 nv words: 100 bits 2 of 8, 255 bits 5 of
     * 8, 414 bits 8 of 8 (no padding), 1024 bits 20 of 24, 2048 bits 40 of 40,
     * 3000 bits 58 of 64 */
    static const size_t sizes[] = {100, 255, 414, 1024, 2048, 3000};
    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            size(specs[s], sizes[i]);
    return mt_finish();
}
