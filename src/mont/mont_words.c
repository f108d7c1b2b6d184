/* The constant-time entry of the `mont` backend (set_words of backend.h):
 * a < p is already a valid kernel operand, and one Montgomery product by
 * R^2 mod p gives a R mod p, the stored form. The kernels are constant time,
 * so the entry is too; no table, no addition chain. */
#include "mont/mont.h"

void mns_mont_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_mont_ctx *c = ctx;
    c->mul(c, r, a, c->r2);
}
