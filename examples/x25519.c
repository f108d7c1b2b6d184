/* X25519 (RFC 7748) on the mns field API: the Montgomery ladder of section 5
 * with a constant-time conditional swap, over mns_field_new(2^255 - 19,
 * "auto").
 *
 * Run without arguments it checks itself: the RFC's section 5.2 vectors and
 * its 1- and 1000-iteration values, edge cases (low-order points give the
 * all-zero output, non-canonical u >= p is taken mod p, the top bit of u is
 * ignored), and agreement with OpenSSL's X25519 on random keys.
 * `x25519 bench` times one scalar multiplication against OpenSSL's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "mns.h"

typedef struct x25519 {
    mns_field *f;
    size_t L;
    uint64_t *a24;    /* (486662 - 2) / 4 */
    uint64_t *w;      /* 10 elements of scratch */
} x25519;

static int x25519_init(x25519 *c, const char *spec)
{
    mpz_t p;
    mpz_init(p);
    mpz_ui_pow_ui(p, 2, 255);
    mpz_sub_ui(p, p, 19);
    mns_status st = mns_field_new(&c->f, p, spec);
    mpz_clear(p);
    if (st != MNS_OK) {
        fprintf(stderr, "x25519: %s: %s\n", spec, mns_last_error());
        return 0;
    }
    if (mns_field_delta(c->f) < 1) { /* the ladder adds before it multiplies */
        fprintf(stderr, "x25519: %s has no free addition\n", mns_field_describe(c->f));
        mns_field_free(c->f);
        return 0;
    }
    c->L = mns_field_limbs(c->f);
    c->w = calloc(11 * c->L, sizeof(uint64_t));
    c->a24 = c->w + 10 * c->L;
    mns_field_set_ui(c->f, c->a24, 121665);
    return c->w != NULL;
}

static void x25519_free(x25519 *c)
{
    free(c->w);
    mns_field_free(c->f);
}

/* out <- X25519(k, u), 32 bytes each, little-endian (RFC 7748 section 5) */
static void x25519_scalarmult(const x25519 *c, unsigned char out[32], const unsigned char k[32],
                              const unsigned char u[32])
{
    const mns_field *f = c->f;
    const size_t L = c->L;
    uint64_t *x1 = c->w, *x2 = x1 + L, *z2 = x2 + L, *x3 = z2 + L, *z3 = x3 + L;
    uint64_t *A = z3 + L, *B = A + L, *C = B + L, *D = C + L, *E = D + L;
    unsigned char s[32], ub[32];
    memcpy(s, k, 32);
    s[0] &= 248; /* decodeScalar25519 */
    s[31] &= 127;
    s[31] |= 64;
    memcpy(ub, u, 32);
    ub[31] &= 127; /* decodeUCoordinate: the top bit is ignored, u >= p is reduced */
    mns_field_set_bytes(f, x1, ub, 32, MNS_LITTLE_ENDIAN);
    mns_field_set_ui(f, x2, 1);
    mns_field_set_ui(f, z2, 0);
    memcpy(x3, x1, L * sizeof(uint64_t));
    mns_field_set_ui(f, z3, 1);
    uint64_t swap = 0;
    for (int t = 254; t >= 0; t--) {
        const uint64_t kt = (uint64_t)0 - ((s[t / 8] >> (t % 8)) & 1);
        swap ^= kt;
        mns_field_cswap(f, x2, x3, swap);
        mns_field_cswap(f, z2, z3, swap);
        swap = kt;
        mns_field_add(f, A, x2, z2);  /* A = x2 + z2 */
        mns_field_sub(f, B, x2, z2);  /* B = x2 - z2 */
        mns_field_add(f, C, x3, z3);  /* C = x3 + z3 */
        mns_field_sub(f, D, x3, z3);  /* D = x3 - z3 */
        mns_field_mul(f, D, D, A);    /* DA */
        mns_field_mul(f, C, C, B);    /* CB */
        mns_field_sqr(f, A, A);       /* AA */
        mns_field_sqr(f, B, B);       /* BB */
        mns_field_add(f, x3, D, C);
        mns_field_sqr(f, x3, x3);     /* x3 = (DA + CB)^2 */
        mns_field_sub(f, z3, D, C);
        mns_field_sqr(f, z3, z3);
        mns_field_mul(f, z3, z3, x1); /* z3 = x1 (DA - CB)^2 */
        mns_field_mul(f, x2, A, B);   /* x2 = AA BB */
        mns_field_sub(f, E, A, B);    /* E = AA - BB */
        mns_field_mul(f, z2, E, c->a24);
        mns_field_add(f, z2, z2, A);
        mns_field_mul(f, z2, z2, E);  /* z2 = E (AA + a24 E) */
    }
    mns_field_cswap(f, x2, x3, swap);
    mns_field_cswap(f, z2, z3, swap);
    /* z2 = 0 (a low-order u) has no inverse: inv gives 0, the output is 0,
     * as z2^(p - 2) would */
    (void)mns_field_inv(f, z2, z2);
    mns_field_mul(f, x2, x2, z2);
    mns_field_get_bytes(f, out, 32, x2, MNS_LITTLE_ENDIAN);
}

