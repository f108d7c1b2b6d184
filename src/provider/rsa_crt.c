/* The quick RSA-CRT of a key (rsa_crt.h says what and why). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

#include "mns.h"
#include "mns_rsa.h"
#include "provider/rsa_crt.h"

typedef struct crt_channel {
    mns_field *f;
    size_t pn, mn;    /* limbs of p_i and of m = p_0 ... p_(i-1) */
    mp_limb_t *p, *m; /* p_i; m (channel i >= 1) */
    mp_limb_t *c;     /* m^-1 mod p_i (channel i >= 1) */
    mpz_t d;          /* d mod (p_i - 1), padded to bits(p_i) + 2 bits */
} crt_channel;

struct mns_prov_crt {
    int k;
    size_t nn, itch, el_words;
    mp_limb_t *n;
    mpz_t nz, e;
    crt_channel ch[MNS_RSA_MAX_PRIMES];
    pthread_mutex_t lock;
    mp_limb_t *a, *ai; /* r^e, r^-1 mod n */
    char describe[320];
};

static mp_limb_t *limbs_of(const mpz_t z, size_t len)
{
    mp_limb_t *r = calloc(len, sizeof *r);
    if (r && mpz_size(z) <= len)
        mpn_copyi(r, mpz_limbs_read(z), (mp_size_t)mpz_size(z));
    return r;
}

static void wipe_free(void *p, size_t bytes)
{
    if (p)
        OPENSSL_cleanse(p, bytes);
    free(p);
}

void mns_prov_crt_free(mns_prov_crt *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->k; i++) {
        crt_channel *h = &c->ch[i];
        mns_field_free(h->f);
        wipe_free(h->p, h->pn * sizeof(mp_limb_t));
        wipe_free(h->m, h->mn * sizeof(mp_limb_t));
        wipe_free(h->c, h->pn * sizeof(mp_limb_t));
        mpz_clear(h->d);
    }
    wipe_free(c->a, c->nn * sizeof(mp_limb_t));
    wipe_free(c->ai, c->nn * sizeof(mp_limb_t));
    free(c->n);
    mpz_clears(c->nz, c->e, NULL);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }

/* d mod (p - 1) plus the multiple of p - 1 that makes it bits(p) + 2 bits
 * long: every channel's exponent has a length fixed by p's size. */
static void padded_exponent(mpz_t dp, const mpz_t d, const mpz_t p)
{
    mpz_t pm1, t;
    mpz_inits(pm1, t, NULL);
    mpz_sub_ui(pm1, p, 1);
    mpz_mod(dp, d, pm1);
    mpz_set_ui(t, 0);
    mpz_setbit(t, mpz_sizeinbase(p, 2) + 1);
    mpz_sub(t, t, dp);
    mpz_cdiv_q(t, t, pm1);
    mpz_addmul(dp, t, pm1);
    mpz_clears(pm1, t, NULL);
}

static int make_channel(mns_prov_crt *c, int i, const mpz_t d, const mpz_t *primes, mpz_t m)
{
    crt_channel *h = &c->ch[i];
    mpz_init(h->d);
    if (mns_field_new(&h->f, primes[i], "mont") != MNS_OK)
        return 0;
    h->pn = mpz_size(primes[i]);
    h->p = limbs_of(primes[i], h->pn);
    padded_exponent(h->d, d, primes[i]);
    c->el_words = max_sz(c->el_words, mns_field_limbs(h->f));
    c->itch = max_sz(c->itch, (size_t)mpn_sec_div_r_itch((mp_size_t)c->nn, (mp_size_t)h->pn));
    c->itch = max_sz(c->itch, (size_t)mpn_sec_div_r_itch(2 * (mp_size_t)h->pn, (mp_size_t)h->pn));
    c->itch = max_sz(c->itch, (size_t)mpn_sec_mul_itch((mp_size_t)h->pn, (mp_size_t)h->pn));
    if (i > 0) {
        mpz_t inv;
        mpz_init(inv);
        h->mn = mpz_size(m);
        h->m = limbs_of(m, h->mn);
        int ok = mpz_invert(inv, m, primes[i]) != 0;
        h->c = limbs_of(inv, h->pn);
        mpz_clear(inv);
        size_t big = max_sz(h->mn, h->pn), small = h->mn + h->pn - big;
        c->itch = max_sz(c->itch, (size_t)mpn_sec_mul_itch((mp_size_t)big, (mp_size_t)small));
        if (!ok || !h->m || !h->c)
            return 0;
    }
    mpz_mul(m, m, primes[i]);
    return h->p != NULL;
}

