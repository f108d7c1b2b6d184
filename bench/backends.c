#include "backends.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mns.h>

const char *const mb_known_backends[] = {
    "mont", "mont-ifma", "auto", "pmns", "pmns-ifma", "pmns-mp", "pmns-mp-ifma", "rns",
    "rns-ifma", "sor", "mpart", "bipartite", NULL,
};

/* Size windows for the default run (no --backends): outside them a backend's
 * field creation (PMNS parameter generation by LLL: seconds at 2048 bits for
 * s = 1 above 2048 bits: 4-19 s at 3072; the multi-precision defaults take at
 * most 1.4 s at 8192 bits since session 4) or its thread start-up (mpart on
 * small moduli) would dominate a two-minute run. Named explicitly
 * with --backends, every backend runs at every size. */
static const struct {
    const char *name;
    unsigned min_bits, max_bits;
} default_windows[] = {
    {"pmns", 0, 2048},         {"pmns-ifma", 0, 2048},     {"pmns-mp", 1024, 8192},
    {"pmns-mp-ifma", 1024, 8192}, {"mpart", 4096, ~0u},   {"bipartite", 4096, ~0u},
    {"mont-ifma", 0, 4158}, /* its limit: 80 digits of 52 bits (src/mont52/amm52.h) */
};

int mb_default_window(const char *name, unsigned bits)
{
    for (size_t i = 0; i < sizeof default_windows / sizeof default_windows[0]; i++)
        if (strcmp(default_windows[i].name, name) == 0)
            return bits >= default_windows[i].min_bits && bits <= default_windows[i].max_bits;
    return 1;
}

typedef struct mns_state {
    mns_field *f;
    size_t limbs;
    uint64_t *a, *b, *r;
    mpz_t e;
} mns_state;

static void mns_mul_call(void *arg)
{
    mns_state *s = arg;
    mns_field_mul(s->f, s->r, s->a, s->b);
}

static void mns_sqr_call(void *arg)
{
    mns_state *s = arg;
    mns_field_sqr(s->f, s->r, s->a);
}

static void mns_exp_call(void *arg)
{
    mns_state *s = arg;
    mns_field_powm(s->f, s->r, s->a, s->e);
}

static void mns_load(void *arg, mb_op op, const mpz_t a, const mpz_t b, const mpz_t e)
{
    mns_state *s = arg;
    mns_field_set_mpz(s->f, s->a, a);
    mns_field_set_mpz(s->f, s->b, b);
    if (op == MB_MODEXP)
        mpz_set(s->e, e);
    /* a stale result must not pass the check */
    memset(s->r, 0xA5, s->limbs * sizeof *s->r);
}

static void mns_result(void *arg, mb_op op, mpz_t out)
{
    mns_state *s = arg;
    (void)op;
    mns_field_get_mpz(s->f, out, s->r);
}

static void mns_destroy(void *arg)
{
    mns_state *s = arg;
    mns_field_free(s->f);
    free(s->a);
    mpz_clear(s->e);
    free(s);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int mb_mns_new(mb_impl *out, const mpz_t p, const char *spec, double *setup_s, char *why,
               size_t why_len)
{
    mns_field *f = NULL;
    double t0 = now_s();
    mns_status st = mns_field_new(&f, p, spec);
    *setup_s = now_s() - t0;
    if (st != MNS_OK) {
        const char *reason = mns_last_error();
        snprintf(why, why_len, "%s%s%s", mns_strerror(st), reason[0] ? ": " : "", reason);
        return st;
    }
    mns_state *s = calloc(1, sizeof *s);
    size_t limbs = mns_field_limbs(f);
    uint64_t *buf = calloc(3 * limbs, sizeof *buf);
    if (!s || !buf) {
        free(s);
        free(buf);
        mns_field_free(f);
        snprintf(why, why_len, "out of memory");
        return MNS_ENOMEM;
    }
    s->f = f;
    s->limbs = limbs;
    s->a = buf;
    s->b = buf + limbs;
    s->r = buf + 2 * limbs;
    mpz_init2(s->e, mpz_sizeinbase(p, 2) + 64);

    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", spec);
    snprintf(out->describe, sizeof out->describe, "%s", mns_field_describe(f));
    out->kind = MB_KIND_MNS;
    out->state = s;
    out->call[MB_MODMUL] = mns_mul_call;
    out->call[MB_MODSQR] = mns_sqr_call;
    out->call[MB_MODEXP] = mns_exp_call;
    out->load = mns_load;
    out->result = mns_result;
    out->destroy = mns_destroy;
    return MNS_OK;
}
