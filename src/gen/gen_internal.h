/* What the generator's files share: the state of one generation (genctx,
 * one nres per n tried), its small helpers, and the choice of M from a
 * reduced lattice (lattice.c) that the search over n (gen.c) calls. FLINT
 * builds only. */
#ifndef MNS_GEN_INTERNAL_H
#define MNS_GEN_INTERNAL_H

#include <math.h>
#include <stdlib.h>

#include "gen/gen.h"
#include "core/deadline.h"

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
static inline long lambda_key(long lambda) { return lambda > 0 ? 2 * lambda : -2 * lambda + 1; }

static inline int progress(genctx *g, const char *stage, int n, double f)
{
    if (g->cancelled)
        return 1;
    if (mns_deadline_passed()) /* the calling thread's deadline (core/deadline.h) */
        g->cancelled = g->deadline = 1;
    else if (g->o->progress && g->o->progress(g->o->progress_arg, stage, n, f))
        g->cancelled = 1;
    return g->cancelled;
}

static inline uint64_t rnd(genctx *g)
{
    /* xorshift64*: deterministic, so a regenerated file compares equal */
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 0x2545F4914F6CDD1DULL;
}

static inline double log2_fact(int n)
{
    double s = 0;
    for (int i = 2; i <= n; i++)
        s += log2((double)i);
    return s;
}

static inline double mpz_log2(const mpz_t x)
{
    if (mpz_sgn(x) == 0)
        return -1e300;
    long e;
    double d = mpz_get_d_2exp(&e, x);
    return log2(fabs(d)) + (double)e;
}

/* ---------------------------------------------------------------------- */
/* polynomial vectors                                                     */

static inline mpz_t *vec_new(int n)
{
    mpz_t *v = malloc(sizeof(mpz_t) * (size_t)n);
    if (v)
        for (int i = 0; i < n; i++)
            mpz_init(v[i]);
    return v;
}

static inline void vec_free(mpz_t *v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        mpz_clear(v[i]);
    free(v);
}

static inline void vec_set(mpz_t *r, mpz_t *const a, int n)
{
    for (int i = 0; i < n; i++)
        mpz_set(r[i], a[i]);
}


/* LLL-reduce the lattice of eq. (1) for gamma; rows out as mpz. */
void mns_gen_lll_rows(genctx *g, mpz_t **rows, int n, const mpz_t gamma);
/* M for signed (s64) coefficients: the paper's heuristic then the descent.
 * 1 if an invertible M was found. */
int mns_gen_choose_m_signed(genctx *g, mpz_t *out, mpz_t **rows, int n, mns_pmns_eshape e, long lambda);
/* M for unsigned (u52) coefficients: Babai towards (T, ..., T), then the
 * positive descent; the paper's construction as the fallback. */
int mns_gen_choose_m_positive(genctx *g, mpz_t *out, mpz_t **rows, int n, mns_pmns_eshape e, long lambda);
/* mp <- -M^-1 mod (E, 2^h); 0 when M is not invertible mod (E, 2). */
int mns_gen_mprime(mpz_t *mp, mpz_t *const m, int n, mns_pmns_eshape e, long lambda, unsigned h);

#endif
