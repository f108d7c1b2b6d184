/* The `pmers` backend (p = 2^k - c) against GMP: the shared conformance
 * check on the primes it is for (2^127 - 1, 2^255 - 19, 2^256 - 189,
 * 2^521 - 1, ...), random pseudo-Mersenne moduli of every word count it
 * serves and composites of the form; raw elements anywhere in
 * [0, 2^(64 n)) (the representation allows them all: all-ones words, p,
 * p + 1, 2^k, values just below 2^(64 n)) through every operation with
 * aliasing; each kernel by name; what it refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "mns.h"
#include "testutil.h"

#define MAXW 9

static void pm(mpz_t p, unsigned k, unsigned long c)
{
    mpz_ui_pow_ui(p, 2, k);
    mpz_sub_ui(p, p, c);
}

/* x <- a structured raw element of n words (any value below 2^(64 n)) */
static void raw(uint64_t *x, size_t n, const mpz_t p, unsigned kind)
{
    mpz_t v;
    mpz_init(v);
    switch (kind % 12) {
    case 0: memset(x, 0xff, n * 8); break;                      /* 2^(64n) - 1 */
    case 1: memset(x, 0xff, n * 8); x[0] -= mt_below(64); break; /* just below */
    case 2: mpz_export(x, NULL, -1, 8, 0, 0, p); break;          /* p itself */
    case 3: mpz_add_ui(v, p, 1 + mt_below(50)); break;           /* p + small */
    case 4: mpz_mul_2exp(v, p, 0); mpz_add(v, v, p); mpz_sub_ui(v, v, 1); break; /* 2p - 1 */
    case 5: mpz_set_ui(v, 0); break;
    case 6: mpz_set_ui(v, 1); break;
    case 7: mpz_sub_ui(v, p, 1 + mt_below(2)); break;             /* p - 1, p - 2 */
    case 8: mpz_setbit(v, mpz_sizeinbase(p, 2)); break;           /* 2^k */
    default:
        for (size_t i = 0; i < n; i++)
            x[i] = mt_below(3) ? mt_u64() : (mt_below(2) ? ~(uint64_t)0 : 0);
        break;
    }
    if (kind % 12 >= 3 && kind % 12 <= 8) {
        mpz_fdiv_r_2exp(v, v, 64 * n);
        memset(x, 0, n * 8);
        mpz_export(x, NULL, -1, 8, 0, 0, v);
    }
    mpz_clear(v);
}

static void val(mpz_t r, const uint64_t *x, size_t n) { mpz_import(r, n, -1, 8, 0, 0, x); }

/* r's value mod p (read through get_mpz, the canonical exit) is want mod p */
static int same(const mns_field *f, const mpz_t p, const uint64_t *r, mpz_t want)
{
    mpz_t g;
    mpz_init(g);
    mns_field_get_mpz(f, g, r);
    mpz_mod(want, want, p);
    const int ok = mpz_cmp(g, want) == 0;
    mpz_clear(g);
    return ok;
}

