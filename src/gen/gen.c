/* PMNS parameter generation for any prime at run time (FLINT: LLL, F2[X]).
 *
 * The process is section 4.2 of pmns-multiprecision-cios: for a candidate n,
 * lambda (smallest |lambda|, X^n - lambda irreducible with a root mod p),
 * gamma a root, the lattice of eq. (1) reduced by LLL, M from its rows, then
 * rho and phi from the bounds of include/mns_pmns.h. What is ours:
 *
 *  - n is not walked up one LLL at a time from n_opt: a model of ||M||_1,
 *    log2 N ~ a + (log2 p + log2 n!)/n (Minkowski's bound of section 3.1,
 *    with a calibrated on every LLL already run), predicts the smallest n
 *    that fits, and the search walks from there. At 8192 bits one LLL costs
 *    seconds, so this is what keeps generation inside the targets.
 *  - One LLL per n serves every s: N does not depend on phi, and
 *    invertibility mod (E, 2^h) is invertibility mod (E, 2) for every h.
 *  - rho is the smallest value that passes the exact closure check, not a
 *    rounded power of two.
 *  - M (signed): the paper's heuristic (rows, Proposition 3's division by X,
 *    invertible, smallest N), then a descent that adds or subtracts basis rows
 *    while N drops and M stays invertible.
 *  - M (unsigned, IFMA): Babai's nearest plane towards (T, ..., T) for the
 *    smallest T that still lands in the positive orthant, then the same
 *    descent restricted to positive vectors; the paper's guaranteed
 *    construction (2M - R_k) is the fallback and, with
 *    MNS_PMNS_GEN_NO_IMPROVE, the only method.
 */
#include "gen/gen.h"

#ifdef MNS_HAVE_FLINT

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flint/flint.h>
#include <flint/fmpz.h>
#include <flint/fmpz_lll.h>
#include <flint/fmpz_mat.h>
#include <flint/nmod_poly.h>

#include "core/error.h"
#include "core/deadline.h"
#include "gen/flint_thread.h"

/* Why the generator gave up when the calling thread's deadline passed */
#define DEADLINE_MSG "pmns_generate: the thread's deadline passed (mns_deadline_set_ms)"

/* Result of one n: the best (lambda, gamma, M) found and its N. */
typedef struct nres {
    int state;     /* 0 not tried, 1 tried, 2 lambda known but LLL skipped */
    int ok;        /* an M exists */
    long lambda;
    mpz_t gamma;
    mpz_t *m;
    mpz_t N;
    double log2N;
    char why[256];
} nres;

typedef struct genctx {
    mpz_t p;
    double log2p;
    size_t bits;
    const mns_pmns_gen_opts *o;
    mns_pmns_word word;
    unsigned sigma;
    int n_max;
    nres *res;     /* indexed by n, n_max + 1 entries */
    double a_sum;  /* calibration of the N model */
    int a_cnt;
    int lll_runs;
    mns_chi_cache chi;
    int cancelled;
    int deadline;  /* cancelled by the thread's deadline (core/deadline.h) */
    uint64_t rng;
    double t0;
    long lambda_after; /* binomial lambdas are tried from the one after this
                        * (order 1, -1, 2, -2, ...; 0: from the start) */
} genctx;

/* Position of lambda in the search order 1, -1, 2, -2, ... */
static long lambda_key(long lambda) { return lambda > 0 ? 2 * lambda : -2 * lambda + 1; }

static int progress(genctx *g, const char *stage, int n, double f)
{
    if (g->cancelled)
        return 1;
    if (mns_deadline_passed()) /* the calling thread's deadline (core/deadline.h) */
        g->cancelled = g->deadline = 1;
    else if (g->o->progress && g->o->progress(g->o->progress_arg, stage, n, f))
        g->cancelled = 1;
    return g->cancelled;
}

static uint64_t rnd(genctx *g)
{
    /* xorshift64*: deterministic, so a regenerated file compares equal */
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 0x2545F4914F6CDD1DULL;
}

static double log2_fact(int n)
{
    double s = 0;
    for (int i = 2; i <= n; i++)
        s += log2((double)i);
    return s;
}

static double mpz_log2(const mpz_t x)
{
    if (mpz_sgn(x) == 0)
        return -1e300;
    long e;
    double d = mpz_get_d_2exp(&e, x);
    return log2(fabs(d)) + (double)e;
}

/* ---------------------------------------------------------------------- */
/* polynomial vectors                                                     */

static mpz_t *vec_new(int n)
{
    mpz_t *v = malloc(sizeof(mpz_t) * (size_t)n);
    if (v)
        for (int i = 0; i < n; i++)
            mpz_init(v[i]);
    return v;
}

static void vec_free(mpz_t *v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        mpz_clear(v[i]);
    free(v);
}

static void vec_set(mpz_t *r, mpz_t *const a, int n)
{
    for (int i = 0; i < n; i++)
        mpz_set(r[i], a[i]);
}

/* The objective the descent minimises: N exactly for X^n - lambda
 * (|m_0| + |lambda| sum |m_i|: column 0 is the largest, section 4.2), the
 * 1-norm of M as a proxy for X^n - X - 1 (N is recomputed exactly after). */
static void objective(mpz_t r, mpz_t *const v, int n, mns_pmns_eshape e, long lambda)
{
    mpz_t t;
    mpz_init(t);
    mpz_set_ui(r, 0);
    for (int i = 1; i < n; i++) {
        mpz_abs(t, v[i]);
        mpz_add(r, r, t);
    }
    if (e == MNS_PMNS_E_BINOMIAL)
        mpz_mul_ui(r, r, (unsigned long)(lambda < 0 ? -lambda : lambda));
    mpz_abs(t, v[0]);
    mpz_add(r, r, t);
    mpz_clear(t);
}

static int all_nonneg(mpz_t *const v, int n)
{
    for (int i = 0; i < n; i++)
        if (mpz_sgn(v[i]) < 0)
            return 0;
    return 1;
}

/* M invertible mod (E, 2^h) for every h >= 1 iff invertible mod (E, 2). */
static int invertible2(mpz_t *const m, int n, mns_pmns_eshape e, long lambda)
{
    if (e == MNS_PMNS_E_BINOMIAL && lambda % 2 == 0)
        return mpz_odd_p(m[0]); /* E = X^n mod 2: [9, Prop. 8] */
    nmod_poly_t a, E, gg;
    nmod_poly_init(a, 2);
    nmod_poly_init(E, 2);
    nmod_poly_init(gg, 2);
    for (int i = 0; i < n; i++)
        if (mpz_odd_p(m[i]))
            nmod_poly_set_coeff_ui(a, i, 1);
    nmod_poly_set_coeff_ui(E, n, 1);
    nmod_poly_set_coeff_ui(E, 0, 1); /* lambda odd, or X^n + X + 1 */
    if (e == MNS_PMNS_E_TRINOMIAL)
        nmod_poly_set_coeff_ui(E, 1, 1);
    int ok = 0;
    if (!nmod_poly_is_zero(a)) {
        nmod_poly_gcd(gg, a, E);
        ok = nmod_poly_degree(gg) == 0;
    }
    nmod_poly_clear(a);
    nmod_poly_clear(E);
    nmod_poly_clear(gg);
    return ok;
}

