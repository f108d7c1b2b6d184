/* bench_mpart: one modular multiplication of a random odd modulus, timed the
 * way the papers do (rdtsc around each call, the minimum of a batch, the
 * median of the batch minima over fresh random operands per batch), for
 *   gmp-mpn   mpn_mul_n + mpn_tdiv_qr       (GMP sequential)
 *   gmp-mpz   mpz_mul + mpz_mod             (GMP sequential)
 *   mpart, bipartite on 1 and on T threads, mpart-mont and mpart-barrett on
 *   T threads (the paper's parallel baselines)
 * and the ratio gmp-mpn / method (> 1: faster than GMP).
 *
 *   bench_mpart [--threads T] [--k K] [--bits 2048,8192,...] [--batches B]
 *
 * TSC ticks at the nominal rate (2.3 GHz here). Figures taken while other
 * work runs on the machine are noisy: the medians of minima resist it, but a
 * busy second core makes every threaded figure pessimistic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include <gmp.h>

#include "mns.h"

static inline uint64_t t_start(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static inline uint64_t t_stop(void)
{
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

enum { M_MPN, M_MPZ, M_FIELD };

typedef struct method {
    const char *label;
    int kind;
    char spec[64];
} method;

static gmp_randstate_t rs;

static uint64_t median(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return v[n / 2];
}

static uint64_t time_method(const method *m, const mpz_t p, int batches, int reps)
{
    size_t n = mpz_size(p);
    uint64_t *mins = calloc((size_t)batches, sizeof(uint64_t));
    mp_limb_t *a = calloc(n, 8), *b = calloc(n, 8), *t = calloc(2 * n, 8), *q = calloc(n + 2, 8),
              *r = calloc(n, 8);
    mpz_t x, y, z;
    mpz_inits(x, y, z, NULL);
    mns_field *f = NULL;
    uint64_t *A = NULL, *B = NULL, *R = NULL;
    if (m->kind == M_FIELD) {
        if (mns_field_new(&f, p, m->spec) != MNS_OK) {
            fprintf(stderr, "%s: %s\n", m->spec, mns_last_error());
            exit(1);
        }
        A = calloc(n, 8);
        B = calloc(n, 8);
        R = calloc(n, 8);
    }
    for (int bt = -1; bt < batches; bt++) { /* batch -1 warms up */
        mpz_urandomm(x, rs, p);
        mpz_urandomm(y, rs, p);
        size_t cnt;
        memset(a, 0, 8 * n);
        memset(b, 0, 8 * n);
        mpz_export(a, &cnt, -1, 8, 0, 0, x);
        mpz_export(b, &cnt, -1, 8, 0, 0, y);
        if (f) {
            mns_field_set_mpz(f, A, x);
            mns_field_set_mpz(f, B, y);
        }
        uint64_t best = UINT64_MAX;
        for (int i = 0; i < reps; i++) {
            uint64_t t0 = t_start();
            switch (m->kind) {
            case M_MPN:
                mpn_mul_n(t, a, b, (mp_size_t)n);
                mpn_tdiv_qr(q, r, 0, t, (mp_size_t)(2 * n), p->_mp_d, (mp_size_t)n);
                break;
            case M_MPZ:
                mpz_mul(z, x, y);
                mpz_mod(z, z, p);
                break;
            default:
                mns_field_mul(f, R, A, B);
                break;
            }
            uint64_t dt = t_stop() - t0;
            if (dt < best)
                best = dt;
        }
        if (bt >= 0)
            mins[bt] = best;
    }
    uint64_t med = median(mins, batches);
    mns_field_free(f);
    free(A);
    free(B);
    free(R);
    free(a);
    free(b);
    free(t);
    free(q);
    free(r);
    free(mins);
    mpz_clears(x, y, z, NULL);
    return med;
}

int main(int argc, char **argv)
{
    int T = 2, batches = 11, k = 0;
    char bits_list[512] = "2048,3072,4096,6144,8192,12288,16384,32768,65536,131072,262144,393216";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            T = atoi(argv[++i]);
        else if (strcmp(argv[i], "--k") == 0 && i + 1 < argc)
            k = atoi(argv[++i]);
        else if (strcmp(argv[i], "--bits") == 0 && i + 1 < argc)
            snprintf(bits_list, sizeof bits_list, "%s", argv[++i]);
        else if (strcmp(argv[i], "--batches") == 0 && i + 1 < argc)
            batches = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--threads T] [--k K] [--bits a,b,..] [--batches B]\n",
                    argv[0]);
            return 2;
        }
    }
    if (T < 1 || batches < 1)
        return 2;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 12345);
    method ms[9];
    int nm = 0;
    ms[nm++] = (method){"gmp-mpn", M_MPN, ""};
    ms[nm++] = (method){"gmp-mpz", M_MPZ, ""};
    ms[nm] = (method){"mpart/1", M_FIELD, ""};
    snprintf(ms[nm++].spec, 64, "mpart:threads=1");
    ms[nm] = (method){"bipart/1", M_FIELD, ""};
    snprintf(ms[nm++].spec, 64, "bipartite:threads=1");
    if (T > 1) {
        ms[nm] = (method){"mpart/T", M_FIELD, ""};
        if (k)
            snprintf(ms[nm++].spec, 64, "mpart:threads=%d,k=%d", T, k);
        else
            snprintf(ms[nm++].spec, 64, "mpart:threads=%d", T);
        ms[nm] = (method){"bipart/T", M_FIELD, ""};
        snprintf(ms[nm++].spec, 64, "bipartite:threads=%d", T);
    }
    ms[nm] = (method){"mont/T", M_FIELD, ""};
    snprintf(ms[nm++].spec, 64, "mpart-mont:threads=%d", T);
    ms[nm] = (method){"barrett/T", M_FIELD, ""};
    snprintf(ms[nm++].spec, 64, "mpart-barrett:threads=%d", T);

    printf("# bench_mpart: T = %d threads, median of %d batch minima, TSC ticks; (x) = gmp-mpn / "
           "method\n",
           T, batches);
    printf("%7s", "bits");
    for (int i = 0; i < nm; i++)
        printf(" %18s", ms[i].label);
    printf("\n");
    mpz_t p;
    mpz_init(p);
    for (char *s = strtok(bits_list, ","); s; s = strtok(NULL, ",")) {
        long bits = atol(s);
        if (bits < 64)
            continue;
        mpz_urandomb(p, rs, (mp_bitcnt_t)bits);
        mpz_setbit(p, (mp_bitcnt_t)bits - 1);
        mpz_setbit(p, 0);
        /* about 20 ms of GMP work per method */
        double est = 1e-3 * (double)bits * (double)bits / 64.0; /* rough ticks */
        int reps = (int)(4.0e7 / ((double)batches * (est > 1 ? est : 1)));
        if (reps < 3)
            reps = 3;
        if (reps > 200)
            reps = 200;
        uint64_t ref = 0;
        printf("%7ld", bits);
        for (int i = 0; i < nm; i++) {
            uint64_t v = time_method(&ms[i], p, batches, reps);
            if (i == 0)
                ref = v;
            printf(" %11llu (%4.2f)", (unsigned long long)v, (double)ref / (double)v);
            fflush(stdout);
        }
        printf("\n");
    }
    printf("# specs:");
    for (int i = 2; i < nm; i++)
        printf(" %s=%s", ms[i].label, ms[i].spec);
    printf("\n");
    mpz_clear(p);
    gmp_randclear(rs);
    return 0;
}
