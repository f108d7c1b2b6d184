/* The `mont-ifma` backend (radix-2^52 Montgomery, src/mont52/amm52.h):
 *   1. the whole mns_field contract against GMP (mt_field_check) for the
 *      IFMA kernel (skipped without IFMA or under MNS_CPU=generic) and the
 *      portable twin, from 2 bits to the 4158-bit limit, around every edge of
 *      the digit count m and the vector count nv, every modulus shape; a
 *      4159-bit prime is refused with MNS_ENOTSUP;
 *   2. the kernels on the representation's bounds: operands anywhere in
 *      [0, 2p) (2p - 1, p, p - 1, 0, digits at 2^52 - 1 where the value
 *      allows), the result < 2p with 52-bit digits and zero padding, equal to
 *      a b R^-1 mod p; the IFMA and portable kernels give the same digits;
 *   3. mul_x2 / sqr_x2 against two single calls, word for word: one context
 *      twice, two primes of one size (RSA-CRT), two digit counts (the
 *      two-call fallback); each output aliasing its inputs; chains where each
 *      pair feeds the next. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field_internal.h"
#include "mont52/amm52.h"
#include "testutil.h"

static const mns_amm52_ctx *ctx_of(const mns_field *f)
{
    return mns_field_backend_ctx(f);
}

/* a tight operand of shape k: values in [0, 2p) */
static void operand(mpz_t a, const mpz_t p, unsigned k)
{
    switch (k % 8) {
    case 0: mpz_mul_2exp(a, p, 1); mpz_sub_ui(a, a, 1); break; /* 2p - 1 */
    case 1: mpz_set(a, p); break;
    case 2: mpz_sub_ui(a, p, 1); break;
    case 3: mpz_set_ui(a, 0); break;
    case 4: /* the largest value below 2p whose low digits are all 2^52 - 1 */
        mpz_mul_2exp(a, p, 1);
        mpz_sub_ui(a, a, 1);
        mpz_fdiv_q_2exp(a, a, 104);
        mpz_mul_2exp(a, a, 104);
        if (mpz_sgn(a) > 0)
            mpz_sub_ui(a, a, 1);
        break;
    default: { /* random in [0, 2p) */
        mpz_t t;
        mpz_init(t);
        mpz_mul_2exp(t, p, 1);
        mpz_urandomm(a, mt_rand, t);
        mpz_clear(t);
    }
    }
}

/* r is tight and equals a b R^-1 mod p */
static void expect_amm(const mns_amm52_ctx *c, const mpz_t p, const uint64_t *r, const mpz_t a,
                       const mpz_t b, const char *what)
{
    mpz_t v, w, rinv;
    mpz_inits(v, w, rinv, NULL);
    int digits_ok = 1;
    for (size_t j = 0; j < 8 * c->nv; j++)
        digits_ok &= j < c->m ? r[j] <= MNS_AMM52_MASK : r[j] == 0;
    mt_mpz_from_digits52(v, r, c->m);
    mpz_mul_2exp(w, p, 1);
    MT_CHECK(digits_ok && mpz_cmp(v, w) < 0, "%s: result not tight (%zu bits)", what,
             mpz_sizeinbase(p, 2));
    mpz_set_ui(rinv, 1);
    mpz_mul_2exp(rinv, rinv, 52 * c->m);
    mpz_invert(rinv, rinv, p);
    mpz_mul(w, a, b);
    mpz_mul(w, w, rinv);
    mpz_sub(w, w, v);
    MT_CHECK(mpz_divisible_p(w, p), "%s: wrong value (%zu bits)", what, mpz_sizeinbase(p, 2));
    mpz_clears(v, w, rinv, NULL);
}