/* mp <- -M^-1 mod (E, 2^h), by Newton's iteration from the inverse mod 2. */
static int mprime(mpz_t *mp, mpz_t *const m, int n, mns_pmns_eshape e, long lambda, unsigned h)
{
    nmod_poly_t a, E, inv;
    nmod_poly_init(a, 2);
    nmod_poly_init(E, 2);
    nmod_poly_init(inv, 2);
    for (int i = 0; i < n; i++)
        if (mpz_odd_p(m[i]))
            nmod_poly_set_coeff_ui(a, i, 1);
    nmod_poly_set_coeff_ui(E, n, 1);
    if (e == MNS_PMNS_E_TRINOMIAL) {
        nmod_poly_set_coeff_ui(E, 1, 1);
        nmod_poly_set_coeff_ui(E, 0, 1);
    } else if (lambda % 2 != 0) {
        nmod_poly_set_coeff_ui(E, 0, 1);
    }
    int ok = !nmod_poly_is_zero(a) && nmod_poly_invmod(inv, a, E);
    if (ok) {
        mpz_t *y = vec_new(n), *t = vec_new(n);
        for (int i = 0; i < n; i++)
            mpz_set_ui(y[i], nmod_poly_get_coeff_ui(inv, i));
        for (unsigned prec = 1; prec < h;) {
            prec = prec * 2 < h ? prec * 2 : h;
            /* y <- y (2 - m y) mod (E, 2^prec) */
            mns_poly_mulmod(t, m, y, n, e, lambda);
            for (int i = 0; i < n; i++)
                mpz_neg(t[i], t[i]);
            mpz_add_ui(t[0], t[0], 2);
            mns_poly_mulmod(y, y, t, n, e, lambda);
            for (int i = 0; i < n; i++)
                mpz_fdiv_r_2exp(y[i], y[i], prec);
        }
        for (int i = 0; i < n; i++) {
            mpz_neg(mp[i], y[i]);
            mpz_fdiv_r_2exp(mp[i], mp[i], h);
        }
        vec_free(y, n);
        vec_free(t, n);
    }
    nmod_poly_clear(a);
    nmod_poly_clear(E);
    nmod_poly_clear(inv);
    return ok;
}

/* ---------------------------------------------------------------------- */
/* choice of M                                                            */

/* Descent: v <- v +- b_i while the objective drops and v stays invertible
 * (and >= 0 if positive); steepest move first, at most `rounds` moves.
 * For positive v the objective is linear, so a move's gain is known from the
 * row alone and only the best candidates are checked. */
typedef struct move {
    double gain;
    int row, sg;
} move;

static int cmp_move(const void *a, const void *b)
{
    double x = ((const move *)a)->gain, y = ((const move *)b)->gain;
    return x < y ? -1 : x > y;
}

static void descend(mpz_t *v, mpz_t **rows, int n, mns_pmns_eshape e, long lambda, int positive, int rounds)
{
    mpz_t cur, obj, bobj;
    mpz_t *cand = vec_new(n), *best = vec_new(n), *lin = vec_new(n);
    move *mv = malloc(sizeof(move) * (size_t)(2 * n));
    mpz_inits(cur, obj, bobj, NULL);
    objective(cur, v, n, e, lambda);
    unsigned long al = e == MNS_PMNS_E_BINOMIAL ? (unsigned long)(lambda < 0 ? -lambda : lambda) : 1;
    if (positive)
        for (int i = 0; i < n; i++) {
            /* objective(v + b) - objective(v) for v, v + b >= 0 */
            mpz_set_ui(lin[i], 0);
            for (int j = 1; j < n; j++)
                mpz_add(lin[i], lin[i], rows[i][j]);
            mpz_mul_ui(lin[i], lin[i], al);
            mpz_add(lin[i], lin[i], rows[i][0]);
        }
    for (int r = 0; r < rounds; r++) {
        int found = 0;
        if (positive) {
            int cnt = 0;
            for (int i = 0; i < n; i++) {
                int sgn = mpz_sgn(lin[i]);
                if (sgn == 0)
                    continue;
                mv[cnt].row = i;
                mv[cnt].sg = -sgn; /* the direction that lowers the objective */
                mv[cnt].gain = -fabs(mpz_get_d(lin[i]));
                cnt++;
            }
            qsort(mv, (size_t)cnt, sizeof(move), cmp_move);
            for (int c = 0; c < cnt && !found; c++) {
                int i = mv[c].row;
                int ok = 1;
                for (int j = 0; j < n && ok; j++) {
                    if (mv[c].sg > 0)
                        mpz_add(cand[j], v[j], rows[i][j]);
                    else
                        mpz_sub(cand[j], v[j], rows[i][j]);
                    ok = mpz_sgn(cand[j]) >= 0;
                }
                if (!ok || !invertible2(cand, n, e, lambda))
                    continue;
                int zero = 1;
                for (int j = 0; j < n && zero; j++)
                    zero = mpz_sgn(cand[j]) == 0;
                if (zero)
                    continue;
                vec_set(v, cand, n);
                found = 1;
            }
        } else {
            mpz_set(bobj, cur);
            for (int i = 0; i < n; i++) {
                for (int sg = -1; sg <= 1; sg += 2) {
                    for (int j = 0; j < n; j++) {
                        if (sg > 0)
                            mpz_add(cand[j], v[j], rows[i][j]);
                        else
                            mpz_sub(cand[j], v[j], rows[i][j]);
                    }
                    objective(obj, cand, n, e, lambda);
                    if (mpz_cmp(obj, bobj) >= 0 || mpz_sgn(obj) == 0)
                        continue;
                    if (!invertible2(cand, n, e, lambda))
                        continue;
                    mpz_set(bobj, obj);
                    vec_set(best, cand, n);
                    found = 1;
                }
            }
            if (found) {
                vec_set(v, best, n);
                mpz_set(cur, bobj);
            }
        }
        if (!found)
            break;
    }
    mpz_clears(cur, obj, bobj, NULL);
    vec_free(cand, n);
    vec_free(best, n);
    vec_free(lin, n);
    free(mv);
}

/* Proposition 3: while lambda | v_0, v <- (v_1, ..., v_{n-1}, v_0/lambda);
 * keeps the last invertible one (the largest j of the heuristic). Returns 1
 * if an invertible rotation was found (stored in v). */
