/* Which backend each channel of an "auto" key's tuned plan runs on, and
 * which channels share an instruction stream (pairs). Variable time, in the
 * key's background tuning only (ready.c).
 *
 * Why measure at all: "auto" asks the tuning table's single-exponentiation
 * rows, measured without RSA's entry and exit, without pairs, and on other
 * primes. Two things the table cannot see decide a signature's time:
 *   - the PMNS families choose their shape per prime, and the shapes do not
 *     cost alike: at 1024 bits pmns-mp-ifma n=8 s=3 took 300k ticks per
 *     exponentiation here, while a prime for which n=8 does not exist gets
 *     n=9 s=3 and took 645k (rns-ifma: 466k) -- about a quarter of random
 *     1024-bit primes;
 *   - whether two channels gain from one instruction stream (x2 kernels)
 *     depends on the backend and the size (rns-ifma pairs win at 1024 bits
 *     and lose from 1536 on: two contexts leave the L1 cache).
 * Timing one channel per size is not enough (an n=9 channel after an n=8
 * one would stay on the 2x slower shape), so every channel is timed:
 *   1. channels are ordered so that channels whose table fields can pair
 *      sit side by side (pairs are channels 2j, 2j + 1; the CRT does not
 *      care about the order: its constants are made after this);
 *   2. for each pair, every option is timed as a whole job (entry,
 *      exponentiation(s), exit; the real padded exponents): each channel
 *      alone on the table's backend and on the alternative (mont-ifma:
 *      alt_spec), the pair on
 *      the table's backend (after making the two shapes equal where needed)
 *      and on the alternative. All units run in turn, round after round, BLOCKS blocks
 *      of ROUNDS rounds after one untimed warm-up run each; a unit's score
 *      is the median of its block minima (the minimum filters preemption,
 *      the median a block that caught a slow phase of the machine);
 *   3. the pair's time is the smallest of: the best solo of each channel
 *      summed, the table pair, the alternative's pair, each replacing the
 *      one before only by RSA_CHOICE_MARGIN; the winner is installed.
 * On a CPU without IFMA, mont takes mont-ifma's place, and pmns-mp is the
 * alternative where the table itself gave mont above 16 words (alt_spec).
 * A pair's two alternatives are made side by side on two threads where the
 * process has two CPUs, and each gets RSA_ALT_BUDGET_MS of parameter
 * generation (make_alts).
 * The choice optimises a call on fewer threads than channels (one thread);
 * a channel chosen for its pair also runs alone when there are threads
 * enough. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/cpu.h"
#include "core/deadline.h"
#include "core/error.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"

#define BLOCKS 3
#define ROUNDS 3

/* An option replaces the one before it (the table's backend, then solos,
 * then the table's pair) only where it took less than this fraction of its
 * time: without a margin, options within the timing's noise of each other
 * went either way from one process to the next (the same RSA-2048 key on
 * the busy Zen 3: mont on both channels in two processes, pmns-mp n=8 s=3
 * on one of them in a third, 12-15 ms per signature each), so a key's
 * channels change between processes only where the options differ by
 * about this margin. Explicit specs' pairs use the same fraction. */
#define RSA_CHOICE_MARGIN 0.97

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
 * channel i - 1 with channel i's. Whether the pair pays is still measured
 * (mns_rsa_probe_pairs in plan.c). */
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

/* One timed job: channel a alone (b NULL), or a and b, paired through
 * mns_field_powm_x2 or one after the other. Its scratch is its own. */
typedef struct unit {
    const mns_rsa_channel *a, *b;
    int paired;
    uint64_t *block, *sca, *scb, *pwa, *pwb;
    mp_limb_t *sa, *sb;
    size_t words;
    mpz_t za, zb;
    double blk[BLOCKS];
    double score;
} unit;

static size_t pw_words(const mns_rsa_channel *c, const mns_rsa_channel *o, size_t bits, int paired)
{
    return paired ? mns_field_powm_x2_lane_words(c->f, o->f, bits)
                  : mns_field_powm_scratch_words(c->f, mpz_sizeinbase(c->dexp, 2));
}

