/* pmns-mp-timing: TSC ticks per modular multiplication for pmns-mp and
 * pmns-mp-ifma (several s), the single-precision pmns backends when present,
 * GMP (mpn_mul_n + a REDC of mpn_addmul_1) and OpenSSL
 * BN_mod_mul_montgomery, all in one process and one run.
 *
 * Method (the papers'): warm-up, then DATASETS random operand pairs; for
 * each, BATCHES batches of CHAIN dependent products x <- x y; a data set
 * counts its fastest batch / CHAIN; the figure is the median over data sets.
 * The machine is shared: figures move by up to 2x between runs, so compare
 * columns of one run. Not a test: nothing is asserted.
 * Usage: pmns-mp-timing [--specs "a;b;c"] [bits ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include <openssl/bn.h>

#include "mns.h"
#include "testutil.h"

#define DATASETS 15
#define BATCHES 30
#define CHAIN 32

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmpd);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}
static inline uint64_t ticks(void)
{
    unsigned aux;
    _mm_lfence();
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
}

/* one timed operation on opaque state */
typedef void (*op_fn)(void *st);
typedef void (*reset_fn)(void *st, const mpz_t p);

static double measure(void *st, op_fn op, reset_fn reset, const mpz_t p)
{
    double per[DATASETS];
    for (int d = 0; d < DATASETS; d++) {
        reset(st, p);
        for (int i = 0; i < (d ? 50 : 1000); i++)
            op(st);
        uint64_t best = UINT64_MAX;
        for (int b = 0; b < BATCHES; b++) {
            uint64_t t0 = ticks();
            for (int i = 0; i < CHAIN; i++)
                op(st);
            uint64_t dt = ticks() - t0;
            best = dt < best ? dt : best;
        }
        per[d] = (double)best / CHAIN;
    }
    return median(per, DATASETS);
}

/* ---- mns_field ---- */
typedef struct { mns_field *f; uint64_t *x, *y; } fst;
static void f_op(void *s) { fst *q = s; mns_field_mul(q->f, q->x, q->x, q->y); }
static void f_reset(void *s, const mpz_t p)
{
    fst *q = s;
    mpz_t a;
    mpz_init(a);
    mpz_urandomm(a, mt_rand, p);
    mns_field_set_mpz(q->f, q->x, a);
    mpz_urandomm(a, mt_rand, p);
    mns_field_set_mpz(q->f, q->y, a);
    mpz_clear(a);
}

/* ---- GMP: mpn_mul_n + REDC by mpn_addmul_1 ---- */
typedef struct { mp_size_t n; mp_limb_t pinv, *p, *t, *x, *y; } gst;
static void g_op(void *s)
{
    gst *g = s;
    mp_limb_t *up = g->t;
    mpn_mul_n(up, g->x, g->y, g->n);
    for (mp_size_t i = 0; i < g->n; i++) {
        mp_limb_t q = up[0] * g->pinv;
        up[0] = mpn_addmul_1(up, g->p, g->n, q);
        up++;
    }
    if (mpn_add_n(g->x, up, up - g->n, g->n))
        mpn_sub_n(g->x, g->x, g->p, g->n);
}
static void g_reset(void *s, const mpz_t p)
{
    gst *g = s;
    mpz_t a;
    mpz_init(a);
    mpz_urandomm(a, mt_rand, p);
    memset(g->x, 0, 8 * (size_t)g->n);
    mpz_export(g->x, NULL, -1, 8, 0, 0, a);
    mpz_urandomm(a, mt_rand, p);
    memset(g->y, 0, 8 * (size_t)g->n);
    mpz_export(g->y, NULL, -1, 8, 0, 0, a);
    mpz_clear(a);
}

/* ---- OpenSSL BN_mod_mul_montgomery ---- */
typedef struct { BIGNUM *x, *y; BN_MONT_CTX *m; BN_CTX *ctx; } ost;
static void o_op(void *s) { ost *o = s; BN_mod_mul_montgomery(o->x, o->x, o->y, o->m, o->ctx); }
static void o_reset(void *s, const mpz_t p)
{
    ost *o = s;
    mpz_t a;
    mpz_init(a);
    char *h;
    mpz_urandomm(a, mt_rand, p);
    h = mpz_get_str(NULL, 16, a);
    BN_hex2bn(&o->x, h);
    free(h);
    mpz_urandomm(a, mt_rand, p);
    h = mpz_get_str(NULL, 16, a);
    BN_hex2bn(&o->y, h);
    free(h);
    BN_to_montgomery(o->x, o->x, o->m, o->ctx);
    BN_to_montgomery(o->y, o->y, o->m, o->ctx);
    mpz_clear(a);
}

