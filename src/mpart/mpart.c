/* The `mpart` (k-way multipartite) and `bipartite` (Kaihara-Takagi)
 * backends: context, execution of a schedule on the pool, conversions and
 * the cheap operations. See mpart.h for the arithmetic and
 * include/mns_mpart.h for what a user may rely on. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/tmp.h"
#include "core/words.h"
#include "core/backend.h"
#include "core/cpu.h"
#include "core/ct.h"
#include "core/error.h"
#include "mpart/mpart.h"

typedef unsigned __int128 u128;

/* Per-phase time stamps for studying the schedules (built with
 * -DMNS_MPART_TRACE only; one context at a time): [0] call, [1] all shares
 * done, [2] accumulators summed, [3] result; [4 + 2w], [5 + 2w] share w. */
#ifdef MNS_MPART_TRACE
#include <x86intrin.h>
uint64_t mns_mpart_trace[4 + 2 * 64];
uint64_t mns_mpart_trace_task[64][32]; /* ticks of task k of share w, in plan order */
#define TRACE(i) (mns_mpart_trace[i] = __rdtsc())
#define TRACE_TASK(w, k, t0) (mns_mpart_trace_task[w][(k) & 31] = __rdtsc() - (t0))
#define TRACE_NOW() __rdtsc()
#else
#define TRACE(i) ((void)0)
#define TRACE_TASK(w, k, t0) ((void)(t0))
#define TRACE_NOW() 0
#endif

/* s (sn words) += x (xn words) at word off, carry carried to the end of s,
 * without a data-dependent exit */
static void add_into(uint64_t *s, size_t sn, size_t off, const uint64_t *x, size_t xn)
{
    uint64_t c = mpn_add_n((mp_ptr)(s + off), (mp_srcptr)(s + off), (mp_srcptr)x, (mp_size_t)xn);
    for (size_t i = off + xn; i < sn; i++) {
        u128 t = (u128)s[i] + c;
        s[i] = (uint64_t)t;
        c = (uint64_t)(t >> 64);
    }
}

static void product(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn,
                    int square)
{
    if (square && a == b && an == bn)
        mpn_sqr((mp_ptr)r, (mp_srcptr)a, (mp_size_t)an);
    else
        mns_mpart_mul_any(r, a, an, b, bn);
}

/* ---- execution ------------------------------------------------------------ */

/* What a call hands to the workers: 32 bytes, which travel in the pool's own
 * cache line with the job's generation (pool.c), so a worker's first miss
 * brings it all. */
typedef struct mp_job {
    const mns_mpart_ctx *c;
    const mp_plan *pl; /* the pool's or the one-thread plan of a scheme (pl->s) */
    const uint64_t *a, *b;
} mp_job;

/* The same, unfolded for one share. */
typedef struct mp_run {
    const mns_mpart_ctx *c;
    const mp_scheme *s;
    const mp_plan *pl;
    mp_exec *ex;
    const uint64_t *a, *b;
    int square;
    mns_pool *pool; /* NULL: no barrier to keep */
} mp_run;

/* The hand-over between MP_T_HISIDE (split) and MP_T_HILO, in one cache line
 * of the execution's block. call: the number of the current call (set by the
 * caller before it starts the workers); qhi_ready = call once Q_hi is in the
 * Q area; tx_claim: MP_T_HILO runs where an exchange first puts call there;
 * pair: two increments a call (one after each of the two halves), the one
 * that finds an odd count is the second and settles the borrow between them. */
struct mp_sync {
    _Atomic uint64_t call, qhi_ready, tx_claim, pair;
};

/* per worker: acc (K words), d (K signed counts), e (the settled carry, one
 * cache line), then the task scratch */
static size_t exec_words(const mns_mpart_ctx *c, int T, size_t *per_worker, size_t *qarea)
{
    size_t qa = c->mul.qarea > c->sqr.qarea ? c->mul.qarea : c->sqr.qarea;
    *per_worker = (2 * c->K + 8 + c->task_scratch + 7) / 8 * 8;
    *qarea = qa;
    return (size_t)T * *per_worker + 8 + qa + mns_mpart_fold_scratch(&c->fold);
}

