/* mns_pmns_mp_mul_x2 / _sqr_x2 (the mul_x2 / sqr_x2 ops of pmns-mp-ifma):
 * two products in one instruction stream must give, word for word, what two
 * single calls give, and the right value against GMP. Pairs: one context
 * twice, two primes of one size with the same (n, s) (the RSA-CRT case), and
 * two contexts of different shapes (the two-call fallback); random and
 * structured operands (0, 1, p-1, loose sums at the delta limit), aliasing
 * of each output with its inputs, and chains where each pair feeds the next.
 * Under MNS_CPU=generic the same checks run on the portable kernel, where x2
 * is two calls. Sizes: the RSA channels (1024, 1536, 2048 bits) and 512,
 * 3072 bits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mns.h"
#include "mns_pmns_mp.h"
#include "testutil.h"

typedef struct {
    mns_pmns_mp *c;
    mpz_t p;
    size_t L;
} ctxp;

/* base: 0 (the kernel's choice), or 8 (the fused kernel with the Toeplitz
 * split, when the bounds allow it) */
static int make_b(ctxp *x, const mpz_t p, int s, int n, int base)
{
    mns_pmns_mp_kernel k = MNS_PMNS_MP_KERNEL_AUTO;
    mpz_init_set(x->p, p);
    x->c = NULL;
    mns_status st = mns_pmns_mp_new_var(&x->c, p, MNS_PMNS_WORD_U52, s, n, 0, base, k);
    if (st != MNS_OK) {
        mpz_clear(x->p);
        return 0;
    }
    x->L = mns_pmns_mp_limbs(x->c);
    return 1;
}

static int make(ctxp *x, const mpz_t p, int s, int n) { return make_b(x, p, s, n, 0); }

static void drop(ctxp *x)
{
    mns_pmns_mp_free(x->c);
    mpz_clear(x->p);
}

/* a tight element of a random or structured value; v gets the value */
static void operand(const ctxp *x, uint64_t *e, mpz_t v)
{
    mt_operand(v, x->p, mt_op_pick());
    mpz_mod(v, v, x->p);
    MT_CHECK(mns_pmns_mp_set_mpz_var(x->c, e, v) == MNS_OK, "set_mpz");
}

static int same_value(const ctxp *x, const uint64_t *e, const mpz_t want)
{
    mpz_t g;
    mpz_init(g);
    mns_pmns_mp_get_mpz_var(x->c, g, e);
    int ok = mpz_cmp(g, want) == 0;
    mpz_clear(g);
    return ok;
}

/* one round: x2 against two single calls (words) and GMP (values), with
 * output aliasing chosen by alias (0: none, 1: r0 = a0 and r1 = b1) */
static void round_pair(const ctxp *x0, const ctxp *x1, int sqr, int alias, int loose)
{
    const size_t L0 = x0->L, L1 = x1->L;
    uint64_t *a0 = calloc(L0, 8), *b0 = calloc(L0, 8), *r0 = calloc(L0, 8), *s0 = calloc(L0, 8);
    uint64_t *a1 = calloc(L1, 8), *b1 = calloc(L1, 8), *r1 = calloc(L1, 8), *s1 = calloc(L1, 8);
    mpz_t va0, vb0, va1, vb1, w;
    mpz_inits(va0, vb0, va1, vb1, w, NULL);
    operand(x0, a0, va0);
    operand(x0, b0, vb0);
    operand(x1, a1, va1);
    operand(x1, b1, vb1);
    if (loose) { /* a <- a + b: loose, for contexts with delta >= 1 */
        mns_pmns_mp_add(x0->c, a0, a0, b0);
        mpz_add(va0, va0, vb0);
        mns_pmns_mp_add(x1->c, a1, a1, b1);
        mpz_add(va1, va1, vb1);
    }
    /* the single products */
    if (sqr) {
        mns_pmns_mp_sqr(x0->c, s0, a0);
        mns_pmns_mp_sqr(x1->c, s1, a1);
    } else {
        mns_pmns_mp_mul(x0->c, s0, a0, b0);
        mns_pmns_mp_mul(x1->c, s1, a1, b1);
    }
    uint64_t *o0 = r0, *o1 = r1;
    if (alias) {
        o0 = a0;
        o1 = sqr ? a1 : b1;
    }
    if (sqr)
        mns_pmns_mp_sqr_x2(x0->c, x1->c, o0, a0, o1, a1);
    else
        mns_pmns_mp_mul_x2(x0->c, x1->c, o0, a0, b0, o1, a1, b1);
    MT_CHECK(memcmp(o0, s0, L0 * 8) == 0, "%s_x2 product 0 differs from the single call (%zu bits)",
             sqr ? "sqr" : "mul", mpz_sizeinbase(x0->p, 2));
    MT_CHECK(memcmp(o1, s1, L1 * 8) == 0, "%s_x2 product 1 differs from the single call (%zu bits)",
             sqr ? "sqr" : "mul", mpz_sizeinbase(x1->p, 2));
    mpz_mul(w, va0, sqr ? va0 : vb0);
    mpz_mod(w, w, x0->p);
    MT_CHECK(same_value(x0, o0, w), "%s_x2 product 0 wrong against GMP", sqr ? "sqr" : "mul");
    mpz_mul(w, va1, sqr ? va1 : vb1);
    mpz_mod(w, w, x1->p);
    MT_CHECK(same_value(x1, o1, w), "%s_x2 product 1 wrong against GMP", sqr ? "sqr" : "mul");
    mpz_clears(va0, vb0, va1, vb1, w, NULL);
    free(a0), free(b0), free(r0), free(s0), free(a1), free(b1), free(r1), free(s1);
}

