/* mns-rsa-bench: RSA-CRT private operation (PKCS#1 v1.5 signature) with
 * mns_rsa against OpenSSL's EVP_PKEY_sign on the same keys and a GMP CRT
 * (mpz_powm_sec per prime, Garner with mpz), in millions of TSC ticks per
 * signature: for each implementation, `batches` batches of `reps`
 * signatures, the minimum of each batch, the median of those minima.
 *
 * Usage: mns-rsa-bench [-b batches] [-r reps] [-s spec]... [-q] [-n]
 *        mns-rsa-bench -K keys [--bits B] [--seed S]: random 2-prime keys,
 *        mns auto against EVP_PKEY_sign key by key (the spread over keys)
 *        mns-rsa-bench -R rounds [--bits B] [--seed S]: creation to first
 *        signature and steady signatures per second at 1024-16384 bits
 *        against OpenSSL's key load and first signature (rsa_ready_bench.c)
 *   -s may be repeated (default: auto, mont, pmns-ifma, rns-ifma; specs that
 *   cannot serve a key are reported and skipped). -q: the small keys only.
 *   At the end, bench/profile/rsa_cryptography_bench.py times the `cryptography`
 *   wheel's OpenSSL (4.0, with its AVX-512 IFMA RSA code) at the TSC
 *   frequency measured here, when python3 can import it; -n skips that.
 * Keys: RSA-2048/3072/4096 with 2 primes, RSA-4096 with 4 and 8 primes,
 * primes from GMP with a fixed seed. Each mns configuration runs on 1 and 2
 * threads (the key's pool) as mns_rsa_private does ("1 thr", "2 thr": with
 * fewer threads than channels, pairs of channels share a thread through the
 * x2 exponentiation) and with every channel alone ("solo": MNS_RSA_NO_PAIRS),
 * the two alternating batch by batch. OpenSSL takes at most 5 primes, so
 * RSA-4096 x 8 has no OpenSSL figure. Also printed: the pairs of the key
 * (x2=kernels: the backend's mul_x2/sqr_x2; two-calls: the shared driver
 * over ordinary products; on/off: mns_rsa_pair_rule), and the share of a
 * channel's time that is not the exponentiation (constant-time entry and
 * exit). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "mns.h"
#include "mns_rsa.h"
#include "core/clock.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"
#include "rsa_keygen.h"
#include "rsa_ossl.h"
#include "rsa_ready_bench.h"

static int batches = 11, reps = 5;

typedef rsa_test_key bkey;

/* ---- timing ---- */

typedef void (*op_fn)(void *arg);

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ticks: the minimum over one batch of reps calls */
static uint64_t batch_min(op_fn f, void *arg)
{
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = __rdtsc();
        f(arg);
        uint64_t t = __rdtsc() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

/* millions of ticks: the median of per-batch minima */
static double measure(op_fn f, void *arg)
{
    uint64_t *mins = malloc(sizeof(uint64_t) * (size_t)batches);
    f(arg); /* warm-up */
    f(arg);
    for (int b = 0; b < batches; b++)
        mins[b] = batch_min(f, arg);
    qsort(mins, (size_t)batches, sizeof mins[0], cmp_u64);
    double m = (double)mins[batches / 2] / 1e6;
    free(mins);
    return m;
}

/* Two configurations of one mns call (modes a and b), batch by batch in
 * turn: the medians of their per-batch minima. */
typedef struct mns_arg mns_arg;
static void measure_ab(op_fn f, mns_arg *arg, int mode_a, int mode_b, double *ra, double *rb);

/* The TSC rate, against the monotonic clock over 50 ms. */
static double tsc_ghz(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t t0 = __rdtsc();
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec) < 5e7);
    uint64_t t1 = __rdtsc();
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    return (double)(t1 - t0) / ns;
}

/* ---- the implementations ---- */

