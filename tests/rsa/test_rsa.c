/* mns_rsa: known answers (tests/vectors/rsa_pkcs1v15.txt, made with the
 * openssl CLI), signatures cross-checked against libcrypto's EVP_PKEY_sign,
 * random k-prime keys against GMP's mpz_powm, every thread count and both
 * thread modes giving the same result, bad keys and inputs refused, a fault
 * injected in each channel caught, concurrent callers on one key.
 *
 * The key sizes here keep the run well under 90 s per kernel path; the
 * larger ones are in test_slow_rsa.c, which includes this file with
 * MNS_RSA_SLOW defined.
 *
 * MNS_RSA_SPEC=<spec> picks the channels' backend (default "auto"); a few
 * explicit specs are tried on small keys too, skipped when not registered or
 * not able to serve the primes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mns.h"
#include "mns_rsa.h"
#include "rsa/rsa_internal.h"
#include "rsa_keygen.h"
#include "testutil.h"

#ifdef MNS_HAVE_LIBCRYPTO
#include "rsa_ossl.h"
#endif

#ifndef MNS_RSA_SLOW
#define MNS_RSA_SLOW 0
#endif

static const char *spec_default(void)
{
    const char *s = getenv("MNS_RSA_SPEC");
    return s && *s ? s : "auto";
}

/* ---- keys ---- */

/* ---- known-answer vectors ---- */

static void hex_to_bytes(const char *h, unsigned char **out, size_t *len)
{
    size_t n = strlen(h) / 2;
    *out = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        (*out)[i] = (unsigned char)v;
    }
    *len = n;
}

typedef struct kat_sig {
    char hash[16];
    unsigned char *digest, *sig;
    size_t dlen, slen;
} kat_sig;

#define KAT_MAX_SIGS 16

typedef struct kat_key {
    char name[64];
    rsa_test_key t;
    int nsigs;
    kat_sig sigs[KAT_MAX_SIGS];
} kat_key;

static void kat_check_key(kat_key *kk)
{
    rsa_test_key *t = &kk->t;
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, t->n, t->e, t->d, (const mpz_t *)t->p, t->k, spec_default());
    MT_CHECK(st == MNS_OK, "KAT %s: mns_rsa_new: %s", kk->name, mns_last_error());
    if (st != MNS_OK)
        return;
#ifdef MNS_HAVE_LIBCRYPTO
    EVP_PKEY *pkey = rsa_ossl_key(t->n, t->e, t->d, (const mpz_t *)t->p, t->k);
    MT_CHECK(pkey != NULL, "KAT %s: OpenSSL refused the key", kk->name);
#endif
    size_t nb = mns_rsa_bytes(key);
    unsigned char *sig = malloc(nb);
    for (int s = 0; s < kk->nsigs; s++) {
        kat_sig *ks = &kk->sigs[s];
        MT_CHECK(ks->slen == nb, "KAT %s: vector signature length %zu != %zu", kk->name, ks->slen,
                 nb);
        for (int threads = 1; threads <= t->k; threads += t->k - 1) {
            memset(sig, 0xa5, nb);
            st = mns_rsa_sign_pkcs1v15(key, sig, ks->hash, ks->digest, ks->dlen, threads);
            MT_CHECK(st == MNS_OK && memcmp(sig, ks->sig, nb) == 0,
                     "KAT %s %s threads=%d: signature differs (%s)", kk->name, ks->hash, threads,
                     st == MNS_OK ? "wrong bytes" : mns_last_error());
        }
#ifdef MNS_HAVE_LIBCRYPTO
        if (pkey) {
            EVP_PKEY_CTX *ctx = rsa_ossl_sign_ctx(pkey, ks->hash);
            unsigned char *osig = malloc(nb);
            size_t olen = nb;
            int ok = ctx && rsa_ossl_sign(ctx, osig, &olen, ks->digest, ks->dlen);
            MT_CHECK(ok && olen == nb && memcmp(osig, ks->sig, nb) == 0,
                     "KAT %s %s: EVP_PKEY_sign disagrees with the openssl CLI vector", kk->name,
                     ks->hash);
            EVP_PKEY_CTX_free(ctx);
            free(osig);
        }
#endif
    }
    free(sig);
#ifdef MNS_HAVE_LIBCRYPTO
    EVP_PKEY_free(pkey);
