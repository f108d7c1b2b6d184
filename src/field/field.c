/* The front door: spec parsing, the backend table, "auto", and the thin
 * dispatch of mns_field_* to the chosen backend. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/ct.h"
#include "core/ct_words.h"
#include "core/cpu.h"
#include "core/error.h"
#include "field/field_impl.h"
#include "field/field_internal.h"
#include "core/opts.h"
#include "field/tune.h"
#include "gen/gen.h"
#include "exp/exp.h"
#include "mns_tune.h"
#include "mont52_mb/mb52.h"
#include "pmers/pmers.h"

/* Backends, one line each. A number system adds its line here. */
extern const mns_backend mns_backend_mont, mns_backend_mont_ifma;
extern const mns_backend mns_backend_mpart;
extern const mns_backend mns_backend_bipartite;
extern const mns_backend mns_backend_mpart_mont;
extern const mns_backend mns_backend_mpart_barrett;
extern const mns_backend mns_backend_rns, mns_backend_rns_ifma;
extern const mns_backend mns_backend_sor, mns_backend_sor_ifma;
extern const mns_backend mns_backend_pmns, mns_backend_pmns_ifma;
extern const mns_backend mns_backend_pmns_mp, mns_backend_pmns_mp_ifma;
extern const mns_backend mns_backend_pmers;

static const mns_backend *const backends[] = {
    &mns_backend_mont,
    &mns_backend_mont_ifma,
    &mns_backend_mpart,
    &mns_backend_bipartite,
    &mns_backend_mpart_mont,
    &mns_backend_mpart_barrett,
    &mns_backend_rns,
    &mns_backend_rns_ifma,
    &mns_backend_sor,
    &mns_backend_sor_ifma,
    &mns_backend_pmns,
    &mns_backend_pmns_ifma,
    &mns_backend_pmns_mp,
    &mns_backend_pmns_mp_ifma,
    &mns_backend_pmers,
};

const char *mns_backend_name(size_t i)
{
    return i < sizeof backends / sizeof backends[0] ? backends[i]->name : NULL;
}

static const mns_backend *find_backend(const char *name)
{
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

static mns_status create_named(mns_field *f, const char *spec)
{
    char name[MNS_BACKEND_NAME_MAX];
    mns_opts opts;
    mns_status st = mns_opts_parse(spec, name, &opts);
    if (st != MNS_OK)
        return st;
    const mns_backend *be = find_backend(name);
    if (!be)
        return mns_error(MNS_EINVAL, "unknown backend \"%s\"", name);
    memset(&f->inst, 0, sizeof f->inst);
    if ((st = be->create(&f->inst, f->p, &opts)) != MNS_OK)
        return st;
    /* powm's window table lives on the stack of each call: a field whose
     * elements make even the narrowest table too large is refused here */
    if (!f->inst.ops->powm && (st = mns_exp_check(f->inst.limbs)) != MNS_OK) {
        if (f->inst.ops->destroy)
            f->inst.ops->destroy(f->inst.ctx);
        memset(&f->inst, 0, sizeof f->inst);
    }
    return st;
}

/* "auto": the candidates of the current tuning table that match the
 * operation mix and p (src/field/tune.c), in their measured order, are tried
 * one after the other and the first that accepts p serves; "mont" serves
 * every odd modulus and closes the list. A candidate that cannot serve p (no
 * IFMA, p not prime for a PMNS, p not pseudo-Mersenne enough for sor, its
 * parameter generation out of budget, a backend not built) hands over to the
 * next measured one, and the description says which refused and why.
 * Options: op=mul (default: modmul-heavy work) or op=exp (exponentiation);
 * delta=D, the free additions the caller needs before a mul (default: each
 * backend's own, at least 1): RSA's channels, which only multiply, ask
 * delta=0. */
/* A candidate of "auto" asked for `delta` free additions (< 0: not asked):
 * the option goes to backends that take one (the PMNS and RNS families size
 * their parameters by it, and delta = 0 frees bits for callers that only
 * multiply); a backend without the option, or a row whose spec sets its
 * own, must report at least `delta` itself. */
static mns_status create_candidate(mns_field *f, const char *cand, long delta)
{
    if (delta < 0)
        return create_named(f, cand);
    mns_status st;
    if (strstr(cand, "delta=")) {
        st = create_named(f, cand);
    } else {
        char spec[MNS_BACKEND_NAME_MAX + 128];
        snprintf(spec, sizeof spec, "%s%sdelta=%ld", cand, strchr(cand, ':') ? "," : ":", delta);
        st = create_named(f, spec);
        /* only a backend without the option is asked again without it: any
         * other refusal (p not prime, ...) would cost the same work twice */
        if (st == MNS_EINVAL && strstr(mns_last_error(), "takes no option \"delta\""))
            st = create_named(f, cand);
    }
    if (st == MNS_OK && f->inst.delta < delta) {
        const int own = f->inst.delta;
        if (f->inst.ops && f->inst.ops->destroy)
            f->inst.ops->destroy(f->inst.ctx);
        memset(&f->inst, 0, sizeof f->inst);
        st = mns_error(MNS_ENOTSUP, "%s: delta %d below the %ld asked", cand, own, delta);
    }
    return st;
}

/* The PMNS families serve a prime p only and test p first: on a composite
 * without small factors each refusal costs a probable-prime test (an
 * exponentiation mod p: tens of ms at 4096 bits), and a ranking can hold
 * several of them before the first backend that serves a composite. Once one
 * has refused p as composite (pmns/params.h), the others are skipped. */
static int needs_prime(const char *spec)
{
    static const char *const names[] = {"pmns", "pmns-ifma", "pmns-mp", "pmns-mp-ifma"};
    const size_t len = strcspn(spec, ":");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && strncmp(spec, names[i], len) == 0)
            return 1;
    return 0;
}

