/* mns_rsa keys: validation, creation of one plan (channels, Garner's
 * constants, pairs, the fault check's field, the call slot), release and
 * description. How a key starts at once and is tuned later is ready.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/error.h"
#include "rsa/rsa_internal.h"

/* One plan's resources (the tuned plan's pool is its key's). */
void mns_rsa_plan_free(mns_rsa *key)
{
    if (key->kind != MNS_RSA_PLAN_TUNED)
        mns_rsa_pool_free(key->pool);
    if (key->slot_ready)
        mns_rsa_slot_clear(key, &key->slot);
    pthread_mutex_destroy(&key->slot_lock);
    pthread_mutex_destroy(&key->tune_lock);
    pthread_mutex_destroy(&key->join_lock);
    pthread_cond_destroy(&key->tune_cv);
    for (int i = 0; i < MNS_RSA_MAX_PRIMES; i++)
        mns_rsa_channel_clear(&key->ch[i]);
    mns_field_free(key->fn);
    mpz_clear(key->n);
    mpz_clear(key->e);
    free(key->describe);
    free(key);
}

void mns_rsa_free(mns_rsa *key)
{
    if (!key)
        return;
    mns_rsa_tune_stop_(key); /* the tuned plan, if any, is made or dropped */
    if (key->tuned)
        mns_rsa_plan_free(key->tuned);
    mns_rsa_plan_free(key);
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
        else if (!mns_rsa_probable_prime(primes[i]))
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

static mns_status make_describe(mns_rsa *key, double total_ms)
{
    size_t cap = 160 + (size_t)key->k * 640;
    key->describe = malloc(cap);
    if (!key->describe)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    int len = snprintf(key->describe, cap, "rsa bits=%zu k=%d create_ms=%.1f plan=%s check=%s pairs=%d",
                       mpz_sizeinbase(key->n, 2), key->k, total_ms,
                       key->kind == MNS_RSA_PLAN_START   ? "start"
                       : key->kind == MNS_RSA_PLAN_TUNED ? "tuned"
                                                         : "explicit",
                       key->ck_channels ? "channels" : key->fn ? "rns-ifma" : "gmp",
                       key->npairs);
    /* per pair: x2 kernels or two calls, used or not */
    for (int j = 0; 2 * j + 1 < key->k && len > 0 && (size_t)len < cap; j++)
        if (key->x2[j])
            len += snprintf(key->describe + len, cap - (size_t)len, " (%d,%d):%s:%s", 2 * j,
                            2 * j + 1, key->x2[j] == 2 ? "x2" : "calls",
                            key->pair_on[j] ? "on" : "off");
    for (int i = 0; i < key->k && len > 0 && (size_t)len < cap; i++) {
        const mns_rsa_channel *c = &key->ch[i];
        char entry[32], guard[96] = "";
        if (c->words)
            snprintf(entry, sizeof entry, "set_words");
        else
            snprintf(entry, sizeof entry, "digits:b=%u", c->dbits);
        /* the guard (choose.c): its verdict, then its timings, last on the
         * line so that the plan reads the same in every process up to them */
        const mns_rsa_guard *g = &key->guard[c->pi];
        if (key->chosen && g->table_ns >= 0)
            snprintf(guard, sizeof guard, " guard=%s table_us=%.0f start_us=%.0f",
                     g->replaced ? "start" : "table", g->table_ns * 1e-3, g->start_ns * 1e-3);
        len += snprintf(key->describe + len, cap - (size_t)len,
                        "\n ch%d bits=%zu exp_bits=%zu exit=%s entry=%s %s create_ms=%.1f%s", i,
                        c->bits, mpz_sizeinbase(c->dexp, 2), c->getw ? "get_words" : "mask", entry,
                        mns_field_describe(c->f), c->create_ms, guard);
    }
    return MNS_OK;
}

/* The channels of a plan side by side (mns_rsa_channels_make) on spec, then
 * pairs of one shape for an explicit spec (channel i - 1 and i, i odd: what
 * each remakes depends on both being made); the starting plan's channels
 * on the backends that need no generation (ready.c). */
static mns_status plan_channels(mns_rsa *key, const mpz_t d, const mpz_t *primes, const char *spec,
                                mns_rsa_plan_kind kind)
{
    const int k = key->k;
    mns_status st;
    if (kind == MNS_RSA_PLAN_START) {
        st = mns_rsa_start_channels(key, d, primes);
    } else {
        int pi[MNS_RSA_MAX_PRIMES];
        const char *specs[MNS_RSA_MAX_PRIMES];
        mns_status cst[MNS_RSA_MAX_PRIMES];
        for (int i = 0; i < k; i++) {
            pi[i] = i;
            specs[i] = spec;
        }
        st = mns_rsa_channels_make(key->ch, cst, k, pi, specs, d, primes);
        for (int i = 1; i < k && st == MNS_OK && kind == MNS_RSA_PLAN_EXPLICIT; i += 2)
            mns_rsa_same_shape(key, i, d, primes);
    }
    key->xn = 1;
    for (int i = 0; i < k && st == MNS_OK; i++)
        key->xn += key->ch[i].pn;
    return st;
}

/* Whether each pair is used on fewer threads than channels: by
 * mns_rsa_pair_rule (choose.c), never on the starting plan (its backends
 * are the baseline). */
static void plan_pair_use(mns_rsa *key, mns_rsa_plan_kind kind)
{
    key->npairs = 0;
    for (int j = 0; 2 * j + 1 < key->k; j++) {
        key->pair_on[j] = kind != MNS_RSA_PLAN_START && key->x2[j] && mns_rsa_pair_rule(key, j);
        key->npairs += key->pair_on[j];
    }
}

mns_status mns_rsa_plan_make(mns_rsa *key, const mpz_t n, const mpz_t e, const mpz_t d,
                             const mpz_t *primes, int k, const char *spec, mns_rsa_plan_kind kind)
{
    double t0 = mns_now_ms();
    key->k = k;
    key->kind = kind;
    key->cur = key;
    mpz_init_set(key->n, n);
    mpz_init_set(key->e, e);
    key->nn = mpz_size(n);
    key->nbytes = (mpz_sizeinbase(n, 2) + 7) / 8;
    pthread_mutex_init(&key->slot_lock, NULL);
    pthread_mutex_init(&key->tune_lock, NULL);
    pthread_mutex_init(&key->join_lock, NULL);
    pthread_cond_init(&key->tune_cv, NULL);
    mns_status st = plan_channels(key, d, primes, spec, kind);
    /* the tuned plan: the table's channels guarded, paired (choose.c) */
    if (st == MNS_OK && kind == MNS_RSA_PLAN_TUNED)
        mns_rsa_choose(key, d, primes);
    if (st == MNS_OK)
        st = mns_rsa_garner_constants(key, primes);
    if (st == MNS_OK) {
        mns_rsa_plan_pairs(key);
        mns_rsa_check_field(key, kind != MNS_RSA_PLAN_START);
    }
    if (st == MNS_OK && (st = mns_rsa_slot_init(key, &key->slot)) == MNS_OK) {
        key->slot_ready = 1;
        plan_pair_use(key, kind);
    }
    /* the pool, created with the key so that a threaded call neither
     * allocates nor starts threads (the tuned plan borrows the key's); a
     * failure is not fatal: threaded calls then spawn threads of their own */
    if (st == MNS_OK && k > 1 && kind != MNS_RSA_PLAN_TUNED &&
        mns_rsa_pool_new(&key->pool, k - 1) != MNS_OK) {
        key->pool = NULL;
        mns_error_clear();
    }
    if (st == MNS_OK)
        st = make_describe(key, mns_now_ms() - t0);
    return st;
}

mns_status mns_rsa_new(mns_rsa **out, const mpz_t n, const mpz_t e, const mpz_t d,
                       const mpz_t *primes, int k, const char *spec)
{
    mns_status st = mns_rsa_new_held_(out, n, e, d, primes, k, spec);
    if (st == MNS_OK)
        mns_rsa_tune_arm_(*out, d, primes);
    return st;
}

mns_status mns_rsa_new_held_(mns_rsa **out, const mpz_t n, const mpz_t e, const mpz_t d,
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
    const int auto_spec = !spec || strcmp(spec, "auto") == 0;
    mns_rsa *key = calloc(1, sizeof *key);
    if (!key)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    st = mns_rsa_plan_make(key, n, e, d, primes, k, spec,
                           auto_spec ? MNS_RSA_PLAN_START : MNS_RSA_PLAN_EXPLICIT);
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
    key = key ? mns_rsa_now(key) : NULL;
    return key && key->describe ? key->describe : "(null)";
}
