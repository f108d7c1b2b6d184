/* mns_rsa: key validation and creation, and the private operation (channels
 * on threads, CRT, fault check). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/clock.h"
#include "core/cpu.h"
#include "core/deadline.h"
#include "core/error.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"

static mp_limb_t *limbs_of(const mpz_t a, size_t words)
{
    mp_limb_t *r = calloc(words ? words : 1, sizeof(mp_limb_t));
    if (r && mpz_size(a))
        memcpy(r, mpz_limbs_read(a), mpz_size(a) * sizeof(mp_limb_t));
    return r;
}

static void plan_pairs(mns_rsa *key);
static void probe_pairs(mns_rsa *key);
static void check_field(mns_rsa *key);

/* Frees what mns_rsa_channel_make made and zeroes the channel (every
 * per-prime constant is secret: wiped first). */
void mns_rsa_channel_clear(mns_rsa_channel *c)
{
    mns_field_free(c->f);
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
    if (c->inited) {
        if (mpz_size(c->dexp))
            explicit_bzero(mpz_limbs_modify(c->dexp, (mp_size_t)mpz_size(c->dexp)),
                           mpz_size(c->dexp) * sizeof(mp_limb_t));
        mpz_clear(c->dexp);
    }
    memset(c, 0, sizeof *c);
}

