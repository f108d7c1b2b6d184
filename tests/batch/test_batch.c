/* The batch calls (mns_field_mul_n, _sqr_n, _powm_n) and their lane-sliced
 * kernels (src/mont52_mb/mb52.h):
 *   1. the lane kernels on lane blocks: every lane's product and square
 *      equal to a b R^-1 mod p, tight (< 2p, 52-bit digits), the same words
 *      as mont-ifma's single product on the same digits, lanes holding 0,
 *      1, p - 1, 2p - 1, equal lanes; the IFMA kernel word for word against
 *      the portable twin where it runs (an IFMA CPU, or the emulated build);
 *      sizes from 2 bits to the 4158-bit limit, around the dedicated digit
 *      counts (5, 8, 20, 30, 40, 60, 79);
 *   2. the front door on several backends, each with its default lanes
 *      (IFMA where the CPU has it, else the loop), the portable lanes forced
 *      and no lanes: counts 0..17, mul_n / sqr_n the single calls' words,
 *      powm_n their values and GMP's, with 0, 1, p - 1 and equal bases, a
 *      different exponent in every lane (0, 1, p - 1, short, long), aliasing
 *      r = a, the caller-scratch form, a negative exponent refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "field/field_internal.h"
#include "mont52_mb/mb52.h"
#include "testutil.h"

#define L MNS_MB52_LANES

/* a tight lane value of shape k: [0, 2p) */
static void lane_value(mpz_t a, const mpz_t p, unsigned k)
{
    switch (k % 7) {
    case 0: mpz_set_ui(a, 0); break;
    case 1: mpz_set_ui(a, 1); break;
    case 2: mpz_sub_ui(a, p, 1); break;
    case 3: mpz_mul_2exp(a, p, 1); mpz_sub_ui(a, a, 1); break;
    case 4: mpz_set(a, p); break;
    default: mpz_mul_2exp(a, p, 1); mpz_urandomm(a, mt_rand, a); break;
    }
}

/* lane l of r is tight and = a_l b_l R^-1 mod p */
static void check_lanes(const mns_mb52_ctx *c, const mpz_t p, const uint64_t *r, const uint64_t *a,
                        const uint64_t *b, const char *what)
{
    mpz_t x, y, z, Rinv, two_p;
    mpz_inits(x, y, z, Rinv, two_p, NULL);
    mpz_setbit(Rinv, 52 * c->m);
    mpz_invert(Rinv, Rinv, p);
    mpz_mul_2exp(two_p, p, 1);
    uint64_t d[MNS_MB52_MAX_DIGITS];
    for (unsigned l = 0; l < L; l++) {
        int digits_ok = 1;
        mns_mb52_lane_get(c, d, r, l);
        for (size_t j = 0; j < c->m; j++)
            digits_ok &= d[j] <= MNS_MB52_MASK;
        mt_mpz_from_digits52(z, d, c->m);
        mns_mb52_lane_get(c, d, a, l);
        mt_mpz_from_digits52(x, d, c->m);
        mns_mb52_lane_get(c, d, b, l);
        mt_mpz_from_digits52(y, d, c->m);
        mpz_mul(x, x, y);
        mpz_mul(x, x, Rinv);
        mpz_sub(y, z, x);
        MT_CHECK(digits_ok && mpz_cmp(z, two_p) < 0 && mpz_divisible_p(y, p),
                 "%s: %zu bits, lane %u (%s kernel)", what, c->bits, l, c->kernel_name);
    }
    mpz_clears(x, y, z, Rinv, two_p, NULL);
}

/* mont-ifma's single product (portable kernel) on lane l's digits */
static void check_single(mns_field *single, const mns_mb52_ctx *c, const uint64_t *r,
                         const uint64_t *a, const uint64_t *b)
{
    const size_t limbs = mns_field_limbs(single);
    uint64_t x[MNS_MB52_MAX_DIGITS + 8] = {0}, y[MNS_MB52_MAX_DIGITS + 8] = {0},
             z[MNS_MB52_MAX_DIGITS + 8] = {0}, w[MNS_MB52_MAX_DIGITS];
    int same = 1;
    for (unsigned l = 0; l < L; l++) {
        mns_mb52_lane_get(c, x, a, l);
        mns_mb52_lane_get(c, y, b, l);
        mns_field_mul(single, z, x, y);
        mns_mb52_lane_get(c, w, r, l);
        same &= memcmp(z, w, c->m * sizeof(uint64_t)) == 0;
    }
    (void)limbs;
    MT_CHECK(same, "lanes against mont-ifma's single product: %zu bits", c->bits);
}

