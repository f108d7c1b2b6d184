/* safegcd inversion (src/field/safegcd.c) against GMP's mpz_invert, below the
 * field API: every limb count (its fixed-L copies and the one for any L),
 * both kinds of divsteps (half-delta up to MNS_SAFEGCD_HD_MAX_BITS, the
 * original ones above), sizes at the limb and word boundaries, structured
 * moduli (primes, composites, 2^k +- 1, sparse, dense) and values (0, 1, 2,
 * m - 1, m - 2, (m - 1) / 2, powers of two, all-ones, values sharing a factor
 * with the modulus: no inverse, r = 0). Both the constant-time and the
 * variable-time versions, with r aliasing x. And inputs searched for many
 * divsteps: a hill climb on the divstep count of a reference loop, whose
 * best count must stay within the bound the constant-time version runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "field/safegcd.h"
#include "testutil.h"

#define NMAX ((MNS_SAFEGCD_MAX_BITS + 63) / 64)

static void to_words(uint64_t *w, size_t n, const mpz_t a)
{
    memset(w, 0, n * sizeof *w);
    mpz_export(w, NULL, -1, sizeof *w, 0, 0, a);
}

/* one inversion of x mod m, both versions, against mpz_invert */
static void check_one(const mpz_t m, const mpz_t x, const char *what)
{
    static uint64_t mw[NMAX], xw[NMAX], rw[NMAX];
    const size_t bits = mpz_sizeinbase(m, 2), n = mpz_size(m);
    mpz_t want, r;
    mpz_inits(want, r, NULL);
    const int has = mpz_invert(want, x, m) != 0 && mpz_cmp_ui(m, 1) != 0;
    to_words(mw, n, m);
    for (int var = 0; var < 2; var++) {
        to_words(xw, n, x);
        const uint64_t ok = mns_safegcd_inv(xw, xw, mw, n, bits, var); /* r aliases x */
        mpz_import(r, n, -1, sizeof *xw, 0, 0, xw);
        if (has)
            MT_CHECK(ok == ~(uint64_t)0 && mpz_cmp(r, want) == 0,
                     "%zu bits, %s, var %d: wrong inverse", bits, what, var);
        else
            MT_CHECK(ok == 0 && mpz_sgn(r) == 0, "%zu bits, %s, var %d: non-unit not refused",
                     bits, what, var);
    }
    /* r apart from x: x left alone */
    to_words(xw, n, x);
    mns_safegcd_inv(rw, xw, mw, n, bits, 0);
    mpz_import(r, n, -1, sizeof *xw, 0, 0, xw);
    MT_CHECK(mpz_cmp(r, x) == 0, "%zu bits, %s: input changed", bits, what);
    mpz_clears(want, r, NULL);
}

/* structured and random values below m */
static void check_values(const mpz_t m, unsigned rounds)
{
    mpz_t x;
    mpz_init(x);
    const size_t bits = mpz_sizeinbase(m, 2);
    static const char *const names[] = {"0", "1", "2", "m-1", "m-2", "(m-1)/2", "2^(b-2)",
                                        "2^(b-1)-1", "random"};
    for (unsigned i = 0; i < 8 + rounds; i++) {
        const unsigned kind = i < 8 ? i : 8;
        switch (kind) {
        case 0: mpz_set_ui(x, 0); break;
        case 1: mpz_set_ui(x, 1); break;
        case 2: mpz_set_ui(x, 2); break;
        case 3: mpz_sub_ui(x, m, 1); break;
        case 4: mpz_sub_ui(x, m, 2); break;
        case 5: mpz_sub_ui(x, m, 1); mpz_fdiv_q_2exp(x, x, 1); break;
        case 6: mpz_set_ui(x, 0); mpz_setbit(x, bits >= 2 ? bits - 2 : 0); break;
        case 7: mpz_set_ui(x, 0); mpz_setbit(x, bits - 1); mpz_sub_ui(x, x, 1); break;
        default: mpz_urandomm(x, mt_rand, m); break;
        }
        mpz_mod(x, x, m);
        check_one(m, x, names[kind]);
    }
    /* a value sharing a factor with a composite m: its smallest odd factor
     * found by trial division, times a random cofactor */
    for (unsigned long q = 3; q < 2000; q += 2)
        if (mpz_divisible_ui_p(m, q) && mpz_cmp_ui(m, q) != 0) {
            mpz_urandomm(x, mt_rand, m);
            mpz_mul_ui(x, x, q);
            mpz_mod(x, x, m);
            check_one(m, x, "a multiple of a factor");
            break;
        }
    mpz_clear(x);
}