/* allow_notsup: kernel=mulx, which serves four words only */
static void check_raw(const char *spec, const mpz_t p, int allow_notsup)
{
    mns_field *f;
    mns_status st = mns_field_new(&f, p, spec);
    if (st == MNS_ENOTSUP && allow_notsup) {
        printf("  skip %s on %zu bits: %s\n", spec, mpz_sizeinbase(p, 2), mns_last_error());
        return;
    }
    MT_CHECK(st == MNS_OK, "%s: %s", spec, mns_last_error());
    if (st != MNS_OK)
        return;
    const size_t n = mns_field_limbs(f);
    uint64_t a[MAXW], b[MAXW], r[MAXW], w[MAXW];
    mpz_t va, vb, want, wv;
    mpz_inits(va, vb, want, wv, NULL);
    const unsigned rounds = mt_scaled(300);
    for (unsigned it = 0; it < rounds; it++) {
        raw(a, n, p, it);
        raw(b, n, p, it / 12 + mt_below(12));
        val(va, a, n);
        val(vb, b, n);
        mns_field_mul(f, r, a, b);
        mpz_mul(want, va, vb);
        MT_CHECK(same(f, p, r, want), "%s mul, raw kinds %u", spec, it % 12);
        memcpy(r, a, n * 8);
        mns_field_mul(f, r, r, b);
        mpz_mul(want, va, vb);
        MT_CHECK(same(f, p, r, want), "%s mul r == a", spec);
        memcpy(r, b, n * 8);
        mns_field_mul(f, r, a, r);
        mpz_mul(want, va, vb);
        MT_CHECK(same(f, p, r, want), "%s mul r == b", spec);
        mns_field_sqr(f, r, a);
        mpz_mul(want, va, va);
        MT_CHECK(same(f, p, r, want), "%s sqr, raw kind %u", spec, it % 12);
        memcpy(r, a, n * 8);
        mns_field_sqr(f, r, r);
        mpz_mul(want, va, va);
        MT_CHECK(same(f, p, r, want), "%s sqr r == a", spec);
        memcpy(r, a, n * 8);
        mns_field_mul(f, r, r, r);
        mpz_mul(want, va, va);
        MT_CHECK(same(f, p, r, want), "%s mul r == a == b", spec);
        mns_field_add(f, r, a, b);
        mpz_add(want, va, vb);
        MT_CHECK(same(f, p, r, want), "%s add, raw kinds %u", spec, it % 12);
        memcpy(r, b, n * 8);
        mns_field_add(f, r, r, r);
        mpz_add(want, vb, vb);
        MT_CHECK(same(f, p, r, want), "%s add r == a == b", spec);
        mns_field_sub(f, r, a, b);
        mpz_sub(want, va, vb);
        MT_CHECK(same(f, p, r, want), "%s sub, raw kinds %u", spec, it % 12);
        memcpy(r, a, n * 8);
        mns_field_sub(f, r, r, r);
        mpz_set_ui(want, 0);
        MT_CHECK(same(f, p, r, want), "%s sub r == a == b", spec);
        mns_field_reduce(f, r, a);
        mpz_set(want, va);
        MT_CHECK(same(f, p, r, want), "%s reduce", spec);
        /* the canonical words and the comparisons on raw values */
        MT_CHECK(mns_field_get_words(f, w, a, n) == MNS_OK, "%s get_words", spec);
        val(wv, w, n);
        mpz_mod(want, va, p);
        MT_CHECK(mpz_cmp(wv, want) == 0, "%s get_words canonical, raw kind %u", spec, it % 12);
        MT_CHECK(mns_field_is_zero(f, a) == (mpz_sgn(want) == 0 ? ~(uint64_t)0 : 0),
                 "%s is_zero, raw kind %u", spec, it % 12);
        mpz_mod(wv, vb, p);
        MT_CHECK(mns_field_equal(f, a, b) == (mpz_cmp(want, wv) == 0 ? ~(uint64_t)0 : 0),
                 "%s equal", spec);
    }
    /* a long chain of dependent operations on the raw extremes */
    raw(a, n, p, 0);
    val(va, a, n);
    for (unsigned i = 0; i < 200; i++) {
        raw(b, n, p, i);
        val(vb, b, n);
        switch (i % 4) {
        case 0: mns_field_mul(f, a, a, b); mpz_mul(va, va, vb); break;
        case 1: mns_field_sqr(f, a, a); mpz_mul(va, va, va); break;
        case 2: mns_field_add(f, a, a, b); mpz_add(va, va, vb); break;
        default: mns_field_sub(f, a, a, b); mpz_sub(va, va, vb); break;
        }
        mpz_mod(va, va, p);
    }
    mpz_set(want, va);
    MT_CHECK(same(f, p, a, want), "%s chain of 200 operations", spec);
    printf("  %s on %s: %u raw rounds\n", spec, mns_field_describe(f), rounds);
    mpz_clears(va, vb, want, wv, NULL);
    mns_field_free(f);
}