static void kernel_round(const mns_mb52_ctx *g, const mns_mb52_ctx *v, mns_field *single,
                         const mpz_t p, unsigned round)
{
    const size_t B = mns_mb52_block_words(g);
    uint64_t *a = calloc(B, 8), *b = calloc(B, 8), *r = calloc(B, 8), *s = calloc(B, 8);
    uint64_t d[MNS_MB52_MAX_DIGITS];
    mpz_t x;
    mpz_init(x);
    for (unsigned l = 0; l < L; l++) {
        lane_value(x, p, round + l);
        mt_digits52_from_mpz(d, g->m, x);
        mns_mb52_lane_put(g, a, l, d);
        /* round 3: every lane of b equal */
        lane_value(x, p, round == 3 ? 5 : round * 3 + l + 2);
        mt_digits52_from_mpz(d, g->m, x);
        mns_mb52_lane_put(g, b, l, d);
    }
    g->mul(g, r, a, b);
    check_lanes(g, p, r, a, b, "mul");
    if (single)
        check_single(single, g, r, a, b);
    g->sqr(g, s, a);
    check_lanes(g, p, s, a, a, "sqr");
    g->mul(g, r, a, a);
    MT_CHECK(memcmp(r, s, B * 8) == 0, "sqr = mul(a, a): %zu bits", g->bits);
    if (v) {
        v->mul(v, r, a, b);
        g->mul(g, s, a, b);
        MT_CHECK(memcmp(r, s, B * 8) == 0, "ifma mul = generic, %zu bits", g->bits);
        v->sqr(v, r, b);
        g->sqr(g, s, b);
        MT_CHECK(memcmp(r, s, B * 8) == 0, "ifma sqr = generic, %zu bits", g->bits);
        memcpy(r, a, B * 8);
        v->mul(v, r, r, b); /* aliasing */
        g->mul(g, s, a, b);
        MT_CHECK(memcmp(r, s, B * 8) == 0, "ifma mul aliased, %zu bits", g->bits);
    }
    mpz_clear(x);
    free(a), free(b), free(r), free(s);
}

static void test_kernels(void)
{
    static const size_t sizes[] = {2,    3,    50,   64,   205,  256,  257,  363,  384,  415,
                                   521,  1022, 1023, 1024, 1025, 1536, 1537, 2047, 2048, 2049,
                                   3072, 4096, 4097, 4158};
    mpz_t p;
    mpz_init(p);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        mt_modulus(p, sizes[s], sizes[s] > 2 ? MT_MOD_RANDOM : MT_MOD_PRIME);
        if (sizes[s] == 2)
            mpz_set_ui(p, 3);
        mns_mb52_ctx *g = NULL, *v = NULL;
        MT_CHECK(mns_mb52_new(&g, p, MNS_MB52_GENERIC) == MNS_OK, "lanes for %zu bits",
                 sizes[s]);
        if (!g)
            continue;
        if (mns_cpu_has_ifma())
            MT_CHECK(mns_mb52_new(&v, p, MNS_MB52_IFMA) == MNS_OK, "ifma lanes, %zu bits",
                     sizes[s]);
        mns_field *single = NULL;
        if (mns_field_new(&single, p, "mont-ifma:kernel=generic") != MNS_OK)
            single = NULL;
        const unsigned rounds = mt_scaled(sizes[s] > 2048 ? 3 : 6);
        for (unsigned k = 0; k < rounds + 1; k++)
            kernel_round(g, v, single, p, k);
        mns_field_free(single);
        mns_mb52_free(g);
        mns_mb52_free(v);
    }
    mpz_setbit(p, MNS_MB52_MAX_BITS);
    mns_mb52_ctx *g = NULL;
    MT_CHECK(mns_mb52_new(&g, p, MNS_MB52_GENERIC) == MNS_ENOTSUP, "4159 bits refused");
    mpz_clear(p);
}

/* --- the front door --- */

typedef struct {
    mns_field *f;
    const mpz_t *p;
    size_t limbs;
    const char *label;
} batch_case;

static void base_of(mpz_t a, const mpz_t p, size_t i, const mpz_t first)
{
    switch (i % 6) {
    case 0: mpz_urandomm(a, mt_rand, p); break;
    case 1: mpz_set_ui(a, 0); break;
    case 2: mpz_set_ui(a, 1); break;
    case 3: mpz_sub_ui(a, p, 1); break;
    case 4: mpz_set(a, first); break; /* equal lanes */
    default: mt_operand(a, p, mt_op_pick()); break;
    }
}

