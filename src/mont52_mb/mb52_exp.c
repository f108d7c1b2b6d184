/* Eight constant-time fixed-window exponentiations in the lanes (mb52.h):
 * one table of 2^w lane blocks (entry k holds x_l^k in lane l), then per
 * window of the exponents w squarings of the whole block and one product by
 * a block whose lane l is entry d_l of lane l's table, d_l being lane l's
 * window digit. Every lane runs the same operations, the window count
 * depends on the public bit length only, and the per-lane selection reads
 * every entry and keeps the wanted one by masks, so neither time nor
 * addresses depend on a base or an exponent. */
#include <string.h>

#include "core/ct.h"
#include "exp/exp.h"
#include "mont52_mb/mb52.h"

#define L MNS_MB52_LANES
/* A 2^5-entry table is 160 KB at 79 digits; wider windows would gain under
 * 2% at 4096-bit exponents (crypto_mb also stops at 5). Up to 40 digits a
 * 2^4-entry table (at most 40 KB, inside L1) measured as fast or faster
 * than 2^5 (Zen 5: 1024-bit exponents 1% faster, 1536 and 2048 8%, the
 * selection reading every entry each window); above, 2^5 is 1-2% faster. */
#define MB52_MAX_WINDOW 5
#define MB52_MAX_WINDOW_L1 4
#define MB52_L1_DIGITS 40

unsigned mns_mb52_window(const mns_mb52_ctx *c, size_t bits)
{
    const unsigned w = mns_exp_window(bits, L * c->m);
    const unsigned max = c->m <= MB52_L1_DIGITS ? MB52_MAX_WINDOW_L1 : MB52_MAX_WINDOW;
    return w > max ? max : w;
}

size_t mns_mb52_powm_itch(const mns_mb52_ctx *c, size_t bits)
{
    return ((((size_t)1) << mns_mb52_window(c, bits)) + 2) * L * c->m + L;
}

/* Bits [pos, pos + w) of an ew-word exponent (zero above its top); pos is
 * public, the value comes out by shifts only. */
static uint64_t window_at(const uint64_t *e, size_t ew, size_t pos, unsigned w)
{
    const size_t i = pos / 64;
    const unsigned sh = (unsigned)(pos % 64);
    const uint64_t lo = i < ew ? e[i] : 0, hi = i + 1 < ew ? e[i + 1] : 0;
    uint64_t v = lo >> sh;
    if (sh)
        v |= hi << (64 - sh);
    return v & ((((uint64_t)1) << w) - 1);
}

/* r <- per lane l, entry idx[l] of the table (count blocks): every entry
 * is read and kept by masks (mb52.h) */
void mns_mb52_select_generic(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *table,
                             size_t count, const uint64_t *idx)
{
    const size_t B = L * c->m;
    uint64_t mask[L];
    memset(r, 0, B * sizeof(uint64_t));
    for (size_t k = 0; k < count; k++) {
        for (unsigned l = 0; l < L; l++)
            mask[l] = mns_ct_mask_eq(idx[l], (uint64_t)k);
        const uint64_t *t = table + k * B;
        for (size_t j = 0; j < B; j += L)
            for (unsigned l = 0; l < L; l++)
                r[j + l] |= t[j + l] & mask[l];
    }
}

static void lane_select(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *table, size_t count,
                        const uint64_t *idx)
{
    if (c->kernel == MNS_MB52_IFMA)
        mns_mb52_select_ifma(c, r, table, count, idx);
    else
        mns_mb52_select_generic(c, r, table, count, idx);
}

static void window_digits(uint64_t *idx, const uint64_t *e, size_t ew, size_t pos, unsigned w)
{
    for (unsigned l = 0; l < L; l++)
        idx[l] = window_at(e + l * ew, ew, pos, w);
}

void mns_mb52_powm(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x, const uint64_t *e,
                   size_t ew, size_t bits, uint64_t *scratch)
{
    const size_t B = L * c->m;
    if (bits == 0) {
        memcpy(r, c->onev, B * sizeof(uint64_t));
        return;
    }
    const unsigned w = mns_mb52_window(c, bits);
    const size_t count = ((size_t)1) << w, windows = (bits + w - 1) / w;
    /* 64-byte rows for the selection's aligned loads */
    uint64_t *table = (uint64_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    uint64_t *acc = table + count * B, *sel = acc + B, idx[L];
    memcpy(table, c->onev, B * sizeof(uint64_t));
    memcpy(table + B, x, B * sizeof(uint64_t));
    for (size_t k = 2; k < count; k++) {
        if (k % 2 == 0)
            c->sqr(c, table + k * B, table + (k / 2) * B);
        else
            c->mul(c, table + k * B, table + (k - 1) * B, table + B);
    }
    window_digits(idx, e, ew, (windows - 1) * w, w);
    lane_select(c, acc, table, count, idx);
    for (size_t i = windows - 1; i-- > 0;) {
        for (unsigned s = 0; s < w; s++)
            c->sqr(c, acc, acc);
        window_digits(idx, e, ew, i * w, w);
        lane_select(c, sel, table, count, idx);
        c->mul(c, acc, acc, sel);
    }
    memcpy(r, acc, B * sizeof(uint64_t));
}
