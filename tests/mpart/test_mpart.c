/* The mpart backends against GMP: PMR and PBR (Algorithms 1 and 2) and the
 * final fold on their own, with their exact output bounds; then mpart with
 * every k from 1 to 8 and every thread count 1..4 (the paper's Table 3 and 4
 * schedules included), bipartite, and the parallel Montgomery and Barrett
 * baselines, through the shared conformance check (random and structured
 * operands, chains, aliasing, powm) on odd moduli from 64 to 65536 bits;
 * two user threads sharing one context; bad options. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpart/mpart.h"
#include "testutil.h"

/* tests/slow/test_slow_mpart_matrix.c includes this file with the full matrix */
#ifndef MPART_FULL_MATRIX
#define MPART_FULL_MATRIX 0
#define MPART_TEST_NAME "test_mpart"
#endif

static void to_words(uint64_t *r, size_t n, const mpz_t a)
{
    size_t cnt;
    memset(r, 0, n * 8);
    mpz_export(r, &cnt, -1, 8, 0, 0, a);
}

static void from_words(mpz_t r, const uint64_t *a, size_t n) { mpz_import(r, n, -1, 8, 0, 0, a); }

/* C of m words: random, all ones, or zero */
static void operand_c(mpz_t c, size_t m, int kind)
{
    if (kind == 0)
        mpz_urandomb(c, mt_rand, 64 * m);
    else if (kind == 1) {
        mpz_set_ui(c, 0);
        mpz_setbit(c, 64 * m);
        mpz_sub_ui(c, c, 1);
    } else if (kind == 2)
        mpz_set_ui(c, 0);
    else
        mpz_rrandomb(c, mt_rand, 64 * m); /* long runs of ones and zeros */
}

static void test_pmr_pbr(void)
{
    mpz_t p, c, r, want, bound, t, mod;
    mpz_inits(p, c, r, want, bound, t, mod, NULL);
    static const size_t ns[] = {1, 2, 3, 5, 8, 17, 32};
    int max_pmr = 0, max_pbr = 0;
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++) {
        size_t n = ns[in];
        for (int shape = 0; shape < MT_MOD_KINDS; shape++) {
            if (64 * n < 24 && shape == MT_MOD_PSEUDO_MERSENNE)
                continue;
            if (shape == MT_MOD_PRIME && n > 8)
                continue;
            mt_modulus(p, 64 * n - (shape == MT_MOD_2K_PLUS_1 ? 0 : mt_below(60)), (mt_mod_kind)shape);
            if (mpz_size(p) != n)
                continue;
            uint64_t *pw = calloc(n, 8);
            to_words(pw, n, p);
            for (size_t t_ = 1; t_ <= n; t_ += (n > 4 ? n / 3 : 1)) {
                for (size_t m = n + t_; m <= 2 * n + 2; m += (n > 4 ? 3 : 1)) {
                    size_t scr = 3 * m + 3 * t_ + 4;
                    uint64_t *cw = calloc(m, 8), *rw = calloc(m, 8), *s = calloc(scr, 8),
                             *mu = calloc(t_, 8), *nu = calloc(t_ + 1, 8);
                    /* mu = -p^-1 mod beta^t, nu = floor(beta^(n+t) / p) */
                    mpz_set_ui(mod, 0);
                    mpz_setbit(mod, 64 * t_);
                    mpz_invert(t, p, mod);
                    mpz_sub(t, mod, t);
                    to_words(mu, t_, t);
                    mpz_set_ui(t, 0);
                    mpz_setbit(t, 64 * (n + t_));
                    mpz_fdiv_q(t, t, p);
                    to_words(nu, t_ + 1, t);
                    mpz_set_ui(bound, 0);
                    mpz_setbit(bound, 64 * (m - t_)); /* beta^(m-t) */
                    for (int kind = 0; kind < 4; kind++) {
                        operand_c(c, m, kind);
                        to_words(cw, m, c);
                        int subs = -1;
                        /* PMR: R = C beta^-t mod P, 0 <= R < beta^(m-t) */
                        mns_mpart_pmr(rw, cw, m, pw, n, mu, t_, s, kind & 1, &subs);
                        from_words(r, rw, m - t_);
                        mpz_invert(t, mod, p);
                        mpz_mul(want, c, t);
                        mpz_sub(t, r, want);
                        MT_CHECK(mpz_divisible_p(t, p) && mpz_cmp(r, bound) < 0 && subs >= 0 &&
                                     subs <= 1,
                                 "PMR n=%zu t=%zu m=%zu kind=%d subs=%d", n, t_, m, kind, subs);
                        if (subs > max_pmr)
                            max_pmr = subs;
                        if (t_ > m - n)
                            continue;
                        /* PBR: R = C mod P (congruent), 0 <= R < beta^(m-t), at most
                         * two subtractions (Theorem 2) */
                        subs = -1;
                        mns_mpart_pbr(rw, cw, m, pw, n, nu, t_, s, &subs);
                        from_words(r, rw, m - t_);
                        mpz_sub(t, r, c);
                        MT_CHECK(mpz_divisible_p(t, p) && mpz_cmp(r, bound) < 0 && subs >= 0 &&
                                     subs <= 2,
                                 "PBR n=%zu t=%zu m=%zu kind=%d subs=%d", n, t_, m, kind, subs);
                        if (subs > max_pbr)
                            max_pbr = subs;
                    }
                    free(cw);
                    free(rw);
                    free(s);
                    free(mu);
                    free(nu);
                }
            }
            free(pw);
        }
    }
    printf("  PMR/PBR: most correction subtractions seen: PMR %d (bound 1), PBR %d (bound 2)\n",
           max_pmr, max_pbr);
    mpz_clears(p, c, r, want, bound, t, mod, NULL);
}

