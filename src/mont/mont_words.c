/* The constant-time entry and exit of the `mont` backend (set_words and
 * get_words of backend.h): a < p is already a valid kernel operand, and one
 * Montgomery product by R^2 mod p gives a R mod p, the stored form; one
 * product by 1 gives it back, fully reduced (every kernel output is below
 * p). The kernels are constant time, so both are too; no table, no
 * addition chain. */
#include <string.h>

#include "core/tmp.h"
#include "mont/mont.h"

void mns_mont_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_mont_ctx *c = ctx;
    c->mul(c, r, a, c->r2);
}

void mns_mont_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_mont_ctx *c = ctx;
    /* 1 in a buffer of its own (r may alias a); mont_create checked that
     * n words fit the per-call scratch */
    mns_tmp tmp;
    uint64_t *one = mns_tmp_get(&tmp, c->n);
    memset(one, 0, c->n * sizeof(uint64_t));
    one[0] = 1;
    c->mul(c, r, a, one);
}
