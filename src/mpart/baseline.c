/* The parallel baselines the paper compares against (section 4.2, 5.3):
 * Montgomery and Barrett modular multiplication whose three integer products
 * are each cut in T pieces over the same pool, with the pieces summed by one
 * thread after each join (the "barrier then sequential additions" of the
 * paper's parallel integer multiplication). So one call has three fork-joins
 * where the multipartite schedule has at most one barrier.
 *
 *   mpart-mont:    element x beta^n mod p; T = AB, Q = (T mod beta^n) mu mod
 *                  beta^n, R = (T + QP) / beta^n < 2P, one masked subtraction.
 *   mpart-barrett: element x; T = AB, q = floor(floor(T / beta^(n-1)) nu /
 *                  beta^(n+1)) with nu = floor(beta^2n / p) (HAC 14.42), R = T
 *                  - qP mod beta^(n+1) < 3P, two masked subtractions.
 * Full products throughout (no short products), as in the paper. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/ct.h"
#include "core/error.h"
#include "core/tmp.h"
#include "core/words.h"
#include "mpart/mpart.h"

typedef unsigned __int128 u128;

enum { BASE_MONT, BASE_BARRETT };

typedef struct base_exec {
    int T;
    size_t n;
    uint64_t *slots;  /* T slots of 2 n + 4 words */
    uint64_t *t, *z, *cy, *q; /* 2 n + 6 each */
    uint64_t *block;
} base_exec;

typedef struct base_ctx {
    int kind, T;
    size_t n;
    uint64_t *p, *mu, *nu, *one;
    uint64_t *r2, *unit; /* toz^2 mod p and the integer 1: set_words, get_words */
    mpz_t pz, toz, fromz; /* p, the factor into and out of the domain */
    mns_pool *pool;
    pthread_mutex_t busy;
    base_exec ex;
} base_ctx;

typedef struct base_job {
    const uint64_t *x, *y;
    size_t xn, yn;
    base_exec *ex;
} base_job;

/* every buffer holds a product of two (n + 1)-word numbers and a carry */
static size_t slot_words(size_t n) { return 2 * n + 6; }

static size_t bexec_words(size_t n, int T) { return ((size_t)T + 4) * slot_words(n); }

/* ex over `block` (bexec_words words) */
static void bexec_bind(base_exec *ex, size_t n, int T, uint64_t *block)
{
    size_t sw = slot_words(n);
    ex->T = T;
    ex->n = n;
    ex->block = block;
    ex->slots = ex->block;
    ex->t = ex->slots + (size_t)T * sw;
    ex->z = ex->t + sw;
    ex->cy = ex->z + sw;
    ex->q = ex->cy + sw;
}

static int bexec_init(base_exec *ex, size_t n, int T)
{
    uint64_t *block = malloc(bexec_words(n, T) * sizeof(uint64_t));
    if (!block)
        return 0;
    bexec_bind(ex, n, T, block);
    return 1;
}

/* worker w: x times its piece of y into its slot */
static void piece(void *arg, int w)
{
    const base_job *j = arg;
    size_t T = (size_t)j->ex->T, pa = j->yn * (size_t)w / T, pb = j->yn * (size_t)(w + 1) / T;
    if (pb == pa)
        return;
    uint64_t *slot = j->ex->slots + (size_t)w * slot_words(j->ex->n);
    const uint64_t *y = j->y + pa;
    mns_mpart_mul_any(slot, j->x, j->xn, y, pb - pa);
}

/* z (zn words) <- x y mod beta^zn, y cut in T pieces */
static void pmul(base_ctx *c, base_exec *ex, uint64_t *z, size_t zn, const uint64_t *x, size_t xn,
                 const uint64_t *y, size_t yn)
{
    base_job j = {x, y, xn, yn, ex};
    if (ex->T > 1)
        mns_pool_run(c->pool, piece, &j, sizeof j, 1);
    else
        piece(&j, 0);
    memset(z, 0, (zn + 1) * sizeof(uint64_t));
    memset(ex->cy, 0, (zn + 1) * sizeof(uint64_t));
    size_t T = (size_t)ex->T, sw = slot_words(ex->n);
    for (size_t w = 0; w < T; w++) {
        size_t pa = yn * w / T, pb = yn * (w + 1) / T;
        if (pb > pa)
            mns_mpart_acc_add(z, ex->cy, zn, pa, ex->slots + w * sw, xn + pb - pa);
    }
    mpn_add_n((mp_ptr)z, (mp_srcptr)z, (mp_srcptr)ex->cy, (mp_size_t)zn);
}

