/* The `mont` backend against GMP: every modulus shape from 2 to 128 words
 * (8192 bits) and a few far larger, through the shared conformance check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/inverse.h"
#include "mont/mont.h"
#include "testutil.h"

/* The mulx kernel's k squarings in one call (mns_mont_mulx_sqrk, 2 to
 * MNS_MONT_SQRK_MAX words) against GMP: a^(2^k) R^(1 - 2^k) mod p for k = 1
 * to 9, r apart from a and r == a, on every modulus kind; operands 0, 1, p -
 * 1 and the rest. */
static void check_sqrk(void)
{
    const unsigned adx = MNS_CPU_BMI2 | MNS_CPU_ADX;
    if ((mns_cpu_features() & adx) != adx)
        return; /* MNS_CPU=generic, or a CPU without the kernel */
    mpz_t p, a, want, got, rinv;
    mpz_inits(p, a, want, got, rinv, NULL);
    for (size_t n = MNS_MONT_MULX_MIN; n <= MNS_MONT_SQRK_MAX; n++) {
        mns_mont_sqrk_fn sqrk = mns_mont_mulx_sqrk(n);
        MT_CHECK(sqrk != NULL, "no sqr_k kernel at %zu words", n);
        if (!sqrk)
            continue;
        for (int kind = 0; kind < MT_MOD_KINDS; kind++) {
            mt_modulus(p, 64 * n - (kind == MT_MOD_RANDOM ? 1 : 0), (mt_mod_kind)kind);
            if (mpz_size(p) != n || mpz_even_p(p))
                continue;
            uint64_t pw[MNS_MONT_SQRK_MAX] = {0}, aw[MNS_MONT_SQRK_MAX], rw[MNS_MONT_SQRK_MAX];
            mpz_export(pw, NULL, -1, 8, 0, 0, p);
            mns_mont_ctx c = {.n = n, .p = pw, .pinv = mns_neg_inverse_word(pw[0])};
            /* pinv4 = -p^-1 mod 2^256 (the 2-word squaring reads its low
             * half) */
            mpz_set_ui(rinv, 1);
            mpz_mul_2exp(rinv, rinv, 256);
            MT_CHECK(mpz_invert(want, p, rinv) != 0, "p invertible mod 2^256");
            mpz_sub(want, rinv, want);
            mpz_export(c.pinv4, NULL, -1, 8, 0, 0, want);
            mpz_set_ui(rinv, 1);
            mpz_mul_2exp(rinv, rinv, 64 * n);
            MT_CHECK(mpz_invert(rinv, rinv, p) != 0, "R invertible");
            for (unsigned it = 0; it < 40; it++) {
                mt_operand(a, p, mt_op_pick());
                mpz_mod(a, a, p);
                const unsigned k = 1 + it % 9;
                /* want = a^(2^k) R^(1 - 2^k): k Montgomery squarings */
                mpz_set(want, a);
                for (unsigned i = 0; i < k; i++) {
                    mpz_mul(want, want, want);
                    mpz_mul(want, want, rinv);
                    mpz_mod(want, want, p);
                }
                memset(aw, 0, sizeof aw);
                mpz_export(aw, NULL, -1, 8, 0, 0, a);
                const int alias = it % 2;
                if (alias) {
                    sqrk(&c, aw, aw, k);
                    memcpy(rw, aw, sizeof rw);
                } else
                    sqrk(&c, rw, aw, k);
                mpz_import(got, n, -1, 8, 0, 0, rw);
                MT_CHECK(mpz_cmp(got, want) == 0, "sqr_k %zu words, modulus kind %d, k = %u, alias %d",
                         n, kind, k, alias);
            }
        }
    }
    MT_CHECK(mns_mont_mulx_sqrk(MNS_MONT_SQRK_MAX + 1) == NULL && mns_mont_mulx_sqrk(1) == NULL,
             "sqr_k outside its sizes");
    mpz_clears(p, a, want, got, rinv, NULL);
}