/* 2: the kernels at the bounds, IFMA and portable giving the same digits */
static void bounds(size_t bits)
{
    mpz_t p, a, b;
    mpz_inits(p, a, b, NULL);
    mt_modulus(p, bits, MT_MOD_PRIME);
    mns_field *fg = NULL, *fi = NULL;
    MT_CHECK(mns_field_new(&fg, p, "mont-ifma:kernel=generic") == MNS_OK, "generic %zu: %s", bits,
             mns_last_error());
    if (mns_field_new(&fi, p, "mont-ifma") != MNS_OK)
        fi = NULL; /* no IFMA here: the portable kernel alone */
    const mns_amm52_ctx *cg = ctx_of(fg), *ci = fi ? ctx_of(fi) : NULL;
    const size_t L = 8 * cg->nv;
    uint64_t *A = calloc(4 * L, sizeof *A), *B = A + L, *R = B + L, *S = R + L;
    for (unsigned i = 0; i < mt_scaled(64); i++) {
        operand(a, p, i);
        operand(b, p, i / 8 + 3 * i);
        mt_digits52_from_mpz(A, L, a);
        mt_digits52_from_mpz(B, L, b);
        cg->mul(cg, R, A, B);
        expect_amm(cg, p, R, a, b, "generic a b");
        if (ci) {
            ci->mul(ci, S, A, B);
            MT_CHECK(memcmp(R, S, L * sizeof *R) == 0, "%zu bits: ifma digits differ, shapes %u",
                     bits, i);
            /* aliasing: r = a, then r = b */
            memcpy(S, A, L * sizeof *S);
            ci->mul(ci, S, S, B);
            MT_CHECK(memcmp(R, S, L * sizeof *R) == 0, "%zu bits: r = a aliasing", bits);
            memcpy(S, B, L * sizeof *S);
            ci->mul(ci, S, A, S);
            MT_CHECK(memcmp(R, S, L * sizeof *R) == 0, "%zu bits: r = b aliasing", bits);
            memcpy(S, A, L * sizeof *S);
            ci->mul(ci, S, S, S);
            cg->mul(cg, R, A, A);
            MT_CHECK(memcmp(R, S, L * sizeof *R) == 0, "%zu bits: a^2 in place", bits);
        }
    }
    free(A);
    mns_field_free(fg);
    mns_field_free(fi);
    mpz_clears(p, a, b, NULL);
}

