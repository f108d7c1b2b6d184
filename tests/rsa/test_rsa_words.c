/* The constant-time exit of the fields (get_words of src/core/backend.h),
 * which RSA-CRT uses to leave a channel without a mask and without
 * allocation: for every registered backend that has it, at sizes 64-4096
 * bits, against GMP:
 *   - round trips set_words -> get_words and set_mpz -> get_words of 0, 1,
 *     2, p - 1, p - 2, all-ones words below p, 2^k - 1, random values;
 *   - tight elements that are not fresh entries: outputs of mul, sqr, of a
 *     chain of products, of reduce after add and sub;
 *   - aliasing (r on a's words).
 * Backends without get_words are listed (RSA leaves them through get_mpz
 * behind a mask). The constant-time property itself is checked by
 * tests/ct/ctime.c-style marking in rsa-ct-valgrind (the whole RSA exit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field_internal.h"
#include "mns_tune.h"
#include "testutil.h"

/* v as pn words */
static void to_words(uint64_t *w, size_t pn, const mpz_t v)
{
    memset(w, 0, pn * 8);
    mpz_export(w, NULL, -1, 8, 0, 0, v);
}

static void check_out(const mns_field *f, const uint64_t *x, const mpz_t want, size_t pn,
                      const char *what, const char *spec, size_t bits)
{
    uint64_t *w = calloc(pn, 8);
    MT_CHECK(mns_field_get_words(f, w, x, pn) == MNS_OK, "%s %zu: get_words refused", spec, bits);
    mpz_t got;
    mpz_init(got);
    mpz_import(got, pn, -1, 8, 0, 0, w);
    MT_CHECK(mpz_cmp(got, want) == 0, "%s %zu bits: get_words of %s", spec, bits, what);
    mpz_clear(got);
    free(w);
}

static void one_size(const char *spec, const mpz_t p)
{
    const size_t bits = mpz_sizeinbase(p, 2);
    mpz_t v, u, t;
    mpz_inits(v, u, t, NULL);
    mns_field *f;
    mns_status st = mns_field_new(&f, p, spec);
    if (st != MNS_OK) {
        MT_CHECK(st == MNS_ENOTSUP, "%s %zu: %s", spec, bits, mns_last_error());
        mpz_clears(v, u, t, NULL);
        return;
    }
    const size_t L = mns_field_limbs(f), pn = mpz_size(p);
    const size_t n = L > pn ? L : pn;
    uint64_t *X = calloc(n, 8), *Y = calloc(n, 8), *W = calloc(n, 8);
    for (unsigned it = 0; it < mt_scaled(30); it++) {
        switch (it) {
        case 0: mpz_set_ui(v, 0); break;
        case 1: mpz_set_ui(v, 1); break;
        case 2: mpz_set_ui(v, 2); break;
        case 3: mpz_sub_ui(v, p, 1); break;
        case 4: mpz_sub_ui(v, p, 2); break;
        case 5: /* all-ones words, below p */
            mpz_set_ui(v, 1);
            mpz_mul_2exp(v, v, 64 * (pn - 1));
            mpz_sub_ui(v, v, 1);
            break;
        case 6: /* 2^(bits-1) - 1 */
            mpz_set_ui(v, 1);
            mpz_mul_2exp(v, v, bits - 1);
            mpz_sub_ui(v, v, 1);
            break;
        default: mpz_urandomm(v, mt_rand, p);
        }
        mpz_urandomm(u, mt_rand, p);
        /* entries */
        to_words(W, pn, v);
        MT_CHECK(mns_field_set_words(f, X, W, pn) == MNS_OK, "set_words");
        check_out(f, X, v, pn, "set_words", spec, bits);
        MT_CHECK(mns_field_set_mpz(f, X, v) == MNS_OK, "set_mpz");
        check_out(f, X, v, pn, "set_mpz", spec, bits);
        /* products, a chain, reduce after add and sub */
        MT_CHECK(mns_field_set_mpz(f, Y, u) == MNS_OK, "set_mpz");
        mns_field_mul(f, W, X, Y);
        mpz_mul(t, v, u);
        mpz_mod(t, t, p);
        check_out(f, W, t, pn, "mul", spec, bits);
        mns_field_sqr(f, W, X);
        mpz_mul(t, v, v);
        mpz_mod(t, t, p);
        check_out(f, W, t, pn, "sqr", spec, bits);
        mpz_set(t, v);
        memcpy(W, X, L * 8);
        for (int k = 0; k < 20; k++) {
            mns_field_mul(f, W, W, Y);
            mpz_mul(t, t, u);
            mpz_mod(t, t, p);
        }
        check_out(f, W, t, pn, "a chain", spec, bits);
        mns_field_add(f, W, X, Y);
        mns_field_reduce(f, W, W);
        mpz_add(t, v, u);
        mpz_mod(t, t, p);
        check_out(f, W, t, pn, "reduce(add)", spec, bits);
        mns_field_sub(f, W, X, Y);
        mns_field_reduce(f, W, W);
        mpz_sub(t, v, u);
        mpz_mod(t, t, p);
        check_out(f, W, t, pn, "reduce(sub)", spec, bits);
        /* aliasing: r on a's words */
        mns_field_mul(f, W, X, Y);
        mpz_mul(t, v, u);
        mpz_mod(t, t, p);
        MT_CHECK(mns_field_get_words(f, W, W, pn) == MNS_OK, "get_words");
        mpz_import(v, pn, -1, 8, 0, 0, W);
        MT_CHECK(mpz_cmp(v, t) == 0, "%s %zu bits: get_words aliased", spec, bits);
    }
    /* a wrong length is refused */
    MT_CHECK(mns_field_get_words(f, W, X, pn + 1) == MNS_EINVAL, "%s: length not refused", spec);
    free(X);
    free(Y);
    free(W);
    mns_field_free(f);
    mpz_clears(v, u, t, NULL);
}

