/* A channel's creation: its field for p_i, the padded exponent, the entry
 * tables and the exit mask (variable time: once per key, on constants that
 * depend on p_i alone or on fresh randomness), several channels side by
 * side, and their release. */
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

mp_limb_t *mns_rsa_limbs_of(const mpz_t a, size_t words)
{
    mp_limb_t *r = calloc(words ? words : 1, sizeof(mp_limb_t));
    if (r && mpz_size(a))
        memcpy(r, mpz_limbs_read(a), mpz_size(a) * sizeof(mp_limb_t));
    return r;
}

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
    c->p = mns_rsa_limbs_of(*p, c->pn);
    if (!c->p)
        return mns_error(MNS_ENOMEM, "rsa: out of memory");

    /* a channel only exponentiates: no square-root constant (for a prime =
     * 1 mod 8 one GMP exponentiation, most of a mont-ifma channel's making) */
    mns_status st = mns_field_new_nosqrt_(&c->f, *p, spec);
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
    const int *cancel; /* the caller's (core/deadline.h), for every worker */
    char err[MNS_RSA_MAX_PRIMES][256];
} channels_job;

static void channel_make_job(void *arg, int i)
{
    channels_job *j = arg;
    double t0 = mns_now_ms();
    mns_deadline_set_cancel(j->cancel);
    j->st[i] = mns_rsa_channel_make(&j->ch[i], j->d, j->primes, j->pi[i], j->spec[i]);
    mns_deadline_set_cancel(NULL);
    j->ch[i].create_ms = mns_now_ms() - t0;
    if (j->st[i] != MNS_OK)
        snprintf(j->err[i], sizeof j->err[i], "%s", mns_last_error());
}

mns_status mns_rsa_channels_make(mns_rsa_channel *ch, mns_status *st, int m, const int *pi,
                                 const char *const *spec, const mpz_t d, const mpz_t *primes)
{
    if (m < 1)
        return MNS_OK;
    channels_job j = {ch, st, pi, spec, d, primes, mns_deadline_cancel(), {{0}}};
    /* a generation that can be cancelled is a key's background tuning
     * (ready.c): it leaves one CPU to the key's calls */
    const int cpus = mns_cpu_count() - (mns_deadline_cancel() && mns_cpu_count() > 1);
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