static void hex(unsigned char *out, const char *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sscanf(h + 2 * i, "%2hhx", &out[i]);
}

static int failures;

static void expect(const unsigned char *got, const char *want_hex, const char *what)
{
    unsigned char want[32];
    hex(want, want_hex, 32);
    int ok = memcmp(got, want, 32) == 0;
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

static void rfc_vectors(const x25519 *c)
{
    unsigned char k[32], u[32], out[32];
    hex(k, "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4", 32);
    hex(u, "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c", 32);
    x25519_scalarmult(c, out, k, u);
    expect(out, "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552", "RFC 7748 5.2 vector 1");
    hex(k, "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d", 32);
    hex(u, "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493", 32);
    x25519_scalarmult(c, out, k, u);
    expect(out, "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957", "RFC 7748 5.2 vector 2");
    /* the iterated test: k <- X25519(k, u), u <- old k, from k = u = 9 */
    memset(k, 0, 32);
    k[0] = 9;
    memcpy(u, k, 32);
    for (int i = 1; i <= 1000; i++) {
        x25519_scalarmult(c, out, k, u);
        memcpy(u, k, 32);
        memcpy(k, out, 32);
        if (i == 1)
            expect(k, "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079", "RFC 7748 5.2 after 1 iteration");
    }
    expect(k, "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51", "RFC 7748 5.2 after 1000 iterations");
}

/* OpenSSL's X25519(k, u): 0 when it refuses (the all-zero output) */
static int ossl_x25519(unsigned char out[32], const unsigned char k[32], const unsigned char u[32])
{
    EVP_PKEY *priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, k, 32);
    EVP_PKEY *peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, u, 32);
    EVP_PKEY_CTX *ctx = priv ? EVP_PKEY_CTX_new(priv, NULL) : NULL;
    size_t len = 32;
    int ok = ctx && peer && EVP_PKEY_derive_init(ctx) > 0 && EVP_PKEY_derive_set_peer(ctx, peer) > 0 &&
             EVP_PKEY_derive(ctx, out, &len) > 0 && len == 32;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(peer);
    EVP_PKEY_free(priv);
    return ok;
}

static void against_openssl(const x25519 *c, int count)
{
    unsigned char k[32], u[32], ours[32], theirs[32];
    int bad = 0;
    for (int i = 0; i < count; i++) {
        RAND_bytes(k, 32);
        RAND_bytes(u, 32);
        x25519_scalarmult(c, ours, k, u);
        if (!ossl_x25519(theirs, k, u) || memcmp(ours, theirs, 32) != 0)
            bad++;
    }
    printf("%s: %d random (k, u) pairs agree with OpenSSL's X25519\n", bad ? "FAIL" : "ok  ",
           count - bad);
    failures += bad != 0;
}

/* Wycheproof-style edges: points of small order give 0 (OpenSSL refuses
 * them); u in [p, 2^255) is read mod p; the top bit of u is masked. */