/* x_(t+1) = x_t y_t, y_(t+1) = y_t^2 in both fields at once, against GMP at
 * the end (and the single-call chain word for word) */
static void chain_pair(const ctxp *x0, const ctxp *x1, unsigned len)
{
    const size_t L0 = x0->L, L1 = x1->L;
    uint64_t *x[2], *y[2], *sx[2], *sy[2];
    const ctxp *cx[2] = {x0, x1};
    mpz_t vx[2], vy[2], g;
    mpz_init(g);
    for (int q = 0; q < 2; q++) {
        size_t L = q ? L1 : L0;
        x[q] = calloc(L, 8), y[q] = calloc(L, 8), sx[q] = calloc(L, 8), sy[q] = calloc(L, 8);
        mpz_inits(vx[q], vy[q], NULL);
        operand(cx[q], x[q], vx[q]);
        operand(cx[q], y[q], vy[q]);
        memcpy(sx[q], x[q], L * 8);
        memcpy(sy[q], y[q], L * 8);
    }
    for (unsigned t = 0; t < len; t++) {
        mns_pmns_mp_mul_x2(x0->c, x1->c, x[0], x[0], y[0], x[1], y[1], x[1]);
        mns_pmns_mp_sqr_x2(x0->c, x1->c, y[0], y[0], y[1], y[1]);
        for (int q = 0; q < 2; q++) {
            mns_pmns_mp_mul(cx[q]->c, sx[q], sx[q], sy[q]);
            mns_pmns_mp_sqr(cx[q]->c, sy[q], sy[q]);
            mpz_mul(vx[q], vx[q], vy[q]);
            mpz_mod(vx[q], vx[q], cx[q]->p);
            mpz_mul(vy[q], vy[q], vy[q]);
            mpz_mod(vy[q], vy[q], cx[q]->p);
        }
    }
    for (int q = 0; q < 2; q++) {
        size_t L = q ? L1 : L0;
        MT_CHECK(memcmp(x[q], sx[q], L * 8) == 0 && memcmp(y[q], sy[q], L * 8) == 0,
                 "x2 chain %d differs from the single calls", q);
        MT_CHECK(same_value(cx[q], x[q], vx[q]) && same_value(cx[q], y[q], vy[q]),
                 "x2 chain %d wrong against GMP", q);
        free(x[q]), free(y[q]), free(sx[q]), free(sy[q]);
        mpz_clears(vx[q], vy[q], NULL);
    }
    mpz_clear(g);
}

static void check_pair(const char *what, const ctxp *x0, const ctxp *x1, unsigned iters,
                       unsigned chain)
{
    long before = mt_failed();
    for (unsigned i = 0; i < iters; i++)
        for (int sqr = 0; sqr < 2; sqr++)
            for (int alias = 0; alias < 2; alias++)
                round_pair(x0, x1, sqr, alias, 0);
    chain_pair(x0, x1, chain);
    printf("  %-26s %5zu bits: %s  [%s | %s]\n", what, mpz_sizeinbase(x0->p, 2),
           mt_failed() == before ? "ok" : "FAIL", mns_pmns_mp_describe(x0->c),
           mns_pmns_mp_describe(x1->c));
    fflush(stdout);
}

