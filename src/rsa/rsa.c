/* mns_rsa: key validation and creation, and the private operation (channels
 * on threads, CRT, fault check). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "core/error.h"
#include "rsa/rsa_internal.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static mp_limb_t *limbs_of(const mpz_t a, size_t words)
{
    mp_limb_t *r = calloc(words ? words : 1, sizeof(mp_limb_t));
    if (r && mpz_size(a))
        memcpy(r, mpz_limbs_read(a), mpz_size(a) * sizeof(mp_limb_t));
    return r;
}

void mns_rsa_free(mns_rsa *key)
{
    if (!key)
        return;
    mns_rsa_pool_free(key->pool);
    pthread_mutex_destroy(&key->pool_lock);
    for (int i = 0; i < MNS_RSA_MAX_PRIMES; i++) {
        mns_rsa_channel *c = &key->ch[i];
        mns_field_free(c->f);
        /* every per-prime constant is secret */
        if (c->p)
            explicit_bzero(c->p, c->pn * sizeof(mp_limb_t));
        if (c->digit)
            explicit_bzero(c->digit, (size_t)c->ndigits * c->radix * c->limbs * sizeof(uint64_t));
        if (c->r64)
            explicit_bzero(c->r64, c->limbs * sizeof(uint64_t));
        if (c->umask)
            explicit_bzero(c->umask, c->limbs * sizeof(uint64_t));
        if (c->uinv)
            explicit_bzero(c->uinv, c->pn * sizeof(mp_limb_t));
        if (c->mprev)
            explicit_bzero(c->mprev, c->mn * sizeof(mp_limb_t));
        if (c->inv)
            explicit_bzero(c->inv, c->pn * sizeof(mp_limb_t));
        free(c->p);
        free(c->digit);
        free(c->r64);
        free(c->umask);
        free(c->uinv);
        free(c->mprev);
        free(c->inv);
        if (c->inited)
            mpz_clear(c->dexp);
    }
    mpz_clear(key->n);
    mpz_clear(key->e);
    free(key->describe);
    free(key);
}

/* The key's mathematical checks; MNS_EINVAL with a message, or MNS_OK. */
static mns_status validate(const mpz_t n, const mpz_t e, const mpz_t d, const mpz_t *primes, int k)
{
    if (k < 2 || k > MNS_RSA_MAX_PRIMES)
        return mns_error(MNS_EINVAL, "rsa: %d primes (2..%d supported)", k, MNS_RSA_MAX_PRIMES);
    if (mpz_cmp_ui(e, 3) < 0 || mpz_even_p(e))
        return mns_error(MNS_EINVAL, "rsa: public exponent must be odd and >= 3");
    if (mpz_sgn(d) <= 0 || mpz_cmp(d, n) >= 0)
        return mns_error(MNS_EINVAL, "rsa: private exponent must be in (0, n)");
    mpz_t prod, lcm, pm1, t;
    mpz_inits(prod, lcm, pm1, t, NULL);
    mns_status st = MNS_OK;
    mpz_set_ui(prod, 1);
    mpz_set_ui(lcm, 1);
    for (int i = 0; i < k && st == MNS_OK; i++) {
        if (mpz_cmp_ui(primes[i], 3) < 0 || mpz_even_p(primes[i]))
            st = mns_error(MNS_EINVAL, "rsa: prime %d is not an odd number >= 3", i);
        else if (mpz_probab_prime_p(primes[i], 1) == 0)
            st = mns_error(MNS_EINVAL, "rsa: prime %d is composite", i);
        for (int j = 0; j < i && st == MNS_OK; j++)
            if (mpz_cmp(primes[i], primes[j]) == 0)
                st = mns_error(MNS_EINVAL, "rsa: primes %d and %d are equal", j, i);
        if (st != MNS_OK)
            break;
        mpz_mul(prod, prod, primes[i]);
        mpz_sub_ui(pm1, primes[i], 1);
        mpz_lcm(lcm, lcm, pm1);
    }
    if (st == MNS_OK && mpz_cmp(prod, n) != 0)
        st = mns_error(MNS_EINVAL, "rsa: the product of the %d primes is not n", k);
    if (st == MNS_OK) {
        mpz_mul(t, e, d);
        mpz_mod(t, t, lcm);
        if (mpz_cmp_ui(t, 1) != 0)
            st = mns_error(MNS_EINVAL, "rsa: e d != 1 mod lcm(p_i - 1)");
    }
    mpz_clears(prod, lcm, pm1, t, NULL);
    return st;
}

