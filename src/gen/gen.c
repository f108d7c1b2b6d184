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
#include "gen/gen_internal.h"

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

static double shortfall_l(const genctx *g, int n, int s, long lambda);

/* Evaluates n: lambda, gamma, LLL, M. With skip_s > 0, the LLL is skipped
 * (state 2, not ok) when the model, told the lambda this n must use, puts it
 * more than skip_bits short for skip_s words: an n whose smallest lambda is
 * 11 does not need a lattice reduction to be ruled out. */
static void eval_n_skip(genctx *g, int n, int skip_s, double skip_bits);

static void eval_n(genctx *g, int n) { eval_n_skip(g, n, 0, 0); }

/* The smallest binomial lambda in the search order (1, -1, 2, -2, ...,
 * after g->lambda_after) with X^n - lambda irreducible over Z and lambda an
 * n-th power mod p, decided by power-residue characters alone; 0 if none
 * up to lambda_max. */
static long find_lambda(genctx *g, int n)
{
    mpz_t L;
    mpz_init(L);
    long found = 0;
    for (long l = 1; l <= g->o->lambda_max && !found; l++) {
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
            if (pw)
                found = lam;
        }
    }
    mpz_clear(L);
    return found;
}

/* Up to `tries` roots gamma of E mod p into roots; how many (0: none, with
 * r->why said). */
static int find_roots(genctx *g, nres *r, mpz_t *roots, int tries, int n, long lambda)
{
    int nroots;
    if (g->o->eshape == MNS_PMNS_E_BINOMIAL) {
        mpz_t L;
        mpz_init_set_si(L, lambda);
        mpz_mod(L, L, g->p);
        nroots = mns_nroots(roots, tries, L, (unsigned long)n, g->p);
        mpz_clear(L);
        if (!nroots)
            snprintf(r->why, sizeof r->why, "internal: X^%d - %ld has no root mod p after all", n, lambda);
    } else {
        nroots = mns_trinomial_roots(roots, tries, n, g->p);
        if (!nroots)
            snprintf(r->why, sizeof r->why, "X^%d - X - 1 has no root mod p", n);
    }
    return nroots;
}

