/* The batch calls of the front door (mns_field_mul_n, _sqr_n, _powm_n):
 * groups of eight operations in the lanes of the lane-sliced kernels
 * (src/mont52_mb/mb52.h), the last group padded with dummy lanes, where the
 * field has a lane context (an IFMA CPU, p of at most 4158 bits); otherwise,
 * and for a single operation, the single calls one after the other.
 *
 * Products run in the lanes only on mont-ifma fields, whose elements are
 * lane digits already (the results are then the single calls' words);
 * on other backends a product would need a way out of and back into the
 * field per operation, which costs more than it saves. Exponentiations run
 * in the lanes on those fields too when the backend has the constant-time
 * set_words / get_words (backend.h): the base leaves as canonical words,
 * is exponentiated in radix-2^52 Montgomery form, and comes back. */
#include <stdlib.h>
#include <string.h>

#include "core/ct.h"
#include "core/error.h"
#include "field/field_internal.h"
#include "mont52_mb/mb52.h"

#define L MNS_MB52_LANES
/* scratch of mns_field_powm_n on the stack up to 64 KiB (a 2048-bit batch's
 * table is 43 KiB at w = 5), allocated above */
#define BATCH_STACK_WORDS 8192

/* the lanes to use for a product batch, NULL for the loop */
static const mns_mb52_ctx *mul_lanes(const mns_field *f, size_t count)
{
    return count > 1 && mns_field_lanes_native(f) ? mns_field_lanes(f) : NULL;
}

/* lane l of x <- element i of a native field (its first m words), or 0 */
static void gather(const mns_mb52_ctx *c, uint64_t *x, const uint64_t *a, size_t limbs,
                   size_t first, size_t count)
{
    if (c->kernel == MNS_MB52_IFMA && first + L <= count) {
        mns_mb52_gather_ifma(c, x, a + first * limbs, limbs);
        return;
    }
    for (unsigned l = 0; l < L; l++)
        mns_mb52_lane_put(c, x, l, first + l < count ? a + (first + l) * limbs : NULL);
}

static void scatter(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x, size_t limbs,
                    size_t first, size_t count)
{
    const int whole = c->kernel == MNS_MB52_IFMA && first + L <= count;
    if (whole)
        mns_mb52_scatter_ifma(c, r + first * limbs, x, limbs);
    for (unsigned l = 0; l < L && first + l < count; l++) {
        uint64_t *ri = r + (first + l) * limbs;
        if (!whole)
            mns_mb52_lane_get(c, ri, x, l);
        memset(ri + c->m, 0, (limbs - c->m) * sizeof(uint64_t));
    }
}

void mns_field_mul_n(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b,
                     size_t count)
{
    const size_t limbs = mns_field_limbs(f);
    const mns_mb52_ctx *c = mul_lanes(f, count);
    if (!c) {
        for (size_t i = 0; i < count; i++)
            mns_field_mul(f, r + i * limbs, a + i * limbs, b + i * limbs);
        return;
    }
    uint64_t x[L * MNS_MB52_MAX_DIGITS], y[L * MNS_MB52_MAX_DIGITS];
    for (size_t i = 0; i < count; i += L) {
        gather(c, x, a, limbs, i, count);
        gather(c, y, b, limbs, i, count);
        c->mul(c, x, x, y);
        scatter(c, r, x, limbs, i, count);
    }
}

void mns_field_sqr_n(const mns_field *f, uint64_t *r, const uint64_t *a, size_t count)
{
    const size_t limbs = mns_field_limbs(f);
    const mns_mb52_ctx *c = mul_lanes(f, count);
    if (!c) {
        for (size_t i = 0; i < count; i++)
            mns_field_sqr(f, r + i * limbs, a + i * limbs);
        return;
    }
    uint64_t x[L * MNS_MB52_MAX_DIGITS];
    for (size_t i = 0; i < count; i += L) {
        gather(c, x, a, limbs, i, count);
        c->sqr(c, x, x);
        scatter(c, r, x, limbs, i, count);
    }
}

/* --- exponentiations --- */

static const mns_mb52_ctx *exp_lanes(const mns_field *f, size_t count)
{
    if (count < 2)
        return NULL;
    if (mns_field_lanes_native(f))
        return mns_field_lanes(f);
    return mns_field_has_set_words(f) && mns_field_has_get_words(f) ? mns_field_lanes(f) : NULL;
}

int mns_field_powm_n_lanes(const mns_field *f) { return exp_lanes(f, 2) != NULL; }

/* the largest bit length among the exponents (public; 1 for e = 0, whose
 * one window of digit 0 gives 1), without a branch on the others' lengths */
static size_t exp_bits(const mpz_t *e, size_t count)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < count; i++) {
        const uint64_t b = mpz_sizeinbase(e[i], 2);
        bits ^= (bits ^ b) & mns_ct_mask_bit((bits - b) >> 63); /* b > bits */
    }
    return (size_t)bits;
}

static size_t exp_words(size_t bits) { return bits ? (bits + 63) / 64 : 1; }

size_t mns_field_powm_n_itch(const mns_field *f, size_t bits)
{
    const size_t single = mns_field_powm_scratch_words(f, bits);
    const mns_mb52_ctx *c = exp_lanes(f, L);
    if (!c)
        return single;
    /* a batch of one runs the single call on the same scratch */
    const size_t lanes = mns_mb52_block_words(c) + L * exp_words(bits) + mns_mb52_powm_itch(c, bits);
    return lanes > single ? lanes : single;
}

/* Where a group's bases come from and its results go: the field's
 * elements (limbs words each), or canonical values of c->words words at a
 * stride of `stride` words (words != 0: mns_field_powm_n_words). */
