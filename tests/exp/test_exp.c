/* The shared exponentiation over a toy backend whose elements are plain
 * residues (mul = mpn product mod p through GMP), so that the window logic is
 * checked on its own: every exponent length from 0 to 300 bits (every window
 * width meets partial top windows), structured exponents, aliasing, and the
 * window choice. The two-lane driver (mns_exp_powm_x2) the same way, on two
 * toy fields of different moduli, with and without x2 kernels, exponents of
 * equal and of different lengths: results, aliasing, and that each lane's
 * product count depends only on the longer length. Then the pair on real
 * fields (mns_field_mul_x2 / sqr_x2 / powm_x2 of src/field/field_internal.h):
 * every backend with x2 kernels and a few without, two primes of one size
 * (and one field with itself), against GMP and against the single ops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field_internal.h"
#include "exp/exp.h"
#include "testutil.h"

typedef struct toy {
    mpz_t p;
    size_t n;
    unsigned long muls;
} toy;

static void toy_load(const toy *t, mpz_t r, const uint64_t *a)
{
    mpz_import(r, t->n, -1, 8, 0, 0, a);
}

static void toy_store(const toy *t, uint64_t *r, const mpz_t a)
{
    memset(r, 0, t->n * 8);
    mpz_export(r, NULL, -1, 8, 0, 0, a);
}

static void toy_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    toy *t = (toy *)ctx;
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    toy_load(t, x, a);
    toy_load(t, y, b);
    mpz_mul(x, x, y);
    mpz_mod(x, x, t->p);
    toy_store(t, r, x);
    t->muls++;
    mpz_clears(x, y, NULL);
}

static void toy_sqr(const void *ctx, uint64_t *r, const uint64_t *a) { toy_mul(ctx, r, a, a); }

/* The toy's sqr_k: k squarings (counted as products), one call counted */
static unsigned long sqrk_calls;

static void toy_sqr_k(const void *ctx, uint64_t *r, const uint64_t *a, unsigned k)
{
    MT_CHECK(k >= 1, "sqr_k called with k = %u", k);
    toy_sqr(ctx, r, a);
    for (unsigned i = 1; i < k; i++)
        toy_sqr(ctx, r, r);
    sqrk_calls++;
}

/* The x2 kernels of the toy: two ordinary products, counted as one call. */
static unsigned long x2_calls;

static void toy_mul_x2(const void *c0, const void *c1, uint64_t *r0, const uint64_t *a0,
                       const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1)
{
    toy_mul(c0, r0, a0, b0);
    toy_mul(c1, r1, a1, b1);
    x2_calls++;
}

static void toy_sqr_x2(const void *c0, const void *c1, uint64_t *r0, const uint64_t *a0,
                       uint64_t *r1, const uint64_t *a1)
{
    toy_mul_x2(c0, c1, r0, a0, a0, r1, a1, a1);
}

static void toy_one(const void *ctx, uint64_t *r)
{
    const toy *t = ctx;
    memset(r, 0, t->n * 8);
    r[0] = 1;
}

/* The pair on real fields: f0 for p0, f1 for p1 (p1 may equal p0 and f1
 * may be f0); failures are counted by MT_CHECK. */
