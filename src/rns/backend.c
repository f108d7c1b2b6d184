/* The mns_field backends "rns" (63-bit moduli, portable kernel, the paper's
 * sequential RNS) and "rns-ifma" (52-bit moduli, n a multiple of 8, AVX-512
 * IFMA kernel, the paper's vectorized RNS).
 *
 * Options: n=<channels per base> (default: the smallest that serves p),
 * delta=<minimum free additions> (default 1), and for rns-ifma
 * kernel=ifma|generic: "generic" runs the portable twin on the same 52-bit
 * bases, so the two kernels can be compared on any machine. Without it,
 * rns-ifma answers MNS_ENOTSUP where IFMA is missing or MNS_CPU=generic.
 *
 * Elements are the 2n residues of mns_rns.h; tight means X < (n + 1) p in
 * Montgomery form, and delta comes from the bases (docs/rns.md). */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/kernel.h"
#include "rns/rns.h"

static void rns_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_rns *c = ctx;
    c->mul(c, r, a, b);
}

static void rns_sqr(const void *ctx, uint64_t *r, const uint64_t *a)
{
    /* RNS squaring saves nothing over a product: the base extensions dominate */
    const mns_rns *c = ctx;
    c->mul(c, r, a, a);
}

/* mul_x2 / sqr_x2 of backend.h: one instruction stream for two products
 * where both contexts run the IFMA kernel with the same n >= 16 (public
 * sizes; the test is the same for every call on a pair), two calls else. */
static void rns_mul_x2(const void *ctx0, const void *ctx1, uint64_t *r0, const uint64_t *a0,
                       const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1)
{
    const mns_rns *c0 = ctx0, *c1 = ctx1;
    if (c0->kernel == MNS_RNS_KERNEL_IFMA && c1->kernel == MNS_RNS_KERNEL_IFMA &&
        c0->n == c1->n && c0->n >= 16) {
        mns_rns_mul_ifma_x2(c0, c1, r0, a0, b0, r1, a1, b1);
        return;
    }
    c0->mul(c0, r0, a0, b0);
    c1->mul(c1, r1, a1, b1);
}

static void rns_sqr_x2(const void *ctx0, const void *ctx1, uint64_t *r0, const uint64_t *a0,
                       uint64_t *r1, const uint64_t *a1)
{
    rns_mul_x2(ctx0, ctx1, r0, a0, a0, r1, a1, a1);
}

static void rns_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_rns *c = ctx;
    c->add(c, r, a, b);
}

static void rns_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_rns *c = ctx;
    c->sub(c, r, a, b);
}

static void rns_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    mns_rns_reduce(ctx, r, a);
}

static void rns_one(const void *ctx, uint64_t *r) { mns_rns_one(ctx, r); }

static mns_status rns_set_mpz(const void *ctx, uint64_t *r, const mpz_t a)
{
    mns_rns_mont_set(ctx, r, a);
    return MNS_OK;
}

static void rns_get_mpz(const void *ctx, mpz_t r, const uint64_t *a) { mns_rns_mont_get(ctx, r, a); }

static void rns_destroy(void *ctx) { mns_rns_free(ctx); }

/* rns and rns-ifma share every operation; rns-ifma adds the x2 kernels
 * (which make two calls under kernel=generic) */
#define RNS_OPS                                                                                \
    .mul = rns_mul, .sqr = rns_sqr, .add = rns_add, .sub = rns_sub, .reduce = rns_reduce,      \
    .one = rns_one, .set_mpz = rns_set_mpz, .get_mpz = rns_get_mpz,                            \
    .powm = NULL, /* the shared fixed-window exponentiation */                                 \
        .set_words = mns_rns_set_words, .get_words = mns_rns_get_words, .destroy = rns_destroy

static const mns_field_ops rns_ops = {RNS_OPS};
static const mns_field_ops rns_ifma_ops = {RNS_OPS, .mul_x2 = rns_mul_x2, .sqr_x2 = rns_sqr_x2};

static mns_status create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts,
                         const char *name, int ifma)
{
    static const char *const allowed[] = {"n", "delta", "kernel", NULL};
    mns_status st = mns_opts_check(opts, name, allowed);
    if (st != MNS_OK)
        return st;
    long n = 0, delta = 1;
    if ((st = mns_opts_get_long(opts, name, "n", 1, MNS_RNS_NMAX, &n)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "delta", 0, 1 << 24, &delta)) != MNS_OK)
        return st;
    mns_rns_params prm = {.e = ifma ? 52 : 63,
                          .n = (unsigned)n,
                          .n_step = ifma ? 8 : 1,
                          .delta_min = (int)delta,
                          .kernel = ifma ? MNS_RNS_KERNEL_IFMA : MNS_RNS_KERNEL_GENERIC};
    /* a malformed option is EINVAL whatever the CPU: checked before the kernel */
    if (ifma && n % 8)
        return mns_error(MNS_EINVAL, "%s: n = %ld is not a multiple of 8", name, n);
    const int k = mns_kernel_choose_ifma(name, ifma, mns_opts_get(opts, "kernel"), &st);
    if (k < 0)
        return st;
    prm.kernel = k ? MNS_RNS_KERNEL_IFMA : MNS_RNS_KERNEL_GENERIC;

    mns_rns *c = NULL;
    st = mns_rns_new(&c, p, &prm);
    if (st != MNS_OK)
        return st; /* mns_rns_new has said why (e.g. no IFMA on this CPU) */
    out->ctx = c;
    out->ops = ifma ? &rns_ifma_ops : &rns_ops;
    out->limbs = mns_rns_limbs(c);
    out->delta = mns_rns_delta(c);
    snprintf(out->describe, sizeof out->describe, "%s kernel=%s n=%zu e=%u delta=%d bits=%zu",
             name, mns_rns_kernel_name(c), mns_rns_n(c), mns_rns_e(c), mns_rns_delta(c),
             mpz_sizeinbase(p, 2));
    return MNS_OK;
}

static mns_status rns_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create(out, p, opts, "rns", 0);
}

static mns_status rns_ifma_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create(out, p, opts, "rns-ifma", 1);
}

const mns_backend mns_backend_rns = {"rns", rns_create};
const mns_backend mns_backend_rns_ifma = {"rns-ifma", rns_ifma_create};
