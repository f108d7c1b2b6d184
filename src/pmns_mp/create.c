/* The multi-precision PMNS context: its creation for a parameter set (the
 * constant Toeplitz matrices M_j, M'_0 and each kernel's data), the choice
 * of (n, s, kernel) for a prime, and its release. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/prime.h"
#include "core/tmp.h"
#include "mns_pmns_mp.h"
#include "gen/gen.h"
#include "pmns_mp/ctx.h"
#include "pmns/get_words.h"
#include "pmns_mp/create.h"

/* ---- creation ---------------------------------------------------------------- */

void mns_pmns_mp_free(mns_pmns_mp *c)
{
    if (!c)
        return;
    mns_pmns_params_free(c->P);
    free(c->mseq);
    free(c->mpseq);
    free(c->mcol);
    free(c->mpcol);
    free(c->mfast);
    free(c->mfd);
    free(c->mpfd);
    free(c->mfs);
    free(c->mpfast);
    free(c->msplit);
    free(c->moff);
    free(c->aoff);
    free(c->one);
    free(c->unit);
    if (c->tight) {
        for (int i = 0; i < c->n; i++)
            mpz_clear(c->tight[i]);
        free(c->tight);
    }
    free(c->zero_z);
    free(c->words);
    free(c->gw_pow);
    mpz_clears(c->p, c->gamma, c->phi_inv, NULL);
    free((void *)c->kernel_describe);
    free(c);
}

const mns_pmns_params *mns_pmns_mp_params(const mns_pmns_mp *c) { return c->P; }
size_t mns_pmns_mp_limbs(const mns_pmns_mp *c) { return c->limbs; }
const char *mns_pmns_mp_describe(const mns_pmns_mp *c) { return c->kernel_describe; }

/* The end of build, once the kernel exists: the per-call scratch bound
 * (the kernels' and the conversions' scratch lives on the stack: a plan
 * that needs more is refused), the S64 form's one and tight bound (set_mpz
 * ends with a product by 1 from here on; the tight bound's reduce
 * condition uses one's coefficients; MNS_ERANGE: the caller regenerates
 * with a larger delta), the word conversions' tables. */
static mns_status finish_build(mns_pmns_mp_ctx *c, int ifma)
{
    size_t need = mns_pmns_mp_scratch_generic(c) + 2;
    if (ifma && mns_pmns_mp_scratch_ifma(c) > need)
        need = mns_pmns_mp_scratch_ifma(c);
    if (2 * c->limbs > need)
        need = 2 * c->limbs;
    mns_status st = mns_scratch_check("pmns-mp", need);
    if (st != MNS_OK)
        return st;
    if (!c->u52) {
        if (!(c->unit = calloc(c->limbs, sizeof *c->unit)))
            return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        c->unit[0] = 1;
        mpz_t one;
        mpz_init_set_ui(one, 1);
        const int ok = mns_pmns_mp_set_mpz_var(c, c->one, one) == MNS_OK && mns_pmns_mp_tight_bounds(c);
        mpz_clear(one);
        if (!ok)
            return MNS_ERANGE;
    }
    return mns_pmns_mp_words_prepare(c);
}

/* The IFMA kernels' tables on a built plan (and the FMA kernel's, which
 * runs their data): every leaf's offsets, the fused kernels' data;
 * MNS_ENOTSUP where a lambda-carried set meets a kernel that multiplies
 * each digit by lambda, or the FMA kernel has no instance or no room (then
 * c->fma_miss tells whether another t or delta could help). */