static int divide_by_x(mpz_t *v, int n, long lambda, mpz_t *tmp)
{
    int ok = invertible2(v, n, MNS_PMNS_E_BINOMIAL, lambda);
    vec_set(tmp, v, n);
    long al = lambda < 0 ? -lambda : lambda;
    for (int j = 0; j < n && al > 1 && mpz_divisible_ui_p(tmp[0], (unsigned long)al); j++) {
        mpz_t t0;
        mpz_init(t0);
        mpz_divexact_ui(t0, tmp[0], (unsigned long)al);
        if (lambda < 0)
            mpz_neg(t0, t0);
        for (int i = 0; i + 1 < n; i++)
            mpz_swap(tmp[i], tmp[i + 1]);
        mpz_swap(tmp[n - 1], t0);
        mpz_clear(t0);
        if (invertible2(tmp, n, MNS_PMNS_E_BINOMIAL, lambda)) {
            vec_set(v, tmp, n);
            ok = 1;
        }
    }
    return ok;
}

static int choose_m_signed(genctx *g, mpz_t *out, mpz_t **rows, int n, mns_pmns_eshape e, long lambda)
{
    (void)g;
    mpz_t *v = vec_new(n), *tmp = vec_new(n);
    mpz_t obj, best;
    mpz_inits(obj, best, NULL);
    int have = 0;
    /* the paper's heuristic over every row */
    for (int r = 0; r < n; r++) {
        vec_set(v, rows[r], n);
        int ok = e == MNS_PMNS_E_BINOMIAL ? divide_by_x(v, n, lambda, tmp) : invertible2(v, n, e, lambda);
        if (!ok)
            continue;
        objective(obj, v, n, e, lambda);
        if (!have || mpz_cmp(obj, best) < 0) {
            mpz_set(best, obj);
            vec_set(out, v, n);
            have = 1;
        }
    }
    if (!have) {
        /* odd lambda: binary combinations of two rows ([9, Prop. 12]) */
        for (int i = 0; i < n && !have; i++)
            for (int j = i + 1; j < n; j++)
                for (int sg = -1; sg <= 1; sg += 2) {
                    for (int k = 0; k < n; k++) {
                        if (sg > 0)
                            mpz_add(v[k], rows[i][k], rows[j][k]);
                        else
                            mpz_sub(v[k], rows[i][k], rows[j][k]);
                    }
                    if (!invertible2(v, n, e, lambda))
                        continue;
                    objective(obj, v, n, e, lambda);
                    if (!have || mpz_cmp(obj, best) < 0) {
                        mpz_set(best, obj);
                        vec_set(out, v, n);
                        have = 1;
                    }
                }
    }
    if (have)
        descend(out, rows, n, e, lambda, 0, 2 * n);
    vec_free(v, n);
    vec_free(tmp, n);
    mpz_clears(obj, best, NULL);
    return have;
}

/* Babai's nearest plane: v <- a lattice vector near the target t (doubles,
 * scaled by 2^-shift; v itself is exact). */
typedef struct gso {
    int n;
    double *bs;   /* Gram-Schmidt vectors, row-major n x n */
    double *bb;   /* <b*_i, b*_i> */
    double *b;    /* scaled basis */
    long shift;
} gso;

static int gso_init(gso *G, mpz_t **rows, int n)
{
    size_t maxbits = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t b = mpz_sizeinbase(rows[i][j], 2);
            if (b > maxbits)
                maxbits = b;
        }
    G->n = n;
    G->shift = maxbits > 400 ? (long)maxbits - 400 : 0;
    G->bs = malloc(sizeof(double) * (size_t)n * (size_t)n);
    G->b = malloc(sizeof(double) * (size_t)n * (size_t)n);
    G->bb = malloc(sizeof(double) * (size_t)n);
    if (!G->bs || !G->b || !G->bb)
        return 0;
    mpz_t t;
    mpz_init(t);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            mpz_tdiv_q_2exp(t, rows[i][j], (mp_bitcnt_t)G->shift);
            G->b[i * n + j] = mpz_get_d(t);
        }
    mpz_clear(t);
    for (int i = 0; i < n; i++) {
        double *bi = G->bs + (size_t)i * n;
        memcpy(bi, G->b + (size_t)i * n, sizeof(double) * (size_t)n);
        for (int k = 0; k < i; k++) {
            if (G->bb[k] == 0)
                continue;
            double mu = 0;
            for (int j = 0; j < n; j++)
                mu += G->b[i * n + j] * G->bs[k * n + j];
            mu /= G->bb[k];
            for (int j = 0; j < n; j++)
                bi[j] -= mu * G->bs[k * n + j];
        }
        double s = 0;
        for (int j = 0; j < n; j++)
            s += bi[j] * bi[j];
        G->bb[i] = s;
    }
    return 1;
}

static void gso_clear(gso *G)
{
    free(G->bs);
    free(G->b);
    free(G->bb);
}

static void babai(const gso *G, mpz_t *v, mpz_t **rows, const double *target)
{
    int n = G->n;
    double *t = malloc(sizeof(double) * (size_t)n);
    long *c = malloc(sizeof(long) * (size_t)n);
    memcpy(t, target, sizeof(double) * (size_t)n);
    for (int i = n - 1; i >= 0; i--) {
        double d = 0;
        for (int j = 0; j < n; j++)
            d += t[j] * G->bs[i * n + j];
        double ci = G->bb[i] > 0 ? nearbyint(d / G->bb[i]) : 0;
        if (ci > 1e15 || ci < -1e15)
            ci = 0;
        c[i] = (long)ci;
        for (int j = 0; j < n; j++)
            t[j] -= ci * G->b[i * n + j];
    }
    for (int j = 0; j < n; j++)
        mpz_set_ui(v[j], 0);
    for (int i = 0; i < n; i++) {
        if (c[i] == 0)
            continue;
        for (int j = 0; j < n; j++) {
            if (c[i] > 0)
                mpz_addmul_ui(v[j], rows[i][j], (unsigned long)c[i]);
            else
                mpz_submul_ui(v[j], rows[i][j], (unsigned long)-c[i]);
        }
    }
    free(t);
    free(c);
}

/* The paper's positive construction: C = (K..K), K = ||B||_1 + 1, M = C - Cbar
 * with Cbar the reduction of C by the basis, then 2M - R_k with R_k a row
 * whose first coefficient is odd (lambda even). Cbar comes from Babai here;
 * positivity and invertibility are checked, not assumed. */
