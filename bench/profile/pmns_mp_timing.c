/* pmns-mp-timing: TSC ticks per modular multiplication of pmns-mp and
 * pmns-mp-ifma (any specs), the x2 kernels (two products in one stream, per
 * product), and modular exponentiation, beside GMP (mpn_mul_n + a REDC of
 * mpn_addmul_1) and OpenSSL (BN_mod_mul_montgomery, BN_mod_exp_mont_consttime
 * and, at 1024/1536/2048 bits where OpenSSL has AVX-512 IFMA code,
 * BN_mod_exp_mont_consttime_x2 per exponentiation), all in one process.
 *
 * Method (the papers'): warm-up, then data sets of random operands; for
 * each, batches of dependent operations; a data set counts its fastest batch;
 * the figure is the median over data sets. The implementations are
 * interleaved data set by data set, so a change of load hits them alike:
 * compare columns of one run. The primes are mns-bench's (bench/primes.c,
 * seed 1); the x2 pair adds the seed-2 prime of the same size with the same
 * (n, s). Not a test: nothing is asserted.
 * --sqr adds each spec's squaring.
 * Usage: pmns-mp-timing [--specs "a;b;c"] [--exp] [--sqr] [--sets N] [bits ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include <openssl/bn.h>

#include "mns.h"
#include "mns_pmns_mp.h"
#include "field/field_internal.h"
#include "primes.h"
#include "testutil.h"

#define MAXW 20

static int cmpd(const void *a, const void *b)
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

/* one timed operation on opaque state; per = operations it counts for */
typedef struct impl {
    char name[200];
    void *st;
    void (*op)(void *st);
    void (*reset)(void *st);
    double per;
    double res[64];
} impl;

/* interleaved: per data set, each implementation's best of `batches`
 * batches of `chain` operations; median over `sets` data sets */
static void measure_all(impl *im, int ni, int sets, int batches, int chain, int warm)
{
    for (int w = 0; w < ni; w++) {
        im[w].reset(im[w].st);
        for (int i = 0; i < warm; i++)
            im[w].op(im[w].st);
    }
    for (int d = 0; d < sets; d++)
        for (int w = 0; w < ni; w++) {
            im[w].reset(im[w].st);
            im[w].op(im[w].st);
            uint64_t best = UINT64_MAX;
            for (int b = 0; b < batches; b++) {
                uint64_t t0 = ticks();
                for (int i = 0; i < chain; i++)
                    im[w].op(im[w].st);
                uint64_t dt = ticks() - t0;
                best = dt < best ? dt : best;
            }
            im[w].res[d] = (double)best / chain / im[w].per;
        }
    for (int w = 0; w < ni; w++)
        qsort(im[w].res, (size_t)sets, sizeof(double), cmpd);
}
static double med(const impl *x, int sets) { return x->res[sets / 2]; }

static void rand_mpz(mpz_t a, const mpz_t p) { mpz_urandomm(a, mt_rand, p); }

/* ---- mns_field: mul chain, or powm ---- */
typedef struct {
    mns_field *f;
    uint64_t *x, *y;
    mpz_t p, e;
} fst;
static void f_mul(void *s)
{
    fst *q = s;
    mns_field_mul(q->f, q->x, q->x, q->y);
}
static void f_sqr(void *s)
{
    fst *q = s;
    mns_field_sqr(q->f, q->x, q->x);
}
static void f_exp(void *s)
{
    fst *q = s;
    mns_field_powm(q->f, q->x, q->y, q->e);
}
static void f_reset(void *s)
{
    fst *q = s;
    mpz_t a;
    mpz_init(a);
    rand_mpz(a, q->p);
    mns_field_set_mpz(q->f, q->x, a);
    rand_mpz(a, q->p);
    mns_field_set_mpz(q->f, q->y, a);
    rand_mpz(q->e, q->p);
    mpz_setbit(q->e, mpz_sizeinbase(q->p, 2) - 1); /* full length, as OpenSSL's below */
    mpz_clear(a);
}