/* The Barrett quotient of a high group must never exceed C / P (else the
 * remainder would go negative) and must leave less than beta^n + 2P. */
static void test_pbr_q_bound(void)
{
    mpz_t p, c, q, t, lim;
    mpz_inits(p, c, q, t, lim, NULL);
    for (int it = 0; it < 300; it++) {
        size_t n = 1 + mt_below(12), cn = 1 + mt_below(8), pad = mt_below(3), tt = cn + pad;
        mt_modulus(p, 64 * n - mt_below(63), it % 3 ? MT_MOD_RANDOM : MT_MOD_SPARSE);
        if (mpz_size(p) != n)
            continue;
        uint64_t *c1 = calloc(cn, 8), *nu = calloc(tt + 1, 8), *qw = calloc(tt + 1, 8),
                 *s = calloc(cn + tt + 2, 8);
        operand_c(c, cn, it % 4);
        to_words(c1, cn, c);
        mpz_set_ui(t, 0);
        mpz_setbit(t, 64 * (n + tt));
        mpz_fdiv_q(t, t, p);
        to_words(nu, tt + 1, t);
        mns_mpart_pbr_q(qw, c1, cn, pad, nu, s);
        from_words(q, qw, tt + 1);
        /* C = c1 beta^(n + pad) (low words zero): R = C - QP */
        mpz_mul_2exp(c, c, 64 * (n + pad));
        mpz_mul(t, q, p);
        mpz_sub(t, c, t);
        mpz_set_ui(lim, 0);
        mpz_setbit(lim, 64 * n);
        mpz_addmul_ui(lim, p, 2);
        MT_CHECK(mpz_sgn(t) >= 0 && mpz_cmp(t, lim) < 0, "PBR quotient n=%zu cn=%zu pad=%zu", n,
                 cn, pad);
        free(c1);
        free(nu);
        free(qw);
        free(s);
    }
    mpz_clears(p, c, q, t, lim, NULL);
}