static void check_refusals(void)
{
    mpz_t p;
    mpz_init(p);
    mns_field *f = NULL;
    mt_modulus(p, 256, MT_MOD_PRIME);
    MT_CHECK(mns_field_new(&f, p, "pmers") == MNS_ENOTSUP, "random prime refused");
    pm(p, 61, 1); /* one word */
    MT_CHECK(mns_field_new(&f, p, "pmers") == MNS_ENOTSUP, "2^61-1 (one word) refused");
    pm(p, 607, 1); /* ten words */
    MT_CHECK(mns_field_new(&f, p, "pmers") == MNS_ENOTSUP, "2^607-1 (ten words) refused");
    pm(p, 130, 5); /* m = 5 2^62 >= 2^63 */
    MT_CHECK(mns_field_new(&f, p, "pmers") == MNS_ENOTSUP, "2^130-5 refused (m too large)");
    pm(p, 256, 0);
    mpz_add_ui(p, p, 1); /* 2^256 + 1 */
    MT_CHECK(mns_field_new(&f, p, "pmers") == MNS_ENOTSUP, "2^256+1 refused");
    pm(p, 255, 19);
    MT_CHECK(mns_field_new(&f, p, "pmers:bogus=1") == MNS_EINVAL, "unknown option");
    MT_CHECK(mns_field_new(&f, p, "pmers:kernel=nosuch") == MNS_EINVAL, "unknown kernel");
    pm(p, 127, 1);
    MT_CHECK(mns_field_new(&f, p, "pmers:kernel=mulx") == MNS_ENOTSUP, "mulx at two words");
    pm(p, 255, 19);
    const unsigned adx = MNS_CPU_BMI2 | MNS_CPU_ADX;
    const mns_status st = mns_field_new(&f, p, "pmers:kernel=mulx");
    MT_CHECK((mns_cpu_features_raw() & adx) == adx ? st == MNS_OK : st == MNS_ENOTSUP,
             "kernel=mulx where the CPU has BMI2 and ADX: %s", mns_last_error());
    mns_field_free(f);
    f = NULL;
    /* the default kernel: mulx for four words on such a CPU, unless
     * MNS_CPU=generic */
    MT_CHECK(mns_field_new(&f, p, "pmers") == MNS_OK, "pmers on 2^255-19");
    const int want_mulx = (mns_cpu_features() & adx) == adx;
    MT_CHECK((strstr(mns_field_describe(f), "kernel=mulx") != NULL) == want_mulx,
             "default kernel: %s", mns_field_describe(f));
    MT_CHECK(mns_field_delta(f) > 1000, "delta unbounded");
    mns_field_free(f);
    mpz_clear(p);
}

int main(void)
{
    mt_init("test_pmers");
    check_refusals();
    static const struct { unsigned k; unsigned long c; } named[] = {
        {127, 1}, {255, 19}, {256, 189}, {521, 1}, {192, 237}, {130, 1}, {383, 187},
        {384, 317}, {448, 1}, {512, 569}, {576, 1}, {256, 1}, {131, 1}, {200, 75}};
    static const char *const specs[] = {"pmers", "pmers:kernel=generic", "pmers:kernel=mulx"};
    mt_field_opts quick = {.iters = 20, .chain = 300, .powms = 6};
    mpz_t p;
    mpz_init(p);
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        quick.allow_notsup = s == 2;
        for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
            pm(p, named[i].k, named[i].c); /* primes and composites (2^256-1, 2^576-1) */
            mt_field_check(specs[s], p, &quick);
            check_raw(specs[s], p, s == 2);
        }
        /* random pseudo-Mersenne moduli of 2..9 words */
        for (unsigned w = 2; w <= MAXW; w++) {
            mt_modulus(p, 64 * w - mt_below(40), MT_MOD_PSEUDO_MERSENNE);
            mt_field_check(specs[s], p, &quick);
            check_raw(specs[s], p, s == 2);
        }
    }
    mpz_clear(p);
    return mt_finish();
}
