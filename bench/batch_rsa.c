/* The batch section of mns-bench, RSA part (bench/batch.h): PKCS#1 v1.5
 * signatures with SHA-256 digests at 2048, 3072 and 4096 bits (two primes,
 * e = 65537), one thread: mns's single call in a loop, mns_rsa_sign_pkcs1v15_n,
 * OpenSSL's EVP_PKEY_sign in a loop, and the raw private operation on the
 * same encoded messages by crypto_mb's mbx_rsa_private_crt_mb8 (one call
 * for eight) and IPP's single-buffer ippsRSA_Decrypt in a loop, where
 * installed and runnable. Results are compared with GMP before timing. */
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "batch.h"
#include "mns_rsa.h"
#include "rsa_keygen.h"
#include "rsa_ossl.h"

#ifdef MNS_HAVE_CRYPTO_MB
#include <crypto_mb/cpu_features.h>
#include <crypto_mb/rsa.h>
#endif
#ifdef MNS_HAVE_IPPCP
#include <ippcp.h>
#endif

#define DL 32 /* SHA-256 */

typedef struct rctx {
    mns_rsa *key;
    EVP_PKEY_CTX *ossl;
    size_t nb;
    unsigned char dg[MB_LANES * DL], *sig, *em; /* em: the 8 encoded messages */
    mpz_t x[MB_LANES];                          /* their values */
} rctx;

static void mns_sign_1(void *x)
{
    rctx *c = x;
    for (int i = 0; i < MB_LANES; i++)
        mns_rsa_sign_pkcs1v15(c->key, c->sig + i * c->nb, "sha256", c->dg + i * DL, DL, 1);
}
static void mns_sign_8(void *x)
{
    rctx *c = x;
    mns_rsa_sign_pkcs1v15_n(c->key, c->sig, "sha256", c->dg, DL, MB_LANES, 1);
}
static void ossl_sign(void *x)
{
    rctx *c = x;
    for (int i = 0; i < MB_LANES; i++) {
        size_t len = c->nb;
        rsa_ossl_sign(c->ossl, c->sig + i * c->nb, &len, c->dg + i * DL, DL);
    }
}

/* EM = 00 01 ff .. ff 00 DigestInfo(SHA-256) digest, RFC 8017 9.2 */
static void encode(unsigned char *em, size_t nb, const unsigned char *dg)
{
    static const unsigned char prefix[19] = {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60,
                                             0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                                             0x01, 0x05, 0x00, 0x04, 0x20};
    const size_t ps = nb - 3 - sizeof prefix - DL;
    em[0] = 0;
    em[1] = 1;
    memset(em + 2, 0xff, ps);
    em[2 + ps] = 0;
    memcpy(em + 3 + ps, prefix, sizeof prefix);
    memcpy(em + 3 + ps + sizeof prefix, dg, DL);
}

/* 1 if the eight outputs (big-endian, nb bytes each) are x_i^d mod n */
static int check_raw(const rctx *c, const rsa_test_key *t, const unsigned char *out)
{
    mpz_t z, w;
    mpz_inits(z, w, NULL);
    int ok = 1;
    for (int i = 0; i < MB_LANES; i++) {
        mpz_import(z, c->nb, 1, 1, 0, 0, out + i * c->nb);
        mpz_powm(w, c->x[i], t->d, t->n);
        ok &= mpz_cmp(z, w) == 0;
    }
    mpz_clears(z, w, NULL);
    return ok;
}

#ifdef MNS_HAVE_CRYPTO_MB
typedef struct cmb {
    const rctx *c;
    int bits;
    const mbx_RSA_Method *m;
    int8u *buf, *out;
    int64u *w; /* p, q, dp, dq, iq: hw words each, the same in every lane */
    int hw;
    unsigned pad; /* bytes of stack below the caller's frame (see best_pad) */
} cmb;

static void cmb_sign(void *x)
{
    cmb *b = x;
    const int8u *from[MB_LANES];
    int8u *to[MB_LANES];
    const int64u *p[MB_LANES], *q[MB_LANES], *dp[MB_LANES], *dq[MB_LANES], *iq[MB_LANES];
    for (int i = 0; i < MB_LANES; i++) {
        from[i] = b->c->em + i * b->c->nb;
        to[i] = b->out + i * b->c->nb;
        p[i] = b->w;
        q[i] = b->w + b->hw;
        dp[i] = b->w + 2 * b->hw;
        dq[i] = b->w + 3 * b->hw;
        iq[i] = b->w + 4 * b->hw;
    }
    /* the call's stack moved down by pad bytes */
    volatile char *below = alloca(b->pad + 1);
    below[0] = 0;
    mbx_rsa_private_crt_mb8(from, to, p, q, dp, dq, iq, b->bits, b->m, b->buf);
}

/* crypto_mb's RSA-3072 path runs about 1.4x slower unless its stack sits
 * at one of four 16-byte offsets modulo 64 (seen on an IFMA Xeon): the
 * comparison gives it the best of the offsets 0, 16, .. 112 below this
 * frame, by the minimum of three calls each. */