static void x2_fields(const char *spec, size_t bits)
{
    mpz_t p[2], x[2], y[2], want, got, e[2];
    for (int j = 0; j < 2; j++)
        mpz_inits(p[j], x[j], y[j], e[j], NULL);
    mpz_inits(want, got, NULL);
    mt_modulus(p[0], bits, MT_MOD_PRIME);
    mt_modulus(p[1], bits, MT_MOD_PRIME);
    mns_field *f[2] = {NULL, NULL};
    mns_status st = mns_field_new(&f[0], p[0], spec);
    if (st == MNS_OK)
        st = mns_field_new(&f[1], p[1], spec);
    if (st == MNS_ENOTSUP) {
        printf("  x2 %s %zu bits: not served here (%s), skipped\n", spec, bits, mns_last_error());
        goto done;
    }
    MT_CHECK(st == MNS_OK, "x2 %s %zu bits: mns_field_new: %s", spec, bits, mns_last_error());
    if (st != MNS_OK)
        goto done;
    const int level = mns_field_x2(f[0], f[1]);
    printf("  x2 %s %zu bits: %s\n", spec, bits,
           level == 2 ? "x2 kernels" : level == 1 ? "two calls per step" : "not paired");
    /* the two fields may differ in size (pmns-ifma: n depends on p) */
    const size_t L0 = mns_field_limbs(f[0]), L1 = mns_field_limbs(f[1]);
    const size_t L = L0 > L1 ? L0 : L1;
    uint64_t *w = calloc(8 * L, sizeof(uint64_t));
    uint64_t *X[2] = {w, w + L}, *Y[2] = {w + 2 * L, w + 3 * L}, *R[2] = {w + 4 * L, w + 5 * L},
             *S[2] = {w + 6 * L, w + 7 * L};
    for (unsigned it = 0; it < mt_scaled(40); it++) {
        for (int j = 0; j < 2; j++) {
            mt_operand(x[j], p[j], it < MT_OP_KINDS ? (mt_op_kind)it : mt_op_pick());
            mt_operand(y[j], p[j], mt_op_pick());
            MT_CHECK(mns_field_set_mpz(f[j], X[j], x[j]) == MNS_OK, "set");
            MT_CHECK(mns_field_set_mpz(f[j], Y[j], y[j]) == MNS_OK, "set");
        }
        /* x2 products against the single ones and GMP; then aliased */
        mns_field_mul_x2(f[0], R[0], X[0], Y[0], f[1], R[1], X[1], Y[1]);
        for (int j = 0; j < 2; j++) {
            mns_field_mul(f[j], S[j], X[j], Y[j]);
            mns_field_get_mpz(f[j], got, R[j]);
            mpz_mul(want, x[j], y[j]);
            mpz_mod(want, want, p[j]);
            MT_CHECK(mpz_cmp(got, want) == 0, "mul_x2 %s %zu lane %d", spec, bits, j);
            MT_CHECK(memcmp(R[j], S[j], (j ? L1 : L0) * 8) == 0, "mul_x2 %s %zu lane %d != mul", spec, bits,
                     j);
        }
        mns_field_sqr_x2(f[0], R[0], X[0], f[1], R[1], X[1]);
        for (int j = 0; j < 2; j++) {
            mns_field_sqr(f[j], S[j], X[j]);
            mns_field_get_mpz(f[j], got, R[j]);
            mpz_powm_ui(want, x[j], 2, p[j]);
            MT_CHECK(mpz_cmp(got, want) == 0, "sqr_x2 %s %zu lane %d", spec, bits, j);
            MT_CHECK(memcmp(R[j], S[j], (j ? L1 : L0) * 8) == 0, "sqr_x2 %s %zu lane %d != sqr", spec, bits,
                     j);
        }
        /* r0 aliasing a0, r1 aliasing b1; then a chain of 50 on the outputs
         * (tight outputs are valid inputs) */
        mns_field_mul_x2(f[0], X[0], X[0], Y[0], f[1], Y[1], X[1], Y[1]);
        for (int k = 0; k < 50; k++)
            mns_field_sqr_x2(f[0], X[0], X[0], f[1], Y[1], Y[1]);
        mpz_ui_pow_ui(e[0], 2, 50);
        mpz_mul(want, x[0], y[0]);
        mpz_powm(want, want, e[0], p[0]);
        mns_field_get_mpz(f[0], got, X[0]);
        MT_CHECK(mpz_cmp(got, want) == 0, "x2 chain %s %zu lane 0", spec, bits);
        mpz_mul(want, x[1], y[1]);
        mpz_powm(want, want, e[0], p[1]);
        mns_field_get_mpz(f[1], got, Y[1]);
        MT_CHECK(mpz_cmp(got, want) == 0, "x2 chain %s %zu lane 1", spec, bits);
    }
    /* the exponentiation pair, RSA-CRT-like exponents (bits + 2) and
     * unequal ones, with f1 = f0 too */
    for (unsigned it = 0; it < mt_scaled(4); it++) {
        const int same = it % 2;
        const mns_field *g1 = same ? f[0] : f[1];
        mpz_srcptr q1 = same ? p[0] : p[1];
        size_t eb0 = bits + 2, eb1 = it == 2 ? bits / 3 : bits + 2;
        mpz_urandomb(e[0], mt_rand, eb0);
        mpz_setbit(e[0], eb0 - 1);
        mpz_urandomb(e[1], mt_rand, eb1);
        mpz_setbit(e[1], eb1 - 1);
        mt_operand(x[0], p[0], mt_op_pick());
        mt_operand(x[1], q1, mt_op_pick());
        MT_CHECK(mns_field_set_mpz(f[0], X[0], x[0]) == MNS_OK, "set");
        MT_CHECK(mns_field_set_mpz(g1, X[1], x[1]) == MNS_OK, "set");
        size_t w0 = mns_field_powm_x2_lane_words(f[0], g1, eb0);
        size_t w1 = mns_field_powm_x2_lane_words(g1, f[0], eb0);
        uint64_t *sc0 = malloc(w0 * 8), *sc1 = malloc(w1 * 8);
        mns_field_powm_x2(f[0], X[0], X[0], e[0], g1, R[1], X[1], e[1], sc0, sc1);
        mns_field_get_mpz(f[0], got, X[0]);
        mpz_powm(want, x[0], e[0], p[0]);
        MT_CHECK(mpz_cmp(got, want) == 0, "powm_x2 %s %zu lane 0 (same field %d)", spec, bits,
                 same);
        mns_field_get_mpz(g1, got, R[1]);
        mpz_mod(x[1], x[1], q1);
        mpz_powm(want, x[1], e[1], q1);
        MT_CHECK(mpz_cmp(got, want) == 0, "powm_x2 %s %zu lane 1 (same field %d)", spec, bits,
                 same);
        free(sc0);
        free(sc1);
    }
    free(w);
done:
    mns_field_free(f[0]);
    mns_field_free(f[1]);
    for (int j = 0; j < 2; j++)
        mpz_clears(p[j], x[j], y[j], e[j], NULL);
    mpz_clears(want, got, NULL);
}

