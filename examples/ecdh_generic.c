/* ECDH on curves whose prime has no special form, brainpoolP256r1 and
 * brainpoolP384r1 (RFC 5639), on the mns field API.
 *
 * Points are projective (X : Y : Z) on y^2 = x^3 + a x + b; addition is the
 * complete formula of Renes, Costello and Batina (2016, Algorithm 1: any a,
 * doubling and the neutral point need no special case), so the scalar
 * multiplication is a Montgomery ladder of two such additions per bit with
 * a constant-time swap, for a fixed number of bits (those of the group
 * order): no branch or memory index depends on the scalar.
 *
 * The curve constants are read from OpenSSL (EC_GROUP), the key pairs made
 * by OpenSSL, and every shared secret compared with OpenSSL's ECDH.
 * `ecdh_generic bench` times one ECDH (peer point validation, ladder, affine
 * x) against OpenSSL's EVP_PKEY_derive on the same keys. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>

#include "mns.h"

typedef struct curve {
    const char *name;
    mns_field *f;
    size_t L, pbytes, nbits;
    int exact;                      /* add and sub already give tight results */
    uint64_t *a, *b3, *b, *gx, *gy; /* tight elements */
    uint64_t *t;                    /* scratch: 14 elements */
} curve;

static void from_bn(const curve *c, uint64_t *r, const BIGNUM *x)
{
    unsigned char buf[128];
    BN_bn2binpad(x, buf, (int)c->pbytes);
    mns_field_set_bytes(c->f, r, buf, c->pbytes, MNS_BIG_ENDIAN);
}

static int curve_init(curve *c, const char *name, int nid, const char *spec)
{
    EC_GROUP *g = EC_GROUP_new_by_curve_name(nid);
    BIGNUM *p = BN_new(), *a = BN_new(), *b = BN_new(), *x = BN_new(), *y = BN_new();
    if (!g || !EC_GROUP_get_curve(g, p, a, b, NULL) ||
        !EC_POINT_get_affine_coordinates(g, EC_GROUP_get0_generator(g), x, y, NULL))
        return 0;
    char *ph = BN_bn2hex(p);
    mpz_t pz;
    mpz_init_set_str(pz, ph, 16);
    OPENSSL_free(ph);
    c->name = name;
    mns_status st = mns_field_new(&c->f, pz, spec);
    mpz_clear(pz);
    if (st != MNS_OK) {
        fprintf(stderr, "ecdh: %s: %s\n", name, mns_last_error());
        return 0;
    }
    c->L = mns_field_limbs(c->f);
    c->exact = mns_field_delta(c->f) == INT_MAX;
    c->pbytes = (size_t)BN_num_bytes(p);
    c->nbits = (size_t)EC_GROUP_order_bits(g);
    c->a = calloc(19 * c->L, sizeof(uint64_t));
    c->b3 = c->a + c->L;
    c->b = c->b3 + c->L;
    c->gx = c->b + c->L;
    c->gy = c->gx + c->L;
    c->t = c->gy + c->L;
    from_bn(c, c->a, a);
    from_bn(c, c->b, b);
    mns_field_add(c->f, c->b3, c->b, c->b);
    mns_field_reduce(c->f, c->b3, c->b3);
    mns_field_add(c->f, c->b3, c->b3, c->b);
    mns_field_reduce(c->f, c->b3, c->b3);
    from_bn(c, c->gx, x);
    from_bn(c, c->gy, y);
    BN_free(p), BN_free(a), BN_free(b), BN_free(x), BN_free(y);
    EC_GROUP_free(g);
    return 1;
}

/* tight sums and differences, as the formula chains them: a reduce, unless
 * the backend's add and sub reduce fully (delta INT_MAX, as mont) */
static void add(const curve *c, uint64_t *r, const uint64_t *x, const uint64_t *y)
{
    mns_field_add(c->f, r, x, y);
    if (!c->exact)
        mns_field_reduce(c->f, r, r);
}

static void sub(const curve *c, uint64_t *r, const uint64_t *x, const uint64_t *y)
{
    mns_field_sub(c->f, r, x, y);
    if (!c->exact)
        mns_field_reduce(c->f, r, r);
}

#define MUL(r, x, y) mns_field_mul(c->f, r, x, y)