static mns_status fill_random(void *buf, size_t bytes)
{
    unsigned char *b = buf;
    while (bytes) {
        ssize_t got = getrandom(b, bytes, 0);
        if (got < 0)
            return mns_error(MNS_ENOTSUP, "rsa: getrandom failed (the exit mask needs randomness)");
        b += got;
        bytes -= (size_t)got;
    }
    return MNS_OK;
}

/* The exit mask: u uniform in [1, p) (pn + 1 random words reduced mod p:
 * bias below 2^-64; 0 is replaced by 1), entered and inverted in constant
 * time (mpn_sec_invert), since u is as secret as p. */
static mns_status make_mask(mns_rsa_channel *c)
{
    const size_t pn = c->pn;
    size_t itch = (size_t)mpn_sec_div_r_itch((mp_size_t)(pn + 1), (mp_size_t)pn);
    size_t itch2 = (size_t)mpn_sec_invert_itch((mp_size_t)pn);
    if (itch2 > itch)
        itch = itch2;
    size_t words = (pn + 1) + pn + pn + itch + 3 * c->limbs;
    mp_limb_t *w = calloc(words, sizeof(mp_limb_t));
    c->umask = calloc(c->limbs, sizeof(uint64_t));
    c->uinv = calloc(pn, sizeof(mp_limb_t));
    if (!w || !c->umask || !c->uinv) {
        free(w);
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    }
    mp_limb_t *u = w, *a = u + pn + 1, *pc = a + pn, *tp = pc + pn;
    uint64_t *el = (uint64_t *)(tp + itch);
    mns_status st = fill_random(u, (pn + 1) * sizeof(mp_limb_t));
    if (st == MNS_OK) {
        mpn_sec_div_r(u, (mp_size_t)(pn + 1), c->p, (mp_size_t)pn, tp);
        /* u = 0 (probability ~2^-bits) becomes 1, without a branch on u */
        mp_limb_t any = 0;
        for (size_t i = 0; i < pn; i++)
            any |= u[i];
        u[0] |= (mp_limb_t)((any | (0 - any)) >> 63) ^ 1;
        mns_rsa_channel_enter(c, c->umask, u, el, el + c->limbs);
        memcpy(a, u, pn * sizeof(mp_limb_t));
        memcpy(pc, c->p, pn * sizeof(mp_limb_t));
        if (!mpn_sec_invert(c->uinv, a, pc, (mp_size_t)pn, (mp_bitcnt_t)(2 * c->bits), tp))
            st = mns_error(MNS_EINVAL, "rsa: internal: exit mask not invertible");
    }
    explicit_bzero(w, words * sizeof(mp_limb_t));
    free(w);
    return st;
}

/* Channel i: field, padded exponent, tables, Garner constants. Variable time
 * (runs once per key; see docs/rsa.md). */
static mns_status channel_new(mns_rsa *key, int i, const mpz_t d, const mpz_t *primes,
                              const char *spec)
{
    mns_rsa_channel *c = &key->ch[i];
    const mpz_t *p = &primes[i];
    mpz_init(c->dexp);
    c->inited = 1;
    c->bits = mpz_sizeinbase(*p, 2);
    c->pn = mpz_size(*p);
    c->p = limbs_of(*p, c->pn);
    if (!c->p)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");

    double t0 = now_ms();
    mns_status st = mns_field_new(&c->f, *p, spec);
    c->create_ms = now_ms() - t0;
    if (st != MNS_OK)
        return st; /* mns_field_new said why */
    c->limbs = mns_field_limbs(c->f);
    int delta = mns_field_delta(c->f);
    c->delta = delta;

    /* exponent: d mod (p-1), lifted by a multiple of p-1 to exactly
     * bits(p) + 2 bits; the interval [2^(b+1), 2^(b+2)) is wider than p - 1,
     * so one of t = 1..4 lands in it */
    mpz_t pm1, lo, hi;
    mpz_inits(pm1, lo, hi, NULL);
    mpz_sub_ui(pm1, *p, 1);
    size_t b = mpz_sizeinbase(*p, 2);
    mpz_setbit(lo, b + 1);
    mpz_setbit(hi, b + 2);
    mpz_mod(c->dexp, d, pm1);
    while (mpz_cmp(c->dexp, lo) < 0)
        mpz_add(c->dexp, c->dexp, pm1);
    int ok = mpz_cmp(c->dexp, hi) < 0;
    mpz_clears(pm1, lo, hi, NULL);
    if (!ok)
        return mns_error(MNS_EINVAL, "rsa: internal: padded exponent out of range");

    c->r64 = calloc(c->limbs, sizeof(uint64_t));
    if (!c->r64)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    st = mns_rsa_channel_tables(c);
    if (st != MNS_OK)
        return st;
    st = make_mask(c);
    if (st != MNS_OK)
        return st;

    if (i > 0) {
        mpz_t m, inv;
        mpz_inits(m, inv, NULL);
        mpz_set(m, primes[0]);
        for (int j = 1; j < i; j++)
            mpz_mul(m, m, primes[j]);
        c->mn = mpz_size(m);
        mpz_invert(inv, m, *p); /* distinct primes: always invertible */
        c->mprev = limbs_of(m, c->mn);
        c->inv = limbs_of(inv, c->pn);
        mpz_clears(m, inv, NULL);
        if (!c->mprev || !c->inv)
            return mns_error(MNS_ENOMEM, "rsa: out of memory");
    }
    return MNS_OK;
}