static void test_fold(void)
{
    mpz_t p, x, r, t;
    mpz_inits(p, x, r, t, NULL);
    for (int it = 0; it < 1000; it++) {
        size_t n = 1 + mt_below(20), e = 1 + mt_below(2);
        mt_modulus(p, 64 * (n - 1) + 2 + mt_below(63), (mt_mod_kind)(it % MT_MOD_KINDS));
        if (mpz_size(p) != n || mpz_cmp_ui(p, 3) < 0)
            continue;
        mns_mpart_fold fd;
        MT_CHECK(mns_mpart_fold_init(&fd, p, n + e), "fold init");
        uint64_t *pw = calloc(n, 8), *xw = calloc(fd.F, 8), *rw = calloc(n, 8),
                 *s = calloc(mns_mpart_fold_scratch(&fd), 8);
        to_words(pw, n, p);
        operand_c(x, fd.F, it % 4);
        to_words(xw, fd.F, x);
        mns_mpart_fold_run(&fd, pw, rw, xw, s);
        from_words(r, rw, n);
        mpz_mod(t, x, p);
        MT_CHECK(mpz_cmp(r, t) == 0, "fold n=%zu F=%zu bits=%zu", n, fd.F, fd.bits);
        mns_mpart_fold_clear(&fd);
        free(pw);
        free(xw);
        free(rw);
        free(s);
    }
    mpz_clears(p, x, r, t, NULL);
}

/* The products that compute only a part (mpn_ext.c), on both paths (GMP's
 * internal functions when configured, and the portable twins), against mpz:
 * mullo, the wrap-around product modulo beta^K - 1 (0 may come out as
 * beta^K - 1), and the PMR quotient with S shorter than t. */
