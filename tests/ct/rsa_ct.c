/* Constant-time check of the whole RSA-CRT private operation under valgrind
 * memcheck (issue 8, item 4), in the manner of tests/ct/ctime.c: the key's
 * secrets are marked undefined, and memcheck reports any conditional branch
 * or memory address that depends on them as a use of uninitialised data.
 *
 * Marked secret, per channel: the words of p_i (the top word excepted, see
 * below), of the padded exponent d_i (the top word excepted), the exit mask
 * u and u^-1 (backends without get_words), the Garner constants (product of
 * the earlier primes and its inverse). So every step of mns_rsa_private is
 * covered: in mod p_i (mpn_sec_div_r), the entry into the field (set_words,
 * or the digit tables of a backend without it), the exponentiation (one
 * channel alone, and two channels sharing a thread through the x2 driver of
 * src/exp: with one thread every pair runs there), the exit (get_words, or
 * the mask and its removal), Garner's CRT, and the wiping of scratch. The
 * library itself declassifies, where they become public by design
 * (MNS_RSA_DECLASSIFY in src/rsa/rsa_internal.h): the result before the
 * fault check, and the masked channel result s_i u that get_mpz sees
 * (docs/rsa.md).
 *
 * Not covered: the fields' own copies of p_i and their constants derived
 * from it (made by mns_field_new, which is variable time by contract; the
 * kernels' operands are checked by tests/ct/ctime.c); the top words of p_i
 * and of d_i: mpn_sec_div_r normalises the divisor by the bit length of
 * p_i and powm takes the exponent's bit length (both public sizes) from
 * the top word. valgrind has no AVX-512: run with portable kernels (mont,
 * mont:kernel=generic, rns, rns-ifma:kernel=generic and
 * mont-ifma:kernel=generic (their x2 entry points, which make two portable
 * calls), pmns specs).
 *
 * Usage: mns-rsa-ct [--selftest] SPEC...  (under valgrind --error-exitcode=N)
 * --selftest also runs a variable-time library call (get_mpz) on a marked
 * secret: memcheck must report it (the ctest entry expects failure), which
 * shows that the marking reaches the library's code paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "mns.h"
#include "mns_rsa.h"
#include "rsa/rsa_internal.h"
#include "rsa_keygen.h"

#define SECRET(p, len) VALGRIND_MAKE_MEM_UNDEFINED((p), (len))
#define PUBLIC(p, len) VALGRIND_MAKE_MEM_DEFINED((p), (len))

/* marks (mark = 1) or unmarks the key's secrets */
static void mark(mns_rsa *key, int secret)
{
    for (int i = 0; i < key->k; i++) {
        mns_rsa_channel *c = &key->ch[i];
        size_t dn = mpz_size(c->dexp);
        mp_limb_t *dl = mpz_limbs_modify(c->dexp, (mp_size_t)dn);
        struct {
            void *p;
            size_t bytes;
        } s[] = {
            {c->p, (c->pn - 1) * sizeof(mp_limb_t)},
            {dl, (dn - 1) * sizeof(mp_limb_t)},
            {c->umask, c->limbs * sizeof(uint64_t)},
            {c->uinv, c->pn * sizeof(mp_limb_t)},
            {c->mprev, c->mn * sizeof(mp_limb_t)},
            {c->inv, i > 0 ? c->pn * sizeof(mp_limb_t) : 0},
        };
        for (size_t j = 0; j < sizeof s / sizeof s[0]; j++)
            if (s[j].p && s[j].bytes) {
                if (secret)
                    SECRET(s[j].p, s[j].bytes);
                else
                    PUBLIC(s[j].p, s[j].bytes);
            }
    }
}

static int run(const char *spec, size_t bits, int k, gmp_randstate_t r, int selftest)
{
    rsa_test_key t;
    rsa_test_key_make(&t, bits, k, r);
    mns_rsa *key;
    mns_status st = mns_rsa_new(&key, t.n, t.e, t.d, t.p, k, spec);
    if (st == MNS_ENOTSUP) {
        printf("mns-rsa-ct: skip %s: %s\n", spec, mns_last_error());
        rsa_test_key_clear(&t);
        return 0;
    }
    if (st != MNS_OK) {
        printf("mns-rsa-ct: %s: key refused: %s\n", spec, mns_last_error());
        rsa_test_key_clear(&t);
        return 1;
    }
    /* every pair that can share the x2 driver does (the pair rule may have
     * turned some off): one thread then runs them */
    for (int j = 0; 2 * j + 1 < k; j++)
        key->pair_on[j] = key->x2[j] != 0;
    int bad = 0;
    mpz_t in, out, want;
    mpz_inits(in, out, want, NULL);
    mark(key, 1);
    if (selftest) {
        /* variable time on purpose, in the library: get_mpz (mpz_import
         * normalises its size by the value) of an element that depends on
         * the secret p_0 (the input entered into channel 0: in mod p_0) */
        const mns_rsa_channel *c = &key->ch[0];
        uint64_t *sc = calloc(mns_rsa_channel_scratch(c, key->nn), sizeof(uint64_t));
        mp_limb_t *w = calloc(key->nn, sizeof(mp_limb_t));
        for (size_t i = 0; i + 1 < key->nn; i++)
            w[i] = 0x9e3779b97f4a7c15ull * (i + 1);
        mns_rsa_channel_in(c, w, key->nn, sc);
        mpz_t z;
        mpz_init(z);
        mns_field_get_mpz(c->f, z, mns_rsa_channel_x(c, key->nn, sc));
        mpz_clear(z);
        free(w);
        free(sc);
    }
    for (int threads = 1; threads <= 2; threads++) {
        mpz_urandomm(in, r, t.n);
        st = mns_rsa_private(key, out, in, threads);
        mpz_powm(want, in, t.d, t.n);
        if (st != MNS_OK || mpz_cmp(out, want) != 0) {
            printf("mns-rsa-ct: %s %zu x %d, %d threads: WRONG (%s)\n", spec, bits, k, threads,
                   mns_last_error());
            bad = 1;
        }
    }
    unsigned char dg[32], *sig = malloc(mns_rsa_bytes(key));
    for (size_t i = 0; i < sizeof dg; i++)
        dg[i] = (unsigned char)(i * 37 + 1);
    st = mns_rsa_sign_pkcs1v15(key, sig, "sha256", dg, sizeof dg, 1);
    if (st != MNS_OK) {
        printf("mns-rsa-ct: %s: sign failed: %s\n", spec, mns_last_error());
        bad = 1;
    }
    mark(key, 0);
    printf("mns-rsa-ct: %s %zu x %d: ran (%s)\n", spec, bits, k,
           strchr(mns_rsa_describe(key), '\n') + 1);
    free(sig);
    mpz_clears(in, out, want, NULL);
    mns_rsa_free(key);
    rsa_test_key_clear(&t);
    return bad;
}

int main(int argc, char **argv)
{
    gmp_randstate_t r;
    gmp_randinit_default(r);
    gmp_randseed_ui(r, 8);
    int bad = 0, selftest = 0, any = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--selftest")) {
            selftest = 1;
            continue;
        }
        any = 1;
        bad |= run(argv[i], 1024, 2, r, selftest);
        bad |= run(argv[i], 1152, 3, r, selftest);
    }
    if (!any)
        bad |= run("mont", 1024, 2, r, selftest);
    gmp_randclear(r);
    return bad;
}
