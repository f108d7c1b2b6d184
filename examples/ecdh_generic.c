/* ECDH on curves whose prime has no special form, brainpoolP256r1 and
 * brainpoolP384r1 (RFC 5639), on the mns field API.
 *
 * Points are Jacobian (X : Y : Z), x = X / Z^2, y = Y / Z^3, on
 * y^2 = x^3 + a x + b with any a: doubling dbl-2007-bl (2M + 8S), addition
 * add-2007-bl (11M + 5S), from the Explicit-Formulas Database. The scalar
 * multiplication is a fixed window of 4 bits with signed odd digits (the
 * regular recoding of Joye and Tunstall, as in Bos, Costello, Longa and
 * Naehrig's "Selecting elliptic curves for cryptography"): an odd scalar k
 * is written k = sum d_i 16^i with every d_i odd in [-15, 15], so each window
 * is four doublings and one addition of +-[|d_i|] P, taken from a table of
 * [1] P, [3] P, ..., [15] P by a constant-time selection over all eight
 * entries and a masked negation. An even k is replaced by n - k, whose point
 * has the same x. For 0 < k < n these additions never meet the formula's
 * exceptions (a doubling, the neutral point), except in the last window,
 * where k = n - 2|d_0| makes both points equal: there the doubling is
 * computed too and selected when the sum's Z is 0. No branch or memory index
 * depends on the scalar.
 *
 * The curve constants are read from OpenSSL (EC_GROUP), the key pairs made
 * by OpenSSL, and every shared secret compared with OpenSSL's ECDH.
 * `ecdh_generic bench` times one ECDH (peer point validation, scalar
 * multiplication, affine x) against OpenSSL's EVP_PKEY_derive on the same
 * keys. */
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

#define MAX_WORDS 8 /* scalars up to 512 bits */
#define WINDOW 4
#define TABLE (1 << (WINDOW - 1)) /* [1] P, [3] P, ..., [15] P */