/* 3: x2 against two single calls */
static void x2_pair(const char *spec, size_t bits0, size_t bits1)
{
    mpz_t p0, p1, a;
    mpz_inits(p0, p1, a, NULL);
    mt_modulus(p0, bits0, MT_MOD_PRIME);
    mt_modulus(p1, bits1 ? bits1 : bits0, MT_MOD_PRIME); /* unused when bits1 == 0 */
    mns_field *f0 = NULL, *f1 = NULL;
    if (mns_field_new(&f0, p0, spec) != MNS_OK || mns_field_new(&f1, p1, spec) != MNS_OK) {
        printf("  skip x2 %s %zu/%zu: %s\n", spec, bits0, bits1, mns_last_error());
        mns_field_free(f0);
        mpz_clears(p0, p1, a, NULL);
        return;
    }
    const mns_amm52_ctx *c0 = ctx_of(f0), *c1 = ctx_of(f1);
    const mns_field *g1 = bits1 ? f1 : f0; /* bits1 == 0: one context twice */
    const mns_amm52_ctx *d1 = bits1 ? c1 : c0;
    const size_t L = 8 * (c0->nv > d1->nv ? c0->nv : d1->nv);
    uint64_t *w = calloc(8 * L, sizeof *w);
    uint64_t *A0 = w, *B0 = w + L, *A1 = w + 2 * L, *B1 = w + 3 * L, *R0 = w + 4 * L,
             *R1 = w + 5 * L, *S0 = w + 6 * L, *S1 = w + 7 * L;
    for (unsigned i = 0; i < mt_scaled(24); i++) {
        operand(a, p0, i);
        mt_digits52_from_mpz(A0, L, a);
        operand(a, p0, 5 + i);
        mt_digits52_from_mpz(B0, L, a);
        operand(a, bits1 ? p1 : p0, 3 * i + 1);
        mt_digits52_from_mpz(A1, L, a);
        operand(a, bits1 ? p1 : p0, 7 + i);
        mt_digits52_from_mpz(B1, L, a);
        mns_field_mul_x2(f0, R0, A0, B0, g1, R1, A1, B1);
        c0->mul(c0, S0, A0, B0);
        d1->mul(d1, S1, A1, B1);
        MT_CHECK(memcmp(R0, S0, L * 8) == 0 && memcmp(R1, S1, L * 8) == 0,
                 "%s %zu/%zu: mul_x2 differs from two calls, shapes %u", spec, bits0, bits1, i);
        mns_field_sqr_x2(f0, R0, A0, g1, R1, A1);
        c0->mul(c0, S0, A0, A0);
        d1->mul(d1, S1, A1, A1);
        MT_CHECK(memcmp(R0, S0, L * 8) == 0 && memcmp(R1, S1, L * 8) == 0,
                 "%s %zu/%zu: sqr_x2 differs from two calls, shapes %u", spec, bits0, bits1, i);
        /* outputs aliasing inputs */
        memcpy(R0, A0, L * 8);
        memcpy(R1, B1, L * 8);
        mns_field_mul_x2(f0, R0, R0, B0, g1, R1, A1, R1);
        c0->mul(c0, S0, A0, B0);
        d1->mul(d1, S1, A1, B1);
        MT_CHECK(memcmp(R0, S0, L * 8) == 0 && memcmp(R1, S1, L * 8) == 0,
                 "%s %zu/%zu: mul_x2 in place", spec, bits0, bits1);
    }
    /* a chain of squarings and products, each pair feeding the next */
    memcpy(R0, A0, L * 8);
    memcpy(R1, A1, L * 8);
    memcpy(S0, A0, L * 8);
    memcpy(S1, A1, L * 8);
    /* the same chain on the field values, by GMP */
    mpz_t v0, v1, b0, b1, got;
    mpz_inits(v0, v1, b0, b1, got, NULL);
    mns_field_get_mpz(f0, v0, A0);
    mns_field_get_mpz(g1, v1, A1);
    mns_field_get_mpz(f0, b0, B0);
    mns_field_get_mpz(g1, b1, B1);
    const mpz_srcptr q0 = p0, q1 = bits1 ? p1 : p0;
    for (unsigned i = 0; i < mt_scaled(300); i++) {
        if (i % 5 == 4) {
            mns_field_mul_x2(f0, R0, R0, B0, g1, R1, R1, B1);
            c0->mul(c0, S0, S0, B0);
            d1->mul(d1, S1, S1, B1);
            mpz_mul(v0, v0, b0);
            mpz_mul(v1, v1, b1);
        } else {
            mns_field_sqr_x2(f0, R0, R0, g1, R1, R1);
            c0->mul(c0, S0, S0, S0);
            d1->mul(d1, S1, S1, S1);
            mpz_mul(v0, v0, v0);
            mpz_mul(v1, v1, v1);
        }
        mpz_mod(v0, v0, q0);
        mpz_mod(v1, v1, q1);
    }
    MT_CHECK(memcmp(R0, S0, L * 8) == 0 && memcmp(R1, S1, L * 8) == 0,
             "%s %zu/%zu: x2 chain differs from single calls", spec, bits0, bits1);
    mns_field_get_mpz(f0, got, R0);
    MT_CHECK(mpz_cmp(got, v0) == 0, "%s %zu/%zu: x2 chain, first value differs from GMP", spec,
             bits0, bits1);
    mns_field_get_mpz(g1, got, R1);
    MT_CHECK(mpz_cmp(got, v1) == 0, "%s %zu/%zu: x2 chain, second value differs from GMP", spec,
             bits0, bits1);
    printf("  x2 %s %zu/%zu: %s\n", spec, bits0, bits1, mns_field_describe(f0));
    mpz_clears(v0, v1, b0, b1, got, NULL);
    free(w);
    mns_field_free(f0);
    mns_field_free(f1);
    mpz_clears(p0, p1, a, NULL);
}

