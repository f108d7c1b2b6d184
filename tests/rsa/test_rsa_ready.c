/* RSA keys that are usable at once, and the rough edges of the API:
 *   - an "auto" key signs first on its starting plan (backends that need no
 *     parameter generation), then on its tuned plan, with identical results;
 *     signatures taken from several threads while the switch happens are
 *     all right; a key freed while its tuning runs stops it (cancel flag of
 *     core/deadline.h) and leaks nothing (the valgrind run of rsa.cmake);
 *   - tiny primes: served by the starting plan, never tuned; an explicit
 *     backend that cannot serve them refuses with a message;
 *   - hash names in any case and spelling, the SHA-512/t and SHA-3 digests
 *     (byte for byte against OpenSSL in test_rsa.c; here the encodings'
 *     lengths and refusals), each error with its own message;
 *   - a key restricted to PSS refuses PKCS#1 v1.5 and still runs the
 *     private operation.
 * Argument --quick: the small sizes only (the valgrind run). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/deadline.h"
#include "mns.h"
#include "mns_rsa.h"
#include "rsa/rsa_internal.h"
#include "rsa_keygen.h"
#include "testutil.h"

static int all_on(const mns_rsa *plan, const char *backend)
{
    char want[32];
    snprintf(want, sizeof want, " %s kernel=", backend);
    const char *d = mns_rsa_describe(plan);
    int channels = 0, on = 0;
    for (const char *l = strstr(d, "\n ch"); l; l = strstr(l + 1, "\n ch")) {
        if (l[4] < '0' || l[4] > '9')
            continue;
        int len = (int)strcspn(l + 1, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", len, l + 1);
        channels++;
        on += strstr(line, want) != NULL;
    }
    return channels > 0 && channels == on;
}

static int sign(const mns_rsa *key, unsigned char *sig, const unsigned char *dg)
{
    return mns_rsa_sign_pkcs1v15(key, sig, "sha256", dg, 32, 1) == MNS_OK;
}

/* The first signature comes from the starting plan, later ones from the
 * tuned plan, and they are the same bytes; the private operation agrees
 * with GMP on both. */
static void test_start_then_tuned(size_t bits, int k)
{
    rsa_test_key t;
    rsa_test_key_make(&t, bits, k, mt_rand);
    mns_rsa *key;
    mns_status st = mns_rsa_new_held_(&key, t.n, t.e, t.d, (const mpz_t *)t.p, k, "auto");
    MT_CHECK(st == MNS_OK, "ready %zu x %d: mns_rsa_new: %s", bits, k, mns_last_error());
    if (st != MNS_OK) {
        rsa_test_key_clear(&t);
        return;
    }
    const char *start = mns_cpu_has_ifma() ? "mont-ifma" : "mont";
    MT_CHECK(!mns_rsa_tuned(key) && strstr(mns_rsa_describe(key), " plan=start "),
             "ready %zu x %d: not on the starting plan: %s", bits, k, mns_rsa_describe(key));
    /* mont-ifma may refuse a prime; mont then serves it */
    MT_CHECK(all_on(key, start) || all_on(key, "mont"),
             "ready %zu x %d: the starting plan is not on %s: %s", bits, k, start,
             mns_rsa_describe(key));
    size_t nb = mns_rsa_bytes(key);
    unsigned char *s1 = calloc(nb, 1), *s2 = calloc(nb, 1), dg[32];
    for (size_t i = 0; i < sizeof dg; i++)
        dg[i] = (unsigned char)mt_u64();
    MT_CHECK(sign(key, s1, dg), "ready %zu x %d: first signature: %s", bits, k, mns_last_error());
    mpz_t in, out, ref;
    mpz_inits(in, out, ref, NULL);
    mpz_urandomm(in, mt_rand, t.n);
    mpz_powm(ref, in, t.d, t.n);
    MT_CHECK(mns_rsa_private(key, out, in, k) == MNS_OK && mpz_cmp(out, ref) == 0,
             "ready %zu x %d: starting plan's private operation wrong", bits, k);

    mns_rsa_tune_start_(key, t.d, (const mpz_t *)t.p);
    mns_rsa_wait(key);
    mns_rsa_wait(key); /* a second wait returns at once */
    MT_CHECK(mns_rsa_tuned(key) && strstr(mns_rsa_describe(key), " plan=tuned "),
             "ready %zu x %d: not tuned after mns_rsa_wait: %s", bits, k, mns_rsa_describe(key));
    MT_CHECK(mns_rsa_now(key) != key, "ready %zu x %d: the key's plan did not change", bits, k);
    MT_CHECK(sign(key, s2, dg) && memcmp(s1, s2, nb) == 0,
             "ready %zu x %d: the tuned plan's signature differs from the first one", bits, k);
    MT_CHECK(mns_rsa_private(key, out, in, 1) == MNS_OK && mpz_cmp(out, ref) == 0,
             "ready %zu x %d: tuned plan's private operation wrong", bits, k);
    printf("  %zu x %d: start on %s, tuned: %.*s\n", bits, k, start,
           (int)strcspn(mns_rsa_describe(key), "\n"), mns_rsa_describe(key));
    mpz_clears(in, out, ref, NULL);
    free(s1);
    free(s2);
    mns_rsa_free(key);
    rsa_test_key_clear(&t);
}

