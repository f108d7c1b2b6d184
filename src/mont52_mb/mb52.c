/* The lane-sliced context (mb52.h): constants of p as lane blocks, the
 * kernel choice, lanes in and out, Montgomery form in and out. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/ct.h"
#include "core/error.h"
#include "core/inverse.h"
#include "mont52/digits.h"
#include "mont52_mb/mb52.h"

#define L MNS_MB52_LANES
#define M52 MNS_MB52_MASK

size_t mns_mb52_block_words(const mns_mb52_ctx *c) { return L * c->m; }

void mns_mb52_lane_put(const mns_mb52_ctx *c, uint64_t *x, unsigned l, const uint64_t *d)
{
    for (size_t j = 0; j < c->m; j++)
        x[L * j + l] = d ? d[j] : 0;
}

void mns_mb52_lane_get(const mns_mb52_ctx *c, uint64_t *d, const uint64_t *x, unsigned l)
{
    for (size_t j = 0; j < c->m; j++)
        d[j] = x[L * j + l];
}

/* digits of a non-negative a < 2^(52 m), broadcast to every lane (setup) */
static void block_of_mpz(const mns_mb52_ctx *c, uint64_t *x, const mpz_t a)
{
    mpz_t t;
    mpz_init_set(t, a);
    for (size_t j = 0; j < c->m; j++) {
        for (unsigned l = 0; l < L; l++)
            x[L * j + l] = mpz_getlimbn(t, 0) & M52;
        mpz_fdiv_q_2exp(t, t, 52);
    }
    mpz_clear(t);
}

void mns_mb52_digits_of_words(const mns_mb52_ctx *c, uint64_t *d, const uint64_t *w)
{
    mns_digits52_of_words(d, c->m, c->m, w, c->words);
}

void mns_mb52_words_of_digits(const mns_mb52_ctx *c, uint64_t *w, const uint64_t *d)
{
    mns_words_of_digits52(w, c->words, d, c->m);
}

void mns_mb52_to_mont(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x)
{
    c->mul(c, r, x, c->r2v);
}

/* AMM(x, 1) is x R^-1 mod p or p itself (mont52/amm52.h); one masked
 * subtraction of p per lane makes it canonical */
void mns_mb52_from_mont(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x)
{
    c->mul(c, r, x, c->unitv);
    for (unsigned l = 0; l < L; l++) {
        uint64_t d[MNS_MB52_MAX_DIGITS], borrow = 0;
        for (size_t j = 0; j < c->m; j++) {
            const uint64_t t = r[L * j + l] - c->p[j] - borrow;
            d[j] = t & M52;
            borrow = t >> 63;
        }
        const uint64_t keep = mns_ct_mask_bit(borrow); /* r < p: keep r */
        for (size_t j = 0; j < c->m; j++)
            r[L * j + l] = (r[L * j + l] & keep) | (d[j] & ~keep);
    }
}

void mns_mb52_free(mns_mb52_ctx *c)
{
    if (!c)
        return;
    free(c->pv);
    free(c);
}

static void set_kernel(mns_mb52_ctx *c, mns_mb52_kernel kernel)
{
    c->kernel = kernel;
    if (kernel == MNS_MB52_IFMA) {
        c->mul = mns_mb52_mul_ifma;
        c->sqr = mns_mb52_sqr_ifma;
        c->kernel_name = "ifma";
    } else {
        c->mul = mns_mb52_mul_generic;
        c->sqr = mns_mb52_sqr_generic;
        c->kernel_name = "generic";
    }
}

mns_status mns_mb52_new(mns_mb52_ctx **out, const mpz_t p, mns_mb52_kernel kernel)
{
    *out = NULL;
    const size_t bits = mpz_sizeinbase(p, 2);
    if (mpz_cmp_ui(p, 3) < 0 || mpz_even_p(p) || bits > MNS_MB52_MAX_BITS)
        return mns_error(MNS_ENOTSUP, "lanes: p must be odd, >= 3 and of at most %d bits",
                         MNS_MB52_MAX_BITS);
    if (kernel == MNS_MB52_IFMA && !mns_cpu_has_ifma())
        return mns_error(MNS_ENOTSUP, "lanes: AVX-512 IFMA kernel not available (%s)",
                         mns_cpu_features_string());
    mns_mb52_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return mns_error(MNS_ENOMEM, "lanes: out of memory");
    c->m = (bits + 2 + 51) / 52;
    c->bits = bits;
    c->words = mpz_size(p);
    const size_t B = L * c->m;
    /* pv, r2v, onev, unitv, k0v, then p's digits; 64-byte rows */
    const size_t words = 4 * B + L + ((c->m + 7) & ~(size_t)7);
    c->pv = aligned_alloc(64, words * sizeof(uint64_t));
    if (!c->pv) {
        free(c);
        return mns_error(MNS_ENOMEM, "lanes: out of memory");
    }
    memset(c->pv, 0, words * sizeof(uint64_t));
    c->r2v = c->pv + B;
    c->onev = c->r2v + B;
    c->unitv = c->onev + B;
    c->k0v = c->unitv + B;
    c->p = c->k0v + L;

    mpz_t t;
    mpz_init(t);
    block_of_mpz(c, c->pv, p);
    mns_mb52_lane_get(c, c->p, c->pv, 0);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 104 * c->m);
    mpz_mod(t, t, p);
    block_of_mpz(c, c->r2v, t);
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 52 * c->m);
    mpz_mod(t, t, p);
    block_of_mpz(c, c->onev, t);
    mpz_set_ui(t, 1);
    block_of_mpz(c, c->unitv, t);
    mpz_clear(t);
    c->k0 = mns_neg_inverse_word(mpz_getlimbn(p, 0)) & M52;
    for (unsigned l = 0; l < L; l++)
        c->k0v[l] = c->k0;
    set_kernel(c, kernel);
    *out = c;
    return MNS_OK;
}