/* ---- x2 exponentiation: two fields (two primes of one (n, s)), one
 * mns_field_powm_x2 per call (src/exp's mns_exp_powm_x2 over the backend's
 * x2 kernels), full-size exponents ---- */
typedef struct {
    mns_field *f[2];
    uint64_t *x[2], *y[2], *sc[2];
    mpz_t p[2], e[2];
} xest;
static void xe_exp(void *s)
{
    xest *q = s;
    mns_field_powm_x2(q->f[0], q->x[0], q->y[0], q->e[0], q->f[1], q->x[1], q->y[1], q->e[1],
                      q->sc[0], q->sc[1]);
}
static void xe_reset(void *s)
{
    xest *q = s;
    mpz_t a;
    mpz_init(a);
    for (int w = 0; w < 2; w++) {
        rand_mpz(a, q->p[w]);
        mns_field_set_mpz(q->f[w], q->x[w], a);
        rand_mpz(a, q->p[w]);
        mns_field_set_mpz(q->f[w], q->y[w], a);
        rand_mpz(q->e[w], q->p[w]);
        mpz_setbit(q->e[w], mpz_sizeinbase(q->p[w], 2) - 1); /* full length */
    }
    mpz_clear(a);
}
/* fields "spec:s=S,n=N" (the shape of the first spec on p) on p0 and the
 * first prime of seeds 2, 3, ... that admits it; 0 if none */
static int xe_init(xest *q, const mpz_t p0, unsigned bits, const char *spec, const char *desc)
{
    int n, s;
    char sp[256];
    const char *pn = strstr(desc, " n="), *ps = strstr(desc, " s=");
    if (!pn || !ps || sscanf(pn, " n=%d", &n) != 1 || sscanf(ps, " s=%d", &s) != 1)
        return 0;
    snprintf(sp, sizeof sp, "%s%cs=%d,n=%d", spec, strchr(spec, ':') ? ',' : ':', s, n);
    mpz_inits(q->p[0], q->p[1], q->e[0], q->e[1], NULL);
    mpz_set(q->p[0], p0);
    q->f[1] = NULL;
    if (mns_field_new(&q->f[0], p0, sp) == MNS_OK)
        for (unsigned long seed = MB_DEFAULT_SEED + 1; seed < MB_DEFAULT_SEED + 8; seed++) {
            mb_prime(q->p[1], bits, seed);
            if (mns_field_new(&q->f[1], q->p[1], sp) == MNS_OK)
                break;
            q->f[1] = NULL;
        }
    if (!q->f[1] || mns_field_x2(q->f[0], q->f[1]) != 2) {
        printf("  powm_x2 %s: no second prime with the x2 kernels in 7 seeds\n", sp);
        if (q->f[1])
            mns_field_free(q->f[1]);
        mns_field_free(q->f[0]);
        mpz_clears(q->p[0], q->p[1], q->e[0], q->e[1], NULL);
        return 0;
    }
    for (int w = 0; w < 2; w++) {
        size_t L = mns_field_limbs(q->f[w]);
        q->x[w] = calloc(L, 8);
        q->y[w] = calloc(L, 8);
        q->sc[w] = calloc(mns_field_powm_x2_lane_words(q->f[w], q->f[1 - w], bits), 8);
    }
    return 1;
}
static void xe_free(xest *q)
{
    for (int w = 0; w < 2; w++) {
        free(q->x[w]), free(q->y[w]), free(q->sc[w]);
        mns_field_free(q->f[w]);
    }
    mpz_clears(q->p[0], q->p[1], q->e[0], q->e[1], NULL);
}

