/* bench_mpart: one modular multiplication of a random odd modulus, timed the
 * way the papers do (rdtsc around each call, the minimum of a batch, the
 * median of the batch minima over fresh random operands per batch), for
 *   gmp-mpn   mpn_mul_n + mpn_tdiv_qr       (GMP sequential)
 *   gmp-mpz   mpz_mul + mpz_mod             (GMP sequential)
 *   mpart, bipartite on 1 and on T threads, mpart-mont and mpart-barrett on
 *   T threads (the paper's parallel baselines)
 *
 *   bench_mpart [--threads T] [--k K] [--bits 2048,8192,...] [--batches B]
 *
 * It prints the ratio gmp-mpn / method (> 1: faster than GMP), then the sizes from
 * which mpart and bipartite on T threads beat GMP and reach 1.5x.
 *
 * TSC ticks at the nominal rate (2.6 GHz here). Figures taken while other
 * work runs on the machine are noisy: the medians of minima resist it, but a
 * busy second core makes every threaded figure pessimistic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* What one method needs for one size: its field (or nothing for GMP), and
 * operands in its representation. */
typedef struct runner {
    const method *m;
    mns_field *f;
    uint64_t *A, *B, *R;
    uint64_t *mins;
} runner;

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* All methods of one size, interleaved batch by batch (so that a change in
 * the machine's load hits every method alike): per batch, fresh operands,
 * then for each method the minimum over reps calls; the result is the median
 * of the batch minima. After each method's turn the program sleeps 2 ms, so
 * that its pool's threads park (they spin about 1 ms after a call) and do not
 * hold the second core while the next method runs; each turn of a field
 * starts with 2 ms of untimed calls, which wake its workers and let them
 * settle on the other core. */
static void time_size(const method *ms, int nm, const mpz_t p, int batches, int reps, uint64_t *out)
{
    size_t n = mpz_size(p);
    runner *rn = calloc((size_t)nm, sizeof *rn);
    mp_limb_t *a = calloc(n, 8), *b = calloc(n, 8), *t = calloc(2 * n, 8), *q = calloc(n + 2, 8),
              *r = calloc(n, 8);
    mpz_t x, y, z;
    mpz_inits(x, y, z, NULL);
    for (int i = 0; i < nm; i++) {
        rn[i].m = &ms[i];
        rn[i].mins = calloc((size_t)batches, sizeof(uint64_t));
        if (ms[i].kind == M_FIELD) {
            if (mns_field_new(&rn[i].f, p, ms[i].spec) != MNS_OK) {
                fprintf(stderr, "%s: %s\n", ms[i].spec, mns_last_error());
                exit(1);
            }
            rn[i].A = calloc(n, 8);
            rn[i].B = calloc(n, 8);
            rn[i].R = calloc(n, 8);
        }
    }
    for (int bt = -1; bt < batches; bt++) { /* batch -1 warms up */
        mpz_urandomm(x, rs, p);
        mpz_urandomm(y, rs, p);
        size_t cnt;
        memset(a, 0, 8 * n);
        memset(b, 0, 8 * n);
        mpz_export(a, &cnt, -1, 8, 0, 0, x);
        mpz_export(b, &cnt, -1, 8, 0, 0, y);
        for (int i = 0; i < nm; i++) {
            runner *u = &rn[i];
            if (u->f) {
                mns_field_set_mpz(u->f, u->A, x);
                mns_field_set_mpz(u->f, u->B, y);
            }
            uint64_t best = UINT64_MAX, w0 = t_start();
            /* untimed calls for 2 ms first: a pool's parked worker is woken
             * by the first call, and Linux tends to wake it on the caller's
             * core, from which the load balancer moves it within a few ms */
            for (int k = -1; k < reps; k++) {
                if (k == -1 && u->f && t_start() - w0 < 5000000u)
                    k = -2; /* still warming up */
                uint64_t t0 = t_start();
                switch (u->m->kind) {
                case M_MPN:
                    mpn_mul_n(t, a, b, (mp_size_t)n);
                    mpn_tdiv_qr(q, r, 0, t, (mp_size_t)(2 * n), p->_mp_d, (mp_size_t)n);
                    break;
                case M_MPZ:
                    mpz_mul(z, x, y);
                    mpz_mod(z, z, p);
                    break;
                default:
                    mns_field_mul(u->f, u->R, u->A, u->B);
                    break;
                }
                uint64_t dt = t_stop() - t0;
                if (k >= 0 && dt < best)
                    best = dt;
            }
            if (bt >= 0)
                u->mins[bt] = best;
            if (u->f)
                sleep_ms(2);
        }
    }
    for (int i = 0; i < nm; i++) {
        out[i] = median(rn[i].mins, batches);
        mns_field_free(rn[i].f);
        free(rn[i].A);
        free(rn[i].B);
        free(rn[i].R);
        free(rn[i].mins);
    }
    free(rn);
    free(a);
    free(b);
    free(t);
    free(q);
    free(r);
    mpz_clears(x, y, z, NULL);
}

/* From the ratios of one method over the sizes: the first size from which it
 * stays at or above x (0 if it never does, -1 if no size was measured). */
static long from_size(const long *bits, const double *ratio, int ns, double x)
{
    long at = 0;
    for (int i = ns - 1; i >= 0; i--) {
        if (ratio[i] < x)
            break;
        at = bits[i];
    }
    return ns ? at : -1;
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
    if (T < 1 || T > 64 || batches < 1)
        return 2;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 12345);
    method ms[9];
    int nm = 0, col_mpart = -1, col_bipart = -1;
    ms[nm++] = (method){"gmp-mpn", M_MPN, ""};
    ms[nm++] = (method){"gmp-mpz", M_MPZ, ""};
    ms[nm] = (method){"mpart/1", M_FIELD, ""};
    snprintf(ms[nm++].spec, 64, "mpart:threads=1");
    ms[nm] = (method){"bipart/1", M_FIELD, ""};
    snprintf(ms[nm++].spec, 64, "bipartite:threads=1");
    if (T > 1) {
        col_mpart = nm;
        ms[nm] = (method){"mpart/T", M_FIELD, ""};
        if (k)
            snprintf(ms[nm++].spec, 64, "mpart:threads=%d,k=%d", T, k);
        else
            snprintf(ms[nm++].spec, 64, "mpart:threads=%d", T);
        col_bipart = nm;
        ms[nm] = (method){"bipart/T", M_FIELD, ""};
        snprintf(ms[nm++].spec, 64, "bipartite:threads=%d", T);
    }
    ms[nm] = (method){"mont/T", M_FIELD, ""};
    snprintf(ms[nm++].spec, 64, "mpart-mont:threads=%d", T);
    ms[nm] = (method){"barrett/T", M_FIELD, ""};
    snprintf(ms[nm++].spec, 64, "mpart-barrett:threads=%d", T);

    printf("# bench_mpart: T = %d threads, median of %d batch minima, methods interleaved batch "
           "by batch, TSC ticks; (x) = gmp-mpn / method\n",
           T, batches);
    printf("%7s", "bits");
    for (int i = 0; i < nm; i++)
        printf(" %18s", ms[i].label);
    printf("\n");
    mpz_t p;
    mpz_init(p);
    long bits_of[64];
    double ratio[2][64];
    int ns = 0;
    for (char *s = strtok(bits_list, ","); s && ns < 64; s = strtok(NULL, ",")) {
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
        uint64_t v[9];
        time_size(ms, nm, p, batches, reps, v);
        printf("%7ld", bits);
        for (int i = 0; i < nm; i++)
            printf(" %11llu (%4.2f)", (unsigned long long)v[i], (double)v[0] / (double)v[i]);
        printf("\n");
        fflush(stdout);
        bits_of[ns] = bits;
        if (T > 1) {
            ratio[0][ns] = (double)v[0] / (double)v[col_mpart];
            ratio[1][ns] = (double)v[0] / (double)v[col_bipart];
        }
        ns++;
    }
    printf("# specs:");
    for (int i = 2; i < nm; i++)
        printf(" %s=%s", ms[i].label, ms[i].spec);
    printf("\n");
    /* the crossovers the issue asks for, read off this run */
    for (int m = 0; T > 1 && m < 2; m++) {
        long x1 = from_size(bits_of, ratio[m], ns, 1.0), x15 = from_size(bits_of, ratio[m], ns, 1.5);
        printf("# %s: faster than gmp-mpn from %s%ld bits, >= 1.5x from %s%ld bits (every size "
               "measured from there on)\n",
               m ? "bipart/T" : "mpart/T", x1 ? "" : "(never) ", x1, x15 ? "" : "(never) ", x15);
    }
    mpz_clear(p);
    gmp_randclear(rs);
    return 0;
}
