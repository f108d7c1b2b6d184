/* pmns-timing: TSC ticks per modular multiplication (and squaring) of the
 * PMNS kernels, with GMP (mpn_mul_n + REDC by mpn_addmul_1) and OpenSSL
 * (BN_mod_mul_montgomery) on the same p, in the same process and run.
 *
 *   pmns-timing DIR [bits ...]
 *
 * DIR holds parameter files u52-<bits>.txt and s64-<bits>.txt for the same p
 * (mns-pmns-gen --pi-bits B --word u52|s64 --s 1 -o DIR/u52-B.txt). Method
 * (the papers'): warm-up, DATASETS random operand sets; for each, BATCHES
 * batches of CHAIN dependent multiplications r <- r*b, the minimum per-call
 * time over the batches; the figure is the median over the sets. Dependent
 * chains measure the latency of one modmul, which is what an exponentiation
 * sees. The machine is shared: minima over many batches filter most of the
 * noise, not all of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include <gmp.h>
#include <openssl/bn.h>

#include "mns.h"
#include "mns_pmns.h"
#include "mns_pmns_arith.h"

#define DATASETS 25
#define BATCHES 40
#define CHAIN 64

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline uint64_t tsc(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

typedef struct bench {
    int kind; /* 0 pmns ctx mul, 1 pmns ctx sqr, 2 gmp, 3 openssl */
    const mns_pmns_ctx *ctx;
    size_t L;
    mp_limb_t *p, pinv, *t;
    BN_MONT_CTX *mont;
    BN_CTX *bnctx;
} bench;

static void gmp_mulredc(const bench *b, mp_limb_t *r, const mp_limb_t *x, const mp_limb_t *y)
{
    size_t L = b->L;
    mp_limb_t *t = b->t;
    mpn_mul_n(t, x, y, (mp_size_t)L);
    for (size_t i = 0; i < L; i++) {
        mp_limb_t u = t[i] * b->pinv;
        t[i] = mpn_addmul_1(t + i, b->p, (mp_size_t)L, u);
    }
    if (mpn_add_n(r, t + L, t, (mp_size_t)L))
        mpn_sub_n(r, r, b->p, (mp_size_t)L);
}

static double run(const bench *b, uint64_t *x, const uint64_t *y, BIGNUM *bx, const BIGNUM *by)
{
    double best = 1e30;
    for (int batch = 0; batch < BATCHES; batch++) {
        uint64_t t0 = tsc();
        switch (b->kind) {
        case 0:
            for (int k = 0; k < CHAIN; k++)
                mns_pmns_mul(b->ctx, x, x, y);
            break;
        case 1:
            for (int k = 0; k < CHAIN; k++)
                mns_pmns_sqr(b->ctx, x, x);
            break;
        case 2:
            for (int k = 0; k < CHAIN; k++)
                gmp_mulredc(b, (mp_limb_t *)x, (mp_limb_t *)x, (const mp_limb_t *)y);
            break;
        default:
            for (int k = 0; k < CHAIN; k++)
                BN_mod_mul_montgomery(bx, bx, by, b->mont, b->bnctx);
            break;
        }
        uint64_t t1 = tsc();
        double per = (double)(t1 - t0) / CHAIN;
        if (per < best)
            best = per;
    }
    return best;
}

static gmp_randstate_t rs;

/* median over data sets of the per-batch minimum */
static double measure(bench *b, size_t words, const mpz_t p)
{
    double v[DATASETS];
    uint64_t *x = calloc(words + 8, 8), *y = calloc(words + 8, 8);
    BIGNUM *bx = BN_new(), *by = BN_new();
    mpz_t a;
    mpz_init(a);
    for (int d = 0; d < DATASETS; d++) {
        if (b->kind <= 1) {
            mpz_urandomm(a, rs, p);
            mns_pmns_from_mpz_var(b->ctx, x, a);
            mpz_urandomm(a, rs, p);
            mns_pmns_from_mpz_var(b->ctx, y, a);
        } else {
            mpz_urandomm(a, rs, p);
            memset(x, 0, words * 8);
            mpz_export(x, NULL, -1, 8, 0, 0, a);
            mpz_urandomm(a, rs, p);
            memset(y, 0, words * 8);
            mpz_export(y, NULL, -1, 8, 0, 0, a);
            if (b->kind == 3) {
                BN_lebin2bn((const unsigned char *)x, (int)(words * 8), bx);
                BN_lebin2bn((const unsigned char *)y, (int)(words * 8), by);
                BN_to_montgomery(bx, bx, b->mont, b->bnctx);
                BN_to_montgomery(by, by, b->mont, b->bnctx);
            }
        }
        if (d == 0)
            run(b, x, y, bx, by); /* warm-up */
        v[d] = run(b, x, y, bx, by);
    }
    qsort(v, DATASETS, sizeof v[0], cmp_d);
    mpz_clear(a);
    free(x);
    free(y);
    BN_free(bx);
    BN_free(by);
    return v[DATASETS / 2];
}