static int make_blinding(mns_prov_crt *c, const mns_prov *prov)
{
    mpz_t r, t;
    mpz_inits(r, t, NULL);
    int ok = mns_prov_random_below(prov, r, c->nz) && mpz_invert(t, r, c->nz);
    if (ok) {
        c->ai = limbs_of(t, c->nn);
        mpz_powm_sec(t, r, c->e, c->nz);
        c->a = limbs_of(t, c->nn);
        ok = c->a && c->ai;
    }
    mpz_clears(r, t, NULL);
    return ok;
}

int mns_prov_crt_new(mns_prov_crt **out, const mns_prov *prov, const mpz_t n, const mpz_t e,
                     const mpz_t d, const mpz_t *primes, int k)
{
    *out = NULL;
    mns_prov_crt *c = calloc(1, sizeof *c);
    if (!c)
        return 0;
    pthread_mutex_init(&c->lock, NULL);
    mpz_init_set(c->nz, n);
    mpz_init_set(c->e, e);
    c->nn = mpz_size(n);
    c->n = limbs_of(n, c->nn);
    c->itch = max_sz((size_t)mpn_sec_mul_itch((mp_size_t)c->nn, (mp_size_t)c->nn),
                     (size_t)mpn_sec_div_r_itch(2 * (mp_size_t)c->nn, (mp_size_t)c->nn));
    mpz_t m;
    mpz_init_set_ui(m, 1);
    int ok = c->n != NULL;
    for (int i = 0; i < k && ok; i++) {
        c->k = i + 1;
        ok = make_channel(c, i, d, primes, m);
    }
    mpz_clear(m);
    ok = ok && make_blinding(c, prov);
    if (!ok) {
        MNS_PROV_ERR(prov, MNS_R_BAD_KEY, "RSA key: %s", mns_last_error()[0] ? mns_last_error()
                                                                             : "CRT set-up failed");
        mns_prov_crt_free(c);
        return 0;
    }
    snprintf(c->describe, sizeof c->describe, "quick-crt k=%d %s", k,
             mns_field_describe(c->ch[0].f));
    *out = c;
    return 1;
}

const char *mns_prov_crt_describe(const mns_prov_crt *c) { return c->describe; }

/* r <- a b mod m on fixed sizes (an + bn >= mn); tp has an + bn limbs. */
static void mulmod(mp_limb_t *r, const mp_limb_t *a, size_t an, const mp_limb_t *b, size_t bn,
                   const mp_limb_t *m, size_t mn, mp_limb_t *tp, mp_limb_t *scratch)
{
    if (an < bn) {
        const mp_limb_t *s = a;
        a = b;
        b = s;
        size_t z = an;
        an = bn;
        bn = z;
    }
    mpn_sec_mul(tp, a, (mp_size_t)an, b, (mp_size_t)bn, scratch);
    mpn_sec_div_r(tp, (mp_size_t)(an + bn), m, (mp_size_t)mn, scratch);
    mpn_copyi(r, tp, (mp_size_t)mn);
}

/* The blinding pair of this call; the key's pair is squared for the next. */
static void take_blinding(mns_prov_crt *c, mp_limb_t *a, mp_limb_t *ai, mp_limb_t *tp,
                          mp_limb_t *scratch)
{
    const size_t nn = c->nn;
    pthread_mutex_lock(&c->lock);
    mpn_copyi(a, c->a, (mp_size_t)nn);
    mpn_copyi(ai, c->ai, (mp_size_t)nn);
    mulmod(c->a, a, nn, a, nn, c->n, nn, tp, scratch);
    mulmod(c->ai, ai, nn, ai, nn, c->n, nn, tp, scratch);
    pthread_mutex_unlock(&c->lock);
}

/* s_i = (x mod p_i)^d_i mod p_i, pn limbs; x is blinded (random). */
static int channel_power(const crt_channel *h, mp_limb_t *s, const mp_limb_t *x, size_t nn,
                         mp_limb_t *tp, uint64_t *el, mp_limb_t *scratch, mpz_t z)
{
    mpn_copyi(tp, x, (mp_size_t)nn);
    mpn_sec_div_r(tp, (mp_size_t)nn, h->p, (mp_size_t)h->pn, scratch);
    mpz_import(z, h->pn, -1, sizeof(mp_limb_t), 0, 0, tp);
    if (mns_field_set_mpz(h->f, el, z) != MNS_OK)
        return 0;
    mns_field_powm(h->f, el, el, h->d);
    mns_field_get_mpz(h->f, z, el);
    memset(s, 0, h->pn * sizeof(mp_limb_t));
    mpn_copyi(s, mpz_limbs_read(z), (mp_size_t)mpz_size(z));
    return 1;
}