static void test_short_products(void)
{
    mpz_t a, b, r, want, mod;
    mpz_inits(a, b, r, want, mod, NULL);
    printf("  GMP's mpn_mullo_n: %s, mpn_mulmod_bnm1: %s\n",
           mns_mpart_have_mullo() ? "used" : "not found", mns_mpart_have_bnm1() ? "used" : "not found");
    for (int it = 0; it < 600; it++) {
        int fast = it & 1;
        size_t K = mns_mpart_bnm1_size(1 + mt_below(it < 500 ? 200 : 1200), fast);
        size_t an = 1 + mt_below(K), bn = 1 + mt_below(K);
        uint64_t *aw = calloc(K, 8), *bw = calloc(K, 8), *rw = calloc(2 * K, 8),
                 *tp = calloc(mns_mpart_bnm1_scratch(K) + 3 * K, 8);
        operand_c(a, an, it % 4);
        operand_c(b, bn, (it / 4) % 4);
        to_words(aw, an, a);
        to_words(bw, bn, b);
        size_t rn = mns_mpart_mulmod_bnm1(rw, K, aw, an, bw, bn, tp, fast);
        from_words(r, rw, rn);
        mpz_mul(want, a, b);
        mpz_set_ui(mod, 0);
        mpz_setbit(mod, 64 * K);
        mpz_sub_ui(mod, mod, 1);
        int ok;
        if (an + bn <= K)
            ok = rn == an + bn && mpz_cmp(r, want) == 0;
        else {
            mpz_sub(r, r, want);
            ok = rn == K && mpz_divisible_p(r, mod);
        }
        MT_CHECK(ok, "mulmod_bnm1 K=%zu an=%zu bn=%zu fast=%d", K, an, bn, fast);
        /* mullo on the first min(an, bn) words */
        size_t ln = an < bn ? an : bn;
        mns_mpart_mullo(rw, aw, bw, ln, tp, fast);
        from_words(r, rw, ln);
        mpz_tdiv_r_2exp(a, a, 64 * ln);
        mpz_tdiv_r_2exp(b, b, 64 * ln);
        mpz_mul(want, a, b);
        mpz_tdiv_r_2exp(want, want, 64 * ln);
        MT_CHECK(mpz_cmp(r, want) == 0, "mullo n=%zu fast=%d", ln, fast);
        /* PMR quotient: s of sn words (possibly < t), mu of t words */
        size_t t = ln, sn = 1 + mt_below(t + 2);
        if (sn > K)
            sn = K;
        mns_mpart_pmr_q(rw, aw, sn, bw, t, tp, fast);
        from_words(r, rw, t);
        from_words(a, aw, sn < t ? sn : t);
        from_words(b, bw, t);
        mpz_mul(want, a, b);
        mpz_tdiv_r_2exp(want, want, 64 * t);
        MT_CHECK(mpz_cmp(r, want) == 0, "pmr_q sn=%zu t=%zu fast=%d", sn, t, fast);
        /* low L words of a b for any an, bn <= L */
        size_t L = (an > bn ? an : bn) + mt_below(K);
        uint64_t *lw = calloc(L, 8), *ls = calloc(4 * L + 8, 8);
        from_words(a, aw, an);
        from_words(b, bw, bn);
        mns_mpart_mullo_any(lw, L, aw, an, bw, bn, ls, fast);
        from_words(r, lw, L);
        mpz_mul(want, a, b);
        mpz_tdiv_r_2exp(want, want, 64 * L);
        MT_CHECK(mpz_cmp(r, want) == 0, "mullo_any L=%zu an=%zu bn=%zu fast=%d", L, an, bn, fast);
        free(lw);
        free(ls);
        free(aw);
        free(bw);
        free(rw);
        free(tp);
    }
    /* the high half of q p from the known low half: s = -q p mod beta^h */
    for (int it = 0; it < 600; it++) {
        int fast = it & 1;
        size_t h = 1 + mt_below(it < 500 ? 100 : 700);
        uint64_t *qw = calloc(h, 8), *pw = calloc(h, 8), *sw = calloc(h, 8), *xw = calloc(h, 8),
                 *sc = calloc(2 * h + 8, 8);
        operand_c(a, h, it % 4);
        operand_c(b, h, (it / 4) % 3 == 2 ? 1 : 0); /* p: random or all ones */
        if (it % 17 == 0)
            mpz_set_ui(a, 0);
        to_words(qw, h, a);
        to_words(pw, h, b);
        mpz_mul(want, a, b);
        mpz_set_ui(mod, 0);
        mpz_setbit(mod, 64 * h);
        mpz_tdiv_r_2exp(r, want, 64 * h);
        mpz_sub(r, mod, r);
        mpz_tdiv_r_2exp(r, r, 64 * h); /* -q p mod beta^h */
        to_words(sw, h, r);
        int64_t adj[2];
        mns_mpart_mulhi_known(xw, adj, qw, pw, h, sw, sc, fast);
        int cwant = mpz_sgn(r) != 0;
        /* x + adj[0] + adj[1] beta^h = (q p) div beta^h + [s != 0] */
        from_words(r, xw, h);
        if (adj[0] >= 0)
            mpz_add_ui(r, r, (unsigned long)adj[0]);
        else
            mpz_sub_ui(r, r, (unsigned long)-adj[0]);
        mpz_set_si(mod, adj[1]);
        mpz_mul_2exp(mod, mod, 64 * h);
        mpz_add(r, r, mod);
        mpz_tdiv_q_2exp(want, want, 64 * h);
        mpz_add_ui(want, want, (unsigned long)cwant);
        MT_CHECK(mpz_cmp(r, want) == 0, "mulhi_known h=%zu fast=%d", h, fast);
        free(qw);
        free(pw);
        free(sw);
        free(xw);
        free(sc);
    }
    mpz_clears(a, b, r, want, mod, NULL);
}

/* The ring accumulators (modulo beta^K - 1), as the execution uses them:
 * terms added and subtracted at any offset by two "workers", each settled,
 * then summed and finished; the total is made congruent to a chosen R <
 * beta^(K-1) by a last term, and R must come out exactly (0 and the largest
 * R included). */
