/* The shared exponentiation over a toy backend whose elements are plain
 * residues (mul = mpn product mod p through GMP), so that the window logic is
 * checked on its own: every exponent length from 0 to 300 bits (every window
 * width meets partial top windows), structured exponents, aliasing, and the
 * window choice. */
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
    /* window widths grow with the exponent and shrink with the table's cost */
    MT_CHECK(mns_exp_window(1, 4) == 1, "w(1) = %u", mns_exp_window(1, 4));
    MT_CHECK(mns_exp_window(2048, 32) >= 4 && mns_exp_window(2048, 32) <= 6, "w(2048) = %u",
             mns_exp_window(2048, 32));
    MT_CHECK(mns_exp_window(8192, 128) >= mns_exp_window(2048, 32), "w grows");
    MT_CHECK(mns_exp_window(1u << 20, 1024) <= 7, "w capped");
    mpz_clears(a, e, want, got, t.p, NULL);
    return mt_finish();
}