static mns_pmns_params *load(const char *dir, const char *word, int bits)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%d.txt", dir, word, bits);
    mns_pmns_params *P = NULL;
    if (mns_pmns_params_load_var(&P, path) != MNS_OK) {
        fprintf(stderr, "%s: %s\n", path, mns_last_error());
        return NULL;
    }
    return P;
}

static const int default_bits[] = {256, 384, 448, 512, 521, 807, 1024, 1214, 1621, 2048, 0};
/* the paper's AVX-512 PMNS on this machine (issue 4) */
static int paper(int bits)
{
    return bits == 807 ? 342 : bits == 1214 ? 630 : bits == 1621 ? 1137 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pmns-timing DIR [bits ...]\n");
        return 2;
    }
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 12345);
    int nb = argc > 2 ? argc - 2 : 0;
    printf("ticks per modmul (median over %d data sets of the minimum over %d batches of %d dependent calls)\n",
           DATASETS, BATCHES, CHAIN);
    printf("%6s %4s %4s %9s %9s %9s %9s %9s %9s %7s %8s %8s\n", "bits", "n64", "n52", "pmns", "pmns-sq",
           "ifma", "ifma-sq", "gmp", "openssl", "paper", "gmp/ifma", "ossl/ifma");
    for (int k = 0; nb ? k < nb : default_bits[k] != 0; k++) {
        int bits = nb ? atoi(argv[2 + k]) : default_bits[k];
        mns_pmns_params *Pu = load(argv[1], "u52", bits), *Ps = load(argv[1], "s64", bits);
        if (!Pu && !Ps)
            continue;
        mpz_srcptr p = mns_pmns_params_p(Pu ? Pu : Ps);
        size_t L = mpz_size(p);
        double tp = 0, tps = 0, ti = 0, tis = 0, tg, to;
        int n64 = 0, n52 = 0;
        mns_pmns_ctx *c = NULL;
        if (Ps && mns_pmns_ctx_new_var(&c, Ps, MNS_PMNS_KERNEL_GENERIC) == MNS_OK) {
            bench b = {.kind = 0, .ctx = c};
            n64 = (int)mns_pmns_ctx_words(c);
            tp = measure(&b, (size_t)n64, p);
            b.kind = 1;
            tps = measure(&b, (size_t)n64, p);
            mns_pmns_ctx_free(c);
        }
        if (Pu && mns_pmns_ctx_new_var(&c, Pu, MNS_PMNS_KERNEL_IFMA) == MNS_OK) {
            bench b = {.kind = 0, .ctx = c};
            n52 = (int)mns_pmns_ctx_words(c);
            ti = measure(&b, (size_t)n52, p);
            b.kind = 1;
            tis = measure(&b, (size_t)n52, p);
            mns_pmns_ctx_free(c);
        } else if (Pu) {
            fprintf(stderr, "ifma: %s\n", mns_last_error());
        }
        {
            bench b = {.kind = 2, .L = L};
            b.p = calloc(L, 8);
            b.t = calloc(2 * L, 8);
            mpz_export(b.p, NULL, -1, 8, 0, 0, p);
            mp_limb_t inv = b.p[0];
            for (int i = 0; i < 5; i++)
                inv *= 2 - b.p[0] * inv;
            b.pinv = (mp_limb_t)0 - inv;
            tg = measure(&b, L, p);
            free(b.p);
            free(b.t);
        }
        {
            bench b = {.kind = 3, .L = L};
            b.bnctx = BN_CTX_new();
            b.mont = BN_MONT_CTX_new();
            BIGNUM *bp = BN_new();
            char *hex = mpz_get_str(NULL, 16, p);
            BN_hex2bn(&bp, hex);
            free(hex);
            BN_MONT_CTX_set(b.mont, bp, b.bnctx);
            to = measure(&b, L, p);
            BN_free(bp);
            BN_MONT_CTX_free(b.mont);
            BN_CTX_free(b.bnctx);
        }
        char pp[16] = "-";
        if (paper(bits))
            snprintf(pp, sizeof pp, "%d", paper(bits));
        printf("%6d %4d %4d %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %7s %8.2f %8.2f\n", bits, n64, n52, tp, tps,
               ti, tis, tg, to, pp, ti > 0 ? tg / ti : 0, ti > 0 ? to / ti : 0);
        fflush(stdout);
        mns_pmns_params_free(Pu);
        mns_pmns_params_free(Ps);
    }
    gmp_randclear(rs);
    return 0;
}