static double time_spec(const mpz_t p, const char *spec, char *desc, size_t dl)
{
    fst q;
    if (mns_field_new(&q.f, p, spec) != MNS_OK) {
        snprintf(desc, dl, "%s", mns_last_error());
        return -1;
    }
    snprintf(desc, dl, "%s", mns_field_describe(q.f));
    size_t L = mns_field_limbs(q.f);
    q.x = calloc(L, 8);
    q.y = calloc(L, 8);
    double t = measure(&q, f_op, f_reset, p);
    free(q.x);
    free(q.y);
    mns_field_free(q.f);
    return t;
}

int main(int argc, char **argv)
{
    mt_init("pmns-mp-timing");
    const char *specs = "pmns-mp:s=2;pmns-mp:s=3;pmns-mp:s=4;pmns-mp-ifma:s=2;pmns-mp-ifma:s=3;"
                        "pmns-mp-ifma:s=4;pmns;pmns-ifma";
    size_t sizes[32], ns = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--specs") == 0 && i + 1 < argc)
            specs = argv[++i];
        else if (ns < 32)
            sizes[ns++] = (size_t)strtoul(argv[i], NULL, 10);
    }
    if (ns == 0) {
        static const size_t d[] = {1024, 2048, 3072, 4096, 6144, 8192};
        for (; ns < 6; ns++)
            sizes[ns] = d[ns];
    }
    mpz_t p;
    mpz_init(p);
    for (size_t z = 0; z < ns; z++) {
        mt_modulus(p, sizes[z], MT_MOD_PRIME);
        printf("== %zu bits (TSC ticks per modmul, median of per-batch minima)\n", sizes[z]);
        gst g;
        g.n = (mp_size_t)mpz_size(p);
        g.p = calloc((size_t)g.n, 8);
        g.t = calloc(2 * (size_t)g.n, 8);
        g.x = calloc((size_t)g.n, 8);
        g.y = calloc((size_t)g.n, 8);
        mpz_export(g.p, NULL, -1, 8, 0, 0, p);
        mp_limb_t inv = g.p[0];
        for (int i = 0; i < 6; i++)
            inv *= 2 - g.p[0] * inv;
        g.pinv = -inv;
        double tg = measure(&g, g_op, g_reset, p);
        printf("  %-28s %9.0f\n", "gmp mpn_mul_n+redc", tg);
        free(g.p), free(g.t), free(g.x), free(g.y);
        ost o = {BN_new(), BN_new(), BN_MONT_CTX_new(), BN_CTX_new()};
        BIGNUM *bp = NULL;
        char *h = mpz_get_str(NULL, 16, p);
        BN_hex2bn(&bp, h);
        free(h);
        BN_MONT_CTX_set(o.m, bp, o.ctx);
        double to = measure(&o, o_op, o_reset, p);
        printf("  %-28s %9.0f\n", "openssl BN_mod_mul_mont", to);
        BN_free(o.x), BN_free(o.y), BN_free(bp), BN_MONT_CTX_free(o.m), BN_CTX_free(o.ctx);
        fflush(stdout);
        char *list = strdup(specs), *save = NULL;
        for (char *sp = strtok_r(list, ";", &save); sp; sp = strtok_r(NULL, ";", &save)) {
            char desc[512];
            double t0 = (double)ticks();
            double t = time_spec(p, sp, desc, sizeof desc);
            (void)t0;
            if (t < 0)
                printf("  %-28s   (n/a: %s)\n", sp, desc);
            else
                printf("  %-28s %9.0f  gmp/x %.2f ossl/x %.2f  [%s]\n", sp, t, tg / t, to / t, desc);
            fflush(stdout);
        }
        free(list);
    }
    mpz_clear(p);
    return 0;
}