static void best_pad(cmb *b)
{
    uint64_t best = UINT64_MAX;
    unsigned pad = 0;
    for (unsigned off = 0; off < 128; off += 16) {
        b->pad = off;
        for (int k = 0; k < 3; k++) {
            const uint64_t t0 = __rdtsc();
            cmb_sign(b);
            const uint64_t t = __rdtsc() - t0;
            if (t < best)
                best = t, pad = off;
        }
    }
    b->pad = pad;
}

static void crypto_mb_rsa(mb_run *run, const rctx *c, const rsa_test_key *t, unsigned bits)
{
    const char *name = "crypto_mb mbx_rsa_private_crt_mb8";
    if (!mb_crypto_mb_runs()) {
        mb_batch_note(run, "rsa-sign", bits, name, mb_crypto_mb_status());
        return;
    }
    cmb b = {.c = c, .bits = (int)bits, .m = mbx_RSA_private_crt_Method((int)bits)};
    b.hw = (int)((bits / 2 + 63) / 64);
    b.w = calloc((size_t)5 * b.hw, 8);
    b.buf = aligned_alloc(64, ((size_t)mbx_RSA_Method_BufSize(b.m) + 63) & ~(size_t)63);
    b.out = calloc(MB_LANES, c->nb);
    mpz_t v, pm1;
    mpz_inits(v, pm1, NULL);
    const mpz_t *pq = (const mpz_t *)t->p;
    mpz_export(b.w, NULL, -1, 8, 0, 0, pq[0]);
    mpz_export(b.w + b.hw, NULL, -1, 8, 0, 0, pq[1]);
    for (int k = 0; k < 2; k++) {
        mpz_sub_ui(pm1, pq[k], 1);
        mpz_mod(v, t->d, pm1);
        mpz_export(b.w + (2 + k) * b.hw, NULL, -1, 8, 0, 0, v);
    }
    mpz_invert(v, pq[1], pq[0]);
    mpz_export(b.w + 4 * b.hw, NULL, -1, 8, 0, 0, v);
    mpz_clears(v, pm1, NULL);
    cmb_sign(&b);
    best_pad(&b);
    char note[96];
    snprintf(note, sizeof note, "raw private op, one call for 8, stack offset %u (the best)", b.pad);
    if (check_raw(c, t, b.out))
        mb_batch_time(run, "rsa-sign", bits, name, cmb_sign, &b, note);
    else
        mb_batch_note(run, "rsa-sign", bits, name, "MISMATCH against GMP");
    free(b.w), free(b.buf), free(b.out);
}
#endif

#ifdef MNS_HAVE_IPPCP
typedef struct ipp {
    IppsRSAPrivateKeyState *key;
    IppsBigNumState *ct[MB_LANES], *pt;
    Ipp8u *buf;
} ipp;

static IppsBigNumState *ipp_bn(const mpz_t a, int len32)
{
    int size;
    ippsBigNumGetSize(len32, &size);
    IppsBigNumState *bn = malloc((size_t)size);
    ippsBigNumInit(len32, bn);
    Ipp32u *w = calloc((size_t)len32, 4);
    size_t n = 0;
    mpz_export(w, &n, -1, 4, 0, 0, a);
    ippsSet_BN(IppsBigNumPOS, n ? (int)n : 1, w, bn);
    free(w);
    return bn;
}

static void ipp_sign(void *x)
{
    ipp *s = x;
    for (int i = 0; i < MB_LANES; i++)
        ippsRSA_Decrypt(s->ct[i], s->pt, s->key, s->buf);
}