/* ex over `block` (exec_words words, 64-byte aligned) */
static void exec_bind(mp_exec *ex, const mns_mpart_ctx *c, int T, uint64_t *block)
{
    size_t pw, qa;
    (void)exec_words(c, T, &pw, &qa);
    ex->T = T;
    ex->per_worker = pw;
    ex->block = block;
    ex->sync = (struct mp_sync *)(ex->block + (size_t)T * pw); /* a line: pw is a multiple of 8 */
    atomic_init(&ex->sync->call, 0);
    atomic_init(&ex->sync->qhi_ready, 0);
    atomic_init(&ex->sync->tx_claim, 0);
    atomic_init(&ex->sync->pair, 0);
    ex->qarea = ex->block + (size_t)T * pw + 8;
    ex->fin = ex->qarea + qa;
}

static int exec_init(mp_exec *ex, const mns_mpart_ctx *c, int T)
{
    size_t pw, qa;
    uint64_t *block = mns_alloc64(exec_words(c, T, &pw, &qa) * sizeof(uint64_t));
    if (!block)
        return 0;
    exec_bind(ex, c, T, block);
    return 1;
}

/* word of the ring where weight w lands after the division by beta^h */
static size_t ring_off(const mns_mpart_ctx *c, size_t w) { return (w + c->K - c->h % c->K) % c->K; }

/* S (g->sz words) <- the sum of group g's products; tmp: scratch for one
 * product. Returns the first word of tmp that is free again. */
static uint64_t *group_sum(const mp_run *j, const mp_group *g, uint64_t *S, uint64_t *tmp)
{
    const mp_scheme *s = j->s;
    const mp_prod *p0 = &s->prods[g->first];
    if (g->count == 1 && !p0->twice && g->sz == p0->an + p0->bn) {
        /* one product: it is the sum */
        product(S, j->a + p0->aoff, p0->an, j->b + p0->boff, p0->bn, j->square && p0->i == p0->j);
        return tmp;
    }
    size_t maxp = 0;
    memset(S, 0, g->sz * sizeof(uint64_t));
    for (uint32_t k = 0; k < g->count; k++) {
        const mp_prod *p = &s->prods[g->first + k];
        size_t pn = p->an + p->bn;
        if (pn > maxp)
            maxp = pn;
        product(tmp, j->a + p->aoff, p->an, j->b + p->boff, p->bn, j->square && p->i == p->j);
        add_into(S, g->sz, p->w - g->w, tmp, pn);
        if (p->twice)
            add_into(S, g->sz, p->w - g->w, tmp, pn);
    }
    return tmp + maxp;
}

/* The Montgomery side in one task (a scheme whose only lo group is at weight
 * 0 with t = h, section 3.4 with one group): Y = (S + Q P) / beta^h with Q = S
 * mu mod beta^h, added to the ring at weight h. With P = P_0 + P_1 beta^h and
 * X = Q P_0, X = -S mod beta^h is known, so only X's high half is computed
 * (mns_mpart_mulhi_known), and Y = S div beta^h + X div beta^h + [S mod
 * beta^h != 0] + Q P_1 (the middle two as that function returns them). */
static void lo_side(const mp_run *j, const mp_group *g, uint64_t *acc, int64_t *d, uint64_t *scr)
{
    const mns_mpart_ctx *c = j->c;
    const size_t h = c->h, n = c->n, K = c->K, off = ring_off(c, h);
    uint64_t *S = scr, *q = S + g->sz, *x = q + h, *tmp = x + n + 2;
    tmp = group_sum(j, g, S, tmp);
    if (g->kara_sub)
        mns_mpart_ring_sub(acc, d, K, ring_off(c, j->s->kara_w), S, g->sz);
    mns_mpart_pmr_q(q, S, g->sz, c->mu, h, tmp, c->fast_lo);
    int64_t adj[2];
    mns_mpart_mulhi_known(x, adj, q, c->p, h, S, tmp, c->fast_bnm1);
    mns_mpart_ring_add(acc, d, K, off, S + h, g->sz - h);
    mns_mpart_ring_add(acc, d, K, off, x, h);
    d[off] += adj[0];
    d[ring_off(c, 2 * h)] += adj[1];
    mns_mpart_mul_any(x, q, h, c->p + h, n - h);
    mns_mpart_ring_add(acc, d, K, off, x, n);
}

/* The second of MP_T_HISIDE (split) and MP_T_HILO to get here settles the
 * borrow between them: R_hi = V - lo2 beta^m + j beta^(n+1), j = [V < lo2
 * beta^m] = [V div beta^m < lo2], added at the word n + 1 of R. */