static mns_status setup_ifma(mns_pmns_mp_ctx *c, int fma, int mo_a, int mo_m)
{
    const mp_plan *pl = &c->plan;
    const int n = c->n, s = c->s, k = c->k;
    c->moff = calloc((size_t)pl->leaves, sizeof *c->moff);
    c->aoff = calloc((size_t)pl->leaves, sizeof *c->aoff);
    if (!c->moff || !c->aoff) {
        return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
    }
    for (int l = 0; l < pl->leaves; l++) {
        c->moff[l] = mo_m;
        c->aoff[l] = mo_a;
    }
    if (!mns_pmns_mp_ifma_prepare(c)) {
        return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
    }
    if (c->lam_carried && (!c->fast || c->fs_plan)) {
        /* the other IFMA paths multiply each digit by lambda */
        return mns_error(MNS_ENOTSUP, "pmns-mp: a lambda-carried set (n=%d s=%d k=%d "
                                      "lambda=%ld) needs the unsplit fused IFMA kernel",
                         n, s, k, c->lambda);
    }
    c->mul = mns_pmns_mp_mul_ifma;
    c->sqr = mns_pmns_mp_sqr_ifma;
    c->kernel = "ifma";
    if (fma) {
        const int r = mns_pmns_mp_fma_prepare(c);
        if (r <= 0) {
            /* no instance: final; the bound: more room in the words
             * (a smaller k) may pass, as for the other kernel bounds */
            c->fma_miss = r == 0;
            return r == -1 ? mns_error(MNS_ENOMEM, "pmns-mp: out of memory")
                 : r == 0
                     ? mns_error(MNS_ENOTSUP,
                                 "pmns-mp: the FMA kernel has no instance for n=%d s=%d "
                                 "(s = 2..4, n <= 48)",
                                 n, s)
                     : mns_error(MNS_ENOTSUP,
                                 "pmns-mp: the FMA kernel's products leave 2^102 for n=%d "
                                 "s=%d k=%d lambda=%ld",
                                 n, s, k, c->lambda);
        }
    }
    return MNS_OK;
}

/* ifma: the u52 vector kernels' bounds and fused data; fma: then the FMA
 * kernel (pmns_mp/fma.c) instead of the IFMA ones */
static mns_status build(mns_pmns_mp_ctx *c, int base, int ifma, int fma)
{
    const int n = c->n, s = c->s, k = c->k;
    mns_status st;
    mpz_t t, La, Lb, zmax;
    mpz_inits(t, La, Lb, zmax, NULL);
    c->limbs = (size_t)n * s;
    c->kmask = ((uint64_t)1 << k) - 1;
    c->one = calloc(c->limbs, sizeof *c->one);
    if (!c->one) {
        st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        goto out;
    }
    /* operand bounds (coefficients): tight rho-1; loose and reduce inputs */
    mpz_sub_ui(Lb, mns_pmns_params_rho(c->P), 1);
    if (c->u52) {
        st = mns_pmns_mp_make_z(c, zmax);
        if (st != MNS_OK)
            goto out;
        /* loose: rho-1 + delta Z; reduce: also a + Z - b */
        mpz_mul_ui(La, zmax, (unsigned long)(c->delta > 1 ? c->delta : 1));
        mpz_add(La, La, Lb);
    } else
        mpz_mul_ui(La, Lb, (unsigned long)(c->delta > 1 ? c->delta + 1 : 2));
    /* normalised digits: k bits, the top one as large as La / 2^(k(s-1)) */
    double lg_dl = fmax((double)k, mns_pmns_mp_log2_mpz(La) - (double)k * (s - 1) + 1);
    if (c->u52) { /* S64: tight_bounds below, once the kernel exists */
        mpz_t Ll;
        mpz_init(Ll);
        mpz_mul_ui(Ll, zmax, (unsigned long)c->delta);
        mpz_add(Ll, Ll, Lb);
        /* Montgomery 1 (a tight representation of phi mod p) first: its
         * exact row sums bound reduce's product */
        mpz_set_ui(t, 1);
        int ok = mns_pmns_mp_set_mpz_var(c, c->one, t) == MNS_OK && mns_pmns_mp_closure_ok(c->P, Ll, Ll) &&
                 mns_pmns_mp_closure_one_ok(c, La);
        mpz_clear(Ll);
        if (!ok) {
            st = MNS_ERANGE; /* the caller regenerates with a larger delta */
            goto out;
        }
        /* a chunk below 2^(rho_bits - 1) <= rho is tight */
        c->tight0_bits = (int)mns_pmns_params_rho_bits(c->P) - 1;
    }
    /* M digits */
    uint64_t *md = calloc(c->limbs, sizeof *md), *mp0 = calloc((size_t)n, sizeof *mp0);
    if (!md || !mp0) {
        free(md);
        free(mp0);
        st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        goto out;
    }
    double lg_md = 0;
    for (int i = 0; i < n; i++) {
        mns_pmns_mp_split_digits(md + i, (size_t)n, mns_pmns_params_m(c->P, i), s, k);
        mpz_fdiv_r_2exp(t, mns_pmns_params_mprime(c->P, i), (mp_bitcnt_t)k);
        mp0[i] = mpz_get_ui(t);
    }
    for (size_t i = 0; i < c->limbs; i++) {
        int64_t d = (int64_t)md[i];
        lg_md = fmax(lg_md, log2(fabs((double)d) + 1));
    }
    c->lg_d = lg_dl; /* for the fused IFMA split's own bound checks */
    c->lg_top = mns_pmns_mp_log2_mpz(La) - (double)k * (s - 1) + 1;
    /* the plan: split while the bounds allow, else larger leaves */
    int mo_a = 0, mo_m = 0, found = 0;
    const double dtop = ldexp(mpz_get_d(La), -k * (s - 1)) + 2; /* normalised top digit */
    if (!ifma) /* the generic kernel's exact bounds and cost model */
        found = mns_pmns_mp_generic_plan_choose(c, md, dtop, base);
    for (int bs = base < n ? base : n; ifma && bs <= n && !found;
         bs = bs < n ? (bs * 2 > n ? n : bs * 2) : n + 1) {
        mns_pmns_mp_plan_make(&c->plan, n, bs);
        found = mns_pmns_mp_plan_ok(c, lg_dl, lg_md, ifma, &mo_a, &mo_m);
    }
    if (!found) {
        free(md);
        free(mp0);
        st = mns_error(MNS_ENOTSUP, "pmns-mp: the kernel bounds fail for n=%d s=%d k=%d", n, s, k);
        goto out;
    }
    c->base = base;
    const mp_plan *pl = &c->plan;
    c->mstride = 2 * pl->b - 1 + 8;
    size_t ms = (size_t)pl->leaves * c->mstride;
    c->mseq = calloc((size_t)s * ms + 16, sizeof *c->mseq);
    c->mpseq = calloc(ms + 16, sizeof *c->mpseq);
    uint64_t *tseq = calloc((size_t)2 * n + 8, sizeof *tseq);
    uint64_t *etmp = calloc((size_t)pl->tmp + 8, sizeof *etmp);
    if (!c->mseq || !c->mpseq || !tseq || !etmp) {
        free(md);
        free(mp0);
        free(tseq);
        free(etmp);
        st = mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        goto out;
    }
    for (int j = 0; j < s; j++) {
        mns_pmns_mp_toeplitz_seq(tseq, md + (size_t)j * n, n, c->lambda);
        mns_pmns_mp_expand_mat(pl, tseq, c->mseq + (size_t)j * ms, c->mstride, etmp);
    }
    mns_pmns_mp_toeplitz_seq(tseq, mp0, n, c->lambda);
    mns_pmns_mp_expand_mat(pl, tseq, c->mpseq, c->mstride, etmp);
    free(md);
    free(mp0);
    free(tseq);
    free(etmp);
    if (ifma) {
        if ((st = setup_ifma(c, fma, mo_a, mo_m)) != MNS_OK)
            goto out;
    } else {
        c->mul = mns_pmns_mp_mul_generic;
        c->sqr = mns_pmns_mp_sqr_generic;
        c->kernel = "generic";
    }
    st = finish_build(c, ifma);
out:
    mpz_clears(t, La, Lb, zmax, NULL);
    return st;
}

