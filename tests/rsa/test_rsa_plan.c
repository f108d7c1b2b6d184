/* The tuned plan of an "auto" key is the same in every process, and the
 * first signature does not wait for the tuner:
 *   - the same key (same seed) tuned in two child processes (this program
 *     run again with --plan) gives the same plan description once the
 *     timings are left out: backends, parameter sets, table rows, pairs
 *     and the guard's verdicts; both children's signatures and private
 *     operations agree with GMP;
 *   - a key's first signature returns while the test holds the tuner's
 *     lock (a call that woke the tuner through it would block there), the
 *     tuning has not started when it returns, and it starts on its own
 *     afterwards (mns_rsa_wait is not called for it) with the same results.
 * Argument --plan BITS K (MNS_TEST_SEED set): the child's work. */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mns.h"
#include "mns_rsa.h"
#include "rsa/rsa_internal.h"
#include "rsa_keygen.h"
#include "testutil.h"

/* out <- the description without its timings (create_ms=, table_us=,
 * start_us=: the only fields that may differ between processes) */
static void plan_text(char *out, size_t cap, const char *d)
{
    static const char *const timing[] = {"create_ms=", "table_us=", "start_us="};
    size_t o = 0;
    while (*d && o + 1 < cap) {
        int skip = 0;
        for (size_t i = 0; i < sizeof timing / sizeof timing[0]; i++)
            skip |= strncmp(d, timing[i], strlen(timing[i])) == 0;
        if (skip) {
            d += strcspn(d, " \n");
            continue;
        }
        out[o++] = *d++;
    }
    out[o] = '\0';
}

/* 1 if the private operation and a signature agree with GMP */
static int agrees(const mns_rsa *key, const rsa_test_key *t)
{
    mpz_t in, out, ref;
    mpz_inits(in, out, ref, NULL);
    mpz_urandomm(in, mt_rand, t->n);
    mpz_powm(ref, in, t->d, t->n);
    int ok = mns_rsa_private(key, out, in, 1) == MNS_OK && mpz_cmp(out, ref) == 0;
    ok = ok && mns_rsa_private(key, out, in, t->k) == MNS_OK && mpz_cmp(out, ref) == 0;
    mpz_clears(in, out, ref, NULL);
    return ok;
}

/* The child: the key of this seed, tuned, its plan printed between markers. */
static int child_plan(size_t bits, int k)
{
    rsa_test_key t;
    rsa_test_key_make(&t, bits, k, mt_rand);
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, k, "auto");
    MT_CHECK(st == MNS_OK, "child %zu x %d: mns_rsa_new: %s", bits, k, mns_last_error());
    if (st == MNS_OK) {
        mns_rsa_wait(key);
        MT_CHECK(mns_rsa_tuned(key), "child %zu x %d: not tuned: %s", bits, k,
                 mns_rsa_describe(key));
        MT_CHECK(agrees(key, &t), "child %zu x %d: tuned plan disagrees with GMP", bits, k);
        static char text[16384];
        plan_text(text, sizeof text, mns_rsa_describe(key));
        printf("PLAN-BEGIN\n%s\nPLAN-END\n", text);
        mns_rsa_free(key);
    }
    rsa_test_key_clear(&t);
    return mt_finish();
}

/* The text between the markers of one child run; 0 if the child failed. */
static int run_child(const char *self, size_t bits, int k, char *plan, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "MNS_TEST_SEED=%lu '%s' --plan %zu %d", mt_seed, self, bits, k);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    char line[16384];
    size_t o = 0;
    int in = 0;
    plan[0] = '\0';
    while (fgets(line, sizeof line, p)) {
        if (strcmp(line, "PLAN-BEGIN\n") == 0)
            in = 1;
        else if (strcmp(line, "PLAN-END\n") == 0)
            in = 0;
        else if (in && o + strlen(line) < cap)
            o += (size_t)snprintf(plan + o, cap - o, "%s", line);
        else if (!in)
            fputs(line, stdout); /* the child's seed line and failures */
    }
    return pclose(p) == 0 && o > 0;
}