/* "spec (why)" appended to the refusals, the reason cut short: describe
 * says which candidates refused p and why, in a bounded string. */
static void note_refusal(char *refused, size_t size, size_t nref, const char *cand,
                         const char *why)
{
    size_t len = strlen(refused);
    if (len + 8 < size)
        snprintf(refused + len, size - len, "%s%s (%.72s)", nref ? ", " : "", cand, why);
}

/* auto="op=... table=... line N: <form> <spec> <lo>-<hi> bits, <figure>"
 * after the backend's own description: which row served p and how it was
 * ranked when measured (version 2: its place and its ticks over the first's;
 * version 1: its margin), then the candidates that refused p. */
static void describe_auto(mns_field *f, const mns_tune_choice *ch, const mns_tune_row *r,
                          const char *opd, const char *refused)
{
    char why[800];
    if (r && ch->version >= 2)
        snprintf(why, sizeof why,
                 "op=%s table=%s line %u: %s %s %zu-%zu bits, choice %u of %u, measured %.2fx "
                 "the first's ticks",
                 opd, ch->table, r->line, r->form == MNS_TUNE_PM ? "pseudo-Mersenne" : "any",
                 r->spec, r->lo, r->hi, r->rank, r->nrank, r->figure);
    else if (r)
        snprintf(why, sizeof why, "op=%s table=%s line %u: %s %s %zu-%zu bits, margin %.2f", opd,
                 ch->table, r->line, r->form == MNS_TUNE_PM ? "pseudo-Mersenne" : "any", r->spec,
                 r->lo, r->hi, r->figure);
    else
        snprintf(why, sizeof why, "op=%s table=%s: %s, mont closes the list", opd, ch->table,
                 ch->n ? "every row refused p" : "no row for this size");
    snprintf(f->describe, sizeof f->describe, "%s auto=\"%s%s%s\"", f->inst.describe, why,
             refused[0] ? "; refused: " : "", refused);
}

/* The special form before the table: p = 2^k - c with small c, which the
 * pseudo-Mersenne backend folds instead of reducing (src/pmers/pmers.h). At
 * every size it serves (2 to 9 words) it was measured faster than the
 * table's choice on CPUs without IFMA, mont (AMD EPYC Zen 3, native and
 * MNS_CPU=generic, docs/pmers.md), for products, squares and additions
 * alike, so there it goes first whatever the operation mix. Against the
 * IFMA tables' choice (pmns-ifma) it was not measured: those CPUs keep
 * their table. Returns MNS_OK with the field built, or the refusal (noted). */
static mns_status create_special(mns_field *f, long delta, const char *opd, char *refused,
                                 size_t size, size_t *nref)
{
    unsigned k;
    uint64_t c;
    size_t n;
    if (mns_cpu_has_ifma() || !mns_pmers_form(f->p, &k, &c, &n))
        return MNS_ENOTSUP;
    mns_status st = create_candidate(f, "pmers", delta);
    if (st == MNS_OK)
        snprintf(f->describe, sizeof f->describe,
                 "%s auto=\"op=%s: p = 2^%u - %llu, pseudo-Mersenne form, pmers before the "
                 "table rows\"",
                 f->inst.describe, opd, k, (unsigned long long)c);
    else
        note_refusal(refused, size, (*nref)++, "pmers", mns_last_error());
    return st;
}

