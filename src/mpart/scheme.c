/* The multipartite scheme of a field: the products A_i B_j of the split
 * operands, their groups by weight w (each group one Montgomery or Barrett
 * quotient Q_g, or both, per Algorithms 1 and 2), the sizes of the Q area and
 * of the scratch, and the bound on the folded sum. Built once per field;
 * the schedules (plan.c) and the multiplication (mpart.c) read it. */
#include <stdlib.h>
#include <string.h>

#include "mpart/mpart.h"

static int cmp_prod_w(const void *x, const void *y)
{
    const mp_prod *a = x, *b = y;
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    if (a->i != b->i)
        return a->i < b->i ? -1 : 1;
    return a->j < b->j ? -1 : (a->j > b->j);
}

static size_t words_of(const mpz_t x) { return mpz_sgn(x) ? mpz_size(x) : 0; }

/* The products A_i B_j (i <= j for a square, the others counted twice),
 * sorted by weight. */
static void list_products(mp_scheme *s, const mns_mpart_ctx *c, int square)
{
    const size_t n = c->n;
    uint32_t np = 0;
    for (size_t i = 0; i < c->ka; i++)
        for (size_t j = 0; j < c->kb; j++) {
            if (square && j < i)
                continue;
            mp_prod *p = &s->prods[np++];
            p->i = (uint32_t)i;
            p->j = (uint32_t)j;
            p->aoff = (uint32_t)(i * c->ca);
            p->an = (uint32_t)(n - p->aoff < c->ca ? n - p->aoff : c->ca);
            p->boff = (uint32_t)(j * c->cb);
            p->bn = (uint32_t)(n - p->boff < c->cb ? n - p->boff : c->cb);
            p->w = p->aoff + p->boff;
            p->twice = square && i != j;
        }
    s->nprods = np;
    qsort(s->prods, np, sizeof(mp_prod), cmp_prod_w);
}

/* What the group scan accumulates over the groups. */
typedef struct scan {
    size_t qa, maxprod, tmax, grp_scratch, nlo, nhi;
    mpz_t smax, t, bound;
} scan;

/* The remainder of group g, in units of the result (after the division by
 * beta^h), per the bounds of Algorithms 1 and 2, added to the bound. */
static void add_remainder_bound(scan *a, const mns_mpart_ctx *c, const mp_group *g)
{
    const size_t n = c->n, h = c->h;
    if (g->lo && g->hi) {
        mpz_set_ui(a->t, 1);
        mpz_mul_2exp(a->t, a->t, 64 * n);
        mpz_addmul_ui(a->t, c->pz, 3);
        mpz_add_ui(a->t, a->t, 1);
    } else if (g->lo) {
        mpz_cdiv_q_2exp(a->t, a->smax, 64 * (h - g->w));
        mpz_add(a->t, a->t, c->pz);
    } else if (g->hi) {
        mpz_set_ui(a->t, 1);
        mpz_mul_2exp(a->t, a->t, 64 * n);
        mpz_addmul_ui(a->t, c->pz, 2);
    } else {
        mpz_mul_2exp(a->t, a->smax, 64 * (g->w - h));
    }
    mpz_add(a->bound, a->bound, a->t);
}

/* Places of group g's quotients in the Q area, and its scratch. */
static void place_quotients(scan *a, const mns_mpart_ctx *c, mp_group *g)
{
    const size_t n = c->n, h = c->h;
    size_t qtmp = 0;
    if (g->lo) {
        g->tlo = (uint32_t)(h - g->w);
        g->qlo = (uint32_t)a->qa;
        a->qa += g->tlo;
        qtmp = 3 * (size_t)g->tlo;
        a->nlo++;
    }
    if (g->hi) {
        g->hoff = (uint32_t)(n + h > g->w ? n + h - g->w : 0);
        g->hpad = (uint32_t)(g->w > n + h ? g->w - n - h : 0);
        g->thi = g->sz - g->hoff + g->hpad;
        g->qhi = (uint32_t)a->qa;
        a->qa += g->thi + 1;
        if (g->thi > a->tmax)
            a->tmax = g->thi;
        size_t ht = (g->sz - g->hoff) + g->thi + 1;
        if (ht > qtmp)
            qtmp = ht;
        a->nhi++;
    }
    if (g->sz + a->maxprod + qtmp > a->grp_scratch)
        a->grp_scratch = g->sz + a->maxprod + qtmp;
}

/* Groups the sorted products by weight; returns the number of groups. */
static uint32_t build_groups(mp_scheme *s, const mns_mpart_ctx *c, scan *a)
{
    const size_t n = c->n, h = c->h, np = s->nprods;
    uint32_t ng = 0;
    for (uint32_t k = 0; k < np;) {
        mp_group *g = &s->groups[ng];
        g->w = s->prods[k].w;
        g->first = k;
        size_t top = 0;
        mpz_set_ui(a->smax, 0);
        for (; k < np && s->prods[k].w == g->w; k++) {
            mp_prod *p = &s->prods[k];
            p->group = ng;
            size_t pw = p->an + p->bn;
            if (pw > a->maxprod)
                a->maxprod = pw;
            if (p->w + pw > top)
                top = p->w + pw;
            mpz_set_ui(a->t, p->twice ? 2 : 1);
            mpz_mul_2exp(a->t, a->t, 64 * (pw + p->w - g->w));
            mpz_add(a->smax, a->smax, a->t);
        }
        g->count = k - g->first;
        mpz_sub_ui(a->t, a->smax, 1);
        g->sz = (uint32_t)words_of(a->t);
        g->lo = g->w < h;
        g->hi = top > n + h;
        add_remainder_bound(a, c, g);
        place_quotients(a, c, g);
        ng++;
    }
    return ng;
}

