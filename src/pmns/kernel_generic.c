/* Portable PMNS kernels: Algorithm 3 (product, external reduction by E,
 * RedCoeff of Algorithm 2) on signed __int128 coefficients.
 *
 * One code serves both word kinds: s64 (phi = 2^64, the quotient Q read as
 * int64, i.e. centred in [-phi/2, phi/2)) and u52 (phi = 2^52, Q in
 * [0, phi)); u52 is the portable twin of the IFMA kernel and gives the same
 * words, which the tests compare. The product is computed in full (2n-1
 * coefficients) and then folded by E, so X^n - lambda and X^n - X - 1 share
 * everything but the fold. No branch and no memory index depends on the
 * coefficients. */
#include <stdlib.h>
#include <string.h>

#include "pmns/pmns.h"

typedef __int128 i128;

/* V <- P mod E for a full product P of 2n-1 coefficients. */
static void fold_i128(const mns_pmns_ctx *c, i128 *v, const i128 *p)
{
    const int n = c->n;
    if (c->eshape == MNS_PMNS_E_BINOMIAL) {
        for (int k = 0; k < n - 1; k++)
            v[k] = p[k] + (i128)c->lambda * p[n + k];
        v[n - 1] = p[n - 1];
    } else {
        /* X^(n+j) = X^(j+1) + X^j */
        for (int k = 0; k < n; k++) {
            i128 s = p[k];
            if (k < n - 1)
                s += p[n + k];
            if (k >= 1)
                s += p[n + k - 1];
            v[k] = s;
        }
    }
}

/* Same fold modulo 2^64 (for Q = V M' mod (E, phi), phi | 2^64). */
static void fold_u64(const mns_pmns_ctx *c, uint64_t *v, const uint64_t *p)
{
    const int n = c->n;
    if (c->eshape == MNS_PMNS_E_BINOMIAL) {
        for (int k = 0; k < n - 1; k++)
            v[k] = p[k] + (uint64_t)c->lambda * p[n + k];
        v[n - 1] = p[n - 1];
    } else {
        for (int k = 0; k < n; k++) {
            uint64_t s = p[k];
            if (k < n - 1)
                s += p[n + k];
            if (k >= 1)
                s += p[n + k - 1];
            v[k] = s;
        }
    }
}

/* Per-call scratch on the stack: p (2n-1 i128), v (n i128), then p64 (2n-1
 * words) and q (n words) in the i128 slots beyond; mns_pmns_ctx_new refuses
 * n above MNS_PMNS_SCRATCH_N_MAX, so it always fits. */
#define SCR_STACK (3 * MNS_PMNS_SCRATCH_N_MAX + 3 * MNS_PMNS_SCRATCH_N_MAX / 2)
typedef struct scratch {
    _Alignas(64) i128 stack[SCR_STACK];
} scratch;

/* r <- (V + (V M' mod (E, phi)) M mod E) / phi; p is scratch of 2n-1 i128 and
 * w of 3n words. */
static void redc_wide(const mns_pmns_ctx *c, uint64_t *r, const i128 *v, i128 *p, uint64_t *w)
{
    const int n = c->n;
    uint64_t *p64 = w, *q = w + (2 * n - 1);

    /* Q <- V M' mod (E, phi): only the low word of V matters */
    memset(p64, 0, (size_t)(2 * n - 1) * 8);
    for (int i = 0; i < n; i++) {
        uint64_t vi = (uint64_t)v[i];
        for (int j = 0; j < n; j++)
            p64[i + j] += vi * c->mp[j];
    }
    fold_u64(c, q, p64);
    const uint64_t qmask = c->phi_log2 == 64 ? ~(uint64_t)0 : (((uint64_t)1 << c->phi_log2) - 1);
    for (int i = 0; i < n; i++)
        q[i] &= qmask;

    /* T <- Q M mod E; s64 reads q as int64 (the natural wrap), u52 as is */
    for (int k = 0; k < 2 * n - 1; k++)
        p[k] = 0;
    for (int i = 0; i < n; i++) {
        i128 qi = c->word == MNS_PMNS_WORD_S64 ? (i128)(int64_t)q[i] : (i128)q[i];
        for (int j = 0; j < n; j++)
            p[i + j] += qi * c->m[j];
    }
    /* S <- (V + T) / phi, exact: V + T = 0 mod phi by the choice of Q */
    const int h = (int)c->phi_log2;
    for (int k = 0; k < n; k++) {
        i128 tk = p[k];
        if (c->eshape == MNS_PMNS_E_BINOMIAL) {
            if (k < n - 1)
                tk += (i128)c->lambda * p[n + k];
        } else {
            if (k < n - 1)
                tk += p[n + k];
            if (k >= 1)
                tk += p[n + k - 1];
        }
        r[k] = (uint64_t)((v[k] + tk) >> h);
    }
}

void mns_pmns_redc_wide_generic(const mns_pmns_ctx *c, uint64_t *r, const i128 *v)
{
    const int n = c->n;
    scratch s;
    i128 *base = s.stack;
    redc_wide(c, r, v, base, (uint64_t *)(void *)(base + 3 * n));
}

static inline i128 coef(const mns_pmns_ctx *c, uint64_t a)
{
    return c->word == MNS_PMNS_WORD_S64 ? (i128)(int64_t)a : (i128)a;
}

void mns_pmns_mul_generic(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const int n = c->n;
    scratch s;
    i128 *p = s.stack;
    i128 *v = p + (2 * n - 1);
    for (int k = 0; k < 2 * n - 1; k++)
        p[k] = 0;
    for (int i = 0; i < n; i++) {
        i128 ai = coef(c, a[i]);
        for (int j = 0; j < n; j++)
            p[i + j] += ai * coef(c, b[j]);
    }
    fold_i128(c, v, p);
    redc_wide(c, r, v, p, (uint64_t *)(void *)(p + 3 * n));
}

/* The symmetric-product scheme: each a_i a_j (i < j) once, doubled, then the
 * squares a_i^2 on the even positions. */
void mns_pmns_sqr_generic(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)
{
    const int n = c->n;
    scratch s;
    i128 *p = s.stack;
    i128 *v = p + (2 * n - 1);
    for (int k = 0; k < 2 * n - 1; k++)
        p[k] = 0;
    for (int i = 0; i < n - 1; i++) {
        i128 ai = coef(c, a[i]);
        for (int j = i + 1; j < n; j++)
            p[i + j] += ai * coef(c, a[j]);
    }
    for (int i = 0; i < n; i++) {
        i128 ai = coef(c, a[i]);
        p[2 * i] = 2 * p[2 * i] + ai * ai;
        if (i < n - 1)
            p[2 * i + 1] *= 2;
    }
    fold_i128(c, v, p);
    redc_wide(c, r, v, p, (uint64_t *)(void *)(p + 3 * n));
}

void mns_pmns_redc_generic(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a)
{
    const int n = c->n;
    scratch s;
    i128 *p = s.stack;
    i128 *v = p + (2 * n - 1);
    for (int i = 0; i < n; i++)
        v[i] = coef(c, a[i]);
    redc_wide(c, r, v, p, (uint64_t *)(void *)(p + 3 * n));
}