/* (X3 : Y3 : Z3) <- P + Q, complete (RCB16 Algorithm 1); r may alias p or q */
static void point_add(const curve *c, uint64_t *r, const uint64_t *p, const uint64_t *q)
{
    const size_t L = c->L;
    const uint64_t *X1 = p, *Y1 = p + L, *Z1 = p + 2 * L, *X2 = q, *Y2 = q + L, *Z2 = q + 2 * L;
    uint64_t *t0 = c->t + 9 * L, *t1 = t0 + L, *t2 = t1 + L, *t3 = t2 + L, *t4 = t3 + L;
    uint64_t *t5 = c->t + 6 * L, *X3 = c->t, *Y3 = c->t + L, *Z3 = c->t + 2 * L;
    MUL(t0, X1, X2);  MUL(t1, Y1, Y2);  MUL(t2, Z1, Z2);
    add(c, t3, X1, Y1);  add(c, t4, X2, Y2);  MUL(t3, t3, t4);
    add(c, t4, t0, t1);  sub(c, t3, t3, t4);  add(c, t4, X1, Z1);
    add(c, t5, X2, Z2);  MUL(t4, t4, t5);  add(c, t5, t0, t2);
    sub(c, t4, t4, t5);  add(c, t5, Y1, Z1);  add(c, X3, Y2, Z2);
    MUL(t5, t5, X3);  add(c, X3, t1, t2);  sub(c, t5, t5, X3);
    MUL(Z3, c->a, t4);  MUL(X3, c->b3, t2);  add(c, Z3, X3, Z3);
    sub(c, X3, t1, Z3);  add(c, Z3, t1, Z3);  MUL(Y3, X3, Z3);
    add(c, t1, t0, t0);  add(c, t1, t1, t0);  MUL(t2, c->a, t2);
    MUL(t4, c->b3, t4);  add(c, t1, t1, t2);  sub(c, t2, t0, t2);
    MUL(t2, c->a, t2);  add(c, t4, t4, t2);  MUL(t2, t1, t4);
    add(c, Y3, Y3, t2);  MUL(t2, t5, t4);  MUL(X3, X3, t3);
    sub(c, X3, X3, t2);  MUL(t2, t3, t1);  MUL(Z3, Z3, t5);
    add(c, Z3, Z3, t2);
    memcpy(r, c->t, 3 * L * sizeof(uint64_t));
}

/* out <- the x coordinate of [k] (x, y), big-endian pbytes; k is nbytes
 * big-endian and the ladder runs over nbits bits whatever its value */
static void scalar_mult_x(const curve *c, unsigned char *out, const unsigned char *k,
                          size_t nbytes, const uint64_t *x, const uint64_t *y)
{
    const size_t L = c->L;
    uint64_t *R = calloc(7 * L, sizeof(uint64_t)), *R0 = R, *R1 = R + 3 * L, *zi = R + 6 * L;
    mns_field_set_ui(c->f, R0, 0); /* the neutral point (0 : 1 : 0) */
    mns_field_set_ui(c->f, R0 + L, 1);
    mns_field_set_ui(c->f, R0 + 2 * L, 0);
    memcpy(R1, x, L * sizeof(uint64_t));
    memcpy(R1 + L, y, L * sizeof(uint64_t));
    mns_field_set_ui(c->f, R1 + 2 * L, 1);
    for (size_t i = c->nbits; i-- > 0;) {
        const uint64_t bit = (uint64_t)0 - ((k[nbytes - 1 - i / 8] >> (i % 8)) & 1);
        for (int j = 0; j < 3; j++)
            mns_field_cswap(c->f, R0 + j * L, R1 + j * L, bit);
        point_add(c, R1, R0, R1);
        point_add(c, R0, R0, R0);
        for (int j = 0; j < 3; j++)
            mns_field_cswap(c->f, R0 + j * L, R1 + j * L, bit);
    }
    (void)mns_field_inv(c->f, zi, R0 + 2 * L);
    mns_field_mul(c->f, zi, R0, zi);
    mns_field_get_bytes(c->f, out, c->pbytes, zi, MNS_BIG_ENDIAN);
    free(R);
}

/* an uncompressed point 04 || x || y: canonical coordinates on the curve */
static int decode_point(const curve *c, uint64_t *x, uint64_t *y, const unsigned char *in,
                        size_t len)
{
    const size_t n = c->pbytes;
    unsigned char back[128];
    if (len != 2 * n + 1 || in[0] != 4)
        return 0;
    mns_field_set_bytes(c->f, x, in + 1, n, MNS_BIG_ENDIAN);
    mns_field_set_bytes(c->f, y, in + 1 + n, n, MNS_BIG_ENDIAN);
    mns_field_get_bytes(c->f, back, n, x, MNS_BIG_ENDIAN);
    int ok = memcmp(back, in + 1, n) == 0;
    mns_field_get_bytes(c->f, back, n, y, MNS_BIG_ENDIAN);
    ok &= memcmp(back, in + 1 + n, n) == 0;
    uint64_t *l = c->t, *r = c->t + c->L; /* y^2 = (x^2 + a) x + b */
    mns_field_sqr(c->f, l, y);
    mns_field_sqr(c->f, r, x);
    add(c, r, r, c->a);
    mns_field_mul(c->f, r, r, x);
    add(c, r, r, c->b);
    return ok && mns_field_equal(c->f, l, r) != 0;
}

static EVP_PKEY *keygen(const char *name)
{
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", name);
}