static unsigned char digest[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

struct mns_arg {
    const mns_rsa *key;
    int threads;
    mns_rsa_thread_mode mode;
    mpz_t in, out;
    int bad;
};

static void measure_ab(op_fn f, mns_arg *arg, int mode_a, int mode_b, double *ra, double *rb)
{
    uint64_t *mins = malloc(sizeof(uint64_t) * 2 * (size_t)batches);
    for (int m = 0; m < 2; m++) { /* warm-up */
        arg->mode = (mns_rsa_thread_mode)(m ? mode_b : mode_a);
        f(arg);
        f(arg);
    }
    for (int b = 0; b < batches; b++)
        for (int m = 0; m < 2; m++) {
            arg->mode = (mns_rsa_thread_mode)(m ? mode_b : mode_a);
            mins[m * batches + b] = batch_min(f, arg);
        }
    qsort(mins, (size_t)batches, sizeof mins[0], cmp_u64);
    qsort(mins + batches, (size_t)batches, sizeof mins[0], cmp_u64);
    *ra = (double)mins[batches / 2] / 1e6;
    *rb = (double)mins[batches + batches / 2] / 1e6;
    arg->mode = (mns_rsa_thread_mode)mode_a;
    free(mins);
}

static void run_mns(void *p)
{
    mns_arg *a = p;
    if (mns_rsa_private_ex_(a->key, a->out, a->in, a->threads, a->mode, -1, 0) != MNS_OK)
        a->bad++;
}

typedef struct ossl_arg {
    EVP_PKEY_CTX *ctx;
    unsigned char *sig;
    size_t len;
    int bad;
} ossl_arg;

static void run_ossl(void *p)
{
    ossl_arg *a = p;
    size_t len = a->len;
    if (!rsa_ossl_sign(a->ctx, a->sig, &len, digest, sizeof digest))
        a->bad++;
}

typedef struct gmp_arg {
    const bkey *t;
    mpz_t dp[MNS_RSA_MAX_PRIMES], coef[MNS_RSA_MAX_PRIMES], m[MNS_RSA_MAX_PRIMES];
    mpz_t in, out, s, h;
} gmp_arg;

/* mpz_powm_sec per channel, Garner in mpz (the usual GMP CRT; the mpz
 * reductions and products are not side-channel silent) */
static void run_gmp(void *p)
{
    gmp_arg *a = p;
    const bkey *t = a->t;
    for (int i = 0; i < t->k; i++) {
        mpz_mod(a->s, a->in, t->p[i]);
        mpz_powm_sec(a->s, a->s, a->dp[i], t->p[i]);
        if (i == 0) {
            mpz_set(a->out, a->s);
            continue;
        }
        mpz_sub(a->h, a->s, a->out);
        mpz_mul(a->h, a->h, a->coef[i]);
        mpz_mod(a->h, a->h, t->p[i]);
        mpz_addmul(a->out, a->h, a->m[i]);
    }
}

static void gmp_prepare(gmp_arg *a, const bkey *t, const mpz_t in)
{
    a->t = t;
    mpz_inits(a->in, a->out, a->s, a->h, NULL);
    mpz_set(a->in, in);
    for (int i = 0; i < t->k; i++) {
        mpz_inits(a->dp[i], a->coef[i], a->m[i], NULL);
        mpz_sub_ui(a->dp[i], t->p[i], 1);
        mpz_mod(a->dp[i], t->d, a->dp[i]);
        mpz_set_ui(a->m[i], 1);
        for (int j = 0; j < i; j++)
            mpz_mul(a->m[i], a->m[i], t->p[j]);
        if (i)
            mpz_invert(a->coef[i], a->m[i], t->p[i]);
    }
}

static void gmp_release(gmp_arg *a)
{
    for (int i = 0; i < a->t->k; i++)
        mpz_clears(a->dp[i], a->coef[i], a->m[i], NULL);
    mpz_clears(a->in, a->out, a->s, a->h, NULL);
}

/* the share of channel 0's time outside the exponentiation: the channel
 * (entry, exponentiation, exit) against the exponentiation alone, in the
 * key's own slot */
typedef struct part_arg {
    const mns_rsa *key;
    mns_rsa_slot *sl;
} part_arg;

static void run_powm(void *p)
{
    part_arg *a = p;
    const mns_rsa_channel *c = &a->key->ch[0];
    uint64_t *chs = a->sl->chs[0];
    mns_field_powm_scratch(c->f, mns_rsa_channel_y(c, a->key->nn, chs),
                           mns_rsa_channel_x(c, a->key->nn, chs), c->dexp, a->sl->pw[0]);
}

static void run_channel(void *p)
{
    part_arg *a = p;
    const mns_rsa_channel *c = &a->key->ch[0];
    mns_rsa_channel_in(c, a->sl->in, a->key->nn, a->sl->chs[0]);
    run_powm(p);
    mns_rsa_channel_out(c, a->sl->s[0], a->sl->z[0], a->key->nn, a->sl->chs[0]);
}

static double entry_share(const mns_rsa *key)
{
    key = mns_rsa_now(key); /* the plan that serves calls */
    int own;
    part_arg a = {key, mns_rsa_slot_take(key, &own)};
    for (size_t i = 0; i < key->nn - 1; i++)
        a.sl->in[i] = 0x9e3779b97f4a7c15ull * (i + 1);
    double ch = measure(run_channel, &a), pw = measure(run_powm, &a);
    mns_rsa_slot_give(key, a.sl, own);
    return ch > 0 ? (ch - pw) / ch : 0;
}

/* ---- random keys (-K) ---- */

/* The channels' backend and (n, s) for one line, from the describe text:
 * "pmns-mp-ifma n=8 s=3 | rns-ifma n=24" */
static void channel_shapes(const mns_rsa *key, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = 0;
    for (const char *d = strstr(mns_rsa_describe(key), "\n ch"); d && off < len;
         d = strstr(d + 1, "\n ch")) {
        const char *q = strstr(d, "entry=");
        if (!q || !(q = strchr(q, ' ')))
            break;
        q++;
        char be[32] = "", n[16] = "", sw[16] = "";
        sscanf(q, "%31s", be);
        const char *qn = strstr(q, " n="), *qs = strstr(q, " s="), *eol = strchr(q, '\n');
        if (qn && (!eol || qn < eol))
            sscanf(qn + 1, "%15s", n);
        if (qs && (!eol || qs < eol))
            sscanf(qs + 1, "%15s", sw);
        off += (size_t)snprintf(buf + off, len - off, "%s%s %s %s", off ? " | " : "", be, n, sw);
    }
}

/* -K N: N random keys of `bits` bits and 2 primes (seeded, so the same keys
 * in every run), mns "auto" on one thread against OpenSSL's EVP_PKEY_sign on
 * each: how the speed-up spreads over keys (the fixed keys above are one
 * draw: a prime whose PMNS set is one size larger makes its key slower). */
static void random_keys(int count, size_t bits, unsigned long seed)
{
    gmp_randstate_t r;
    gmp_randinit_default(r);
    gmp_randseed_ui(r, seed);
    printf("random RSA-%zu keys (2 primes, seed %lu): M TSC ticks per signature, 1 thread\n", bits,
           seed);
    printf("%4s %8s %8s %7s  %s\n", "key", "mns", "openssl", "x ossl", "channels");
    double *ratio = malloc(sizeof(double) * (size_t)count), *ticks = malloc(sizeof(double) * (size_t)count);
    int nr = 0;
    for (int i = 0; i < count; i++) {
        bkey t;
        rsa_test_key_make(&t, bits, 2, r);
        mpz_t in;
        mpz_init(in);
        mpz_urandomm(in, r, t.n);
        double ossl = 0;
        EVP_PKEY *pkey = rsa_ossl_key(t.n, t.e, t.d, (const mpz_t *)t.p, t.k);
        if (pkey) {
            ossl_arg oa = {rsa_ossl_sign_ctx(pkey, "sha256"), NULL, mpz_sizeinbase(t.n, 2) / 8 + 1,
                           0};
            oa.sig = malloc(oa.len);
            if (oa.ctx)
                ossl = measure(run_ossl, &oa);
            EVP_PKEY_CTX_free(oa.ctx);
            free(oa.sig);
            EVP_PKEY_free(pkey);
        }
        mns_rsa *key;
        if (mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, t.k, "auto") != MNS_OK) {
            printf("%4d  mns_rsa_new failed: %s\n", i, mns_last_error());
        } else {
            mns_rsa_wait(key); /* the tuned channels' speed */
            mns_arg ma = {key, 1, MNS_RSA_THREADS_POOL, {{0}}, {{0}}, 0};
            mpz_inits(ma.in, ma.out, NULL);
            mpz_set(ma.in, in);
            double one = measure(run_mns, &ma);
            char sh[256];
            channel_shapes(key, sh, sizeof sh);
            printf("%4d %8.3f %8.3f %7.2f  %s%s\n", i, one, ossl, one > 0 ? ossl / one : 0, sh,
                   ma.bad ? "; ERRORS" : "");
            fflush(stdout);
            if (ossl > 0 && one > 0) {
                ratio[nr] = ossl / one;
                ticks[nr++] = one;
            }
            mpz_clears(ma.in, ma.out, NULL);
            mns_rsa_free(key);
        }
        mpz_clear(in);
        rsa_test_key_clear(&t);
    }
    if (nr) {
        qsort(ratio, (size_t)nr, sizeof *ratio, cmpd);
        qsort(ticks, (size_t)nr, sizeof *ticks, cmpd);
        printf("%d keys: mns %.3f / %.3f / %.3f M ticks (min / median / max), x OpenSSL %.2f / "
               "%.2f / %.2f\n",
               nr, ticks[0], ticks[nr / 2], ticks[nr - 1], ratio[0], ratio[nr / 2], ratio[nr - 1]);
    }
    free(ratio);
    free(ticks);
    gmp_randclear(r);
}

