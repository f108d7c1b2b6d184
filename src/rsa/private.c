/* The private operation: the channels on threads (pairs sharing a thread
 * where there are fewer threads than channels), the CRT and the fault check. */
#include <string.h>

#include "core/error.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"

/* One call's plan: job j runs channel a[j], and b[j] (>= 0) in the same
 * instruction stream when the two are paired; use[p]: whether pair p may
 * be formed. */
typedef struct call {
    const mns_rsa *key;
    mns_rsa_slot *sl;
    int jobs;
    int a[MNS_RSA_MAX_PRIMES], b[MNS_RSA_MAX_PRIMES];
    int use[MNS_RSA_MAX_PRIMES / 2];
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
    for (int p = 0; 2 * p + 1 < k; p++)
        c.use[p] = key->x2[p] && key->pair_on[p];
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
    if (fault_channel >= 0 && fault_channel < k) {
        size_t bit = fault_bit % (64 * key->ch[fault_channel].pn);
        sl->s[fault_channel][bit / 64] ^= (mp_limb_t)1 << (bit % 64);
    }
    return mns_rsa_finish_slot(key, sl, threads);
}

void mns_rsa_crt_slot(const mns_rsa *key, mns_rsa_slot *sl)
{
    mns_rsa_crt(key, sl->x, sl->s, sl->crt);
    /* the result is the signature: public from here (a faulty one is never
     * returned; only the check's time depends on it) */
    MNS_RSA_DECLASSIFY(sl->x, key->xn * sizeof(mp_limb_t));
}

mns_status mns_rsa_finish_slot(const mns_rsa *key, mns_rsa_slot *sl, int threads)
{
    mns_rsa_crt_slot(key, sl);

    /* the fault check: x < n and x^e == in (mod n); all public from here.
     * In the key's field of n, or with mpz_powm: chk has room for GMP's
     * result, and mpz_powm's own scratch is on the stack (GMP's TMP_ALLOC
     * below 64 KiB), so nothing is allocated either way */
    if (!mns_rsa_check_ok(key, sl, threads))
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
    key = mns_rsa_now(key);
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
    mns_status st = mns_rsa_private_ex_(key, out, in, threads, MNS_RSA_THREADS_POOL, -1, 0);
    if (key)
        mns_rsa_tune_kick_(key); /* after the result: the first call is not slowed */
    return st;
}