/* Single-precision PMNS generates its parameters by LLL on an n x n
 * lattice with n growing with the size (minutes from 3072 bits): checked
 * up to 2048 bits (RSA uses it for 512-bit channels); the Horner exit is
 * shared with pmns-mp, which runs every size. */
static size_t max_bits(const char *name)
{
    return strcmp(name, "pmns") == 0 || strcmp(name, "pmns-ifma") == 0 ? 2048 : (size_t)-1;
}

int main(void)
{
    mt_init("test_rsa_words");
    static const size_t sizes[] = {64, 127, 256, 521, 1024, 1536, 2048, 3072, 4096};
    /* every registered backend, then the kernel variants */
    static const char *const extra[] = {"mont:kernel=generic", "mont:kernel=adx",
                                        "rns-ifma:kernel=generic", "mont-ifma:kernel=generic"};
    const char *with[32];
    size_t nwith = 0, nb = 0;
    while (mns_backend_name(nb))
        nb++;
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, 256, MT_MOD_PRIME);
    for (size_t b = 0; b < nb + sizeof extra / sizeof extra[0]; b++) {
        const char *name = b < nb ? mns_backend_name(b) : extra[b - nb];
        /* probe at 256 bits: does the backend have get_words? */
        mns_field *f = NULL;
        int has = mns_field_new(&f, p, name) == MNS_OK && mns_field_has_get_words(f);
        int served = f != NULL;
        mns_field_free(f);
        printf("  %-24s %s\n", name,
               has ? "get_words: checked" : served ? "no get_words" : "not served here");
        if (has && nwith < sizeof with / sizeof with[0])
            with[nwith++] = name;
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        mt_modulus(p, sizes[i], MT_MOD_PRIME); /* one prime per size, for every backend */
        for (size_t b = 0; b < nwith; b++)
            if (sizes[i] <= max_bits(with[b]))
                one_size(with[b], p);
    }
    /* primes just below 2^(64 w): 2p exceeds the word count of p (the
     * PMNS exit's Montgomery steps must keep that carry) */
    static const size_t top[] = {1024, 2048};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        mpz_set_ui(p, 0);
        mpz_setbit(p, top[i]);
        mpz_sub_ui(p, p, 1);
        while (!mpz_probab_prime_p(p, 25))
            mpz_sub_ui(p, p, 2);
        for (size_t b = 0; b < nwith; b++)
            if (top[i] <= max_bits(with[b]))
                one_size(with[b], p);
    }
    mpz_clear(p);
    return mt_finish();
}
