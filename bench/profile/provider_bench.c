/* mns-provider-bench: mns.so through the EVP API against the default
 * provider in the same process (two library contexts), one thread and
 * two: RSA PKCS#1 v1.5 SHA-256 signatures per second (EVP_PKEY_sign of a
 * digest) at RSA-2048/3072/4096, with mns_rsa_sign_pkcs1v15 called
 * directly on the same key (the EVP overhead), and DH derives per second
 * on ffdhe2048..ffdhe8192. Each figure: the best of `reps` runs of
 * `secs` seconds, the implementations alternating run by run. mns's keys
 * and groups are first driven to their full context ("auto"; the provider
 * starts with a quick one, see docs/provider.md), RSA keys until their
 * tuned plan is in use, the direct key's by mns_rsa_wait.
 * Usage: mns-provider-bench [-t secs] [-r reps] [-q (2048 only)] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mns.h"
#include "mns_rsa.h"
#include "prov_util.h"

static pt_ctx ctx;
static double secs = 0.5;
static int reps = 3;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef int (*op_fn)(void *state);
typedef struct job {
    op_fn op;
    void *(*make)(void *arg); /* per-thread state */
    void (*drop)(void *state);
    void *arg;
    long count;
} job;

static void *worker(void *vj)
{
    job *j = vj;
    void *st = j->make(j->arg);
    double end = now() + secs;
    long n = 0;
    if (st)
        while (now() < end) {
            if (!j->op(st)) {
                n = -1;
                break;
            }
            n++;
        }
    j->count = n;
    j->drop(st);
    return NULL;
}

/* operations per second of one run on `threads` threads (-1: failed) */
static double rate_once(op_fn op, void *(*make)(void *), void (*drop)(void *), void *arg,
                        int threads)
{
    pthread_t th[2];
    job j[2];
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        j[i] = (job){op, make, drop, arg, 0};
        pthread_create(&th[i], NULL, worker, &j[i]);
    }
    long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        total = j[i].count < 0 || total < 0 ? -1 : total + j[i].count;
    }
    return total < 0 ? -1 : (double)total / (now() - t0);
}

/* The best of reps runs of each of n configurations, the configurations
 * alternating run by run so that a change of the machine's load hits all. */
static void rates(double *best, int n, op_fn op, void *(*make)(void *), void (*drop)(void *),
                  void **args, int threads)
{
    for (int i = 0; i < n; i++)
        best[i] = 0;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < n; i++) {
            double v = rate_once(op, make, drop, args[i], threads);
            if (v < 0 || best[i] < 0)
                best[i] = -1;
            else if (v > best[i])
                best[i] = v;
        }
}

/* ---- RSA ---- */

typedef struct rsa_arg {
    EVP_PKEY *pk;
    OSSL_LIB_CTX *lib;
    const char *propq;
    mns_rsa *direct;
} rsa_arg;

typedef struct rsa_state {
    EVP_PKEY_CTX *pc;
    const rsa_arg *a;
    unsigned char dg[32], sig[1024];
} rsa_state;

static void *rsa_make(void *va)
{
    rsa_arg *a = va;
    rsa_state *s = calloc(1, sizeof *s);
    s->a = a;
    memset(s->dg, 0x3c, sizeof s->dg);
    if (a->direct)
        return s;
    s->pc = EVP_PKEY_CTX_new_from_pkey(a->lib, a->pk, a->propq);
    if (!s->pc || EVP_PKEY_sign_init(s->pc) <= 0 ||
        EVP_PKEY_CTX_set_signature_md(s->pc, EVP_sha256()) <= 0) {
        EVP_PKEY_CTX_free(s->pc);
        free(s);
        return NULL;
    }
    return s;
}

static void rsa_drop(void *vs)
{
    rsa_state *s = vs;
    if (s)
        EVP_PKEY_CTX_free(s->pc);
    free(s);
}

static int rsa_op(void *vs)
{
    rsa_state *s = vs;
    if (s->a->direct)
        return mns_rsa_sign_pkcs1v15(s->a->direct, s->sig, "sha256", s->dg, 32, 1) == MNS_OK;
    size_t sl = sizeof s->sig;
    return EVP_PKEY_sign(s->pc, s->sig, &sl, s->dg, 32) > 0;
}

