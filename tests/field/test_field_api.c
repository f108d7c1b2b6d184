/* The constant-time element API of mns.h (bytes and words I/O, set_ui, neg,
 * is_zero, equal, cmov, cswap, inv, inv_var, sqrt, legendre, powm_var) on
 * every backend, against GMP: primes of each square-root class (3 mod 4,
 * 5 mod 8, 1 mod 8 with a long 2-adic part), a composite modulus (values
 * sharing a factor are not invertible), structured values (0, 1, p - 1,
 * non-residues, loose representations, aliasing), byte strings with leading
 * zeros and longer than p. A backend that cannot serve a modulus is a skip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mns.h"
#include "field/field_internal.h"
#include "testutil.h"

/* the IFMA backends also with kernel=generic: their 52-bit representations
 * through the portable twins, on any CPU */
static const char *const specs[] = {
    "mont",  "mont-ifma", "mont-ifma:kernel=generic", "pmns",  "pmns-ifma", "pmns-mp",
    "pmns-mp-ifma", "pmns-mp:kernel=generic", "rns", "rns-ifma", "rns-ifma:kernel=generic",
    "sor", "sor-ifma", "sor-ifma:kernel=generic", "mpart", "bipartite", "mpart-mont",
    "mpart-barrett", "pmers", "pmers:kernel=generic"};

typedef struct tf {
    const mns_field *f;
    const char *spec;
    size_t L, pn, pbytes;
    int prime;
    mpz_ptr p;
    uint64_t *X, *Y, *Z, *W;
} tf;

static void value(mpz_t a, const mpz_t p, unsigned i)
{
    switch (i) {
    case 0: mpz_set_ui(a, 0); break;
    case 1: mpz_set_ui(a, 1); break;
    case 2: mpz_sub_ui(a, p, 1); break;
    case 3: mpz_fdiv_q_2exp(a, p, 1); break;
    case 4: mpz_set_ui(a, 2); break;
    default: mpz_urandomm(a, mt_rand, p); break;
    }
}

static void got(const tf *t, mpz_t r, const uint64_t *x) { mns_field_get_mpz(t->f, r, x); }

static void check_bytes(const tf *t, const mpz_t a, unsigned i)
{
    unsigned char buf[2 * 1100 + 16], out[1100 + 16];
    mpz_t v, w;
    mpz_inits(v, w, NULL);
    /* the exact length, with leading zeros, and longer than p (random high
     * bytes: the value is reduced) */
    const size_t lens[3] = {t->pbytes, t->pbytes + 5, 2 * t->pbytes + 3};
    for (int k = 0; k < 3; k++) {
        const size_t len = lens[k];
        for (int order = 0; order < 2; order++) {
            memset(buf, 0, len);
            if (k == 2)
                for (size_t j = 0; j < len; j++)
                    buf[j] = (unsigned char)mt_u64();
            else
                mpz_export(buf + len - mpz_sizeinbase(a, 256) * (mpz_sgn(a) != 0), NULL, 1, 1,
                           1, 0, a);
            if (order) /* little-endian: reverse the big-endian string */
                for (size_t j = 0; j < len / 2; j++) {
                    unsigned char c = buf[j];
                    buf[j] = buf[len - 1 - j];
                    buf[len - 1 - j] = c;
                }
            mns_order o = order ? MNS_LITTLE_ENDIAN : MNS_BIG_ENDIAN;
            MT_CHECK(mns_field_set_bytes(t->f, t->X, buf, len, o) == MNS_OK, "%s set_bytes",
                     t->spec);
            mpz_import(v, len, order ? -1 : 1, 1, 1, 0, buf);
            mpz_mod(v, v, t->p);
            got(t, w, t->X);
            MT_CHECK(mpz_cmp(v, w) == 0, "%s set_bytes len %zu order %d value %u", t->spec, len,
                     order, i);
            memset(out, 0xee, sizeof out);
            const size_t ol = t->pbytes + (size_t)k;
            MT_CHECK(mns_field_get_bytes(t->f, out, ol, t->X, o) == MNS_OK, "%s get_bytes",
                     t->spec);
            mpz_import(w, ol, order ? -1 : 1, 1, 1, 0, out);
            MT_CHECK(mpz_cmp(v, w) == 0 && out[ol] == 0xee, "%s get_bytes len %zu value %u",
                     t->spec, ol, i);
        }
    }
    MT_CHECK(mns_field_get_bytes(t->f, out, t->pbytes - 1, t->X, MNS_BIG_ENDIAN) == MNS_ERANGE,
             "%s get_bytes short buffer accepted", t->spec);
    MT_CHECK(mns_field_set_bytes(t->f, t->X, buf, 0, MNS_BIG_ENDIAN) == MNS_OK &&
                 mns_field_is_zero(t->f, t->X) == ~(uint64_t)0,
             "%s set_bytes of nothing is not 0", t->spec);
    mpz_clears(v, w, NULL);
}