static int unit_init(unit *u, const mns_rsa_channel *a, const mns_rsa_channel *b, int paired,
                     size_t nn)
{
    memset(u, 0, sizeof *u);
    u->a = a;
    u->b = b;
    u->paired = paired;
    size_t ba = mpz_sizeinbase(a->dexp, 2), bb = b ? mpz_sizeinbase(b->dexp, 2) : 0;
    size_t bits = ba > bb ? ba : bb;
    size_t ca = mns_rsa_channel_scratch(a, nn), pa = pw_words(a, b, bits, paired);
    size_t cb = b ? mns_rsa_channel_scratch(b, nn) : 0, pb = b ? pw_words(b, a, bits, paired) : 0;
    u->words = ca + pa + a->pn + cb + pb + (b ? b->pn : 0);
    u->block = calloc(u->words, sizeof(uint64_t));
    if (!u->block)
        return 0;
    u->sca = u->block;
    u->pwa = u->sca + ca;
    u->sa = (mp_limb_t *)(u->pwa + pa);
    u->scb = (uint64_t *)(u->sa + a->pn);
    u->pwb = u->scb + cb;
    u->sb = (mp_limb_t *)(u->pwb + pb);
    mpz_init2(u->za, (mp_bitcnt_t)(64 * (2 * a->pn + 2)));
    mpz_init2(u->zb, (mp_bitcnt_t)(64 * (2 * (b ? b->pn : 1) + 2)));
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
    mpz_clear(u->zb);
    u->block = NULL;
}