static const char *backend(EVP_PKEY *k, char *buf, size_t cap)
{
    char *s = NULL;
    OSSL_PARAM p[2] = {OSSL_PARAM_utf8_ptr("mns-backend", &s, 0), OSSL_PARAM_END};
    snprintf(buf, cap, "%s", EVP_PKEY_get_params(k, p) && s ? s : "?");
    return buf;
}

/* A key's describe text on one line: its first two lines (the key and
 * channel 0), the newline between them shown as " |". */
static void print_desc(size_t bits, const char *who, const char *d)
{
    char line[400];
    snprintf(line, sizeof line, "%s", d);
    char *nl = strchr(line, '\n');
    if (nl) {
        *nl = 0;
        char *nl2 = strchr(nl + 1, '\n');
        if (nl2)
            *nl2 = 0;
        printf("RSA-%zu  %s %s |%s\n", bits, who, line, nl + 1);
    } else {
        printf("RSA-%zu  %s %s\n", bits, who, line);
    }
}

#define TUNE_WAIT_S 120.0

static void bench_rsa(size_t bits, gmp_randstate_t r)
{
    rsa_test_key t;
    rsa_test_key_init(&t);
    rsa_test_key_random(&t, bits, 2, r);
    EVP_PKEY *km = pt_rsa_pkey(ctx.mns, PT_MNS_PROPQ, &t), *kd = pt_rsa_pkey(ctx.def, NULL, &t);
    mns_rsa *direct = NULL;
    if (!km || !kd || mns_rsa_new(&direct, t.n, t.e, t.d, (const mpz_t *)t.p, 2, "auto") != MNS_OK) {
        printf("RSA-%zu: key set-up failed\n", bits);
        return;
    }
    rsa_arg am = {km, ctx.mns, PT_MNS_PROPQ, NULL}, ad = {kd, ctx.def, NULL, NULL},
            dir = {NULL, NULL, NULL, direct};
    char buf[2000];
    void *st = rsa_make(&am);
    for (int i = 0; i < 2000 && strncmp(backend(km, buf, sizeof buf), "rsa ", 4) != 0; i++) {
        rsa_op(st); /* past the quick CRT, then wait for the full key */
        if (i > 16)
            usleep(10000);
    }
    /* then until its tuning is in use (at most TUNE_WAIT_S): the steady
     * state of a process that keeps signing, as mns_rsa_wait gives the
     * direct key */
    const double t0 = now();
    while (now() - t0 < TUNE_WAIT_S && !strstr(backend(km, buf, sizeof buf), "plan=tuned")) {
        rsa_op(st);
        usleep(10000);
    }
    rsa_drop(st);
    mpz_t x;
    mpz_init_set_ui(x, 2);
    mns_rsa_private(direct, x, x, 1); /* wakes its tuner */
    mpz_clear(x);
    mns_rsa_wait(direct);
    print_desc(bits, "mns key:", backend(km, buf, sizeof buf));
    print_desc(bits, "direct: ", mns_rsa_describe(direct));
    for (int th = 1; th <= 2; th++) {
        double r[3];
        void *args[3] = {&am, &ad, &dir};
        rates(r, 3, rsa_op, rsa_make, rsa_drop, args, th);
        double m = r[0], d = r[1], x = r[2];
        printf("RSA-%zu  %d thr  sign/s: mns %8.1f  default %8.1f  mns_rsa direct %8.1f  "
               "mns/default %.2f  EVP overhead %+.1f%%\n",
               bits, th, m, d, x, m / d, 100.0 * (x / m - 1));
    }
    mns_rsa_free(direct);
    EVP_PKEY_free(km);
    EVP_PKEY_free(kd);
}

/* ---- DH ---- */

typedef struct dh_arg {
    EVP_PKEY *k, *peer;
    OSSL_LIB_CTX *lib;
    const char *propq;
} dh_arg;