static void exponent_of(mpz_t e, const mpz_t p, size_t i)
{
    switch (i % 7) {
    case 0: mpz_set_ui(e, 0); break;
    case 1: mpz_set_ui(e, 1); break;
    case 2: mpz_sub_ui(e, p, 1); break;
    case 3: mpz_urandomb(e, mt_rand, 17); break;
    case 4: mpz_urandomb(e, mt_rand, mpz_sizeinbase(p, 2) + 64); break;
    case 5: mpz_set_ui(e, 0); mpz_setbit(e, mt_below(200)); break;
    default: mpz_urandomm(e, mt_rand, p); break;
    }
}

/* elements of count values; v holds them as integers */
static uint64_t *elements(const batch_case *t, mpz_t *v, size_t count)
{
    uint64_t *x = calloc(count ? count * t->limbs : 1, 8);
    for (size_t i = 0; i < count; i++) {
        base_of(v[i], *t->p, i, v[0]);
        mns_field_set_mpz(t->f, x + i * t->limbs, v[i]);
    }
    return x;
}

static void check_products(const batch_case *t, size_t count)
{
    const size_t n = t->limbs;
    mpz_t *va = calloc(count + 1, sizeof(mpz_t)), *vb = calloc(count + 1, sizeof(mpz_t)), z, w;
    for (size_t i = 0; i < count + 1; i++)
        mpz_init(va[i]), mpz_init(vb[i]);
    mpz_inits(z, w, NULL);
    uint64_t *a = elements(t, va, count), *b = elements(t, vb, count);
    uint64_t *r = calloc(count * n + 1, 8), *s = calloc(count * n + 1, 8), *one = calloc(n, 8);
    int same = 1, gmp = 1;
    mns_field_mul_n(t->f, r, a, b, count);
    for (size_t i = 0; i < count; i++) {
        mns_field_mul(t->f, one, a + i * n, b + i * n);
        same &= memcmp(one, r + i * n, n * 8) == 0;
        mns_field_get_mpz(t->f, z, r + i * n);
        mpz_mul(w, va[i], vb[i]);
        mpz_mod(w, w, *t->p);
        gmp &= mpz_cmp(z, w) == 0;
    }
    MT_CHECK(same && gmp, "%s: mul_n, count %zu (single words %d, GMP %d)", t->label, count, same,
             gmp);
    same = gmp = 1;
    memcpy(s, a, count * n * 8);
    mns_field_sqr_n(t->f, s, s, count); /* aliased */
    for (size_t i = 0; i < count; i++) {
        mns_field_sqr(t->f, one, a + i * n);
        same &= memcmp(one, s + i * n, n * 8) == 0;
        mns_field_get_mpz(t->f, z, s + i * n);
        mpz_powm_ui(w, va[i], 2, *t->p);
        gmp &= mpz_cmp(z, w) == 0;
    }
    MT_CHECK(same && gmp, "%s: sqr_n aliased, count %zu", t->label, count);
    memcpy(s, a, count * n * 8);
    mns_field_mul_n(t->f, s, s, b, count);
    MT_CHECK(memcmp(s, r, count * n * 8) == 0, "%s: mul_n aliased, count %zu", t->label, count);
    for (size_t i = 0; i < count + 1; i++)
        mpz_clear(va[i]), mpz_clear(vb[i]);
    mpz_clears(z, w, NULL);
    free(va), free(vb), free(a), free(b), free(r), free(s), free(one);
}