static void edge_cases(const x25519 *c)
{
    static const char *const low_order[] = {
        "0000000000000000000000000000000000000000000000000000000000000000", /* 0 */
        "0100000000000000000000000000000000000000000000000000000000000000", /* 1 */
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800", /* order 8 */
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157", /* order 8 */
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p - 1 */
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p = 0 */
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p + 1 = 1 */
    };
    unsigned char k[32], u[32], out[32], zero[32] = {0}, o2[32];
    for (size_t i = 0; i < sizeof low_order / sizeof low_order[0]; i++) {
        RAND_bytes(k, 32);
        hex(u, low_order[i], 32);
        x25519_scalarmult(c, out, k, u);
        int ok = memcmp(out, zero, 32) == 0 && !ossl_x25519(o2, k, u);
        printf("%s: low-order u = %.8s...: all-zero output, OpenSSL refuses too\n",
               ok ? "ok  " : "FAIL", low_order[i]);
        failures += !ok;
    }
    /* non-canonical: p + 2 .. p + 18 are 2 .. 18; and 2^255 - 1 (top bit set) */
    int bad = 0;
    for (unsigned d = 2; d <= 18; d++) {
        RAND_bytes(k, 32);
        hex(u, "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", 32);
        u[0] = (unsigned char)(0xed + d);
        unsigned char canon[32] = {0};
        canon[0] = (unsigned char)d;
        x25519_scalarmult(c, out, k, u);
        x25519_scalarmult(c, o2, k, canon);
        bad += memcmp(out, o2, 32) != 0 || !ossl_x25519(canon, k, u) || memcmp(out, canon, 32) != 0;
    }
    RAND_bytes(k, 32);
    RAND_bytes(u, 32);
    u[31] |= 0x80;
    x25519_scalarmult(c, out, k, u);
    u[31] &= 0x7f;
    x25519_scalarmult(c, o2, k, u);
    bad += memcmp(out, o2, 32) != 0;
    printf("%s: non-canonical u (p + 2 .. p + 18, top bit set) read mod p, as OpenSSL does\n",
           bad ? "FAIL" : "ok  ");
    failures += bad != 0;
}

static unsigned long long ticks(void)
{
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((unsigned long long)hi << 32) | lo;
}

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* the median over 15 batches of the per-batch minimum, TSC ticks per call;
 * OpenSSL's keys and context are made once, so its figure is the derive */
static double bench(const x25519 *c)
{
    unsigned char k[32], u[32], out[32];
    RAND_bytes(k, 32);
    RAND_bytes(u, 32);
    u[31] &= 0x7f;
    EVP_PKEY *priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, k, 32);
    EVP_PKEY *peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, u, 32);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(priv, NULL);
    EVP_PKEY_derive_init(ctx);
    EVP_PKEY_derive_set_peer(ctx, peer);
    unsigned long long m[2][15];
    for (int b = 0; b < 15; b++)
        for (int who = 0; who < 2; who++) {
            unsigned long long best = ~0ull;
            for (int i = 0; i < 20; i++) {
                size_t len = 32;
                unsigned long long t0 = ticks();
                if (who)
                    EVP_PKEY_derive(ctx, out, &len);
                else
                    x25519_scalarmult(c, out, k, u);
                unsigned long long t = ticks() - t0;
                best = t < best ? t : best;
            }
            m[who][b] = best;
        }
    qsort(m[0], 15, sizeof m[0][0], cmp_ull);
    qsort(m[1], 15, sizeof m[1][0], cmp_ull);
    printf("x25519 scalar multiplication: mns %llu ticks, OpenSSL %s X25519 derive %llu ticks, "
           "ratio %.2f (%s)\n", m[0][7], OpenSSL_version(OPENSSL_VERSION_STRING), m[1][7],
           (double)m[0][7] / (double)m[1][7], mns_field_describe(c->f));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(peer);
    EVP_PKEY_free(priv);
    return (double)m[0][7] / (double)m[1][7];
}

/* mns-bench --curve compiles this file without its main (bench/curve.c) */
#ifndef MNS_EXAMPLE_NO_MAIN
int main(int argc, char **argv)
{
    x25519 c;
    if (!x25519_init(&c, argc > 2 ? argv[2] : "auto"))
        return 1;
    if (argc > 1 && strcmp(argv[1], "bench") == 0) {
        bench(&c);
        x25519_free(&c);
        return 0;
    }
    printf("x25519 on %s\n", mns_field_describe(c.f));
    rfc_vectors(&c);
    edge_cases(&c);
    against_openssl(&c, 200);
    x25519_free(&c);
    printf("%s\n", failures ? "x25519: FAILED" : "x25519: all passed");
    return failures != 0;
}
#endif
