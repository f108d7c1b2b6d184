/* mns.so through the EVP API, RSA: random keys (GMP, seeded) in two
 * library contexts, one with mns (property "provider=mns") and one with
 * the default provider alone; random messages signed in one and verified
 * in the other (PKCS#1 v1.5 and PSS, each SHA-2 digest and SHA3-256,
 * EVP_DigestSign and EVP_PKEY_sign), PKCS#1 v1.5 signatures compared byte
 * for byte, OAEP / PKCS#1 v1.5 / raw ciphertexts of the default provider
 * decrypted by mns. The module's counter must grow by every private
 * operation, and each key is driven past its move from the quick CRT to
 * the full mns_rsa context (the "mns-backend" parameter names both), so
 * both paths are checked; EVP_PKEY_dup (the key manager's dup) gives a
 * key that signs; RSA-PSS keys sign with PSS within their restrictions
 * and refuse PKCS#1 v1.5 and decryption. Runs on both kernel paths
 * (MNS_CPU). */
#include <stdio.h>
#include <stdlib.h>
#include "testutil.h"

#ifndef MNS_PROVIDER_DIR
int main(void)
{
    printf("test_provider_rsa: skipped, mns.so not built (no OpenSSL 3 headers)\n");
    return 77;
}
#else
#include <time.h>
#include "prov_util.h"

static pt_ctx ctx;
static const char *const mds[] = {"SHA224", "SHA256", "SHA384", "SHA512", "SHA3-256"};
#define NMD (sizeof mds / sizeof mds[0])

static void random_bytes(unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)mt_u64();
}

static int digest_sign(EVP_PKEY *k, OSSL_LIB_CTX *lib, const char *pq, const char *md, int pss,
                       const unsigned char *m, size_t ml, unsigned char *sig, size_t *sl)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    int ok = EVP_DigestSignInit_ex(c, &pc, md, lib, pq, k, NULL) == 1 &&
             (!pss || (EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) > 0 &&
                       EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) > 0)) &&
             EVP_DigestSign(c, sig, sl, m, ml) == 1;
    EVP_MD_CTX_free(c);
    return ok;
}

static int digest_verify(EVP_PKEY *k, OSSL_LIB_CTX *lib, const char *pq, const char *md, int pss,
                         const unsigned char *m, size_t ml, const unsigned char *sig, size_t sl)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    int ok = EVP_DigestVerifyInit_ex(c, &pc, md, lib, pq, k, NULL) == 1 &&
             (!pss || EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) > 0) &&
             EVP_DigestVerify(c, sig, sl, m, ml) == 1;
    EVP_MD_CTX_free(c);
    return ok;
}

/* EVP_PKEY_sign of a digest (the TLS / pkeyutl path) */
static int pkey_sign(EVP_PKEY *k, OSSL_LIB_CTX *lib, const char *pq, const char *md, int pss,
                     const unsigned char *dg, size_t dl, unsigned char *sig, size_t *sl)
{
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(lib, k, pq);
    EVP_MD *m = EVP_MD_fetch(lib, md, NULL);
    int ok = pc && m && EVP_PKEY_sign_init(pc) == 1 &&
             EVP_PKEY_CTX_set_rsa_padding(pc, pss ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING) > 0 &&
             EVP_PKEY_CTX_set_signature_md(pc, m) > 0 && EVP_PKEY_sign(pc, sig, sl, dg, dl) == 1;
    EVP_MD_free(m);
    EVP_PKEY_CTX_free(pc);
    return ok;
}

static void sign_round(EVP_PKEY *km, EVP_PKEY *kd, const char *what)
{
    unsigned char m[300], s1[1100], s2[1100], dg[64];
    size_t ml = 1 + mt_below(sizeof m), l1 = sizeof s1, l2 = sizeof s2;
    random_bytes(m, ml);
    const char *md = mds[mt_below(NMD)];
    int pss = (int)mt_below(2);
    MT_CHECK(digest_sign(km, ctx.mns, PT_MNS_PROPQ, md, pss, m, ml, s1, &l1), "%s: mns DigestSign %s pss=%d: %s", what, md, pss, pt_error());
    MT_CHECK(digest_verify(kd, ctx.def, NULL, md, pss, m, ml, s1, l1), "%s: default verifies mns %s pss=%d: %s", what, md, pss, pt_error());
    MT_CHECK(digest_sign(kd, ctx.def, NULL, md, pss, m, ml, s2, &l2), "%s: default DigestSign", what);
    MT_CHECK(digest_verify(km, ctx.mns, PT_MNS_PROPQ, md, pss, m, ml, s2, l2), "%s: mns verifies default %s pss=%d: %s", what, md, pss, pt_error());
    if (!pss)
        MT_CHECK(l1 == l2 && memcmp(s1, s2, l1) == 0, "%s: PKCS#1 v1.5 %s signatures differ", what, md);
    unsigned dl = 0;
    EVP_MD *h = EVP_MD_fetch(ctx.def, md, NULL);
    EVP_Digest(m, ml, dg, &dl, h, NULL);
    EVP_MD_free(h);
    l1 = sizeof s1;
    MT_CHECK(pkey_sign(km, ctx.mns, PT_MNS_PROPQ, md, pss, dg, dl, s1, &l1), "%s: mns PKEY_sign %s: %s", what, md, pt_error());
    MT_CHECK(digest_verify(kd, ctx.def, NULL, md, pss, m, ml, s1, l1), "%s: default verifies mns PKEY_sign %s pss=%d", what, md, pss);
}