/* ---- x2: two contexts of one (n, s), one product each per call ---- */
typedef struct {
    mns_pmns_mp *c[2];
    uint64_t *x[2], *y[2];
    mpz_t p[2];
} xst;
static void x2_mul(void *s)
{
    xst *q = s;
    mns_pmns_mp_mul_x2(q->c[0], q->c[1], q->x[0], q->x[0], q->y[0], q->x[1], q->x[1], q->y[1]);
}
static void x2_sqr(void *s)
{
    xst *q = s;
    mns_pmns_mp_sqr_x2(q->c[0], q->c[1], q->x[0], q->x[0], q->x[1], q->x[1]);
}
static void x1_mul(void *s) /* the same pair, two single calls */
{
    xst *q = s;
    mns_pmns_mp_mul(q->c[0], q->x[0], q->x[0], q->y[0]);
    mns_pmns_mp_mul(q->c[1], q->x[1], q->x[1], q->y[1]);
}
static void x1_sqr(void *s) /* the same pair, two single squarings */
{
    xst *q = s;
    mns_pmns_mp_sqr(q->c[0], q->x[0], q->x[0]);
    mns_pmns_mp_sqr(q->c[1], q->x[1], q->x[1]);
}
static void x2_reset(void *s)
{
    xst *q = s;
    mpz_t a;
    mpz_init(a);
    for (int w = 0; w < 2; w++) {
        rand_mpz(a, q->p[w]);
        mns_pmns_mp_set_mpz_var(q->c[w], q->x[w], a);
        rand_mpz(a, q->p[w]);
        mns_pmns_mp_set_mpz_var(q->c[w], q->y[w], a);
    }
    mpz_clear(a);
}

/* ---- GMP: mpn_mul_n + REDC by mpn_addmul_1 ---- */
typedef struct {
    mp_size_t n;
    mp_limb_t pinv, *p, *t, *x, *y;
    mpz_t pz;
} gst;
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
static void g_reset(void *s)
{
    gst *g = s;
    mpz_t a;
    mpz_init(a);
    rand_mpz(a, g->pz);
    memset(g->x, 0, 8 * (size_t)g->n);
    mpz_export(g->x, NULL, -1, 8, 0, 0, a);
    rand_mpz(a, g->pz);
    memset(g->y, 0, 8 * (size_t)g->n);
    mpz_export(g->y, NULL, -1, 8, 0, 0, a);
    mpz_clear(a);
}

/* ---- OpenSSL ---- */
typedef struct {
    BIGNUM *x, *y, *x1, *y1, *e, *e1, *p, *p1;
    BN_MONT_CTX *m, *m1;
    BN_CTX *ctx;
    mpz_t pz, pz1;
} ost;
static void o_mul(void *s)
{
    ost *o = s;
    BN_mod_mul_montgomery(o->x, o->x, o->y, o->m, o->ctx);
}
static void o_exp(void *s)
{
    ost *o = s;
    BN_mod_exp_mont_consttime(o->x, o->y, o->e, o->p, o->ctx, o->m);
}
static void o_exp_x2(void *s)
{
    ost *o = s;
    BN_mod_exp_mont_consttime_x2(o->x, o->y, o->e, o->p, o->m, o->x1, o->y1, o->e1, o->p1, o->m1,
                                 o->ctx);
}
static void bn_set(BIGNUM **b, const mpz_t a)
{
    char *h = mpz_get_str(NULL, 16, a);
    BN_hex2bn(b, h);
    free(h);
}
static void o_reset(void *s)
{
    ost *o = s;
    mpz_t a;
    mpz_init(a);
    rand_mpz(a, o->pz);
    bn_set(&o->x, a);
    rand_mpz(a, o->pz);
    bn_set(&o->y, a);
    rand_mpz(a, o->pz);
    mpz_setbit(a, mpz_sizeinbase(o->pz, 2) - 1); /* full-length exponents */
    bn_set(&o->e, a);
    rand_mpz(a, o->pz1);
    bn_set(&o->x1, a);
    rand_mpz(a, o->pz1);
    bn_set(&o->y1, a);
    rand_mpz(a, o->pz1);
    mpz_setbit(a, mpz_sizeinbase(o->pz1, 2) - 1);
    bn_set(&o->e1, a);
    BN_to_montgomery(o->x, o->x, o->m, o->ctx);
    BN_to_montgomery(o->y, o->y, o->m, o->ctx);
    mpz_clear(a);
}

