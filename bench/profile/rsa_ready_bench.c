/* mns-rsa-bench -R rounds: how soon a key signs, and how fast it signs
 * later, against OpenSSL's key load and first signature, in one process.
 *
 * For each size (1024 ... 16384 bits, 2 primes, or --bits B only), the same
 * key `rounds` times:
 *   - mns: mns_rsa_new("auto") then one PKCS#1 v1.5 SHA-256 signature
 *     (new + first, ms), the time until the tuned channels serve
 *     (mns_rsa_wait, ms after mns_rsa_new), the steady signatures per
 *     second on one thread on the starting plan (mont / mont-ifma: measured
 *     on a key held there) and on the tuned plan;
 *   - OpenSSL: EVP_PKEY_fromdata from the same numbers, a signing context,
 *     one signature (load + first, ms) and its steady rate.
 * Medians over the rounds (min-max in brackets). "new+1st" and "load+1st"
 * are given as wall-clock time (CLOCK_MONOTONIC) and as the calling
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the background tuning runs
 * on other threads, and on a shared machine the wall time mostly measures
 * the other processes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mns.h"
#include "mns_rsa.h"
#include "core/clock.h"
#include "rsa/rsa_internal.h"
#include "rsa_keygen.h"
#include "rsa_ossl.h"
#include "rsa_ready_bench.h"

static unsigned char dg[32] = {7, 6, 5, 4, 3, 2, 1};

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Signatures per second over at least `ms` milliseconds (and 3 signatures). */
static double mns_rate(const mns_rsa *key, unsigned char *sig, double ms)
{
    double t0 = mns_now_ms(), t;
    int n = 0;
    do {
        if (mns_rsa_sign_pkcs1v15(key, sig, "sha256", dg, sizeof dg, 1) != MNS_OK)
            return 0;
        n++;
        t = mns_now_ms() - t0;
    } while (t < ms || n < 3);
    return n * 1e3 / t;
}

static double ossl_rate(EVP_PKEY_CTX *ctx, unsigned char *sig, size_t nb, double ms)
{
    double t0 = mns_now_ms(), t;
    int n = 0;
    do {
        size_t len = nb;
        if (!rsa_ossl_sign(ctx, sig, &len, dg, sizeof dg))
            return 0;
        n++;
        t = mns_now_ms() - t0;
    } while (t < ms || n < 3);
    return n * 1e3 / t;
}

typedef struct figures {
    double first, first_cpu, tuned, start_rate, tuned_rate, ossl_first, ossl_first_cpu, ossl_rate;
} figures;

static int one_round(const rsa_test_key *t, figures *f, double rate_ms)
{
    memset(f, 0, sizeof *f);
    size_t nb = (mpz_sizeinbase(t->n, 2) + 7) / 8;
    unsigned char *sig = malloc(nb);
    mns_rsa *key;
    double t0 = mns_now_ms(), c0 = cpu_ms();
    if (mns_rsa_new(&key, t->n, t->e, t->d, (const mpz_t *)t->p, t->k, "auto") != MNS_OK ||
        mns_rsa_sign_pkcs1v15(key, sig, "sha256", dg, sizeof dg, 1) != MNS_OK) {
        printf("  mns failed: %s\n", mns_last_error());
        free(sig);
        return 0;
    }
    f->first = mns_now_ms() - t0;
    f->first_cpu = cpu_ms() - c0;
    mns_rsa_wait(key);
    f->tuned = mns_rsa_tuned(key) ? mns_now_ms() - t0 : -1;
    f->tuned_rate = mns_rate(key, sig, rate_ms);
    mns_rsa_free(key);
    /* the starting plan's rate: a key held on it */
    if (mns_rsa_new_held_(&key, t->n, t->e, t->d, (const mpz_t *)t->p, t->k, "auto") == MNS_OK) {
        f->start_rate = mns_rate(key, sig, rate_ms);
        mns_rsa_free(key);
    }
    t0 = mns_now_ms(), c0 = cpu_ms();
    EVP_PKEY *pkey = rsa_ossl_key(t->n, t->e, t->d, (const mpz_t *)t->p, t->k);
    EVP_PKEY_CTX *ctx = pkey ? rsa_ossl_sign_ctx(pkey, "sha256") : NULL;
    size_t len = nb;
    if (ctx && rsa_ossl_sign(ctx, sig, &len, dg, sizeof dg)) {
        f->ossl_first = mns_now_ms() - t0;
        f->ossl_first_cpu = cpu_ms() - c0;
        f->ossl_rate = ossl_rate(ctx, sig, nb, rate_ms);
    }
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    free(sig);
    return 1;
}

static void med(char *out, size_t cap, double *v, int n, const char *fmt)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    char a[20], b[20], c[20];
    snprintf(a, sizeof a, fmt, v[n / 2]);
    snprintf(b, sizeof b, fmt, v[0]);
    snprintf(c, sizeof c, fmt, v[n - 1]);
    snprintf(out, cap, "%s [%s-%s]", a, b, c);
}

void mns_rsa_ready_bench(int rounds, size_t only_bits, unsigned long seed)
{
    static const size_t sizes[] = {1024, 2048, 3072, 4096, 8192, 16384};
    gmp_randstate_t r;
    gmp_randinit_default(r);
    gmp_randseed_ui(r, seed);
    if (rounds < 1)
        rounds = 1;
    printf("RSA 2 primes, auto, one thread, SHA-256 PKCS#1 v1.5; medians of %d rounds [min-max]\n"
           "%6s %20s %20s %18s %18s %18s %20s %20s %18s\n",
           rounds, "bits", "mns new+1st ms", "(cpu ms)", "mns tuned after ms", "start sig/s",
           "tuned sig/s", "OpenSSL load+1st ms", "(cpu ms)", "OpenSSL sig/s");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (only_bits && sizes[s] != only_bits)
            continue;
        rsa_test_key t;
        rsa_test_key_make(&t, sizes[s], 2, r);
        double v[8][64];
        int n = 0;
        const double rate_ms = sizes[s] >= 8192 ? 1500 : 300;
        for (int i = 0; i < rounds && i < 64; i++) {
            figures f;
            if (!one_round(&t, &f, rate_ms))
                continue;
            v[0][n] = f.first, v[1][n] = f.first_cpu, v[2][n] = f.tuned, v[3][n] = f.start_rate;
            v[4][n] = f.tuned_rate, v[5][n] = f.ossl_first, v[6][n] = f.ossl_first_cpu;
            v[7][n] = f.ossl_rate;
            n++;
        }
        if (n) {
            char c[8][80];
            static const char *fmt[8] = {"%.2f", "%.2f", "%.0f", "%.1f",
                                         "%.1f", "%.2f", "%.2f", "%.1f"};
            for (int x = 0; x < 8; x++)
                med(c[x], sizeof c[x], v[x], n, fmt[x]);
            printf("%6zu %20s %20s %18s %18s %18s %20s %20s %18s\n", sizes[s], c[0], c[1], c[2],
                   c[3], c[4], c[5], c[6], c[7]);
            fflush(stdout);
        }
        rsa_test_key_clear(&t);
    }
    gmp_randclear(r);
}
