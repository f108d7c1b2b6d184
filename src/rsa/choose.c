/* Which backend each channel of an "auto" key's tuned plan runs on, and
 * which channels share an instruction stream (pairs): decided from the
 * tuning table and fixed rules, so that a key gets the same plan in every
 * process on a CPU class (docs/rsa.md, "The tuned plan"). Variable time, in
 * the key's background tuning only (ready.c).
 *
 * The backends are the table's: each channel's field is "auto:op=exp,
 * delta=0" (docs/auto.md), the same mechanism and the same rows as any
 * field's. The one timing left is a guard, not a choice: the table ranks
 * backends by their figure on other primes, and a PMNS family takes its
 * shape per prime, some of which cost far more than the one measured (at
 * 1024 bits on the IFMA Xeon pmns-mp-ifma n=8 s=3 took 300k ticks per
 * exponentiation, n=9 s=3 645k, on about a quarter of random primes). So a
 * channel that is not on the starting plan's backend is timed once against
 * it, as whole jobs (entry, exponentiation, exit, the real padded
 * exponent), and falls back to it only if it is more than RSA_GUARD_SLOWER
 * times slower: a margin far outside the timing's noise, so that the
 * guard's verdict is the same in every process but on a prime that sits at
 * the margin itself.
 *
 * Pairs follow a rule (rsa_pair_rule below), not a timing, for the same
 * reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/deadline.h"
#include "core/error.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"

#define BLOCKS 3
#define ROUNDS 3

/* A table channel slower than this many times the starting backend's on
 * its own prime is replaced by the starting backend (see above). The
 * shapes that made the guard necessary cost 1.4-2.2x the channel they
 * replace (n=9 against n=8 and rns-ifma on the IFMA Xeon; pmns-mp:s=3 at
 * 1536 bits against mont on the Zen 3, 1.35-1.5x); the table's own
 * rankings put its choices within 1.0-1.3x of mont, and the guard's ratio
 * for one RSA-2048 key's channels in four processes was 1.00-1.12
 * (docs/rsa.md). */
#define RSA_GUARD_SLOWER 1.6

/* --- equal shapes for pairs --- */

/* *out <- a channel for c's prime with the backend and (n, s) of o's field;
 * 1 if it was made and pairs with o (then *out holds it), else 0 (*out
 * zeroed). Only the PMNS families choose a shape per prime. */
static int remake_like(mns_rsa_channel *out, const mns_rsa_channel *o, const mns_rsa_channel *c,
                       const mpz_t d, const mpz_t *primes)
{
    memset(out, 0, sizeof *out);
    const char *da = mns_field_describe(o->f), *db = mns_field_describe(c->f);
    const size_t bl = strcspn(da, " ");
    if (bl < 4 || strncmp(da, "pmns", 4) != 0 || strncmp(da, db, bl) != 0 || db[bl] != ' ')
        return 0;
    const char *n = strstr(da, " n="), *s = strstr(da, " s=");
    if (!n)
        return 0;
    char spec[80];
    if (s) /* pmns-mp(-ifma): n and s */
        snprintf(spec, sizeof spec, "%.*s:n=%d,s=%d,delta=%d", (int)bl, da, atoi(n + 3),
                 atoi(s + 3), mns_field_delta(o->f));
    else /* pmns(-ifma): n */
        snprintf(spec, sizeof spec, "%.*s:n=%d,delta=%d", (int)bl, da, atoi(n + 3),
                 mns_field_delta(o->f));
    double t0 = mns_now_ms();
    int ok = mns_rsa_channel_make(out, d, primes, c->pi, spec) == MNS_OK && mns_field_x2(o->f, out->f);
    out->create_ms = mns_now_ms() - t0;
    if (!ok) {
        mns_rsa_channel_clear(out);
        mns_error_clear();
    }
    return ok;
}

/* Pairs need one shape on both channels (mns_field_x2). For a key with an
 * explicit spec: channel i (odd) is made again with channel i - 1's (n, s),
 * or, if that set does not exist for its prime ("the bounds do not hold"),
 * channel i - 1 with channel i's. Whether the pair is used is
 * mns_rsa_pair_rule's. */