/* The adx kernel's schoolbook rows (mns_mont_mul_rows_adx and
 * mns_mont_sqr_rows_adx, four rows at a time) against GMP's mpn_mul_n and
 * mpn_sqr for 1 to 70 words: every residue of n mod 4 (head rows, the
 * product's entry into its unrolled loop, odd n in the squaring's last
 * pass), operands of all-ones words (the longest carries), sparse words and
 * random words, output words above 2n left alone. */
static void check_rows(void)
{
    const unsigned adx = MNS_CPU_BMI2 | MNS_CPU_ADX;
    if ((mns_cpu_features() & adx) != adx)
        return;
    enum { MAXW = 70 };
    uint64_t a[MAXW], b[MAXW], t[2 * MAXW + 1], want[2 * MAXW];
    for (size_t n = 1; n <= MAXW; n++)
        for (unsigned it = 0; it < 12; it++) {
            for (size_t i = 0; i < n; i++) {
                const unsigned pick = (it + (unsigned)i) % 3;
                a[i] = it % 4 == 0 ? ~(uint64_t)0 : pick == 0 ? mt_u64() >> (mt_u64() % 64) : mt_u64();
                b[i] = it % 4 == 1 ? ~(uint64_t)0 : it % 4 == 0 ? a[i] : mt_u64();
            }
            t[2 * n] = 0x5a5a5a5a5a5a5a5aull;
            mns_mont_mul_rows_adx(t, a, b, n);
            mpn_mul_n((mp_limb_t *)want, (const mp_limb_t *)a, (const mp_limb_t *)b, (mp_size_t)n);
            MT_CHECK(memcmp(t, want, 2 * n * sizeof(uint64_t)) == 0 &&
                         t[2 * n] == 0x5a5a5a5a5a5a5a5aull,
                     "mul rows %zu words, pattern %u", n, it);
            mns_mont_sqr_rows_adx(t, a, n);
            mpn_sqr((mp_limb_t *)want, (const mp_limb_t *)a, (mp_size_t)n);
            MT_CHECK(memcmp(t, want, 2 * n * sizeof(uint64_t)) == 0 &&
                         t[2 * n] == 0x5a5a5a5a5a5a5a5aull,
                     "sqr rows %zu words, pattern %u", n, it);
        }
}