static void check_words(const tf *t, const mpz_t a, unsigned i)
{
    uint64_t w[300], back[300];
    mpz_t v;
    mpz_init(v);
    memset(w, 0, sizeof w);
    mpz_export(w, NULL, -1, 8, 0, 0, a);
    MT_CHECK(mns_field_set_words(t->f, t->X, w, t->pn) == MNS_OK, "%s set_words", t->spec);
    got(t, v, t->X);
    MT_CHECK(mpz_cmp(v, a) == 0, "%s set_words value %u", t->spec, i);
    mns_field_mul(t->f, t->Y, t->X, t->X); /* a tight product, read back through words */
    MT_CHECK(mns_field_get_words(t->f, back, t->Y, t->pn) == MNS_OK, "%s get_words", t->spec);
    mpz_import(v, t->pn, -1, 8, 0, 0, back);
    mpz_t s;
    mpz_init(s);
    mpz_mul(s, a, a);
    mpz_mod(s, s, t->p);
    MT_CHECK(mpz_cmp(v, s) == 0, "%s get_words of a^2, value %u", t->spec, i);
    mpz_export(w, NULL, -1, 8, 0, 0, t->p);
    memcpy(back, t->X, 8 * t->L < sizeof back ? 8 * t->L : sizeof back);
    MT_CHECK(mns_field_set_words(t->f, t->X, w, t->pn) == MNS_ERANGE &&
                 memcmp(back, t->X, 8 * t->L < sizeof back ? 8 * t->L : sizeof back) == 0,
             "%s set_words of p accepted", t->spec);
    MT_CHECK(mns_field_set_words(t->f, t->X, w, t->pn + 1) == MNS_EINVAL, "%s n + 1 words",
             t->spec);
    uint64_t v64 = mt_u64();
    mns_field_set_ui(t->f, t->X, v64);
    got(t, v, t->X);
    mpz_set_ui(s, v64);
    mpz_mod(s, s, t->p);
    MT_CHECK(mpz_cmp(v, s) == 0, "%s set_ui", t->spec);
    mpz_clears(v, s, NULL);
}

