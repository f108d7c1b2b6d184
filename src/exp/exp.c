#include "exp/exp.h"

#include <stdlib.h>
#include <string.h>

#include "core/ct.h"
#include "core/error.h"

#define MNS_EXP_MAX_WINDOW 7

/* Cost in multiplications of a window w for a `bits`-bit exponent: the table
 * (2^w - 2 products), one product per window, and the Select that reads the
 * whole table per window. A Select of 2^w entries of `limbs` words costs about
 * 2^w / (4 limbs) products (masked word loads against a ~limbs^2 product), so
 * wide windows stop paying sooner for short elements. Squarings (bits of
 * them) do not depend on w. Everything here is public. */
static double window_cost(size_t bits, size_t limbs, unsigned w)
{
    double windows = (double)((bits + w - 1) / w);
    double table = (double)((1u << w) - 2);
    double select = windows * (double)(1u << w) / (4.0 * (double)(limbs ? limbs : 1));
    return windows + table + select;
}

static unsigned choose_window(size_t bits, size_t limbs)
{
    unsigned best = 1;
    for (unsigned w = 2; w <= MNS_EXP_MAX_WINDOW; w++)
        if (window_cost(bits, limbs, w) < window_cost(bits, limbs, best))
            best = w;
    return best;
}

unsigned mns_exp_window(size_t bits, size_t limbs) { return choose_window(bits, limbs); }

size_t mns_exp_scratch_words(size_t limbs, size_t bits)
{
    unsigned w = choose_window(bits, limbs);
    return ((size_t)1 << w) * limbs + limbs + limbs;
}

/* Bits [pos, pos + w) of the exponent words (zero beyond the top). The
 * position is public; the value is extracted with shifts only. */
static uint64_t window_at(const uint64_t *ew, size_t nw, size_t pos, unsigned w)
{
    size_t i = pos / 64;
    unsigned sh = (unsigned)(pos % 64);
    uint64_t lo = i < nw ? ew[i] : 0;
    uint64_t hi = (i + 1 < nw) ? ew[i + 1] : 0;
    uint64_t v = lo >> sh;
    if (sh)
        v |= hi << (64 - sh);
    return v & ((((uint64_t)1) << w) - 1);
}

void mns_exp_powm(const mns_exp_ops *ops, uint64_t *r, const uint64_t *a, const mpz_t e,
                  uint64_t *scratch)
{
    const size_t n = ops->limbs;
    const size_t bits = mpz_sizeinbase(e, 2);
    if (mpz_sgn(e) == 0) {
        ops->one(ops->ctx, r);
        return;
    }
    const unsigned w = choose_window(bits, n);
    const size_t entries = (size_t)1 << w;
    uint64_t *table = scratch;
    uint64_t *sel = table + entries * n;
    uint64_t *acc = sel + n;

    /* table[i] = a^i; even entries by squaring (cheaper), odd by product */
    ops->one(ops->ctx, table);
    memcpy(table + n, a, n * sizeof(uint64_t));
    for (size_t i = 2; i < entries; i++) {
        if (i % 2 == 0)
            ops->sqr(ops->ctx, table + i * n, table + (i / 2) * n);
        else
            ops->mul(ops->ctx, table + i * n, table + (i - 1) * n, a);
    }

    /* the exponent's words, read once; mpz limbs are 64-bit on x86-64 */
    const size_t nw = mpz_size(e);
    const mp_limb_t *ed = mpz_limbs_read(e);
    const uint64_t *ew = (const uint64_t *)ed;

    size_t windows = (bits + w - 1) / w;
    size_t pos = (windows - 1) * w;
    mns_ct_select(acc, table, entries, n, window_at(ew, nw, pos, w));
    while (pos > 0) {
        pos -= w;
        for (unsigned k = 0; k < w; k++)
            ops->sqr(ops->ctx, acc, acc);
        mns_ct_select(sel, table, entries, n, window_at(ew, nw, pos, w));
        ops->mul(ops->ctx, acc, acc, sel);
    }
    memcpy(r, acc, n * sizeof(uint64_t));
}

mns_status mns_exp_powm_alloc(const mns_exp_ops *ops, uint64_t *r, const uint64_t *a,
                              const mpz_t e)
{
    size_t words = mns_exp_scratch_words(ops->limbs, mpz_sizeinbase(e, 2));
    uint64_t *scratch = (uint64_t *)malloc(words * sizeof(uint64_t));
    if (!scratch)
        return mns_error(MNS_ENOMEM, "powm: cannot allocate %zu words of scratch", words);
    mns_exp_powm(ops, r, a, e, scratch);
    /* the table holds powers of a secret base; explicit_bzero is not
     * removed as a dead store before free() the way memset may be */
    explicit_bzero(scratch, words * sizeof(uint64_t));
    free(scratch);
    return MNS_OK;
}