static void hilo_pair(const mp_run *j, int64_t *d, uint64_t *tmp)
{
    const mp_scheme *s = j->s;
    uint64_t old = atomic_fetch_add_explicit(&j->ex->sync->pair, 1, memory_order_acq_rel);
    if (old & 1) {
        const uint64_t *qa = j->ex->qarea;
        uint64_t bw = mpn_sub_n((mp_ptr)tmp, (mp_srcptr)(qa + s->slot_v),
                                (mp_srcptr)(qa + s->slot_lo2), (mp_size_t)s->hilo_qn);
        d[ring_off(j->c, j->c->h + j->c->n + 1)] += (int64_t)bw;
    }
}

/* The Barrett side in one task (a scheme with one hi group, and it not lo):
 * R = S beta^(w-h) - Q P, which PBR leaves below beta^n + 2P < beta^(n+1), so
 * computed modulo beta^(n+1) only: with P = P' + P'' beta^m, m = n + 1 - qn,
 * Q P' whole and Q P'' mod beta^qn (the low half product), added to the ring
 * at weight h. split: the low half product is MP_T_HILO's, and this task
 * publishes Q and V = S beta^(w-h) - Q P' mod beta^(n+1) for it. */
static void hi_side(const mp_run *j, const mp_group *g, uint64_t *acc, int64_t *d, uint64_t *scr,
                    int split)
{
    const mns_mpart_ctx *c = j->c;
    const size_t h = c->h, n = c->n, K = c->K, L = n + 1, sh = g->w - h, qn = g->thi + 1;
    uint64_t *S = scr, *q = split ? j->ex->qarea + g->qhi : S + g->sz, *v = S + g->sz + qn,
             *qp = v + L, *tmp = qp + L;
    tmp = group_sum(j, g, S, tmp);
    if (g->kara_sub)
        mns_mpart_ring_sub(acc, d, K, ring_off(c, j->s->kara_w), S, g->sz);
    mns_mpart_pbr_q(q, S + g->hoff, g->sz - g->hoff, g->hpad, c->nu + (c->tmax - g->thi), tmp);
    memset(v, 0, L * sizeof(uint64_t));
    if (sh < L)
        memcpy(v + sh, S, (g->sz < L - sh ? g->sz : L - sh) * sizeof(uint64_t));
    if (!split) {
        mns_mpart_mullo_any(qp, L, q, qn, c->p, n, tmp, c->fast_lo);
        mpn_sub_n((mp_ptr)v, (mp_srcptr)v, (mp_srcptr)qp, (mp_size_t)L);
        mns_mpart_ring_add(acc, d, K, ring_off(c, h), v, L);
        return;
    }
    struct mp_sync *sy = j->ex->sync;
    atomic_store_explicit(&sy->qhi_ready, atomic_load_explicit(&sy->call, memory_order_relaxed),
                          memory_order_release);
    const size_t m = j->s->hilo_m;
    mns_mpart_mul_any(qp, q, qn, c->p, m);
    mpn_sub_n((mp_ptr)v, (mp_srcptr)v, (mp_srcptr)qp, (mp_size_t)L);
    mns_mpart_ring_add(acc, d, K, ring_off(c, h), v, L);
    memcpy(j->ex->qarea + j->s->slot_v, v + m, qn * sizeof(uint64_t));
    hilo_pair(j, d, tmp);
}

/* The low half product of the Barrett side's Q P (see hi_side), on whichever
 * thread claims it first: if_ready = 1 only if Q_hi is ready (the Montgomery
 * side's thread), else unconditionally (the Barrett side's own, last). */
static void hilo(const mp_run *j, int if_ready, uint64_t *acc, int64_t *d, uint64_t *scr)
{
    const mns_mpart_ctx *c = j->c;
    const mp_scheme *s = j->s;
    struct mp_sync *sy = j->ex->sync;
    uint64_t call = atomic_load_explicit(&sy->call, memory_order_relaxed);
    if (if_ready && atomic_load_explicit(&sy->qhi_ready, memory_order_acquire) != call)
        return;
    if (atomic_exchange_explicit(&sy->tx_claim, call, memory_order_acq_rel) == call)
        return;
    const size_t qn = s->hilo_qn, m = s->hilo_m, rest = c->n - m;
    const uint64_t *q = j->ex->qarea + s->groups[s->hi_side].qhi;
    uint64_t *bh = scr, *lo2 = j->ex->qarea + s->slot_lo2, *tmp = bh + qn;
    memcpy(bh, c->p + m, rest * sizeof(uint64_t));
    memset(bh + rest, 0, (qn - rest) * sizeof(uint64_t));
    mns_mpart_mullo(lo2, q, bh, qn, tmp, c->fast_lo);
    mns_mpart_ring_sub(acc, d, c->K, ring_off(c, c->h + m), lo2, qn);
    hilo_pair(j, d, tmp);
}

