/* One CRT channel: the public input enters the field of p_i, is raised to
 * d_i there, and the result leaves the field, all without a branch or a
 * memory index that depends on p_i, d_i or the result.
 *
 * Why not mns_field_set_mpz / get_mpz directly: by the field contract they
 * are variable time (they go through mpz_mod and mpz_import), and here the
 * values they would see (in mod p_i, s_i) and the modulus are secret.
 *   - Entry: in mod p_i with GMP's mpn_sec_div_r (documented side-channel
 *     silent), then into the field by the backend's constant-time
 *     set_words (src/core/backend.h: one product by R^2 in mont, the radix
 *     sum and one RedCoeff in pmns, residues and one product in rns); for a
 *     backend without it, by Horner over its 64-bit words,
 *     X <- X * 2^64 + W, each word W assembled from its b-bit digits as a
 *     sum of table entries v * 2^(b k) selected with masks over the whole
 *     row (mns_ct_select). Only mul, add, reduce: constant time by contract.
 *   - Exit: the backend's constant-time get_words where it has one (every
 *     backend but mpart: mont, rns and the PMNS families).
 *     Otherwise the result Y is multiplied by U, the element of a secret random
 *     u drawn when the key was made, so get_mpz only ever sees s_i u mod p_i,
 *     which nobody without u and p_i can predict; the mask is removed with
 *     mpn_sec_mul by u^-1 and mpn_sec_div_r. A fresh additive mask per call
 *     would make the value get_mpz sees independent of s_i, but entering it
 *     costs as much as entering the input (10-20% of a channel with
 *     mont, more with delta-0 backends); the per-key mask costs one product.
 */
#include <stdlib.h>
#include <string.h>

#include "core/ct.h"
#include "core/error.h"
#include "field/field_internal.h"
#include "rsa/rsa_internal.h"

static long add_limit(const mns_rsa_channel *c);

mns_status mns_rsa_channel_tables(mns_rsa_channel *c)
{
    c->getw = mns_field_has_get_words(c->f);
    if (mns_field_has_set_words(c->f)) {
        c->words = 1;
        return MNS_OK;
    }
    const size_t L = c->limbs;
    mpz_t v;
    mpz_init(v);
    mns_status st = MNS_OK;
    c->dbits = add_limit(c) >= 64 / MNS_RSA_DIGIT_BITS_SMALL + 2 ? MNS_RSA_DIGIT_BITS_SMALL
                                                                  : MNS_RSA_DIGIT_BITS_LARGE;
    c->ndigits = 64 / c->dbits;
    c->radix = 1u << c->dbits;
    c->digit = calloc((size_t)c->ndigits * c->radix * L, sizeof(uint64_t));
    if (!c->digit) {
        mpz_clear(v);
        return mns_error(MNS_ENOMEM, "rsa: out of memory");
    }
    for (unsigned k = 0; k < c->ndigits && st == MNS_OK; k++)
        for (unsigned d = 0; d < c->radix && st == MNS_OK; d++) {
            mpz_set_ui(v, d);
            mpz_mul_2exp(v, v, c->dbits * k);
            st = mns_field_set_mpz(c->f, c->digit + ((size_t)k * c->radix + d) * L, v);
        }
    if (st == MNS_OK) {
        mpz_set_ui(v, 1);
        mpz_mul_2exp(v, v, 64);
        st = mns_field_set_mpz(c->f, c->r64, v);
    }
    mpz_clear(v);
    return st;
}

/* Scratch layout of a channel's entry and exit, in words: the elements X
 * (the entered input) and Y (the exponentiation's result) live here too. */
typedef struct layout {
    size_t t, div, x, w, e, y, yw, r, total;
} layout;

static layout channel_layout(const mns_rsa_channel *c, size_t nn)
{
    layout l;
    size_t tlen = nn > 2 * c->pn ? nn : 2 * c->pn;
    size_t i1 = (size_t)mpn_sec_div_r_itch((mp_size_t)nn, (mp_size_t)c->pn);
    size_t i2 = (size_t)mpn_sec_div_r_itch((mp_size_t)(2 * c->pn), (mp_size_t)c->pn);
    size_t i3 = (size_t)mpn_sec_mul_itch((mp_size_t)c->pn, (mp_size_t)c->pn);
    size_t itch = i1 > i2 ? i1 : i2;
    l.t = 0;
    l.div = l.t + tlen;
    l.x = l.div + (itch > i3 ? itch : i3);
    l.w = l.x + c->limbs;
    l.e = l.w + c->limbs;
    l.y = l.e + c->limbs;
    l.yw = l.y + c->limbs;
    l.r = l.yw + c->pn;
    l.total = l.r + nn;
    return l;
}

