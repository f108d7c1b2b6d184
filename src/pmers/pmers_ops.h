/* The operation tables of the pmers backend: each kernel file defines one
 * table per element size over its own mul, sqr, add and sub, and the
 * entries common to every kernel (pmers.c) complete it, so a field's
 * mns_field_mul is one indirect call straight into the kernel. */
#ifndef MNS_PMERS_OPS_H
#define MNS_PMERS_OPS_H

#include "core/backend.h"
#include "pmers/pmers.h"

void mns_pmers_reduce(const void *ctx, uint64_t *r, const uint64_t *a);
void mns_pmers_one(const void *ctx, uint64_t *r);
mns_status mns_pmers_set_mpz(const void *ctx, uint64_t *r, const mpz_t a);
void mns_pmers_get_mpz(const void *ctx, mpz_t r, const uint64_t *a);
void mns_pmers_set_words(const void *ctx, uint64_t *r, const uint64_t *a);
void mns_pmers_get_words(const void *ctx, uint64_t *r, const uint64_t *a);
void mns_pmers_destroy(void *ctx);

#define MNS_PMERS_OPS(MUL, SQR, ADD, SUB)                                                    \
    {                                                                                        \
        .mul = MUL, .sqr = SQR, .add = ADD, .sub = SUB, .reduce = mns_pmers_reduce,          \
        .one = mns_pmers_one, .set_mpz = mns_pmers_set_mpz, .get_mpz = mns_pmers_get_mpz,    \
        .set_words = mns_pmers_set_words, .get_words = mns_pmers_get_words,                  \
        .destroy = mns_pmers_destroy,                                                        \
    }

/* indexed by n; the entries below 2 are empty */
extern const mns_field_ops mns_pmers_ops_generic[MNS_PMERS_MAX_WORDS + 1];
/* n = 4 only (index 4), the mulx/adx kernels of pmers_mulx.c; NULL where
 * the build has none (not x86-64) */
extern const mns_field_ops *const mns_pmers_ops_mulx4;

#endif