static void check_sizes(void)
{
    /* the limb boundaries (L grows at 62 k - 2 bits), 62 k +- 1, word
     * boundaries, the common sizes, and both sides of the half-delta range */
    static const size_t sizes[] = {
        2,    3,    8,    22,   23,   59,   60,   61,   62,   63,   64,   65,   121,  122,
        123,  127,  128,  129,  183,  184,  185,  192,  224,  245,  246,  247,  255,  256,
        257,  307,  308,  309,  311,  369,  370,  371,  383,  384,  385,  431,  432,  433,
        448,  493,  494,  495,  521,  555,  556,  557,  576,  617,  618,  619,  1024, 1279,
        2048, 3072, 3804, 3805, 3806, 4096, 6000, 8192, MNS_SAFEGCD_MAX_BITS};
    mpz_t m;
    mpz_init(m);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t bits = sizes[s];
        const unsigned rounds = bits > 4096 ? 1 : bits > 1024 ? mt_scaled(2) : mt_scaled(6);
        for (int kind = 0; kind < MT_MOD_KINDS; kind++) {
            if (bits > 4096 && kind != MT_MOD_RANDOM && kind != MT_MOD_2K_MINUS_1)
                continue;
            if (bits < 4 && kind != MT_MOD_2K_MINUS_1)
                continue;
            mt_modulus(m, bits, (mt_mod_kind)kind);
            if (mpz_even_p(m) || mpz_sizeinbase(m, 2) != bits || mpz_cmp_ui(m, 3) < 0)
                continue;
            check_values(m, rounds);
        }
        printf("  %zu bits: L %zu, %zu divsteps\n", bits, mns_safegcd_limbs(bits),
               mns_safegcd_divsteps(bits));
    }
    mpz_clear(m);
}

/* divsteps until g = 0 on (m, x), the half-delta ones in 2 delta (starting
 * at 1) or the original ones (delta starting at 1) */
static unsigned long count_divsteps(const mpz_t m, const mpz_t x, int half)
{
    mpz_t f, g;
    mpz_init_set(f, m);
    mpz_init_set(g, x);
    long delta = 1;
    const long step = half ? 2 : 1;
    unsigned long count = 0;
    while (mpz_sgn(g) != 0) {
        if (delta > 0 && mpz_odd_p(g)) {
            delta = step - delta;
            mpz_sub(f, g, f);
            mpz_swap(f, g); /* (f, g) <- (g, g - f) */
        } else {
            delta = step + delta;
            if (mpz_odd_p(g))
                mpz_add(g, g, f);
        }
        mpz_fdiv_q_2exp(g, g, 1);
        count++;
    }
    mpz_clears(f, g, NULL);
    return count;
}

/* a hill climb on the divstep count from random starts (flip a bit, keep
 * the value if the count does not drop); the best must stay within the
 * bound, and its inverse must be right */
static void check_many_divsteps(size_t bits, int prime, unsigned iters)
{
    mpz_t m, x, y, best;
    mpz_inits(m, x, y, best, NULL);
    mt_modulus(m, bits, prime ? MT_MOD_PRIME : MT_MOD_RANDOM);
    const int half = bits <= MNS_SAFEGCD_HD_MAX_BITS;
    unsigned long top = 0;
    for (int start = 0; start < 3; start++) {
        mpz_urandomm(x, mt_rand, m);
        unsigned long c = count_divsteps(m, x, half);
        for (unsigned i = 0; i < iters; i++) {
            mpz_set(y, x);
            mpz_combit(y, mt_below(bits));
            if (mpz_cmp(y, m) >= 0)
                continue;
            const unsigned long cy = count_divsteps(m, y, half);
            if (cy >= c) {
                c = cy;
                mpz_swap(x, y);
            }
        }
        if (c > top) {
            top = c;
            mpz_set(best, x);
        }
        check_one(m, x, "many divsteps");
    }
    const size_t bound = mns_safegcd_divsteps(bits);
    MT_CHECK(top <= bound, "%zu bits: an input needs %lu divsteps, the bound is %zu", bits, top,
             bound);
    printf("  %zu bits (%s modulus): most divsteps found %lu, bound %zu\n", bits,
           prime ? "prime" : "odd", top, bound);
    mpz_clears(m, x, y, best, NULL);
}

int main(void)
{
    mt_init("test_safegcd");
    check_sizes();
    static const size_t climb[] = {64, 128, 224, 256, 384, 521};
    for (size_t i = 0; i < sizeof climb / sizeof climb[0]; i++) {
        check_many_divsteps(climb[i], 1, mt_scaled(400));
        check_many_divsteps(climb[i], 0, mt_scaled(200));
    }
    check_many_divsteps(3900, 0, mt_scaled(20));
    return mt_finish();
}