/* Calls from several threads while the tuning runs and the plan switches:
 * every result right. */
typedef struct signer {
    const mns_rsa *key;
    const rsa_test_key *t;
    unsigned long seed;
    int calls, bad, tuned_seen;
} signer;

static void *signer_run(void *arg)
{
    signer *s = arg;
    gmp_randstate_t r;
    gmp_randinit_default(r);
    gmp_randseed_ui(r, s->seed);
    mpz_t in, out, ref;
    mpz_inits(in, out, ref, NULL);
    /* until the switch has been seen, then a few more */
    for (int after = 0; after < 4 && s->calls < 100000; s->calls++) {
        mpz_urandomm(in, r, s->t->n);
        mpz_powm(ref, in, s->t->d, s->t->n);
        s->bad += mns_rsa_private(s->key, out, in, 1 + s->calls % 2) != MNS_OK ||
                  mpz_cmp(out, ref) != 0;
        if (mns_rsa_tuned(s->key)) {
            s->tuned_seen = 1;
            after++;
        }
    }
    mpz_clears(in, out, ref, NULL);
    gmp_randclear(r);
    return NULL;
}

static void test_switch_under_load(size_t bits)
{
    rsa_test_key t;
    rsa_test_key_make(&t, bits, 2, mt_rand);
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, 2, NULL);
    MT_CHECK(st == MNS_OK, "switch: mns_rsa_new: %s", mns_last_error());
    if (st == MNS_OK) {
        enum { N = 3 };
        pthread_t th[N];
        signer s[N];
        for (int i = 0; i < N; i++) {
            s[i] = (signer){key, &t, mt_seed + 77 + (unsigned long)i, 0, 0, 0};
            pthread_create(&th[i], NULL, signer_run, &s[i]);
        }
        int bad = 0, seen = 0, calls = 0;
        for (int i = 0; i < N; i++) {
            pthread_join(th[i], NULL);
            bad += s[i].bad;
            seen += s[i].tuned_seen;
            calls += s[i].calls;
        }
        MT_CHECK(bad == 0, "switch: %d wrong results of %d while the plan switched", bad, calls);
        MT_CHECK(seen == N, "switch: %d of %d threads saw the tuned plan", seen, N);
        mns_rsa_free(key);
    }
    rsa_test_key_clear(&t);
}

/* Freed at once, and freed in the middle of the tuning: the tuning stops
 * (nothing to check but that it returns, and, under valgrind, leaks
 * nothing); the cancel flag stops a generation in progress. */
static void test_free_while_tuning(size_t bits)
{
    rsa_test_key t;
    rsa_test_key_make(&t, bits, 2, mt_rand);
    for (int round = 0; round < 2; round++) {
        mns_rsa *key;
        mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, 2, "auto");
        MT_CHECK(st == MNS_OK, "free while tuning %zu: mns_rsa_new: %s", bits, mns_last_error());
        if (st != MNS_OK)
            break;
        if (round) { /* one signature first */
            mpz_t out;
            mpz_init(out);
            MT_CHECK(mns_rsa_private(key, out, t.p[0], 1) == MNS_OK, "free while tuning: sign");
            mpz_clear(out);
        }
        mns_rsa_free(key);
    }
    /* the flag itself: a PMNS generation in a thread whose flag is set gives up */
    mns_field *f = NULL;
    int flag = 1;
    mns_deadline_set_cancel(&flag);
    mns_status st = mns_field_new(&f, t.p[0], "pmns-mp");
    MT_CHECK(st != MNS_OK && strstr(mns_last_error(), "deadline"),
             "cancel flag: pmns-mp generation not stopped (status %d: %s)", (int)st,
             mns_last_error());
    mns_deadline_set_cancel(NULL);
    mns_field_free(f);
    rsa_test_key_clear(&t);
}