static void run_task(const mp_run *j, const mp_task *t, uint64_t *acc, int64_t *d, uint64_t *scr)
{
    const mns_mpart_ctx *c = j->c;
    const mp_scheme *s = j->s;
    const size_t K = c->K;
    uint64_t *qarea = j->ex->qarea;
    switch (t->kind) {
    case MP_T_PROD: {
        /* A_i times the words [pa, pb) of B_j */
        const mp_prod *p = &s->prods[t->idx];
        size_t len = t->pb - t->pa, off = ring_off(c, p->w + t->pa);
        product(scr, j->a + p->aoff, p->an, j->b + p->boff + t->pa, len,
                j->square && p->i == p->j && len == p->bn);
        mns_mpart_ring_add(acc, d, K, off, scr, p->an + len);
        if (p->twice)
            mns_mpart_ring_add(acc, d, K, off, scr, p->an + len);
        break;
    }
    case MP_T_KARA: {
        /* (A_0 + A_1) times the words [pa, pb) of B_0 + B_1, at the weight of
         * the middle; groups 0 and 2 subtract A_0 B_0 and A_1 B_1 there */
        const size_t ca = c->ca, cb = c->cb, an = s->kara_an, len = t->pb - t->pa;
        uint64_t *sa = scr, *sb = sa + an, *pr = sb + s->kara_bn;
        sa[ca] = mpn_add(sa, j->a, ca, j->a + ca, c->n - ca);
        sb[cb] = mpn_add(sb, j->b, cb, j->b + cb, c->n - cb);
        mns_mpart_mul_any(pr, sa, an, sb + t->pa, len);
        mns_mpart_ring_add(acc, d, K, ring_off(c, s->kara_w + t->pa), pr, an + len);
        break;
    }
    case MP_T_GROUP: {
        const mp_group *g = &s->groups[t->idx];
        uint64_t *S = scr, *qt = group_sum(j, g, S, S + g->sz);
        mns_mpart_ring_add(acc, d, K, ring_off(c, g->w), S, g->sz);
        if (g->kara_sub)
            mns_mpart_ring_sub(acc, d, K, ring_off(c, s->kara_w), S, g->sz);
        if (g->lo)
            mns_mpart_pmr_q(qarea + g->qlo, S, g->sz, c->mu, g->tlo, qt, c->fast_lo);
        if (g->hi)
            mns_mpart_pbr_q(qarea + g->qhi, S + g->hoff, g->sz - g->hoff, g->hpad,
                            c->nu + (c->tmax - g->thi), qt);
        break;
    }
    case MP_T_LOSIDE:
        lo_side(j, &s->groups[t->idx], acc, d, scr);
        break;
    case MP_T_HISIDE:
        hi_side(j, &s->groups[t->idx], acc, d, scr, t->side);
        break;
    case MP_T_HILO:
        hilo(j, !t->side, acc, d, scr);
        break;
    case MP_T_QP: {
        size_t qn = t->side == MP_LO ? s->qlo_words : s->qhi_words;
        uint32_t at = t->side == MP_LO ? s->qlo_at : s->qhi_at;
        uint64_t *q = scr, *pr = q + qn, *tp = pr + K;
        if (at != UINT32_MAX)
            q = qarea + at;
        else {
            memset(q, 0, qn * sizeof(uint64_t));
            for (uint32_t g = 0; g < s->ngroups; g++) {
                const mp_group *gr = &s->groups[g];
                if (t->side == MP_LO && gr->lo)
                    add_into(q, qn, gr->w, qarea + gr->qlo, gr->tlo);
                else if (t->side == MP_HI && gr->hi)
                    add_into(q, qn, 0, qarea + gr->qhi, gr->thi + 1);
            }
        }
        /* R beta^h = ... + Q_lo P - Q_hi P beta^h: modulo beta^K - 1 */
        size_t rn = mns_mpart_mulmod_bnm1(pr, K, q, qn, c->p + t->pa, t->pb - t->pa, tp,
                                          c->fast_bnm1);
        if (t->side == MP_LO)
            mns_mpart_ring_add(acc, d, K, ring_off(c, t->pa), pr, rn);
        else
            mns_mpart_ring_sub(acc, d, K, t->pa % K, pr, rn);
        break;
    }
    }
}