static void base_run(base_ctx *c, base_exec *ex, uint64_t *r, const uint64_t *a,
                     const uint64_t *b)
{
    const size_t n = c->n;
    uint64_t *T = ex->t, *z = ex->z;
    pmul(c, ex, T, 2 * n, a, n, b, n);
    if (c->kind == BASE_MONT) {
        /* Q = (T mod beta^n) mu mod beta^n */
        uint64_t *Q = ex->q;
        pmul(c, ex, Q, n, T, n, c->mu, n);
        pmul(c, ex, z, 2 * n, Q, n, c->p, n);
        uint64_t cy = mpn_add_n((mp_ptr)z, (mp_srcptr)z, (mp_srcptr)T, (mp_size_t)(2 * n));
        memcpy(r, z + n, n * sizeof(uint64_t));
        mns_mpart_csub(r, cy, c->p, n);
    } else {
        /* q1 = T >> (n-1) words, n + 1 words; q3 = q1 nu >> (n+1) words */
        uint64_t *q3 = ex->q;
        pmul(c, ex, z, 2 * n + 2, T + n - 1, n + 1, c->nu, n + 1);
        memcpy(q3, z + n + 1, (n + 1) * sizeof(uint64_t));
        pmul(c, ex, z, n + 1, q3, n + 1, c->p, n);
        uint64_t *rr = T; /* T mod beta^(n+1) - q3 p mod beta^(n+1) < 3p */
        mpn_sub_n((mp_ptr)rr, (mp_srcptr)rr, (mp_srcptr)z, (mp_size_t)(n + 1));
        for (int k = 0; k < 2; k++) {
            uint64_t *d = z;
            uint64_t bw = mpn_sub((mp_ptr)d, (mp_srcptr)rr, (mp_size_t)(n + 1), (mp_srcptr)c->p,
                                  (mp_size_t)n);
            mns_ct_cmov(rr, d, n + 1, ~mns_ct_mask_bit(bw));
        }
        memcpy(r, rr, n * sizeof(uint64_t));
    }
}

static void base_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    base_ctx *c = (base_ctx *)ctx;
    if (pthread_mutex_trylock(&c->busy) == 0) {
        base_run(c, &c->ex, r, a, b);
        pthread_mutex_unlock(&c->busy);
        return;
    }
    /* another thread holds the shared buffers: this product on the stack
     * where it fits the per-call scratch bound, else wait (no operation
     * allocates) */
    if (bexec_words(c->n, 1) <= MNS_SCRATCH_WORDS) {
        mns_tmp tmp;
        base_exec ex;
        bexec_bind(&ex, c->n, 1, mns_tmp_get(&tmp, bexec_words(c->n, 1)));
        base_run(c, &ex, r, a, b);
        return;
    }
    pthread_mutex_lock(&c->busy);
    base_run(c, &c->ex, r, a, b);
    pthread_mutex_unlock(&c->busy);
}

static void base_sqr(const void *ctx, uint64_t *r, const uint64_t *a) { base_mul(ctx, r, a, a); }

static void base_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const base_ctx *c = ctx;
    uint64_t cy = mpn_add_n((mp_ptr)r, (mp_srcptr)a, (mp_srcptr)b, (mp_size_t)c->n);
    mns_mpart_csub(r, cy, c->p, c->n);
}

static void base_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const base_ctx *c = ctx;
    uint64_t bw = mpn_sub_n((mp_ptr)r, (mp_srcptr)a, (mp_srcptr)b, (mp_size_t)c->n);
    mpn_cnd_add_n(bw, (mp_ptr)r, (mp_srcptr)r, (mp_srcptr)c->p, (mp_size_t)c->n);
}

static void base_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const base_ctx *c = ctx;
    if (r != a)
        memcpy(r, a, c->n * sizeof(uint64_t));
    mns_mpart_csub(r, 0, c->p, c->n);
}

static void base_one(const void *ctx, uint64_t *r)
{
    const base_ctx *c = ctx;
    memcpy(r, c->one, c->n * sizeof(uint64_t));
}

static mns_status base_set_mpz(const void *ctx, uint64_t *r, const mpz_t a)
{
    const base_ctx *c = ctx;
    mpz_t t;
    mpz_init(t);
    mpz_mul(t, a, c->toz);
    mpz_mod(t, t, c->pz);
    mns_words_from_mpz(r, c->n, t);
    mpz_clear(t);
    return MNS_OK;
}

static void base_get_mpz(const void *ctx, mpz_t r, const uint64_t *a)
{
    const base_ctx *c = ctx;
    mpz_import(r, c->n, -1, sizeof(uint64_t), 0, 0, a);
    mpz_mul(r, r, c->fromz);
    mpz_mod(r, r, c->pz);
}

/* The constant-time entry and exit through the product (X Y fromz): a toz^2
 * gives a toz, X 1 gives x; a masked subtraction makes the exit canonical. */