/* Tiny primes: the starting plan serves them, no tuning is started, and a
 * backend that cannot serve them says so. */
static void test_tiny(void)
{
    static const unsigned long keys[][4] = {{3, 11, 3, 7}, {5, 11, 3, 7}, {7, 11, 7, 43}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        mpz_t n, e, d, p[2], in, out, ref;
        mpz_inits(n, e, d, p[0], p[1], in, out, ref, NULL);
        mpz_set_ui(p[0], keys[i][0]);
        mpz_set_ui(p[1], keys[i][1]);
        mpz_mul(n, p[0], p[1]);
        mpz_set_ui(e, keys[i][2]);
        mpz_set_ui(d, keys[i][3]);
        mns_rsa *key;
        mns_status st = mns_rsa_new(&key, n, e, d, (const mpz_t *)p, 2, "auto");
        MT_CHECK(st == MNS_OK, "tiny %lu x %lu: %s", keys[i][0], keys[i][1], mns_last_error());
        if (st == MNS_OK) {
            mns_rsa_wait(key);
            MT_CHECK(!mns_rsa_tuned(key), "tiny %lu x %lu: tuned", keys[i][0], keys[i][1]);
            int bad = 0;
            for (unsigned long x = 0; x < mpz_get_ui(n); x++) {
                mpz_set_ui(in, x);
                mpz_powm(ref, in, d, n);
                bad += mns_rsa_private(key, out, in, 2) != MNS_OK || mpz_cmp(out, ref) != 0;
            }
            MT_CHECK(bad == 0, "tiny %lu x %lu: %d wrong results", keys[i][0], keys[i][1], bad);
            mns_rsa_free(key);
        }
        /* an explicit backend either serves them right or refuses with a message */
        static const char *specs[] = {"pmns", "pmns-mp", "rns", "sor", "mpart", "mont-ifma"};
        for (size_t j = 0; j < sizeof specs / sizeof specs[0]; j++) {
            st = mns_rsa_new(&key, n, e, d, (const mpz_t *)p, 2, specs[j]);
            MT_CHECK(st == MNS_OK || ((st == MNS_ENOTSUP || st == MNS_EINVAL) && *mns_last_error()),
                     "tiny %lu x %lu on %s: status %d, message \"%s\"", keys[i][0], keys[i][1],
                     specs[j], (int)st, mns_last_error());
            if (st != MNS_OK)
                continue;
            int bad = 0;
            for (unsigned long x = 0; x < mpz_get_ui(n); x++) {
                mpz_set_ui(in, x);
                mpz_powm(ref, in, d, n);
                bad += mns_rsa_private(key, out, in, 1) != MNS_OK || mpz_cmp(out, ref) != 0;
            }
            MT_CHECK(bad == 0, "tiny %lu x %lu on %s: %d wrong results", keys[i][0], keys[i][1],
                     specs[j], bad);
            mns_rsa_free(key);
        }
        mpz_clears(n, e, d, p[0], p[1], in, out, ref, NULL);
    }
}

/* Hash names: case and spelling; the new digests' lengths; every refusal
 * with its own message (a stale one from the call before never shows). */