typedef struct dh_state {
    EVP_PKEY_CTX *pc;
    unsigned char out[1100];
} dh_state;

static void *dh_make(void *va)
{
    dh_arg *a = va;
    dh_state *s = calloc(1, sizeof *s);
    s->pc = EVP_PKEY_CTX_new_from_pkey(a->lib, a->k, a->propq);
    if (!s->pc || EVP_PKEY_derive_init(s->pc) <= 0 || EVP_PKEY_derive_set_peer(s->pc, a->peer) <= 0) {
        EVP_PKEY_CTX_free(s->pc);
        free(s);
        return NULL;
    }
    return s;
}

static void dh_drop(void *vs)
{
    dh_state *s = vs;
    if (s)
        EVP_PKEY_CTX_free(s->pc);
    free(s);
}

static int dh_op(void *vs)
{
    dh_state *s = vs;
    size_t len = sizeof s->out;
    return EVP_PKEY_derive(s->pc, s->out, &len) > 0;
}

static EVP_PKEY *dh_gen(OSSL_LIB_CTX *lib, const char *propq, const char *group)
{
    EVP_PKEY *k = NULL;
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_name(lib, "DH", propq);
    if (!pc || EVP_PKEY_keygen_init(pc) <= 0 || EVP_PKEY_CTX_set_group_name(pc, group) <= 0 ||
        EVP_PKEY_keygen(pc, &k) <= 0)
        k = NULL;
    EVP_PKEY_CTX_free(pc);
    return k;
}

static void bench_dh(const char *group)
{
    EVP_PKEY *am = dh_gen(ctx.mns, PT_MNS_PROPQ, group), *bm = dh_gen(ctx.mns, PT_MNS_PROPQ, group);
    EVP_PKEY *ad = dh_gen(ctx.def, NULL, group), *bd = dh_gen(ctx.def, NULL, group);
    if (!am || !bm || !ad || !bd) {
        printf("%s: keys failed\n", group);
        return;
    }
    dh_arg m = {am, bm, ctx.mns, PT_MNS_PROPQ}, d = {ad, bd, ctx.def, NULL};
    char buf[160];
    void *st = dh_make(&m);
    /* "quick ..." until the group's field is chosen (dh_group.h) */
    for (int i = 0; i < 3000 && strncmp(backend(am, buf, sizeof buf), "quick", 5) == 0; i++) {
        dh_op(st);
        if (i > 16)
            usleep(10000);
    }
    dh_drop(st);
    printf("%-9s mns field: %.100s\n", group, backend(am, buf, sizeof buf));
    for (int th = 1; th <= 2; th++) {
        double r[2];
        void *args[2] = {&m, &d};
        rates(r, 2, dh_op, dh_make, dh_drop, args, th);
        double rm = r[0], rd = r[1];
        printf("%-9s %d thr  derive/s: mns %8.1f  default %8.1f  mns/default %.2f\n", group, th, rm,
               rd, rm / rd);
    }
    EVP_PKEY_free(am);
    EVP_PKEY_free(bm);
    EVP_PKEY_free(ad);
    EVP_PKEY_free(bd);
}

int main(int argc, char **argv)
{
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "-q") == 0)
            quick = 1;
    }
    if (!pt_open(&ctx)) {
        fprintf(stderr, "mns-provider-bench: cannot load mns.so from %s\n", MNS_PROVIDER_DIR);
        return 1;
    }
    printf("mns-provider-bench: %s, %s; best of %d x %.2f s\n", OpenSSL_version(OPENSSL_VERSION),
           mns_version(), reps, secs);
    gmp_randstate_t r;
    gmp_randinit_default(r);
    gmp_randseed_ui(r, 42);
    static const size_t sizes[] = {2048, 3072, 4096};
    for (int i = 0; i < (quick ? 1 : 3); i++)
        bench_rsa(sizes[i], r);
    static const char *const groups[] = {"ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192"};
    for (int i = 0; i < (quick ? 1 : 5); i++)
        bench_dh(groups[i]);
    gmp_randclear(r);
    pt_close(&ctx);
    return 0;
}