void mns_rsa_same_shape(mns_rsa *key, int i, const mpz_t d, const mpz_t *primes)
{
    mns_rsa_channel *a = &key->ch[i - 1], *b = &key->ch[i], t;
    if (mns_field_x2(a->f, b->f))
        return;
    if (remake_like(&t, a, b, d, primes)) {
        t.create_ms += b->create_ms;
        mns_rsa_channel_clear(b);
        *b = t;
    } else if (remake_like(&t, b, a, d, primes)) {
        t.create_ms += a->create_ms;
        mns_rsa_channel_clear(a);
        *a = t;
    }
}

/* --- timing units --- */

/* One timed job: a channel alone, as a call's job runs it (private.c
 * channel_job), on scratch of its own. */
typedef struct unit {
    const mns_rsa_channel *a;
    uint64_t *block, *sca, *pwa;
    mp_limb_t *sa;
    size_t words;
    mpz_t za;
    double blk[BLOCKS];
    double score;
} unit;

static int unit_init(unit *u, const mns_rsa_channel *a, size_t nn)
{
    memset(u, 0, sizeof *u);
    u->a = a;
    size_t ca = mns_rsa_channel_scratch(a, nn);
    size_t pa = mns_field_powm_scratch_words(a->f, mpz_sizeinbase(a->dexp, 2));
    u->words = ca + pa + a->pn;
    u->block = calloc(u->words, sizeof(uint64_t));
    if (!u->block)
        return 0;
    u->sca = u->block;
    u->pwa = u->sca + ca;
    u->sa = (mp_limb_t *)(u->pwa + pa);
    mpz_init2(u->za, (mp_bitcnt_t)(64 * (2 * a->pn + 2)));
    for (int i = 0; i < BLOCKS; i++)
        u->blk[i] = 1e300;
    return 1;
}

static void unit_clear(unit *u)
{
    if (!u->block)
        return;
    explicit_bzero(u->block, u->words * sizeof(uint64_t));
    free(u->block);
    mpz_clear(u->za);
    u->block = NULL;
}