/* loose operands: contexts with delta = 1 accept a + b */
static void check_loose(const mpz_t p0, const mpz_t p1, int s)
{
    ctxp x0, x1;
    mpz_init_set(x0.p, p0);
    mpz_init_set(x1.p, p1);
    if (mns_pmns_mp_new_var(&x0.c, p0, MNS_PMNS_WORD_U52, s, 0, 1, 0, MNS_PMNS_MP_KERNEL_AUTO) !=
        MNS_OK) {
        mpz_clear(x0.p), mpz_clear(x1.p);
        return;
    }
    int n = mns_pmns_params_n(mns_pmns_mp_params(x0.c));
    if (mns_pmns_mp_new_var(&x1.c, p1, MNS_PMNS_WORD_U52, s, n, 1, 0, MNS_PMNS_MP_KERNEL_AUTO) !=
        MNS_OK) {
        mns_pmns_mp_free(x0.c);
        mpz_clear(x0.p), mpz_clear(x1.p);
        return;
    }
    x0.L = mns_pmns_mp_limbs(x0.c);
    x1.L = mns_pmns_mp_limbs(x1.c);
    long before = mt_failed();
    for (unsigned i = 0; i < mt_scaled(20); i++)
        for (int sqr = 0; sqr < 2; sqr++)
            round_pair(&x0, &x1, sqr, (int)(i & 1), 1);
    printf("  %-26s %5zu bits: %s\n", "delta=1, loose operands", mpz_sizeinbase(p0, 2),
           mt_failed() == before ? "ok" : "FAIL");
    drop(&x0);
    drop(&x1);
}

int main(void)
{
    mt_init("test_pmns_mp_x2");
    static const size_t sizes[] = {512, 1024, 1536, 2048, 3072};
    mpz_t p0, p1;
    mpz_inits(p0, p1, NULL);
    unsigned iters = mt_scaled(30), chain = mt_scaled(300);
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        for (int s = 2; s <= 6; s++) {
            mt_modulus(p0, sizes[z], MT_MOD_PRIME);
            ctxp x0, x1;
            if (!make(&x0, p0, s, 0)) {
                printf("  skip s=%d at %zu bits: %s\n", s, sizes[z], mns_last_error());
                continue;
            }
            char what[64];
            snprintf(what, sizeof what, "s=%d, one context twice", s);
            check_pair(what, &x0, &x0, iters, chain);
            /* a second prime with the same (n, s): a few tries, as a prime may
             * not admit that n */
            int n = mns_pmns_params_n(mns_pmns_mp_params(x0.c)), got = 0;
            for (int t = 0; t < 4 && !got; t++) {
                mt_modulus(p1, sizes[z], MT_MOD_PRIME);
                got = make(&x1, p1, s, n);
            }
            if (got) {
                snprintf(what, sizeof what, "s=%d, two primes", s);
                check_pair(what, &x0, &x1, iters, chain);
                drop(&x1);
            } else
                printf("  s=%d n=%d: no second prime of that shape in 4 tries\n", s, n);
            /* a different shape: the fallback */
            if (s < 6 && make(&x1, p0, s + 1, 0)) {
                snprintf(what, sizeof what, "s=%d with s=%d (two calls)", s, s + 1);
                check_pair(what, &x0, &x1, mt_scaled(5), mt_scaled(20));
                drop(&x1);
            }
            if (s == 3)
                check_loose(p0, p1, s);
            drop(&x0);
            /* the split kernel (plans 2, 3, 2x2 at these sizes), two primes */
            if (s <= 3 && make_b(&x0, p0, s, 0, 8)) {
                n = mns_pmns_params_n(mns_pmns_mp_params(x0.c));
                got = 0;
                for (int t = 0; t < 4 && !got; t++) {
                    mt_modulus(p1, sizes[z], MT_MOD_PRIME);
                    got = make_b(&x1, p1, s, n, 8);
                }
                snprintf(what, sizeof what, "s=%d base=8, two primes", s);
                check_pair(what, &x0, got ? &x1 : &x0, iters, chain);
                if (got)
                    drop(&x1);
                drop(&x0);
            }
        }
    }
    mpz_clears(p0, p1, NULL);
    return mt_finish();
}