static int paper_positive(const gso *G, mpz_t *out, mpz_t **rows, int n, mns_pmns_eshape e, long lambda,
                          const mpz_t colmax)
{
    mpz_t *c = vec_new(n), *v = vec_new(n), *w = vec_new(n);
    double *tg = malloc(sizeof(double) * (size_t)n);
    mpz_t K, t;
    mpz_inits(K, t, NULL);
    mpz_add_ui(K, colmax, 1);
    mpz_tdiv_q_2exp(t, K, (mp_bitcnt_t)G->shift);
    double kd = mpz_get_d(t);
    for (int j = 0; j < n; j++)
        tg[j] = kd;
    babai(G, v, rows, tg); /* v = C - Cbar, a lattice vector near C */
    int ok = 0;
    if (all_nonneg(v, n) && invertible2(v, n, e, lambda)) {
        vec_set(out, v, n);
        ok = 1;
    }
    for (int r = 0; r < n && !ok; r++) {
        for (int j = 0; j < n; j++) {
            mpz_mul_2exp(w[j], v[j], 1);
            mpz_sub(w[j], w[j], rows[r][j]);
        }
        if (all_nonneg(w, n) && invertible2(w, n, e, lambda)) {
            vec_set(out, w, n);
            ok = 1;
        }
    }
    mpz_clears(K, t, NULL);
    vec_free(c, n);
    vec_free(v, n);
    vec_free(w, n);
    free(tg);
    return ok;
}

static int choose_m_positive(genctx *g, mpz_t *out, mpz_t **rows, int n, mns_pmns_eshape e, long lambda)
{
    gso G;
    int ok = 0;
    if (!gso_init(&G, rows, n)) {
        gso_clear(&G);
        return 0;
    }
    /* ||B_LLL||_1: largest column sum */
    mpz_t colmax, t, obj, best;
    mpz_inits(colmax, t, obj, best, NULL);
    for (int j = 0; j < n; j++) {
        mpz_set_ui(t, 0);
        for (int i = 0; i < n; i++) {
            if (mpz_sgn(rows[i][j]) >= 0)
                mpz_add(t, t, rows[i][j]);
            else
                mpz_sub(t, t, rows[i][j]);
        }
        if (mpz_cmp(t, colmax) > 0)
            mpz_set(colmax, t);
    }
    int have = paper_positive(&G, out, rows, n, e, lambda, colmax);
    if (have)
        objective(best, out, n, e, lambda);
    if (!(g->o->flags & MNS_PMNS_GEN_NO_IMPROVE)) {
        mpz_t *v = vec_new(n), *tmp = vec_new(n);
        double *tg = malloc(sizeof(double) * (size_t)n);
        mpz_tdiv_q_2exp(t, colmax, (mp_bitcnt_t)G.shift);
        double hi = mpz_get_d(t) + 2, lo = 0;
        /* the smallest T for which Babai's vector near (T..T) is >= 0 */
        for (int it = 0; it < 40 && hi - lo > hi * 1e-3; it++) {
            double mid = 0.5 * (lo + hi);
            for (int j = 0; j < n; j++)
                tg[j] = mid;
            babai(&G, v, rows, tg);
            if (all_nonneg(v, n))
                hi = mid;
            else
                lo = mid;
        }
        /* a few targets around it, each improved by the descent */
        int tries = n < 64 ? 12 : 6;
        for (int tr = 0; tr < tries; tr++) {
            for (int j = 0; j < n; j++) {
                double jitter = tr == 0 ? 1.0 : 1.0 + 0.5 * ((double)(rnd(g) >> 11) / 9007199254740992.0);
                tg[j] = hi * jitter;
            }
            babai(&G, v, rows, tg);
            if (!all_nonneg(v, n))
                continue;
            if (!invertible2(v, n, e, lambda)) {
                /* one row move that makes it invertible and keeps it >= 0 */
                int fixed = 0;
                for (int r = 0; r < n && !fixed; r++)
                    for (int sg = -1; sg <= 1 && !fixed; sg += 2) {
                        for (int j = 0; j < n; j++) {
                            if (sg > 0)
                                mpz_add(tmp[j], v[j], rows[r][j]);
                            else
                                mpz_sub(tmp[j], v[j], rows[r][j]);
                        }
                        if (all_nonneg(tmp, n) && invertible2(tmp, n, e, lambda)) {
                            vec_set(v, tmp, n);
                            fixed = 1;
                        }
                    }
                if (!fixed)
                    continue;
            }
            descend(v, rows, n, e, lambda, 1, 8 * n);
            if (e == MNS_PMNS_E_BINOMIAL)
                divide_by_x(v, n, lambda, tmp); /* Prop. 3 keeps v >= 0 for lambda > 0 */
            objective(obj, v, n, e, lambda);
            if (!have || mpz_cmp(obj, best) < 0) {
                mpz_set(best, obj);
                vec_set(out, v, n);
                have = 1;
            }
        }
        vec_free(v, n);
        vec_free(tmp, n);
        free(tg);
    }
    ok = have;
    mpz_clears(colmax, t, obj, best, NULL);
    gso_clear(&G);
    return ok;
}

/* ---------------------------------------------------------------------- */
/* one n                                                                  */

/* LLL-reduce the lattice of eq. (1) for gamma; rows out as mpz. */
static void lll_rows(genctx *g, mpz_t **rows, int n, const mpz_t gamma)
{
    fmpz_mat_t B;
    fmpz_mat_init(B, n, n);
    mpz_t gi;
    mpz_init_set_ui(gi, 1);
    fmpz_set_mpz(fmpz_mat_entry(B, 0, 0), g->p);
    for (int i = 1; i < n; i++) {
        mpz_mul(gi, gi, gamma);
        mpz_mod(gi, gi, g->p);
        mpz_t ng;
        mpz_init(ng);
        mpz_neg(ng, gi);
        fmpz_set_mpz(fmpz_mat_entry(B, i, 0), ng);
        fmpz_one(fmpz_mat_entry(B, i, i));
        mpz_clear(ng);
    }
    mpz_clear(gi);
    /* Two passes: delta = 0.3 does the bulk of the size reduction of the
     * big first column cheaply (fewer swaps, each pass over the bits is the
     * same), then delta = 0.99 (FLINT's default, eta 0.51) finishes on
     * entries that are already small. The result is 0.99-reduced like a
     * single pass; measured 1.7-2.2x less CPU than one 0.99 pass on the
     * lattices of 2048 to 8192 bits (n = 25 to 58). */
    fmpz_lll_t fl;
    fmpz_lll_context_init(fl, 0.3, 0.51, Z_BASIS, APPROX);
    fmpz_lll(B, NULL, fl);
    fmpz_lll_context_init_default(fl);
    fmpz_lll(B, NULL, fl);
    g->lll_runs++;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            fmpz_get_mpz(rows[i][j], fmpz_mat_entry(B, i, j));
    fmpz_mat_clear(B);
}

static double shortfall_l(const genctx *g, int n, int s, long lambda);

/* Evaluates n: lambda, gamma, LLL, M. With skip_s > 0, the LLL is skipped
 * (state 2, not ok) when the model, told the lambda this n must use, puts it
 * more than skip_bits short for skip_s words: an n whose smallest lambda is
 * 11 does not need a lattice reduction to be ruled out. */
static void eval_n_skip(genctx *g, int n, int skip_s, double skip_bits);