/* For each root: LLL, then M; r keeps the root and M of the smallest N. */
static void best_m(genctx *g, nres *r, mpz_t *const roots, int nroots, int n, long lambda)
{
    const mns_pmns_eshape e = g->o->eshape;
    mpz_t **rows = malloc(sizeof(mpz_t *) * (size_t)n);
    mpz_t *m = vec_new(n);
    if (!rows || !m) {
        free(rows);
        vec_free(m, n);
        snprintf(r->why, sizeof r->why, "out of memory for the lattice of n = %d", n);
        return;
    }
    for (int i = 0; i < n; i++)
        rows[i] = vec_new(n);
    mpz_t N;
    mpz_init(N);
    for (int k = 0; k < nroots && !g->cancelled; k++) {
        if (progress(g, "lll", n, 0.0))
            break;
        mns_gen_lll_rows(g, rows, n, roots[k]);
        if (progress(g, "M", n, 0.0))
            break;
        int have = g->word == MNS_PMNS_WORD_U52 ? mns_gen_choose_m_positive(g, m, rows, n, e, lambda)
                                               : mns_gen_choose_m_signed(g, m, rows, n, e, lambda);
        if (!have)
            continue;
        int nonneg;
        mns_poly_norm1(N, &nonneg, m, n, e, lambda);
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
}

/* A new N feeds the model's calibration a: a without log2|lambda|, which
 * varies between n; the trinomial's reduction matrix grows like lambda =
 * 2's (measured: equal N at equal n within the LLL scatter). */
static void calibrate(genctx *g, nres *r, int n)
{
    r->log2N = mpz_log2(r->N);
    double ll = g->o->eshape == MNS_PMNS_E_TRINOMIAL ? 1.0 : log2(fabs((double)r->lambda));
    g->a_sum += r->log2N - ll - (g->log2p + log2_fact(n)) / n;
    g->a_cnt++;
}

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
    if (progress(g, "lambda", n, 0.0))
        return;
    /* The lambda is found by power-residue characters alone; gamma (a
     * root, several exponentiations) only once the model does not skip n. */
    long lambda = 0;
    if (g->o->eshape == MNS_PMNS_E_BINOMIAL && !(lambda = find_lambda(g, n))) {
        snprintf(r->why, sizeof r->why,
                 "no lambda with |lambda| <= %ld gives an irreducible X^%d - lambda with a root mod p",
                 g->o->lambda_max, n);
        return;
    }
    r->lambda = lambda;
    if (skip_s > 0 && shortfall_l(g, n, skip_s, lambda) > skip_bits) {
        r->state = 2;
        snprintf(r->why, sizeof r->why, "n = %d skipped: lambda = %ld predicted too large", n, lambda);
        return;
    }
    const int tries = g->o->gamma_tries > 0 ? g->o->gamma_tries : 1;
    mpz_t *roots = vec_new(tries);
    if (!roots) {
        snprintf(r->why, sizeof r->why, "out of memory for the roots of n = %d", n);
        return;
    }
    const int nroots = find_roots(g, r, roots, tries, n, lambda);
    if (nroots)
        best_m(g, r, roots, nroots, n, lambda);
    if (r->ok)
        calibrate(g, r, n);
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
    if (!mns_gen_mprime(P->mprime, P->m, n, P->eshape, P->lambda, P->phi_log2)) {
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

/* The chosen (n, s) of a search, 0 when none fits. */
typedef struct pick {
    int n, s;
} pick;

/* n given: the smallest lambda first; with MNS_PMNS_GEN_LAMBDA_WALK the next
 * ones while the set does not fit (a larger lambda costs bits of w and rho,
 * but its lattice may give a smaller N). */
static pick search_given_n(genctx *g, mpz_t rho)
{
    const mns_pmns_gen_opts *o = g->o;
    const int s_lo = o->s ? o->s : 1, s_hi = o->s ? o->s : (o->s_max ? o->s_max : 6);
    pick b = {0, 0};
    unsigned k;
    int walked = 0; /* lambdas with a root that did not give a set */
    long lam_first = 0, lam_last = 0;
    for (int walk = 0; !b.n && !g->cancelled; walk++) {
        eval_n(g, o->n);
        for (int s = s_lo; s <= s_hi && !b.n; s++)
            if (fit(g, o->n, s, &k, rho))
                b = (pick){o->n, s};
        nres *r = &g->res[o->n];
        if (!b.n && r->lambda != 0) {
            lam_first = walked++ ? lam_first : r->lambda;
            lam_last = r->lambda;
        }
        if (b.n || !(o->flags & MNS_PMNS_GEN_LAMBDA_WALK) || o->eshape != MNS_PMNS_E_BINOMIAL ||
            r->lambda == 0 || walk >= 64) {
            /* the walk's last step only says the lambdas ran out: the
             * reason is that none of the ones walked gave a set */
            if (!b.n && walked > 0 && (o->flags & MNS_PMNS_GEN_LAMBDA_WALK))
                snprintf(r->why, sizeof r->why,
                         "the bounds do not hold with %s %d lambda%s that give an irreducible "
                         "X^%d - lambda with a root mod p (|lambda| <= %ld: %ld .. %ld)%s",
                         walk >= 64 ? "the first" : "any of the", walked, walked > 1 ? "s" : "", o->n,
                         o->lambda_max, lam_first, lam_last, walk >= 64 ? "; the walk stops there" : "");
            break;
        }
        g->lambda_after = r->lambda;
        vec_free(r->m, o->n);
        mpz_clear(r->gamma);
        mpz_clear(r->N);
        r->state = 0;
    }
    return b;
}

/* Automatic s: the smallest s*n, then the smallest s (Table 3); the s are
 * searched in the order of the model's predicted s*n. */
static pick search_auto_s(genctx *g, int *last)
{
    const int s_hi = g->o->s_max ? g->o->s_max : 6;
    int done[MNS_PMNS_S_MAX + 1] = {0};
    pick b = {0, 0};
    for (int round = 0; round < s_hi && !g->cancelled; round++) {
        int s_next = 0;
        long next_sn = 0;
        for (int s = 1; s <= s_hi; s++) {
            if (done[s])
                continue;
            long sn = (long)s * predict_n(g, s, 2);
            if (!s_next || sn < next_sn) {
                s_next = s;
                next_sn = sn;
            }
        }
        if (!s_next)
            break;
        done[s_next] = 1;
        /* a few coefficients of slack for the model's error */
        if (b.n && next_sn > (long)b.s * b.n + s_next)
            continue;
        int n = search_n(g, s_next, last);
        if (n && (!b.n || (long)s_next * n < (long)b.s * b.n ||
                  ((long)s_next * n == (long)b.s * b.n && s_next < b.s)))
            b = (pick){n, s_next};
    }
    return b;
}

/* MNS_PMNS_GEN_SMOOTH_N: a 7-smooth n (FFT-friendly kernels) within 1/16
 * more coefficients than the best, if one fits. */
static pick prefer_smooth(genctx *g, pick b, mpz_t rho)
{
    const mns_pmns_gen_opts *o = g->o;
    const long lim = (long)b.s * b.n + ((long)b.s * b.n) / 16;
    const int s_lo = o->s ? o->s : 1, s_hi = o->s ? o->s : (o->s_max ? o->s_max : 6);
    pick sm = {0, 0};
    unsigned k;
    for (int s = s_lo; s <= s_hi && !g->cancelled; s++)
        for (int n = 2; (long)s * n <= lim && n <= g->n_max; n++) {
            if (!is_smooth7(n) || (long)s * n < (long)b.s * b.n)
                continue;
            if (!g->res[n].state && shortfall(g, n, s) > 1.5)
                continue;
            eval_n_skip(g, n, s, 1.0);
            if (fit(g, n, s, &k, rho) && (!sm.n || (long)s * n < (long)sm.s * sm.n))
                sm = (pick){n, s};
        }
    return sm.n ? sm : b;
}

static mns_status genctx_init(genctx *g, const mpz_t p, const mns_pmns_gen_opts *o, double t0,
                              const gen_link *link)
{
    memset(g, 0, sizeof *g);
    g->bits = mpz_sizeinbase(p, 2);
    g->log2p = mpz_log2(p);
    g->o = o;
    g->word = o->word;
    g->sigma = mns_pmns_sigma_log2(o->word);
    g->rng = 0x9E3779B97F4A7C15ULL;
    g->t0 = t0;
    if (link && link->a_cnt) {
        g->a_sum = link->a_sum;
        g->a_cnt = link->a_cnt;
    }
    int nopt = mns_pmns_nopt(g->bits, g->sigma);
    g->n_max = o->n_max ? o->n_max : 4 * nopt + 16;
    if (g->n_max > MNS_PMNS_N_MAX)
        g->n_max = MNS_PMNS_N_MAX;
    if (o->n > g->n_max)
        g->n_max = o->n;
    g->res = calloc((size_t)g->n_max + 1, sizeof(nres));
    if (!g->res)
        return mns_error(MNS_ENOMEM, "pmns_generate: out of memory");
    mpz_init_set(g->p, p);
    return MNS_OK;
}

static void genctx_clear(genctx *g)
{
    for (int n = 0; n <= g->n_max; n++) {
        if (g->res[n].state) {
            vec_free(g->res[n].m, n);
            mpz_clear(g->res[n].gamma);
            mpz_clear(g->res[n].N);
        }
    }
    free(g->res);
    mns_chi_cache_clear(&g->chi);
    mpz_clear(g->p);
}

/* The error of a search that found nothing: cancelled, or the reason the
 * last n tried gave. */
static mns_status no_set(const genctx *g, int last)
{
    const mns_pmns_gen_opts *o = g->o;
    if (g->cancelled)
        return g->deadline ? mns_error(MNS_ERANGE, DEADLINE_MSG)
                           : mns_error(MNS_ERANGE, "pmns_generate: cancelled by the progress callback");
    const char *why = last && g->res[last].state && g->res[last].why[0] ? g->res[last].why : "";
    if (o->n)
        return mns_error(MNS_ENOTSUP, "pmns_generate: no PMNS with n = %d%s%s%s", o->n,
                         o->s ? " and this s" : " and s <= s_max", why[0] ? ": " : " (the bounds do not hold)",
                         why);
    return mns_error(MNS_ENOTSUP, "pmns_generate: no PMNS with n <= %d for this p and these options%s%s", g->n_max,
                     why[0] ? ": " : "", why);
}

/* One shape of E; the options are valid and p is prime. link (may be
 * NULL): the model's calibration in and out, lam_below out. */
static mns_status generate_one(mns_pmns_params **out, const mpz_t p, const mns_pmns_gen_opts *o, double t0,
                               gen_link *link)
{
    genctx g;
    mns_status st = genctx_init(&g, p, o, t0, link);
    if (st != MNS_OK)
        return st;
    int last = 0;
    pick b = {0, 0};
    mpz_t rho;
    mpz_init(rho);
    if (o->n) {
        last = o->n;
        b = search_given_n(&g, rho);
    } else if (o->s) {
        b = (pick){search_n(&g, o->s, &last), o->s};
    } else {
        b = search_auto_s(&g, &last);
    }
    if (b.n && (o->flags & MNS_PMNS_GEN_SMOOTH_N) && !o->n && !is_smooth7(b.n))
        b = prefer_smooth(&g, b, rho);
    mpz_clear(rho);
    if (g.cancelled || !b.n) {
        st = no_set(&g, last);
    } else {
        st = build(&g, out, b.n, b.s);
        if (link && b.n > 2 && g.res[b.n - 1].state)
            link->lam_below = labs(g.res[b.n - 1].lambda);
    }
    if (link) {
        link->a_sum = g.a_sum;
        link->a_cnt = g.a_cnt;
    }
    genctx_clear(&g);
    return st;
}

#endif /* MNS_HAVE_FLINT */