static int decrypt(EVP_PKEY *k, OSSL_LIB_CTX *lib, const char *pq, int pad, const char *md,
                   const unsigned char *in, size_t il, unsigned char *out, size_t *ol, int enc)
{
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(lib, k, pq);
    int ok = pc && (enc ? EVP_PKEY_encrypt_init(pc) : EVP_PKEY_decrypt_init(pc)) == 1 &&
             EVP_PKEY_CTX_set_rsa_padding(pc, pad) > 0;
    if (ok && pad == RSA_PKCS1_OAEP_PADDING) {
        unsigned char *label = OPENSSL_malloc(5);
        memcpy(label, "label", 5);
        ok = EVP_PKEY_CTX_set_rsa_oaep_md_name(pc, md, NULL) > 0 &&
             EVP_PKEY_CTX_set0_rsa_oaep_label(pc, label, 5) > 0;
    }
    ok = ok && (enc ? EVP_PKEY_encrypt(pc, out, ol, in, il) : EVP_PKEY_decrypt(pc, out, ol, in, il)) == 1;
    EVP_PKEY_CTX_free(pc);
    return ok;
}

static void decrypt_round(EVP_PKEY *km, EVP_PKEY *kd, size_t nbytes, const char *what)
{
    static const int pads[] = {RSA_PKCS1_OAEP_PADDING, RSA_PKCS1_PADDING, RSA_NO_PADDING};
    static const char *const oaep_md[] = {"SHA1", "SHA256", "SHA512"};
    for (int i = 0; i < 3; i++) {
        /* zeroed: the constant-time decoders select between the message and
         * the buffer's old bytes, which valgrind would see as read */
        unsigned char m[1100] = {0}, c[1100] = {0}, d[1100] = {0};
        size_t ml = pads[i] == RSA_NO_PADDING ? nbytes : 1 + mt_below(32);
        size_t cl = sizeof c, dl = sizeof d;
        const char *md = oaep_md[mt_below(3)];
        random_bytes(m, ml);
        if (pads[i] == RSA_NO_PADDING)
            m[0] = 0; /* below n */
        MT_CHECK(decrypt(kd, ctx.def, NULL, pads[i], md, m, ml, c, &cl, 1), "%s: default encrypt", what);
        MT_CHECK(decrypt(km, ctx.mns, PT_MNS_PROPQ, pads[i], md, c, cl, d, &dl, 0) && dl == ml &&
                     memcmp(d, m, ml) == 0,
                 "%s: mns decrypts pad %d (%s): %s", what, pads[i], md, pt_error());
        cl = sizeof c;
        dl = sizeof d;
        MT_CHECK(decrypt(km, ctx.mns, PT_MNS_PROPQ, pads[i], md, m, ml, c, &cl, 1) &&
                     decrypt(kd, ctx.def, NULL, pads[i], md, c, cl, d, &dl, 0) && dl == ml &&
                     memcmp(d, m, ml) == 0,
                 "%s: mns encrypts pad %d, default decrypts: %s", what, pads[i], pt_error());
    }
}

static const char *backend(EVP_PKEY *k)
{
    static char buf[64];
    char *s = NULL;
    OSSL_PARAM p[2] = {OSSL_PARAM_utf8_ptr("mns-backend", &s, 0), OSSL_PARAM_END};
    buf[0] = 0;
    if (EVP_PKEY_get_params(k, p) && s)
        snprintf(buf, sizeof buf, "%s", s);
    return buf;
}

/* Signs until the key has moved to its full context: the upgrade thread
 * starts after MNS_PROV_RSA_UPGRADE_AFTER uses. The loop is bounded by
 * rounds, not by wall time, so that a slow run (valgrind: every thread
 * many times slower) is not cut short, and it sleeps between rounds so
 * that the thread, once started, gets a core. */
#define MAX_ROUNDS 400

static void sleep_ms(long ms)
{
    struct timespec z = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&z, NULL);
}

/* EVP_PKEY_dup through the key manager's dup: the copy signs, the
 * default provider verifies, and the copy keeps the key's type. */