static void test_same_plan(const char *self, size_t bits, int k)
{
    static char a[16384], b[16384];
    int ok = run_child(self, bits, k, a, sizeof a) && run_child(self, bits, k, b, sizeof b);
    MT_CHECK(ok, "same plan %zu x %d: a child failed", bits, k);
    MT_CHECK(!ok || strcmp(a, b) == 0, "same plan %zu x %d: the plans differ:\n%s---\n%s", bits,
             k, a, b);
    if (ok)
        printf("  %zu x %d: the same plan in two processes: %.*s\n", bits, k,
               (int)strcspn(a, "\n"), a);
}

typedef struct first_call {
    const mns_rsa *key;
    unsigned char sig[1024];
    int ok;
} first_call;

static void *first_sign(void *arg)
{
    first_call *f = arg;
    unsigned char dg[32] = {1, 2, 3};
    f->ok = mns_rsa_sign_pkcs1v15(f->key, f->sig, "sha256", dg, sizeof dg, 1) == MNS_OK;
    return NULL;
}

static void test_first_call_no_wait(size_t bits)
{
    rsa_test_key t;
    rsa_test_key_make(&t, bits, 2, mt_rand);
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, 2, "auto");
    MT_CHECK(st == MNS_OK, "first call %zu: mns_rsa_new: %s", bits, mns_last_error());
    if (st != MNS_OK) {
        rsa_test_key_clear(&t);
        return;
    }
    MT_CHECK(key->tuning && key->tune_state == MNS_RSA_TUNE_ARMED,
             "first call %zu: no armed tuner (state %d)", bits, key->tune_state);
    first_call f = {key, {0}, 0};
    pthread_t th;
    pthread_mutex_lock(&key->tune_lock); /* the tuner's state cannot change now */
    int made = pthread_create(&th, NULL, first_sign, &f) == 0, joined = 0;
    if (made) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 60; /* a signature takes milliseconds; only a call blocked on the lock stays */
        joined = pthread_timedjoin_np(th, NULL, &ts) == 0;
    }
    /* both read under the lock: once it is released the tuner may start and
     * finish at once (seen with the process pinned to one CPU) */
    const int state = key->tune_state, tuned_then = mns_rsa_tuned(key);
    pthread_mutex_unlock(&key->tune_lock);
    if (made && !joined)
        pthread_join(th, NULL);
    MT_CHECK(joined && f.ok, "first call %zu: the first signature waited for the tuner's lock",
             bits);
    MT_CHECK(state == MNS_RSA_TUNE_ARMED && !tuned_then,
             "first call %zu: the call started the tuning itself (state %d)", bits, state);
    MT_CHECK(__atomic_load_n(&key->called, __ATOMIC_ACQUIRE) == 1,
             "first call %zu: the call left no cue for the tuner", bits);
    /* the tuner starts on its own: polled, without mns_rsa_wait */
    int tuned = 0;
    for (int i = 0; i < 6000 && !tuned; i++) {
        tuned = mns_rsa_tuned(key);
        if (!tuned)
            usleep(10000);
    }
    MT_CHECK(tuned, "first call %zu: the tuning did not start on its own within 60 s", bits);
    first_call g = {key, {0}, 0};
    first_sign(&g);
    MT_CHECK(g.ok && memcmp(f.sig, g.sig, mns_rsa_bytes(key)) == 0,
             "first call %zu: the tuned plan's signature differs from the first", bits);
    MT_CHECK(agrees(key, &t), "first call %zu: tuned plan disagrees with GMP", bits);
    mns_rsa_free(key);
    rsa_test_key_clear(&t);
}

int main(int argc, char **argv)
{
    mt_init("test_rsa_plan");
    if (argc == 4 && strcmp(argv[1], "--plan") == 0)
        return child_plan((size_t)atol(argv[2]), atoi(argv[3]));
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    MT_CHECK(n > 0, "cannot read /proc/self/exe");
    if (n > 0) {
        self[n] = '\0';
        test_same_plan(self, 1024, 2);
        test_same_plan(self, 2048, 2);
        test_same_plan(self, 2048, 3);
        test_same_plan(self, 3072, 2);
    }
    test_first_call_no_wait(1024);
    test_first_call_no_wait(2048);
    return mt_finish();
}