int main(void)
{
    mt_init("test_mont_ifma");
    mpz_t p;
    mpz_init(p);
    const mt_field_opts quick = {.iters = 12, .chain = 200, .powms = 6, .allow_notsup = 1};
    const mt_field_opts light = {.iters = 3, .chain = 40, .powms = 2, .allow_notsup = 1};
    static const char *const specs[] = {"mont-ifma", "mont-ifma:kernel=generic"};
    /* m = ceil((bits + 2) / 52): edges at 50/51 (m 1 -> 2), 414/415 (m 8 ->
     * 9, nv 1 -> 2), 830/831 (nv 2 -> 3); the RSA channel sizes */
    static const size_t sizes[] = {2,   3,   5,   31,  50,  51,  52,   53,   64,   100,
                                   103, 104, 255, 414, 415, 521, 830,  831,  1024, 1536,
                                   2048, 2049, 2050, 2051};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int k = 0; k < MT_MOD_KINDS; k++) {
            if (sizes[s] < 4 && k != MT_MOD_RANDOM && k != MT_MOD_PRIME)
                continue;
            if (k == MT_MOD_PSEUDO_MERSENNE && sizes[s] < 24)
                continue;
            mt_modulus(p, sizes[s], (mt_mod_kind)k);
            for (size_t i = 0; i < 2; i++)
                mt_field_check(specs[i], p, &quick);
        }
    static const size_t big[] = {3072, 4096, 4157, 4158};
    for (size_t s = 0; s < sizeof big / sizeof big[0]; s++)
        for (int k = 0; k < MT_MOD_KINDS; k += 3) {
            mt_modulus(p, big[s], (mt_mod_kind)k);
            for (size_t i = 0; i < 2; i++)
                mt_field_check(specs[i], p, &light);
        }
    mns_field *f = NULL;
    mt_modulus(p, 4159, MT_MOD_RANDOM);
    MT_CHECK(mns_field_new(&f, p, "mont-ifma:kernel=generic") == MNS_ENOTSUP, "4159 bits accepted");
    mt_modulus(p, 1024, MT_MOD_PRIME);
    MT_CHECK(mns_field_new(&f, p, "mont-ifma:kernel=avx2") == MNS_EINVAL, "kernel=avx2 accepted");
    MT_CHECK(mns_field_new(&f, p, "mont-ifma:n=3") == MNS_EINVAL, "unknown option accepted");
    mns_status st = mns_field_new(&f, p, "mont-ifma");
    if (st == MNS_OK) {
        printf("  %s\n", mns_field_describe(f));
        mns_field_free(f);
    } else {
        MT_CHECK(st == MNS_ENOTSUP && strstr(mns_last_error(), "IFMA"), "mont-ifma: %s",
                 mns_last_error());
    }

    static const size_t kb[] = {51, 100, 414, 415, 1024, 1536, 2048, 3000, 4158};
    for (size_t s = 0; s < sizeof kb / sizeof kb[0]; s++)
        bounds(kb[s]);

    for (size_t i = 0; i < 2; i++) {
        x2_pair(specs[i], 1024, 0);
        x2_pair(specs[i], 1024, 1024);
        x2_pair(specs[i], 1536, 1536);
        x2_pair(specs[i], 2048, 2048);
        x2_pair(specs[i], 414, 415);   /* nv 1 and 2: two calls */
        x2_pair(specs[i], 1024, 1000); /* m 20 and 20 */
        x2_pair(specs[i], 1024, 1040); /* m 20 and 21, nv 3: two calls */
    }
    mpz_clear(p);
    return mt_finish();
}