/* "n=%d s=%d" of a pmns-mp description */
static int parse_ns(const char *d, int *n, int *s)
{
    const char *pn = strstr(d, " n="), *ps = strstr(d, " s=");
    return pn && ps && sscanf(pn, " n=%d", n) == 1 && sscanf(ps, " s=%d", s) == 1;
}

static int add_field(impl *im, int *ni, fst *q, const mpz_t p, const char *spec, int exp)
{
    if (mns_field_new(&q->f, p, spec) != MNS_OK) {
        printf("  %-28s   (n/a: %s)\n", spec, mns_last_error());
        return 0;
    }
    mpz_init_set(q->p, p);
    mpz_init(q->e);
    size_t L = mns_field_limbs(q->f);
    q->x = calloc(L, 8);
    q->y = calloc(L, 8);
    impl *w = &im[(*ni)++];
    snprintf(w->name, sizeof w->name, "%s%s  [%s]", exp == 1 ? "powm " : exp == 2 ? "sqr " : "",
             spec, mns_field_describe(q->f));
    w->st = q;
    w->op = exp == 1 ? f_exp : exp == 2 ? f_sqr : f_mul;
    w->reset = f_reset;
    w->per = 1;
    return 1;
}

static void drop_field(fst *q)
{
    free(q->x);
    free(q->y);
    mns_field_free(q->f);
    mpz_clears(q->p, q->e, NULL);
}