static mns_status create_auto(mns_field *f, const char *spec)
{
    static const char *const allowed[] = {"op", "delta", NULL};
    char name[MNS_BACKEND_NAME_MAX];
    mns_opts opts;
    mns_status st = mns_opts_parse(spec, name, &opts);
    if (st != MNS_OK)
        return st;
    if ((st = mns_opts_check(&opts, "auto", allowed)) != MNS_OK)
        return st;
    const char *opname = mns_opts_get(&opts, "op");
    mns_tune_op op = MNS_TUNE_MUL;
    if (opname && mns_tune_op_parse(opname, &op) != MNS_OK)
        return mns_error(MNS_EINVAL, "auto: op=%s is neither mul nor exp", opname);
    long delta = -1;
    if ((st = mns_opts_get_long(&opts, "auto", "delta", 0, 255, &delta)) != MNS_OK)
        return st;

    mns_tune_choice *ch = malloc(sizeof *ch);
    if (!ch)
        return mns_error(MNS_ENOMEM, "auto: out of memory");
    if ((st = mns_tune_lookup(op, f->p, ch)) != MNS_OK) {
        free(ch);
        return st;
    }
    char refused[600] = "", opd[40];
    size_t nref = 0;
    snprintf(opd, sizeof opd, "%s", op == MNS_TUNE_MUL ? "mul" : "exp");
    if (delta >= 0)
        snprintf(opd + 3, sizeof opd - 3, " delta=%ld", delta);
    if ((st = create_special(f, delta, opd, refused, sizeof refused, &nref)) == MNS_OK) {
        mns_error_clear();
        free(ch);
        return MNS_OK;
    }
    if (st == MNS_ENOMEM) {
        free(ch);
        return st;
    }
    int composite = 0;
    for (size_t i = 0; i <= ch->n; i++) {
        const mns_tune_row *r = i < ch->n ? &ch->row[i] : NULL;
        const char *cand = r ? r->spec : "mont";
        const int prime_only = needs_prime(cand);
        if (prime_only && composite) {
            note_refusal(refused, sizeof refused, nref++, cand, "p is composite");
            continue;
        }
        st = create_candidate(f, cand, delta);
        if (st == MNS_OK) {
            describe_auto(f, ch, r, opd, refused);
            mns_error_clear(); /* a refusal on the way is not this call's failure */
            free(ch);
            return MNS_OK;
        }
        if (st == MNS_ENOMEM)
            break;
        note_refusal(refused, sizeof refused, nref++, cand, mns_last_error());
        if (prime_only && strstr(mns_last_error(), MNS_MSG_NOT_PRIME))
            composite = 1;
    }
    free(ch);
    if (st == MNS_ENOMEM)
        return st;
    char last[256];
    snprintf(last, sizeof last, "%s", mns_last_error());
    return mns_error(MNS_ENOTSUP, "auto: no backend accepts this modulus (last: %s)", last);
}

static mns_status field_new(mns_field **out, const mpz_t p, const char *spec, int sqrt_data)
{
    mns_error_clear();
    if (out == NULL)
        return mns_error(MNS_EINVAL, "mns_field_new: NULL output pointer");
    *out = NULL;
    if (p == NULL)
        return mns_error(MNS_EINVAL, "mns_field_new: NULL modulus");
    if (mpz_cmp_ui(p, 3) < 0)
        return mns_error(MNS_EINVAL, "modulus must be >= 3");
    if (mpz_even_p(p))
        return mns_error(MNS_EINVAL, "modulus must be odd");
    if (spec == NULL)
        spec = "auto";

    mns_field *f = calloc(1, sizeof *f);
    if (!f)
        return mns_error(MNS_ENOMEM, "mns_field_new: out of memory");
    mpz_init_set(f->p, p);

    mns_status st = strncmp(spec, "auto", 4) == 0 && (spec[4] == '\0' || spec[4] == ':')
                        ? create_auto(f, spec)
                        : create_named(f, spec);
    if (st != MNS_OK) {
        mpz_clear(f->p);
        free(f);
        return st;
    }
    if (!f->describe[0])
        snprintf(f->describe, sizeof f->describe, "%s", f->inst.describe);
    f->ctx = f->inst.ctx;
    f->mul = f->inst.ops->mul;
    f->sqr = f->inst.ops->sqr;
    f->add = f->inst.ops->add;
    f->sub = f->inst.ops->sub;
    if ((st = mns_field_api_init(f, sqrt_data)) != MNS_OK) {
        mns_field_free(f);
        return st;
    }
    f->lanes_native = mns_mont52_is(&f->inst);
    /* the IFMA lanes where the CPU has them: without, the batch calls loop
     * over the single ones, which the portable lanes would not beat */
    if (mns_cpu_has_ifma())
        mns_field_lanes_use_(f, MNS_MB52_IFMA);
    *out = f;
    return MNS_OK;
}

