/* Constant-time negation, comparison and selection on elements.
 *
 * Comparison goes through the canonical words (reduce, then the backend's
 * constant-time get_words), so any tight or loose representation of a value
 * compares equal to any other: a redundant representation (Montgomery form
 * below 2p, PMNS polynomials, RNS residues of X < 2p) has many words for one
 * value. Masks are all-ones for true; cmov and cswap take any nonzero mask as
 * true. */
#include <string.h>

#include "core/ct.h"
#include "core/error.h"
#include "field/field_impl.h"

void mns_field_neg(const mns_field *f, uint64_t *r, const uint64_t *a)
{
    /* a (p - 1): one product, so a may be anything mul accepts and r is
     * tight on every backend, whatever its delta */
    f->mul(f->ctx, r, a, f->api.minus_one);
}

uint64_t mns_field_eq_in(const mns_field *f, const uint64_t *a, const uint64_t *b,
                         uint64_t *scratch)
{
    const size_t n = f->api.pn;
    uint64_t *wa = scratch, *wb = scratch + n, *t = scratch + 2 * n;
    mns_field_canon(f, wa, a, t);
    if (b)
        mns_field_canon(f, wb, b, t);
    else
        memset(wb, 0, n * sizeof(uint64_t));
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= wa[i] ^ wb[i];
    explicit_bzero(scratch, MNS_FIELD_EQ_WORDS(f) * sizeof(uint64_t));
    return ~mns_ct_mask_nonzero(acc);
}

static uint64_t eq(const mns_field *f, const uint64_t *a, const uint64_t *b, const char *who)
{
    if (mns_field_api_check(f, who) != MNS_OK)
        return 0;
    _Alignas(64) uint64_t blk[MNS_FIELD_API_WORDS];
    return mns_field_eq_in(f, a, b, blk);
}

uint64_t mns_field_is_zero(const mns_field *f, const uint64_t *a)
{
    return eq(f, a, NULL, "mns_field_is_zero");
}

uint64_t mns_field_equal(const mns_field *f, const uint64_t *a, const uint64_t *b)
{
    return eq(f, a, b, "mns_field_equal");
}

void mns_field_cmov(const mns_field *f, uint64_t *r, const uint64_t *a, uint64_t mask)
{
    mns_ct_cmov(r, a, f->inst.limbs, mns_ct_mask_nonzero(mask));
}

void mns_field_cswap(const mns_field *f, uint64_t *a, uint64_t *b, uint64_t mask)
{
    const uint64_t m = mns_ct_mask_nonzero(mask);
    for (size_t i = 0; i < f->inst.limbs; i++) {
        const uint64_t t = m & (a[i] ^ b[i]);
        a[i] ^= t;
        b[i] ^= t;
    }
}
