/* The task schedules of section 4 over a scheme (scheme.c): the paper's Tables 3 and 4 for 4 and 6
 * cores with k = 4, and for any other core count either a "chain" schedule
 * (one thread owns the Montgomery side and its Q_lo P, one the Barrett side
 * and its Q_hi P, the middle products balance the rest; no barrier) or an
 * "lpt" schedule (phase 1 balanced by longest-task-first, one barrier, Q_lo P
 * and Q_hi P cut in T pieces of P). The choice uses a cost model of GMP's
 * multiplication measured on this machine, M(a, b) ~ a b^0.7 for a >= b. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "mpart/mpart.h"

/* Model units: M(a, b) ~ a b^0.7 (a >= b) fits GMP's mpn_mul here from 1 to 6000
 * words; M(128) is about 9400 TSC ticks for 3800 units. A barrier costs about
 * 1000 ticks, a task about 150 (the calls, its additions into the ring). */
#define BARRIER_UNITS 400.0
#define TASK_UNITS 60.0
/* A worker starts its share 640-880 ticks after the caller starts its own
 * (the job's line reaching a spinning worker, measured at 8192 bits on a
 * quiet machine): without a barrier it finishes that much later. */
#define START_UNITS 300.0
/* The hand-over of MP_T_HILO: Q_hi and a borrow's operands cross between the
 * cores, and an atomic on a shared line each side (measured: the Barrett
 * side 10300 ticks when split on two threads, 9330 alone). */
#define HANDOVER_UNITS 150.0

static double cm(size_t a, size_t b)
{
    if (a < b) {
        size_t t = a;
        a = b;
        b = t;
    }
    if (b == 0)
        return 0;
    return (double)a * pow((double)b, 0.7);
}

/* GMP's mpn_mullo_n against mpn_mul_n, and mpn_mulmod_bnm1 at K words
 * against the full n x n/2 product, measured on this machine (docs/mpart.md) */
static double lo_ratio(size_t t)
{
    return t < 48 ? 0.6 : t < 64 ? 0.64 : t < 192 ? 0.77 : t < 400 ? 0.86 : 0.9;
}

static double bnm1_ratio(size_t K) { return K < 1500 ? 0.95 : 0.95 * pow(1500.0 / (double)K, 0.35); }

void mns_mpart_plan_free(mp_plan *pl)
{
    free(pl->start);
    free(pl->tasks);
    pl->start = NULL;
    pl->tasks = NULL;
}

/* ---- building plans ------------------------------------------------------ */

typedef struct builder {
    int T;
    mp_task *list[2][64]; /* per phase, per worker */
    uint32_t len[2][64];
    double load[64];
    uint32_t cap;
} builder;

static int b_init(builder *b, int T, uint32_t cap)
{
    memset(b, 0, sizeof *b);
    b->T = T;
    b->cap = cap;
    for (int ph = 0; ph < 2; ph++)
        for (int w = 0; w < T; w++)
            if (!(b->list[ph][w] = malloc(cap * sizeof(mp_task))))
                return 0;
    return 1;
}

static void b_free(builder *b)
{
    for (int ph = 0; ph < 2; ph++)
        for (int w = 0; w < b->T; w++)
            free(b->list[ph][w]);
}

static void b_add(builder *b, int ph, int w, mp_task t, double cost)
{
    b->list[ph][w][b->len[ph][w]++] = t;
    b->load[w] += cost;
}

static int b_least(const builder *b)
{
    int best = 0;
    for (int w = 1; w < b->T; w++)
        if (b->load[w] < b->load[best])
            best = w;
    return best;
}

static double b_max(const builder *b)
{
    double m = 0;
    for (int w = 0; w < b->T; w++)
        if (b->load[w] > m)
            m = b->load[w];
    return m;
}

static int b_emit(builder *b, mp_plan *pl, int barrier, const char *name, double est)
{
    uint32_t total = 0;
    for (int ph = 0; ph < 2; ph++)
        for (int w = 0; w < b->T; w++)
            total += b->len[ph][w];
    pl->T = b->T;
    pl->barrier = barrier;
    pl->name = name;
    pl->est = est;
    pl->ntasks = total;
    pl->start = calloc(2 * (size_t)b->T + 1, sizeof(uint32_t));
    pl->tasks = calloc(total ? total : 1, sizeof(mp_task));
    if (!pl->start || !pl->tasks)
        return 0;
    uint32_t k = 0;
    for (int w = 0; w < b->T; w++)
        for (int ph = 0; ph < 2; ph++) {
            pl->start[2 * w + ph] = k;
            memcpy(pl->tasks + k, b->list[ph][w], b->len[ph][w] * sizeof(mp_task));
            k += b->len[ph][w];
        }
    pl->start[2 * b->T] = k;
    return 1;
}