int main(int argc, char **argv)
{
    mt_init("pmns-mp-timing");
    const char *specs = "pmns-mp-ifma;pmns-mp-ifma:s=2;pmns-mp-ifma:s=3;pmns-mp-ifma:s=4;"
                        "pmns-mp-ifma:s=5;pmns-mp-ifma:s=6;pmns-mp;pmns-ifma";
    int exp = 0, sqr = 0, sets = 15;
    unsigned sizes[32];
    int ns = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--specs") == 0 && i + 1 < argc)
            specs = argv[++i];
        else if (strcmp(argv[i], "--exp") == 0)
            exp = 1;
        else if (strcmp(argv[i], "--sqr") == 0)
            sqr = 1;
        else if (strcmp(argv[i], "--sets") == 0 && i + 1 < argc)
            sets = atoi(argv[++i]);
        else {
            char *end;
            unsigned long b = strtoul(argv[i], &end, 10);
            if (*end || b < 64 || b > 16384 || ns == 32) {
                fprintf(stderr, "usage: pmns-mp-timing [--specs \"a;b;...\"] [--exp | --sqr] "
                                "[--sets N] [bits ...] (bits 64..16384, up to 32 sizes)\n");
                return strcmp(argv[i], "--help") == 0 ? 0 : 2;
            }
            sizes[ns++] = (unsigned)b;
        }
    }
    if (sets < 1 || sets > 64)
        sets = 15;
    if (ns == 0) {
        static const unsigned d[] = {1024, 2048, 3072, 4096, 6144, 8192};
        for (; ns < 6; ns++)
            sizes[ns] = d[ns];
    }
    mpz_t p, p1;
    mpz_inits(p, p1, NULL);
    for (int z = 0; z < ns; z++) {
        mb_prime(p, sizes[z], MB_DEFAULT_SEED);
        int with_x2 = sizes[z] <= 4096; /* other seeds' primes: generated, seconds */
        if (with_x2)
            mb_prime(p1, sizes[z], MB_DEFAULT_SEED + 1); /* OpenSSL's x2 */
        else
            mpz_set(p1, p);
        impl im[MAXW];
        int ni = 0;
        gst g;
        g.n = (mp_size_t)mpz_size(p);
        g.p = calloc((size_t)g.n, 8);
        g.t = calloc(2 * (size_t)g.n, 8);
        g.x = calloc((size_t)g.n, 8);
        g.y = calloc((size_t)g.n, 8);
        mpz_init_set(g.pz, p);
        mpz_export(g.p, NULL, -1, 8, 0, 0, p);
        mp_limb_t inv = g.p[0];
        for (int i = 0; i < 6; i++)
            inv *= 2 - g.p[0] * inv;
        g.pinv = -inv;
        im[ni++] = (impl){.name = "gmp mpn_mul_n+redc", .st = &g, .op = g_op, .reset = g_reset,
                          .per = 1};
        ost o = {0};
        o.m = BN_MONT_CTX_new();
        o.m1 = BN_MONT_CTX_new();
        o.ctx = BN_CTX_new();
        mpz_init_set(o.pz, p);
        mpz_init_set(o.pz1, p1);
        bn_set(&o.p, p);
        bn_set(&o.p1, p1);
        BN_MONT_CTX_set(o.m, o.p, o.ctx);
        BN_MONT_CTX_set(o.m1, o.p1, o.ctx);
        im[ni++] = (impl){.name = "openssl BN_mod_mul_montgomery", .st = &o, .op = o_mul,
                          .reset = o_reset, .per = 1};
        /* the specs, and x2 for the pmns-mp-ifma ones */
        fst fs[MAXW];
        xst xs[MAXW];
        int nf = 0, nx = 0;
        char *list = strdup(specs), *save = NULL;
        for (char *sp = strtok_r(list, ";", &save); sp && ni < MAXW - 2; sp = strtok_r(NULL, ";", &save)) {
            if (!add_field(im, &ni, &fs[nf], p, sp, 0))
                continue;
            const char *d = mns_field_describe(fs[nf].f);
            if (sqr && ni < MAXW) { /* the same field's squaring */
                im[ni] = im[ni - 1];
                im[ni].op = f_sqr;
                snprintf(im[ni].name, sizeof im[ni].name, "sqr %s  [%s]", sp, d);
                ni++;
            }
            nf++;
            int n, s;
            if (!with_x2 || strncmp(sp, "pmns-mp-ifma", 12) != 0 || !parse_ns(d, &n, &s) ||
                ni >= MAXW - 2)
                continue;
            xst *x = &xs[nx];
            mpz_init_set(x->p[0], p);
            mpz_init(x->p[1]);
            /* the second prime: the first of seeds 2, 3, ... that admits
             * this (n, s) (an RSA key's primes need one shape too) */
            x->c[1] = NULL;
            if (mns_pmns_mp_new_var(&x->c[0], p, MNS_PMNS_WORD_U52, s, n, 0, 0,
                                    MNS_PMNS_MP_KERNEL_IFMA) == MNS_OK)
                for (unsigned long seed = MB_DEFAULT_SEED + 1; seed < MB_DEFAULT_SEED + 8; seed++) {
                    mb_prime(x->p[1], sizes[z], seed);
                    if (mns_pmns_mp_new_var(&x->c[1], x->p[1], MNS_PMNS_WORD_U52, s, n, 0, 0,
                                            MNS_PMNS_MP_KERNEL_IFMA) == MNS_OK)
                        break;
                }
            if (!x->c[1]) {
                printf("  x2 %s: no second prime of n=%d s=%d in 7 seeds\n", sp, n, s);
                mns_pmns_mp_free(x->c[0]);
                mpz_clears(x->p[0], x->p[1], NULL);
                continue;
            }
            for (int w = 0; w < 2; w++) {
                size_t L = mns_pmns_mp_limbs(x->c[w]);
                x->x[w] = calloc(L, 8);
                x->y[w] = calloc(L, 8);
            }
            nx++;
            impl *a = &im[ni++], *b = &im[ni++];
            *a = (impl){.st = x, .op = x2_mul, .reset = x2_reset, .per = 2};
            snprintf(a->name, sizeof a->name, "x2 mul, per product  [n=%d s=%d, 2 primes]", n, s);
            *b = (impl){.st = x, .op = x1_mul, .reset = x2_reset, .per = 2};
            snprintf(b->name, sizeof b->name, "  same pair, 2 calls  [n=%d s=%d]", n, s);
            if (ni + 1 < MAXW) {
                impl *c = &im[ni++], *d = &im[ni++];
                *c = (impl){.st = x, .op = x2_sqr, .reset = x2_reset, .per = 2};
                snprintf(c->name, sizeof c->name, "x2 sqr, per product  [n=%d s=%d]", n, s);
                *d = (impl){.st = x, .op = x1_sqr, .reset = x2_reset, .per = 2};
                snprintf(d->name, sizeof d->name, "  same pair, 2 sqr calls  [n=%d s=%d]", n, s);
            }
        }
        free(list);
        measure_all(im, ni, sets, 20, 16, 300);
        printf("== %u bits: modmul, TSC ticks (median over %d data sets of the best of 20 "
               "batches)\n",
               sizes[z], sets);
        double tg = med(&im[0], sets), to = med(&im[1], sets);
        for (int w = 0; w < ni; w++) {
            double t = med(&im[w], sets);
            printf("  %9.0f  gmp/x %5.2f  ossl/x %5.2f  %s\n", t, tg / t, to / t, im[w].name);
        }
        fflush(stdout);
        if (exp) {
            /* powm with a full-size exponent: mns (the first spec) against
             * OpenSSL, and the x2 pairs per exponentiation: OpenSSL's
             * BN_mod_exp_mont_consttime_x2 and mns_field_powm_x2 on the first
             * spec's (n, s) for p and a second prime (mns_exp_powm_x2 over the
             * backend's x2 kernels) */
            impl ie[5];
            int ne = 0;
            ie[ne++] = (impl){.name = "openssl BN_mod_exp_mont_consttime", .st = &o,
                              .op = o_exp, .reset = o_reset, .per = 1};
            if (with_x2)
                ie[ne++] = (impl){.name = "openssl BN_mod_exp_mont_consttime_x2 (per exp)",
                                  .st = &o, .op = o_exp_x2, .reset = o_reset, .per = 2};
            fst fe;
            char first[128];
            snprintf(first, sizeof first, "%s", specs);
            char *semi = strchr(first, ';');
            if (semi)
                *semi = 0;
            int have = add_field(ie, &ne, &fe, p, first, 1);
            xest xe;
            int have_x2 = have && with_x2 &&
                          xe_init(&xe, p, sizes[z], first, mns_field_describe(fe.f));
            if (have_x2) {
                ie[ne] = (impl){.st = &xe, .op = xe_exp, .reset = xe_reset, .per = 2};
                snprintf(ie[ne].name, sizeof ie[ne].name,
                         "powm_x2 (mns_exp_powm_x2, per exp)  [%s; %s]",
                         mns_field_describe(xe.f[0]), mns_field_describe(xe.f[1]));
                ne++;
            }
            measure_all(ie, ne, sets < 7 ? sets : 7, 5, 2, 2);
            printf("== %u bits: modexp (full-size exponent), TSC ticks\n", sizes[z]);
            double te = med(&ie[0], sets < 7 ? sets : 7);
            for (int w = 0; w < ne; w++) {
                double t = med(&ie[w], sets < 7 ? sets : 7);
                printf("  %11.0f  ossl/x %5.2f  %s\n", t, te / t, ie[w].name);
            }
            if (have)
                drop_field(&fe);
            if (have_x2)
                xe_free(&xe);
            fflush(stdout);
        }
        for (int i = 0; i < nf; i++)
            drop_field(&fs[i]);
        for (int i = 0; i < nx; i++)
            for (int w = 0; w < 2; w++) {
                free(xs[i].x[w]);
                free(xs[i].y[w]);
                mns_pmns_mp_free(xs[i].c[w]);
                mpz_clear(xs[i].p[w]);
            }
        free(g.p), free(g.t), free(g.x), free(g.y);
        mpz_clear(g.pz);
        BN_free(o.x), BN_free(o.y), BN_free(o.x1), BN_free(o.y1), BN_free(o.e), BN_free(o.e1);
        BN_free(o.p), BN_free(o.p1);
        BN_MONT_CTX_free(o.m), BN_MONT_CTX_free(o.m1), BN_CTX_free(o.ctx);
        mpz_clears(o.pz, o.pz1, NULL);
    }
    mpz_clears(p, p1, NULL);
    return 0;
}