/* One lane over a toy field of a `modbits`-bit prime: every exponent length
 * from 0 to 300 bits, all-ones, top-bit-only and random exponents, r == a,
 * and the product count; with_k: the toy has sqr_k, which then squares
 * each window after the first in one call. */
static void single_lane(unsigned modbits, int with_k)
{
    toy t;
    mpz_init(t.p);
    mt_modulus(t.p, modbits, MT_MOD_PRIME);
    t.n = mpz_size(t.p);
    const mns_exp_ops ops = {&t, t.n, toy_mul, toy_sqr, toy_one, with_k ? toy_sqr_k : NULL};
    uint64_t A[64], R[64];
    mpz_t a, e, want, got;
    mpz_inits(a, e, want, got, NULL);

    for (unsigned bits = 0; bits <= 300; bits++) {
        for (int k = 0; k < 3; k++) {
            if (bits == 0)
                mpz_set_ui(e, 0);
            else if (k == 0) { /* all ones */
                mpz_ui_pow_ui(e, 2, bits);
                mpz_sub_ui(e, e, 1);
            } else if (k == 1) { /* only the top bit */
                mpz_ui_pow_ui(e, 2, bits - 1);
            } else {
                mpz_urandomb(e, mt_rand, bits);
                mpz_setbit(e, bits - 1);
            }
            mt_operand(a, t.p, k == 2 ? mt_op_pick() : MT_OP_RANDOM);
            mpz_mod(a, a, t.p);
            toy_store(&t, A, a);
            t.muls = sqrk_calls = 0;
            MT_CHECK(mns_exp_powm_stack(&ops, R, A, e) == MNS_OK, "alloc");
            toy_load(&t, got, R);
            mpz_powm(want, a, e, t.p);
            MT_CHECK(mpz_cmp(got, want) == 0, "%zu words: a^e, %u-bit e, kind %d", t.n, bits, k);
            /* the operation count depends on the bit length only */
            if (bits > 0) {
                unsigned w = mns_exp_window(bits, t.n);
                unsigned long windows = (bits + w - 1) / w;
                unsigned long expect = ((1ul << w) - 2) + (windows - 1) * (w + 1);
                MT_CHECK(t.muls == expect, "%zu words, %u-bit e: %lu products, want %lu", t.n,
                         bits, t.muls, expect);
                MT_CHECK(sqrk_calls == (with_k ? windows - 1 : 0),
                         "%zu words, %u-bit e: %lu sqr_k calls, want %lu", t.n, bits, sqrk_calls,
                         with_k ? windows - 1 : 0);
            }
            /* aliasing r == a */
            MT_CHECK(mns_exp_powm_stack(&ops, A, A, e) == MNS_OK, "alloc");
            toy_load(&t, got, A);
            MT_CHECK(mpz_cmp(got, want) == 0, "%zu words: a^e aliased, %u-bit e", t.n, bits);
        }
    }
    mpz_clears(a, e, want, got, t.p, NULL);
}