mns_status mns_field_new(mns_field **out, const mpz_t p, const char *spec)
{
    return field_new(out, p, spec, 1);
}

mns_status mns_field_new_nosqrt_(mns_field **out, const mpz_t p, const char *spec)
{
    return field_new(out, p, spec, 0);
}

mns_status mns_field_lanes_use_(mns_field *f, int kernel)
{
    mns_mb52_free(f->lanes);
    f->lanes = NULL;
    if (kernel < 0 || mpz_sizeinbase(f->p, 2) > MNS_MB52_MAX_BITS)
        return MNS_OK;
    return mns_mb52_new(&f->lanes, f->p, (mns_mb52_kernel)kernel);
}

const mns_mb52_ctx *mns_field_lanes(const mns_field *f) { return f->lanes; }

int mns_field_lanes_native(const mns_field *f) { return f->lanes_native; }

void mns_field_free(mns_field *f)
{
    if (!f)
        return;
    if (f->inst.ops && f->inst.ops->destroy)
        f->inst.ops->destroy(f->inst.ctx);
    mns_field_api_clear(f);
    mns_mb52_free(f->lanes);
    mpz_clear(f->p);
    free(f);
}

const char *mns_field_describe(const mns_field *f) { return f ? f->describe : "(null)"; }

size_t mns_field_limbs(const mns_field *f) { return f ? f->inst.limbs : 0; }

int mns_field_delta(const mns_field *f) { return f ? f->inst.delta : 0; }

mns_status mns_field_set_mpz(const mns_field *f, uint64_t *r, const mpz_t a)
{
    if (!f || !r || !a)
        return mns_error(MNS_EINVAL, "mns_field_set_mpz: NULL argument");
    return f->inst.ops->set_mpz(f->ctx, r, a);
}

int mns_field_has_set_words(const mns_field *f) { return f && f->inst.ops->set_words != NULL; }

mns_status mns_field_set_words(const mns_field *f, uint64_t *r, const uint64_t *a, size_t n)
{
    if (!f || !r || !a)
        return mns_error(MNS_EINVAL, "mns_field_set_words: NULL argument");
    if (!f->inst.ops->set_words)
        return mns_error(MNS_ENOTSUP, "mns_field_set_words: backend has no constant-time entry");
    if (n != mpz_size(f->p))
        return mns_error(MNS_EINVAL, "mns_field_set_words: %zu words, p has %zu", n,
                         mpz_size(f->p));
    /* the caller's promise a < p, checked: its outcome is the status */
    uint64_t below = mns_ct_words_lt(a, mpz_limbs_read(f->p), n);
    mns_ct_declassify(&below, sizeof below);
    if (!below)
        return mns_error(MNS_ERANGE, "mns_field_set_words: value not below p");
    f->inst.ops->set_words(f->ctx, r, a);
    return MNS_OK;
}

int mns_field_has_get_words(const mns_field *f) { return f && f->inst.ops->get_words != NULL; }

mns_status mns_field_get_words(const mns_field *f, uint64_t *r, const uint64_t *a, size_t n)
{
    if (!f || !r || !a)
        return mns_error(MNS_EINVAL, "mns_field_get_words: NULL argument");
    if (!f->inst.ops->get_words)
        return mns_error(MNS_ENOTSUP, "mns_field_get_words: backend has no constant-time exit");
    if (n != mpz_size(f->p))
        return mns_error(MNS_EINVAL, "mns_field_get_words: %zu words, p has %zu", n,
                         mpz_size(f->p));
    f->inst.ops->get_words(f->ctx, r, a);
    return MNS_OK;
}

void mns_field_get_mpz(const mns_field *f, mpz_t r, const uint64_t *a)
{
    f->inst.ops->get_mpz(f->ctx, r, a);
}

void mns_field_mul(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    f->mul(f->ctx, r, a, b);
}

