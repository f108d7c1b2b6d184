/* The optional constant-time entry of the backend contract (set_words,
 * src/core/backend.h; library-internal front door in field/field_internal.h):
 * for every backend that has it, on primes of several sizes, the element it
 * makes from the words of a < p reads back as a, is tight (products, a sum
 * of two entered elements into mul when delta allows it, reduce) against
 * GMP, and the front door refuses a wrong word count. A backend without it
 * answers MNS_ENOTSUP and leaves r alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field_internal.h"
#include "mns.h"
#include "testutil.h"

static void words_of(uint64_t *w, size_t n, const mpz_t a)
{
    memset(w, 0, n * sizeof *w);
    mpz_export(w, NULL, -1, sizeof *w, 0, 0, a);
}

/* values < p: the edges and the shapes the entry's digit cuts meet */
static void value(mpz_t a, const mpz_t p, unsigned i)
{
    switch (i) {
    case 0: mpz_set_ui(a, 0); break;
    case 1: mpz_set_ui(a, 1); break;
    case 2: mpz_sub_ui(a, p, 1); break;
    case 3: /* all ones below the top bit of p */
        mpz_set_ui(a, 0);
        mpz_setbit(a, mpz_sizeinbase(p, 2) - 1);
        mpz_sub_ui(a, a, 1);
        break;
    case 4: mpz_fdiv_q_2exp(a, p, 1); break;
    default: mt_operand(a, p, MT_OP_RANDOM); mpz_mod(a, a, p); break;
    }
}

/* the element Z reads back as want mod p */
static void expect(const mns_field *f, const uint64_t *Z, const mpz_t want, const mpz_t p,
                   const char *spec, size_t bits, const char *what, unsigned i)
{
    mpz_t got, w;
    mpz_inits(got, w, NULL);
    mns_field_get_mpz(f, got, Z);
    mpz_mod(w, want, p);
    MT_CHECK(mpz_cmp(got, w) == 0, "%s %zu bits: %s, value %u", spec, bits, what, i);
    mpz_clears(got, w, NULL);
}

static void check(const char *spec, size_t bits)
{
    mpz_t p, a, b, got, want;
    mpz_inits(p, a, b, got, want, NULL);
    mt_modulus(p, bits, MT_MOD_PRIME);
    mns_field *f;
    mns_status st = mns_field_new(&f, p, spec);
    if (st == MNS_ENOTSUP) {
        printf("  skip %s %zu bits: %s\n", spec, bits, mns_last_error());
        mpz_clears(p, a, b, got, want, NULL);
        return;
    }
    MT_CHECK(st == MNS_OK, "%s %zu: field_new %d (%s)", spec, bits, st, mns_last_error());
    if (st != MNS_OK) {
        mpz_clears(p, a, b, got, want, NULL);
        return;
    }
    const size_t L = mns_field_limbs(f), pn = mpz_size(p);
    uint64_t *X = calloc(4 * L, sizeof *X), *Y = X + L, *Z = Y + L, *S = Z + L;
    uint64_t *w = calloc(pn + 1, sizeof *w);
    if (!mns_field_has_set_words(f)) {
        words_of(w, pn, p);
        memset(X, 0xa5, L * sizeof *X);
        st = mns_field_set_words(f, X, w, pn);
        MT_CHECK(st == MNS_ENOTSUP && X[0] == 0xa5a5a5a5a5a5a5a5u, "%s: no set_words: %d", spec,
                 st);
        printf("  %s %zu bits: no set_words (MNS_ENOTSUP)\n", spec, bits);
        goto done;
    }
    MT_CHECK(mns_field_set_words(f, X, w, pn + 1) == MNS_EINVAL, "%s: pn + 1 words accepted", spec);
    MT_CHECK(mns_field_set_words(f, X, w, pn - 1) == MNS_EINVAL || pn == 1,
             "%s: pn - 1 words accepted", spec);
    const unsigned rounds = 6 + mt_scaled(24);
    const int delta = mns_field_delta(f);
    for (unsigned i = 0; i < rounds; i++) {
        value(a, p, i);
        value(b, p, i + 3 < rounds ? rounds - 1 - i : i);
        words_of(w, pn, a);
        MT_CHECK(mns_field_set_words(f, X, w, pn) == MNS_OK, "%s: set_words", spec);
        words_of(w, pn, b);
        mns_field_set_words(f, Y, w, pn);
        mns_field_get_mpz(f, got, X);
        MT_CHECK(mpz_cmp(got, a) == 0, "%s %zu bits: round trip of value %u", spec, bits, i);
        /* tight: a product of two entered elements, a square, a sum of two
         * into mul (through reduce when delta is 0), reduce */
        mns_field_mul(f, Z, X, Y);
        mpz_mul(want, a, b);
        expect(f, Z, want, p, spec, bits, "a b", i);
        mns_field_sqr(f, Z, X);
        mpz_mul(want, a, a);
        expect(f, Z, want, p, spec, bits, "a^2", i);
        mns_field_add(f, S, X, Y);
        if (delta < 1)
            mns_field_reduce(f, S, S);
        mns_field_mul(f, Z, S, X);
        mpz_add(want, a, b);
        mpz_mul(want, want, a);
        expect(f, Z, want, p, spec, bits, "(a + b) a", i);
        mns_field_reduce(f, Z, X);
        expect(f, Z, a, p, spec, bits, "reduce", i);
        /* the same value through set_mpz gives the same element value */
        mns_field_set_mpz(f, Z, a);
        mns_field_sub(f, S, X, Z);
        mns_field_reduce(f, S, S);
        mns_field_get_mpz(f, got, S);
        MT_CHECK(mpz_sgn(got) == 0, "%s %zu bits: set_words - set_mpz != 0, value %u", spec, bits,
                 i);
    }
    printf("  %s %zu bits: %u values (%s)\n", spec, bits, rounds, mns_field_describe(f));
done:
    free(X);
    free(w);
    mns_field_free(f);
    mpz_clears(p, a, b, got, want, NULL);
}

int main(void)
{
    mt_init("set_words");
    static const size_t small[] = {64, 127, 256, 521, 1024, 1536, 2048};
    static const char *const wide[] = {"mont",     "mont:kernel=generic",     "mont-ifma",
                                       "mont-ifma:kernel=generic", "rns", "rns-ifma",
                                       "rns-ifma:kernel=generic"};
    for (size_t s = 0; s < sizeof wide / sizeof wide[0]; s++)
        for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
            check(wide[s], small[i]);
    check("mont", 4096);
    check("rns-ifma", 4096);
    check("mont-ifma", 4096);
    check("mont-ifma:kernel=generic", 4096);
    /* PMNS parameters are generated per prime: fewer, smaller sizes */
    static const size_t pm[] = {64, 256, 521, 1024};
    for (size_t i = 0; i < sizeof pm / sizeof pm[0]; i++) {
        check("pmns", pm[i]);
        check("pmns-ifma", pm[i]);
        if (pm[i] < 1024)
            check("pmns:delta=0", pm[i]);
    }
    static const size_t mp[] = {512, 1024};
    for (size_t i = 0; i < sizeof mp / sizeof mp[0]; i++) {
        check("pmns-mp", mp[i]); /* the FMA kernel where the CPU has AVX2 and FMA */
        check("pmns-mp:kernel=generic", mp[i]);
        check("pmns-mp-ifma", mp[i]);
        check("pmns-mp:delta=1,kernel=generic", mp[i]);
    }
    check("pmns-mp-ifma", 2048); /* the RSA-4096 channel size */
    check("mpart", 1024); /* no set_words: refused */
    return mt_finish();
}