#endif
    mns_rsa_free(key);
}

static void kat_free(kat_key *kk)
{
    for (int s = 0; s < kk->nsigs; s++) {
        free(kk->sigs[s].digest);
        free(kk->sigs[s].sig);
    }
    kk->nsigs = 0;
}

static void test_kat(void)
{
    const char *path = getenv("MNS_RSA_VECTORS");
#ifdef MNS_RSA_VECTORS_FILE
    if (!path)
        path = MNS_RSA_VECTORS_FILE;
#endif
    FILE *f = path ? fopen(path, "r") : NULL;
    MT_CHECK(f != NULL, "cannot open the vectors file %s", path ? path : "(unset)");
    if (!f)
        return;
    static char line[1 << 16];
    kat_key kk;
    rsa_test_key_init(&kk.t);
    kk.nsigs = 0;
    int keys = 0, sigs = 0, have = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || line[0] == 0)
            continue;
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = 0;
        char *rest = sp + 1;
        if (strcmp(line, "key") == 0) {
            if (have) {
                kat_check_key(&kk);
                kat_free(&kk);
            }
            snprintf(kk.name, sizeof kk.name, "%s", rest);
            kk.t.k = 0;
            have = 1;
            keys++;
        } else if (strcmp(line, "n") == 0) {
            mpz_set_str(kk.t.n, rest, 16);
        } else if (strcmp(line, "e") == 0) {
            mpz_set_str(kk.t.e, rest, 16);
        } else if (strcmp(line, "d") == 0) {
            mpz_set_str(kk.t.d, rest, 16);
        } else if (strcmp(line, "p") == 0 && kk.t.k < MNS_RSA_MAX_PRIMES) {
            mpz_set_str(kk.t.p[kk.t.k++], rest, 16);
        } else if (strcmp(line, "sig") == 0 && kk.nsigs < KAT_MAX_SIGS) {
            char hash[16], msg[512], dg[256];
            static char sg[1 << 14];
            if (sscanf(rest, "%15s %511s %255s %16383s", hash, msg, dg, sg) == 4) {
                kat_sig *ks = &kk.sigs[kk.nsigs++];
                snprintf(ks->hash, sizeof ks->hash, "%s", hash);
                hex_to_bytes(dg, &ks->digest, &ks->dlen);
                hex_to_bytes(sg, &ks->sig, &ks->slen);
                sigs++;
            }
        }
    }
    if (have) {
        kat_check_key(&kk);
        kat_free(&kk);
    }
    fclose(f);
    rsa_test_key_clear(&kk.t);
    printf("test_rsa: %d KAT keys, %d signatures from %s\n", keys, sigs, path);
    MT_CHECK(keys >= 6 && sigs >= 60, "too few vectors (%d keys, %d signatures)", keys, sigs);
}

/* ---- random keys against GMP ---- */

/* Inputs: 0, 1, 2, n-1, p_0, a multiple of the last prime, random. */
static void make_input(mpz_t in, const rsa_test_key *t, int which)
{
    switch (which) {
    case 0: mpz_set_ui(in, 0); break;
    case 1: mpz_set_ui(in, 1); break;
    case 2: mpz_set_ui(in, 2); break;
    case 3: mpz_sub_ui(in, t->n, 1); break;
    case 4: mpz_set(in, t->p[0]); break;
    case 5: mpz_mul_ui(in, t->p[t->k - 1], 3); break;
    default: mpz_urandomm(in, mt_rand, t->n); break;
    }
}

/* The checks of one plan of key: plan is the key itself (explicit spec, or
 * an "auto" key held on its starting plan) or its tuned plan; the calls go
 * through key, and the pairs are forced on plan. */