static void run_share(const mp_job *job, mp_exec *ex, int w)
{
    const mns_mpart_ctx *c = job->c;
    const mp_scheme *sch = job->pl->s;
    const mp_run run = {c,       sch,    job->pl, ex, job->a, job->b, sch == &c->sqr,
                        ex == &c->pexec ? c->pool : NULL};
    const mp_run *j = &run;
    const size_t K = j->c->K;
    uint64_t *acc = j->ex->block + (size_t)w * j->ex->per_worker;
    int64_t *d = (int64_t *)(acc + K), *e = d + K;
    uint64_t *scr = acc + 2 * K + 8;
    TRACE(4 + 2 * w);
    memset(acc, 0, 2 * K * sizeof(uint64_t));
    const mp_plan *pl = j->pl;
    for (uint32_t k = pl->start[2 * w]; k < pl->start[2 * w + 2]; k++) {
        if (k == pl->start[2 * w + 1] && pl->barrier && j->pool)
            mns_pool_barrier(j->pool);
        uint64_t t0 = TRACE_NOW();
        run_task(j, &pl->tasks[k], acc, d, scr);
        TRACE_TASK(w, k - pl->start[2 * w], t0);
    }
    if (pl->start[2 * w + 1] == pl->start[2 * w + 2] && pl->barrier && j->pool)
        mns_pool_barrier(j->pool);
    *e = mns_mpart_ring_settle(acc, d, K);
    TRACE(5 + 2 * w);
}

static void run_worker(void *arg, int w)
{
    /* a copy: arg lies in the pool's line, which the next call rewrites */
    const mp_job job = *(const mp_job *)arg;
    run_share(&job, (mp_exec *)&job.c->pexec, w); /* the pool's buffers: the mutable part */
}

/* sum of the accumulators modulo beta^K - 1, R from it, then the fold */
static void finish(const mns_mpart_ctx *c, mp_exec *ex, uint64_t *r)
{
    uint64_t *acc0 = ex->block;
    const size_t K = c->K;
    int64_t e = *(int64_t *)(acc0 + 2 * K);
    for (int w = 1; w < ex->T; w++) {
        const uint64_t *accw = ex->block + (size_t)w * ex->per_worker;
        e += (int64_t)mpn_add_n((mp_ptr)acc0, (mp_srcptr)acc0, (mp_srcptr)accw, (mp_size_t)K);
        e += *(const int64_t *)(accw + 2 * K);
    }
    mns_mpart_ring_finish(acc0, K, e);
    TRACE(2);
    mns_mpart_fold_run(&c->fold, c->p, r, acc0, ex->fin);
    TRACE(3);
}

static void run_scheme(const mns_mpart_ctx *cc, const mp_scheme *s, uint64_t *r, const uint64_t *a,
                       const uint64_t *b)
{
    mns_mpart_ctx *c = (mns_mpart_ctx *)cc; /* the pool and its buffers are the mutable part */
    mp_job j = {c, &s->pool_plan, a, b};
    if (pthread_mutex_trylock(&c->busy) == 0) {
        TRACE(0);
        atomic_fetch_add_explicit(&c->pexec.sync->call, 1, memory_order_relaxed);
        if (c->pool)
            mns_pool_run(c->pool, run_worker, &j, sizeof j, !j.pl->barrier);
        else
            run_share(&j, &c->pexec, 0);
        TRACE(1);
        finish(c, &c->pexec, r);
        pthread_mutex_unlock(&c->busy);
        return;
    }
    /* another thread holds the pool: do the whole product on this thread
     * with buffers of its own on the stack rather than wait, where they fit
     * the per-call scratch bound (no operation allocates) */
    size_t pw, qa;
    if (exec_words(c, 1, &pw, &qa) <= MNS_SCRATCH_WORDS) {
        mns_tmp tmp;
        mp_exec ex;
        exec_bind(&ex, c, 1, mns_tmp_get(&tmp, exec_words(c, 1, &pw, &qa)));
        j.pl = &s->seq_plan; /* no MP_T_HILO there */
        run_share(&j, &ex, 0);
        finish(c, &ex, r);
        return;
    }
    pthread_mutex_lock(&c->busy); /* too large for the stack: wait for the pool */
    atomic_fetch_add_explicit(&c->pexec.sync->call, 1, memory_order_relaxed);
    if (c->pool)
        mns_pool_run(c->pool, run_worker, &j, sizeof j, !j.pl->barrier);
    else
        run_share(&j, &c->pexec, 0);
    finish(c, &c->pexec, r);
    pthread_mutex_unlock(&c->busy);
}

