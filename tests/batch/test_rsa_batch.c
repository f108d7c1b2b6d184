/* mns_rsa_private_n and mns_rsa_sign_pkcs1v15_n against GMP and the single
 * calls: keys of 2 and 3 primes, channel fields whose elements are lane
 * digits (mont-ifma) and ones entered through words (mont, auto), each with
 * its default lanes (IFMA where the CPU has it, else the single calls), the
 * portable lanes forced into every channel, and none; counts 0..17,
 * structured inputs (0, 1, n - 1, a prime, all equal), out aliasing in, one
 * and two threads, bad input refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field_internal.h"
#include "mont52_mb/mb52.h"
#include "rsa/rsa_internal.h"
#include "rsa_keygen.h"
#include "testutil.h"

static void input_of(mpz_t in, const rsa_test_key *t, size_t i, const mpz_t first)
{
    switch (i % 7) {
    case 0: mpz_urandomm(in, mt_rand, t->n); break;
    case 1: mpz_set_ui(in, 0); break;
    case 2: mpz_set_ui(in, 1); break;
    case 3: mpz_sub_ui(in, t->n, 1); break;
    case 4: mpz_set(in, t->p[0]); break;
    case 5: mpz_set(in, first); break;
    default: mpz_urandomm(in, mt_rand, t->n); break;
    }
}

static void check_private(const mns_rsa *key, const rsa_test_key *t, size_t count, int threads,
                          const char *label)
{
    mpz_t *in = malloc((count + 1) * sizeof(mpz_t)), *out = malloc((count + 1) * sizeof(mpz_t)), w;
    mpz_init(w);
    for (size_t i = 0; i < count + 1; i++) {
        mpz_init(in[i]);
        mpz_init(out[i]);
        input_of(in[i], t, i, in[0]);
    }
    mns_status st = mns_rsa_private_n(key, out, (const mpz_t *)in, count, threads);
    int gmp = 1, single = 1;
    for (size_t i = 0; i < count; i++) {
        mpz_powm(w, in[i], t->d, t->n);
        gmp &= mpz_cmp(w, out[i]) == 0;
        mns_rsa_private(key, w, in[i], 1);
        single &= mpz_cmp(w, out[i]) == 0;
    }
    MT_CHECK(st == MNS_OK && gmp && single, "%s: private_n count %zu threads %d (%s; GMP %d single %d)",
             label, count, threads, mns_last_error(), gmp, single);
    /* out aliasing in */
    for (size_t i = 0; i < count; i++)
        mpz_set(out[i], in[i]);
    st = mns_rsa_private_n(key, out, (const mpz_t *)out, count, threads);
    gmp = 1;
    for (size_t i = 0; i < count; i++) {
        mpz_powm(w, in[i], t->d, t->n);
        gmp &= mpz_cmp(w, out[i]) == 0;
    }
    MT_CHECK(st == MNS_OK && gmp, "%s: private_n aliased, count %zu", label, count);
    for (size_t i = 0; i < count + 1; i++)
        mpz_clear(in[i]), mpz_clear(out[i]);
    mpz_clear(w);
    free(in), free(out);
}

static void check_sign(const mns_rsa *key, size_t count, int threads, const char *label)
{
    const size_t nb = mns_rsa_bytes(key), dl = 32;
    unsigned char *dg = malloc(count * dl + 1), *sig = malloc(count * nb + 1), *one = malloc(nb);
    for (size_t i = 0; i < count * dl; i++)
        dg[i] = (unsigned char)(i % 3 == 0 ? mt_u64() : i / dl);
    mns_status st = mns_rsa_sign_pkcs1v15_n(key, sig, "sha256", dg, dl, count, threads);
    int same = 1;
    for (size_t i = 0; i < count; i++) {
        same &= mns_rsa_sign_pkcs1v15(key, one, "sha256", dg + i * dl, dl, 1) == MNS_OK;
        same &= memcmp(one, sig + i * nb, nb) == 0;
    }
    MT_CHECK(st == MNS_OK && same, "%s: sign_pkcs1v15_n count %zu threads %d (%s)", label, count,
             threads, mns_last_error());
    free(dg), free(sig), free(one);
}