typedef struct curve {
    const char *name;
    mns_field *f;
    size_t L, pbytes, nbits;
    int exact;                      /* add and sub already give tight results */
    uint64_t order[MAX_WORDS];      /* n, the group order, little-endian words */
    uint64_t *a, *b, *gx, *gy;      /* tight elements */
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
    unsigned char ob[8 * MAX_WORDS];
    BN_bn2lebinpad(EC_GROUP_get0_order(g), ob, sizeof ob);
    for (size_t i = 0; i < MAX_WORDS; i++) {
        c->order[i] = 0;
        for (size_t j = 0; j < 8; j++)
            c->order[i] |= (uint64_t)ob[8 * i + j] << (8 * j);
    }
    c->a = calloc(18 * c->L, sizeof(uint64_t));
    c->b = c->a + c->L;
    c->gx = c->b + c->L;
    c->gy = c->gx + c->L;
    c->t = c->gy + c->L;
    from_bn(c, c->a, a);
    from_bn(c, c->b, b);
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
#define SQR(r, x) mns_field_sqr(c->f, r, x)
#define ADD(r, x, y) add(c, r, x, y)
#define SUB(r, x, y) sub(c, r, x, y)

/* r <- 2 p (dbl-2007-bl); r may alias p; p is not the neutral point */
static void point_dbl(const curve *c, uint64_t *r, const uint64_t *p)
{
    const size_t L = c->L;
    const uint64_t *X = p, *Y = p + L, *Z = p + 2 * L;
    uint64_t *xx = c->t, *yy = xx + L, *y4 = yy + L, *zz = y4 + L, *s = zz + L, *m = s + L;
    uint64_t *x3 = m + L, *z3 = x3 + L, *w = z3 + L;
    SQR(xx, X);  SQR(yy, Y);  SQR(y4, yy);  SQR(zz, Z);
    ADD(s, X, yy);  SQR(s, s);  SUB(s, s, xx);  SUB(s, s, y4);  ADD(s, s, s);  /* S = 4 X Y^2 */
    SQR(m, zz);  MUL(m, m, c->a);  ADD(w, xx, xx);  ADD(w, w, xx);  ADD(m, m, w);  /* 3 X^2 + a Z^4 */
    SQR(x3, m);  SUB(x3, x3, s);  SUB(x3, x3, s);
    ADD(z3, Y, Z);  SQR(z3, z3);  SUB(z3, z3, yy);  SUB(z3, z3, zz);  /* 2 Y Z */
    SUB(w, s, x3);  MUL(w, m, w);
    ADD(y4, y4, y4);  ADD(y4, y4, y4);  ADD(y4, y4, y4);
    SUB(r + L, w, y4);
    memcpy(r, x3, L * sizeof(uint64_t));
    memcpy(r + 2 * L, z3, L * sizeof(uint64_t));
}

/* r <- p + q (add-2007-bl) for p != +-q, neither the neutral point (p = q
 * gives Z = 0); r may alias p or q */
static void point_add(const curve *c, uint64_t *r, const uint64_t *p, const uint64_t *q)
{
    const size_t L = c->L;
    const uint64_t *X1 = p, *Y1 = p + L, *Z1 = p + 2 * L, *X2 = q, *Y2 = q + L, *Z2 = q + 2 * L;
    uint64_t *z1z1 = c->t, *z2z2 = z1z1 + L, *u1 = z2z2 + L, *u2 = u1 + L, *s1 = u2 + L;
    uint64_t *s2 = s1 + L, *h = s2 + L, *i = h + L, *j = i + L, *rr = j + L, *v = rr + L;
    uint64_t *x3 = v + L, *y3 = x3 + L, *z3 = y3 + L;
    SQR(z1z1, Z1);  SQR(z2z2, Z2);  MUL(u1, X1, z2z2);  MUL(u2, X2, z1z1);
    MUL(s1, Y1, Z2);  MUL(s1, s1, z2z2);  MUL(s2, Y2, Z1);  MUL(s2, s2, z1z1);
    SUB(h, u2, u1);  ADD(i, h, h);  SQR(i, i);  MUL(j, h, i);  /* I = (2H)^2, J = H I */
    SUB(rr, s2, s1);  ADD(rr, rr, rr);  MUL(v, u1, i);
    SQR(x3, rr);  SUB(x3, x3, j);  SUB(x3, x3, v);  SUB(x3, x3, v);
    SUB(y3, v, x3);  MUL(y3, rr, y3);  MUL(s1, s1, j);  ADD(s1, s1, s1);  SUB(y3, y3, s1);
    ADD(z3, Z1, Z2);  SQR(z3, z3);  SUB(z3, z3, z1z1);  SUB(z3, z3, z2z2);  MUL(z3, z3, h);
    memcpy(r, x3, 3 * L * sizeof(uint64_t));
}

/* r <- table[idx] (every entry read), then Y negated where neg is set */
static void select_point(const curve *c, uint64_t *r, const uint64_t *table, unsigned idx,
                         unsigned neg)
{
    const size_t L = c->L;
    for (unsigned e = 0; e < TABLE; e++) {
        const uint64_t hit = (uint64_t)0 - (((uint64_t)(e ^ idx) - 1) >> 63);
        for (int j = 0; j < 3; j++)
            mns_field_cmov(c->f, r + j * L, table + (3 * e + j) * L, hit);
    }
    mns_field_neg(c->f, c->t, r + L);
    mns_field_cmov(c->f, r + L, c->t, (uint64_t)0 - neg);
}

/* k (big-endian bytes) as words, replaced by n - k when even (same x) */
static void odd_scalar(const curve *c, uint64_t *k, const unsigned char *kb, size_t nbytes)
{
    uint64_t nk[MAX_WORDS], borrow = 0;
    memset(k, 0, MAX_WORDS * sizeof(uint64_t));
    for (size_t i = 0; i < nbytes; i++)
        k[i / 8] |= (uint64_t)kb[nbytes - 1 - i] << (8 * (i % 8));
    for (size_t i = 0; i < MAX_WORDS; i++) {
        const unsigned __int128 d = (unsigned __int128)c->order[i] - k[i] - borrow;
        nk[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    const uint64_t even = (k[0] & 1) - 1;
    for (size_t i = 0; i < MAX_WORDS; i++)
        k[i] ^= even & (k[i] ^ nk[i]);
}

/* out <- the x coordinate of [k] (x, y), big-endian pbytes, for 0 < k < n
 * given as nbytes big-endian; 0 when out of memory */
static int scalar_mult_x(const curve *c, unsigned char *out, const unsigned char *kb,
                         size_t nbytes, const uint64_t *x, const uint64_t *y)
{
    const size_t L = c->L, P = 3 * L, windows = (c->nbits + WINDOW - 1) / WINDOW;
    uint64_t *table = calloc((TABLE + 3) * P, sizeof(uint64_t));
    if (!table)
        return 0;
    uint64_t *q = table + TABLE * P, *s = q + P, *d = s + P, k[MAX_WORDS];
    unsigned char idx[128], neg[128];
    /* the digits: d_i = (k mod 32) - 16, k <- (k >> 4) | 1; the last is k */
    odd_scalar(c, k, kb, nbytes);
    for (size_t w = 0; w < windows; w++) {
        const unsigned u = (unsigned)(k[0] & 31), last = w + 1 == windows;
        neg[w] = (unsigned char)((last ^ 1) & (u >> 4 ^ 1));
        idx[w] = (unsigned char)(((u >> 1) ^ ((0u - neg[w]) & 7)) & 7);
        for (size_t i = 0; i + 1 < MAX_WORDS; i++)
            k[i] = (k[i] >> WINDOW) | (k[i + 1] << (64 - WINDOW));
        k[MAX_WORDS - 1] >>= WINDOW;
        k[0] |= 1;
    }
    /* [2i + 1] P for i < 8 */
    memcpy(table, x, L * sizeof(uint64_t));
    memcpy(table + L, y, L * sizeof(uint64_t));
    mns_field_set_ui(c->f, table + 2 * L, 1);
    point_dbl(c, d, table);
    for (unsigned e = 1; e < TABLE; e++)
        point_add(c, table + e * P, table + (e - 1) * P, d);
    select_point(c, q, table, idx[windows - 1], 0);
    for (size_t w = windows - 1; w-- > 0;) {
        for (int i = 0; i < WINDOW; i++)
            point_dbl(c, q, q);
        select_point(c, s, table, idx[w], neg[w]);
        if (w == 0) /* public: the one window where q = s can happen */
            point_dbl(c, d, s);
        point_add(c, q, q, s);
        if (w == 0) {
            const uint64_t equal = mns_field_is_zero(c->f, q + 2 * L);
            for (int j = 0; j < 3; j++)
                mns_field_cmov(c->f, q + j * L, d + j * L, equal);
        }
    }
    uint64_t *zi = s; /* x = X / Z^2 */
    (void)mns_field_inv(c->f, zi, q + 2 * L);
    SQR(zi, zi);
    MUL(zi, q, zi);
    mns_field_get_bytes(c->f, out, c->pbytes, zi, MNS_BIG_ENDIAN);
    explicit_bzero(k, sizeof k);
    explicit_bzero(idx, sizeof idx);
    explicit_bzero(neg, sizeof neg);
    explicit_bzero(table, (TABLE + 3) * P * sizeof(uint64_t));
    free(table);
    return 1;
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
    int ok = q && decode_point(c, q, q + c->L, pub, plen) &&
             scalar_mult_x(c, out, k, nbytes, q, q + c->L);
    explicit_bzero(k, sizeof k);
    free(q);
    return ok;
}

static int failures;

/* The scalars where the window's last addition meets equal points (k = 2,
 * 4, ..., so n - k after the parity swap) or the top digits are extreme:
 * k = 1 .. 40 and n - 40 .. n - 1 on the generator, against OpenSSL's
 * EC_POINT_mul. */
static void check_edge_scalars(const curve *c, int nid)
{
    EC_GROUP *g = EC_GROUP_new_by_curve_name(nid);
    EC_POINT *pt = EC_POINT_new(g);
    BIGNUM *k = BN_new(), *x = BN_new();
    const size_t nbytes = (c->nbits + 7) / 8;
    unsigned char kb[64], ours[64], theirs[64];
    int bad = 0;
    for (int i = 0; i < 80; i++) {
        if (i < 40)
            BN_set_word(k, (BN_ULONG)i + 1);
        else {
            BN_copy(k, EC_GROUP_get0_order(g));
            BN_sub_word(k, (BN_ULONG)(80 - i));
        }
        BN_bn2binpad(k, kb, (int)nbytes);
        bad += !scalar_mult_x(c, ours, kb, nbytes, c->gx, c->gy) ||
               !EC_POINT_mul(g, pt, k, NULL, NULL, NULL) ||
               !EC_POINT_get_affine_coordinates(g, pt, x, NULL, NULL) ||
               BN_bn2binpad(x, theirs, (int)c->pbytes) < 0 || memcmp(ours, theirs, c->pbytes) != 0;
    }
    printf("%s: %s: scalars 1..40 and n-40..n-1 agree with OpenSSL's EC_POINT_mul\n",
           bad ? "FAIL" : "ok  ", c->name);
    failures += bad != 0;
    BN_free(k), BN_free(x);
    EC_POINT_free(pt);
    EC_GROUP_free(g);
}

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
static double bench(const curve *c)
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
    return (double)m[0][4] / (double)m[1][4];
}

/* mns-bench --curve compiles this file without its main (bench/curve.c) */
#ifndef MNS_EXAMPLE_NO_MAIN
int main(int argc, char **argv)
{
    const char *spec = argc > 2 ? argv[2] : "auto";
    /* brainpoolP224r1 only in the checks: its order is 31 mod 32, so k = 30
     * takes the last window's doubling (n mod 32 is 7 and 5 for the other
     * two, where no k does) */
    static const struct { const char *name; int nid; } curves[] = {
        {"brainpoolP256r1", NID_brainpoolP256r1}, {"brainpoolP384r1", NID_brainpoolP384r1},
        {"brainpoolP224r1", NID_brainpoolP224r1}};
    const int benching = argc > 1 && strcmp(argv[1], "bench") == 0;
    for (size_t i = 0; i < (benching ? 2 : 3); i++) {
        curve c;
        if (!curve_init(&c, curves[i].name, curves[i].nid, spec))
            return 1;
        if (benching)
            bench(&c);
        else {
            printf("%s on %s\n", c.name, mns_field_describe(c.f));
            check_curve(&c, 20);
            check_edge_scalars(&c, curves[i].nid);
        }
        free(c.a);
        mns_field_free(c.f);
    }
    if (benching)
        return 0;
    printf("%s\n", failures ? "ecdh_generic: FAILED" : "ecdh_generic: all passed");
    return failures != 0;
}
#endif