static void check_plan(const rsa_test_key *t, mns_rsa *key, mns_rsa *plan, const char *spec,
                       int inputs, int faults)
{
    size_t bits = mpz_sizeinbase(t->n, 2);
    mns_status st;
    if (plan->kind == MNS_RSA_PLAN_TUNED) {
        /* channels only multiply: "auto" keys ask delta=0, and every
         * pmns-mp(-ifma) channel (from the table or from the choice) runs
         * it (pmns(-ifma) may report a larger delta: its set's own) */
        const char *d = mns_rsa_describe(key);
        for (const char *l = strstr(d, "\n ch"); l; l = strstr(l + 1, "\n ch")) {
            if (l[4] < '0' || l[4] > '9') /* not a channel's line */
                continue;
            int len = (int)strcspn(l + 1, "\n");
            char line[1024];
            snprintf(line, sizeof line, "%.*s", len, l + 1);
            MT_CHECK(!strstr(line, " pmns-mp") || strstr(line, " delta=0 "),
                     "rsa %zu k=%d auto: a PMNS channel without delta=0: %s", bits, t->k, line);
        }
    }
    mpz_t in, out, ref;
    mpz_inits(in, out, ref, NULL);
    for (int w = 0; w < inputs; w++) {
        make_input(in, t, w);
        mpz_powm(ref, in, t->d, t->n);
        /* every thread count, with the pairs the key chose, with every
         * possible pair forced on (x2 exponentiation on fewer threads than
         * channels), and with every channel alone */
        int chosen[MNS_RSA_MAX_PRIMES / 2];
        memcpy(chosen, plan->pair_on, sizeof chosen);
        for (int force = 0; force < 3; force++) {
            for (int j = 0; 2 * j + 1 < t->k; j++)
                plan->pair_on[j] = force == 0 ? chosen[j] : force == 1 ? plan->x2[j] != 0 : 0;
            for (int threads = 1; threads <= t->k + 1; threads++) {
                mpz_set_ui(out, 7);
                st = mns_rsa_private(key, out, in, threads);
                MT_CHECK(st == MNS_OK && mpz_cmp(out, ref) == 0,
                         "rsa %zu k=%d spec=%s input %d threads=%d pairs %d: %s", bits, t->k, spec,
                         w, threads, force, st == MNS_OK ? "wrong result" : mns_last_error());
            }
        }
        memcpy(plan->pair_on, chosen, sizeof chosen);
        /* fresh threads per call, and aliasing out = in */
        mpz_set(out, in);
        st = mns_rsa_private_ex_(key, out, out, t->k, MNS_RSA_THREADS_SPAWN, -1, 0);
        MT_CHECK(st == MNS_OK && mpz_cmp(out, ref) == 0, "rsa %zu k=%d spawn/alias input %d: %s",
                 bits, t->k, w, st == MNS_OK ? "wrong result" : mns_last_error());
    }
    /* a glitch in any one channel is caught, and nothing is written */
    for (int c = 0; faults && c < t->k; c++) {
        mpz_urandomm(in, mt_rand, t->n);
        mpz_set_ui(out, 12345);
        unsigned bit = (unsigned)mt_below(64 * mpz_size(t->p[c]));
        st = mns_rsa_private_ex_(key, out, in, 1 + c % t->k, MNS_RSA_THREADS_POOL, c, bit);
        MT_CHECK(st == MNS_ERANGE && mpz_cmp_ui(out, 12345) == 0,
                 "rsa %zu k=%d: fault in channel %d bit %u not caught (status %d)", bits, t->k, c,
                 bit, (int)st);
        /* the key is unharmed */
        mpz_powm(ref, in, t->d, t->n);
        st = mns_rsa_private(key, out, in, t->k);
        MT_CHECK(st == MNS_OK && mpz_cmp(out, ref) == 0, "rsa %zu k=%d: after fault: %s", bits,
                 t->k, mns_last_error());
    }
    mpz_clears(in, out, ref, NULL);
}

/* An explicit spec is checked as made; an "auto" key first on its starting
 * plan (held: no tuning yet), then, once the tuning is in use, on the tuned
 * plan. */
static void check_key(const rsa_test_key *t, const char *spec, int inputs, int faults)
{
    mns_rsa *key;
    size_t bits = mpz_sizeinbase(t->n, 2);
    mns_status st = mns_rsa_new_held_(&key, t->n, t->e, t->d, (const mpz_t *)t->p, t->k, spec);
    MT_CHECK(st == MNS_OK, "rsa %zu k=%d spec=%s: mns_rsa_new: %s", bits, t->k, spec,
             mns_last_error());
    if (st != MNS_OK)
        return;
    check_plan(t, key, key, spec, inputs, faults);
    if (key->kind == MNS_RSA_PLAN_START) {
        mns_rsa_tune_start_(key, t->d, (const mpz_t *)t->p);
        mns_rsa_wait(key);
        /* primes of 128 bits or fewer stay on the starting plan (ready.c) */
        size_t pbits = 0;
        for (int i = 0; i < t->k; i++)
            if (mpz_sizeinbase(t->p[i], 2) > pbits)
                pbits = mpz_sizeinbase(t->p[i], 2);
        MT_CHECK(mns_rsa_tuned(key) == (pbits > 128),
                 "rsa %zu k=%d auto: tuned = %d after mns_rsa_wait with %zu-bit primes", bits,
                 t->k, mns_rsa_tuned(key), pbits);
        if (mns_rsa_tuned(key))
            check_plan(t, key, (mns_rsa *)mns_rsa_now(key), spec, inputs, faults);
    }
    mns_rsa_free(key);
}