/* neg, is_zero, equal on tight and loose forms, cmov and cswap */
static void check_select(const tf *t, const mpz_t a, const mpz_t b, unsigned i)
{
    const mns_field *f = t->f;
    const int loose = mns_field_delta(f) >= 1;
    mpz_t v, w;
    mpz_inits(v, w, NULL);
    mns_field_set_mpz(f, t->X, a);
    mns_field_set_mpz(f, t->Y, b);
    mns_field_neg(f, t->Z, t->X);
    got(t, v, t->Z);
    mpz_neg(w, a);
    mpz_mod(w, w, t->p);
    MT_CHECK(mpz_cmp(v, w) == 0, "%s neg value %u", t->spec, i);
    mns_field_neg(f, t->Z, t->Z); /* aliasing */
    MT_CHECK(mns_field_equal(f, t->Z, t->X) == ~(uint64_t)0, "%s neg neg value %u", t->spec, i);
    const uint64_t z = mns_field_is_zero(f, t->X);
    MT_CHECK(z == (mpz_sgn(a) == 0 ? ~(uint64_t)0 : 0), "%s is_zero value %u", t->spec, i);
    MT_CHECK(mns_field_equal(f, t->X, t->Y) == (mpz_cmp(a, b) == 0 ? ~(uint64_t)0 : 0),
             "%s equal value %u", t->spec, i);
    if (loose) { /* a - a + a, a loose form of a; a - a, a loose zero */
        mns_field_sub(f, t->W, t->X, t->X);
        MT_CHECK(mns_field_is_zero(f, t->W) == ~(uint64_t)0, "%s loose zero value %u", t->spec,
                 i);
        mns_field_add(f, t->W, t->X, t->Y);
        mns_field_sub(f, t->Z, t->Y, t->Y);
        mns_field_reduce(f, t->Z, t->Z);
        mns_field_add(f, t->Z, t->Z, t->X); /* a + 0, loose */
        MT_CHECK(mns_field_equal(f, t->Z, t->X) == ~(uint64_t)0, "%s loose equal value %u",
                 t->spec, i);
        MT_CHECK(mns_field_equal(f, t->W, t->X) == (mpz_sgn(b) == 0 ? ~(uint64_t)0 : 0),
                 "%s loose a + b = a value %u", t->spec, i);
    }
    memcpy(t->Z, t->X, 8 * t->L);
    mns_field_cmov(f, t->Z, t->Y, 0);
    MT_CHECK(memcmp(t->Z, t->X, 8 * t->L) == 0, "%s cmov 0", t->spec);
    mns_field_cmov(f, t->Z, t->Y, ~(uint64_t)0);
    MT_CHECK(memcmp(t->Z, t->Y, 8 * t->L) == 0, "%s cmov all-ones", t->spec);
    memcpy(t->W, t->X, 8 * t->L);
    mns_field_cswap(f, t->W, t->Z, 0);
    MT_CHECK(memcmp(t->W, t->X, 8 * t->L) == 0 && memcmp(t->Z, t->Y, 8 * t->L) == 0,
             "%s cswap 0", t->spec);
    mns_field_cswap(f, t->W, t->Z, ~(uint64_t)0);
    MT_CHECK(memcmp(t->W, t->Y, 8 * t->L) == 0 && memcmp(t->Z, t->X, 8 * t->L) == 0,
             "%s cswap all-ones", t->spec);
    mpz_clears(v, w, NULL);
}

static void check_inv(const tf *t, const mpz_t a, unsigned i)
{
    mpz_t v, w;
    mpz_inits(v, w, NULL);
    const int has = mpz_invert(w, a, t->p) != 0;
    for (int var = 0; var < 2; var++) {
        mns_field_set_mpz(t->f, t->X, a);
        mns_status st = var ? mns_field_inv_var(t->f, t->X, t->X) : mns_field_inv(t->f, t->X, t->X);
        got(t, v, t->X);
        if (has)
            MT_CHECK(st == MNS_OK && mpz_cmp(v, w) == 0, "%s inv%s value %u: st %d", t->spec,
                     var ? "_var" : "", i, st);
        else
            MT_CHECK(st == MNS_ERANGE && mpz_sgn(v) == 0, "%s inv%s of a non-unit %u: st %d",
                     t->spec, var ? "_var" : "", i, st);
    }
    mpz_clears(v, w, NULL);
}

static void check_sqrt(const tf *t, const mpz_t a, unsigned i)
{
    mpz_t v, w;
    mpz_inits(v, w, NULL);
    mns_field_set_mpz(t->f, t->X, a);
    const int leg = mns_field_legendre(t->f, t->X);
    if (t->prime)
        MT_CHECK(leg == mpz_legendre(a, t->p), "%s legendre value %u: %d, GMP %d", t->spec, i,
                 leg, mpz_legendre(a, t->p));
    mns_status st = mns_field_sqrt(t->f, t->Y, t->X);
    got(t, v, t->Y);
    mpz_mul(w, v, v);
    mpz_mod(w, w, t->p);
    if (t->prime && leg >= 0)
        MT_CHECK(st == MNS_OK && mpz_cmp(w, a) == 0, "%s sqrt value %u: st %d", t->spec, i, st);
    else if (t->prime)
        MT_CHECK(st == MNS_ERANGE && mpz_sgn(v) == 0, "%s sqrt of a non-residue %u", t->spec, i);
    else
        MT_CHECK((st == MNS_OK && mpz_cmp(w, a) == 0) || (st == MNS_ERANGE && mpz_sgn(v) == 0),
                 "%s sqrt mod a composite, value %u", t->spec, i);
    /* the square of a value always has a root */
    mpz_mul(w, a, a);
    mpz_mod(w, w, t->p);
    mns_field_set_mpz(t->f, t->X, w);
    if (t->prime) {
        st = mns_field_sqrt(t->f, t->X, t->X);
        got(t, v, t->X);
        mpz_mul(v, v, v);
        mpz_mod(v, v, t->p);
        MT_CHECK(st == MNS_OK && mpz_cmp(v, w) == 0, "%s sqrt of a square %u", t->spec, i);
    }
    mpz_clears(v, w, NULL);
}