/* What a call's job does (private.c channel_job), on a public input. */
static double unit_run(unit *u, const mp_limb_t *in, size_t nn)
{
    const mns_rsa_channel *a = u->a, *b = u->b;
    double t0 = mns_now_ns();
    mns_rsa_channel_in(a, in, nn, u->sca);
    uint64_t *xa = mns_rsa_channel_x(a, nn, u->sca), *ya = mns_rsa_channel_y(a, nn, u->sca);
    if (b) {
        mns_rsa_channel_in(b, in, nn, u->scb);
        uint64_t *xb = mns_rsa_channel_x(b, nn, u->scb), *yb = mns_rsa_channel_y(b, nn, u->scb);
        if (u->paired) {
            mns_field_powm_x2(a->f, ya, xa, a->dexp, b->f, yb, xb, b->dexp, u->pwa, u->pwb);
        } else {
            mns_field_powm_scratch(a->f, ya, xa, a->dexp, u->pwa);
            mns_field_powm_scratch(b->f, yb, xb, b->dexp, u->pwb);
        }
        mns_rsa_channel_out(b, u->sb, u->zb, nn, u->scb);
    } else {
        mns_field_powm_scratch(a->f, ya, xa, a->dexp, u->pwa);
    }
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

/* Pair j of a key with an explicit spec: time of the pair through
 * mns_field_powm_x2 over the time of its two channels one after the other,
 * both as whole jobs (mns_rsa_probe_pairs in plan.c decides with it); 0 if the
 * timing could not run (out of memory). */
double mns_rsa_pair_ratio(const mns_rsa *key, int j)
{
    const mns_rsa_channel *a = &key->ch[2 * j], *b = &key->ch[2 * j + 1];
    unit u[2];
    memset(u, 0, sizeof u);
    int ok = unit_init(&u[0], a, b, 1, key->nn) && unit_init(&u[1], a, b, 0, key->nn);
    if (ok)
        time_units(u, 2, key->nn);
    double r = ok && u[1].score > 0 ? u[0].score / u[1].score : 0;
    unit_clear(&u[0]);
    unit_clear(&u[1]);
    return r;
}

/* --- the choice --- */

static int shape_of(const mns_rsa_channel *c, int *n, int *s);

/* out <- the backend's name: the first word of the field's description */
static void backend_name(char *out, size_t cap, const mns_rsa_channel *c)
{
    const char *da = mns_field_describe(c->f);
    snprintf(out, cap, "%.*s", (int)strcspn(da, " "), da);
}

static int on_backend(const mns_rsa_channel *c, const char *name)
{
    const char *da = mns_field_describe(c->f);
    const size_t l = strlen(name);
    return strncmp(da, name, l) == 0 && da[l] == ' ';
}

/* Words of a prime above which mont's channels get pmns-mp as alternative
 * (the measured boundary in the comment of alt_spec below) */
#define RSA_ALT_PMNS_ABOVE_WORDS 16

/* The backend timed against channel c's (the table's), NULL if none:
 *   - mont-ifma where the CPU has IFMA (Xeon model 207, 2-prime keys, one
 *     thread, the same keys in one process, M ticks per signature, "auto"
 *     with the earlier alternatives against the key on mont-ifma):
 *     RSA-3072 1.85-1.89 against 1.67-1.68 on 3 keys, RSA-4096 3.27-3.33
 *     against 3.18 on 3 keys, 4-prime RSA-4096 1.94-2.17 against 1.83-1.88;
 *     RSA-2048 depends on the machine's phase (1.005 / 0.917 / 0.559
 *     against 0.974 / 0.949 / 0.686), which is what the timing below
 *     settles. mont-ifma beat the other alternatives (rns-ifma, and
 *     pmns-mp-ifma:delta=0 up to 1800 bits) at every size where they were
 *     timed;
 *   - elsewhere mont. Without IFMA the table's pmns-mp takes a shape per
 *     prime, and some lose to mont: on the Zen 3 the bench's
 *     RSA-3072 key signed in 9.8-11.6 M ticks on pmns-mp:s=3 against
 *     7.2-7.6 M on mont;
 *   - and where the table itself gives mont above 16 words (the Zen 3
 *     table: 1057-1578 and 2039-2242 bits among others),
 *     pmns-mp, for the same reason the other way round: the two are within
 *     10% there and pmns-mp's speed depends on the prime (at 2048 bits 4.8 M
 *     ticks per exponentiation against mont's 5.5 M on one prime, 7.4-8.0 M
 *     against 5.5-7.2 M on another). Up to 16 words mont wins by 1.1x and
 *     more, and pmns-mp's set-up would only lengthen the key's creation.
 *     Channels only multiply, so it asks delta=0 as the table's choice does. */
static const char *alt_spec(const mns_rsa_channel *c)
{
    if (!mns_cpu_has_ifma()) {
        if (!on_backend(c, "mont"))
            return "mont";
        return c->pn > RSA_ALT_PMNS_ABOVE_WORDS ? "pmns-mp:delta=0" : NULL; /* delta=0: as ready.c's "auto" */
    }
    return on_backend(c, "mont-ifma") ? NULL : "mont-ifma";
}

/* The most an alternative's parameter generation may take: pmns-mp's
 * generator usually needs 65-220 ms for an 1100-3400-bit prime on the Zen 3,
 * but more than a second for about one prime in eight near 2048 bits
 * (core/deadline.c); such a channel keeps the table's backend. */
#define RSA_ALT_BUDGET_MS 400.0

/* r[x] <- channel c[x]'s prime on its alternative backend (alt_spec), x < m
 * (m <= 2), made side by side (mns_rsa_channels_make) within
 * RSA_ALT_BUDGET_MS each; has[x] = 1 where it was, else 0 (no alternative,
 * or it cannot be made in time: r[x] zeroed). */
static void make_alts(mns_rsa_channel *r, int *has, const mns_rsa_channel *c, int m,
                      const mpz_t d, const mpz_t *primes)
{
    mns_rsa_channel made[2];
    mns_status st[2];
    int pi[2], which[2], cnt = 0;
    const char *spec[2];
    for (int x = 0; x < m; x++) {
        memset(&r[x], 0, sizeof r[x]);
        has[x] = 0;
        const char *alt = alt_spec(&c[x]);
        if (alt) {
            which[cnt] = x;
            pi[cnt] = c[x].pi;
            spec[cnt++] = alt;
        }
    }
    memset(made, 0, sizeof made);
    (void)mns_rsa_channels_make(made, st, cnt, pi, spec, d, primes, RSA_ALT_BUDGET_MS);
    for (int j = 0; j < cnt; j++) {
        if (st[j] == MNS_OK) {
            r[which[j]] = made[j];
            has[which[j]] = 1;
        } else {
            mns_rsa_channel_clear(&made[j]);
        }
    }
    mns_error_clear();
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

/* The last channel of an odd key: the table's backend or the alternative, alone. */
static void choose_single(mns_rsa *key, int i, const mpz_t d, const mpz_t *primes)
{
    mns_rsa_choice *ch = &key->choice[i / 2];
    mns_rsa_channel r;
    ch->done = 1;
    ch->solo_t[0] = ch->solo_r[0] = ch->solo_t[1] = ch->solo_r[1] = -1;
    ch->pair_t = ch->pair_r = -1;
    int has;
    make_alts(&r, &has, &key->ch[i], 1, d, primes);
    if (!has) {
        snprintf(ch->pick, sizeof ch->pick, "table");
        return;
    }
    backend_name(ch->alt, sizeof ch->alt, &r);
    unit u[2];
    memset(u, 0, sizeof u);
    int ok = unit_init(&u[0], &key->ch[i], NULL, 0, key->nn) &&
             unit_init(&u[1], &r, NULL, 0, key->nn);
    if (ok) {
        time_units(u, 2, key->nn);
        ch->solo_t[0] = u[0].score;
        ch->solo_r[0] = u[1].score;
    }
    unit_clear(&u[0]);
    unit_clear(&u[1]);
    if (ok && u[1].score < RSA_CHOICE_MARGIN * u[0].score) {
        r.create_ms += key->ch[i].create_ms;
        mns_rsa_channel_clear(&key->ch[i]);
        key->ch[i] = r;
        memcpy(ch->pick, ch->alt, sizeof ch->alt);
    } else {
        key->ch[i].create_ms += r.create_ms;
        mns_rsa_channel_clear(&r);
        snprintf(ch->pick, sizeof ch->pick, "table");
    }
}

/* Pair j (channels 2j, 2j + 1): see the file's comment. */
static void choose_pair(mns_rsa *key, int j, const mpz_t d, const mpz_t *primes)
{
    const size_t nn = key->nn;
    mns_rsa_choice *ch = &key->choice[j];
    mns_rsa_channel T[2] = {key->ch[2 * j], key->ch[2 * j + 1]}, R[2], H[2];
    int hasR[2], hasH[2] = {0, 0};
    /* the table pair: as it is, or with one shape made like the other's */
    int tx = mns_field_x2(T[0].f, T[1].f), n0, s0, n1, s1;
    /* PMNS fields of two shapes pair only as two calls: one made like the
     * other can take the x2 kernels (n = 8 s = 3 beside n = 12 s = 2) */
    if (!tx || (shape_of(&T[0], &n0, &s0) && shape_of(&T[1], &n1, &s1) && (n0 != n1 || s0 != s1))) {
        hasH[1] = remake_like(&H[1], &T[0], &T[1], d, primes);
        if (!hasH[1])
            hasH[0] = remake_like(&H[0], &T[1], &T[0], d, primes);
    }
    make_alts(R, hasR, T, 2, d, primes);
    if (hasR[0] || hasR[1])
        backend_name(ch->alt, sizeof ch->alt, hasR[0] ? &R[0] : &R[1]);
    const mns_rsa_channel *pa = hasH[0] ? &H[0] : &T[0], *pb = hasH[1] ? &H[1] : &T[1];
    int tpair = mns_field_x2(pa->f, pb->f) != 0;
    int rpair = hasR[0] && hasR[1] && mns_field_x2(R[0].f, R[1].f);

    /* units: 0, 1 table solos; 2, 3 alternative solos; 4 table pair; 5 alternative pair */
    unit u[6];
    int idx[6], m = 0, ok = 1;
    for (int x = 0; x < 6; x++)
        idx[x] = -1;
    for (int x = 0; x < 2 && ok; x++) {
        ok = unit_init(&u[m], &T[x], NULL, 0, nn);
        idx[x] = m++;
    }
    for (int x = 0; x < 2 && ok; x++)
        if (hasR[x]) {
            ok = unit_init(&u[m], &R[x], NULL, 0, nn);
            idx[2 + x] = m++;
        }
    if (ok && tpair) {
        ok = unit_init(&u[m], pa, pb, 1, nn);
        idx[4] = m++;
    }
    if (ok && rpair) {
        ok = unit_init(&u[m], &R[0], &R[1], 1, nn);
        idx[5] = m++;
    }
    if (ok)
        time_units(u, m, nn);
    double sc[6];
    for (int x = 0; x < 6; x++)
        sc[x] = ok && idx[x] >= 0 ? u[idx[x]].score : -1;
    for (int x = 0; x < m; x++)
        unit_clear(&u[x]);

    ch->done = 1;
    ch->solo_t[0] = sc[0];
    ch->solo_t[1] = sc[1];
    ch->solo_r[0] = sc[2];
    ch->solo_r[1] = sc[3];
    ch->pair_t = sc[4];
    ch->pair_r = sc[5];
    /* the best solo of each channel (0: table, 1: the alternative) */
    int useR[2];
    double solo = 0;
    for (int x = 0; x < 2; x++) {
        useR[x] = sc[2 + x] >= 0 && sc[2 + x] < RSA_CHOICE_MARGIN * sc[x];
        solo += useR[x] ? sc[2 + x] : sc[x];
    }
    int pick = 0; /* 0 solos, 1 table pair, 2 the alternative's pair */
    double best = solo;
    if (sc[4] >= 0 && sc[4] < RSA_CHOICE_MARGIN * best) {
        pick = 1;
        best = sc[4];
    }
    if (sc[5] >= 0 && sc[5] < RSA_CHOICE_MARGIN * best) {
        pick = 2;
        best = sc[5];
    }
    if (!ok) /* out of memory while timing: keep the table's channels */
        pick = 0, useR[0] = useR[1] = 0;
    double pbest = sc[4] >= 0 && (sc[5] < 0 || sc[4] < sc[5]) ? sc[4] : sc[5];
    key->probe_ratio[j] = pbest > 0 && solo > 0 ? pbest / solo : 0;

    /* install the winner, free the rest */
    mns_rsa_channel win[2];
    double spent = 0;
    for (int x = 0; x < 2; x++) {
        spent += T[x].create_ms + (hasR[x] ? R[x].create_ms : 0) + (hasH[x] ? H[x].create_ms : 0);
        const mns_rsa_channel *w = pick == 1   ? (x == 0 ? pa : pb)
                                   : pick == 2 ? &R[x]
                                   : useR[x]   ? &R[x]
                                               : &T[x];
        win[x] = *w;
        if (w != &T[x])
            mns_rsa_channel_clear(&T[x]);
        if (hasR[x] && w != &R[x])
            mns_rsa_channel_clear(&R[x]);
        if (hasH[x] && w != &H[x])
            mns_rsa_channel_clear(&H[x]);
    }
    win[0].create_ms = spent / 2;
    win[1].create_ms = spent / 2;
    key->ch[2 * j] = win[0];
    key->ch[2 * j + 1] = win[1];
    key->pair_on[j] = pick != 0;
    if (pick == 2) {
        char alt[sizeof ch->alt];
        memcpy(alt, ch->alt, sizeof alt);
        snprintf(ch->pick, sizeof ch->pick, "%s-pair", alt);
    } else
        snprintf(ch->pick, sizeof ch->pick, "%s", pick == 1 ? "table-pair" : "solo");
}

/* The (n, s) of a PMNS family field, from its description; 0 if none. */
static int shape_of(const mns_rsa_channel *c, int *n, int *s)
{
    const char *da = mns_field_describe(c->f), *qn = strstr(da, " n="), *qs = strstr(da, " s=");
    *n = qn ? atoi(qn + 3) : 0;
    *s = qs ? atoi(qs + 3) : 0;
    return *n > 0;
}

/* A table row may fix s (the exponentiation rows of 916-1119 bits say
 * pmns-mp-ifma:s=3): on a prime that has no n = 8 set with s = 3 that is
 * n = 9, one coefficient past a vector (408k ticks per 1024-bit
 * exponentiation on Zen 5), while the family's own choice, which generates
 * by the real n, gives n = 12 s = 2 (258k; n = 8 s = 3: 248k). So a table
 * channel on pmns-mp-ifma is made again with the family's default (same
 * delta); if the shape differs, the two are timed alone as whole jobs and
 * the faster stays. */
static void prefer_family_default(mns_rsa *key, int i, const mpz_t d, const mpz_t *primes)
{
    mns_rsa_channel *t = &key->ch[i], alt;
    if (strncmp(mns_field_describe(t->f), "pmns-mp-ifma ", 13) != 0)
        return;
    char spec[48];
    snprintf(spec, sizeof spec, "pmns-mp-ifma:delta=%d", mns_field_delta(t->f));
    memset(&alt, 0, sizeof alt);
    double t0 = mns_now_ms();
    if (mns_rsa_channel_make(&alt, d, primes, t->pi, spec) != MNS_OK) {
        mns_rsa_channel_clear(&alt);
        mns_error_clear();
        return;
    }
    alt.create_ms = mns_now_ms() - t0;
    int n0, s0, n1, s1;
    int same = shape_of(t, &n0, &s0) && shape_of(&alt, &n1, &s1) && n0 == n1 && s0 == s1;
    int take = 0;
    if (!same) {
        unit u[2];
        memset(u, 0, sizeof u);
        if (unit_init(&u[0], t, NULL, 0, key->nn) && unit_init(&u[1], &alt, NULL, 0, key->nn)) {
            time_units(u, 2, key->nn);
            take = u[1].score < RSA_CHOICE_MARGIN * u[0].score;
        }
        unit_clear(&u[0]);
        unit_clear(&u[1]);
    }
    if (take) {
        alt.create_ms += t->create_ms;
        mns_rsa_channel_clear(t);
        *t = alt;
    } else {
        t->create_ms += alt.create_ms;
        mns_rsa_channel_clear(&alt);
    }
}

void mns_rsa_choose(mns_rsa *key, const mpz_t d, const mpz_t *primes)
{
    for (int i = 0; i < key->k; i++)
        prefer_family_default(key, i, d, primes);
    group_channels(key);
    for (int j = 0; 2 * j + 1 < key->k; j++)
        choose_pair(key, j, d, primes);
    if (key->k & 1)
        choose_single(key, key->k - 1, d, primes);
    key->chosen = 1;
}