/* ---- costs ---------------------------------------------------------------- */

static double piece_cost(size_t an, size_t len) { return cm(an, len) + (double)(an + len) + TASK_UNITS; }

/* A piece cut from a product: GMP's unbalanced products cost more than the
 * model's a b^0.7 says (two pieces of the 65-word Karatsuba middle at 8192
 * bits took 1.36x the whole product, the model says 1.2x). */
static double cut_cost(size_t an, size_t len) { return piece_cost(an, len) + 0.15 * cm(an, len); }

static double group_cost(const mns_mpart_ctx *c, const mp_scheme *s, const mp_group *g)
{
    double cost = TASK_UNITS;
    for (uint32_t k = 0; k < g->count; k++) {
        const mp_prod *p = &s->prods[g->first + k];
        cost += cm(p->an, p->bn) + (double)(p->an + p->bn);
    }
    if (g->lo) {
        size_t sn = g->sz < g->tlo ? g->sz : g->tlo;
        cost += sn == g->tlo && c->fast_lo ? lo_ratio(g->tlo) * cm(g->tlo, g->tlo)
                                           : cm(g->tlo, sn);
    }
    if (g->hi)
        cost += cm(g->thi + 1, g->sz - g->hoff);
    return cost;
}

static double qp_cost(const mns_mpart_ctx *c, const mp_scheme *s, int side, size_t len)
{
    size_t qn = side == MP_LO ? s->qlo_words : s->qhi_words;
    double cost = cm(qn, len) + TASK_UNITS;
    return qn + len > c->K && c->fast_bnm1 ? bnm1_ratio(c->K) * cost : cost;
}

/* the low half product of the Barrett side's Q P (MP_T_HILO), done where it
 * is not the Barrett side's own (hilo_cost + HANDOVER_UNITS then) */
static double hilo_cost(const mns_mpart_ctx *c, const mp_scheme *s)
{
    size_t qn = s->hilo_qn;
    return (c->fast_lo ? lo_ratio(qn) : 1.0) * cm(qn, qn) + TASK_UNITS;
}

/* a one-task side: its group, then (lo) the high half of Q P_0 and Q P_1, or
 * (hi) the low n + 1 words of Q P */
static double side_cost(const mns_mpart_ctx *c, const mp_scheme *s, int side)
{
    const size_t h = c->h, n = c->n;
    if (side == MP_LO) {
        const mp_group *g = &s->groups[s->lo_side];
        int wrap = c->fast_bnm1 && h % 2 == 0 && h >= MNS_MPART_MULHI_BNM1_MIN;
        return group_cost(c, s, g) + (wrap ? (h <= 1024 ? 0.6 : 0.5) : 1.0) * cm(h, h) +
               cm(h, n - h);
    }
    const mp_group *g = &s->groups[s->hi_side];
    size_t qn = g->thi + 1, L = n + 1, m = L > qn ? L - qn : 0;
    return group_cost(c, s, g) + cm(qn, m) + hilo_cost(c, s) - TASK_UNITS;
}

static mp_task task(uint32_t kind, uint32_t side, uint32_t idx, uint32_t pa, uint32_t pb)
{
    mp_task t = {kind, side, idx, pa, pb};
    return t;
}

static int is_mid(const mp_group *g) { return !g->lo && !g->hi; }

/* ---- the middle: products, or the Karatsuba middle, cut where it helps ---- */

/* A task that can be cut along its B side: a product or the Karatsuba middle. */
typedef struct item {
    double cost;
    mp_task t;   /* pa = 0, pb = the words of the B side */
    size_t an;   /* words of the A side (the cost of a piece) */
} item;

static int cmp_item_desc(const void *x, const void *y)
{
    const item *a = x, *b = y;
    return a->cost > b->cost ? -1 : a->cost < b->cost;
}