void mns_rsa_free(mns_rsa *key)
{
    if (!key)
        return;
    mns_rsa_pool_free(key->pool);
    if (key->slot_ready)
        mns_rsa_slot_clear(key, &key->slot);
    pthread_mutex_destroy(&key->slot_lock);
    for (int i = 0; i < MNS_RSA_MAX_PRIMES; i++)
        mns_rsa_channel_clear(&key->ch[i]);
    mns_field_free(key->fn);
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

/* A channel for prime number pi of the key (primes[pi] = p): field, padded
 * exponent, tables. The Garner constants depend on the channels' final
 * order and are made later (garner_constants). Variable time (runs once per
 * key; see docs/rsa.md). */
mns_status mns_rsa_channel_make(mns_rsa_channel *c, const mpz_t d, const mpz_t *primes, int pi,
                                const char *spec)
{
    const mpz_t *p = &primes[pi];
    c->pi = pi;
    mpz_init(c->dexp);
    c->inited = 1;
    c->bits = mpz_sizeinbase(*p, 2);
    c->pn = mpz_size(*p);
    c->p = limbs_of(*p, c->pn);
    if (!c->p)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");

    mns_status st = mns_field_new(&c->f, *p, spec);
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
    if (!c->getw && (st = make_mask(c)) != MNS_OK) /* no mask behind get_words */
        return st;
    return MNS_OK;
}

/* One channel of mns_rsa_channels_make per job; the message of a failure
 * is copied out of the worker's thread-local error. */
typedef struct channels_job {
    mns_rsa_channel *ch;
    mns_status *st;
    const int *pi;
    const char *const *spec;
    mpz_srcptr d;
    const mpz_t *primes;
    double budget_ms;
    char err[MNS_RSA_MAX_PRIMES][256];
} channels_job;

static void channel_make_job(void *arg, int i)
{
    channels_job *j = arg;
    double t0 = mns_now_ms();
    mns_deadline_set_ms(j->budget_ms); /* this thread's generation only */
    j->st[i] = mns_rsa_channel_make(&j->ch[i], j->d, j->primes, j->pi[i], j->spec[i]);
    mns_deadline_set_ms(0);
    j->ch[i].create_ms = mns_now_ms() - t0;
    if (j->st[i] != MNS_OK)
        snprintf(j->err[i], sizeof j->err[i], "%s", mns_last_error());
}

mns_status mns_rsa_channels_make(mns_rsa_channel *ch, mns_status *st, int m, const int *pi,
                                 const char *const *spec, const mpz_t d, const mpz_t *primes,
                                 double budget_ms)
{
    if (m < 1)
        return MNS_OK;
    channels_job j = {ch, st, pi, spec, d, primes, budget_ms, {{0}}};
    const int cpus = mns_cpu_count();
    const int threads = m < cpus ? m : cpus;
    /* spawned threads (the key's pool does not exist yet); where none can
     * be started the caller makes every channel itself */
    if (threads > 1)
        mns_rsa_spawn_run(threads, channel_make_job, &j, m);
    else
        for (int i = 0; i < m; i++)
            channel_make_job(&j, i);
    for (int i = 0; i < m; i++)
        if (st[i] != MNS_OK)
            return mns_error(st[i], "%s", j.err[i]);
    return MNS_OK;
}

/* Garner's constants of every channel i >= 1, in the channels' final order:
 * mprev = p_0 ... p_{i-1}, inv = mprev^-1 mod p_i. Variable time (key
 * creation). */
static mns_status garner_constants(mns_rsa *key, const mpz_t *primes)
{
    mpz_t m, inv;
    mpz_inits(m, inv, NULL);
    mns_status st = MNS_OK;
    mpz_set(m, primes[key->ch[0].pi]);
    for (int i = 1; i < key->k && st == MNS_OK; i++) {
        mns_rsa_channel *c = &key->ch[i];
        const mpz_t *p = &primes[c->pi];
        c->mn = mpz_size(m);
        mpz_invert(inv, m, *p); /* distinct primes: always invertible */
        c->mprev = limbs_of(m, c->mn);
        c->inv = limbs_of(inv, c->pn);
        if (!c->mprev || !c->inv)
            st = mns_error(MNS_ENOMEM, "rsa: out of memory");
        mpz_mul(m, m, *p);
    }
    mpz_clears(m, inv, NULL);
    return st;
}

static mns_status make_describe(mns_rsa *key, double total_ms)
{
    size_t cap = 160 + (size_t)key->k * 640;
    key->describe = malloc(cap);
    if (!key->describe)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    int len = snprintf(key->describe, cap, "rsa bits=%zu k=%d create_ms=%.1f check=%s pairs=%d",
                       mpz_sizeinbase(key->n, 2), key->k, total_ms,
                       key->ck_channels ? "channels" : key->fn ? "rns-ifma" : "gmp",
                       key->npairs);
    /* per pair: x2 kernels or two calls, the probe's pair/solo time, used? */
    for (int j = 0; 2 * j + 1 < key->k && len > 0 && (size_t)len < cap; j++)
        if (key->x2[j])
            len += snprintf(key->describe + len, cap - (size_t)len, " (%d,%d):%s:%.2f:%s", 2 * j,
                            2 * j + 1, key->x2[j] == 2 ? "x2" : "calls", key->probe_ratio[j],
                            key->pair_on[j] ? "on" : "off");
    for (int i = 0; i < key->k && len > 0 && (size_t)len < cap; i++) {
        const mns_rsa_channel *c = &key->ch[i];
        char entry[32];
        if (c->words)
            snprintf(entry, sizeof entry, "set_words");
        else
            snprintf(entry, sizeof entry, "digits:b=%u", c->dbits);
        len += snprintf(key->describe + len, cap - (size_t)len,
                        "\n ch%d bits=%zu create_ms=%.1f exp_bits=%zu exit=%s entry=%s %s%s", i,
                        c->bits, c->create_ms, mpz_sizeinbase(c->dexp, 2),
                        c->getw ? "get_words" : "mask", entry, mns_field_describe(c->f),
                        key->chosen ? " auto=choice" : "");
    }
    /* what choose.c measured: k ticks would need the TSC rate; us per job */
    for (int j = 0; key->chosen && 2 * j < key->k && len > 0 && (size_t)len < cap; j++) {
        const mns_rsa_choice *q = &key->choice[j];
        if (!q->done)
            continue;
        char who[32];
        if (2 * j + 1 < key->k)
            snprintf(who, sizeof who, "%d,%d", 2 * j, 2 * j + 1);
        else
            snprintf(who, sizeof who, "%d", 2 * j);
        len += snprintf(key->describe + len, cap - (size_t)len,
                        "\n choice(%s) %s us: solo table %.0f/%.0f %s %.0f/%.0f pair table "
                        "%.0f %s %.0f",
                        who, q->pick, q->solo_t[0] * 1e-3, q->solo_t[1] * 1e-3,
                        q->alt[0] ? q->alt : "-", q->solo_r[0] * 1e-3, q->solo_r[1] * 1e-3,
                        q->pair_t * 1e-3, q->alt[0] ? q->alt : "-", q->pair_r * 1e-3);
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
     * multiplication rows if a caller wants them. And it never adds before
     * a product (entry and exit are set_words/get_words; the Horner entry of
     * a backend without them checks the field's delta), so it asks delta=0:
     * a PMNS set then has two more bits of phi (before pmns-mp-ifma's
     * lambda-carried sets, it gave n = 8, s = 3 to 7 of the 25 1024-bit
     * primes in 200 that lacked it at delta = 1; now every one has it). */
    const int auto_spec = !spec || strcmp(spec, "auto") == 0;
    if (auto_spec)
        spec = "auto:op=exp,delta=0";

    double t0 = mns_now_ms();
    mns_rsa *key = calloc(1, sizeof *key);
    if (!key)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    key->k = k;
    mpz_init_set(key->n, n);
    mpz_init_set(key->e, e);
    key->nn = mpz_size(n);
    key->nbytes = (mpz_sizeinbase(n, 2) + 7) / 8;
    pthread_mutex_init(&key->slot_lock, NULL);
    key->xn = 1;
    /* the channels side by side (mns_rsa_channels_make), then pairs of one
     * shape for an explicit spec (channel i - 1 and i, i odd: what each
     * remakes depends on both being made) */
    {
        int pi[MNS_RSA_MAX_PRIMES];
        const char *specs[MNS_RSA_MAX_PRIMES];
        mns_status cst[MNS_RSA_MAX_PRIMES];
        for (int i = 0; i < k; i++) {
            pi[i] = i;
            specs[i] = spec;
        }
        st = mns_rsa_channels_make(key->ch, cst, k, pi, specs, d, primes, 0);
        for (int i = 1; i < k && st == MNS_OK && !auto_spec; i += 2)
            mns_rsa_same_shape(key, i, d, primes);
        for (int i = 0; i < k && st == MNS_OK; i++)
            key->xn += key->ch[i].pn;
    }
    /* "auto": backends, order and pairs by timing every option (choose.c) */
    if (st == MNS_OK && auto_spec)
        mns_rsa_choose(key, d, primes);
    if (st == MNS_OK)
        st = garner_constants(key, primes);
    if (st == MNS_OK)
        plan_pairs(key);
    if (st == MNS_OK)
        check_field(key);
    if (st == MNS_OK && (st = mns_rsa_slot_init(key, &key->slot)) == MNS_OK) {
        key->slot_ready = 1;
        if (!key->chosen)
            probe_pairs(key);
        key->npairs = 0;
        for (int j = 0; 2 * j + 1 < k; j++) {
            key->pair_on[j] = key->pair_on[j] && key->x2[j];
            key->npairs += key->pair_on[j];
        }
        key->adapt = 1;
    }
    /* the pool (issue 8: created with the key, so a threaded call neither
     * allocates nor starts threads); a failure is not fatal: threaded calls
     * then spawn threads of their own */
    if (st == MNS_OK && k > 1 && mns_rsa_pool_new(&key->pool, k - 1) != MNS_OK) {
        key->pool = NULL;
        mns_error_clear();
    }
    if (st == MNS_OK)
        st = make_describe(key, mns_now_ms() - t0);
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

/* --- the fault check --- */

/* x^e mod n for public x, e and n: GMP's mpz_powm costs 41k / 90k / 158k
 * ticks at 2048 / 3072 / 4096 bits here (5% of an RSA-2048 signature, 11%
 * of a 4-prime RSA-4096 one). In an rns-ifma field of n the same check is
 * the constant-time entry, 17 products for e = 65537 and the exit: 18k /
 * 45k / 71k (one run, loaded machine). Where that field cannot be made (no
 * IFMA, MNS_CPU=generic), mpz_powm. The field is a separate context over n,
 * with the public exponent: the check stays independent of the channels.
 * e and x are public, so the power is a plain square-and-multiply.
 * From three primes on, and from 4096-bit n, the check runs in the
 * channels' own fields instead (mns_rsa_channel_check: x mod p_i entered,
 * raised to e, left, compared with this call's in mod p_i): k times the
 * entry and exit, but products of p_i's size instead of n's (4 x 1024:
 * ~10x cheaper each). A/B in one run (load 3-4, M ticks, field of n ->
 * channels): 4 x 1024 1.621 -> 1.594 and 1.682 -> 1.658, 3 x 1024 1.252 ->
 * 1.243, 2 x 2048 3.443 -> 3.412; 8 x 512 0.721 -> 0.722; 2 x 1024 0.823 ->
 * 0.829 (slower: kept on the field of n). With threads, the channels'
 * checks share the pool. Channels without set_words or get_words (mpart)
 * keep the field of n. */
static void check_field(mns_rsa *key)
{
    key->fn = NULL;
    key->ck_words = 0;
    key->ck_channels_ok = 1;
    for (int i = 0; i < key->k; i++)
        key->ck_channels_ok = key->ck_channels_ok && key->ch[i].words && key->ch[i].getw;
    key->ck_channels = key->ck_channels_ok && (key->k >= 3 || mpz_sizeinbase(key->n, 2) >= 4096);
    if (key->ck_channels)
        return;
    if (mns_field_new(&key->fn, key->n, "rns-ifma") != MNS_OK) {
        key->fn = NULL;
        mns_error_clear();
        return;
    }
    const size_t L = mns_field_limbs(key->fn);
    key->ck_words = 2 * L + key->nn;
}

/* The per-channel check of channel i as a pool job: its verdict in
 * diff[i] (each job writes only its own word). */
typedef struct check_call {
    const mns_rsa *key;
    mns_rsa_slot *sl;
    mp_limb_t diff[MNS_RSA_MAX_PRIMES];
} check_call;

static void check_job(void *arg, int i)
{
    check_call *cc = arg;
    const mns_rsa *key = cc->key;
    cc->diff[i] = mns_rsa_channel_check(&key->ch[i], cc->sl->x, key->e, key->nn, cc->sl->chs[i]);
}

/* 1 if x (xn words) is below n and x^e = in (mod n). The verdict is public;
 * in the channels' fields the work is constant time (their moduli are
 * secret). With threads > 1 the channels' checks share the key's pool. */
static int check_ok(const mns_rsa *key, mns_rsa_slot *sl, int threads)
{
    const size_t nn = key->nn;
    for (size_t i = nn; i < key->xn; i++)
        if (sl->x[i])
            return 0;
    if (mpn_cmp(sl->x, mpz_limbs_read(key->n), (mp_size_t)nn) >= 0)
        return 0;
    if (key->ck_channels || (threads > 1 && key->ck_channels_ok)) {
        /* x^e = in mod every p_i, i.e. mod n (distinct primes); on more
         * than one thread also for the 2-prime keys below 4096 bits, whose
         * serial check in the field of n kept RSA-3072 at 1.62-1.81x one
         * thread on 2 threads (quiet machine, session 5) */
        check_call cc;
        cc.key = key;
        cc.sl = sl;
        if (threads < 2 || !key->pool ||
            mns_rsa_pool_run(key->pool, threads, check_job, &cc, key->k) != MNS_OK)
            for (int i = 0; i < key->k; i++)
                check_job(&cc, i);
        mp_limb_t diff = 0;
        for (int i = 0; i < key->k; i++)
            diff |= cc.diff[i];
        MNS_RSA_DECLASSIFY(&diff, sizeof diff); /* pass or fail: public */
        return diff == 0;
    }
    if (key->fn) {
        const size_t L = mns_field_limbs(key->fn);
        uint64_t *X = sl->ck, *Y = X + L, *w = Y + L;
        (void)mns_field_set_words(key->fn, X, sl->x, nn); /* x < n: cannot fail */
        /* e, x public: square-and-multiply (the fixed-window powm took
         * 15.6k ticks at 2048 bits, this ~10k) */
        mns_rsa_pow_public(key->fn, Y, X, key->e);
        (void)mns_field_get_words(key->fn, w, Y, nn);
        return memcmp(w, sl->in, nn * sizeof(uint64_t)) == 0;
    }
    mpz_t xz, inz;
    mpz_roinit_n(xz, sl->x, (mp_size_t)nn);
    mpz_roinit_n(inz, sl->in, (mp_size_t)nn);
    mpz_powm(sl->chk, xz, key->e, key->n);
    return mpz_cmp(sl->chk, inz) == 0;
}

/* --- pairs, the call slot --- */

/* Channels 2j and 2j + 1 form pair j when their fields can share the x2
 * exponentiation (same backend, same element size). The exponents of a
 * pair may differ in length (unequal primes): the pair then runs for the
 * longer one, so each lane's scratch is sized for the pair's longer
 * exponent. */
static void plan_pairs(mns_rsa *key)
{
    key->npairs = 0;
    for (int i = 0; i < key->k; i++)
        key->pw_words[i] = mns_field_powm_scratch_words(key->ch[i].f, mpz_sizeinbase(key->ch[i].dexp, 2));
    for (int j = 0; 2 * j + 1 < key->k; j++) {
        mns_rsa_channel *a = &key->ch[2 * j], *b = &key->ch[2 * j + 1];
        key->x2[j] = mns_field_x2(a->f, b->f);
        if (!key->x2[j])
            continue;
        size_t ba = mpz_sizeinbase(a->dexp, 2), bb = mpz_sizeinbase(b->dexp, 2);
        size_t bits = ba > bb ? ba : bb;
        size_t wa = mns_field_powm_x2_lane_words(a->f, b->f, bits);
        size_t wb = mns_field_powm_x2_lane_words(b->f, a->f, bits);
        if (wa > key->pw_words[2 * j])
            key->pw_words[2 * j] = wa;
        if (wb > key->pw_words[2 * j + 1])
            key->pw_words[2 * j + 1] = wb;
    }
}

/* Whether a pair pays is measured, not assumed: two exponentiations in one
 * instruction stream win where one product leaves the multipliers idle,
 * and lose where the two channels' working sets (rns-ifma: two contexts'
 * matrices and two tables) no longer fit the L1 cache. A key with an
 * explicit spec times each of its pairs once, as whole jobs with the real
 * exponents (mns_rsa_pair_ratio, the timing units of "auto"'s choice in
 * choose.c), and uses a pair where it took less than 97% of the two
 * channels one after the other. Results do not depend on this choice,
 * only the time does; the ratios are in mns_rsa_describe. */
static void probe_pairs(mns_rsa *key)
{
    key->npairs = 0;
    for (int j = 0; 2 * j + 1 < key->k; j++) {
        key->probe_ratio[j] = key->x2[j] ? mns_rsa_pair_ratio(key, j) : 0;
        key->pair_on[j] = key->probe_ratio[j] > 0 && key->probe_ratio[j] < 0.97;
        key->npairs += key->pair_on[j];
    }
}

static size_t words_of_bytes(size_t bytes) { return (bytes + 7) / 8; }

mns_status mns_rsa_slot_init(const mns_rsa *key, mns_rsa_slot *sl)
{
    const int k = key->k;
    size_t words = key->nn + key->xn + mns_rsa_crt_scratch(key) + words_of_bytes(key->nbytes) +
                   key->ck_words;
    for (int i = 0; i < k; i++)
        words += key->ch[i].pn + mns_rsa_channel_scratch(&key->ch[i], key->nn) + key->pw_words[i];
    memset(sl, 0, sizeof *sl);
    sl->block = calloc(words, sizeof(mp_limb_t));
    if (!sl->block)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    sl->words = words;
    mp_limb_t *w = sl->block;
    sl->in = w;
    w += key->nn;
    for (int i = 0; i < k; i++) {
        sl->s[i] = w;
        w += key->ch[i].pn;
        sl->chs[i] = (uint64_t *)w;
        w += mns_rsa_channel_scratch(&key->ch[i], key->nn);
        sl->pw[i] = (uint64_t *)w;
        w += key->pw_words[i];
        /* get_mpz's target: room for the products of a Horner step (2 pn
         * words and a carry) so that GMP never reallocates it */
        mpz_init2(sl->z[i], (mp_bitcnt_t)(64 * (2 * key->ch[i].pn + 2)));
    }
    sl->crt = w;
    w += mns_rsa_crt_scratch(key);
    sl->x = w;
    w += key->xn;
    sl->em = (unsigned char *)w;
    w += words_of_bytes(key->nbytes);
    sl->ck = key->ck_words ? (uint64_t *)w : NULL;
    mpz_init2(sl->chk, (mp_bitcnt_t)(64 * (2 * key->nn + 2)));
    return MNS_OK;
}

void mns_rsa_slot_clear(const mns_rsa *key, mns_rsa_slot *sl)
{
    if (!sl->block)
        return;
    explicit_bzero(sl->block, sl->words * sizeof(mp_limb_t));
    free(sl->block);
    for (int i = 0; i < key->k; i++)
        mpz_clear(sl->z[i]);
    mpz_clear(sl->chk);
    sl->block = NULL;
}

mns_rsa_slot *mns_rsa_slot_take(const mns_rsa *ckey, int *own)
{
    mns_rsa *key = (mns_rsa *)ckey; /* the slot is the key's synchronised scratch */
    if (pthread_mutex_trylock(&key->slot_lock) == 0) {
        *own = 0;
        return &key->slot;
    }
    /* another call holds it: this one allocates its own (the only
     * allocation of a private operation, and only under concurrency) */
    mns_rsa_slot *sl = malloc(sizeof *sl);
    if (!sl)
        return NULL;
    if (mns_rsa_slot_init(key, sl) != MNS_OK) {
        free(sl);
        return NULL;
    }
    *own = 1;
    return sl;
}

void mns_rsa_slot_give(const mns_rsa *ckey, mns_rsa_slot *sl, int own)
{
    mns_rsa *key = (mns_rsa *)ckey;
    if (own) {
        mns_rsa_slot_clear(key, sl);
        free(sl);
        return;
    }
    /* the table of powers, the channel results, the CRT: all secret */
    explicit_bzero(sl->block, sl->words * sizeof(mp_limb_t));
    pthread_mutex_unlock(&key->slot_lock);
}

/* --- the private operation --- */

/* One call's plan: job j runs channel a[j], and b[j] (>= 0) in the same
 * instruction stream when the two are paired; use[p]: whether pair p may
 * be formed; timed: the call adapts (adapt.c), and ns[j] is job j's time. */
typedef struct call {
    const mns_rsa *key;
    mns_rsa_slot *sl;
    int jobs, timed;
    int a[MNS_RSA_MAX_PRIMES], b[MNS_RSA_MAX_PRIMES];
    int use[MNS_RSA_MAX_PRIMES / 2];
    double ns[MNS_RSA_MAX_PRIMES];
} call;

/* With threads >= k every channel has its own thread. With fewer, pairs
 * are formed (while any are left) until the jobs fit the threads: k - P
 * jobs for P pairs, so P = k - threads; a pair costs less than two
 * channels one after the other (x2 kernels) and about the same without
 * them. Pairs are handed out first: they are the longer jobs. */
static void plan_call(call *c, int threads, int pairs)
{
    const mns_rsa *key = c->key;
    int want = pairs ? key->k - threads : 0, used[MNS_RSA_MAX_PRIMES] = {0};
    c->jobs = 0;
    for (int j = 0; 2 * j + 1 < key->k && want > 0; j++)
        if (c->use[j]) {
            c->a[c->jobs] = 2 * j;
            c->b[c->jobs++] = 2 * j + 1;
            used[2 * j] = used[2 * j + 1] = 1;
            want--;
        }
    for (int i = 0; i < key->k; i++)
        if (!used[i]) {
            c->a[c->jobs] = i;
            c->b[c->jobs++] = -1;
        }
}

static void channel_job(void *arg, int j)
{
    call *c = arg;
    const mns_rsa *key = c->key;
    mns_rsa_slot *sl = c->sl;
    const size_t nn = key->nn;
    const int a = c->a[j], b = c->b[j];
    const mns_rsa_channel *ca = &key->ch[a];
    const double t0 = c->timed ? mns_now_ns() : 0;
    mns_rsa_channel_in(ca, sl->in, nn, sl->chs[a]);
    uint64_t *xa = mns_rsa_channel_x(ca, nn, sl->chs[a]), *ya = mns_rsa_channel_y(ca, nn, sl->chs[a]);
    if (b < 0) {
        mns_field_powm_scratch(ca->f, ya, xa, ca->dexp, sl->pw[a]);
    } else {
        const mns_rsa_channel *cb = &key->ch[b];
        mns_rsa_channel_in(cb, sl->in, nn, sl->chs[b]);
        mns_field_powm_x2(ca->f, ya, xa, ca->dexp, cb->f, mns_rsa_channel_y(cb, nn, sl->chs[b]),
                          mns_rsa_channel_x(cb, nn, sl->chs[b]), cb->dexp, sl->pw[a], sl->pw[b]);
        mns_rsa_channel_out(cb, sl->s[b], sl->z[b], nn, sl->chs[b]);
    }
    mns_rsa_channel_out(ca, sl->s[a], sl->z[a], nn, sl->chs[a]);
    if (c->timed)
        c->ns[j] = mns_now_ns() - t0;
}

/* Whether this call takes part in the run-time choice of pairs (adapt.c):
 * it holds the key's slot (one such call at a time: the state needs no
 * lock), may pair, and is on few enough threads that every pair would be
 * formed (threads <= k - k / 2), so its times compare the same plans. */
static int call_adapts(const mns_rsa *key, const mns_rsa_slot *sl, int threads,
                       mns_rsa_thread_mode mode)
{
    return key->adapt && sl == &key->slot && !(mode & MNS_RSA_NO_PAIRS) &&
           key->k - threads >= key->k / 2;
}

/* After the jobs of an adaptable call: each pair's time, to adapt.c */
static void adapt_after(const call *c)
{
    mns_rsa *key = (mns_rsa *)c->key; /* the slot holder's state */
    const int k = key->k;
    for (int p = 0; 2 * p + 1 < k; p++) {
        if (!key->x2[p])
            continue;
        double ns = 0;
        int paired = 0;
        for (int j = 0; j < c->jobs; j++)
            if (c->a[j] == 2 * p || c->a[j] == 2 * p + 1) {
                ns += c->ns[j];
                paired = c->b[j] >= 0;
            }
        int on = __atomic_load_n(&key->pair_on[p], __ATOMIC_RELAXED);
        int now = mns_rsa_adapt_record(&key->adapt_state[p], on, paired, ns);
        if (now != on)
            __atomic_store_n(&key->pair_on[p], now, __ATOMIC_RELAXED);
    }
}

int mns_rsa_pair_now_(const mns_rsa *key, int j, double *median, unsigned long *explored,
                      unsigned long *flips)
{
    if (!key || j < 0 || 2 * j + 1 >= key->k || !key->x2[j])
        return -1;
    const mns_rsa_adapt *a = &key->adapt_state[j];
    if (median)
        *median = a->median;
    if (explored)
        *explored = a->explored;
    if (flips)
        *flips = a->flips;
    return __atomic_load_n(&key->pair_on[j], __ATOMIC_RELAXED);
}

mns_status mns_rsa_private_slot(const mns_rsa *key, mns_rsa_slot *sl, int threads,
                                mns_rsa_thread_mode mode, int fault_channel, unsigned fault_bit)
{
    const int k = key->k;
    if (threads > k)
        threads = k;
    call c;
    c.key = key;
    c.sl = sl;
    const int adapts = call_adapts(key, sl, threads, mode);
    c.timed = adapts;
    /* an exploring call runs every pair the other way */
    const int explore = adapts && mns_rsa_adapt_explores(((mns_rsa *)key)->calls++);
    for (int p = 0; 2 * p + 1 < k; p++)
        c.use[p] = key->x2[p] && (__atomic_load_n(&key->pair_on[p], __ATOMIC_RELAXED) ^ explore);
    plan_call(&c, threads, !(mode & MNS_RSA_NO_PAIRS));
    if (threads > c.jobs)
        threads = c.jobs;

    mns_status ran = MNS_EINVAL;
    if (threads > 1 && !(mode & MNS_RSA_THREADS_SPAWN) && key->pool)
        ran = mns_rsa_pool_run(key->pool, threads, channel_job, &c, c.jobs);
    if (ran != MNS_OK) {
        if (threads > 1) /* spawn mode, no pool, or the pool is busy */
            mns_rsa_spawn_run(threads, channel_job, &c, c.jobs);
        else
            for (int j = 0; j < c.jobs; j++)
                channel_job(&c, j);
    }
    if (adapts)
        adapt_after(&c);
    if (fault_channel >= 0 && fault_channel < k) {
        size_t bit = fault_bit % (64 * key->ch[fault_channel].pn);
        sl->s[fault_channel][bit / 64] ^= (mp_limb_t)1 << (bit % 64);
    }
    return mns_rsa_finish_slot(key, sl, threads);
}

mns_status mns_rsa_finish_slot(const mns_rsa *key, mns_rsa_slot *sl, int threads)
{
    mns_rsa_crt(key, sl->x, sl->s, sl->crt);
    /* the result is the signature: public from here (a faulty one is never
     * returned; only the check's time depends on it) */
    MNS_RSA_DECLASSIFY(sl->x, key->xn * sizeof(mp_limb_t));

    /* the fault check: x < n and x^e == in (mod n); all public from here.
     * In the key's field of n, or with mpz_powm: chk has room for GMP's
     * result, and mpz_powm's own scratch is on the stack (GMP's TMP_ALLOC
     * below 64 KiB), so nothing is allocated either way */
    if (!check_ok(key, sl, threads))
        return mns_error(MNS_ERANGE, "mns_rsa_private: fault check failed (result^e != input); "
                                     "no output");
    return MNS_OK;
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
    int own;
    mns_rsa_slot *sl = mns_rsa_slot_take(key, &own);
    if (!sl)
        return mns_error(MNS_ENOMEM, "mns_rsa_private: out of memory");
    /* in < n: at most nn words; the slot was wiped, so the rest is zero */
    if (mpz_size(in))
        memcpy(sl->in, mpz_limbs_read(in), mpz_size(in) * sizeof(mp_limb_t));
    mns_status st = mns_rsa_private_slot(key, sl, threads, mode, fault_channel, fault_bit);
    if (st == MNS_OK) {
        /* out may alias in: in was copied above. No allocation when out has
         * room for n (mpz_init2(out, bits of n)) */
        mpz_t xz;
        mpz_roinit_n(xz, sl->x, (mp_size_t)key->xn);
        mpz_set(out, xz);
    }
    mns_rsa_slot_give(key, sl, own);
    return st;
}

mns_status mns_rsa_private(const mns_rsa *key, mpz_t out, const mpz_t in, int threads)
{
    return mns_rsa_private_ex_(key, out, in, threads, MNS_RSA_THREADS_POOL, -1, 0);
}
