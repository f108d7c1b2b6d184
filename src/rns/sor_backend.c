/* The mns_field backends "sor" (63-bit moduli, portable kernel) and "sor-ifma"
 * (52-bit moduli, AVX-512 IFMA kernel): the sum of residues of sor.h, for
 * primes p = 2^W - eps that meet eq. (22) of the paper with the moduli set in
 * use. Other primes get MNS_ENOTSUP and the reason.
 *
 * Options: N=<channels> (default: the smallest that serves p), delta=<minimum
 * free additions> (default 1), and for sor-ifma kernel=ifma|generic: "generic"
 * runs the portable twin on the same 52-bit moduli, so the two kernels can be
 * compared on any machine. Without it, sor-ifma answers MNS_ENOTSUP where IFMA
 * is missing or under MNS_CPU=generic.
 *
 * Elements are the residues of sor.h (tight: X < 2p, exact residue of the
 * product); powm is the shared constant-time fixed-window exponentiation. */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/kernel.h"
#include "rns/sor.h"

static void sor_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_sor *s = ctx;
    s->mul(s, r, a, b);
}

static void sor_sqr(const void *ctx, uint64_t *r, const uint64_t *a)
{
    /* the channel products are a small part: the matrix dominates */
    const mns_sor *s = ctx;
    s->mul(s, r, a, a);
}

static void sor_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_sor *s = ctx;
    s->add(s, r, a, b);
}

static void sor_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_sor *s = ctx;
    s->sub(s, r, a, b);
}

static void sor_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    /* a * 1: Z = X < 2 (delta + 1) p is in range, the output is below 2p */
    const mns_sor *s = ctx;
    s->mul(s, r, a, s->one);
}

static void sor_one(const void *ctx, uint64_t *r)
{
    const mns_sor *s = ctx;
    memcpy(r, s->one, s->npad * sizeof(uint64_t));
}

static mns_status sor_set_mpz(const void *ctx, uint64_t *r, const mpz_t a)
{
    mns_sor_from_mpz(ctx, r, a);
    return MNS_OK;
}

static void sor_get_mpz(const void *ctx, mpz_t r, const uint64_t *a) { mns_sor_to_mpz(ctx, r, a); }

static void sor_destroy(void *ctx) { mns_sor_free(ctx); }

static const mns_field_ops sor_ops = {
    .mul = sor_mul,
    .sqr = sor_sqr,
    .add = sor_add,
    .sub = sor_sub,
    .reduce = sor_reduce,
    .one = sor_one,
    .set_mpz = sor_set_mpz,
    .get_mpz = sor_get_mpz,
    .set_words = mns_sor_set_words,
    .get_words = mns_sor_get_words,
    .powm = NULL,
    .destroy = sor_destroy,
};

static mns_status create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts,
                         const char *name, int ifma)
{
    static const char *const allowed[] = {"N", "delta", "kernel", NULL};
    mns_status st = mns_opts_check(opts, name, allowed);
    if (st != MNS_OK)
        return st;
    long N = 0, delta = 1;
    if ((st = mns_opts_get_long(opts, name, "N", 1, MNS_SOR_NMAX, &N)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "delta", 0, 1 << 24, &delta)) != MNS_OK)
        return st;
    mns_sor_params prm = {.ifma = ifma, .kernel = ifma, .N = (unsigned)N, .delta_min = (int)delta};
    const int k = mns_kernel_choose_ifma(name, ifma, mns_opts_get(opts, "kernel"), &st);
    if (k < 0)
        return st;
    prm.kernel = k;

    mns_sor *s = NULL;
    if ((st = mns_sor_new(&s, p, &prm)) != MNS_OK)
        return st; /* mns_sor_new has said why */
    out->ctx = s;
    out->ops = &sor_ops;
    out->limbs = s->npad;
    out->delta = s->delta;
    snprintf(out->describe, sizeof out->describe,
             "%s kernel=%s N=%zu k=%u T=%d delta=%d W=%u eps_bits=%zu bits=%zu", name,
             s->kernel_name, s->N, s->k, MNS_SOR_T, s->delta, s->W,
             mpz_sizeinbase(s->eps, 2), mpz_sizeinbase(p, 2));
    return MNS_OK;
}

static mns_status sor_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create(out, p, opts, "sor", 0);
}

static mns_status sor_ifma_create(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create(out, p, opts, "sor-ifma", 1);
}

const mns_backend mns_backend_sor = {"sor", sor_create};
const mns_backend mns_backend_sor_ifma = {"sor-ifma", sor_ifma_create};