static void eval_n(genctx *g, int n) { eval_n_skip(g, n, 0, 0); }

static void eval_n_skip(genctx *g, int n, int skip_s, double skip_bits)
{
    nres *r = &g->res[n];
    if (r->state == 1 || (r->state == 2 && skip_s > 0))
        return;
    if (r->state == 2) {
        vec_free(r->m, n);
        mpz_clear(r->gamma);
        mpz_clear(r->N);
    }
    r->state = 1;
    r->ok = 0;
    r->lambda = 0;
    r->why[0] = 0;
    r->m = vec_new(n);
    mpz_init(r->gamma);
    mpz_init(r->N);
    const mns_pmns_gen_opts *o = g->o;
    int tries = o->gamma_tries > 0 ? o->gamma_tries : 1;
    mpz_t *roots = vec_new(tries);
    int nroots = 0;
    long lambda = 0;
    if (progress(g, "lambda", n, 0.0))
        goto out;
    /* The lambda is found by power-residue characters alone; gamma (a
     * root, several exponentiations) only once the model does not skip n. */
    int binomial = o->eshape == MNS_PMNS_E_BINOMIAL;
    mpz_t L;
    mpz_init(L);
    if (binomial) {
        int found = 0;
        for (long l = 1; l <= o->lambda_max && !found; l++) {
            for (int sg = 1; sg >= -1 && !found; sg -= 2) {
                if (sg < 0 && g->word == MNS_PMNS_WORD_U52)
                    continue;
                long lam = sg * l;
                if (g->lambda_after && lambda_key(lam) <= lambda_key(g->lambda_after))
                    continue;
                if (!mns_binomial_irreducible(n, lam))
                    continue;
                mpz_set_si(L, lam);
                mpz_mod(L, L, g->p);
                if (mpz_sgn(L) == 0)
                    continue;
                int pw = mns_is_nth_power_si(&g->chi, lam, (unsigned long)n, g->p);
                if (pw < 0) /* no memory for the cache */
                    pw = mns_is_nth_power(L, (unsigned long)n, g->p);
                if (pw) {
                    lambda = lam;
                    found = 1;
                }
            }
        }
        if (!found) {
            snprintf(r->why, sizeof r->why, "no lambda with |lambda| <= %ld gives an irreducible X^%d - lambda with a root mod p",
                     o->lambda_max, n);
            goto out_l;
        }
    }
    r->lambda = lambda;
    if (skip_s > 0 && shortfall_l(g, n, skip_s, lambda) > skip_bits) {
        r->state = 2;
        snprintf(r->why, sizeof r->why, "n = %d skipped: lambda = %ld predicted too large", n, lambda);
        goto out_l;
    }
    if (binomial) {
        /* L = lambda mod p from the search */
        nroots = mns_nroots(roots, tries, L, (unsigned long)n, g->p);
        if (!nroots) {
            snprintf(r->why, sizeof r->why, "internal: X^%d - %ld has no root mod p after all", n, lambda);
            goto out_l;
        }
    } else {
        nroots = mns_trinomial_roots(roots, tries, n, g->p);
        if (!nroots) {
            snprintf(r->why, sizeof r->why, "X^%d - X - 1 has no root mod p", n);
            goto out_l;
        }
    }
    mpz_clear(L);
    mpz_t **rows = malloc(sizeof(mpz_t *) * (size_t)n);
    for (int i = 0; i < n; i++)
        rows[i] = vec_new(n);
    mpz_t *m = vec_new(n);
    mpz_t N;
    mpz_init(N);
    for (int k = 0; k < nroots && !g->cancelled; k++) {
        if (progress(g, "lll", n, 0.0))
            break;
        lll_rows(g, rows, n, roots[k]);
        if (progress(g, "M", n, 0.0))
            break;
        int have = g->word == MNS_PMNS_WORD_U52 ? choose_m_positive(g, m, rows, n, o->eshape, lambda)
                                               : choose_m_signed(g, m, rows, n, o->eshape, lambda);
        if (!have)
            continue;
        int nonneg;
        mns_poly_norm1(N, &nonneg, m, n, o->eshape, lambda);
        if (!r->ok || mpz_cmp(N, r->N) < 0) {
            r->ok = 1;
            r->lambda = lambda;
            mpz_set(r->gamma, roots[k]);
            vec_set(r->m, m, n);
            mpz_set(r->N, N);
        }
    }
    if (!r->ok && !g->cancelled)
        snprintf(r->why, sizeof r->why, "no M invertible mod (E, 2)%s for n = %d",
                 g->word == MNS_PMNS_WORD_U52 ? " with positive coefficients" : "", n);
    for (int i = 0; i < n; i++)
        vec_free(rows[i], n);
    free(rows);
    vec_free(m, n);
    mpz_clear(N);
    if (r->ok) {
        r->log2N = mpz_log2(r->N);
        /* the model's a without log2|lambda|, which varies between n; the
         * trinomial's reduction matrix grows like lambda = 2's (measured:
         * equal N at equal n within the LLL scatter) */
        double ll = o->eshape == MNS_PMNS_E_TRINOMIAL ? 1.0 : log2(fabs((double)r->lambda));
        g->a_sum += r->log2N - ll - (g->log2p + log2_fact(n)) / n;
        g->a_cnt++;
    }
    vec_free(roots, tries);
    return;
out_l:
    mpz_clear(L);
out:
    vec_free(roots, tries);
}

/* ---------------------------------------------------------------------- */
/* fitting (n, s)                                                         */

static int tadds(const genctx *g, int n)
{
    int t = g->o->toeplitz_adds;
    return t <= 0 || t > n ? n : t;
}

static unsigned bitlen64(uint64_t x)
{
    unsigned b = 0;
    for (; x; x >>= 1)
        b++;
    return b;
}

/* Largest k with t lambda_eff 2^k < sigma (eq. (7)), 0 if none:
 * tl 2^k < 2^sigma iff bitlen(tl) <= sigma - k. */
static unsigned kmax(const genctx *g, int n, long lambda)
{
    const int carried = (g->o->flags & MNS_PMNS_GEN_LAMBDA_CARRIED) != 0;
    uint64_t tl = (uint64_t)tadds(g, n) * (carried ? 1 : mns_pmns_lambda_eff(g->o->eshape, lambda));
    unsigned b = bitlen64(tl);
    return b < g->sigma ? g->sigma - b : 0;
}

