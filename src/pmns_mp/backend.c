/* The mns_field backends "pmns-mp" and "pmns-mp-ifma": options, the
 * kernel table, the adapter to mns_field_ops. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/tmp.h"
#include "mns_pmns_mp.h"
#include "gen/gen.h"
#include "pmns_mp/ctx.h"
#include "pmns/get_words.h"
#include "pmns_mp/create.h"

/* ---- mns_field backends ------------------------------------------------------- */

static void f_mul(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const mns_pmns_mp_ctx *c = ctx;
    c->mul(c, r, a, b);
}
static void f_sqr(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_pmns_mp_ctx *c = ctx;
    c->sqr(c, r, a);
}
static void f_add(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_pmns_mp_add(ctx, r, a, b);
}
static void f_sub(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_pmns_mp_sub(ctx, r, a, b);
}
static void f_reduce(const void *ctx, uint64_t *r, const uint64_t *a)
{
    mns_pmns_mp_reduce(ctx, r, a);
}
static void f_one(const void *ctx, uint64_t *r)
{
    const mns_pmns_mp_ctx *c = ctx;
    memcpy(r, c->one, c->limbs * sizeof *r);
}
static mns_status f_set(const void *ctx, uint64_t *r, const mpz_t a)
{
    return mns_pmns_mp_set_mpz_var(ctx, r, a);
}
static void f_get(const void *ctx, mpz_t r, const uint64_t *a) { mns_pmns_mp_get_mpz_var(ctx, r, a); }
static void f_destroy(void *ctx) { mns_pmns_mp_free(ctx); }
static void f_mul_x2(const void *c0, const void *c1, uint64_t *r0, const uint64_t *a0,
                     const uint64_t *b0, uint64_t *r1, const uint64_t *a1, const uint64_t *b1)
{
    mns_pmns_mp_mul_x2_any(c0, c1, r0, a0, b0, r1, a1, b1);
}
static void f_sqr_x2(const void *c0, const void *c1, uint64_t *r0, const uint64_t *a0,
                     uint64_t *r1, const uint64_t *a1)
{
    mns_pmns_mp_sqr_x2_any(c0, c1, r0, a0, r1, a1);
}

static const mns_field_ops mp_ops = {
    .mul = f_mul,
    .sqr = f_sqr,
    .add = f_add,
    .sub = f_sub,
    .reduce = f_reduce,
    .one = f_one,
    .set_mpz = f_set,
    .get_mpz = f_get,
    .powm = NULL, /* the shared constant-time fixed-window exponentiation */
    .set_words = mns_pmns_mp_set_words,
    .get_words = mns_pmns_mp_get_words,
    .mul_x2 = f_mul_x2, /* fused for pmns-mp-ifma (pmns_mp/ifma_x2.c), else two calls */
    .sqr_x2 = f_sqr_x2,
    .destroy = f_destroy,
};

/* pmns-mp's kernels (core/kernel.h): the FMA kernel (AVX2 + FMA, u52 sets)
 * where create_common's rule picks it, else the portable one. */
static const mns_kernel_desc mp_kernels[] = {
    {"fma", MNS_CPU_AVX2 | MNS_CPU_FMA, 0, 0, MNS_KERNEL_NEVER, 1, 0},
    {"generic", 0, 0, 0, 0, 0, 2, MNS_KERNEL_TWIN},
};