int main(void)
{
    mt_init("test_mont");
    mpz_t p;
    mpz_init(p);
    check_sqrk();
    check_rows();
    const mt_field_opts quick = {.iters = 20, .chain = 300, .powms = 8};
    const mt_field_opts light = {.iters = 3, .chain = 30, .powms = 3};

    /* every size from 2 bits... to 8 words bit by bit near word edges */
    static const size_t sizes[] = {2,   3,   5,   31,  63,  64,  65,  127, 128,  129, 191, 192,
                                   193, 255, 256, 257, 384, 448, 511, 512, 521,  767, 1023, 1024,
                                   1025, 1536, 2048, 3072, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int k = 0; k < MT_MOD_KINDS; k++) {
            if (sizes[i] < 4 && k != MT_MOD_RANDOM && k != MT_MOD_PRIME)
                continue;
            if (k == MT_MOD_PSEUDO_MERSENNE && sizes[i] < 24)
                continue;
            mt_modulus(p, sizes[i], (mt_mod_kind)k);
            mt_field_check("mont", p, &quick);
        }
    static const size_t big[] = {6144, 8192, 8191, 8193};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        for (int k = 0; k < MT_MOD_KINDS; k++) {
            if (k == MT_MOD_PRIME)
                continue; /* nextprime at 8192 bits costs seconds */
            mt_modulus(p, big[i], (mt_mod_kind)k);
            mt_field_check("mont", p, &light);
        }
    /* each kernel by name, whatever the default picks for the size: every
     * word count to 24 (the adx kernel pads p to 8 words, takes n mod 4
     * rows one at a time and, from 16 words, one block of four rows when
     * n / 4 is odd, then blocks of eight entered at every position -n mod 8),
     * then around its block and threshold edges */
    static const char *const kernels[] = {"mont:kernel=gmp-mpn", "mont:kernel=adx",
                                          "mont:kernel=fixed", "mont:kernel=fixed-adx"};
    static const size_t words[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                   14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 29,
                                   30, 31, 33, 64, 65, 97};
    const mt_field_opts kern = {.iters = 10, .chain = 100, .powms = 3, .allow_notsup = 1};
    for (size_t kk = 0; kk < sizeof kernels / sizeof kernels[0]; kk++)
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
            static const mt_mod_kind kinds[] = {MT_MOD_RANDOM, MT_MOD_2K_MINUS_1, MT_MOD_2K_PLUS_1,
                                                MT_MOD_DENSE};
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
                mt_modulus(p, 64 * words[i] - (k == 0 ? 3 : 0), kinds[k]);
                mt_field_check(kernels[kk], p, &kern);
            }
        }
    /* kernel=fixed: every word count to MNS_MONT_FIXED_MAX (9) on every
     * path (portable C), refused above; the default up to there unless
     * MNS_CPU=generic or fixed-adx takes the size */
    for (size_t w = 1; w <= MNS_MONT_MULX_MAX + 1; w++) {
        mt_modulus(p, 64 * w - 1, MT_MOD_RANDOM);
        mns_field *f = NULL;
        mns_status st = mns_field_new(&f, p, "mont:kernel=fixed");
        MT_CHECK(w <= 9 ? st == MNS_OK : st == MNS_ENOTSUP, "mont:kernel=fixed at %zu words: %s", w,
                 st == MNS_OK ? "accepted" : mns_last_error());
        mns_field_free(f);
        f = NULL;
        /* kernel=fixed-adx: 2 to 16 words, on CPUs with BMI2 and ADX */
        const unsigned adx = MNS_CPU_BMI2 | MNS_CPU_ADX;
        const int has_adx = (mns_cpu_features_raw() & adx) == adx;
        st = mns_field_new(&f, p, "mont:kernel=fixed-adx");
        MT_CHECK(has_adx && w >= MNS_MONT_MULX_MIN && w <= MNS_MONT_MULX_MAX ? st == MNS_OK
                                                                            : st == MNS_ENOTSUP,
                 "mont:kernel=fixed-adx at %zu words: %s", w,
                 st == MNS_OK ? "accepted" : mns_last_error());
        mns_field_free(f);
        f = NULL;
        MT_CHECK(mns_field_new(&f, p, "mont") == MNS_OK, "mont: %s", mns_last_error());
        const int native = mns_cpu_features() != 0;
        const int fx_adx = native && (mns_cpu_features() & adx) == adx &&
                           w >= MNS_MONT_MULX_MIN && w <= MNS_MONT_MULX_MAX &&
                           w < MNS_MONT_ADX_MIN_WORDS;
        /* from MNS_MONT_ADX_MIN_WORDS (16) the adx kernel, although the
         * fixed-size pair exists there (mont.h: instruction cache) */
        MT_CHECK((strstr(mns_field_describe(f), "kernel=adx ") != NULL) ==
                     (native && (mns_cpu_features() & adx) == adx && w >= MNS_MONT_ADX_MIN_WORDS),
                 "mont default at %zu words: %s", w, mns_field_describe(f));
        const int fixed = strstr(mns_field_describe(f), "kernel=fixed ") != NULL;
        MT_CHECK(fixed == (w <= 9 && native && !fx_adx), "mont default at %zu words: %s", w,
                 mns_field_describe(f));
        MT_CHECK((strstr(mns_field_describe(f), "kernel=fixed-adx ") != NULL) == fx_adx,
                 "mont default at %zu words: %s", w, mns_field_describe(f));
        mns_field_free(f);
    }
    /* far larger: beyond the stack scratch (heap path) */
    const mt_field_opts huge = {.iters = 1, .chain = 3, .powms = 0};
    mt_modulus(p, 70000, MT_MOD_RANDOM);
    mt_field_check("mont", p, &huge);
    const mt_field_opts huge_k = {.iters = 1, .chain = 3, .powms = 0, .allow_notsup = 1};
    mt_field_check("mont:kernel=adx", p, &huge_k);
    /* "auto" must serve the same moduli */
    mt_modulus(p, 2048, MT_MOD_PRIME);
    mt_field_check("auto", p, &light);
    mt_modulus(p, 192, MT_MOD_RANDOM);
    mt_field_check("auto", p, &light);
    mpz_clear(p);
    return mt_finish();
}