#ifdef MNS_HAVE_LIBCRYPTO
/* PKCS#1 v1.5 signatures of random digests equal OpenSSL's (k <= 5). */
static void check_ossl(const rsa_test_key *t, int rounds)
{
    EVP_PKEY *pkey = rsa_ossl_key(t->n, t->e, t->d, (const mpz_t *)t->p, t->k);
    MT_CHECK(pkey != NULL, "OpenSSL refused a %d-prime key", t->k);
    mns_rsa *key;
    if (!pkey || mns_rsa_new(&key, t->n, t->e, t->d, (const mpz_t *)t->p, t->k, spec_default()) !=
                     MNS_OK) {
        EVP_PKEY_free(pkey);
        return;
    }
    /* every hash mns knows, in OpenSSL's spelling */
    static const char *hashes[] = {"sha1",       "sha224",     "sha256",   "sha384",
                                   "sha512",     "sha512-224", "sha512-256", "sha3-224",
                                   "sha3-256",   "sha3-384",   "sha3-512"};
    static const size_t lens[] = {20, 28, 32, 48, 64, 28, 32, 28, 32, 48, 64};
    const int nh = (int)(sizeof lens / sizeof lens[0]);
    size_t nb = mns_rsa_bytes(key);
    unsigned char *a = malloc(nb), *b = malloc(nb), dg[64];
    if (rounds < nh)
        rounds = nh;
    for (int r = 0; r < rounds; r++) {
        int h = r % nh;
        for (size_t i = 0; i < lens[h]; i++)
            dg[i] = (unsigned char)mt_u64();
        mns_status st = mns_rsa_sign_pkcs1v15(key, a, hashes[h], dg, lens[h], 1 + r % t->k);
        EVP_PKEY_CTX *ctx = rsa_ossl_sign_ctx(pkey, hashes[h]);
        size_t blen = nb;
        int ok = ctx && rsa_ossl_sign(ctx, b, &blen, dg, lens[h]);
        MT_CHECK(st == MNS_OK && ok && blen == nb && memcmp(a, b, nb) == 0,
                 "rsa %zu k=%d %s: signature differs from EVP_PKEY_sign", mpz_sizeinbase(t->n, 2),
                 t->k, hashes[h]);
        EVP_PKEY_CTX_free(ctx);
    }
    free(a);
    free(b);
    mns_rsa_free(key);
    EVP_PKEY_free(pkey);
}
#endif

/* ---- refusals ---- */

static void expect_bad_key(const rsa_test_key *t, int k, const char *spec, const char *what)
{
    mns_rsa *key = (mns_rsa *)&key; /* must come back NULL */
    mns_status st = mns_rsa_new(&key, t->n, t->e, t->d, (const mpz_t *)t->p, k, spec);
    MT_CHECK(st == MNS_EINVAL && key == NULL && mns_last_error()[0],
             "bad key (%s) accepted or wrong status %d", what, (int)st);
    if (st == MNS_OK)
        mns_rsa_free(key);
}