typedef struct lane_io {
    size_t limbs;
    int words;
    size_t stride;
} lane_io;

/* the lane block x <- bases first .. first + 7 in Montgomery form (dummy
 * lanes 0), e <- their exponents, ew words each */
static void group_in(const mns_field *f, const mns_mb52_ctx *c, const lane_io *io, uint64_t *x,
                     uint64_t *ew8, size_t ew, const uint64_t *a, const mpz_t *e, size_t first,
                     size_t count)
{
    const int native = !io->words && mns_field_lanes_native(f);
    uint64_t w[MNS_MB52_MAX_DIGITS], d[MNS_MB52_MAX_DIGITS];
    for (unsigned l = 0; l < L; l++) {
        const size_t i = first + l;
        for (size_t k = 0; k < ew; k++)
            ew8[l * ew + k] = i < count ? mpz_getlimbn(e[i], (mp_size_t)k) : 0;
        if (i >= count || native) {
            mns_mb52_lane_put(c, x, l, i < count ? a + i * io->limbs : NULL);
            continue;
        }
        if (io->words) {
            mns_mb52_digits_of_words(c, d, a + i * io->stride);
        } else {
            mns_field_get_words(f, w, a + i * io->limbs, c->words);
            mns_mb52_digits_of_words(c, d, w);
        }
        mns_mb52_lane_put(c, x, l, d);
    }
    if (!native)
        mns_mb52_to_mont(c, x, x);
}

static void group_out(const mns_field *f, const mns_mb52_ctx *c, const lane_io *io, uint64_t *r,
                      uint64_t *x, size_t first, size_t count)
{
    if (!io->words && mns_field_lanes_native(f)) {
        scatter(c, r, x, io->limbs, first, count);
        return;
    }
    uint64_t w[MNS_MB52_MAX_DIGITS], d[MNS_MB52_MAX_DIGITS];
    mns_mb52_from_mont(c, x, x);
    for (unsigned l = 0; l < L && first + l < count; l++) {
        mns_mb52_lane_get(c, d, x, l);
        if (io->words) {
            mns_mb52_words_of_digits(c, r + (first + l) * io->stride, d);
            continue;
        }
        mns_mb52_words_of_digits(c, w, d);
        mns_field_set_words(f, r + (first + l) * io->limbs, w, c->words);
    }
}

static int negative_exponent(const mns_field *f, uint64_t *r, const mpz_t *e, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (mpz_sgn(e[i]) < 0) {
            memset(r, 0, count * mns_field_limbs(f) * sizeof(uint64_t));
            mns_error(MNS_ERANGE, "mns_field_powm_n: negative exponent (operation %zu)", i);
            return 1;
        }
    return 0;
}

static void powm_loop(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t *e,
                      size_t count, uint64_t *scratch)
{
    const size_t limbs = mns_field_limbs(f);
    for (size_t i = 0; i < count; i++) {
        if (scratch)
            mns_field_powm_scratch(f, r + i * limbs, a + i * limbs, e[i], scratch);
        else
            mns_field_powm(f, r + i * limbs, a + i * limbs, e[i]);
    }
}

static void powm_lanes(const mns_field *f, const mns_mb52_ctx *c, const lane_io *io, uint64_t *r,
                       const uint64_t *a, const mpz_t *e, size_t count, size_t bits,
                       uint64_t *scratch)
{
    const size_t ew = exp_words(bits);
    uint64_t *x = scratch, *ew8 = x + mns_mb52_block_words(c), *ps = ew8 + L * ew;
    for (size_t i = 0; i < count; i += L) {
        group_in(f, c, io, x, ew8, ew, a, e, i, count);
        mns_mb52_powm(c, x, x, ew8, ew, bits, ps);
        group_out(f, c, io, r, x, i, count);
    }
}

void mns_field_powm_n_words(const mns_field *f, uint64_t *r, const uint64_t *a, size_t stride,
                            const mpz_t *e, size_t count, uint64_t *scratch)
{
    const mns_mb52_ctx *c = exp_lanes(f, 2);
    const lane_io io = {mns_field_limbs(f), 1, stride};
    powm_lanes(f, c, &io, r, a, e, count, exp_bits(e, count), scratch);
}

void mns_field_powm_n_scratch(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t *e,
                              size_t count, uint64_t *scratch)
{
    if (negative_exponent(f, r, e, count))
        return;
    const mns_mb52_ctx *c = exp_lanes(f, count);
    if (!c) {
        powm_loop(f, r, a, e, count, scratch);
        return;
    }
    const lane_io io = {mns_field_limbs(f), 0, 0};
    powm_lanes(f, c, &io, r, a, e, count, exp_bits(e, count), scratch);
}

void mns_field_powm_n(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t *e,
                      size_t count)
{
    if (negative_exponent(f, r, e, count))
        return;
    const mns_mb52_ctx *c = exp_lanes(f, count);
    if (!c) {
        powm_loop(f, r, a, e, count, NULL);
        return;
    }
    const size_t bits = exp_bits(e, count), words = mns_field_powm_n_itch(f, bits);
    uint64_t stack[BATCH_STACK_WORDS], *scratch = stack;
    if (words > BATCH_STACK_WORDS && !(scratch = malloc(words * sizeof(uint64_t)))) {
        powm_loop(f, r, a, e, count, NULL); /* the single calls need less */
        return;
    }
    const lane_io io = {mns_field_limbs(f), 0, 0};
    powm_lanes(f, c, &io, r, a, e, count, bits, scratch);
    /* the table holds powers of secret bases */
    explicit_bzero(scratch, words * sizeof(uint64_t));
    if (scratch != stack)
        free(scratch);
}