static int ossl_derive(EVP_PKEY *priv, EVP_PKEY *peer, unsigned char *out, size_t *len)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(priv, NULL);
    int ok = ctx && EVP_PKEY_derive_init(ctx) > 0 && EVP_PKEY_derive_set_peer(ctx, peer) > 0 &&
             EVP_PKEY_derive(ctx, out, len) > 0;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* our ECDH: the private scalar of priv with the public point of peer */
static int ecdh(const curve *c, unsigned char *out, EVP_PKEY *priv, EVP_PKEY *peer)
{
    unsigned char k[64], pub[1 + 2 * 64];
    size_t plen = 0, nbytes = (c->nbits + 7) / 8;
    BIGNUM *d = NULL;
    if (!EVP_PKEY_get_bn_param(priv, OSSL_PKEY_PARAM_PRIV_KEY, &d) ||
        !EVP_PKEY_get_octet_string_param(peer, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &plen))
        return 0;
    BN_bn2binpad(d, k, (int)nbytes);
    BN_clear_free(d);
    uint64_t *q = calloc(2 * c->L, sizeof(uint64_t));
    int ok = decode_point(c, q, q + c->L, pub, plen);
    if (ok)
        scalar_mult_x(c, out, k, nbytes, q, q + c->L);
    free(q);
    return ok;
}

static int failures;

static void check_curve(const curve *c, int count)
{
    int bad = 0;
    for (int i = 0; i < count; i++) {
        EVP_PKEY *ka = keygen(c->name), *kb = keygen(c->name);
        unsigned char ours[64], theirs[64];
        size_t tl = sizeof theirs;
        if (!ecdh(c, ours, ka, kb) || !ossl_derive(ka, kb, theirs, &tl) || tl != c->pbytes ||
            memcmp(ours, theirs, tl) != 0)
            bad++;
        EVP_PKEY_free(ka);
        EVP_PKEY_free(kb);
    }
    printf("%s: %s: %d random key pairs, shared secrets agree with OpenSSL's ECDH\n",
           bad ? "FAIL" : "ok  ", c->name, count - bad);
    failures += bad != 0;
    /* a point off the curve is refused */
    EVP_PKEY *k = keygen(c->name);
    unsigned char pub[1 + 2 * 64];
    size_t plen = 0;
    EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &plen);
    uint64_t *q = calloc(2 * c->L, sizeof(uint64_t));
    int on = decode_point(c, q, q + c->L, pub, plen);
    pub[plen - 1] ^= 1;
    int off = decode_point(c, q, q + c->L, pub, plen);
    printf("%s: %s: the public point decodes, a modified one is refused\n",
           on && !off ? "ok  " : "FAIL", c->name);
    failures += !(on && !off);
    free(q);
    EVP_PKEY_free(k);
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

/* median of 9 batch minima (5 calls a batch), TSC ticks per ECDH */
static void bench(const curve *c)
{
    EVP_PKEY *ka = keygen(c->name), *kb = keygen(c->name);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(ka, NULL);
    EVP_PKEY_derive_init(ctx);
    EVP_PKEY_derive_set_peer(ctx, kb);
    unsigned char out[64];
    unsigned long long m[2][9];
    for (int b = 0; b < 9; b++)
        for (int who = 0; who < 2; who++) {
            unsigned long long best = ~0ull;
            for (int i = 0; i < 5; i++) {
                size_t len = sizeof out;
                unsigned long long t0 = ticks();
                if (who)
                    EVP_PKEY_derive(ctx, out, &len);
                else
                    ecdh(c, out, ka, kb);
                unsigned long long t = ticks() - t0;
                best = t < best ? t : best;
            }
            m[who][b] = best;
        }
    qsort(m[0], 9, sizeof m[0][0], cmp_ull);
    qsort(m[1], 9, sizeof m[1][0], cmp_ull);
    printf("ecdh %s: mns %llu ticks, OpenSSL %s derive %llu ticks, ratio %.2f (%s)\n", c->name,
           m[0][4], OpenSSL_version(OPENSSL_VERSION_STRING), m[1][4],
           (double)m[0][4] / (double)m[1][4], mns_field_describe(c->f));
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(ka);
    EVP_PKEY_free(kb);
}

int main(int argc, char **argv)
{
    const char *spec = argc > 2 ? argv[2] : "auto";
    static const struct { const char *name; int nid; } curves[] = {
        {"brainpoolP256r1", NID_brainpoolP256r1}, {"brainpoolP384r1", NID_brainpoolP384r1}};
    for (size_t i = 0; i < 2; i++) {
        curve c;
        if (!curve_init(&c, curves[i].name, curves[i].nid, spec))
            return 1;
        if (argc > 1 && strcmp(argv[1], "bench") == 0)
            bench(&c);
        else {
            printf("%s on %s\n", c.name, mns_field_describe(c.f));
            check_curve(&c, 20);
        }
        free(c.a);
        mns_field_free(c.f);
    }
    if (argc > 1 && strcmp(argv[1], "bench") == 0)
        return 0;
    printf("%s\n", failures ? "ecdh_generic: FAILED" : "ecdh_generic: all passed");
    return failures != 0;
}