int main(void)
{
    mt_init("test_exp");
    /* element sizes of 1-4 words (Select's half-register entries), 5-8
     * (one line), 9, 24 (one pass of up to 32 words: masks made in
     * registers), 33 and 50 (several passes: masks in an array; a last
     * pass of 8 and of 24 words) */
    static const unsigned modbits[] = {50, 120, 190, 200, 260, 520, 1500, 2100, 3200};
    for (size_t i = 0; i < sizeof modbits / sizeof modbits[0]; i++)
        for (int with_k = 0; with_k < 2; with_k++)
            single_lane(modbits[i], with_k);

    toy t;
    mpz_init(t.p);
    mt_modulus(t.p, 200, MT_MOD_PRIME);
    t.n = mpz_size(t.p);
    /* the x2 driver pairs single squarings: a lane's sqr_k is not used */
    const mns_exp_ops ops = {&t, t.n, toy_mul, toy_sqr, toy_one, toy_sqr_k};
    uint64_t A[4], R[4];
    mpz_t a, e, want, got;
    mpz_inits(a, e, want, got, NULL);

    /* two lanes: moduli of 200 and 190 bits (same word count) */
    toy t1;
    mpz_init(t1.p);
    mt_modulus(t1.p, 190, MT_MOD_PRIME);
    t1.n = mpz_size(t1.p);
    mns_exp_x2 x2 = {{ops, {&t1, t1.n, toy_mul, toy_sqr, toy_one, toy_sqr_k}}, toy_mul_x2,
                     toy_sqr_x2};
    uint64_t B[4], S[4], *sc0 = NULL, *sc1 = NULL;
    mpz_t b, e1, want1;
    mpz_inits(b, e1, want1, NULL);
    for (unsigned bits = 0; bits <= 200; bits += 1 + (unsigned)mt_below(3)) {
        for (int k = 0; k < 4; k++) {
            /* lane 1's exponent: same length, shorter, zero, or longer */
            unsigned bits1 = k == 0 ? bits : k == 1 ? bits / 2 : k == 2 ? 0 : bits + 7;
            mpz_urandomb(e, mt_rand, bits);
            if (bits)
                mpz_setbit(e, bits - 1);
            mpz_urandomb(e1, mt_rand, bits1);
            if (bits1)
                mpz_setbit(e1, bits1 - 1);
            mt_operand(a, t.p, mt_op_pick());
            mpz_mod(a, a, t.p);
            mt_operand(b, t1.p, mt_op_pick());
            mpz_mod(b, b, t1.p);
            unsigned maxbits = bits > bits1 ? bits : bits1;
            size_t w0 = mns_exp_x2_lane_words(t.n, maxbits, t1.n);
            size_t w1 = mns_exp_x2_lane_words(t1.n, maxbits, t.n);
            sc0 = realloc(sc0, w0 * 8);
            sc1 = realloc(sc1, w1 * 8);
            mpz_powm(want, a, e, t.p);
            mpz_powm(want1, b, e1, t1.p);
            for (int kern = 0; kern < 2; kern++) {
                x2.mul_x2 = kern ? toy_mul_x2 : NULL;
                x2.sqr_x2 = kern ? toy_sqr_x2 : NULL;
                for (int alias = 0; alias < 2; alias++) {
                    toy_store(&t, A, a);
                    toy_store(&t1, B, b);
                    t.muls = t1.muls = x2_calls = 0;
                    if (alias)
                        mns_exp_powm_x2(&x2, A, A, e, B, B, e1, sc0, sc1);
                    else
                        mns_exp_powm_x2(&x2, R, A, e, S, B, e1, sc0, sc1);
                    toy_load(&t, got, alias ? A : R);
                    MT_CHECK(mpz_cmp(got, want) == 0, "x2 lane 0, %u/%u-bit e, kernel %d alias %d",
                             bits, bits1, kern, alias);
                    toy_load(&t1, got, alias ? B : S);
                    MT_CHECK(mpz_cmp(got, want1) == 0, "x2 lane 1, %u/%u-bit e, kernel %d alias %d",
                             bits, bits1, kern, alias);
                    if (maxbits > 0) {
                        unsigned w = mns_exp_window_x2(maxbits, t.n, t1.n);
                        unsigned long windows = (maxbits + w - 1) / w;
                        unsigned long expect = ((1ul << w) - 2) + (windows - 1) * (w + 1);
                        MT_CHECK(t.muls == expect && t1.muls == expect &&
                                     x2_calls == (kern ? expect : 0),
                                 "x2 %u/%u-bit e: %lu + %lu products (%lu x2 calls), want %lu",
                                 bits, bits1, t.muls, t1.muls, x2_calls, expect);
                    }
                }
            }
        }
    }
    free(sc0);
    free(sc1);
    mpz_clears(b, e1, want1, t1.p, NULL);

    /* real fields: the backends with x2 kernels at the RSA channel sizes,
     * and portable ones (the driver's two-call path) */
    static const struct {
        const char *spec;
        size_t bits;
    } pairs[] = {{"rns-ifma", 512},     {"rns-ifma", 1024},    {"rns-ifma", 1536},
                 {"rns-ifma", 2048},    {"rns-ifma", 200},     {"rns-ifma:kernel=generic", 1024},
                 {"pmns-mp-ifma", 1024}, {"pmns-mp-ifma", 2048}, {"pmns-ifma", 512},
                 {"mont", 1024},        {"rns", 768},          {"pmns", 512},
                 {"mont-ifma", 1024},   {"mont-ifma", 1536},   {"mont-ifma", 2048},
                 {"mont-ifma:kernel=generic", 1024}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        x2_fields(pairs[i].spec, pairs[i].bits);

    /* window widths grow with the exponent and shrink with the table's cost */
    MT_CHECK(mns_exp_window(1, 4) == 1, "w(1) = %u", mns_exp_window(1, 4));
    MT_CHECK(mns_exp_window(2048, 32) >= 4 && mns_exp_window(2048, 32) <= 6, "w(2048) = %u",
             mns_exp_window(2048, 32));
    MT_CHECK(mns_exp_window(8192, 128) >= mns_exp_window(2048, 32), "w grows");
    MT_CHECK(mns_exp_window(1u << 20, 1024) <= 7, "w capped");
    mpz_clears(a, e, want, got, t.p, NULL);
    return mt_finish();
}