static void test_hashes_and_messages(const mns_rsa *key)
{
    static const struct {
        const char *name;
        size_t len;
    } ok[] = {{"SHA256", 32},      {"Sha-256", 32},     {"sha2-256", 32},    {"SHA1", 20},
              {"sha-1", 20},       {"SHA512/224", 28},  {"sha512_256", 32},  {"SHA2-512/256", 32},
              {"sha512-224", 28},  {"SHA3-224", 28},    {"sha3_256", 32},    {"Sha3-384", 48},
              {"sha3-512", 64},    {"SHA224", 28},      {"sha384", 48},      {"SHA512", 64}};
    size_t nb = mns_rsa_bytes(key);
    unsigned char *sig = calloc(nb, 1), dg[64] = {1, 2, 3};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        mns_status st = mns_rsa_sign_pkcs1v15(key, sig, ok[i].name, dg, ok[i].len, 1);
        MT_CHECK(st == MNS_OK, "hash \"%s\" refused: %s", ok[i].name, mns_last_error());
        st = mns_rsa_sign_pkcs1v15(key, sig, ok[i].name, dg, ok[i].len + 1, 1);
        MT_CHECK(st == MNS_EINVAL && strstr(mns_last_error(), "digest has"),
                 "hash \"%s\" with a wrong length: %d \"%s\"", ok[i].name, (int)st,
                 mns_last_error());
    }
    static const char *bad[] = {"sha3", "sha-3", "md5", "sha256x", "", "sha512/2244"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mns_status st = mns_rsa_sign_pkcs1v15(key, sig, bad[i], dg, 32, 1);
        MT_CHECK(st == MNS_EINVAL && strstr(mns_last_error(), "unknown hash"),
                 "hash \"%s\": %d \"%s\"", bad[i], (int)st, mns_last_error());
    }
    /* each error its own message, even after another one */
    (void)mns_rsa_sign_pkcs1v15(key, sig, "md5", dg, 16, 1);
    mns_status st = mns_rsa_sign_pkcs1v15(key, sig, "sha256", dg, 32, 0);
    MT_CHECK(st == MNS_EINVAL && strstr(mns_last_error(), "threads"),
             "threads = 0: %d \"%s\"", (int)st, mns_last_error());
    st = mns_rsa_restrict(NULL, MNS_RSA_PSS_ONLY);
    MT_CHECK(st == MNS_EINVAL && strstr(mns_last_error(), "NULL key"), "restrict(NULL): \"%s\"",
             mns_last_error());
    free(sig);
}

/* A key restricted to PSS: no PKCS#1 v1.5, the private operation still. */
static void test_pss_only(void)
{
    rsa_test_key t;
    rsa_test_key_make(&t, 1024, 2, mt_rand);
    mns_rsa *key;
    if (mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, 2, "mont") != MNS_OK) {
        MT_CHECK(0, "pss: mns_rsa_new: %s", mns_last_error());
        rsa_test_key_clear(&t);
        return;
    }
    test_hashes_and_messages(key);
    size_t nb = mns_rsa_bytes(key);
    unsigned char *sig = calloc(nb, 1), *orig = calloc(nb, 1), dg[32] = {9};
    memset(sig, 0x5a, nb);
    memset(orig, 0x5a, nb);
    MT_CHECK(mns_rsa_restrict(key, 0x80) == MNS_EINVAL && strstr(mns_last_error(), "unknown flags"),
             "restrict: unknown flag accepted (\"%s\")", mns_last_error());
    MT_CHECK(mns_rsa_restrict(key, MNS_RSA_PSS_ONLY) == MNS_OK, "restrict: %s", mns_last_error());
    mns_status st = mns_rsa_sign_pkcs1v15(key, sig, "sha256", dg, 32, 1);
    MT_CHECK(st == MNS_EINVAL && strstr(mns_last_error(), "RSASSA-PSS") && !memcmp(sig, orig, nb),
             "pss-only key signed PKCS#1 v1.5 (status %d, \"%s\")", (int)st, mns_last_error());
    mpz_t in, out, ref;
    mpz_inits(in, out, ref, NULL);
    mpz_urandomm(in, mt_rand, t.n);
    mpz_powm(ref, in, t.d, t.n);
    MT_CHECK(mns_rsa_private(key, out, in, 2) == MNS_OK && mpz_cmp(out, ref) == 0,
             "pss-only key: private operation refused or wrong: %s", mns_last_error());
    mpz_clears(in, out, ref, NULL);
    free(sig);
    free(orig);
    mns_rsa_free(key);
    rsa_test_key_clear(&t);
}

/* A composite "prime" that passes the creation's test (3215031751 =
 * 151 x 751 x 28351, a strong pseudoprime to base 2, and a Carmichael
 * number, so x^(e d) = x still holds): whatever the key returns is right,
 * anything else is refused by the fault check. */