size_t mns_rsa_channel_scratch(const mns_rsa_channel *c, size_t nn)
{
    return channel_layout(c, nn).total;
}

uint64_t *mns_rsa_channel_x(const mns_rsa_channel *c, size_t nn, uint64_t *scratch)
{
    return scratch + channel_layout(c, nn).x;
}

uint64_t *mns_rsa_channel_y(const mns_rsa_channel *c, size_t nn, uint64_t *scratch)
{
    return scratch + channel_layout(c, nn).y;
}

/* Terms bookkeeping of the element contract: an element that is a sum of t
 * tight ones may enter mul/sqr while t <= delta + 1. For reduce we take
 * t <= max(delta + 1, 2): a delta-0 backend (pmns by default: "0 means
 * reduce before mul") must still let an add of two tight elements be
 * reduced, or add would be unusable; mont and rns reduce more. */
static long add_limit(const mns_rsa_channel *c) { return c->delta + 1 > 2 ? c->delta + 1 : 2; }

static void add_counted(const mns_rsa_channel *c, uint64_t *acc, long *tacc, uint64_t *x,
                        long *tx)
{
    const long lim = add_limit(c);
    if (*tacc + *tx > lim && *tx > 1) {
        mns_field_reduce(c->f, x, x);
        *tx = 1;
    }
    if (*tacc + *tx > lim) {
        mns_field_reduce(c->f, acc, acc);
        *tacc = 1;
    }
    mns_field_add(c->f, acc, acc, x);
    *tacc += *tx;
}

/* X <- the tight element of the pn-word value r (r < p_i). w, e: scratch
 * elements. The loop's shape depends only on pn, b and delta. */
void mns_rsa_channel_enter(const mns_rsa_channel *c, uint64_t *X, const mp_limb_t *r, uint64_t *w,
                  uint64_t *e)
{
    if (c->words) {
        /* r has pn words, < p_i: the contract of set_words, so it cannot fail */
        (void)mns_field_set_words(c->f, X, r, c->pn);
        return;
    }
    const size_t L = c->limbs;
    long tX = 0;
    for (size_t j = c->pn; j-- > 0;) {
        uint64_t word = r[j];
        long tw = 1, te = 1;
        const uint64_t dmask = c->radix - 1;
        mns_ct_select(w, c->digit, c->radix, L, word & dmask);
        for (unsigned k = 1; k < c->ndigits; k++) {
            mns_ct_select(e, c->digit + (size_t)k * c->radix * L, c->radix, L,
                          (word >> (c->dbits * k)) & dmask);
            te = 1;
            add_counted(c, w, &tw, e, &te);
        }
        if (tX == 0) {
            memcpy(X, w, L * sizeof(uint64_t));
            tX = tw;
        } else {
            if (tX > c->delta + 1)
                mns_field_reduce(c->f, X, X);
            mns_field_mul(c->f, X, X, c->r64);
            tX = 1;
            add_counted(c, X, &tX, w, &tw);
        }
    }
    mns_field_reduce(c->f, X, X);
}

const mp_limb_t *mns_rsa_channel_reduce(const mns_rsa_channel *c, const mp_limb_t *in, size_t nn,
                                        uint64_t *scratch)
{
    const layout l = channel_layout(c, nn);
    mp_limb_t *t = (mp_limb_t *)(scratch + l.t);
    mp_limb_t *div = (mp_limb_t *)(scratch + l.div);
    /* in mod p_i (nn >= pn: n is the product of the primes) */
    memcpy(t, in, nn * sizeof(mp_limb_t));
    mpn_sec_div_r(t, (mp_size_t)nn, c->p, (mp_size_t)c->pn, div);
    return t;
}

void mns_rsa_channel_in(const mns_rsa_channel *c, const mp_limb_t *in, size_t nn,
                        uint64_t *scratch)
{
    const layout l = channel_layout(c, nn);
    const mp_limb_t *t = mns_rsa_channel_reduce(c, in, nn, scratch);
    mns_rsa_channel_enter(c, scratch + l.x, t, scratch + l.w, scratch + l.e);
}