/* new_impl without the FMA kernel's choice of n (fma_default): one set */
static mns_status new_set(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                          int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                          int lanes, int carry);
static mns_status new_tested(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                             int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                             int lanes, int carry);

/* CARRY_FMA: the FMA kernel's sets lambda-carried too (fma_default) */
enum { CARRY_FMA = 2 };

/* The FMA kernel's s and base for new_set: s by the size rule where not
 * given, base 0 (the kernel's own split rule); n > 48 has no instance and
 * is refused before generating (n s k is about bits plus the room of rho,
 * k <= 50: 47 bits per digit is a safe guess). */
static int fma_size_s(size_t bits);

static mns_status fma_shape(const mpz_t p, int n, int *s, int *base)
{
    *base = 0;
    if (*s == 0) /* an n or base= given: the size rule's s */
        *s = fma_size_s(mpz_sizeinbase(p, 2));
    if ((n ? n : (int)((mpz_sizeinbase(p, 2) + 47 * *s - 1) / (47 * *s))) > 48)
        return mns_error(MNS_ENOTSUP, "pmns-mp: the FMA kernel takes n <= 48 (s = %d at %zu bits)",
                         *s, mpz_sizeinbase(p, 2));
    return MNS_OK;
}

/* One attempt's set: the one the IFMA choice already made (*pre, taken),
 * else the generator's; an automatic s of one word is asked again with 2
 * (the multi-precision form wants 2). Refused unless it is a
 * multi-precision X^n - lambda set whose chunks fit the word. */
