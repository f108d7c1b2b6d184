/* TSC ticks per modular multiplication: the rns and rns-ifma backends (and
 * mont) through mns_field_mul, and GMP's mpn_mul_n followed by a Montgomery
 * REDC made of mpn_addmul_1 (the paper's "GMP" line), in the same process.
 *
 * Method (the paper's, IV.C): a warm-up, then for each of DATASETS random
 * operand pairs, BATCHES batches of CHAIN dependent multiplications x <- x y;
 * a data set's figure is its fastest batch divided by CHAIN, the result the
 * median over the data sets. rdtsc counts at the TSC rate (2.3 GHz here),
 * whatever the core clock. Usage: rns-timing [bits ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "mns.h"
#include "testutil.h"

#define DATASETS 25
#define BATCHES 40
#define CHAIN 32
#define WARMUP 2000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline uint64_t ticks(void)
{
    unsigned aux;
    _mm_lfence();
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
}

/* GMP Montgomery: t = a b (mpn_mul_n), then n steps q = t_i (-p^-1),
 * t += q p B^i by mpn_addmul_1, the carries kept aside and added at the end
 * (the shape of GMP's own mpn_redc_1). Result < 2p, one masked-free but
 * rare final subtraction: a and b stay below 2^(64 n). */
typedef struct gmp_mont {
    mp_size_t n;
    mp_limb_t pinv;
    mp_limb_t *p, *t;
} gmp_mont;

static void gmp_mont_mul(const gmp_mont *g, mp_limb_t *r, const mp_limb_t *a, const mp_limb_t *b)
{
    const mp_size_t n = g->n;
    mp_limb_t *up = g->t;
    mpn_mul_n(up, a, b, n);
    for (mp_size_t i = 0; i < n; i++) {
        mp_limb_t q = up[0] * g->pinv;
        up[0] = mpn_addmul_1(up, g->p, n, q);
        up++;
    }
    if (mpn_add_n(r, up, up - n, n))
        mpn_sub_n(r, r, g->p, n);
}

static double median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static double time_gmp(const mpz_t p)
{
    gmp_mont g;
    g.n = (mp_size_t)mpz_size(p);
    g.p = calloc((size_t)g.n, 8);
    g.t = calloc(2 * (size_t)g.n, 8);
    mp_limb_t *x = calloc((size_t)g.n, 8), *y = calloc((size_t)g.n, 8);
    mpz_export(g.p, NULL, -1, 8, 0, 0, p);
    mp_limb_t inv = g.p[0];
    for (int i = 0; i < 6; i++)
        inv *= 2 - g.p[0] * inv;
    g.pinv = -inv;
    double per[DATASETS];
    mpz_t a;
    mpz_init(a);
    for (int d = 0; d < DATASETS; d++) {
        mpz_urandomm(a, mt_rand, p);
        memset(x, 0, 8 * (size_t)g.n);
        mpz_export(x, NULL, -1, 8, 0, 0, a);
        mpz_urandomm(a, mt_rand, p);
        memset(y, 0, 8 * (size_t)g.n);
        mpz_export(y, NULL, -1, 8, 0, 0, a);
        for (int i = 0; i < (d ? 100 : WARMUP); i++)
            gmp_mont_mul(&g, x, x, y);
        uint64_t best = UINT64_MAX;
        for (int b = 0; b < BATCHES; b++) {
            uint64_t t0 = ticks();
            for (int i = 0; i < CHAIN; i++)
                gmp_mont_mul(&g, x, x, y);
            uint64_t dt = ticks() - t0;
            best = dt < best ? dt : best;
        }
        per[d] = (double)best / CHAIN;
    }
    mpz_clear(a);
    free(g.p);
    free(g.t);
    free(x);
    free(y);
    return median(per, DATASETS);
}

/* ticks per mns_field_mul, or -1 if the backend refuses p */
static double time_field(const mpz_t p, const char *spec, char *desc, size_t desclen)
{
    mns_field *f = NULL;
    if (mns_field_new(&f, p, spec) != MNS_OK) {
        snprintf(desc, desclen, "%s: %s", spec, mns_last_error());
        return -1;
    }
    snprintf(desc, desclen, "%s", mns_field_describe(f));
    size_t L = mns_field_limbs(f);
    uint64_t *x = calloc(L, 8), *y = calloc(L, 8);
    double per[DATASETS];
    mpz_t a;
    mpz_init(a);
    for (int d = 0; d < DATASETS; d++) {
        mpz_urandomm(a, mt_rand, p);
        mns_field_set_mpz(f, x, a);
        mpz_urandomm(a, mt_rand, p);
        mns_field_set_mpz(f, y, a);
        for (int i = 0; i < (d ? 100 : WARMUP); i++)
            mns_field_mul(f, x, x, y);
        uint64_t best = UINT64_MAX;
        for (int b = 0; b < BATCHES; b++) {
            uint64_t t0 = ticks();
            for (int i = 0; i < CHAIN; i++)
                mns_field_mul(f, x, x, y);
            uint64_t dt = ticks() - t0;
            best = dt < best ? dt : best;
        }
        per[d] = (double)best / CHAIN;
    }
    mpz_clear(a);
    free(x);
    free(y);
    mns_field_free(f);
    return median(per, DATASETS);
}

int main(int argc, char **argv)
{
    static const size_t dflt[] = {401, 807, 1214, 1621, 2029, 2436, 2844, 3251, 2048, 3072, 4096};
    /* the paper's RNS AVX-512 figures (TSC ticks per modmul), where given */
    static const struct { size_t bits; int ticks; } paper[] = {
        {807, 1026}, {1214, 1900}, {1621, 3162}, {2029, 4762}, {2436, 6720}};
    mt_init("rns-timing");
    size_t sizes[64], ns = 0;
    for (int i = 1; i < argc && ns < 64; i++)
        sizes[ns++] = strtoul(argv[i], NULL, 10);
    if (!ns)
        for (; ns < sizeof dflt / sizeof dflt[0]; ns++)
            sizes[ns] = dflt[ns];
    mpz_t p;
    mpz_init(p);
    printf("%6s %9s %9s %9s %9s %10s %8s %11s %11s  %s\n", "bits", "rns", "rns-ifma", "mont",
           "gmp", "pmns-ifma", "paper", "gmp/ifma", "paper/ifma", "parameters");
    for (size_t s = 0; s < ns; s++) {
        mt_modulus(p, sizes[s], MT_MOD_PRIME);
        char d1[300], d2[300], d3[300];
        double r1 = time_field(p, "rns", d1, sizeof d1);
        double r2 = time_field(p, "rns-ifma", d2, sizeof d2);
        double r3 = time_field(p, "mont", d3, sizeof d3);
        /* PMNS at the same size, when that backend serves p (-1 otherwise) */
        char d4[300];
        double r4 = time_field(p, "pmns-ifma", d4, sizeof d4);
        double g = time_gmp(p);
        int pt = 0;
        for (size_t i = 0; i < sizeof paper / sizeof paper[0]; i++)
            if (paper[i].bits == sizes[s])
                pt = paper[i].ticks;
        printf("%6zu %9.0f %9.0f %9.0f %9.0f %10.0f %8d %11.2f %11.2f  %s | %s | %s\n", sizes[s],
               r1, r2, r3, g, r4, pt, r2 > 0 ? g / r2 : 0.0, r2 > 0 && pt ? pt / r2 : 0.0, d1, d2,
               d4);
    }
    mpz_clear(p);
    return 0;
}