void mns_rsa_channel_out(const mns_rsa_channel *c, mp_limb_t *s, mpz_t z, size_t nn,
                         uint64_t *scratch)
{
    const layout l = channel_layout(c, nn);
    const size_t pn = c->pn;
    mp_limb_t *t = (mp_limb_t *)(scratch + l.t);
    mp_limb_t *div = (mp_limb_t *)(scratch + l.div);
    uint64_t *Y = scratch + l.y;
    mp_limb_t *yw = (mp_limb_t *)(scratch + l.yw);

    if (c->getw) {
        /* the backend's constant-time exit: Y is tight (powm's output), the
         * length is that of p_i, so it cannot fail */
        (void)mns_field_get_words(c->f, s, Y, pn);
        return;
    }
    /* exit through the mask */
    mns_field_mul(c->f, Y, Y, c->umask);
    MNS_RSA_DECLASSIFY(Y, c->limbs * sizeof(uint64_t)); /* s_i u: what get_mpz may see */
    mns_field_get_mpz(c->f, z, Y); /* sees s_i u mod p_i only */
    size_t zn = mpz_size(z);
    if (zn > pn)
        zn = pn; /* cannot happen for a canonical value; keeps the copy in bounds */
    memset(yw, 0, pn * sizeof(mp_limb_t));
    if (zn)
        memcpy(yw, mpz_limbs_read(z), zn * sizeof(mp_limb_t));
    mpn_sec_mul(t, yw, (mp_size_t)pn, c->uinv, (mp_size_t)pn, div);
    mpn_sec_div_r(t, (mp_size_t)(2 * pn), c->p, (mp_size_t)pn, div);
    memcpy(s, t, pn * sizeof(mp_limb_t));
}

/* Y <- X^e in f for a public e >= 1 (Y must not alias X): plain
 * left-to-right square-and-multiply, 16 squarings and 1 product for 65537;
 * the fixed-window powm, made for secret exponents, would spend a table and
 * a Select per window. Both fault checks (the field of n, the channels) use
 * it. */
void mns_rsa_pow_public(const mns_field *f, uint64_t *Y, const uint64_t *X, const mpz_t e)
{
    memcpy(Y, X, mns_field_limbs(f) * sizeof(uint64_t));
    for (size_t b = mpz_sizeinbase(e, 2) - 1; b-- > 0;) {
        mns_field_sqr(f, Y, Y);
        if (mpz_tstbit(e, b))
            mns_field_mul(f, Y, Y, X);
    }
}

/* The fault check's share in this channel (check.c): x^e = in
 * (mod p_i), with x the reconstructed result (public, nn words, < n) and
 * in mod p_i still in the scratch's first pn words from this call's
 * mns_rsa_channel_in. x mod p_i by mpn_sec_div_r, set_words, the public
 * exponent by left-to-right square-and-multiply in the channel's field,
 * get_words, and a word compare without a branch: p_i and x mod p_i are
 * secret. Returns 0 where they agree. Only for channels with set_words and
 * get_words (the exit without a mask leaves the scratch's in mod p_i
 * intact). */
const mp_limb_t *mns_rsa_channel_check_in(const mns_rsa_channel *c, const mp_limb_t *x, size_t nn,
                                          uint64_t *scratch)
{
    const layout l = channel_layout(c, nn);
    mp_limb_t *r = (mp_limb_t *)(scratch + l.r), *div = (mp_limb_t *)(scratch + l.div);
    memcpy(r, x, nn * sizeof(mp_limb_t));
    mpn_sec_div_r(r, (mp_size_t)nn, c->p, (mp_size_t)c->pn, div);
    return r;
}

mp_limb_t mns_rsa_channel_check_diff(const mns_rsa_channel *c, const mp_limb_t *got, size_t nn,
                                     const uint64_t *scratch)
{
    const mp_limb_t *want = (const mp_limb_t *)(scratch + channel_layout(c, nn).t);
    mp_limb_t diff = 0;
    for (size_t j = 0; j < c->pn; j++)
        diff |= got[j] ^ want[j];
    return diff;
}

mp_limb_t mns_rsa_channel_check(const mns_rsa_channel *c, const mp_limb_t *x, const mpz_t e,
                                size_t nn, uint64_t *scratch)
{
    const layout l = channel_layout(c, nn);
    mp_limb_t *got = (mp_limb_t *)(scratch + l.yw);
    uint64_t *X = scratch + l.x, *Y = scratch + l.y;
    const mp_limb_t *r = mns_rsa_channel_check_in(c, x, nn, scratch);
    (void)mns_field_set_words(c->f, X, r, c->pn); /* r < p_i: cannot fail */
    mns_rsa_pow_public(c->f, Y, X, e);
    (void)mns_field_get_words(c->f, got, Y, c->pn);
    return mns_rsa_channel_check_diff(c, got, nn, scratch);
}
