/* Portable Montgomery kernels for any word count: the steps of
 * mont_body.h (CIOS product, a squaring that computes each cross product
 * once, a separated REDC) with n known at run time and the running sum in
 * scratch. No branch and no memory index depend on the operands. */
#include <string.h>

#include "core/tmp.h"
#include "mont/mont.h"
#include "mont/mont_body.h"

void mns_mont_final_sub(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, uint64_t hi)
{
    mont_final_sub(r, a, hi, c->p, c->n);
}

void mns_mont_mul_generic(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,
                          const uint64_t *b)
{
    const size_t n = c->n;
    mns_tmp tmp;
    uint64_t *t = mns_tmp_get(&tmp, n + 1);
    memset(t, 0, (n + 1) * sizeof(uint64_t));
    mont_mul_body(r, a, b, c->p, c->pinv, t, n);
}

void mns_mont_redc_generic(const mns_mont_ctx *c, uint64_t *r, uint64_t *t)
{
    mont_redc_body(r, t, c->p, c->pinv, c->n);
}

void mns_mont_sqr_generic(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a)
{
    const size_t n = c->n;
    mns_tmp tmp;
    uint64_t *t = mns_tmp_get(&tmp, 2 * n);
    memset(t, 0, 2 * n * sizeof(uint64_t));
    mont_sqr_words(t, a, n);
    mont_redc_body(r, t, c->p, c->pinv, n);
}
