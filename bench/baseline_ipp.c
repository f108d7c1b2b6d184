/* Intel's single-buffer exponentiation as a modexp reference: IPP's RSA
 * private operation on a type-1 key (modulus n = p, private exponent d = e),
 * ippsRSA_Decrypt, which computes c^d mod n in constant time with IPP's own
 * kernels (AVX-512 IFMA ones where the CPU has them). It is the exponentiation
 * Intel ships for one operation at a time; crypto_mb's eight-lane one is in the
 * batch section (batch.c). Built only where IPP was found (MNS_HAVE_IPPCP). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"

#ifdef MNS_HAVE_IPPCP
#include <ippcp.h>

typedef struct ipp_state {
    IppsRSAPrivateKeyState *key;
    IppsBigNumState *n, *d, *c, *r;
    Ipp8u *buf;
    Ipp32u *words; /* conversion buffer of len32 words */
    int len32;
} ipp_state;

static IppsBigNumState *bn_new(int len32)
{
    int size = 0;
    if (ippsBigNumGetSize(len32, &size) != ippStsNoErr)
        return NULL;
    IppsBigNumState *bn = malloc((size_t)size);
    if (bn && ippsBigNumInit(len32, bn) != ippStsNoErr) {
        free(bn);
        return NULL;
    }
    return bn;
}

static int bn_set(ipp_state *s, IppsBigNumState *bn, const mpz_t x)
{
    size_t cnt = 0;
    memset(s->words, 0, (size_t)s->len32 * 4);
    mpz_export(s->words, &cnt, -1, 4, 0, 0, x);
    return ippsSet_BN(IppsBigNumPOS, cnt ? (int)cnt : 1, s->words, bn) == ippStsNoErr;
}

static void ipp_exp_call(void *arg)
{
    ipp_state *s = arg;
    ippsRSA_Decrypt(s->c, s->r, s->key, s->buf);
}

static void ipp_load(void *arg, mb_op op, const mpz_t a, const mpz_t b, const mpz_t e)
{
    ipp_state *s = arg;
    (void)op;
    (void)b;
    /* the exponent is the key's: set per data set, outside the timing */
    if (!bn_set(s, s->c, a) || !bn_set(s, s->d, e) ||
        ippsRSA_SetPrivateKeyType1(s->n, s->d, s->key) != ippStsNoErr)
        fprintf(stderr, "mns-bench: IPP refused a data set\n");
}

static void ipp_result(void *arg, mb_op op, mpz_t out)
{
    ipp_state *s = arg;
    IppsBigNumSGN sgn;
    int len = 0;
    (void)op;
    memset(s->words, 0, (size_t)s->len32 * 4);
    ippsGet_BN(&sgn, &len, s->words, s->r);
    mpz_import(out, (size_t)len, -1, 4, 0, 0, s->words);
}

static void ipp_destroy(void *arg)
{
    ipp_state *s = arg;
    free(s->key);
    free(s->n);
    free(s->d);
    free(s->c);
    free(s->r);
    free(s->buf);
    free(s->words);
    free(s);
}

int mb_ipp_exp_new(mb_impl *out, const mpz_t p)
{
    const int bits = (int)mpz_sizeinbase(p, 2);
    if (bits < MIN_RSA_SIZE || bits > MAX_RSA_SIZE)
        return 1;
    ipp_state *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->len32 = bits / 32 + 2;
    int ksize = 0, bsize = 0;
    s->words = calloc((size_t)s->len32, 4);
    s->n = bn_new(s->len32);
    s->d = bn_new(s->len32);
    s->c = bn_new(s->len32);
    s->r = bn_new(s->len32);
    if (ippsRSA_GetSizePrivateKeyType1(bits, bits, &ksize) == ippStsNoErr)
        s->key = malloc((size_t)ksize);
    if (!s->words || !s->n || !s->d || !s->c || !s->r || !s->key ||
        ippsRSA_InitPrivateKeyType1(bits, bits, s->key, ksize) != ippStsNoErr || !bn_set(s, s->n, p) ||
        !bn_set(s, s->d, p) || ippsRSA_SetPrivateKeyType1(s->n, s->d, s->key) != ippStsNoErr ||
        ippsRSA_GetBufferSizePrivateKey(&bsize, s->key) != ippStsNoErr ||
        !(s->buf = malloc((size_t)bsize + 64))) {
        fprintf(stderr, "mns-bench: IPP setup failed at %d bits\n", bits);
        ipp_destroy(s);
        return -1;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "ipp-rsa");
    snprintf(out->describe, sizeof out->describe, "ippsRSA_Decrypt on a type-1 key (n = p, d = e)");
    out->kind = MB_KIND_IPP;
    out->state = s;
    out->call[MB_MODEXP] = ipp_exp_call;
    out->load = ipp_load;
    out->result = ipp_result;
    out->destroy = ipp_destroy;
    return 0;
}

#else

int mb_ipp_exp_new(mb_impl *out, const mpz_t p)
{
    (void)out;
    (void)p;
    return 1;
}

#endif