static mns_status make_describe(mns_rsa *key, double total_ms)
{
    size_t cap = 160 + (size_t)key->k * 512;
    key->describe = malloc(cap);
    if (!key->describe)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    int len = snprintf(key->describe, cap, "rsa bits=%zu k=%d create_ms=%.1f",
                       mpz_sizeinbase(key->n, 2), key->k, total_ms);
    for (int i = 0; i < key->k && len > 0 && (size_t)len < cap; i++) {
        const mns_rsa_channel *c = &key->ch[i];
        char entry[32];
        if (c->words)
            snprintf(entry, sizeof entry, "set_words");
        else
            snprintf(entry, sizeof entry, "digits:b=%u", c->dbits);
        len += snprintf(key->describe + len, cap - (size_t)len,
                        "\n ch%d bits=%zu create_ms=%.1f exp_bits=%zu entry=%s %s", i,
                        c->bits, c->create_ms, mpz_sizeinbase(c->dexp, 2), entry,
                        mns_field_describe(c->f));
    }
    return MNS_OK;
}

mns_status mns_rsa_new(mns_rsa **out, const mpz_t n, const mpz_t e, const mpz_t d,
                       const mpz_t *primes, int k, const char *spec)
{
    mns_error_clear();
    if (!out)
        return mns_error(MNS_EINVAL, "mns_rsa_new: NULL output pointer");
    *out = NULL;
    if (!n || !e || !d || !primes)
        return mns_error(MNS_EINVAL, "mns_rsa_new: NULL argument");
    mns_status st = validate(n, e, d, primes, k);
    if (st != MNS_OK)
        return st;
    /* A channel only exponentiates: plain "auto" asks the tuning table's
     * exponentiation rows (docs/auto.md); "auto:op=mul" still gets the
     * multiplication rows if a caller wants them. */
    if (!spec || strcmp(spec, "auto") == 0)
        spec = "auto:op=exp";

    double t0 = now_ms();
    mns_rsa *key = calloc(1, sizeof *key);
    if (!key)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    key->k = k;
    mpz_init_set(key->n, n);
    mpz_init_set(key->e, e);
    key->nn = mpz_size(n);
    key->nbytes = (mpz_sizeinbase(n, 2) + 7) / 8;
    pthread_mutex_init(&key->pool_lock, NULL);
    key->xn = 1;
    for (int i = 0; i < k && st == MNS_OK; i++) {
        st = channel_new(key, i, d, primes, spec);
        key->xn += key->ch[i].pn;
    }
    if (st == MNS_OK)
        st = make_describe(key, now_ms() - t0);
    if (st != MNS_OK) {
        mns_rsa_free(key);
        return st;
    }
    *out = key;
    return MNS_OK;
}

size_t mns_rsa_bytes(const mns_rsa *key) { return key ? key->nbytes : 0; }
int mns_rsa_primes(const mns_rsa *key) { return key ? key->k : 0; }
const char *mns_rsa_describe(const mns_rsa *key)
{
    return key && key->describe ? key->describe : "(null)";
}

/* --- the private operation --- */

typedef struct call {
    const mns_rsa *key;
    const mp_limb_t *in;
    mp_limb_t *s[MNS_RSA_MAX_PRIMES];
    uint64_t *scratch[MNS_RSA_MAX_PRIMES];
} call;

static void channel_job(void *arg, int i)
{
    call *c = arg;
    mns_rsa_channel_run(&c->key->ch[i], c->s[i], c->in, c->key->nn, c->scratch[i]);
}

/* The pool, created on first use; NULL if threads could not be had (the
 * call then spawns its own). */