static void check_powm_var(const tf *t, const mpz_t a, unsigned i)
{
    mpz_t e, v, w;
    mpz_inits(e, v, w, NULL);
    mns_field_set_mpz(t->f, t->X, a);
    for (int k = 0; k < 5; k++) {
        switch (k) {
        case 0: mpz_set_ui(e, 0); break;
        case 1: mpz_set_ui(e, 1); break;
        case 2: mpz_set_ui(e, 65537); break;
        case 3: mpz_sub_ui(e, t->p, 2); break;
        default: mpz_urandomb(e, mt_rand, 1 + mt_below(3 * mpz_sizeinbase(t->p, 2))); break;
        }
        mns_field_powm_var(t->f, t->Y, t->X, e);
        got(t, v, t->Y);
        mpz_powm(w, a, e, t->p);
        MT_CHECK(mpz_cmp(v, w) == 0, "%s powm_var value %u exponent %d", t->spec, i, k);
    }
    mpz_set_si(e, -1);
    mns_field_powm_var(t->f, t->Y, t->X, e);
    MT_CHECK(mns_field_is_zero(t->f, t->Y) == ~(uint64_t)0, "%s powm_var negative exponent",
             t->spec);
    mpz_clears(e, v, w, NULL);
}

static void run(const char *spec, const mpz_t p, int prime, mpz_srcptr factor, const char *what)
{
    mns_field *f;
    mns_status st = mns_field_new(&f, p, spec);
    /* a PMNS needs a prime: a composite is MNS_EINVAL there, a skip here */
    if (st == MNS_ENOTSUP || (factor && st == MNS_EINVAL)) {
        printf("  skip %s on %s: %s\n", spec, what, mns_last_error());
        return;
    }
    MT_CHECK(st == MNS_OK, "%s on %s: %d %s", spec, what, st, mns_last_error());
    if (st != MNS_OK)
        return;
    tf t = {f, spec, mns_field_limbs(f), mpz_size(p), (mpz_sizeinbase(p, 2) + 7) / 8, prime,
            (mpz_ptr)p, NULL, NULL, NULL, NULL};
    t.X = calloc(4 * t.L, 8);
    t.Y = t.X + t.L;
    t.Z = t.Y + t.L;
    t.W = t.Z + t.L;
    mpz_t a, b;
    mpz_inits(a, b, NULL);
    const unsigned rounds = 6 + mt_scaled(6);
    for (unsigned i = 0; i < rounds; i++) {
        value(a, p, i);
        value(b, p, i % 3 == 0 ? i : i + 5);
        check_bytes(&t, a, i);
        check_words(&t, a, i);
        check_select(&t, a, b, i);
        check_inv(&t, a, i);
        check_sqrt(&t, a, i);
        check_powm_var(&t, a, i);
    }
    if (factor) { /* multiples of a factor of the composite are not invertible */
        for (unsigned k = 1; k < 4; k++) {
            mpz_mul_ui(a, factor, k + mt_below(1000));
            mpz_mod(a, a, p);
            check_inv(&t, a, 100 + k);
        }
    } else if (prime) { /* a non-residue: no root, legendre -1 */
        do
            mpz_urandomm(a, mt_rand, p);
        while (mpz_legendre(a, p) != -1);
        check_sqrt(&t, a, 200);
    }
    printf("  %s on %s: %u rounds (%s)\n", spec, what, rounds, mns_field_describe(f));
    mpz_clears(a, b, NULL);
    free(t.X);
    mns_field_free(f);
}