static void test_refusals(void)
{
    rsa_test_key t, b;
    rsa_test_key_init(&t);
    rsa_test_key_init(&b);
    rsa_test_key_random(&t, 768, 3, mt_rand);

#define RESET()                                                                                    \
    do {                                                                                           \
        b.k = t.k;                                                                                 \
        mpz_set(b.n, t.n);                                                                         \
        mpz_set(b.e, t.e);                                                                         \
        mpz_set(b.d, t.d);                                                                         \
        for (int i = 0; i < MNS_RSA_MAX_PRIMES; i++)                                               \
            mpz_set(b.p[i], t.p[i]);                                                               \
    } while (0)

    RESET();
    expect_bad_key(&b, 1, "auto", "k = 1");
    expect_bad_key(&b, 9, "auto", "k = 9");
    expect_bad_key(&b, 0, "auto", "k = 0");
    expect_bad_key(&b, 2, "auto", "k = 2 of 3 primes: product != n");
    RESET();
    mpz_set(b.p[2], b.p[0]);
    expect_bad_key(&b, 3, "auto", "equal primes");
    RESET();
    mpz_add_ui(b.n, b.n, 2);
    expect_bad_key(&b, 3, "auto", "product != n");
    RESET();
    mpz_add_ui(b.d, b.d, 2);
    expect_bad_key(&b, 3, "auto", "wrong d");
    RESET();
    mpz_set_ui(b.d, 0);
    expect_bad_key(&b, 3, "auto", "d = 0");
    RESET();
    mpz_set(b.d, b.n);
    expect_bad_key(&b, 3, "auto", "d = n");
    RESET();
    mpz_set_ui(b.e, 1);
    expect_bad_key(&b, 3, "auto", "e = 1");
    RESET();
    mpz_set_ui(b.e, 65536);
    expect_bad_key(&b, 3, "auto", "e even");
    RESET();
    mpz_set_ui(b.p[0], 2);
    expect_bad_key(&b, 3, "auto", "prime 2");
    RESET();
    /* a composite "prime" with a consistent n and d */
    mpz_mul(b.p[1], t.p[1], t.p[2]);
    mpz_set_ui(b.p[2], 0);
    b.k = 2;
    expect_bad_key(&b, 2, "auto", "composite factor");
    RESET();
    expect_bad_key(&b, 3, "no-such-backend", "unknown spec");
    {
        mns_status st = mns_rsa_new(NULL, t.n, t.e, t.d, (const mpz_t *)t.p, 3, "auto");
        MT_CHECK(st == MNS_EINVAL, "NULL key pointer accepted");
        mns_rsa *key;
        st = mns_rsa_new(&key, t.n, t.e, t.d, NULL, 3, "auto");
        MT_CHECK(st == MNS_EINVAL && key == NULL, "NULL primes accepted");
    }

    /* out-of-range inputs and bad arguments of a good key */
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, 3, NULL);
    MT_CHECK(st == MNS_OK, "good key refused: %s", mns_last_error());
    if (st == MNS_OK) {
        mpz_t in, out;
        mpz_inits(in, out, NULL);
        mpz_set_ui(out, 99);
        mpz_set(in, t.n);
        MT_CHECK(mns_rsa_private(key, out, in, 1) == MNS_EINVAL, "input n accepted");
        mpz_mul_2exp(in, t.n, 70);
        MT_CHECK(mns_rsa_private(key, out, in, 1) == MNS_EINVAL, "input > n accepted");
        mpz_set_si(in, -1);
        MT_CHECK(mns_rsa_private(key, out, in, 1) == MNS_EINVAL, "negative input accepted");
        mpz_set_ui(in, 5);
        MT_CHECK(mns_rsa_private(key, out, in, 0) == MNS_EINVAL, "threads = 0 accepted");
        MT_CHECK(mns_rsa_private(key, out, in, -3) == MNS_EINVAL, "threads < 0 accepted");
        MT_CHECK(mns_rsa_private(NULL, out, in, 1) == MNS_EINVAL, "NULL key accepted");
        MT_CHECK(mpz_cmp_ui(out, 99) == 0, "refused call wrote its output");
        MT_CHECK(mns_rsa_private(key, out, in, 100) == MNS_OK, "threads > k refused");

        unsigned char sig[96], dg[64] = {0};
        memset(sig, 0x5a, sizeof sig);
        MT_CHECK(mns_rsa_sign_pkcs1v15(key, sig, "md5", dg, 16, 1) == MNS_EINVAL,
                 "unknown hash accepted");
        MT_CHECK(mns_rsa_sign_pkcs1v15(key, sig, "sha256", dg, 31, 1) == MNS_EINVAL,
                 "wrong digest length accepted");
        /* 768 bits = 96 bytes < 19 + 64 + 11 = 94? no: 96 >= 94, sha512 fits */
        MT_CHECK(mns_rsa_sign_pkcs1v15(key, sig, "SHA512", dg, 64, 1) == MNS_OK,
                 "sha512 on a 768-bit key refused: %s", mns_last_error());
        MT_CHECK(mns_rsa_sign_pkcs1v15(key, NULL, "sha1", dg, 20, 1) == MNS_EINVAL,
                 "NULL signature buffer accepted");
        mpz_clears(in, out, NULL);
        mns_rsa_free(key);
    }
    /* a modulus too short for the encoding */
    rsa_test_key s;
    rsa_test_key_init(&s);
    rsa_test_key_random(&s, 512, 2, mt_rand);
    st = mns_rsa_new(&key, s.n, s.e, s.d, (const mpz_t *)s.p, 2, NULL);
    MT_CHECK(st == MNS_OK, "512-bit key refused: %s", mns_last_error());
    if (st == MNS_OK) {
        unsigned char sig[64], dg[64] = {0};
        MT_CHECK(mns_rsa_sign_pkcs1v15(key, sig, "sha512", dg, 64, 1) == MNS_EINVAL,
                 "sha512 on a 512-bit key accepted");
        MT_CHECK(mns_rsa_sign_pkcs1v15(key, sig, "sha256", dg, 32, 2) == MNS_OK,
                 "sha256 on a 512-bit key refused: %s", mns_last_error());
        mns_rsa_free(key);
    }
    mns_rsa_free(NULL);
    rsa_test_key_clear(&s);
    rsa_test_key_clear(&t);
    rsa_test_key_clear(&b);
}