static mns_status create_common(mns_backend_inst *out, const mpz_t p, const mns_opts *opts,
                                const char *name, int ifma)
{
    static const char *const allowed_mp[] = {"s",    "n",      "delta", "base",
                                              "word", "kernel", "lanes", NULL};
    static const char *const allowed_ifma[] = {"s", "n", "delta", "base", "carry", "kernel", NULL};
    const int ifma_backend = ifma;
    mns_status st = mns_opts_check(opts, name, ifma ? allowed_ifma : allowed_mp);
    if (st != MNS_OK)
        return st;
    /* delta = 1 by default, as every other backend: mul(add(a, b), c) is
     * right without looking at mns_field_delta. It costs no n or s with the
     * u52 Z of make_z (pmns-mp-ifma: same (n, s, kernel) as delta = 0 at
     * 1024-8192 bits; docs/pmns-mp.md "delta default") */
    long s = 0, n = 0, delta = 1, base = 0, lanes = 0, carry = 1;
    if ((st = mns_opts_get_long(opts, name, "carry", 0, 1, &carry)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "s", 2, MNS_PMNS_S_MAX, &s)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "n", 2, MNS_PMNS_N_MAX, &n)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "delta", 0, 255, &delta)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "base", 1, MNS_PMNS_N_MAX, &base)) != MNS_OK ||
        (st = mns_opts_get_long(opts, name, "lanes", 4, 8, &lanes)) != MNS_OK)
        return st;
    if (lanes != 0 && lanes != 4 && lanes != 8)
        return mns_error(MNS_EINVAL, "%s: lanes is 4 or 8, not %ld", name, lanes);
    mns_pmns_word word = ifma ? MNS_PMNS_WORD_U52 : MNS_PMNS_WORD_S64;
    const char *w = mns_opts_get(opts, "word");
    if (w) {
        if (strcmp(w, "u52") == 0)
            word = MNS_PMNS_WORD_U52;
        else if (strcmp(w, "s64") != 0)
            return mns_error(MNS_EINVAL, "%s: word is s64 or u52, not \"%s\"", name, w);
    }
    const char *kv = mns_opts_get(opts, "kernel");
    if (ifma) {
        /* pmns-mp-ifma: the IFMA kernels, or kernel=generic, their portable
         * twin on the same u52 sets */
        const int k = mns_kernel_choose_ifma(name, 1, kv, &st);
        if (k < 0)
            return st;
        ifma = k;
        kv = NULL;
    } else if (kv && mns_kernel_choose(name, mp_kernels, sizeof mp_kernels / sizeof mp_kernels[0],
                                       kv, 0, ~0ul, mns_cpu_features(), &st) < 0)
        return st;
    /* pmns-mp's kernel: kernel=generic (portable C, the s64 word unless
     * word=u52) or kernel=fma (AVX2 + FMA, u52). Without kernel=, word= and
     * base=, the FMA kernel where the CPU has it, up to MP_FMA_BITS_MAX
     * (s = 2..4), else the portable one (docs/pmns-mp.md, "FMA kernel": on
     * Zen 3, in one process, faster than the portable kernel at 1024-8192
     * bits; at 6144 and 8192 since its Toeplitz split) */
    mns_pmns_mp_kernel kern = ifma ? MNS_PMNS_MP_KERNEL_IFMA : MNS_PMNS_MP_KERNEL_GENERIC;
    int try_fma = 0;
    if (kv && strcmp(kv, "fma") == 0) {
        if (w && word != MNS_PMNS_WORD_U52)
            return mns_error(MNS_EINVAL, "%s: kernel=fma runs u52 sets, not word=%s", name, w);
        kern = MNS_PMNS_MP_KERNEL_FMA;
        word = MNS_PMNS_WORD_U52;
    } else if (!kv && !ifma_backend)
        try_fma = !w && !base && (s == 0 || s <= 4) && mpz_sizeinbase(p, 2) <= MP_FMA_BITS_MAX &&
                  mns_cpu_has_fma();
    mns_pmns_mp_ctx *c = NULL;
    st = MNS_ENOTSUP;
    if (lanes && kern != MNS_PMNS_MP_KERNEL_FMA && !try_fma)
        return mns_error(MNS_EINVAL, "%s: lanes= is an option of kernel=fma", name);
    const char *no8 = lanes == 8 ? mns_pmns_mp_fma8_missing() : NULL;
    if (no8)
        return mns_error(MNS_ENOTSUP, "%s: lanes=8: %s", name, no8);
    if (try_fma)
        st = mns_pmns_mp_new_impl(&c, p, MNS_PMNS_WORD_U52, (int)s, (int)n, (int)delta, 0,
                      MNS_PMNS_MP_KERNEL_FMA, 0, (int)lanes, 0);
    if (st != MNS_OK && !(try_fma && lanes))
        st = mns_pmns_mp_new_impl(&c, p, word, (int)s, (int)n, (int)delta, (int)base, kern, 0, (int)lanes,
                      (int)carry);
    if (st != MNS_OK)
        return st;
    out->ctx = c;
    out->ops = &mp_ops;
    out->limbs = c->limbs;
    out->delta = (int)delta;
    snprintf(out->describe, sizeof out->describe, "%s %s", name, c->kernel_describe);
    return MNS_OK;
}

static mns_status create_mp(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create_common(out, p, opts, "pmns-mp", 0);
}

static mns_status create_mp_ifma(mns_backend_inst *out, const mpz_t p, const mns_opts *opts)
{
    return create_common(out, p, opts, "pmns-mp-ifma", 1);
}

const mns_backend mns_backend_pmns_mp = {"pmns-mp", create_mp};
const mns_backend mns_backend_pmns_mp_ifma = {"pmns-mp-ifma", create_mp_ifma};
