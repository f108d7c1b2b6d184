/* mns.so refuses bad RSA input with an OpenSSL error and a reason, writes
 * nothing and does not crash: a corrupted key (p q != n, and e d != 1 mod
 * lcm(p - 1, q - 1)), a signature buffer one byte too small, a ciphertext
 * >= n (n itself, and all-ones bytes), a wrong digest length for
 * EVP_PKEY_sign, an RSA-PSS key with a negative minimum salt length. */
#include <stdio.h>
#include <stdlib.h>
#include "testutil.h"

#ifndef MNS_PROVIDER_DIR
int main(void)
{
    printf("test_provider_bad: skipped, mns.so not built (no OpenSSL 3 headers)\n");
    return 77;
}
#else
#include "prov_util.h"

static pt_ctx ctx;

static int all(const unsigned char *b, size_t n, unsigned char v)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= b[i] == v;
    return ok;
}

static void corrupted_keys(void)
{
    rsa_test_key t;
    rsa_test_key_init(&t);
    rsa_test_key_random(&t, 2048, 2, mt_rand);
    for (int kind = 0; kind < 2; kind++) {
        mpz_t keep;
        mpz_init_set(keep, kind ? t.d : t.n);
        if (kind)
            mpz_add_ui(t.d, t.d, 2); /* e d != 1 */
        else
            mpz_add_ui(t.n, t.n, 2); /* p q != n */
        ERR_clear_error();
        EVP_PKEY *k = pt_rsa_pkey(ctx.mns, PT_MNS_PROPQ, &t);
        const char *err = pt_error();
        MT_CHECK(!k && strstr(err, "invalid key"), "corrupted key %d accepted (%s)", kind, err);
        printf("corrupted key %d: %s\n", kind, err);
        EVP_PKEY_free(k);
        mpz_set(kind ? t.d : t.n, keep);
        mpz_clear(keep);
    }
    /* an RSA-PSS key whose minimum salt length is negative */
    const pt_pss bad = {"SHA256", "SHA256", -5};
    ERR_clear_error();
    EVP_PKEY *k = pt_rsa_typed_pkey(ctx.mns, PT_MNS_PROPQ, &t, "RSA-PSS", &bad);
    const char *err = pt_error();
    MT_CHECK(!k && strstr(err, "invalid parameter"), "RSA-PSS key with salt -5 accepted (%s)", err);
    printf("RSA-PSS key with salt -5: %s\n", err);
    EVP_PKEY_free(k);
    for (int i = 0; i < 8; i++)
        mpz_clear(t.p[i]);
    mpz_clears(t.n, t.e, t.d, NULL);
}

static void bad_buffers(void)
{
    rsa_test_key t;
    rsa_test_key_init(&t);
    rsa_test_key_random(&t, 2048, 2, mt_rand);
    EVP_PKEY *k = pt_rsa_pkey(ctx.mns, PT_MNS_PROPQ, &t);
    MT_CHECK(k != NULL, "key: %s", pt_error());
    unsigned char dg[32] = {1, 2, 3}, sig[512], out[512];
    /* signature buffer too small */
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(ctx.mns, k, PT_MNS_PROPQ);
    size_t sl = 255;
    memset(sig, 0x5a, sizeof sig);
    ERR_clear_error();
    int ok = pc && EVP_PKEY_sign_init(pc) > 0 && EVP_PKEY_CTX_set_signature_md(pc, EVP_sha256()) > 0 &&
             EVP_PKEY_sign(pc, sig, &sl, dg, sizeof dg) > 0;
    const char *err = pt_error();
    MT_CHECK(!ok && strstr(err, "too small") && all(sig, sizeof sig, 0x5a),
             "255-byte signature buffer accepted or written (%s)", err);
    /* wrong digest length */
    sl = sizeof sig;
    ok = pc && EVP_PKEY_sign(pc, sig, &sl, dg, 20) > 0;
    err = pt_error();
    MT_CHECK(!ok && err[0] && all(sig, sizeof sig, 0x5a), "20-byte SHA-256 digest signed (%s)", err);
    EVP_PKEY_CTX_free(pc);
    /* ciphertext >= n: n itself, then all ones */
    unsigned char c[256];
    for (int kind = 0; kind < 2; kind++) {
        size_t got = 0;
        if (kind)
            memset(c, 0xff, sizeof c);
        else
            mpz_export(c, &got, 1, 1, 0, 0, t.n);
        pc = EVP_PKEY_CTX_new_from_pkey(ctx.mns, k, PT_MNS_PROPQ);
        size_t ol = sizeof out;
        memset(out, 0x5a, sizeof out);
        ERR_clear_error();
        ok = pc && EVP_PKEY_decrypt_init(pc) > 0 &&
             EVP_PKEY_CTX_set_rsa_padding(pc, kind ? RSA_PKCS1_PADDING : RSA_NO_PADDING) > 0 &&
             EVP_PKEY_decrypt(pc, out, &ol, c, sizeof c) > 0;
        err = pt_error();
        MT_CHECK(!ok && strstr(err, "too large") && all(out, sizeof out, 0x5a),
                 "ciphertext >= n (%d) decrypted (%s)", kind, err);
        printf("ciphertext >= n (%d): %s\n", kind, err);
        EVP_PKEY_CTX_free(pc);
    }
    EVP_PKEY_free(k);
    for (int i = 0; i < 8; i++)
        mpz_clear(t.p[i]);
    mpz_clears(t.n, t.e, t.d, NULL);
}

int main(void)
{
    mt_init("test_provider_bad");
    MT_CHECK(pt_open(&ctx), "loading mns.so from %s: %s", MNS_PROVIDER_DIR, pt_error());
    if (mt_failed())
        return mt_finish();
    corrupted_keys();
    bad_buffers();
    pt_close(&ctx);
    return mt_finish();
}
#endif