/* powm_n against GMP and the single call's value; scratch: the caller's */
static void check_powers(const batch_case *t, size_t count, int scratch)
{
    const size_t n = t->limbs;
    mpz_t *va = calloc(count + 1, sizeof(mpz_t)), *e = calloc(count + 1, sizeof(mpz_t)), z, w;
    for (size_t i = 0; i < count + 1; i++)
        mpz_init(va[i]), mpz_init(e[i]);
    mpz_inits(z, w, NULL);
    uint64_t *a = elements(t, va, count), *r = calloc(count * n + 1, 8), *one = calloc(n, 8);
    size_t bits = 0;
    for (size_t i = 0; i < count; i++) {
        exponent_of(e[i], *t->p, i + mt_below(3));
        bits = mpz_sizeinbase(e[i], 2) > bits ? mpz_sizeinbase(e[i], 2) : bits;
    }
    if (scratch) {
        const size_t words = mns_field_powm_n_itch(t->f, bits);
        uint64_t *sc = malloc(words * 8 + 8);
        memcpy(r, a, count * n * 8);
        mns_field_powm_n_scratch(t->f, r, r, (const mpz_t *)e, count, sc); /* aliased */
        free(sc);
    } else {
        mns_field_powm_n(t->f, r, a, (const mpz_t *)e, count);
    }
    int same = 1, gmp = 1;
    for (size_t i = 0; i < count; i++) {
        mns_field_get_mpz(t->f, z, r + i * n);
        mpz_powm(w, va[i], e[i], *t->p);
        gmp &= mpz_cmp(z, w) == 0;
        mns_field_powm(t->f, one, a + i * n, e[i]);
        mns_field_get_mpz(t->f, w, one);
        same &= mpz_cmp(z, w) == 0;
    }
    MT_CHECK(same && gmp, "%s: powm_n%s, count %zu (single %d, GMP %d)", t->label,
             scratch ? "_scratch aliased" : "", count, same, gmp);
    for (size_t i = 0; i < count + 1; i++)
        mpz_clear(va[i]), mpz_clear(e[i]);
    mpz_clears(z, w, NULL);
    free(va), free(e), free(a), free(r), free(one);
}

static void check_negative(const batch_case *t)
{
    const size_t n = t->limbs;
    mpz_t e[3];
    uint64_t a[3 * 128] = {0}, r[3 * 128];
    if (3 * n > 3 * 128)
        return;
    memset(r, 0xff, sizeof r);
    for (int i = 0; i < 3; i++)
        mpz_init_set_si(e[i], i == 1 ? -5 : 7);
    mns_field_powm_n(t->f, r, a, (const mpz_t *)e, 3);
    int zero = 1;
    for (size_t i = 0; i < 3 * n; i++)
        zero &= r[i] == 0;
    MT_CHECK(zero && strstr(mns_last_error(), "negative"), "%s: negative exponent refused",
             t->label);
    for (int i = 0; i < 3; i++)
        mpz_clear(e[i]);
}

static void test_front(const char *spec, size_t bits, mt_mod_kind kind)
{
    static const int modes[] = {-2, MNS_MB52_GENERIC, -1}; /* -2: the field's own choice */
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, bits, kind);
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
        mns_field *f = NULL;
        mns_status st = mns_field_new(&f, p, spec);
        if (st == MNS_ENOTSUP) {
            printf("skip: %s at %zu bits: %s\n", spec, bits, mns_last_error());
            break;
        }
        MT_CHECK(st == MNS_OK, "%s at %zu bits: %s", spec, bits, mns_last_error());
        if (st != MNS_OK)
            break;
        if (modes[k] != -2)
            MT_CHECK(mns_field_lanes_use_(f, modes[k]) == MNS_OK, "lanes %d", modes[k]);
        char label[160];
        snprintf(label, sizeof label, "%s %zu bits lanes=%s", spec, bits,
                 mns_field_lanes(f) ? mns_field_lanes(f)->kernel_name : "none");
        const batch_case t = {f, (const mpz_t *)&p, mns_field_limbs(f), label};
        const size_t top = bits > 1024 ? 3 : 17;
        for (size_t count = 0; count <= 17; count++)
            check_products(&t, count);
        for (size_t count = 1; count <= top; count++)
            check_powers(&t, count, count % 2);
        if (top < 17)
            check_powers(&t, 17, 0);
        check_negative(&t);
        mns_field_free(f);
    }
    mpz_clear(p);
}

/* argument "kernels": part 1 only (a quick IFMA-against-twin check) */
int main(int argc, char **argv)
{
    mt_init("test_batch");
    printf("lanes by default: %s\n", mns_cpu_has_ifma() ? "ifma" : "none (the single calls)");
    test_kernels();
    if (argc > 1 && strcmp(argv[1], "kernels") == 0)
        return mt_finish();
    static const size_t sizes[] = {256, 384, 1024, 2048};
    static const char *const specs[] = {"mont-ifma:kernel=generic", "mont", "pmns", "rns", "auto"};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++)
            test_front(specs[k], sizes[s], MT_MOD_PRIME);
    test_front("mont-ifma:kernel=generic", 4096, MT_MOD_RANDOM);
    test_front("mont", 1000, MT_MOD_DENSE);
    return mt_finish();
}