/* ---- main ---- */

int main(int argc, char **argv)
{
    const char *specs[16];
    int nspecs = 0, quick = 0, no_crypto = 0, rkeys = 0, ready = 0, bits_given = 0;
    size_t rbits = 2048;
    unsigned long rseed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-b") && i + 1 < argc)
            batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc && nspecs < 16)
            specs[nspecs++] = argv[++i];
        else if (!strcmp(argv[i], "-q"))
            quick = 1;
        else if (!strcmp(argv[i], "-n"))
            no_crypto = 1;
        else if (!strcmp(argv[i], "-K") && i + 1 < argc)
            rkeys = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-R") && i + 1 < argc)
            ready = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bits") && i + 1 < argc)
            rbits = (size_t)atol(argv[++i]), bits_given = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rseed = strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr,
                    "usage: %s [-b batches] [-r reps] [-s spec]... [-q] [-n]\n"
                    "       %s -K keys [--bits B] [--seed S] [-b batches] [-r reps]\n"
                    "       %s -R rounds [--bits B] [--seed S]\n",
                    argv[0], argv[0], argv[0]);
            return 2;
        }
    }
    if (batches < 1)
        batches = 1;
    if (reps < 1)
        reps = 1;
    if (ready > 0) {
        mns_rsa_ready_bench(ready, bits_given ? rbits : 0, rseed);
        return 0;
    }
    if (rkeys > 0) {
        random_keys(rkeys, rbits, rseed);
        return 0;
    }
    if (!nspecs) {
        static const char *def[] = {"auto", "mont", "pmns-ifma", "rns-ifma"};
        for (int i = 0; i < 4; i++)
            specs[nspecs++] = def[i];
    }
    static const struct {
        size_t bits;
        int k;
    } cfg[] = {{2048, 2}, {3072, 2}, {4096, 2}, {4096, 4}, {4096, 8}};
    const int ncfg = quick ? 2 : 5;

    printf("mns-rsa-bench: %s; median of %d batch minima of %d; M TSC ticks per signature\n",
           OpenSSL_version(OPENSSL_VERSION), batches, reps);
    printf("%-14s %-26s %8s %8s %8s %8s %8s  %s\n", "key", "implementation", "1 thr", "1 solo",
           "2 thr", "2 solo", "vs ossl", "notes");
    gmp_randstate_t r;
    gmp_randinit_default(r);
    gmp_randseed_ui(r, 20260808);
    for (int ci = 0; ci < ncfg; ci++) {
        bkey t;
        rsa_test_key_make(&t, cfg[ci].bits, cfg[ci].k, r);
        char name[32];
        snprintf(name, sizeof name, "RSA-%zu x%d", t.bits, t.k);
        mpz_t in;
        mpz_init(in);
        mpz_urandomm(in, r, t.n);

        double ossl = 0;
        EVP_PKEY *pkey = rsa_ossl_key(t.n, t.e, t.d, (const mpz_t *)t.p, t.k);
        if (pkey) {
            ossl_arg oa = {rsa_ossl_sign_ctx(pkey, "sha256"), NULL, mpz_sizeinbase(t.n, 2) / 8 + 1,
                           0};
            oa.sig = malloc(oa.len);
            if (oa.ctx) {
                ossl = measure(run_ossl, &oa);
                printf("%-14s %-26s %8.3f %8s %8s %8s %8s  %s\n", name, "openssl EVP_PKEY_sign",
                       ossl, "-", "-", "-", "1.00", oa.bad ? "ERRORS" : "");
            }
            EVP_PKEY_CTX_free(oa.ctx);
            free(oa.sig);
            EVP_PKEY_free(pkey);
        } else {
            printf("%-14s %-26s %8s %8s %8s %8s %8s  %s\n", name, "openssl EVP_PKEY_sign", "-",
                   "-", "-", "-", "-", "OpenSSL takes at most 5 primes");
        }

        gmp_arg ga;
        gmp_prepare(&ga, &t, in);
        double g = measure(run_gmp, &ga);
        printf("%-14s %-26s %8.3f %8s %8s %8s %8.2f\n", name, "gmp mpz_powm_sec CRT", g, "-", "-",
               "-", ossl > 0 ? ossl / g : 0);
        gmp_release(&ga);

        for (int s = 0; s < nspecs; s++) {
            mns_rsa *key;
            mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, t.k, specs[s]);
            if (st == MNS_OK)
                mns_rsa_wait(key); /* "auto": its tuned channels */
            char label[64];
            snprintf(label, sizeof label, "mns %s", specs[s]);
            if (st != MNS_OK) {
                printf("%-14s %-26s %8s %8s %8s %8s %8s  skipped: %s\n", name, label, "-", "-",
                       "-", "-", "-", mns_last_error());
                continue;
            }
            mns_arg ma = {key, 1, MNS_RSA_THREADS_POOL, {{0}}, {{0}}, 0};
            mpz_inits(ma.in, ma.out, NULL);
            mpz_set(ma.in, in);
            /* with and without pairs (x2), one after the other batch by
             * batch so that both see the same load */
            double one, one_solo, two, two_solo;
            measure_ab(run_mns, &ma, MNS_RSA_THREADS_POOL, MNS_RSA_NO_PAIRS, &one, &one_solo);
            ma.threads = 2;
            measure_ab(run_mns, &ma, MNS_RSA_THREADS_POOL, MNS_RSA_NO_PAIRS, &two, &two_solo);
            double share = entry_share(key);
            /* the backend of channel 0, from the describe text */
            const char *d = strstr(mns_rsa_describe(key), "\n ch0");
            char be[96] = "";
            if (d) {
                const char *q = strstr(d, "entry=");
                if (q && (q = strchr(q, ' ')))
                    snprintf(be, sizeof be, "%.*s", (int)strcspn(q + 1, " \n"), q + 1);
            }
            double create = 0;
            sscanf(strstr(mns_rsa_describe(key), "create_ms=") + 10, "%lf", &create);
            const char *pr = strstr(mns_rsa_describe(key), "pairs=");
            printf("%-14s %-26s %8.3f %8.3f %8.3f %8.3f %8.2f  %s; %.*s; entry+exit %.0f%% "
                   "of a channel; key %.0f ms%s\n",
                   name, label, one, one_solo, two, two_solo, ossl > 0 ? ossl / one : 0, be,
                   pr ? (int)strcspn(pr, "\n") : 0, pr ? pr : "", 100 * share,
                   create, ma.bad ? "; ERRORS" : "");
            mpz_clears(ma.in, ma.out, NULL);
            mns_rsa_free(key);
        }
        fflush(stdout);
        mpz_clear(in);
        rsa_test_key_clear(&t);
    }
    gmp_randclear(r);
#ifdef MNS_RSA_CRYPTOGRAPHY_BENCH
    if (!no_crypto) {
        /* the wheel times wall clock: converted at this machine's TSC rate */
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import cryptography' 2>/dev/null && python3 %s --tsc-ghz %.3f "
                 "--batches %d --reps %d%s",
                 MNS_RSA_CRYPTOGRAPHY_BENCH, tsc_ghz(), batches, reps,
                 quick ? " --quick" : "");
        fflush(stdout);
        if (system(cmd) != 0)
            printf("(cryptography wheel not available: pip install cryptography)\n");
    }
#else
    (void)no_crypto;
#endif
    return 0;
}