/* acc <- acc + m_i ((s_i - acc) m_i^-1 mod p_i): Garner's step, nn limbs. */
static void garner_step(const crt_channel *h, mp_limb_t *acc, const mp_limb_t *s, size_t nn,
                        mp_limb_t *tp, mp_limb_t *u, mp_limb_t *scratch)
{
    mpn_copyi(tp, acc, (mp_size_t)nn);
    mpn_sec_div_r(tp, (mp_size_t)nn, h->p, (mp_size_t)h->pn, scratch);
    mp_limb_t borrow = mpn_sub_n(u, s, tp, (mp_size_t)h->pn);
    mpn_cnd_add_n(borrow, u, u, h->p, (mp_size_t)h->pn);
    mulmod(u, u, h->pn, h->c, h->pn, h->p, h->pn, tp, scratch);
    size_t big = h->mn > h->pn ? h->mn : h->pn;
    if (h->mn >= h->pn)
        mpn_sec_mul(tp, h->m, (mp_size_t)h->mn, u, (mp_size_t)h->pn, scratch);
    else
        mpn_sec_mul(tp, u, (mp_size_t)h->pn, h->m, (mp_size_t)h->mn, scratch);
    size_t plen = big + (h->mn + h->pn - big);
    if (plen < nn)
        memset(tp + plen, 0, (nn - plen) * sizeof(mp_limb_t));
    mpn_add_n(acc, acc, tp, (mp_size_t)nn); /* < n: the product has at most nn limbs' value */
}

int mns_prov_crt_private(mns_prov_crt *c, const mns_prov *prov, mpz_t out, const mpz_t in)
{
    const size_t nn = c->nn, tpn = 2 * nn + 2;
    const size_t total = 5 * nn + tpn + c->itch + c->el_words * sizeof(uint64_t) / sizeof(mp_limb_t) + nn;
    mp_limb_t *buf = calloc(total, sizeof(mp_limb_t));
    if (!buf) {
        MNS_PROV_ERR(prov, MNS_R_INTERNAL, "RSA: out of memory");
        return 0;
    }
    mp_limb_t *a = buf, *ai = a + nn, *x = ai + nn, *acc = x + nn, *s = acc + nn, *u = s + nn;
    mp_limb_t *tp = u + nn, *scratch = tp + tpn;
    uint64_t *el = (uint64_t *)(scratch + c->itch);
    mpz_t z;
    mpz_init(z);
    take_blinding(c, a, ai, tp, scratch);
    mpn_copyi(x, mpz_limbs_read(in), (mp_size_t)mpz_size(in));
    mulmod(x, x, nn, a, nn, c->n, nn, tp, scratch);
    int ok = 1;
    for (int i = 0; i < c->k && ok; i++) {
        ok = channel_power(&c->ch[i], i ? s : acc, x, nn, tp, el, scratch, z);
        if (i == 0)
            memset(acc + c->ch[0].pn, 0, (nn - c->ch[0].pn) * sizeof(mp_limb_t));
        else if (ok)
            garner_step(&c->ch[i], acc, s, nn, tp, u, scratch);
    }
    mulmod(acc, acc, nn, ai, nn, c->n, nn, tp, scratch);
    mpz_import(z, nn, -1, sizeof(mp_limb_t), 0, 0, acc);
    OPENSSL_cleanse(buf, total * sizeof(mp_limb_t));
    free(buf);
    if (ok) {
        mpz_t chk;
        mpz_init(chk);
        mpz_powm(chk, z, c->e, c->nz); /* public values: variable time */
        ok = mpz_cmp(chk, in) == 0;
        mpz_clear(chk);
        if (!ok)
            MNS_PROV_ERR(prov, MNS_R_FAULT, "RSA: the result does not verify with e");
    } else {
        MNS_PROV_ERR(prov, MNS_R_INTERNAL, "RSA: %s", mns_last_error());
    }
    if (ok)
        mpz_set(out, z);
    mpz_clear(z);
    return ok;
}
