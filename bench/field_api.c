/* mns-bench --field-api: the constant-time element API (docs/field-api.md)
 * against GMP in the same process and run. For each size: mns_field_inv and
 * inv_var against GMP's mpn_sec_invert (constant time) and mpz_invert
 * (variable time), the inverse by exponentiation a^(p-2) on the same field
 * (the alternative safegcd has to beat), sqrt, legendre, set_bytes and
 * get_bytes. Figures are TSC ticks, the median over data sets of per-batch
 * minima (timing.h), and the ratio to GMP. The core clock's rate against the
 * TSC is measured too (a chain of dependent additions: one per core cycle),
 * so a figure can be compared with one given in core cycles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>
#include <mns.h>

#include "field_api.h"
#include "timing.h"

#define SETS 15

typedef struct fa_arg {
    const mns_field *f;
    uint64_t *r, *a;
    mpz_srcptr e;
    unsigned char *buf;
    size_t len;
    /* GMP */
    mp_limb_t *gr, *ga, *gm, *gtp;
    mp_size_t n;
    mp_bitcnt_t nb; /* bits(a) + bits(p) bound of mpn_sec_invert */
    mpz_ptr zr, za, zp;
} fa_arg;

static void c_inv(void *p) { fa_arg *x = p; mns_field_inv(x->f, x->r, x->a); }
static void c_inv_var(void *p) { fa_arg *x = p; mns_field_inv_var(x->f, x->r, x->a); }
static void c_fermat(void *p) { fa_arg *x = p; mns_field_powm(x->f, x->r, x->a, x->e); }
static void c_sqrt(void *p) { fa_arg *x = p; mns_field_sqrt(x->f, x->r, x->a); }
static void c_legendre(void *p) { fa_arg *x = p; (void)mns_field_legendre(x->f, x->a); }
static void c_set_bytes(void *p)
{
    fa_arg *x = p;
    mns_field_set_bytes(x->f, x->r, x->buf, x->len, MNS_BIG_ENDIAN);
}
static void c_get_bytes(void *p)
{
    fa_arg *x = p;
    mns_field_get_bytes(x->f, x->buf, x->len, x->a, MNS_BIG_ENDIAN);
}
static void c_mul(void *p) { fa_arg *x = p; mns_field_mul(x->f, x->r, x->a, x->a); }
static void g_sec_invert(void *p)
{
    fa_arg *x = p;
    /* mpn_sec_invert destroys its input: a fresh copy each call */
    memcpy(x->gr + x->n, x->ga, x->n * sizeof(mp_limb_t));
    mpn_sec_invert(x->gr, x->gr + x->n, x->gm, x->n, x->nb, x->gtp);
}
static void g_copy(void *p)
{
    fa_arg *x = p;
    memcpy(x->gr + x->n, x->ga, x->n * sizeof(mp_limb_t));
}
static void g_invert(void *p) { fa_arg *x = p; mpz_invert(x->zr, x->za, x->zp); }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median_ticks(mb_call_fn fn, fa_arg *x, uint64_t ovh)
{
    uint64_t m[SETS];
    mb_warmup(fn, x, 20, 50000000);
    for (int s = 0; s < SETS; s++)
        m[s] = mb_net(mb_batch_min(fn, x, 30), ovh);
    qsort(m, SETS, sizeof m[0], cmp_u64);
    return m[SETS / 2];
}

/* core cycles per TSC tick: 2^20 dependent additions take 2^20 core cycles */
static double core_per_tick(void)
{
    double best = 0;
    for (int k = 0; k < 5; k++) {
        uint64_t x = 1, t0 = mb_tsc_start();
        for (int i = 0; i < (1 << 20); i++)
            __asm__ volatile("add $1, %0" : "+r"(x));
        uint64_t t = mb_tsc_stop() - t0;
        double r = (double)(1 << 20) / (double)t;
        best = r > best ? r : best;
    }
    return best;
}