/* ---- one key, many callers ---- */

typedef struct conc {
    const mns_rsa *key;
    const rsa_test_key *t;
    int bad;
    unsigned long seed;
} conc;

static void *conc_run(void *p)
{
    conc *c = p;
    mpz_t in, out, ref;
    mpz_inits(in, out, ref, NULL);
    gmp_randstate_t r;
    gmp_randinit_default(r);
    gmp_randseed_ui(r, c->seed);
    for (int i = 0; i < 6; i++) {
        mpz_urandomm(in, r, c->t->n);
        mpz_powm(ref, in, c->t->d, c->t->n);
        if (mns_rsa_private(c->key, out, in, 1 + i % c->t->k) != MNS_OK || mpz_cmp(out, ref))
            c->bad++;
    }
    gmp_randclear(r);
    mpz_clears(in, out, ref, NULL);
    return NULL;
}

/* *t <- a random 1024-bit key of 4 primes, and its mns key on the default
 * spec; NULL (a failed check naming `what`, t cleared) if it is refused */
static mns_rsa *key_4x256(rsa_test_key *t, const char *what)
{
    rsa_test_key_init(t);
    rsa_test_key_random(t, 1024, 4, mt_rand);
    mns_rsa *key;
    if (mns_rsa_new(&key, t->n, t->e, t->d, (const mpz_t *)t->p, 4, spec_default()) != MNS_OK) {
        MT_CHECK(0, "%s: key refused: %s", what, mns_last_error());
        rsa_test_key_clear(t);
        return NULL;
    }
    return key;
}

static void test_concurrent(void)
{
    rsa_test_key t;
    mns_rsa *key = key_4x256(&t, "concurrent");
    if (!key)
        return;
    enum { N = 4 };
    pthread_t th[N];
    conc c[N];
    for (int i = 0; i < N; i++) {
        c[i] = (conc){key, &t, 0, mt_seed + 1000 + (unsigned long)i};
        pthread_create(&th[i], NULL, conc_run, &c[i]);
    }
    int bad = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        bad += c[i].bad;
    }
    MT_CHECK(bad == 0, "concurrent callers: %d wrong results", bad);
    mns_rsa_free(key);
    rsa_test_key_clear(&t);
}

/* ---- which pairs are used (mns_rsa_pair_rule) ---- */

/* The rule on keys with an explicit spec: two calls in turn (no x2
 * kernels) never pair, the RNS backends pair their x2 kernels up to 1100
 * bits and not beyond, other x2 kernels pair; pair_on is the rule's. */