static void base_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const base_ctx *c = ctx;
    base_mul(ctx, r, a, c->r2);
}

static void base_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const base_ctx *c = ctx;
    base_mul(ctx, r, a, c->unit);
    mns_mpart_csub(r, 0, c->p, c->n);
}

static void base_destroy(void *ctx)
{
    base_ctx *c = ctx;
    if (!c)
        return;
    mns_pool_free(c->pool);
    pthread_mutex_destroy(&c->busy);
    free(c->ex.block);
    free(c->p);
    free(c->mu);
    free(c->nu);
    free(c->one);
    free(c->r2);
    free(c->unit);
    mpz_clears(c->pz, c->toz, c->fromz, NULL);
    free(c);
}

static const mns_field_ops base_ops = {
    .mul = base_mul,
    .sqr = base_sqr,
    .add = base_add,
    .sub = base_sub,
    .reduce = base_reduce,
    .one = base_one,
    .set_mpz = base_set_mpz,
    .get_mpz = base_get_mpz,
    .set_words = base_set_words,
    .get_words = base_get_words,
    .powm = NULL,
    .destroy = base_destroy,
};

static const char *const base_options[] = {"threads", NULL};

static mns_status base_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts,
                              int kind, const char *name)
{
    mns_status st = mns_opts_check(opts, name, base_options);
    if (st != MNS_OK)
        return st;
    long T = mns_mpart_default_threads(mpz_sizeinbase(p, 2));
    if ((st = mns_opts_get_long(opts, name, "threads", 1, 64, &T)) != MNS_OK)
        return st;
    base_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return mns_error(MNS_ENOMEM, "%s: out of memory", name);
    mpz_inits(c->pz, c->toz, c->fromz, NULL);
    pthread_mutex_init(&c->busy, NULL);
    const size_t n = mpz_size(p);
    c->kind = kind;
    c->n = n;
    c->T = (int)T;
    mpz_set(c->pz, p);
    c->p = calloc(n, sizeof(uint64_t));
    c->mu = calloc(n, sizeof(uint64_t));
    c->nu = calloc(n + 2, sizeof(uint64_t));
    c->one = calloc(n, sizeof(uint64_t));
    c->r2 = calloc(n, sizeof(uint64_t));
    c->unit = calloc(n, sizeof(uint64_t));
    if (!c->p || !c->mu || !c->nu || !c->one || !c->r2 || !c->unit ||
        !bexec_init(&c->ex, n, c->T)) {
        base_destroy(c);
        return mns_error(MNS_ENOMEM, "%s: out of memory", name);
    }
    mns_words_from_mpz(c->p, n, p);
    mpz_t t;
    mpz_init(t);
    if (kind == BASE_MONT) {
        mpz_setbit(t, 64 * n);
        mpz_set(c->toz, t); /* beta^n */
        mpz_invert(c->fromz, t, p);
        mpz_t m;
        mpz_init(m);
        mpz_invert(m, p, t);
        mpz_sub(m, t, m);
        mns_words_from_mpz(c->mu, n, m);
        mpz_clear(m);
        mpz_mod(t, c->toz, p);
        mns_words_from_mpz(c->one, n, t);
    } else {
        mpz_setbit(t, 128 * n);
        mpz_fdiv_q(t, t, p);
        mns_words_from_mpz(c->nu, n + 1, t);
        mpz_set_ui(c->toz, 1);
        mpz_set_ui(c->fromz, 1);
        c->one[0] = 1;
    }
    c->unit[0] = 1;
    mpz_mul(t, c->toz, c->toz);
    mpz_mod(t, t, p);
    mns_words_from_mpz(c->r2, n, t);
    mpz_clear(t);
    if (c->T > 1 && !(c->pool = mns_pool_new(c->T))) {
        base_destroy(c);
        return mns_error(MNS_ENOMEM, "%s: cannot start %ld threads", name, T);
    }
    out->ctx = c;
    out->ops = &base_ops;
    out->limbs = n;
    out->delta = INT_MAX;
    snprintf(out->describe, sizeof out->describe,
             "%s kernel=gmp-mpn threads=%d barriers=3 limbs=%zu bits=%zu", name, c->T, n,
             mpz_sizeinbase(p, 2));
    return MNS_OK;
}

static mns_status mont_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return base_create(out, p, opts, BASE_MONT, "mpart-mont");
}

static mns_status barrett_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return base_create(out, p, opts, BASE_BARRETT, "mpart-barrett");
}

const mns_backend mns_backend_mpart_mont = {"mpart-mont", mont_create};
const mns_backend mns_backend_mpart_barrett = {"mpart-barrett", barrett_create};