static mns_status generate_set(mns_pmns_params **out, const mpz_t p, mns_pmns_gen_opts *o,
                               mns_pmns_params **pre, int s_auto)
{
    mns_pmns_params *P = NULL;
    mns_status st = MNS_OK;
    if (*pre) {
        P = *pre;
        *pre = NULL;
    } else {
        st = mns_pmns_generate_var(&P, p, o);
    }
    if (st == MNS_OK && mns_pmns_params_s(P) == 1 && s_auto) {
        mns_pmns_params_free(P);
        P = NULL;
        o->s = 2;
        st = mns_pmns_generate_var(&P, p, o);
    }
    if (st != MNS_OK)
        return st;
    if (mns_pmns_params_eshape(P) != MNS_PMNS_E_BINOMIAL || mns_pmns_params_s(P) < 2 ||
        mns_pmns_params_chunk_bits(P) > (o->word == MNS_PMNS_WORD_U52 ? 52u : 62u)) {
        mns_pmns_params_free(P);
        return mns_error(MNS_ENOTSUP, "pmns-mp: the set is not multi-precision X^n - lambda");
    }
    *out = P;
    return MNS_OK;
}

/* The arguments of new_set in range and the kernel runnable here; *ifma:
 * 1 where the set takes the IFMA kernels' path (the FMA kernel runs their
 * sets and fused data: unsplit, and swaps the kernel at the end). */
static mns_status check_args(mns_pmns_word word, int s, int n, int delta, int base,
                             mns_pmns_mp_kernel kernel, int *ifma)
{
    if (s < 0 || s == 1 || s > MNS_PMNS_S_MAX || n < 0 || n > MNS_PMNS_N_MAX || delta < 0 ||
        delta > 255 || base < 0)
        return mns_error(MNS_EINVAL, "pmns-mp: s in 2..%d (0: automatic), n in 0..%d, delta in "
                                     "0..255",
                         MNS_PMNS_S_MAX, MNS_PMNS_N_MAX);
    const int fma = kernel == MNS_PMNS_MP_KERNEL_FMA;
    if (fma && word != MNS_PMNS_WORD_U52)
        return mns_error(MNS_EINVAL, "pmns-mp: the FMA kernel needs the u52 word");
    if (fma && !mns_cpu_has_fma())
        return mns_error(MNS_ENOTSUP, "pmns-mp: this CPU has no AVX2 and FMA for the FMA kernel%s",
                         mns_cpu_features() == 0 ? " (MNS_CPU=generic)" : "");
    *ifma = fma || kernel == MNS_PMNS_MP_KERNEL_IFMA ||
            (kernel == MNS_PMNS_MP_KERNEL_AUTO && word == MNS_PMNS_WORD_U52 && mns_cpu_has_ifma());
    if (*ifma && (word != MNS_PMNS_WORD_U52))
        return mns_error(MNS_EINVAL, "pmns-mp: the IFMA kernel needs the u52 word");
    if (*ifma && !fma && !mns_cpu_has_ifma())
        return mns_error(MNS_ENOTSUP, "pmns-mp-ifma: this CPU has no AVX-512 IFMA%s",
                         mns_cpu_features() == 0 ? " (MNS_CPU=generic)" : "");
    if (fma && s != 0 && !mns_pmns_mp_fma_has(s, 4))
        return mns_error(MNS_EINVAL, "pmns-mp: the FMA kernel takes s = 2..4");
    return MNS_OK;
}

/* The generator's options for one attempt of new_set: an explicit n walks
 * the next lambdas if the smallest does not fit; carried asks for a
 * lambda-carried set. */
static void gen_options(mns_pmns_gen_opts *o, mns_pmns_word word, int s, int n, int dgen,
                        int tadds, int carried)
{
    mns_pmns_gen_opts_init(o);
    o->word = word;
    o->s = s;
    o->n = n;
    if (n) {
        o->flags |= MNS_PMNS_GEN_LAMBDA_WALK;
        o->lambda_max = 64;
    }
    o->delta = dgen > MNS_PMNS_DELTA_MAX ? MNS_PMNS_DELTA_MAX : dgen;
    o->toeplitz_adds = tadds;
    if (carried)
        o->flags |= MNS_PMNS_GEN_LAMBDA_CARRIED;
}