static void test_pair_rule(void)
{
    static const struct {
        const char *spec;
        size_t bits;
    } cases[] = {{"mont", 1024},         {"rns", 1024},  {"rns", 3072},
                 {"pmns-mp", 1024},      {"mont-ifma", 2048}, {"rns-ifma", 1024},
                 {"rns-ifma", 3072}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rsa_test_key t;
        rsa_test_key_make(&t, cases[c].bits, 2, mt_rand);
        mns_rsa *key;
        mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, 2, cases[c].spec);
        if (st == MNS_ENOTSUP) { /* not on this CPU */
            rsa_test_key_clear(&t);
            continue;
        }
        MT_CHECK(st == MNS_OK, "pair rule %s %zu: %s", cases[c].spec, cases[c].bits,
                 mns_last_error());
        if (st != MNS_OK) {
            rsa_test_key_clear(&t);
            continue;
        }
        const int rns = strncmp(cases[c].spec, "rns", 3) == 0;
        const int want = key->x2[0] == 2 && !(rns && cases[c].bits / 2 > 1100);
        MT_CHECK(key->pair_on[0] == want && mns_rsa_pair_rule(key, 0) == want,
                 "pair rule %s %zu: x2=%d pair_on=%d, want %d (%s)", cases[c].spec,
                 cases[c].bits, key->x2[0], key->pair_on[0], want, mns_rsa_describe(key));
        printf("test_rsa: pair rule %s %zu: x2=%d %s\n", cases[c].spec, cases[c].bits,
               key->x2[0], key->pair_on[0] ? "on" : "off");
        mns_rsa_free(key);
        rsa_test_key_clear(&t);
    }
}

/* ---- the backends one by one, on small keys ---- */

static void test_specs(void)
{
    static const char *specs[] = {"mont",         "mont:kernel=generic",
                                  "mont-ifma",    "mont-ifma:kernel=generic",
                                  "rns",          "rns-ifma",
                                  "pmns",         "pmns-ifma",
                                  "pmns-mp",      "pmns-mp:kernel=generic",
                                  "pmns-mp-ifma", "sor",
                                  "mpart"};
    rsa_test_key t;
    rsa_test_key_init(&t);
    for (int k = 2; k <= 4; k += 2) {
        rsa_test_key_random(&t, 1024 * (size_t)k / 2, k, mt_rand);
        for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
            mns_rsa *key;
            mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, (const mpz_t *)t.p, k, specs[s]);
            if (st != MNS_OK) {
                printf("test_rsa: spec %s on %d x %zu bits: skipped (%s: %s)\n", specs[s], k,
                       mpz_sizeinbase(t.p[0], 2), mns_strerror(st), mns_last_error());
                continue;
            }
            mns_rsa_free(key);
            check_key(&t, specs[s], 8, 1);
        }
    }
    rsa_test_key_clear(&t);
}

int main(void)
{
    mt_init(MNS_RSA_SLOW ? "test_slow_rsa" : "test_rsa");
    printf("spec: %s (MNS_RSA_SPEC)\n", spec_default());

    static const struct {
        size_t bits;
        int k;
    } fast[] = {{1024, 2}, {1024, 3}, {1024, 4}, {1024, 5}, {1024, 6}, {1024, 7}, {1024, 8},
                {2048, 2}, {2048, 3}, {2048, 4}, {3072, 2}, {3072, 3}, {4096, 2}, {4096, 4},
                {4096, 8}},
      slow[] = {{4096, 3}, {4096, 5}, {4096, 6}, {4096, 7}, {6144, 2}, {6144, 3}, {8192, 2},
                {8192, 4}, {8192, 8}};
    const size_t count = MNS_RSA_SLOW ? sizeof slow / sizeof slow[0] : sizeof fast / sizeof fast[0];

    if (!MNS_RSA_SLOW) {
        test_kat();
        test_refusals();
        test_concurrent();
        test_pair_rule();
        test_specs();
    }
    rsa_test_key t;
    rsa_test_key_init(&t);
    for (size_t i = 0; i < count; i++) {
        size_t bits = MNS_RSA_SLOW ? slow[i].bits : fast[i].bits;
        int k = MNS_RSA_SLOW ? slow[i].k : fast[i].k;
        rsa_test_key_random(&t, bits, k, mt_rand);
        check_key(&t, spec_default(), bits <= 2048 ? 10 : 7, 1);
#ifdef MNS_HAVE_LIBCRYPTO
        if (k <= 5)
            check_ossl(&t, bits <= 2048 ? 10 : 5);
#endif
        /* the describe line names every channel */
        printf("test_rsa: %zu bits, %d primes: ok so far (%ld failed)\n", bits, k, mt_failed());
    }
    rsa_test_key_clear(&t);
    return mt_finish();
}