/* entry, exponentiation, exit on a public input; ns */
static double unit_run(unit *u, const mp_limb_t *in, size_t nn)
{
    const mns_rsa_channel *a = u->a;
    double t0 = mns_now_ns();
    mns_rsa_channel_in(a, in, nn, u->sca);
    uint64_t *xa = mns_rsa_channel_x(a, nn, u->sca), *ya = mns_rsa_channel_y(a, nn, u->sca);
    mns_field_powm_scratch(a->f, ya, xa, a->dexp, u->pwa);
    mns_rsa_channel_out(a, u->sa, u->za, nn, u->sca);
    return mns_now_ns() - t0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Runs the units in turn (one untimed warm-up each, then BLOCKS x ROUNDS)
 * and scores each by the median of its block minima (ns). */
static void time_units(unit *u, int m, size_t nn)
{
    mp_limb_t *in = calloc(nn, sizeof *in);
    if (!in) {
        for (int i = 0; i < m; i++)
            u[i].score = 1e300;
        return;
    }
    for (size_t w = 0; w + 1 < nn; w++) /* a public input below n */
        in[w] = 0x9e3779b97f4a7c15ull * (w + 1);
    for (int i = 0; i < m; i++)
        (void)unit_run(&u[i], in, nn);
    /* a key being freed stops the timing (core/deadline.h); its plan is dropped */
    for (int blk = 0; blk < BLOCKS && !mns_deadline_passed(); blk++)
        for (int r = 0; r < ROUNDS; r++)
            for (int i = 0; i < m; i++) {
                double t = unit_run(&u[i], in, nn);
                if (t < u[i].blk[blk])
                    u[i].blk[blk] = t;
            }
    for (int i = 0; i < m; i++) {
        double v[BLOCKS];
        memcpy(v, u[i].blk, sizeof v);
        qsort(v, BLOCKS, sizeof v[0], cmp_double);
        u[i].score = v[BLOCKS / 2];
    }
    free(in);
}

/* Channels reordered so that those whose fields can pair (x2 kernels
 * first, then two calls) are neighbours: greedy, in prime order. */
static void group_channels(mns_rsa *key)
{
    const int k = key->k;
    int used[MNS_RSA_MAX_PRIMES] = {0}, order[MNS_RSA_MAX_PRIMES], m = 0;
    for (int i = 0; i < k; i++) {
        if (used[i])
            continue;
        used[i] = 1;
        order[m++] = i;
        int best = -1, bestx = -1;
        for (int j = i + 1; j < k; j++) {
            if (used[j])
                continue;
            int x = mns_field_x2(key->ch[i].f, key->ch[j].f);
            if (x > bestx) {
                best = j;
                bestx = x;
            }
        }
        if (best >= 0) {
            used[best] = 1;
            order[m++] = best;
        }
    }
    mns_rsa_channel tmp[MNS_RSA_MAX_PRIMES];
    for (int i = 0; i < k; i++)
        tmp[i] = key->ch[order[i]];
    for (int i = 0; i < k; i++)
        key->ch[i] = tmp[i];
}


/* --- the guard --- */

static int on_backend(const mns_rsa_channel *c, const char *name)
{
    const char *da = mns_field_describe(c->f);
    const size_t l = strlen(name);
    return strncmp(da, name, l) == 0 && da[l] == ' ';
}

/* Channel i of the tuned plan against the starting backend on its prime
 * (see the file's comment): the table's channel stays unless it is more
 * than RSA_GUARD_SLOWER times slower. */
static void guard_channel(mns_rsa *key, int i, const mpz_t d, const mpz_t *primes)
{
    mns_rsa_channel *t = &key->ch[i], s;
    mns_rsa_guard *g = &key->guard[t->pi];
    g->table_ns = g->start_ns = -1;
    g->replaced = 0;
    if (on_backend(t, mns_rsa_start_backend()) || on_backend(t, "mont"))
        return; /* already a backend that needs no guard */
    memset(&s, 0, sizeof s);
    double t0 = mns_now_ms();
    if (mns_rsa_start_channel(&s, d, primes, t->pi) != MNS_OK) {
        mns_rsa_channel_clear(&s);
        mns_error_clear();
        return;
    }
    s.create_ms = mns_now_ms() - t0;
    unit u[2];
    memset(u, 0, sizeof u);
    if (unit_init(&u[0], t, key->nn) && unit_init(&u[1], &s, key->nn)) {
        time_units(u, 2, key->nn);
        g->table_ns = u[0].score;
        g->start_ns = u[1].score;
        g->replaced = u[0].score > RSA_GUARD_SLOWER * u[1].score;
    }
    unit_clear(&u[0]);
    unit_clear(&u[1]);
    if (g->replaced) {
        s.create_ms += t->create_ms;
        mns_rsa_channel_clear(t);
        *t = s;
    } else {
        t->create_ms += s.create_ms;
        mns_rsa_channel_clear(&s);
    }
}

/* --- pairs --- */

/* Primes above this many bits do not pair on the RNS backends: two
 * channels' contexts (base matrices, tables) leave the L1 cache (rns-ifma
 * pairs measured faster than two calls at 1024 bits, slower from 1536
 * bits on, IFMA Xeon). */
#define RSA_PAIR_RNS_MAX_BITS 1100

int mns_rsa_pair_rule(const mns_rsa *key, int j)
{
    const mns_rsa_channel *a = &key->ch[2 * j], *b = &key->ch[2 * j + 1];
    /* two calls in turn (x2 = 1) only interleave the steps: nothing shared */
    if (mns_field_x2(a->f, b->f) != 2)
        return 0;
    size_t bits = a->bits > b->bits ? a->bits : b->bits;
    return !(strncmp(mns_field_describe(a->f), "rns", 3) == 0 && bits > RSA_PAIR_RNS_MAX_BITS);
}

void mns_rsa_choose(mns_rsa *key, const mpz_t d, const mpz_t *primes)
{
    group_channels(key);
    for (int i = 1; i < key->k; i += 2)
        mns_rsa_same_shape(key, i, d, primes);
    for (int i = 0; i < key->k && !mns_deadline_passed(); i++)
        guard_channel(key, i, d, primes);
    key->chosen = 1;
}
