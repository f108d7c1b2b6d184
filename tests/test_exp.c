/* The shared exponentiation over a toy backend whose elements are plain
 * residues (mul = mpn product mod p through GMP), so that the window logic is
 * checked on its own: every exponent length from 0 to 300 bits (every window
 * width meets partial top windows), structured exponents, aliasing, and the
 * window choice. The two-lane driver (mns_exp_powm_x2) the same way, on two
 * toy fields of different moduli, with and without x2 kernels, exponents of
 * equal and of different lengths: results, aliasing, and that each lane's
 * product count depends only on the longer length. */
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    mt_init("test_exp");
    toy t;
    mpz_init(t.p);
    mt_modulus(t.p, 200, MT_MOD_PRIME);
    t.n = mpz_size(t.p);
    const mns_exp_ops ops = {&t, t.n, toy_mul, toy_sqr, toy_one};
    uint64_t A[4], R[4];
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
            t.muls = 0;
            MT_CHECK(mns_exp_powm_alloc(&ops, R, A, e) == MNS_OK, "alloc");
            toy_load(&t, got, R);
            mpz_powm(want, a, e, t.p);
            MT_CHECK(mpz_cmp(got, want) == 0, "a^e, %u-bit e, kind %d", bits, k);
            /* the operation count depends on the bit length only */
            if (bits > 0) {
                unsigned w = mns_exp_window(bits, t.n);
                unsigned long windows = (bits + w - 1) / w;
                unsigned long expect = ((1ul << w) - 2) + (windows - 1) * (w + 1);
                MT_CHECK(t.muls == expect, "%u-bit e: %lu products, want %lu", bits, t.muls,
                         expect);
            }
            /* aliasing r == a */
            MT_CHECK(mns_exp_powm_alloc(&ops, A, A, e) == MNS_OK, "alloc");
            toy_load(&t, got, A);
            MT_CHECK(mpz_cmp(got, want) == 0, "a^e aliased, %u-bit e", bits);
        }
    }
    /* two lanes: moduli of 200 and 190 bits (same word count) */
    toy t1;
    mpz_init(t1.p);
    mt_modulus(t1.p, 190, MT_MOD_PRIME);
    t1.n = mpz_size(t1.p);
    mns_exp_x2 x2 = {{ops, {&t1, t1.n, toy_mul, toy_sqr, toy_one}}, toy_mul_x2, toy_sqr_x2};
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

    /* window widths grow with the exponent and shrink with the table's cost */
    MT_CHECK(mns_exp_window(1, 4) == 1, "w(1) = %u", mns_exp_window(1, 4));
    MT_CHECK(mns_exp_window(2048, 32) >= 4 && mns_exp_window(2048, 32) <= 6, "w(2048) = %u",
             mns_exp_window(2048, 32));
    MT_CHECK(mns_exp_window(8192, 128) >= mns_exp_window(2048, 32), "w grows");
    MT_CHECK(mns_exp_window(1u << 20, 1024) <= 7, "w capped");
    mpz_clears(a, e, want, got, t.p, NULL);
    return mt_finish();
}