static void test_ring(void)
{
    mpz_t R, v, x, mod, got;
    mpz_inits(R, v, x, mod, got, NULL);
    for (int it = 0; it < 400; it++) {
        size_t K = 2 + mt_below(it < 300 ? 20 : 300);
        mpz_set_ui(mod, 0);
        mpz_setbit(mod, 64 * K);
        mpz_sub_ui(mod, mod, 1);
        if (it % 5 == 0)
            mpz_set_ui(R, 0);
        else if (it % 5 == 1) {
            mpz_set_ui(R, 0);
            mpz_setbit(R, 64 * (K - 1));
            mpz_sub_ui(R, R, 1);
        } else
            mpz_urandomb(R, mt_rand, 64 * (K - 1));
        uint64_t *acc[2], *xw = calloc(3 * K, 8);
        int64_t *d[2], e[2];
        for (int w = 0; w < 2; w++) {
            acc[w] = calloc(K, 8);
            d[w] = calloc(K, 8);
        }
        mpz_set_ui(v, 0);
        int terms = 1 + (int)mt_below(12);
        for (int k = 0; k <= terms; k++) {
            size_t xn = 1 + mt_below(k == terms ? K : 3 * K), off = mt_below(K);
            int sub = k < terms && mt_below(2), w = (int)mt_below(2);
            if (k == terms) {
                /* the last term brings the sum to R modulo beta^K - 1 */
                mpz_sub(x, R, v);
                mpz_mod(x, x, mod);
                off = 0;
                xn = K;
            } else
                operand_c(x, xn, (int)mt_below(4));
            to_words(xw, xn, x);
            if (sub)
                mns_mpart_ring_sub(acc[w], d[w], K, off, xw, xn);
            else
                mns_mpart_ring_add(acc[w], d[w], K, off, xw, xn);
            mpz_mul_2exp(x, x, 64 * off);
            if (sub)
                mpz_sub(v, v, x);
            else
                mpz_add(v, v, x);
        }
        int64_t tot = 0;
        for (int w = 0; w < 2; w++)
            tot += e[w] = mns_mpart_ring_settle(acc[w], d[w], K);
        tot += (int64_t)mpn_add_n((mp_ptr)acc[0], (mp_srcptr)acc[0], (mp_srcptr)acc[1], (mp_size_t)K);
        mns_mpart_ring_finish(acc[0], K, tot);
        from_words(got, acc[0], K);
        MT_CHECK(mpz_cmp(got, R) == 0, "ring K=%zu terms=%d", K, terms);
        for (int w = 0; w < 2; w++) {
            free(acc[w]);
            free(d[w]);
        }
        free(xw);
    }
    mpz_clears(R, v, x, mod, got, NULL);
}

/* two user threads hammering one context: results must match GMP (the
 * second one finds the pool busy and runs on its own buffers) */
typedef struct share {
    mns_field *f;
    const mpz_t *p;
    int bad;
    unsigned long seed;
} share;

static void *hammer(void *arg)
{
    share *s = arg;
    size_t L = mns_field_limbs(s->f);
    uint64_t *A = calloc(L, 8), *B = calloc(L, 8), *R = calloc(L, 8);
    mpz_t a, b, got, want;
    mpz_inits(a, b, got, want, NULL);
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, s->seed);
    for (int i = 0; i < 300; i++) {
        mpz_urandomm(a, rs, *s->p);
        mpz_urandomm(b, rs, *s->p);
        mns_field_set_mpz(s->f, A, a);
        mns_field_set_mpz(s->f, B, b);
        if (i % 2)
            mns_field_mul(s->f, R, A, B);
        else {
            mns_field_sqr(s->f, R, A);
            mpz_set(b, a);
        }
        mns_field_get_mpz(s->f, got, R);
        mpz_mul(want, a, b);
        mpz_mod(want, want, *s->p);
        s->bad += mpz_cmp(got, want) != 0;
    }
    gmp_randclear(rs);
    mpz_clears(a, b, got, want, NULL);
    free(A);
    free(B);
    free(R);
    return NULL;
}

static void test_shared(const char *spec, size_t bits)
{
    mpz_t p;
    mpz_init(p);
    mt_modulus(p, bits, MT_MOD_RANDOM);
    mns_field *f = NULL;
    MT_CHECK(mns_field_new(&f, p, spec) == MNS_OK, "%s: %s", spec, mns_last_error());
    if (f) {
        share s[3];
        pthread_t th[3];
        for (int i = 0; i < 3; i++) {
            s[i] = (share){f, (const mpz_t *)&p, 0, mt_seed + 17 * (unsigned long)i};
            pthread_create(&th[i], NULL, hammer, &s[i]);
        }
        for (int i = 0; i < 3; i++) {
            pthread_join(th[i], NULL);
            MT_CHECK(s[i].bad == 0, "%s shared by 3 threads: %d wrong", spec, s[i].bad);
        }
        mns_field_free(f);
    }
    mpz_clear(p);
}