/* ---- field operations ------------------------------------------------------- */

static void mp_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_mpart_ctx *c = ctx;
    run_scheme(c, &c->mul, r, a, b);
}

static void mp_sqr(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_mpart_ctx *c = ctx;
    if (c->sqr_is_mul)
        run_scheme(c, &c->mul, r, a, a);
    else
        run_scheme(c, &c->sqr, r, a, a);
}

static void mp_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_mpart_ctx *c = ctx;
    uint64_t cy = mpn_add_n((mp_ptr)r, (mp_srcptr)a, (mp_srcptr)b, (mp_size_t)c->n);
    mns_mpart_csub(r, cy, c->p, c->n);
}

static void mp_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_mpart_ctx *c = ctx;
    uint64_t bw = mpn_sub_n((mp_ptr)r, (mp_srcptr)a, (mp_srcptr)b, (mp_size_t)c->n);
    mpn_cnd_add_n(bw, (mp_ptr)r, (mp_srcptr)r, (mp_srcptr)c->p, (mp_size_t)c->n);
}

static void mp_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_mpart_ctx *c = ctx;
    if (r != a)
        memcpy(r, a, c->n * sizeof(uint64_t));
    mns_mpart_csub(r, 0, c->p, c->n);
}

static void mp_one(const void *ctx, uint64_t *r)
{
    const mns_mpart_ctx *c = ctx;
    memcpy(r, c->one, c->n * sizeof(uint64_t));
}

static mns_status mp_set_mpz(const void *ctx, uint64_t *r, const mpz_t a)
{
    const mns_mpart_ctx *c = ctx;
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, a, c->pz);
    mpz_mul_2exp(t, t, 64 * c->h);
    mpz_mod(t, t, c->pz);
    mns_words_from_mpz(r, c->n, t);
    mpz_clear(t);
    return MNS_OK;
}

static void mp_get_mpz(const void *ctx, mpz_t r, const uint64_t *a)
{
    const mns_mpart_ctx *c = ctx;
    mpz_import(r, c->n, -1, sizeof(uint64_t), 0, 0, a);
    mpz_mul(r, r, c->rinv);
    mpz_mod(r, r, c->pz);
}

/* The constant-time entry and exit: the product's own reduction moves a
 * value in and out of the domain (x beta^2h beta^-h = x beta^h, and
 * X 1 beta^-h = x), and a masked subtraction makes the exit canonical. */
static void mp_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_mpart_ctx *c = ctx;
    mp_mul(ctx, r, a, c->r2);
}

static void mp_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_mpart_ctx *c = ctx;
    mp_mul(ctx, r, a, c->unit);
    mns_mpart_csub(r, 0, c->p, c->n);
}

static void mp_destroy(void *ctx)
{
    mns_mpart_ctx *c = ctx;
    if (!c)
        return;
    mns_pool_free(c->pool);
    pthread_mutex_destroy(&c->busy);
    mns_mpart_scheme_free(&c->mul);
    if (!c->sqr_is_mul)
        mns_mpart_scheme_free(&c->sqr);
    free(c->pexec.block);
    free(c->p);
    free(c->mu);
    free(c->nu);
    free(c->one);
    free(c->r2);
    free(c->unit);
    mns_mpart_fold_clear(&c->fold);
    mpz_clears(c->pz, c->rinv, NULL);
    free(c);
}

static const mns_field_ops mpart_ops = {
    .mul = mp_mul,
    .sqr = mp_sqr,
    .add = mp_add,
    .sub = mp_sub,
    .reduce = mp_reduce,
    .one = mp_one,
    .set_mpz = mp_set_mpz,
    .get_mpz = mp_get_mpz,
    .set_words = mp_set_words,
    .get_words = mp_get_words,
    .powm = NULL, /* the shared fixed-window exponentiation over mul and sqr */
    .destroy = mp_destroy,
};

/* ---- creation ----------------------------------------------------------------- */

/* The words of p, mu = -p^-1 mod beta^h, one = beta^h mod p, its square
 * r2 and its inverse rinv, and the unit; 0 when memory runs out. */