/* A context holding the set P (which it owns from here, freed with it),
 * its shape and p, gamma and phi^-1 mod p; NULL (P freed) when memory is
 * short. The kernel tables are build()'s. */
static mns_pmns_mp_ctx *ctx_of_set(mns_pmns_params *P, const mpz_t p, mns_pmns_word word,
                                   int delta, int dgen)
{
    mns_pmns_mp_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        mns_pmns_params_free(P);
        return NULL;
    }
    mpz_inits(c->p, c->gamma, c->phi_inv, NULL);
    c->P = P;
    c->n = mns_pmns_params_n(P);
    c->s = mns_pmns_params_s(P);
    c->k = (int)mns_pmns_params_chunk_bits(P);
    c->u52 = word == MNS_PMNS_WORD_U52;
    c->lambda = mns_pmns_params_lambda(P);
    c->lam_carried = mns_pmns_params_lambda_carried(P);
    c->delta = delta;
    c->delta_gen = dgen;
    mpz_set(c->p, p);
    mpz_set(c->gamma, mns_pmns_params_gamma(P));
    mpz_set_ui(c->phi_inv, 0);
    mpz_setbit(c->phi_inv, mns_pmns_params_phi_log2(P));
    mpz_invert(c->phi_inv, c->phi_inv, p);
    return c;
}

/* The kernel part of the field's description: kernel, shape, bounds and
 * the Toeplitz plan (the fused kernels' own, or the FMA kernel's split). */
static char *describe_ctx(const mns_pmns_mp_ctx *c)
{
    char buf[MNS_DESCRIBE_MAX];
    char plan[64] = "";
    size_t off = 0;
    for (int l = 0; l < c->plan.levels; l++)
        off += (size_t)snprintf(plan + off, sizeof plan - off, "%s%d", l ? "x" : "", c->plan.f[l]);
    snprintf(plan + off, sizeof plan - off, "%sb%d", c->plan.levels ? "/" : "", c->plan.b);
    if (c->fast || c->mfd) /* the fused IFMA (FMA) kernel has its own plan */
        mns_pmns_mp_ifma_fused_describe(c, plan, sizeof plan);
    if (c->fma_h) /* the FMA kernel's one 2-way split, halves of vl H lanes */
        snprintf(plan, sizeof plan, "fused:2/b%d", c->fma_vl * c->fma_h);
    char lanes_s[16] = ""; /* the FMA kernel's vector width */
    if (c->mfd)
        snprintf(lanes_s, sizeof lanes_s, " lanes=%d", c->fma_vl);
    snprintf(buf, sizeof buf,
             "kernel=%s%s word=%s n=%d s=%d k=%d lambda=%ld delta=%d delta_gen=%d "
             "rho_bits=%u toeplitz=%s bits=%zu%s",
             c->kernel, lanes_s, c->u52 ? "u52" : "s64", c->n, c->s, c->k, c->lambda, c->delta,
             c->delta_gen, mns_pmns_params_rho_bits(c->P), plan, mpz_sizeinbase(c->p, 2),
             c->sqr_by_mul ? " sqr=mul" : "");
    return strdup(buf);
}

/* The generic kernel's default (n, s): its cost model's candidates in
 * order, each generated with its (n, s); MNS_ENOTSUP if none passes (the
 * generator's automatic choice then). */
static mns_status generic_default(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int delta,
                                  int base, mns_pmns_mp_kernel kernel)
{
    int cn[4], cs[4], nc = mns_pmns_mp_generic_candidates(mpz_sizeinbase(p, 2), cn, cs, 4);
    for (int q = 0; q < nc; q++)
        if (new_tested(out, p, word, cs[q], cn[q], delta, base, kernel, 0, 0, 1) == MNS_OK)
            return MNS_OK;
    return MNS_ENOTSUP;
}

/* After build: the powers of gamma for the word exit, the scratch bound,
 * the description. */
static mns_status finish_ctx(mns_pmns_mp_ctx *c)
{
    if (!(c->gw_pow = mns_pmns_gw_powers(c->p, c->gamma, c->n)))
        return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
    mns_status st = mns_scratch_check(
        "pmns-mp", mns_pmns_gw_scratch(c->limbs, mpz_size(c->p), mns_pmns_mp_gw_cw(c), c->n));
    if (st == MNS_OK)
        c->kernel_describe = describe_ctx(c);
    return st;
}