static void test_pseudoprime(void)
{
    mpz_t n, e, d, p[2], l, t, in, out;
    mpz_inits(n, e, d, p[0], p[1], l, t, in, out, NULL);
    mpz_set_ui(p[0], 3215031751ul);
    mpz_set_ui(p[1], 1000003ul);
    mpz_mul(n, p[0], p[1]);
    mpz_sub_ui(l, p[0], 1);
    mpz_sub_ui(t, p[1], 1);
    mpz_lcm(l, l, t);
    for (mpz_set_ui(e, 3); !mpz_invert(d, e, l); mpz_add_ui(e, e, 2))
        ;
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, n, e, d, (const mpz_t *)p, 2, "auto");
    if (st == MNS_OK) {
        int refused = 0, wrong = 0, other = 0;
        for (unsigned long x = 2; x < 200; x++) {
            mpz_set_ui(in, x);
            mpz_set_ui(out, 77);
            st = mns_rsa_private(key, out, in, 1);
            refused += st == MNS_ERANGE && mpz_cmp_ui(out, 77) == 0;
            other += st != MNS_OK && st != MNS_ERANGE;
            if (st == MNS_OK) { /* a right value is fine: x^(ed) = x may hold for some x */
                mpz_powm(t, out, e, n);
                wrong += mpz_cmp(t, in) != 0;
            }
        }
        MT_CHECK(wrong == 0 && other == 0,
                 "pseudoprime key: %d wrong results returned, %d other failures (%d refused)",
                 wrong, other, refused);
        mns_rsa_free(key);
    } else {
        MT_CHECK(st == MNS_EINVAL && *mns_last_error(), "pseudoprime key: %d \"%s\"", (int)st,
                 mns_last_error());
    }
    mpz_clears(n, e, d, p[0], p[1], l, t, in, out, NULL);
}

/* Primes above mont-ifma's 4158 bits start on rns-ifma where the CPU has
 * IFMA (on mont elsewhere); the starting plan agrees with GMP, and the
 * validation's prime test (in the same fields) takes the key. Not tuned:
 * the tuned plan's channels at this size are a PMNS generation. */
static void test_start_large(void)
{
    rsa_test_key t;
    rsa_test_key_make(&t, 8320, 2, mt_rand); /* primes of 4160 bits */
    mns_rsa *key;
    mns_status st = mns_rsa_new_held_(&key, t.n, t.e, t.d, (const mpz_t *)t.p, 2, "auto");
    MT_CHECK(st == MNS_OK, "ready 8320 x 2: mns_rsa_new: %s", mns_last_error());
    if (st != MNS_OK) {
        rsa_test_key_clear(&t);
        return;
    }
    const char *start = mns_cpu_has_ifma() ? "rns-ifma" : "mont";
    MT_CHECK(all_on(key, start), "ready 8320 x 2: the starting plan is not on %s: %s", start,
             mns_rsa_describe(key));
    mpz_t in, out, ref;
    mpz_inits(in, out, ref, NULL);
    mpz_urandomm(in, mt_rand, t.n);
    mpz_powm(ref, in, t.d, t.n);
    MT_CHECK(mns_rsa_private(key, out, in, 1) == MNS_OK && mpz_cmp(out, ref) == 0,
             "ready 8320 x 2: starting plan's private operation wrong");
    mpz_clears(in, out, ref, NULL);
    mns_rsa_free(key);
    rsa_test_key_clear(&t);
}

int main(int argc, char **argv)
{
    mt_init("test_rsa_ready");
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    test_tiny();
    test_pseudoprime();
    test_pss_only();
    /* --quick (valgrind): 512-bit keys, whose tuning is short even there */
    test_start_then_tuned(quick ? 512 : 1024, 2);
    test_start_then_tuned(quick ? 768 : 1536, 3);
    if (!quick) {
        test_start_then_tuned(2048, 2);
        test_start_then_tuned(2048, 4);
        test_start_then_tuned(3072, 2);
        test_start_large();
    }
    test_switch_under_load(quick ? 512 : 1024);
    test_free_while_tuning(quick ? 512 : 1024);
    if (!quick)
        test_free_while_tuning(4096);
    return mt_finish();
}