static int set_constants(mns_mpart_ctx *c, const mpz_t p)
{
    const size_t n = c->n;
    c->p = calloc(n, sizeof(uint64_t));
    c->mu = calloc(c->h, sizeof(uint64_t));
    c->one = calloc(n, sizeof(uint64_t));
    c->r2 = calloc(n, sizeof(uint64_t));
    c->unit = calloc(n, sizeof(uint64_t));
    if (!c->p || !c->mu || !c->one || !c->r2 || !c->unit)
        return 0;
    c->unit[0] = 1;
    mns_words_from_mpz(c->p, n, p);
    mpz_t t, bb;
    mpz_inits(t, bb, NULL);
    mpz_setbit(bb, 64 * c->h);
    mpz_invert(t, p, bb);
    mpz_sub(t, bb, t);
    mns_words_from_mpz(c->mu, c->h, t);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 64 * c->h);
    mpz_mod(t, t, p);
    mns_words_from_mpz(c->one, n, t);
    mpz_invert(c->rinv, t, p);
    mpz_mul(t, t, t);
    mpz_mod(t, t, p);
    mns_words_from_mpz(c->r2, n, t);
    mpz_clears(t, bb, NULL);
    return 1;
}

/* The schemes of the product and the square, and the sizes every call
 * shares: tmax, the folded width F, the ring size K, the task scratch. */
static int build_schemes(mns_mpart_ctx *c)
{
    if (!mns_mpart_scheme_build(&c->mul, c, 0))
        return 0;
    if (c->ka == c->kb) {
        c->sqr_is_mul = 0;
        if (!mns_mpart_scheme_build(&c->sqr, c, 1))
            return 0;
    }
    c->tmax = c->mul.tmax;
    c->F = c->mul.fwords;
    size_t qmax = c->mul.qlo_words > c->mul.qhi_words ? c->mul.qlo_words : c->mul.qhi_words;
    c->task_scratch = c->mul.scratch;
    if (!c->sqr_is_mul) {
        if (c->sqr.tmax > c->tmax)
            c->tmax = c->sqr.tmax;
        if (c->sqr.fwords > c->F)
            c->F = c->sqr.fwords;
        if (c->sqr.qlo_words > qmax)
            qmax = c->sqr.qlo_words;
        if (c->sqr.qhi_words > qmax)
            qmax = c->sqr.qhi_words;
        if (c->sqr.scratch > c->task_scratch)
            c->task_scratch = c->sqr.scratch;
    }
    if (c->F < c->n + 1)
        c->F = c->n + 1;
    /* the ring: R < beta^(K-1) (mns_mpart_ring_finish), and a size GMP's
     * wrap-around product likes */
    c->fast_lo = mns_mpart_have_mullo() && mns_cpu_features() != 0;
    c->fast_bnm1 = mns_mpart_have_bnm1() && mns_cpu_features() != 0;
    c->K = mns_mpart_bnm1_size(c->F + 1, c->fast_bnm1);
    size_t qp = qmax + c->K + mns_mpart_bnm1_scratch(c->K);
    if (qp > c->task_scratch)
        c->task_scratch = qp;
    return 1;
}

/* nu = floor(beta^(n + tmax) / p) (its top t + 1 words are nu_t), the fold
 * and the schedules; 0 when memory runs out. */
static int build_reduction(mns_mpart_ctx *c, const mpz_t p)
{
    c->nu = calloc(c->tmax + 1, sizeof(uint64_t));
    if (!c->nu)
        return 0;
    mpz_t t;
    mpz_init_set_ui(t, 1);
    mpz_mul_2exp(t, t, 64 * (c->n + c->tmax));
    mpz_fdiv_q(t, t, p);
    mns_words_from_mpz(c->nu, c->tmax + 1, t);
    mpz_clear(t);
    if (!mns_mpart_fold_init(&c->fold, p, c->F))
        return 0;
    if (!mns_mpart_plan_build(&c->mul.seq_plan, &c->mul, c, 1) ||
        !mns_mpart_plan_build(&c->mul.pool_plan, &c->mul, c, c->T))
        return 0;
    if (!c->sqr_is_mul && (!mns_mpart_plan_build(&c->sqr.seq_plan, &c->sqr, c, 1) ||
                           !mns_mpart_plan_build(&c->sqr.pool_plan, &c->sqr, c, c->T)))
        return 0;
    return exec_init(&c->pexec, c, c->T);
}