void mns_field_sqr(const mns_field *f, uint64_t *r, const uint64_t *a) { f->sqr(f->ctx, r, a); }

void mns_field_add(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    f->add(f->ctx, r, a, b);
}

void mns_field_sub(const mns_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    f->sub(f->ctx, r, a, b);
}

void mns_field_reduce(const mns_field *f, uint64_t *r, const uint64_t *a)
{
    f->inst.ops->reduce(f->ctx, r, a);
}

static mns_exp_ops exp_ops(const mns_field *f)
{
    const mns_exp_ops ops = {f->ctx, f->inst.limbs, f->inst.ops->mul, f->inst.ops->sqr,
                             f->inst.ops->one, f->inst.ops->sqr_k};
    return ops;
}

size_t mns_field_powm_scratch_words(const mns_field *f, size_t bits)
{
    return f->inst.ops->powm ? 0 : mns_exp_scratch_words(f->inst.limbs, bits);
}

void mns_field_powm_scratch(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t e,
                            uint64_t *scratch)
{
    if (f->inst.ops->powm) {
        f->inst.ops->powm(f->ctx, r, a, e);
        return;
    }
    const mns_exp_ops ops = exp_ops(f);
    mns_exp_powm(&ops, r, a, e, scratch);
}

const void *mns_field_backend_ctx(const mns_field *f)
{
    return f->ctx;
}

int mns_field_x2(const mns_field *f0, const mns_field *f1)
{
    const mns_field_ops *o = f0->inst.ops;
    if (o != f1->inst.ops || o->powm || f0->inst.limbs != f1->inst.limbs)
        return 0;
    return o->mul_x2 && o->sqr_x2 ? 2 : 1;
}

size_t mns_field_powm_x2_lane_words(const mns_field *f, const mns_field *other, size_t bits)
{
    size_t single = mns_field_powm_scratch_words(f, bits);
    if (!mns_field_x2(f, other))
        return single;
    size_t lane = mns_exp_x2_lane_words(f->inst.limbs, bits, other->inst.limbs);
    return lane > single ? lane : single;
}

void mns_field_mul_x2(const mns_field *f0, uint64_t *r0, const uint64_t *a0, const uint64_t *b0,
                      const mns_field *f1, uint64_t *r1, const uint64_t *a1, const uint64_t *b1)
{
    if (mns_field_x2(f0, f1) == 2) {
        f0->inst.ops->mul_x2(f0->ctx, f1->ctx, r0, a0, b0, r1, a1, b1);
        return;
    }
    f0->mul(f0->ctx, r0, a0, b0);
    f1->mul(f1->ctx, r1, a1, b1);
}

void mns_field_sqr_x2(const mns_field *f0, uint64_t *r0, const uint64_t *a0, const mns_field *f1,
                      uint64_t *r1, const uint64_t *a1)
{
    if (mns_field_x2(f0, f1) == 2) {
        f0->inst.ops->sqr_x2(f0->ctx, f1->ctx, r0, a0, r1, a1);
        return;
    }
    f0->sqr(f0->ctx, r0, a0);
    f1->sqr(f1->ctx, r1, a1);
}

void mns_field_powm_x2(const mns_field *f0, uint64_t *r0, const uint64_t *a0, const mpz_t e0,
                       const mns_field *f1, uint64_t *r1, const uint64_t *a1, const mpz_t e1,
                       uint64_t *scratch0, uint64_t *scratch1)
{
    if (!mns_field_x2(f0, f1)) {
        mns_field_powm_scratch(f0, r0, a0, e0, scratch0);
        mns_field_powm_scratch(f1, r1, a1, e1, scratch1);
        return;
    }
    const mns_exp_x2 x2 = {{exp_ops(f0), exp_ops(f1)}, f0->inst.ops->mul_x2,
                           f0->inst.ops->sqr_x2};
    mns_exp_powm_x2(&x2, r0, a0, e0, r1, a1, e1, scratch0, scratch1);
}

void mns_field_powm(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t e)
{
    if (mpz_sgn(e) < 0) {
        memset(r, 0, f->inst.limbs * sizeof(uint64_t));
        mns_error(MNS_ERANGE, "mns_field_powm: negative exponent");
        return;
    }
    if (f->inst.ops->powm) {
        f->inst.ops->powm(f->ctx, r, a, e);
        return;
    }
    const mns_exp_ops ops = exp_ops(f);
    (void)mns_exp_powm_stack(&ops, r, a, e); /* cannot fail: checked in create_named */
}