static void dup_round(EVP_PKEY *km, EVP_PKEY *kd, const char *what, int pss_key)
{
    EVP_PKEY *kc = EVP_PKEY_dup(km);
    MT_CHECK(kc != NULL, "%s: EVP_PKEY_dup: %s", what, pt_error());
    if (!kc)
        return;
    MT_CHECK(EVP_PKEY_is_a(kc, pss_key ? "RSA-PSS" : "RSA"), "%s: dup changed the key type", what);
    unsigned char m[100], sig[1100];
    size_t sl = sizeof sig;
    random_bytes(m, sizeof m);
    MT_CHECK(digest_sign(kc, ctx.mns, PT_MNS_PROPQ, "SHA256", 1, m, sizeof m, sig, &sl) &&
                 digest_verify(kd, ctx.def, NULL, "SHA256", 1, m, sizeof m, sig, sl),
             "%s: the dup's PSS signature: %s", what, pt_error());
    EVP_PKEY_free(kc);
}

static void run_key(size_t bits, int k)
{
    rsa_test_key t;
    char what[64];
    rsa_test_key_init(&t);
    rsa_test_key_random(&t, bits, k, mt_rand);
    snprintf(what, sizeof what, "RSA-%zu k=%d", bits, k);
    EVP_PKEY *km = pt_rsa_pkey(ctx.mns, PT_MNS_PROPQ, &t), *kd = pt_rsa_pkey(ctx.def, NULL, &t);
    MT_CHECK(km && kd, "%s: fromdata: %s", what, pt_error());
    if (!km || !kd)
        return;
    MT_CHECK(strncmp(backend(km), "quick-crt", 9) == 0, "%s: first backend %s", what, backend(km));
    unsigned long before = pt_counter(&ctx, "mns-rsa-private-ops");
    int rounds = 0, upgraded = 0;
    while (!upgraded && rounds < MAX_ROUNDS) {
        sign_round(km, kd, what);
        rounds++;
        sleep_ms(20);
        upgraded = strncmp(backend(km), "rsa ", 4) == 0;
    }
    MT_CHECK(upgraded, "%s: still on %s after %d rounds", what, backend(km), rounds);
    sign_round(km, kd, what);
    decrypt_round(km, kd, (bits + 7) / 8, what);
    dup_round(km, kd, what, 0);
    unsigned long after = pt_counter(&ctx, "mns-rsa-private-ops");
    /* per round: DigestSign and PKEY_sign; then one more round, three
     * decryptions and the dup's signature */
    MT_CHECK(after - before == 2ul * (unsigned long)(rounds + 1) + 4,
             "%s: counter grew by %lu, %d rounds", what, after - before, rounds);
    printf("%s: %d rounds before the full key; %s\n", what, rounds, backend(km));
    EVP_PKEY_free(km);
    EVP_PKEY_free(kd);
    for (int i = 0; i < 8; i++)
        mpz_clear(t.p[i]);
    mpz_clears(t.n, t.e, t.d, NULL);
}

/* An RSA-PSS key (the key type of PKCS#8 id-RSASSA-PSS) in both contexts,
 * unrestricted or restricted to SHA-256 / MGF1-SHA-256 / salts of 32
 * bytes or more: mns signs with PSS (the default for such a key) and the
 * default provider verifies; PKCS#1 v1.5 and decryption are refused with
 * mns's reason, and so are, for the restricted key, SHA-512 and a shorter
 * salt; so does the key once on its full mns_rsa context; its dup keeps
 * all that. */
static int pss_sign_with(EVP_PKEY *k, const char *md, int pad, int saltlen, unsigned char *sig,
                         size_t *sl, const unsigned char *m, size_t ml)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    int ok = EVP_DigestSignInit_ex(c, &pc, md, ctx.mns, PT_MNS_PROPQ, k, NULL) == 1 &&
             (!pad || EVP_PKEY_CTX_set_rsa_padding(pc, pad) > 0) &&
             (saltlen == -100 || EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, saltlen) > 0) &&
             EVP_DigestSign(c, sig, sl, m, ml) == 1;
    EVP_MD_CTX_free(c);
    return ok;
}

static void refused(int ok, const char *reason, const char *what, const char *case_)
{
    const char *e = pt_error();
    MT_CHECK(!ok && strstr(e, reason) && strstr(e, "mns"), "%s: %s not refused by mns (%s)", what,
             case_, e);
}