static void one_size(const char *label, const mpz_t p, const char *spec, uint64_t ovh,
                     double cpt, gmp_randstate_t rs)
{
    mns_field *f;
    if (mns_field_new(&f, p, spec) != MNS_OK) {
        printf("  %-16s %-6s skip: %s\n", label, spec, mns_last_error());
        return;
    }
    const size_t L = mns_field_limbs(f), n = mpz_size(p);
    fa_arg x = {.f = f, .n = (mp_size_t)n, .nb = 2 * mpz_sizeinbase(p, 2)};
    x.r = calloc(2 * L, sizeof(uint64_t));
    x.a = x.r + L;
    mpz_t a, e, zr, za;
    mpz_inits(a, e, zr, za, NULL);
    mpz_urandomm(a, rs, p);
    mpz_mul(a, a, a); /* a square, so sqrt does its whole work */
    mpz_mod(a, a, p);
    mns_field_set_mpz(f, x.a, a);
    mpz_sub_ui(e, p, 2);
    x.e = e;
    x.len = (mpz_sizeinbase(p, 2) + 7) / 8;
    x.buf = calloc(x.len, 1);
    mpz_export(x.buf, NULL, 1, 1, 1, 0, a);
    x.gr = calloc(2 * n, sizeof(mp_limb_t));
    x.ga = calloc(n, sizeof(mp_limb_t));
    x.gm = (mp_limb_t *)mpz_limbs_read(p);
    x.gtp = calloc((size_t)mpn_sec_invert_itch((mp_size_t)n), sizeof(mp_limb_t));
    mpz_export(x.ga, NULL, -1, sizeof(mp_limb_t), 0, 0, a);
    mpz_set(za, a);
    x.zr = zr, x.za = za, x.zp = (mpz_ptr)p;

    const uint64_t inv = median_ticks(c_inv, &x, ovh), inv_var = median_ticks(c_inv_var, &x, ovh);
    const uint64_t fermat = median_ticks(c_fermat, &x, ovh), sqr = median_ticks(c_sqrt, &x, ovh);
    const uint64_t leg = median_ticks(c_legendre, &x, ovh), mul = median_ticks(c_mul, &x, ovh);
    const uint64_t sb = median_ticks(c_set_bytes, &x, ovh), gb = median_ticks(c_get_bytes, &x, ovh);
    const uint64_t copy = median_ticks(g_copy, &x, ovh);
    uint64_t sec = median_ticks(g_sec_invert, &x, ovh);
    sec = sec > copy ? sec - copy : 1;
    const uint64_t ginv = median_ticks(g_invert, &x, ovh);
    printf("  %-16s %-6s inv %7lu (%6.0f core cycles) mpn_sec_invert %7lu: %.2fx | a^(p-2) %7lu: "
           "%.2fx | inv_var %6lu mpz_invert %6lu: %.2fx | sqrt %7lu legendre %7lu mul %5lu "
           "set_bytes %5lu get_bytes %5lu\n",
           label, spec, (unsigned long)inv, inv * cpt, (unsigned long)sec,
           (double)sec / (double)inv, (unsigned long)fermat, (double)fermat / (double)inv,
           (unsigned long)inv_var, (unsigned long)ginv, (double)ginv / (double)inv_var,
           (unsigned long)sqr, (unsigned long)leg, (unsigned long)mul, (unsigned long)sb,
           (unsigned long)gb);
    fflush(stdout);
    mpz_clears(a, e, zr, za, NULL);
    free(x.r);
    free(x.buf);
    free(x.gr);
    free(x.ga);
    free(x.gtp);
    mns_field_free(f);
}

int mb_field_api_main(int argc, char **argv)
{
    const char *specs[8] = {"auto", "mont"};
    int nspecs = 2;
    if (argc > 1) { /* mns-bench --field-api SPEC... */
        nspecs = 0;
        for (int i = 1; i < argc && nspecs < 8; i++)
            specs[nspecs++] = argv[i];
    }
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 4242);
    const uint64_t ovh = mb_overhead();
    const double cpt = core_per_tick();
    printf("mns-bench --field-api: TSC ticks (median of %d batch minima); core clock %.2f cycles "
           "per tick; ratios are GMP / mns (above 1: mns faster), %s\n",
           SETS, cpt, gmp_version);
    mpz_t p;
    mpz_init(p);
    static const unsigned sizes[] = {256, 384, 521};
    for (int s = 0; s < nspecs; s++) {
        mpz_ui_pow_ui(p, 2, 255);
        mpz_sub_ui(p, p, 19);
        one_size("2^255-19", p, specs[s], ovh, cpt, rs);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            char label[32];
            mpz_urandomb(p, rs, sizes[i]);
            mpz_setbit(p, sizes[i] - 1);
            mpz_nextprime(p, p);
            snprintf(label, sizeof label, "random %u-bit", sizes[i]);
            one_size(label, p, specs[s], ovh, cpt, rs);
        }
    }
    mpz_clear(p);
    gmp_randclear(rs);
    return 0;
}