static mns_rsa_pool *key_pool(const mns_rsa *ckey)
{
    mns_rsa *key = (mns_rsa *)ckey; /* the pool is the key's one piece of
                                       synchronised mutable state */
    pthread_mutex_lock(&key->pool_lock);
    if (!key->pool && !key->pool_failed) {
        if (mns_rsa_pool_new(&key->pool, key->k - 1) != MNS_OK)
            key->pool_failed = 1;
    }
    mns_rsa_pool *p = key->pool;
    pthread_mutex_unlock(&key->pool_lock);
    return p;
}

mns_status mns_rsa_private_ex_(const mns_rsa *key, mpz_t out, const mpz_t in, int threads,
                               mns_rsa_thread_mode mode, int fault_channel, unsigned fault_bit)
{
    mns_error_clear();
    if (!key || !out || !in)
        return mns_error(MNS_EINVAL, "mns_rsa_private: NULL argument");
    if (mpz_sgn(in) < 0 || mpz_cmp(in, key->n) >= 0)
        return mns_error(MNS_EINVAL, "mns_rsa_private: input not in [0, n)");
    if (threads < 1)
        return mns_error(MNS_EINVAL, "mns_rsa_private: threads must be >= 1 (got %d)", threads);
    if (threads > key->k)
        threads = key->k;

    /* one block of scratch for the whole call: input, channel
     * results and scratch, CRT scratch, result */
    const int k = key->k;
    size_t words = key->nn + key->xn + mns_rsa_crt_scratch(key);
    for (int i = 0; i < k; i++)
        words += key->ch[i].pn + mns_rsa_channel_scratch(&key->ch[i], key->nn);
    mp_limb_t *block = calloc(words, sizeof(mp_limb_t));
    if (!block)
        return mns_error(MNS_ENOMEM, "mns_rsa_private: out of memory");
    call c;
    c.key = key;
    mp_limb_t *w = block;
    mp_limb_t *inw = w;
    w += key->nn;
    if (mpz_size(in))
        memcpy(inw, mpz_limbs_read(in), mpz_size(in) * sizeof(mp_limb_t));
    c.in = inw;
    for (int i = 0; i < k; i++) {
        c.s[i] = w;
        w += key->ch[i].pn;
    }
    for (int i = 0; i < k; i++) {
        c.scratch[i] = (uint64_t *)w;
        w += mns_rsa_channel_scratch(&key->ch[i], key->nn);
    }
    mp_limb_t *crt_scratch = w;
    w += mns_rsa_crt_scratch(key);
    mp_limb_t *x = w;

    mns_status st = MNS_OK;
    {
        mns_status ran = MNS_EINVAL;
        if (threads > 1 && mode == MNS_RSA_THREADS_POOL) {
            mns_rsa_pool *pool = key_pool(key);
            if (pool)
                ran = mns_rsa_pool_run(pool, threads, channel_job, &c, k);
        }
        if (ran != MNS_OK) {
            if (threads > 1)
                mns_rsa_spawn_run(threads, channel_job, &c, k);
            else
                for (int i = 0; i < k; i++)
                    channel_job(&c, i);
        }
        if (fault_channel >= 0 && fault_channel < k) {
            size_t bit = fault_bit % (64 * key->ch[fault_channel].pn);
            c.s[fault_channel][bit / 64] ^= (mp_limb_t)1 << (bit % 64);
        }
        mns_rsa_crt(key, x, c.s, crt_scratch);
        /* the result is the signature: public from here (a faulty one is
         * never returned; only the check's time depends on it) */
        MNS_RSA_DECLASSIFY(x, key->xn * sizeof(mp_limb_t));

        /* the fault check: x^e == in (mod n); all public from here */
        mpz_t xz, chk;
        mpz_init(chk);
        mpz_roinit_n(xz, x, (mp_size_t)key->xn);
        mpz_powm(chk, xz, key->e, key->n);
        if (mpz_cmp(chk, in) != 0)
            st = mns_error(MNS_ERANGE, "mns_rsa_private: fault check failed (result^e != input); "
                                       "no output");
        else
            mpz_set(out, xz);
        mpz_clear(chk);
    }
    explicit_bzero(block, words * sizeof(mp_limb_t));
    free(block);
    return st;
}

mns_status mns_rsa_private(const mns_rsa *key, mpz_t out, const mpz_t in, int threads)
{
    return mns_rsa_private_ex_(key, out, in, threads, MNS_RSA_THREADS_POOL, -1, 0);
}