static void run_pss_key(size_t bits, int restricted)
{
    rsa_test_key t;
    char what[64];
    const pt_pss r = {"SHA256", "SHA256", 32}, *pp = restricted ? &r : NULL;
    rsa_test_key_init(&t);
    rsa_test_key_random(&t, bits, 2, mt_rand);
    snprintf(what, sizeof what, "RSA-PSS-%zu%s", bits, restricted ? " restricted" : "");
    EVP_PKEY *km = pt_rsa_typed_pkey(ctx.mns, PT_MNS_PROPQ, &t, "RSA-PSS", pp),
             *kd = pt_rsa_typed_pkey(ctx.def, NULL, &t, "RSA-PSS", pp);
    MT_CHECK(km && kd, "%s: fromdata: %s", what, pt_error());
    if (km && kd) {
        unsigned char m[200], sig[1100], dg[32] = {0};
        size_t sl = sizeof sig, ml = 1 + mt_below(sizeof m);
        random_bytes(m, ml);
        MT_CHECK(pss_sign_with(km, "SHA256", 0, -100, sig, &sl, m, ml) &&
                     digest_verify(kd, ctx.def, NULL, "SHA256", 1, m, ml, sig, sl),
                 "%s: mns signs, default verifies: %s", what, pt_error());
        sl = sizeof sig;
        MT_CHECK(digest_sign(kd, ctx.def, NULL, "SHA256", 1, m, ml, sig, &sl) &&
                     digest_verify(km, ctx.mns, PT_MNS_PROPQ, "SHA256", 1, m, ml, sig, sl),
                 "%s: default signs, mns verifies: %s", what, pt_error());
        sl = sizeof sig;
        refused(pss_sign_with(km, "SHA256", RSA_PKCS1_PADDING, -100, sig, &sl, m, ml),
                "operation not supported", what, "PKCS#1 v1.5");
        sl = sizeof sig;
        refused(pkey_sign(km, ctx.mns, PT_MNS_PROPQ, "SHA256", 0, dg, sizeof dg, sig, &sl),
                "operation not supported", what, "EVP_PKEY_sign PKCS#1 v1.5");
        size_t dl = sizeof sig;
        refused(decrypt(km, ctx.mns, PT_MNS_PROPQ, RSA_PKCS1_OAEP_PADDING, "SHA256", sig,
                        (bits + 7) / 8, m, &dl, 0),
                "operation not supported", what, "decryption");
        if (restricted) {
            sl = sizeof sig;
            refused(pss_sign_with(km, "SHA512", 0, -100, sig, &sl, m, ml), "invalid parameter", what,
                    "SHA-512");
            sl = sizeof sig;
            refused(pss_sign_with(km, "SHA256", 0, 16, sig, &sl, m, ml), "invalid parameter", what,
                    "a 16-byte salt");
        }
        /* on to the full mns_rsa context (restricted to PSS too) */
        int rounds = 0, ok = 1;
        while (ok && rounds < MAX_ROUNDS && strncmp(backend(km), "rsa ", 4) != 0) {
            sl = sizeof sig;
            ok = pss_sign_with(km, "SHA256", 0, -100, sig, &sl, m, ml) &&
                 digest_verify(kd, ctx.def, NULL, "SHA256", 1, m, ml, sig, sl);
            rounds++;
            sleep_ms(20);
        }
        MT_CHECK(ok && strncmp(backend(km), "rsa ", 4) == 0, "%s: on %s after %d rounds: %s", what,
                 backend(km), rounds, pt_error());
        sl = sizeof sig;
        MT_CHECK(pss_sign_with(km, "SHA256", 0, -100, sig, &sl, m, ml) &&
                     digest_verify(kd, ctx.def, NULL, "SHA256", 1, m, ml, sig, sl),
                 "%s: full key signs, default verifies: %s", what, pt_error());
        sl = sizeof sig;
        refused(pss_sign_with(km, "SHA256", RSA_PKCS1_PADDING, -100, sig, &sl, m, ml),
                "operation not supported", what, "PKCS#1 v1.5 on the full key");
        dup_round(km, kd, what, 1);
        EVP_PKEY *kc = EVP_PKEY_dup(km);
        sl = sizeof sig;
        refused(kc && pss_sign_with(kc, "SHA256", RSA_PKCS1_PADDING, -100, sig, &sl, m, ml),
                "operation not supported", what, "PKCS#1 v1.5 with the dup");
        EVP_PKEY_free(kc);
        printf("%s: signed, verified, refused what it must\n", what);
    }
    EVP_PKEY_free(km);
    EVP_PKEY_free(kd);
    rsa_test_key_clear(&t);
}

int main(void)
{
    mt_init("test_provider_rsa");
    MT_CHECK(pt_open(&ctx), "loading mns.so from %s: %s", MNS_PROVIDER_DIR, pt_error());
    if (mt_failed())
        return mt_finish();
    run_key(2048, 2);
    run_key(3072, 3);
    if (mt_scale() >= 1)
        run_key(4096, 2);
    run_pss_key(2048, 0);
    run_pss_key(2048, 1);
    pt_close(&ctx);
    return mt_finish();
}
#endif