static void check_refusals(const mns_rsa *key, const rsa_test_key *t)
{
    mpz_t in[3], out[3];
    for (int i = 0; i < 3; i++)
        mpz_init_set_ui(in[i], 5), mpz_init_set_ui(out[i], 77);
    mpz_set(in[1], t->n);
    MT_CHECK(mns_rsa_private_n(key, out, (const mpz_t *)in, 3, 1) == MNS_EINVAL &&
                 mpz_cmp_ui(out[0], 77) == 0,
             "input = n refused, nothing computed");
    mpz_set_si(in[1], -1);
    MT_CHECK(mns_rsa_private_n(key, out, (const mpz_t *)in, 3, 1) == MNS_EINVAL, "negative refused");
    MT_CHECK(mns_rsa_private_n(key, out, (const mpz_t *)in, 3, 0) == MNS_EINVAL, "0 threads refused");
    unsigned char d[32] = {0}, s[1024];
    MT_CHECK(mns_rsa_sign_pkcs1v15_n(key, s, "md5", d, 32, 1, 1) == MNS_EINVAL, "md5 refused");
    MT_CHECK(mns_rsa_sign_pkcs1v15_n(key, s, "sha256", d, 31, 1, 1) == MNS_EINVAL,
             "short digest refused");
    for (int i = 0; i < 3; i++)
        mpz_clear(in[i]), mpz_clear(out[i]);
}

/* A glitch in one operation's channel result (the test hook of
 * mns_rsa_private_n_ex_) is caught by the fault check: MNS_ERANGE naming
 * that operation, its output untouched, every other one right. */
static void check_fault(const mns_rsa *key, const rsa_test_key *t, size_t count, size_t op,
                        int channel, const char *label)
{
    mpz_t *in = malloc(count * sizeof(mpz_t)), *out = malloc(count * sizeof(mpz_t)), w;
    mpz_init(w);
    for (size_t i = 0; i < count; i++) {
        mpz_init(in[i]);
        mpz_init_set_ui(out[i], 12345);
        input_of(in[i], t, i, in[0]);
    }
    const unsigned bit = (unsigned)(mt_u64() % 4096);
    mns_status st = mns_rsa_private_n_ex_(key, out, (const mpz_t *)in, count, 1, op, channel, bit);
    char want[64];
    snprintf(want, sizeof want, "operation %zu", op);
    int others = 1;
    for (size_t i = 0; i < count; i++) {
        if (i == op)
            continue;
        mpz_powm(w, in[i], t->d, t->n);
        others &= mpz_cmp(w, out[i]) == 0;
    }
    MT_CHECK(st == MNS_ERANGE && strstr(mns_last_error(), want) && mpz_cmp_ui(out[op], 12345) == 0 &&
                 others,
             "%s: fault in operation %zu channel %d bit %u of %zu: status %d (%s), others %d",
             label, op, channel, bit, count, st, mns_last_error(), others);
    for (size_t i = 0; i < count; i++)
        mpz_clear(in[i]), mpz_clear(out[i]);
    free(in);
    free(out);
    mpz_clear(w);
}

/* mode: -2 the key's own lanes, else mns_field_lanes_use_ on every channel */
static void check_key(const rsa_test_key *t, const char *spec, int mode, int full)
{
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, t->n, t->e, t->d, (const mpz_t *)t->p, t->k, spec);
    if (st == MNS_ENOTSUP) {
        printf("skip: %s: %s\n", spec, mns_last_error());
        return;
    }
    MT_CHECK(st == MNS_OK, "mns_rsa_new %s: %s", spec, mns_last_error());
    if (st != MNS_OK)
        return;
    if (mode != -2)
        for (int i = 0; i < key->k; i++)
            MT_CHECK(mns_field_lanes_use_(key->ch[i].f, mode) == MNS_OK, "lanes %d", mode);
    char label[128];
    const mns_mb52_ctx *l = mns_field_lanes(key->ch[0].f);
    snprintf(label, sizeof label, "rsa-%zu k=%d %s lanes=%s%s", t->bits, t->k, spec,
             l ? l->kernel_name : "none", mns_field_powm_n_lanes(key->ch[0].f) ? "" : " (loop)");
    printf("%s\n", label);
    for (size_t count = 0; count <= (full ? 17u : 9u); count += full ? 1 : 3)
        check_private(key, t, count, 1, label);
    check_private(key, t, 17, 2, label);
    check_fault(key, t, 8, 3, 0, label);
    check_fault(key, t, 11, 9, t->k - 1, label);
    check_fault(key, t, 9, 8, 0, label); /* the last group has one operation */
    check_sign(key, 9, 1, label);
    check_sign(key, 10, 2, label);
    check_refusals(key, t);
    mns_rsa_free(key);
}

int main(void)
{
    mt_init("test_rsa_batch");
    static const struct { size_t bits; int k; } keys[] = {{1024, 2}, {2048, 2}, {1536, 3}};
    static const char *const specs[] = {"mont-ifma:kernel=generic", "mont", "auto"};
    static const int modes[] = {-2, MNS_MB52_GENERIC, -1};
    rsa_test_key t;
    rsa_test_key_init(&t);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        rsa_test_key_random(&t, keys[k].bits, keys[k].k, mt_rand);
        for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
            for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
                check_key(&t, specs[s], modes[m], k == 0 && m != 2);
    }
    rsa_test_key_clear(&t);
    return mt_finish();
}