/* The pool on its own: every share of every job runs exactly once, whether
 * its worker runs it or the caller takes it over (independent jobs). Sleeps
 * between some jobs let the workers park, so that the caller finds shares
 * not started and takes them; jobs with a barrier are never taken over. */
typedef struct {
    _Atomic int runs[8];
    _Atomic int took_over;
    pthread_t caller;
    mns_pool *pool;
    int barrier;
} pool_probe;

static void probe_share(void *arg, int w)
{
    pool_probe *pr = arg;
    atomic_fetch_add(&pr->runs[w], 1);
    if (w != 0 && pthread_equal(pthread_self(), pr->caller))
        atomic_fetch_add(&pr->took_over, 1);
    if (pr->barrier)
        mns_pool_barrier(pr->pool);
}

static void test_pool(void)
{
    for (int T = 2; T <= 4; T++) {
        mns_pool *pool = mns_pool_new(T);
        MT_CHECK(pool != NULL && mns_pool_size(pool) == T, "pool of %d", T);
        if (!pool)
            continue;
        int took = 0;
        for (int job = 0; job < 400; job++) {
            pool_probe pr;
            memset(&pr, 0, sizeof pr);
            pr.caller = pthread_self();
            pr.pool = pool;
            pr.barrier = job % 5 == 4;
            if (job % 7 == 0) {
                struct timespec ts = {0, 3000000}; /* 3 ms: the workers park */
                nanosleep(&ts, NULL);
            }
            mns_pool_run(pool, probe_share, &pr, sizeof pr, !pr.barrier);
            for (int w = 0; w < T; w++)
                MT_CHECK(atomic_load(&pr.runs[w]) == 1, "pool T=%d job %d: share %d ran %d times",
                         T, job, w, atomic_load(&pr.runs[w]));
            MT_CHECK(!pr.barrier || atomic_load(&pr.took_over) == 0,
                     "pool T=%d job %d: a share of a job with a barrier was taken over", T, job);
            took += atomic_load(&pr.took_over);
        }
        printf("pool T=%d: %d shares taken over by the caller in 400 jobs\n", T, took);
        mns_pool_free(pool);
    }
}

static void test_bad_options(void)
{
    mpz_t p;
    mpz_init_set_ui(p, 1000003);
    static const char *bad[] = {"mpart:k=0", "mpart:threads=0", "mpart:k=65", "mpart:plan=x",
                                "mpart:threads=two", "mpart:s=3", "bipartite:k=2",
                                "mpart-mont:k=2", "mpart-barrett:threads=-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mns_field *f = NULL;
        mns_status st = mns_field_new(&f, p, bad[i]);
        MT_CHECK(st == MNS_EINVAL && f == NULL, "%s: got %s", bad[i], mns_strerror(st));
    }
    mpz_clear(p);
}

