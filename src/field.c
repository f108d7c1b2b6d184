/* The front door: spec parsing, the backend table, "auto", and the thin
 * dispatch of mns_field_* to the chosen backend. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/field_internal.h"
#include "core/opts.h"
#include "exp/exp.h"

struct mns_field {
    /* hot operations first, copied out of ops so a call costs one load */
    void (*mul)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sqr)(const void *ctx, uint64_t *r, const uint64_t *a);
    void (*add)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sub)(const void *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
    void *ctx;
    mns_backend_inst inst;
    mpz_t p;
    char describe[MNS_DESCRIBE_MAX + 128];
};

/* Backends, one line each. A number system adds its line here. */
extern const mns_backend mns_backend_mont;
extern const mns_backend mns_backend_mpart;
extern const mns_backend mns_backend_bipartite;
extern const mns_backend mns_backend_mpart_mont;
extern const mns_backend mns_backend_mpart_barrett;
extern const mns_backend mns_backend_rns, mns_backend_rns_ifma;
extern const mns_backend mns_backend_pmns, mns_backend_pmns_ifma;
extern const mns_backend mns_backend_pmns_mp, mns_backend_pmns_mp_ifma;

static const mns_backend *const backends[] = {
    &mns_backend_mont,
    &mns_backend_mpart,
    &mns_backend_bipartite,
    &mns_backend_mpart_mont,
    &mns_backend_mpart_barrett,
    &mns_backend_rns,
    &mns_backend_rns_ifma,
    &mns_backend_pmns,
    &mns_backend_pmns_ifma,
    &mns_backend_pmns_mp,
    &mns_backend_pmns_mp_ifma,
};

static const mns_backend *find_backend(const char *name)
{
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

/* "auto" before tuning tables exist (issue 11): the candidates below are
 * tried in order for the size of p, the first that accepts p wins; "mont"
 * serves every odd modulus and closes the list. Each line records the
 * benchmark that put it there. */
typedef struct auto_rule {
    size_t min_bits, max_bits;
    const char *spec;
    const char *why;
} auto_rule;

/* The measurements behind the rules (TSC ticks per modmul, one run each,
 * Xeon with AVX-512 IFMA, docs/performance.md): pmns-ifma is the fastest
 * from 256 to 1024 bits (256: 77 vs mont 104 vs OpenSSL 124; 807: 248 vs
 * rns-ifma 250; 1024: 392 vs ~350-450 for rns-ifma) and its parameters are
 * generated in well under a second there; rns-ifma is the fastest above
 * (1214: 450 vs 673, 2048: 734 vs 2039, 8192: 15187 vs GMP's 70216) and is
 * cheap to set up; without IFMA neither portable kernel beats mont (pmns
 * and rns portable are 3-6x slower than GMP), so mont serves the rest.
 * Issue 11 replaces this list by measured tuning tables. */
static const auto_rule auto_rules[] = {
    {200, 1024, "pmns-ifma", "PMNS with IFMA: fastest measured at 256-1024 bits"},
    {1025, 12000, "rns-ifma", "RNS with IFMA: fastest measured above 1024 bits"},
    {2, SIZE_MAX, "mont", "classical Montgomery: serves any odd modulus"},
};

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
    return be->create(&f->inst, f->p, &opts);
}

static mns_status create_auto(mns_field *f, const char *spec)
{
    if (strcmp(spec, "auto") != 0)
        return mns_error(MNS_EINVAL, "backend \"auto\" takes no options");
    size_t bits = mpz_sizeinbase(f->p, 2);
    for (size_t i = 0; i < sizeof auto_rules / sizeof auto_rules[0]; i++) {
        const auto_rule *r = &auto_rules[i];
        if (bits < r->min_bits || bits > r->max_bits)
            continue;
        mns_status st = create_named(f, r->spec);
        if (st == MNS_OK) {
            snprintf(f->describe, sizeof f->describe, "%s auto=\"%s\"", f->inst.describe, r->why);
            return MNS_OK;
        }
        /* a candidate that cannot serve this p (no IFMA, p not prime for a
         * PMNS, too large for the RNS bases) hands over to the next one */
        if (st == MNS_ENOMEM)
            return st;
    }
    return mns_error(MNS_ENOTSUP, "auto: no backend accepts this modulus");
}

mns_status mns_field_new(mns_field **out, const mpz_t p, const char *spec)
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
    *out = f;
    return MNS_OK;
}

void mns_field_free(mns_field *f)
{
    if (!f)
        return;
    if (f->inst.ops && f->inst.ops->destroy)
        f->inst.ops->destroy(f->inst.ctx);
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
    f->inst.ops->set_words(f->ctx, r, a);
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
    const mns_exp_ops ops = {f->ctx, f->inst.limbs, f->inst.ops->mul, f->inst.ops->sqr,
                             f->inst.ops->one};
    if (mns_exp_powm_alloc(&ops, r, a, e) != MNS_OK)
        memset(r, 0, f->inst.limbs * sizeof(uint64_t));
}