/* A side with one group uses its Q as it lies in the Q area (w = 0 and t = h
 * for the lo group, t = tmax for the hi one), and may run with its Q P as
 * one task (MP_T_LOSIDE, MP_T_HISIDE). */
static void find_sides(mp_scheme *s, const mns_mpart_ctx *c, const scan *a)
{
    const size_t n = c->n, h = c->h;
    s->qlo_at = s->qhi_at = s->lo_side = s->hi_side = UINT32_MAX;
    for (uint32_t g = 0; g < s->ngroups; g++) {
        const mp_group *gr = &s->groups[g];
        if (a->nlo == 1 && gr->lo) {
            s->qlo_at = gr->qlo;
            if (!gr->hi && gr->w == 0 && gr->tlo == h && gr->sz >= h && n > h)
                s->lo_side = g;
        }
        if (a->nhi == 1 && gr->hi) {
            s->qhi_at = gr->qhi;
            if (!gr->lo)
                s->hi_side = g;
        }
    }
    if (s->hi_side != UINT32_MAX) {
        s->hilo_qn = s->groups[s->hi_side].thi + 1;
        s->hilo_m = s->hilo_qn < n + 1 ? (uint32_t)(n + 1 - s->hilo_qn) : 0;
    }
}

/* Karatsuba for the middle of k = 2: groups lo, middle (A_0 B_1, A_1 B_0),
 * hi. A squaring has one middle product (A_0 A_1 twice), nothing to save. */
static void find_karatsuba(mp_scheme *s, const mns_mpart_ctx *c, int square)
{
    const mp_group *g = s->groups;
    if (square || c->ka != 2 || c->kb != 2 || s->ngroups != 3 || !g[0].lo || g[0].hi || g[1].lo || g[1].hi ||
        g[1].count != 2 || !g[2].hi || g[2].lo)
        return;
    s->kara = 1;
    s->kara_group = 1;
    s->kara_w = s->groups[1].w;
    s->kara_an = (uint32_t)c->ca + 1;
    s->kara_bn = (uint32_t)c->cb + 1;
    s->groups[0].kara_sub = s->groups[2].kara_sub = 1;
    size_t ks = 2 * ((size_t)s->kara_an + s->kara_bn);
    if (ks > s->scratch)
        s->scratch = ks;
}

int mns_mpart_scheme_build(mp_scheme *s, const mns_mpart_ctx *c, int square)
{
    memset(s, 0, sizeof *s);
    const size_t n = c->n, h = c->h;
    size_t cap = c->ka * c->kb;
    s->prods = calloc(cap, sizeof(mp_prod));
    s->groups = calloc(cap, sizeof(mp_group));
    if (!s->prods || !s->groups)
        return 0;
    list_products(s, c, square);
    scan a = {0};
    mpz_inits(a.smax, a.t, a.bound, NULL);
    s->ngroups = build_groups(s, c, &a);
    /* two slots of tmax + 2 words for MP_T_HILO */
    s->slot_v = (uint32_t)a.qa;
    s->slot_lo2 = (uint32_t)(a.qa + a.tmax + 2);
    a.qa += 2 * (a.tmax + 2);
    s->have_lo = a.nlo > 0;
    s->have_hi = a.nhi > 0;
    s->qarea = a.qa + 1;
    /* Q_lo = sum Q_g beta^w_g, each term below beta^h; Q_hi = sum Q_g, each
     * below beta^(tmax + 1): a carry word only when there is a sum */
    s->qlo_words = h + (a.nlo > 1);
    s->qhi_words = a.tmax + 1 + (a.nhi > 1);
    find_sides(s, c, &a);
    s->tmax = a.tmax;
    mpz_sub_ui(a.bound, a.bound, 1);
    s->fwords = words_of(a.bound);
    s->scratch = a.grp_scratch > a.maxprod ? a.grp_scratch : a.maxprod;
    /* the one-task sides: the sum, Q, two (n + 1)-word values, a product and
     * the scratch of the short products (mpart.c lo_side, hi_side) */
    size_t side = 0;
    for (uint32_t g = 0; g < s->ngroups; g++)
        if (s->groups[g].sz > side)
            side = s->groups[g].sz;
    side = 2 * side + a.maxprod + 8 * n + 64;
    if (side > s->scratch)
        s->scratch = side;
    find_karatsuba(s, c, square);
    mpz_clears(a.smax, a.t, a.bound, NULL);
    return 1;
}

void mns_mpart_scheme_free(mp_scheme *s)
{
    free(s->prods);
    free(s->groups);
    mns_mpart_plan_free(&s->pool_plan);
    mns_mpart_plan_free(&s->seq_plan);
    memset(s, 0, sizeof *s);
}