/* For the result of n and s: k and rho, or 0 if the set does not fit. */
static int fit(const genctx *g, int n, int s, unsigned *k_out, mpz_t rho)
{
    const nres *r = &g->res[n];
    if (!r->ok)
        return 0;
    uint64_t w = mns_pmns_w(n, g->o->eshape, r->lambda);
    mpz_t pm1;
    mpz_init(pm1);
    mpz_sub_ui(pm1, g->p, 1);
    int ok = 0;
    if (s == 1) {
        mns_pmns_rho_min(rho, r->N, w, g->o->delta, g->word, 1, g->sigma);
        if (mpz_sgn(rho) > 0 && mpz_cmp(rho, pm1) <= 0) {
            *k_out = g->sigma;
            ok = 1;
        }
    } else {
        unsigned km = kmax(g, n, r->lambda);
        /* phi must exceed 2 w N (delta+1)^2 at least */
        double need = r->log2N + log2(2.0 * (double)w) + 2 * log2(g->o->delta + 1.0);
        int k0 = (int)floor(need / s) - 1;
        if (k0 < 1)
            k0 = 1;
        for (unsigned k = (unsigned)k0; k <= km && !ok; k++) {
            mns_pmns_rho_min(rho, r->N, w, g->o->delta, g->word, s, k);
            if (mpz_sgn(rho) > 0 && mpz_cmp(rho, pm1) <= 0) {
                *k_out = k;
                ok = 1;
            }
        }
    }
    mpz_clear(pm1);
    return ok;
}

/* Predicted shortfall in bits of (n, s): > 0 means it should not fit. */
static double shortfall_l(const genctx *g, int n, int s, long lambda)
{
    double a = g->a_cnt ? g->a_sum / g->a_cnt : (g->word == MNS_PMNS_WORD_U52 ? 1.5 : -0.8);
    double lam = lambda ? fabs((double)lambda) : 2; /* 2: the typical |lambda| */
    int tri = g->o->eshape == MNS_PMNS_E_TRINOMIAL;
    double w = tri ? 2.0 * n - 1 : lam * (n - 1) + 1;
    double lN = a + (tri ? 1.0 : log2(lam)) + (g->log2p + log2_fact(n)) / n;
    double need = lN + log2(2 * w) + 2 * log2(g->o->delta + 1.0) + (g->word == MNS_PMNS_WORD_U52 ? 1 : 0);
    double cap;
    if (s == 1) {
        cap = g->sigma;
    } else {
        uint64_t tl = (uint64_t)tadds(g, n) * (uint64_t)(g->o->eshape == MNS_PMNS_E_TRINOMIAL ? 2 : lam);
        cap = (double)s * ((double)g->sigma - bitlen64(tl));
        need = s * ceil(need / s); /* eq. (8) rounds phi up to a multiple of s */
    }
    return need - cap;
}

static double shortfall(const genctx *g, int n, int s) { return shortfall_l(g, n, s, 0); }

static int predict_n(const genctx *g, int s, int from)
{
    for (int n = from < 2 ? 2 : from; n <= g->n_max; n++)
        if (shortfall(g, n, s) <= 0)
            return n;
    return g->n_max + 1;
}

/* The smallest n that fits with s words, or 0 (r->why of the last n tried
 * says why). */
static int search_n(genctx *g, int s, int *last_tried)
{
    unsigned k;
    mpz_t rho;
    mpz_init(rho);
    int n = predict_n(g, s, 2);
    int found = 0;
    if (n > g->n_max)
        n = g->n_max;
    /* upwards until something fits */
    while (n <= g->n_max && !g->cancelled) {
        eval_n_skip(g, n, s, 1.0);
        *last_tried = n;
        if (fit(g, n, s, &k, rho)) {
            found = n;
            break;
        }
        int nn = predict_n(g, s, n + 1);
        n = nn > n + 1 ? nn : n + 1;
        if (n > g->n_max && *last_tried < g->n_max)
            n = g->n_max;
        if (n == *last_tried)
            break;
    }
    /* downwards while it still fits; an n the model gives up on by more than
     * 1.5 bits is not tried (LLL scatter is well below that) */
    for (int m = found - 1; found && m >= 2 && !g->cancelled; m--) {
        if (shortfall(g, m, s) > 1.5)
            break;
        eval_n_skip(g, m, s, 1.0);
        if (fit(g, m, s, &k, rho)) {
            found = m;
            continue;
        }
        /* an n without a small lambda says nothing about n - 1 */
        if (g->res[m].state == 1 && g->res[m].ok)
            break;
    }
    mpz_clear(rho);
    return g->cancelled ? 0 : found;
}

static int is_smooth7(int n)
{
    for (int q = 2; q <= 7; q++)
        while (n % q == 0)
            n /= q;
    return n == 1;
}

/* ---------------------------------------------------------------------- */

static mns_status build(genctx *g, mns_pmns_params **out, int n, int s)
{
    unsigned k;
    mpz_t rho;
    mpz_init(rho);
    nres *r = &g->res[n];
    if (!fit(g, n, s, &k, rho)) {
        mpz_clear(rho);
        return mns_error(MNS_ENOTSUP, "pmns_generate: internal: (n, s) = (%d, %d) no longer fits", n, s);
    }
    mns_pmns_params *P = mns_pmns_params_alloc(n);
    if (!P) {
        mpz_clear(rho);
        return mns_error(MNS_ENOMEM, "pmns_generate: out of memory");
    }
    mpz_set(P->p, g->p);
    P->word = g->word;
    P->s = s;
    P->delta = g->o->delta;
    P->eshape = g->o->eshape;
    P->lambda = g->o->eshape == MNS_PMNS_E_BINOMIAL ? r->lambda : 0;
    mpz_set(P->gamma, r->gamma);
    P->phi_log2 = (unsigned)s * k;
    P->toeplitz_adds = tadds(g, n);
    /* (B3) is a condition of s > 1 only: an automatic s = 1 set is a plain one */
    P->lambda_carried = s > 1 && (g->o->flags & MNS_PMNS_GEN_LAMBDA_CARRIED) != 0;
    mpz_set(P->rho, rho);
    vec_set(P->m, r->m, n);
    mpz_clear(rho);
    if (progress(g, "verify", n, 0.95)) {
        mns_pmns_params_free(P);
        return mns_error(MNS_ERANGE, "pmns_generate: cancelled");
    }
    if (!mprime(P->mprime, P->m, n, P->eshape, P->lambda, P->phi_log2)) {
        mns_pmns_params_free(P);
        return mns_error(MNS_ERANGE, "pmns_generate: internal: M not invertible mod (E, phi)");
    }
    P->has_gen = 1;
    P->p_prime_known = 1; /* tested at the input of mns_pmns_generate_flint */
    P->gen = *g->o;
    P->gen.progress = NULL;
    P->gen.progress_arg = NULL;
    mns_status st = mns_pmns_finish(P);
    if (st != MNS_OK) {
        /* never hand out a set that fails a check */
        mns_pmns_params_free(P);
        return st;
    }
    P->gen_seconds = mns_gen_now() - g->t0;
    *out = P;
    progress(g, "done", n, 1.0);
    return MNS_OK;
}

/* What one shape's search tells the next (generate_auto): the calibration
 * of the N model, and |lambda| at the n below the one found (0: no lambda,
 * -1: that n was not looked at). */