/* a random prime of `bits` bits that is r mod 8 */
static void prime_class(mpz_t p, size_t bits, unsigned r)
{
    do {
        mpz_urandomb(p, mt_rand, bits);
        mpz_setbit(p, bits - 1);
        mpz_sub_ui(p, p, mpz_fdiv_ui(p, 8));
        mpz_add_ui(p, p, r);
    } while (!mpz_probab_prime_p(p, 30));
}

/* mns_field_new_nosqrt_ (RSA's channels): the same products as
 * mns_field_new's field, and a square root refused with its own message
 * on a p = 1 mod 8, which it made without the Tonelli-Shanks constant. */
static void check_nosqrt(const char *spec)
{
    mpz_t p, a, r;
    mpz_inits(p, a, r, NULL);
    prime_class(p, 384, 1);
    mns_field *f, *g;
    if (mns_field_new_nosqrt_(&f, p, spec) != MNS_OK) {
        printf("  nosqrt %s: skipped (%s)\n", spec, mns_last_error());
        mpz_clears(p, a, r, NULL);
        return;
    }
    MT_CHECK(mns_field_new(&g, p, spec) == MNS_OK, "nosqrt %s: mns_field_new: %s", spec,
             mns_last_error());
    const size_t L = mns_field_limbs(f);
    uint64_t *x = calloc(L, 8), *y = calloc(L, 8), *z = calloc(L, 8);
    mpz_urandomm(a, mt_rand, p);
    mns_field_set_mpz(f, x, a);
    mns_field_mul(f, y, x, x);
    mns_field_get_mpz(f, r, y);
    mpz_mul(a, a, a);
    mpz_mod(a, a, p);
    MT_CHECK(mpz_cmp(r, a) == 0, "nosqrt %s: product wrong", spec);
    MT_CHECK(mns_field_sqrt(f, z, y) == MNS_ENOTSUP && strstr(mns_last_error(), "square-root data"),
             "nosqrt %s: sqrt not refused with its reason: %s", spec, mns_last_error());
    MT_CHECK(mns_field_sqrt(g, z, y) == MNS_OK, "nosqrt %s: mns_field_new's field refused sqrt: %s",
             spec, mns_last_error());
    free(x);
    free(y);
    free(z);
    mns_field_free(f);
    mns_field_free(g);
    mpz_clears(p, a, r, NULL);
}

int main(void)
{
    mt_init("test_field_api");
    check_nosqrt("mont");
    check_nosqrt("mont-ifma");
    check_nosqrt("rns-ifma");
    mpz_t p, q, n;
    mpz_inits(p, q, n, NULL);
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        mpz_ui_pow_ui(p, 2, 255);
        mpz_sub_ui(p, p, 19);
        run(specs[s], p, 1, NULL, "2^255-19 (5 mod 8)");
        mpz_ui_pow_ui(p, 2, 521);
        mpz_sub_ui(p, p, 1);
        run(specs[s], p, 1, NULL, "2^521-1 (3 mod 4)");
        /* P-224: p - 1 = 2^96 q, the longest Tonelli-Shanks of the standard primes */
        mpz_ui_pow_ui(p, 2, 224);
        mpz_ui_pow_ui(q, 2, 96);
        mpz_sub(p, p, q);
        mpz_add_ui(p, p, 1);
        run(specs[s], p, 1, NULL, "P-224 (1 mod 2^96)");
        prime_class(p, 256, 3);
        run(specs[s], p, 1, NULL, "random 256-bit 3 mod 4");
        prime_class(p, 384, 1);
        run(specs[s], p, 1, NULL, "random 384-bit 1 mod 8");
        prime_class(p, 1024, 5);
        run(specs[s], p, 1, NULL, "random 1024-bit 5 mod 8");
        prime_class(p, 256, 7);
        prime_class(q, 256, 3);
        mpz_mul(n, p, q);
        run(specs[s], n, 0, p, "512-bit composite p q");
    }
    mpz_clears(p, q, n, NULL);
    return mt_finish();
}