static void ipp_rsa(mb_run *run, const rctx *c, const rsa_test_key *t, unsigned bits)
{
    const char *name = "ipp ippsRSA_Decrypt x8";
    const int bp = (int)mpz_sizeinbase(t->p[0], 2), bq = (int)mpz_sizeinbase(t->p[1], 2);
    const int n32 = (int)(bits / 32) + 1, h32 = n32 / 2 + 1;
    ipp s;
    int size;
    ippsRSA_GetSizePrivateKeyType2(bp, bq, &size);
    s.key = malloc((size_t)size);
    ippsRSA_InitPrivateKeyType2(bp, bq, s.key, size);
    mpz_t v, pm1;
    mpz_inits(v, pm1, NULL);
    IppsBigNumState *k[5];
    k[0] = ipp_bn(t->p[0], h32);
    k[1] = ipp_bn(t->p[1], h32);
    for (int i = 0; i < 2; i++) {
        mpz_sub_ui(pm1, t->p[i], 1);
        mpz_mod(v, t->d, pm1);
        k[2 + i] = ipp_bn(v, h32);
    }
    mpz_invert(v, t->p[1], t->p[0]);
    k[4] = ipp_bn(v, h32);
    IppStatus st = ippsRSA_SetPrivateKeyType2(k[0], k[1], k[2], k[3], k[4], s.key);
    int bs = 0;
    if (st == ippStsNoErr)
        st = ippsRSA_GetBufferSizePrivateKey(&bs, s.key);
    s.buf = malloc((size_t)bs + 64);
    for (int i = 0; i < MB_LANES; i++)
        s.ct[i] = ipp_bn(c->x[i], n32);
    s.pt = ipp_bn(c->x[0], n32);
    /* check lane 0's result against GMP */
    int ok = st == ippStsNoErr && ippsRSA_Decrypt(s.ct[0], s.pt, s.key, s.buf) == ippStsNoErr;
    if (ok) {
        Ipp32u *w = calloc((size_t)n32, 4);
        int len = 0;
        IppsBigNumSGN sgn;
        ippsGet_BN(&sgn, &len, w, s.pt);
        mpz_import(v, (size_t)len, -1, 4, 0, 0, w);
        mpz_powm(pm1, c->x[0], t->d, t->n);
        ok = mpz_cmp(v, pm1) == 0;
        free(w);
    }
    if (ok)
        mb_batch_time(run, "rsa-sign", bits, name, ipp_sign, &s, "raw private op, single buffer");
    else
        mb_batch_note(run, "rsa-sign", bits, name, st == ippStsNoErr ? "MISMATCH against GMP"
                                                                     : ippcpGetStatusString(st));
    mpz_clears(v, pm1, NULL);
    for (int i = 0; i < 5; i++)
        free(k[i]);
    for (int i = 0; i < MB_LANES; i++)
        free(s.ct[i]);
    free(s.pt), free(s.key), free(s.buf);
}
#endif

static void rsa_size(mb_run *run, unsigned bits, gmp_randstate_t rs)
{
    rsa_test_key t;
    rsa_test_key_init(&t);
    rsa_test_key_random(&t, bits, 2, rs);
    rctx c;
    memset(&c, 0, sizeof c);
    if (mns_rsa_new(&c.key, t.n, t.e, t.d, (const mpz_t *)t.p, 2, "auto") != MNS_OK) {
        mb_batch_note(run, "rsa-sign", bits, "mns", mns_last_error());
        rsa_test_key_clear(&t);
        return;
    }
    c.nb = mns_rsa_bytes(c.key);
    c.sig = calloc(MB_LANES, c.nb);
    c.em = calloc(MB_LANES, c.nb);
    for (size_t i = 0; i < sizeof c.dg; i++)
        c.dg[i] = (unsigned char)gmp_urandomb_ui(rs, 8);
    for (int i = 0; i < MB_LANES; i++) {
        encode(c.em + i * c.nb, c.nb, c.dg + i * DL);
        mpz_init(c.x[i]);
        mpz_import(c.x[i], c.nb, 1, 1, 0, 0, c.em + i * c.nb);
    }
    mns_sign_8(&c);
    const int ok = check_raw(&c, &t, c.sig);
    mb_batch_time(run, "rsa-sign", bits, "mns single x8", mns_sign_1, &c, mns_rsa_describe(c.key));
    if (ok)
        mb_batch_time(run, "rsa-sign", bits, "mns batch of 8", mns_sign_8, &c, "");
    else
        mb_batch_note(run, "rsa-sign", bits, "mns batch of 8", "MISMATCH against GMP");
    EVP_PKEY *pk = rsa_ossl_key(t.n, t.e, t.d, (const mpz_t *)t.p, 2);
    c.ossl = pk ? rsa_ossl_sign_ctx(pk, "sha256") : NULL;
    if (c.ossl)
        mb_batch_time(run, "rsa-sign", bits, "openssl x8", ossl_sign, &c, "");
    else
        mb_batch_note(run, "rsa-sign", bits, "openssl x8", "OpenSSL refused the key");
#ifdef MNS_HAVE_CRYPTO_MB
    crypto_mb_rsa(run, &c, &t, bits);
#else
    mb_batch_note(run, "rsa-sign", bits, "crypto_mb mbx_rsa_private_crt_mb8", mb_crypto_mb_status());
#endif
#ifdef MNS_HAVE_IPPCP
    ipp_rsa(run, &c, &t, bits);
#else
    mb_batch_note(run, "rsa-sign", bits, "ipp ippsRSA_Decrypt x8", "IPP not installed when "
                                                                  "mns-bench was configured");
#endif
    EVP_PKEY_CTX_free(c.ossl);
    EVP_PKEY_free(pk);
    for (int i = 0; i < MB_LANES; i++)
        mpz_clear(c.x[i]);
    free(c.sig), free(c.em);
    mns_rsa_free(c.key);
    rsa_test_key_clear(&t);
}

void mb_batch_rsa(mb_run *run, FILE *out)
{
    static const unsigned sizes[] = {2048, 3072, 4096};
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, run->seed);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        fprintf(stderr, "  batch: rsa-%u\n", sizes[i]);
        rsa_size(run, sizes[i], rs);
    }
    gmp_randclear(rs);
    (void)out;
}