typedef struct gen_link {
    double a_sum;
    int a_cnt;
    long lam_below;
} gen_link;

static mns_status generate_one(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *o, double t0,
                               gen_link *link);
static mns_status generate_auto(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *o, double t0);

mns_status mns_pmns_generate_flint(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *o)
{
    double t0 = mns_gen_now();
    mns_gen_flint_thread_enter(); /* FLINT's caches freed when this thread ends */
    if (mns_deadline_passed()) /* as the progress checks below, before any work */
        return mns_error(MNS_ERANGE, DEADLINE_MSG);
    if (mpz_cmp_ui(p, 3) < 0)
        return mns_error(MNS_EINVAL, "pmns_generate: p must be >= 3");
    if (mpz_even_p(p))
        return mns_error(MNS_EINVAL, "pmns_generate: p must be odd");
    if (mpz_sizeinbase(p, 2) > MNS_PMNS_P_BITS_MAX)
        return mns_error(MNS_EINVAL, "pmns_generate: p has more than %d bits", MNS_PMNS_P_BITS_MAX);
    if (mpz_probab_prime_p(p, 25) == 0)
        return mns_error(MNS_EINVAL, "pmns_generate: " MNS_MSG_NOT_PRIME);
    if (o->word != MNS_PMNS_WORD_S64 && o->word != MNS_PMNS_WORD_U52)
        return mns_error(MNS_EINVAL, "pmns_generate: unknown word kind %d", (int)o->word);
    if (o->eshape != MNS_PMNS_E_BINOMIAL && o->eshape != MNS_PMNS_E_TRINOMIAL && o->eshape != MNS_PMNS_E_AUTO)
        return mns_error(MNS_EINVAL, "pmns_generate: unknown shape of E %d", (int)o->eshape);
    if (o->s < 0 || o->s > MNS_PMNS_S_MAX || (o->s == 0 && (o->s_max < 0 || o->s_max > MNS_PMNS_S_MAX)))
        return mns_error(MNS_EINVAL, "pmns_generate: s must be in [0, %d]", MNS_PMNS_S_MAX);
    if (o->delta < 0 || o->delta > MNS_PMNS_DELTA_MAX)
        return mns_error(MNS_EINVAL, "pmns_generate: delta must be in [0, %d]", MNS_PMNS_DELTA_MAX);
    if (o->n != 0 && (o->n < 2 || o->n > MNS_PMNS_N_MAX))
        return mns_error(MNS_ERANGE, "pmns_generate: n = %d outside [2, %d]", o->n, MNS_PMNS_N_MAX);
    if (o->n_max < 0 || o->n_max > MNS_PMNS_N_MAX)
        return mns_error(MNS_EINVAL, "pmns_generate: n_max outside [0, %d]", MNS_PMNS_N_MAX);
    if (o->lambda_max < 1 || o->lambda_max > (1L << 20))
        return mns_error(MNS_EINVAL, "pmns_generate: lambda_max outside [1, 2^20]");
    if (o->toeplitz_adds < 0 || o->gamma_tries < 0 || o->gamma_tries > 64)
        return mns_error(MNS_EINVAL, "pmns_generate: toeplitz_adds < 0 or gamma_tries outside [0, 64]");
    if ((o->flags & MNS_PMNS_GEN_LAMBDA_CARRIED) &&
        (o->word != MNS_PMNS_WORD_U52 || o->s == 1 || o->eshape != MNS_PMNS_E_BINOMIAL))
        return mns_error(MNS_EINVAL, "pmns_generate: MNS_PMNS_GEN_LAMBDA_CARRIED needs U52, s != 1 "
                                     "and X^n - lambda");
    return o->eshape == MNS_PMNS_E_AUTO ? generate_auto(out, p, o, t0) : generate_one(out, p, o, t0, NULL);
}

/* E = X^n - lambda, then, for one word per coefficient, X^n - X - 1 below
 * the n found (the pmns-mp kernels take X^n - lambda only). X^n - X - 1 has
 * the w of lambda = 2 and a root for about 63% of the n (Chebotarev), where
 * X^n - lambda needs lambda = +-2 an n-th power (about half of the even n,
 * a third of the multiples of 3, ...): it wins an n when the binomial's
 * lambda is 3 or more at the n that would otherwise fit. Its roots cost
 * log2 p modular squarings of a degree-n polynomial (troot.c), about 0.5 s
 * per n at 2048 bits, so it is tried only below the binomial's n. */
static mns_status generate_auto(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *o, double t0)
{
    mns_pmns_gen_opts ob = *o;
    ob.eshape = MNS_PMNS_E_BINOMIAL;
    mns_pmns_params *B = NULL;
    gen_link link = {0, 0, -1};
    mns_status sb = generate_one(&B, p, &ob, t0, &link);
    if (sb != MNS_OK && sb != MNS_ENOTSUP)
        return sb; /* cancelled, out of memory */
    char why[512] = "";
    if (sb != MNS_OK)
        snprintf(why, sizeof why, "%s", mns_last_error());
    /* With the binomial's |lambda| = 2 at n - 1, the trinomial has the same
     * w and an N of the same size there: it did not fit for any of the 5 of
     * 10 random 2048-bit primes where that was the case, so its root search
     * is not paid for. */
    if (o->s == 1 && !(sb == MNS_OK && (o->n || B->n <= 2 || link.lam_below == 2))) {
        mns_pmns_gen_opts ot = *o;
        ot.eshape = MNS_PMNS_E_TRINOMIAL;
        if (sb == MNS_OK)
            ot.n_max = B->n - 1;
        mns_pmns_params *T = NULL;
        /* the model keeps the binomial's calibration: the first n it tries
         * is then the right one (a root search each, 0.5 s at 2048 bits) */
        link.lam_below = -1;
        mns_status st = generate_one(&T, p, &ot, t0, &link);
        if (st == MNS_OK) {
            mns_pmns_params_free(B);
            B = T;
            sb = MNS_OK;
        } else if (st != MNS_ENOTSUP) {
            mns_pmns_params_free(B);
            return st;
        }
    }
    if (sb != MNS_OK)
        return mns_error(sb, "%s", why);
    B->gen = *o;
    B->gen.progress = NULL;
    B->gen.progress_arg = NULL;
    B->gen_seconds = mns_gen_now() - t0;
    *out = B;
    return MNS_OK;
}

/* One shape of E; the options are valid and p is prime. link (may be
 * NULL): the model's calibration in and out, lam_below out. */