/* the middle work (and, with groups_too, the group tasks), largest first */
static item *collect(const mns_mpart_ctx *c, const mp_scheme *s, int groups_too, uint32_t *count)
{
    item *v = calloc(s->nprods + s->ngroups + 1, sizeof(item));
    if (!v)
        return NULL;
    uint32_t m = 0;
    for (uint32_t g = 0; g < s->ngroups; g++) {
        const mp_group *gr = &s->groups[g];
        if (s->kara && g == s->kara_group) {
            v[m].an = s->kara_an;
            v[m].cost = piece_cost(s->kara_an, s->kara_bn);
            v[m++].t = task(MP_T_KARA, 0, 0, 0, s->kara_bn);
        } else if (is_mid(gr)) {
            for (uint32_t k = 0; k < gr->count; k++) {
                const mp_prod *p = &s->prods[gr->first + k];
                v[m].an = p->an;
                v[m].cost = piece_cost(p->an, p->bn);
                v[m++].t = task(MP_T_PROD, 0, gr->first + k, 0, p->bn);
            }
        } else if (groups_too) {
            v[m].cost = group_cost(c, s, gr);
            v[m++].t = task(MP_T_GROUP, 0, g, 0, 0);
        }
    }
    qsort(v, m, sizeof(item), cmp_item_desc);
    *count = m;
    return v;
}