int main(void)
{
    mt_init(MPART_TEST_NAME);
    test_pmr_pbr();
    test_pbr_q_bound();
    test_fold();
    test_short_products();
    test_ring();
    test_pool();
    test_bad_options();

    mpz_t p;
    mpz_init(p);
    char spec[64];
    const mt_field_opts full = {.iters = 12, .chain = 60, .powms = 1};
    const mt_field_opts light = {.iters = 3, .chain = 12, .powms = 0};
    const mt_field_opts one = {.iters = 1, .chain = 4, .powms = 0};

    /* every k with every thread count, each pair on one size of the list in
     * turn (so every size and shape is met too); the full cross product runs
     * in test_slow_mpart */
    static const size_t small[] = {3, 64, 127, 521, 1087, 2048, 4096};
    const size_t nsmall = sizeof small / sizeof small[0];
    for (int k = 1; k <= 8; k++)
        for (int T = 1; T <= 4; T++)
            for (size_t i = 0; i < nsmall; i++) {
                if (!MPART_FULL_MATRIX && i != (size_t)(k * 4 + T) % nsmall)
                    continue;
                mt_modulus(p, small[i] < 4 ? 3 : small[i],
                           (mt_mod_kind)((i + (size_t)k + (size_t)T) % MT_MOD_KINDS));
                if (small[i] < 4 || mpz_cmp_ui(p, 3) < 0)
                    mpz_set_ui(p, 3);
                snprintf(spec, sizeof spec, "mpart:k=%d,threads=%d", k, T);
                mt_field_check(spec, p, small[i] >= 1024 && (k + T) % 3 == 0 ? &full : &light);
            }
    /* the schedules that the cost model does not pick by itself, forced */
    mt_modulus(p, 3072, MT_MOD_RANDOM);
    for (int k = 1; k <= 6; k++)
        for (int T = 2; T <= 4; T++) {
            snprintf(spec, sizeof spec, "mpart:k=%d,threads=%d,plan=lpt", k, T);
            mt_field_check(spec, p, &light);
            snprintf(spec, sizeof spec, "mpart:k=%d,threads=%d,plan=chain", k, T);
            mt_field_check(spec, p, &light);
        }
    /* Tables 3 and 4 (k = 4 on 4 and 6 threads) */
    mt_modulus(p, 8192, MT_MOD_RANDOM);
    mt_field_check("mpart:k=4,threads=4", p, &full);
    mt_field_check("mpart:k=4,threads=6", p, &light);
    mt_modulus(p, 8193, MT_MOD_DENSE);
    mt_field_check("mpart:k=4,threads=4", p, &light);

    /* bipartite and the baselines */
    static const size_t mid[] = {64, 1023, 2048, 4097};
    for (size_t i = 0; i < sizeof mid / sizeof mid[0]; i++)
        for (int T = 1; T <= 4; T++) {
            mt_modulus(p, mid[i], (mt_mod_kind)((i + (size_t)T) % MT_MOD_KINDS));
            snprintf(spec, sizeof spec, "bipartite:threads=%d", T);
            mt_field_check(spec, p, &full);
            snprintf(spec, sizeof spec, "mpart-mont:threads=%d", T);
            mt_field_check(spec, p, &light);
            snprintf(spec, sizeof spec, "mpart-barrett:threads=%d", T);
            mt_field_check(spec, p, &light);
        }

    /* large: 8192 to 65536 bits, every k at 8192, a few beyond */
    for (int k = 1; k <= 8; k++) {
        mt_modulus(p, 8192 + (k % 2), (mt_mod_kind)(k % MT_MOD_KINDS));
        snprintf(spec, sizeof spec, "mpart:k=%d,threads=%d", k, 1 + k % 4);
        mt_field_check(spec, p, &light);
    }
    static const size_t big[] = {16384, 32768, 65536};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        mt_modulus(p, big[i] - i, MT_MOD_RANDOM);
        mt_field_check("mpart:threads=2", p, &one);
        mt_field_check("mpart:k=4,threads=4", p, &one);
        mt_field_check("bipartite:threads=2", p, &one);
        if (big[i] <= 32768) {
            mt_field_check("mpart:k=3,threads=3", p, &one);
            mt_field_check("mpart-mont:threads=2", p, &one);
            mt_field_check("mpart-barrett:threads=2", p, &one);
        }
    }
    /* defaults */
    mt_modulus(p, 1024, MT_MOD_PRIME);
    mt_field_check("mpart", p, &light);
    mt_field_check("bipartite", p, &light);

    test_shared("mpart:k=2,threads=2", 4096);
    test_shared("mpart:k=4,threads=4", 2048);
    test_shared("bipartite:threads=2", 3000);
    test_shared("mpart-mont:threads=2", 2048);
    test_shared("mpart-barrett:threads=2", 2048);
    test_shared("mpart:k=3,threads=1", 1500);

    mpz_clear(p);
    return mt_finish();
}