static mns_status create_common(mns_backend_inst *out, const mpz_t p, const char *name,
                                long ka, long kb, long T, int plan_pref)
{
    mns_mpart_ctx *c = mns_alloc64(sizeof *c);
    if (!c)
        return mns_error(MNS_ENOMEM, "%s: out of memory", name);
    memset(c, 0, sizeof *c);
    mpz_inits(c->pz, c->rinv, NULL);
    pthread_mutex_init(&c->busy, NULL);
    c->sqr_is_mul = 1;
    const size_t n = mpz_size(p);
    c->n = n;
    c->h = (n + 1) / 2;
    c->plan_pref = plan_pref;
    c->bipartite = ka == 1 && kb == 2;
    /* no empty chunk: c = ceil(n / k), then k = ceil(n / c) */
    if ((size_t)ka > n)
        ka = (long)n;
    if ((size_t)kb > n)
        kb = (long)n;
    c->ca = (n + (size_t)ka - 1) / (size_t)ka;
    c->cb = (n + (size_t)kb - 1) / (size_t)kb;
    c->ka = (n + c->ca - 1) / c->ca;
    c->kb = (n + c->cb - 1) / c->cb;
    c->T = (int)T;
    mpz_set(c->pz, p);
    if (!set_constants(c, p) || !build_schemes(c) || !build_reduction(c, p)) {
        mp_destroy(c);
        return mns_error(MNS_ENOMEM, "%s: out of memory", name);
    }
    if (c->T > 1 && !(c->pool = mns_pool_new(c->T))) {
        mp_destroy(c);
        return mns_error(MNS_ENOMEM, "%s: cannot start %d threads", name, (int)T);
    }
    out->ctx = c;
    out->ops = &mpart_ops;
    out->limbs = n;
    out->delta = INT_MAX;
    snprintf(out->describe, sizeof out->describe,
             "%s kernel=gmp-mpn lo=%s qp=%s k=%zux%zu threads=%d plan=%s barrier=%d limbs=%zu "
             "bits=%zu h=%zu F=%zu K=%zu",
             name, c->fast_lo ? "mullo" : "full", c->fast_bnm1 ? "bnm1" : "full", c->ka, c->kb,
             c->T, c->mul.pool_plan.name, c->mul.pool_plan.barrier, n, mpz_sizeinbase(p, 2), c->h,
             c->F, c->K);
    return MNS_OK;
}

static mns_status parse_threads(const mns_opts *opts, const char *name, const mpz_t p, long *T)
{
    *T = mns_mpart_default_threads(mpz_sizeinbase(p, 2));
    return mns_opts_get_long(opts, name, "threads", 1, 64, T);
}

static mns_status parse_plan(const mns_opts *opts, const char *name, int *pref)
{
    const char *v = mns_opts_get(opts, "plan");
    *pref = 0;
    if (!v || strcmp(v, "auto") == 0)
        return MNS_OK;
    if (strcmp(v, "chain") == 0)
        *pref = 1;
    else if (strcmp(v, "lpt") == 0)
        *pref = 2;
    else
        return mns_error(MNS_EINVAL, "%s: unknown plan \"%s\" (auto, chain, lpt)", name, v);
    return MNS_OK;
}

static const char *const mpart_options[] = {"k", "threads", "plan", NULL};

static mns_status mpart_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    mns_status st = mns_opts_check(opts, "mpart", mpart_options);
    long T, k;
    int pref;
    if (st != MNS_OK || (st = parse_threads(opts, "mpart", p, &T)) != MNS_OK ||
        (st = parse_plan(opts, "mpart", &pref)) != MNS_OK)
        return st;
    k = mns_mpart_default_k((int)T);
    if ((st = mns_opts_get_long(opts, "mpart", "k", 1, 64, &k)) != MNS_OK)
        return st;
    return create_common(out, p, "mpart", k, k, T, pref);
}

static const char *const bipartite_options[] = {"threads", "plan", NULL};

static mns_status bipartite_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    mns_status st = mns_opts_check(opts, "bipartite", bipartite_options);
    long T;
    int pref;
    if (st != MNS_OK || (st = parse_threads(opts, "bipartite", p, &T)) != MNS_OK ||
        (st = parse_plan(opts, "bipartite", &pref)) != MNS_OK)
        return st;
    /* Kaihara-Takagi: A whole, B in two halves; A B_0 by PMR, A B_1 by PBR */
    return create_common(out, p, "bipartite", 1, 2, T, pref);
}

const mns_backend mns_backend_mpart = {"mpart", mpart_create};
const mns_backend mns_backend_bipartite = {"bipartite", bipartite_create};