/* the longest piece of an A side of an words that costs at most budget */
static size_t piece_len(size_t an, size_t bn, double budget)
{
    size_t lo = 0, hi = bn;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (cut_cost(an, mid) <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Cut its B side into at most T pieces so that the loads come out level
 * (water filling on the cost model), and give piece w to worker w, in phase
 * ph. Pieces below an eighth of it (or 2 words) are not worth a task. */
static void b_fill(builder *b, int ph, const item *it)
{
    const size_t bn = it->t.pb;
    size_t len[64] = {0}, sum = 0;
    double lo = 0, hi = 0;
    for (int w = 0; w < b->T; w++)
        if (b->load[w] > hi)
            hi = b->load[w];
    hi += it->cost;
    for (int iter = 0; iter < 60; iter++) {
        double level = (lo + hi) / 2;
        size_t tot = 0;
        for (int w = 0; w < b->T; w++)
            tot += level > b->load[w] ? piece_len(it->an, bn, level - b->load[w]) : 0;
        if (tot >= bn)
            hi = level;
        else
            lo = level;
    }
    const size_t least_len = bn / 8 > 2 ? bn / 8 : 2;
    for (int w = 0; w < b->T; w++) {
        len[w] = hi > b->load[w] ? piece_len(it->an, bn, hi - b->load[w]) : 0;
        if (len[w] < least_len)
            len[w] = 0;
    }
    /* the level rounds up: trim the longest pieces back to bn words in all, or
     * give what is missing to the least loaded */
    for (int w = 0; w < b->T; w++)
        sum += len[w];
    while (sum > bn) {
        int big = -1;
        for (int w = 0; w < b->T; w++)
            if (len[w] && (big < 0 || b->load[w] + cut_cost(it->an, len[w]) >
                                          b->load[big] + cut_cost(it->an, len[big])))
                big = w;
        size_t cut = sum - bn < len[big] ? sum - bn : len[big];
        len[big] -= cut;
        sum -= cut;
    }
    if (sum < bn) {
        /* to the least loaded worker that has a piece (or to the least loaded) */
        int least = -1;
        for (int w = 0; w < b->T; w++)
            if ((len[w] || !sum) && (least < 0 || b->load[w] + cut_cost(it->an, len[w]) <
                                                     b->load[least] + cut_cost(it->an, len[least])))
                least = w;
        len[least] += bn - sum;
    }
    uint32_t pa = 0;
    for (int w = 0; w < b->T; w++) {
        if (!len[w])
            continue;
        mp_task t = it->t;
        t.pa = pa;
        t.pb = pa + (uint32_t)len[w];
        pa = t.pb;
        b_add(b, ph, w, t, cut_cost(it->an, len[w]));
    }
}

/* the middle items: whole ones largest first to the least loaded, except the
 * largest, which is cut to level the loads at the end */
static void b_middle(builder *b, int ph, const item *v, uint32_t m)
{
    for (uint32_t k = 1; k < m; k++)
        b_add(b, ph, b_least(b), v[k].t, v[k].cost);
    if (m > 0) {
        if (b->T > 1 && v[0].t.kind != MP_T_GROUP)
            b_fill(b, ph, &v[0]);
        else
            b_add(b, ph, b_least(b), v[0].t, v[0].cost);
    }
}

/* ---- the schedules ---------------------------------------------------------- */

/* Each side on one worker (wlo, whi): its groups in phase 1 and its Q P in
 * phase 2, or the one-task side when the scheme has it. The middle groups are
 * not touched (collect() lists them). */
static void b_sides(builder *b, const mns_mpart_ctx *c, const mp_scheme *s, int wlo, int whi,
                    int may_split, int *split)
{
    const size_t n = c->n;
    /* a one-task side where the model finds it cheaper than the group and the
     * wrap-around Q P (which wins at FFT sizes) */
    uint32_t lo1 = s->lo_side, hi1 = s->hi_side;
    *split = 0;
    if (lo1 != UINT32_MAX &&
        side_cost(c, s, MP_LO) >= group_cost(c, s, &s->groups[lo1]) + qp_cost(c, s, MP_LO, n))
        lo1 = UINT32_MAX;
    if (hi1 != UINT32_MAX &&
        side_cost(c, s, MP_HI) >= group_cost(c, s, &s->groups[hi1]) + qp_cost(c, s, MP_HI, n))
        hi1 = UINT32_MAX;
    for (uint32_t g = 0; g < s->ngroups; g++) {
        const mp_group *gr = &s->groups[g];
        if (g == lo1)
            b_add(b, 0, wlo, task(MP_T_LOSIDE, 0, g, 0, 0), side_cost(c, s, MP_LO));
        else if (g == hi1) {
            /* on two threads the low half product of its Q P can move to the
             * Montgomery side's thread (MP_T_HILO) */
            *split = may_split && wlo != whi && s->hilo_m > 0;
            b_add(b, 0, whi, task(MP_T_HISIDE, (uint32_t)*split, g, 0, 0),
                  side_cost(c, s, MP_HI) - (*split ? hilo_cost(c, s) - HANDOVER_UNITS : 0));
        }
        else if (!is_mid(gr))
            b_add(b, 0, gr->hi ? whi : wlo, task(MP_T_GROUP, 0, g, 0, 0), group_cost(c, s, gr));
    }
    if (s->have_lo && lo1 == UINT32_MAX)
        b_add(b, 1, wlo, task(MP_T_QP, MP_LO, 0, 0, (uint32_t)n), qp_cost(c, s, MP_LO, n));
    if (s->have_hi && hi1 == UINT32_MAX)
        b_add(b, 1, whi, task(MP_T_QP, MP_HI, 0, 0, (uint32_t)n), qp_cost(c, s, MP_HI, n));
}

static int plan_seq(mp_plan *pl, const mns_mpart_ctx *c, const mp_scheme *s)
{
    builder b;
    uint32_t m = 0;
    item *v = NULL;
    int ok = b_init(&b, 1, s->nprods + s->ngroups + 4) && (v = collect(c, s, 0, &m));
    if (ok) {
        int split;
        b_sides(&b, c, s, 0, 0, 0, &split);
        for (uint32_t k = 0; k < m; k++)
            b_add(&b, 0, 0, v[k].t, v[k].cost);
        ok = b_emit(&b, pl, 0, "seq", b_max(&b));
    }
    free(v);
    b_free(&b);
    return ok;
}

/* One thread per side, no barrier: valid when no group is both lo and hi.
 * may_split: the Barrett side may leave its low half product (MP_T_HILO) to
 * thread 0. */
static int plan_chain_one(mp_plan *pl, const mns_mpart_ctx *c, const mp_scheme *s, int T,
                          int may_split)
{
    builder b;
    uint32_t m = 0;
    item *v = NULL;
    int ok = b_init(&b, T, s->nprods + s->ngroups + 4) && (v = collect(c, s, 0, &m));
    if (ok) {
        for (int w = 1; w < T; w++)
            b.load[w] = START_UNITS;
        int split;
        b_sides(&b, c, s, 0, T > 1 ? 1 : 0, may_split, &split);
        /* the low half product of the Barrett side's Q P: tried by thread 0
         * after its side, done by thread 1 last if still untaken */
        if (split)
            b_add(&b, 1, 0, task(MP_T_HILO, 0, s->hi_side, 0, 0),
                  hilo_cost(c, s) + HANDOVER_UNITS);
        /* the middle feeds nobody, so it may go to phase 2 of any thread */
        b_middle(&b, 1, v, m);
        if (split)
            b_add(&b, 1, 1, task(MP_T_HILO, 1, s->hi_side, 0, 0), 0);
        ok = b_emit(&b, pl, 0, "chain", b_max(&b));
    }
    free(v);
    b_free(&b);
    return ok;
}

/* The chain schedule, with the Barrett side's low half product moved to
 * thread 0 or kept, whichever the model finds shorter. (Measured at 8192
 * bits on a quiet machine, medians of 1500-3000 calls, several windows:
 * kept, Barrett side whole, the Karatsuba middle cut 53/12 words (what the
 * model picks): 16180-16790 ticks; kept but still handed over, middle cut
 * 57/8: 16550-17130; moved, middle whole on thread 1: 17070-17560. At 16384
 * bits the model moves it, and that measured level with or better than the
 * alternatives.) */
static int plan_chain(mp_plan *pl, const mns_mpart_ctx *c, const mp_scheme *s, int T)
{
    for (uint32_t g = 0; g < s->ngroups; g++)
        if (s->groups[g].lo && s->groups[g].hi)
            return -1;
    if (!plan_chain_one(pl, c, s, T, 0))
        return 0;
    mp_plan alt;
    memset(&alt, 0, sizeof alt);
    if (!plan_chain_one(&alt, c, s, T, 1)) {
        mns_mpart_plan_free(pl);
        return 0;
    }
    if (alt.est < pl->est) {
        mns_mpart_plan_free(pl);
        *pl = alt;
    } else
        mns_mpart_plan_free(&alt);
    return 1;
}

/* Phase 1 by longest task first, one barrier, then Q_lo P and Q_hi P in T
 * pieces of P each (piece w of both sides to worker w). */
static int plan_lpt(mp_plan *pl, const mns_mpart_ctx *c, const mp_scheme *s, int T)
{
    const size_t n = c->n;
    builder b;
    uint32_t m = 0;
    item *v = NULL;
    int ok = b_init(&b, T, s->nprods + s->ngroups + 4) && (v = collect(c, s, 1, &m));
    if (ok) {
        b_middle(&b, 0, v, m);
        double ph1 = b_max(&b), ph2 = 0;
        for (int w = 0; w < T; w++) {
            uint32_t pa = (uint32_t)(n * (size_t)w / (size_t)T);
            uint32_t pb = (uint32_t)(n * (size_t)(w + 1) / (size_t)T);
            if (pb == pa)
                continue;
            double cost = 0;
            if (s->have_lo) {
                b_add(&b, 1, w, task(MP_T_QP, MP_LO, 0, pa, pb), 0);
                cost += qp_cost(c, s, MP_LO, pb - pa);
            }
            if (s->have_hi) {
                b_add(&b, 1, w, task(MP_T_QP, MP_HI, 0, pa, pb), 0);
                cost += qp_cost(c, s, MP_HI, pb - pa);
            }
            if (cost > ph2)
                ph2 = cost;
        }
        ok = b_emit(&b, pl, 1, "lpt", ph1 + BARRIER_UNITS + ph2);
    }
    free(v);
    b_free(&b);
    return ok;
}

/* The paper's Tables 3 (T = 4) and 4 (T = 6), k = 4: groups 0, 1 by PMR,
 * 5, 6 by PBR, the 10 products of i + j = 2, 3, 4 as T2..T11 in that order. */
static int plan_table(mp_plan *pl, const mp_scheme *s, const mns_mpart_ctx *c, int T)
{
    if (c->ka != 4 || c->kb != 4 || s->nprods != 16 || s->ngroups != 7 || s->kara)
        return -1;
    for (uint32_t g = 0; g < 7; g++) {
        int lo = g <= 1, hi = g >= 5;
        if ((int)s->groups[g].lo != lo || (int)s->groups[g].hi != hi)
            return -1;
    }
    /* products T2..T11 = the products of groups 2, 3, 4 (sorted by i) */
    mp_task tt[20];
    tt[0] = task(MP_T_GROUP, 0, 0, 0, 0);
    tt[1] = task(MP_T_GROUP, 0, 1, 0, 0);
    uint32_t k = 2;
    for (uint32_t g = 2; g <= 4; g++)
        for (uint32_t q = 0; q < s->groups[g].count; q++)
            tt[k++] = task(MP_T_PROD, 0, s->groups[g].first + q, 0,
                           s->prods[s->groups[g].first + q].bn);
    tt[12] = task(MP_T_GROUP, 0, 5, 0, 0);
    tt[13] = task(MP_T_GROUP, 0, 6, 0, 0);
    const size_t n = c->n;
    builder b;
    if (!b_init(&b, T, 20))
        return 0;
    int ok;
    if (T == 4) {
        /* Table 3: T14, T15 = (Q0 + b^(n/4) Q1) P_0, P_1; T16, T17 the same
         * with Q2 + Q3; P = P_0 + b^(n/2) P_1 */
        static const int ph1[4][6] = {{0, 2, 3, -1}, {1, 4, 5, 6, -1}, {12, 7, 8, 9, -1},
                                      {13, 10, 11, -1}};
        for (int w = 0; w < 4; w++)
            for (int q = 0; ph1[w][q] >= 0; q++)
                b_add(&b, 0, w, tt[ph1[w][q]], 0);
        uint32_t half = (uint32_t)(n / 2);
        b_add(&b, 1, 0, task(MP_T_QP, MP_LO, 0, 0, half), 0);
        b_add(&b, 1, 1, task(MP_T_QP, MP_LO, 0, half, (uint32_t)n), 0);
        b_add(&b, 1, 2, task(MP_T_QP, MP_HI, 0, 0, half), 0);
        b_add(&b, 1, 3, task(MP_T_QP, MP_HI, 0, half, (uint32_t)n), 0);
        ok = b_emit(&b, pl, 1, "table3", 0);
    } else {
        /* Table 4: T14..T16 = Q_lo P_0, P_1, P_2, T17..T19 = Q_hi P_0..P_2,
         * P in thirds */
        static const int ph1[6][6] = {{0, -1},          {1, 2, -1},  {3, 4, 5, 6, -1},
                                      {7, 8, 9, 10, -1}, {12, 11, -1}, {13, -1}};
        for (int w = 0; w < 6; w++)
            for (int q = 0; ph1[w][q] >= 0; q++)
                b_add(&b, 0, w, tt[ph1[w][q]], 0);
        uint32_t th[4] = {0, (uint32_t)(n / 3), (uint32_t)(2 * n / 3), (uint32_t)n};
        for (int q = 0; q < 3; q++) {
            b_add(&b, 1, q, task(MP_T_QP, MP_LO, 0, th[q], th[q + 1]), 0);
            b_add(&b, 1, 3 + q, task(MP_T_QP, MP_HI, 0, th[q], th[q + 1]), 0);
        }
        ok = b_emit(&b, pl, 1, "table4", 0);
    }
    b_free(&b);
    return ok;
}

static int plan_build(mp_plan *pl, const mp_scheme *s, const mns_mpart_ctx *c, int T);

int mns_mpart_plan_build(mp_plan *pl, const mp_scheme *s, const mns_mpart_ctx *c, int T)
{
    int ok = plan_build(pl, s, c, T);
    pl->s = s;
    return ok;
}

static int plan_build(mp_plan *pl, const mp_scheme *s, const mns_mpart_ctx *c, int T)
{
    memset(pl, 0, sizeof *pl);
    if (T > 64)
        return 0;
    if (T == 1)
        return plan_seq(pl, c, s);
    if ((T == 4 || T == 6) && c->n >= 12 && c->plan_pref == 0) {
        int r = plan_table(pl, s, c, T);
        if (r >= 0)
            return r;
    }
    mp_plan chain, lpt;
    memset(&chain, 0, sizeof chain);
    memset(&lpt, 0, sizeof lpt);
    int rc = c->plan_pref == 2 ? -1 : plan_chain(&chain, c, s, T);
    if (rc == 0)
        return 0;
    if (c->plan_pref == 1 && rc > 0) {
        *pl = chain;
        return 1;
    }
    if (!plan_lpt(&lpt, c, s, T)) {
        mns_mpart_plan_free(&chain);
        return 0;
    }
    if (rc > 0 && chain.est <= lpt.est) {
        mns_mpart_plan_free(&lpt);
        *pl = chain;
    } else {
        mns_mpart_plan_free(&chain);
        *pl = lpt;
    }
    return 1;
}

int mns_mpart_default_k(int T)
{
    /* Table 5: 4 -> 4, 6 -> 4, 8 -> 8, 12 -> 6; with 2 or 3 threads k = 2
     * (the chain schedule then matches the bipartite cost, see docs/mpart.md) */
    if (T <= 3)
        return 2;
    if (T <= 7)
        return 4;
    if (T <= 11)
        return 8;
    return 6;
}

int mns_mpart_default_threads(size_t bits)
{
    int cpus = mns_cpu_count();
    if (cpus > 12)
        cpus = 12;
    /* below the measured crossover one thread is faster (docs/mpart.md) */
    if (bits < MNS_MPART_CROSSOVER_BITS)
        return 1;
    return cpus;
}