mns_status mns_pmns_mp_new_var(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                               int delta, int base, mns_pmns_mp_kernel kernel)
{
    return mns_pmns_mp_new_impl(out, p, word, s, n, delta, base, kernel, 0, 0, 1);
}

/* The FMA kernel's split bound, lambda 2^(2 lg_d + 1) <= 2^102, fails on a
 * set with k = 50 and lambda >= 3 (seen at 8192 bits), which then runs
 * unsplit where the cost rule wants the split. (B3) with t = 2 asks for
 * k <= 49 (lambda 2^k < 2^51), which the split's bound takes up to lambda =
 * 8, at the cost of n + 0..2. The second set is kept if the cost model of
 * pmns_mp/fma.c prices it lower. */
static mns_pmns_mp *fma_retry(mns_pmns_mp *c, const mpz_t p, mns_pmns_word word, int n, int delta,
                              int base, mns_pmns_mp_kernel kernel, int lanes)
{
    mns_pmns_mp *alt = NULL;
    if (!c->fma_split_miss || c->fma_base != 0 ||
        new_set(&alt, p, word, c->s, n, delta, base, kernel, 2, lanes, 0) != MNS_OK)
        return c;
    if (mns_pmns_mp_fma_cost(alt) < mns_pmns_mp_fma_cost(c)) {
        mns_pmns_mp_free(c);
        return alt;
    }
    mns_pmns_mp_free(alt);
    return c;
}

/* The FMA kernel's s by the size of p, measured on Zen 3 (docs/pmns-mp.md,
 * "FMA kernel"): s = 3 up to 3072 bits, s = 4 at 4096 (n = 23, split), s = 3
 * past it up to 6144 (n = 47 split: 0.94x the time of s = 4 n = 34, which
 * the split does not serve), s = 4 beyond (n <= 48); s = 5 and 6 slower:
 * their products per step outrun the registers */
static int fma_size_s(size_t bits) { return bits <= 3072 || (bits > 4096 && bits <= 6144) ? 3 : 4; }

/* The FMA kernel's default set. The size rule's s with the generator's own
 * n is the cheapest set on most primes, but not on all: the generator takes
 * the smallest lambda of each n and moves to the next n when it does not
 * fit, and a set it does give can have a k too small for the split (k <=
 * 49 with lambda <= 8, or k = 50 with lambda = 2). Seen on random primes
 * (Xeon with IFMA): 2048 bits n = 17 s = 3 unsplit, 2851 ticks, where n =
 * 16 (lambda = 7, split) takes 1726; 4096 bits n = 25 s = 4 k = 46
 * unsplit, 9103, where s = 3 n = 31 (split) takes 6101. So when a set of
 * another s (3 or 4) or a smaller n is predicted at least 10% cheaper by
 * the kernel's cost model, it is generated at its predicted n and the next
 * (explicit n: the lambda walk) and the cheapest real set kept. On the
 * primes where the first set is as good as predicted nothing more is
 * generated. */
static mns_status fma_default(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s_req,
                              int delta, mns_pmns_mp_kernel kernel, int lanes)
{
    const size_t bits = mpz_sizeinbase(p, 2);
    const int s0 = s_req ? s_req : fma_size_s(bits);
    mns_pmns_mp *best = NULL;
    mns_status st = new_set(&best, p, word, s0, 0, delta, 0, kernel, 0, lanes, 0);
    if (st != MNS_OK)
        best = NULL;
    for (int sc = s_req ? s_req : 3; sc <= (s_req ? s_req : 4); sc++) {
        /* n0: the plain sets' predicted n (lambda = 2, k = 50); n0c, the
         * lambda-carried sets' (k = 51), can be one less */
        const int n0 = mns_pmns_mp_predict_n(bits, sc, 50), n0c = mns_pmns_mp_predict_n(bits, sc, 51);
        for (int nc = n0c; nc <= n0 + 1 && nc <= 48; nc++) {
            if (best && ((best->s == sc && best->n <= nc) ||
                         10 * mns_pmns_mp_fma_cost_predict(sc, nc, lanes) >= 9 * mns_pmns_mp_fma_cost(best)))
                continue;
            /* the plain set first; a lambda-carried one where it has none */
            for (int cy = nc < n0; cy < 2; cy++) {
                mns_pmns_mp *alt = NULL;
                if (new_set(&alt, p, word, sc, nc, delta, 0, kernel, 0, lanes, cy ? CARRY_FMA : 0) !=
                    MNS_OK)
                    continue;
                if (!best || mns_pmns_mp_fma_cost(alt) < mns_pmns_mp_fma_cost(best)) {
                    mns_pmns_mp_free(best);
                    best = alt;
                } else {
                    mns_pmns_mp_free(alt);
                }
                break;
            }
        }
    }
    if (!best)
        return st != MNS_OK ? st : mns_error(MNS_ENOTSUP, "pmns-mp: no set for the FMA kernel");
    mns_error_clear();
    *out = best;
    return MNS_OK;
}

