/* The `pmers` backend (pmers.h): recognising p = 2^k - c, the context, the
 * conversions and canonical form, and the kernel choice. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/words.h"
#include "pmers/pmers.h"
#include "pmers/pmers_ops.h"

typedef unsigned __int128 u128;

int mns_pmers_form(const mpz_t p, unsigned *k, uint64_t *c, size_t *n)
{
    if (mpz_sgn(p) <= 0)
        return 0;
    const size_t bits = mpz_sizeinbase(p, 2);
    const size_t words = (bits + 63) / 64;
    if (words < 2 || words > MNS_PMERS_MAX_WORDS)
        return 0;
    mpz_t e;
    mpz_init_set_ui(e, 1);
    mpz_mul_2exp(e, e, bits);
    mpz_sub(e, e, p); /* c = 2^k - p >= 1 */
    const unsigned h = (unsigned)(64 * words - bits);
    /* m = 2^h c below 2^63 (pmers.h) */
    const int ok = mpz_sizeinbase(e, 2) + h <= 63;
    if (ok) {
        *k = (unsigned)bits;
        *c = (uint64_t)mpz_get_ui(e);
        *n = words;
    }
    mpz_clear(e);
    return ok;
}

void mns_pmers_canon(const mns_pmers_ctx *ctx, uint64_t *r, const uint64_t *x)
{
    const size_t n = ctx->n;
    uint64_t y[MNS_PMERS_MAX_WORDS], z[MNS_PMERS_MAX_WORDS];
    memcpy(y, x, n * sizeof(uint64_t));
    if (ctx->h) { /* x_lo + x_hi c, below 2^k + m < 2p (h is public) */
        const uint64_t hi = y[n - 1] >> (64 - ctx->h);
        y[n - 1] &= ~(uint64_t)0 >> ctx->h;
        uint64_t carry = hi * ctx->c;
        for (size_t i = 0; i < n; i++) {
            u128 s = (u128)y[i] + carry;
            y[i] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
    }
    uint64_t borrow = 0; /* z = y - p; keep y where that borrows */
    for (size_t i = 0; i < n; i++) {
        u128 d = (u128)y[i] - ctx->p[i] - borrow;
        z[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    const uint64_t keep = (uint64_t)0 - borrow;
    for (size_t i = 0; i < n; i++)
        r[i] = (y[i] & keep) | (z[i] & ~keep);
}

void mns_pmers_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_pmers_ctx *c = ctx;
    memmove(r, a, c->n * sizeof(uint64_t)); /* every element is tight */
}

void mns_pmers_one(const void *ctx, uint64_t *r)
{
    const mns_pmers_ctx *c = ctx;
    memset(r, 0, c->n * sizeof(uint64_t));
    r[0] = 1;
}

mns_status mns_pmers_set_mpz(const void *ctx, uint64_t *r, const mpz_t a)
{
    const mns_pmers_ctx *c = ctx;
    mpz_t t, p;
    mpz_init(t);
    mpz_roinit_n(p, (const mp_limb_t *)c->p, (mp_size_t)c->n);
    mpz_mod(t, a, p);
    mns_words_from_mpz(r, c->n, t);
    mpz_clear(t);
    return MNS_OK;
}

void mns_pmers_get_mpz(const void *ctx, mpz_t r, const uint64_t *a)
{
    const mns_pmers_ctx *c = ctx;
    uint64_t w[MNS_PMERS_MAX_WORDS];
    mns_pmers_canon(c, w, a);
    mns_words_to_mpz(r, w, c->n);
}

void mns_pmers_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    mns_pmers_reduce(ctx, r, a); /* a < p is an element as it is */
}

void mns_pmers_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    mns_pmers_canon(ctx, r, a);
}

void mns_pmers_destroy(void *ctx) { free(ctx); }


static const char *const pmers_options[] = {"kernel", NULL};

/* Kernels in order of preference (core/kernel.h), sizes in words: the
 * mulx/adx kernel for four words where the CPU has BMI2 and ADX, else the
 * portable one (the twin under MNS_CPU=generic). */
enum { K_MULX4, K_GENERIC };
static const mns_kernel_desc pmers_kernels[] = {
    [K_MULX4] = {"mulx", MNS_CPU_BMI2 | MNS_CPU_ADX, 4, 4, 4, 4, 1, 0},
    [K_GENERIC] = {"generic", 0, 2, MNS_PMERS_MAX_WORDS, 2, MNS_PMERS_MAX_WORDS, 2,
                   MNS_KERNEL_TWIN},
};

static mns_status pmers_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    mns_status st = mns_opts_check(opts, "pmers", pmers_options);
    if (st != MNS_OK)
        return st;
    unsigned k;
    uint64_t cc;
    size_t n;
    if (!mns_pmers_form(p, &k, &cc, &n))
        return mns_error(MNS_ENOTSUP,
                         "pmers: p is not 2^k - c of 2 to %d words with 2^(64 n - k) c below "
                         "2^63",
                         MNS_PMERS_MAX_WORDS);
    const unsigned long have = mns_pmers_ops_mulx4 ? ~0ul : ~(1ul << K_MULX4);
    const int kern = mns_kernel_choose("pmers", pmers_kernels,
                                       sizeof pmers_kernels / sizeof pmers_kernels[0],
                                       mns_opts_get(opts, "kernel"), n, have,
                                       mns_cpu_features_raw(), &st);
    if (kern < 0)
        return st;
    mns_pmers_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return mns_error(MNS_ENOMEM, "pmers: out of memory");
    c->n = n;
    c->k = k;
    c->h = (unsigned)(64 * n - k);
    c->c = cc;
    c->m = cc << c->h;
    mns_words_from_mpz(c->p, n, p);
    c->kernel = pmers_kernels[kern].name;
    out->ctx = c;
    out->ops = kern == K_MULX4 ? mns_pmers_ops_mulx4 : &mns_pmers_ops_generic[n];
    out->limbs = n;
    out->delta = INT_MAX; /* every value of n words is tight */
    snprintf(out->describe, sizeof out->describe,
             "pmers kernel=%s limbs=%zu bits=%u p=2^%u-%llu", c->kernel, n, k, k,
             (unsigned long long)cc);
    return MNS_OK;
}

const mns_backend mns_backend_pmers = {"pmers", pmers_create};