static mns_status generate_one(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *o, double t0,
                               gen_link *link)
{
    genctx g;
    memset(&g, 0, sizeof g);
    mpz_init_set(g.p, p);
    g.bits = mpz_sizeinbase(p, 2);
    g.log2p = mpz_log2(p);
    g.o = o;
    g.word = o->word;
    g.sigma = mns_pmns_sigma_log2(o->word);
    g.rng = 0x9E3779B97F4A7C15ULL;
    g.t0 = t0;
    if (link && link->a_cnt) {
        g.a_sum = link->a_sum;
        g.a_cnt = link->a_cnt;
    }
    int nopt = mns_pmns_nopt(g.bits, g.sigma);
    g.n_max = o->n_max ? o->n_max : 4 * nopt + 16;
    if (g.n_max > MNS_PMNS_N_MAX)
        g.n_max = MNS_PMNS_N_MAX;
    if (o->n > g.n_max)
        g.n_max = o->n;
    g.res = calloc((size_t)g.n_max + 1, sizeof(nres));
    if (!g.res) {
        mpz_clear(g.p);
        return mns_error(MNS_ENOMEM, "pmns_generate: out of memory");
    }

    mns_status st = MNS_OK;
    int best_n = 0, best_s = 0, last = 0;
    unsigned k;
    mpz_t rho;
    mpz_init(rho);
    if (o->n) {
        last = o->n;
        int s_lo = o->s ? o->s : 1, s_hi = o->s ? o->s : (o->s_max ? o->s_max : 6);
        /* the smallest lambda first; with MNS_PMNS_GEN_LAMBDA_WALK the next
         * ones while the set does not fit (a larger lambda costs bits of w
         * and rho, but its lattice may give a smaller N) */
        int walked = 0; /* lambdas with a root that did not give a set */
        long lam_first = 0, lam_last = 0;
        for (int walk = 0; !best_n && !g.cancelled; walk++) {
            eval_n(&g, o->n);
            for (int s = s_lo; s <= s_hi && !best_n; s++)
                if (fit(&g, o->n, s, &k, rho)) {
                    best_n = o->n;
                    best_s = s;
                }
            nres *r = &g.res[o->n];
            if (!best_n && r->lambda != 0) {
                lam_first = walked++ ? lam_first : r->lambda;
                lam_last = r->lambda;
            }
            if (best_n || !(o->flags & MNS_PMNS_GEN_LAMBDA_WALK) ||
                o->eshape != MNS_PMNS_E_BINOMIAL || r->lambda == 0 || walk >= 64) {
                /* the walk's last step only says the lambdas ran out: the
                 * reason is that none of the ones walked gave a set */
                if (!best_n && walked > 0 && (o->flags & MNS_PMNS_GEN_LAMBDA_WALK))
                    snprintf(r->why, sizeof r->why,
                             "the bounds do not hold with %s %d lambda%s that give an irreducible "
                             "X^%d - lambda with a root mod p (|lambda| <= %ld: %ld .. %ld)%s",
                             walk >= 64 ? "the first" : "any of the", walked, walked > 1 ? "s" : "",
                             o->n, o->lambda_max, lam_first, lam_last,
                             walk >= 64 ? "; the walk stops there" : "");
                break;
            }
            g.lambda_after = r->lambda;
            vec_free(r->m, o->n);
            mpz_clear(r->gamma);
            mpz_clear(r->N);
            r->state = 0;
        }
    } else if (o->s) {
        best_n = search_n(&g, o->s, &last);
        best_s = o->s;
    } else {
        /* automatic s: the smallest s*n, then the smallest s (Table 3) */
        int s_hi = o->s_max ? o->s_max : 6;
        int done[MNS_PMNS_S_MAX + 1] = {0};
        for (int round = 0; round < s_hi && !g.cancelled; round++) {
            int pick = 0;
            long pick_sn = 0;
            for (int s = 1; s <= s_hi; s++) {
                if (done[s])
                    continue;
                int pn = predict_n(&g, s, 2);
                long sn = (long)s * pn;
                if (!pick || sn < pick_sn) {
                    pick = s;
                    pick_sn = sn;
                }
            }
            if (!pick)
                break;
            done[pick] = 1;
            /* a few coefficients of slack for the model's error */
            if (best_n && pick_sn > (long)best_s * best_n + pick)
                continue;
            int n = search_n(&g, pick, &last);
            if (n && (!best_n || (long)pick * n < (long)best_s * best_n ||
                      ((long)pick * n == (long)best_s * best_n && pick < best_s))) {
                best_n = n;
                best_s = pick;
            }
        }
    }
    if (best_n && (o->flags & MNS_PMNS_GEN_SMOOTH_N) && !o->n && !is_smooth7(best_n)) {
        long lim = (long)best_s * best_n + ((long)best_s * best_n) / 16;
        int s_lo = o->s ? o->s : 1, s_hi = o->s ? o->s : (o->s_max ? o->s_max : 6);
        long bsn = 0;
        int sn_n = 0, sn_s = 0;
        for (int s = s_lo; s <= s_hi && !g.cancelled; s++)
            for (int n = 2; (long)s * n <= lim && n <= g.n_max; n++) {
                if (!is_smooth7(n) || (long)s * n < (long)best_s * best_n)
                    continue;
                if (!g.res[n].state && shortfall(&g, n, s) > 1.5)
                    continue;
                eval_n_skip(&g, n, s, 1.0);
                if (fit(&g, n, s, &k, rho) && (!sn_n || (long)s * n < bsn)) {
                    bsn = (long)s * n;
                    sn_n = n;
                    sn_s = s;
                }
            }
        if (sn_n) {
            best_n = sn_n;
            best_s = sn_s;
        }
    }
    mpz_clear(rho);
    if (g.cancelled) {
        st = g.deadline ? mns_error(MNS_ERANGE, DEADLINE_MSG)
                        : mns_error(MNS_ERANGE, "pmns_generate: cancelled by the progress callback");
    } else if (!best_n) {
        const char *why = last && g.res[last].state && g.res[last].why[0] ? g.res[last].why : "";
        if (o->n)
            st = mns_error(MNS_ENOTSUP, "pmns_generate: no PMNS with n = %d%s%s%s", o->n,
                           o->s ? " and this s" : " and s <= s_max",
                           why[0] ? ": " : " (the bounds do not hold)", why);
        else
            st = mns_error(MNS_ENOTSUP, "pmns_generate: no PMNS with n <= %d for this p and these options%s%s",
                           g.n_max, why[0] ? ": " : "", why);
    } else {
        st = build(&g, out, best_n, best_s);
        if (link && best_n > 2 && g.res[best_n - 1].state)
            link->lam_below = labs(g.res[best_n - 1].lambda);
    }
    if (link) {
        link->a_sum = g.a_sum;
        link->a_cnt = g.a_cnt;
    }
    for (int n = 0; n <= g.n_max; n++) {
        if (g.res[n].state) {
            vec_free(g.res[n].m, n);
            mpz_clear(g.res[n].gamma);
            mpz_clear(g.res[n].N);
        }
    }
    free(g.res);
    mns_chi_cache_clear(&g.chi);
    mpz_clear(g.p);
    return st;
}

#endif /* MNS_HAVE_FLINT */