/* the FMA kernel's sets without n or base= given: its choice (fma_default,
 * for the s given or both); p already tested */
static mns_status new_tested(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                             int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                             int lanes, int carry)
{
    if (kernel == MNS_PMNS_MP_KERNEL_FMA && n == 0 && base == 0 && tadds_min == 0 && out && p)
        return fma_default(out, p, word, s, delta, kernel, lanes);
    return new_set(out, p, word, s, n, delta, base, kernel, tadds_min, lanes, carry);
}

/* A composite p is refused once, before any parameter generation. The
 * generator tests p itself (GMP's full test), but each of the sets a
 * choice asks it for (the FMA kernel's n and s, the generic kernel's
 * candidates, a larger delta) ran that test again, and refusing an
 * 8192-bit composite took 2.8 s on the Zen 3. An odd p >= 3 only: the
 * other refusals are the generator's. */
mns_status mns_pmns_mp_new_impl(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s,
                                 int n, int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                           int lanes, int carry)
{
    if (p && mpz_cmp_ui(p, 3) >= 0 && mpz_odd_p(p) && !mns_probable_prime(p)) {
        if (out)
            *out = NULL;
        return mns_error(MNS_EINVAL, "pmns-mp: " MNS_MSG_NOT_PRIME);
    }
    return new_tested(out, p, word, s, n, delta, base, kernel, tadds_min, lanes, carry);
}

/* One set for new_impl. The FMA kernel keeps t = 1 too: its Toeplitz split
 * wants k <= 49, which t = 2 would prove, but t = 1 gives it where the split
 * pays on the sets seen (2048 bits n = 16, 4096 bits n = 23), and t = 2
 * costs n: 3072 bits n = 25 k = 48 lambda = 7 instead of n = 23 k = 50,
 * 6144 bits n = 35 at s = 4 and n = 49 at s = 3, past the instances. */
