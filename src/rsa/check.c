/* The fault check of every private operation: x < n and x^e = in (mod n)
 * before anything is returned. Where it runs (the channels' own fields, a
 * field of n, or GMP) is fixed when the key is made. */
#include <string.h>

#include "core/error.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"


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
void mns_rsa_check_field(mns_rsa *key, int field_of_n)
{
    key->fn = NULL;
    key->ck_words = 0;
    key->ck_channels_ok = 1;
    for (int i = 0; i < key->k; i++)
        key->ck_channels_ok = key->ck_channels_ok && key->ch[i].words && key->ch[i].getw;
    key->ck_channels = key->ck_channels_ok && (key->k >= 3 || mpz_sizeinbase(key->n, 2) >= 4096);
    if (key->ck_channels || !field_of_n)
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

int mns_rsa_check_range(const mns_rsa *key, const mns_rsa_slot *sl)
{
    const size_t nn = key->nn;
    for (size_t i = nn; i < key->xn; i++)
        if (sl->x[i])
            return 0;
    return mpn_cmp(sl->x, mpz_limbs_read(key->n), (mp_size_t)nn) < 0;
}

/* 1 if x (xn words) is below n and x^e = in (mod n). The verdict is public;
 * in the channels' fields the work is constant time (their moduli are
 * secret). With threads > 1 the channels' checks share the key's pool. */
int mns_rsa_check_ok(const mns_rsa *key, mns_rsa_slot *sl, int threads)
{
    const size_t nn = key->nn;
    if (!mns_rsa_check_range(key, sl))
        return 0;
    if (key->ck_channels || (threads > 1 && key->ck_channels_ok)) {
        /* x^e = in mod every p_i, i.e. mod n (distinct primes); on more
         * than one thread also for the 2-prime keys below 4096 bits, whose
         * serial check in the field of n kept RSA-3072 at 1.62-1.81x one
         * thread on 2 threads on a quiet machine) */
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

/* --- the checks of a batch in the lanes --- */

int mns_rsa_check_lanes_ok(const mns_rsa *key)
{
    if (!key->ck_channels_ok)
        return 0;
    for (int i = 0; i < key->k; i++)
        if (!mns_field_powm_n_lanes(key->ch[i].f))
            return 0;
    return 1;
}

size_t mns_rsa_check_lanes_words(const mns_rsa *key, size_t group)
{
    size_t words = 0;
    for (int i = 0; i < key->k; i++) {
        const mns_rsa_channel *c = &key->ch[i];
        const size_t w = 2 * group * c->pn + mns_field_powm_n_itch(c->f, mpz_sizeinbase(key->e, 2));
        words = w > words ? w : words;
    }
    return words;
}

/* Per channel: x_j mod p_i for the n operations, raised to e in one
 * mns_field_powm_n_words, each compared with in_j mod p_i (left in slot
 * j's channel scratch by the entry). The same check as the channels' one
 * of a single call (mns_rsa_channel_check), with the powers in lanes:
 * RSA-2048 (two 1024-bit channels) cost 23k ticks per operation in the
 * field of n, one at a time (Zen 5). */
void mns_rsa_check_lanes(const mns_rsa *key, mns_rsa_slot *const *sl, size_t n, uint64_t *work,
                         int *ok)
{
    const size_t nn = key->nn;
    mp_limb_t diff[MNS_RSA_CHECK_GROUP] = {0};
    mpz_t e[MNS_RSA_CHECK_GROUP];
    for (size_t j = 0; j < n; j++) {
        e[j][0] = key->e[0]; /* read only: the same limbs */
        ok[j] = mns_rsa_check_range(key, sl[j]);
    }
    for (int i = 0; i < key->k; i++) {
        const mns_rsa_channel *c = &key->ch[i];
        const size_t pn = c->pn;
        uint64_t *X = work, *Y = X + n * pn, *scratch = Y + n * pn;
        for (size_t j = 0; j < n; j++)
            memcpy(X + j * pn, mns_rsa_channel_check_in(c, sl[j]->x, nn, sl[j]->chs[i]),
                   pn * sizeof(uint64_t));
        mns_field_powm_n_words(c->f, Y, X, pn, (const mpz_t *)e, n, scratch);
        for (size_t j = 0; j < n; j++)
            diff[j] |= mns_rsa_channel_check_diff(c, Y + j * pn, nn, sl[j]->chs[i]);
    }
    for (size_t j = 0; j < n; j++) {
        MNS_RSA_DECLASSIFY(&diff[j], sizeof diff[j]); /* pass or fail: public */
        ok[j] = ok[j] && diff[j] == 0;
    }
}