static mns_status new_set(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s, int n,
                          int delta, int base, mns_pmns_mp_kernel kernel, int tadds_min,
                          int lanes, int carry)
{
    const int base_in = base;
    if (!out || !p)
        return mns_error(MNS_EINVAL, "pmns-mp: NULL argument");
    *out = NULL;
    const int fma = kernel == MNS_PMNS_MP_KERNEL_FMA;
    int ifma = 0;
    mns_status st = check_args(word, s, n, delta, base, kernel, &ifma);
    if (st != MNS_OK)
        return st;
    /* the FMA kernel's base=: 0 its cost rule for the Toeplitz split, >= n
     * unsplit, else split where its bounds hold (as pmns-mp-ifma's) */
    const int fma_base = fma ? base : 0;
    if (fma && (st = fma_shape(p, n, &s, &base)) != MNS_OK)
        return st;
    const int base_user = fma ? MNS_PMNS_N_MAX : base; /* 0: the kernel chooses
                                 * (pmns_mp/ifma_fused.c, or the generic kernel's
                                 * cost model); >= n: unsplit */
    if (base == 0 && ifma)
        base = MP_BASE_IFMA;

    if (!ifma && word == MNS_PMNS_WORD_S64 && s == 0 && n == 0 &&
        generic_default(out, p, word, delta, base, kernel) == MNS_OK)
        return MNS_OK;
    /* the generator's delta: ours covers what add/sub/reduce produce; a set
     * whose phi leaves no room for it is regenerated with a larger one. u52:
     * a loose operand reaches rho - 1 + delta zmax with zmax about 1.1-1.3
     * rho (make_z), so (dgen + 1) rho with dgen about 1.25 delta. s64: the
     * delta = 0 set first (tight_bounds proves delta = 1 on it when phi has
     * the room), and the delta set if not */
    int dgen = word == MNS_PMNS_WORD_U52 ? (5 * delta + 2) / 4 : 0;
    st = MNS_ENOTSUP;
    /* (B3)'s t: the unsplit IFMA product adds nothing before multiplying, so
     * it only needs lambda 2^k < 2^52 (t = 1), which buys the largest k and so
     * the smallest n*s. plan_ok checks the real bounds; if they fail (a split
     * asked for by base=), t grows below. The generic kernel's exact check
     * (mns_pmns_mp_generic_plan_ok) replaces (B3) the same way: t = 1. */
    int tadds = (ifma && base >= MP_BASE_IFMA) || !ifma ? 1 : 0;
    if (tadds < tadds_min)
        tadds = tadds_min;
    int tadds0 = tadds, s_auto = 0; /* s_auto: the s tried after an automatic one failed */
    mns_pmns_params *pre = NULL; /* a set the IFMA choice already generated */
    /* the IFMA kernel's own cost picks s (if not given) and t (unsplit or
     * split); the generator's Table-3 cost does not know the kernel. Made
     * again for each larger dgen: its set (a lambda walk's n = 8 s = 3 with
     * lambda = 13 at 1024 bits) can pass the generator and fail make_z
     * here, and regenerating its s without n would land on the n past a
     * vector (n = 9 s = 3, twice the cost) where another s is cheaper */
    const int ifma_choice = ifma && base_user == 0 && n == 0;
    /* lambda-carried sets: the unsplit fused IFMA kernels (not the split nor
     * the expand/contract flow, which multiply each digit by lambda), asked
     * for when t = 1 (the unsplit kernel); and the FMA kernel's unsplit one
     * when fma_default asks (CARRY_FMA) */
    const int carried = ifma && (fma ? carry == CARRY_FMA
                                     : carry && (base_user == 0 || base_user >= MP_BASE_IFMA));
    int choose = ifma_choice;
    for (int attempt = 0; attempt < 16; attempt++) {
        if (choose) {
            int sc = 0;
            mns_pmns_mp_ifma_choose(p, s, dgen, carried, &sc, &tadds, &pre);
            if (s == 0)
                s_auto = sc;
            tadds0 = tadds;
            choose = 0;
        }
        mns_pmns_gen_opts o;
        gen_options(&o, word, s ? s : s_auto, n, dgen, tadds, carried && tadds == 1);
        mns_pmns_params *P = NULL;
        st = generate_set(&P, p, &o, &pre, s == 0);
        if (st != MNS_OK)
            return st;
        mns_pmns_mp_ctx *c = ctx_of_set(P, p, word, delta, dgen);
        if (!c)
            return mns_error(MNS_ENOMEM, "pmns-mp: out of memory");
        c->base_user = base_user;
        c->fma_base = fma_base;
        c->fma_vl = lanes;
        st = build(c, base, ifma, fma);
        if (st == MNS_OK)
            st = finish_ctx(c);
        if (st == MNS_OK) {
            *out = fma && tadds_min == 0 ? fma_retry(c, p, word, n, delta, base_in, kernel, lanes) : c;
            return MNS_OK;
        }
        int nn = c->n, ss = c->s;
        const int miss = c->fma_miss;
        mns_pmns_mp_free(c);
        if (miss) /* another t or delta does not make an instance */
            return st;
        if (st == MNS_ENOTSUP && tadds < 64 * nn) {
            /* the kernel bounds fail: ask for more room in the words
             * ((B3) with a larger t, so a smaller k) */
            tadds = tadds ? 4 * tadds : 4 * nn;
            continue;
        }
        if (st == MNS_ENOTSUP && s == 0 && n == 0 && s_auto < MNS_PMNS_S_MAX) {
            /* the automatic (n, s) leaves no room the kernel can use (e.g.
             * 1024 bits: n=6 s=3 k=60): the next s, from 2, skipping it */
            s_auto = s_auto ? s_auto + 1 : 2;
            if (s_auto == ss)
                s_auto++;
            tadds = tadds0;
            if (s_auto <= MNS_PMNS_S_MAX)
                continue;
        }
        if (st != MNS_ERANGE)
            return st;
        /* S64 starts from the delta = 0 set, which tight_bounds often
         * proves for delta = 1; else the set generated for delta itself
         * (the generator's closure with (delta+1)(rho-1)), then larger */
        dgen = word == MNS_PMNS_WORD_S64 && dgen < delta ? delta : dgen + 1;
        choose = ifma_choice;
    }
    return mns_error(MNS_ENOTSUP, "pmns-mp: no parameter set leaves room for delta=%d", delta);
}
