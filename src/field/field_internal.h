/* Entry points of the front door (src/field/field.c) for the library's own modules
 * only: not MNS_API, so the shared library does not export them, and not in
 * include/ (the public API stays as DESIGN.md states it). */
#ifndef MNS_CORE_FIELD_INTERNAL_H
#define MNS_CORE_FIELD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"

/* mns_field_new for the library's own fields that never take a square
 * root (RSA's channels and its prime test): the same field without the
 * Tonelli-Shanks constant of a p = 1 mod 8, which costs one GMP
 * exponentiation by about p (a 4096-bit prime: 15 ms, against 0.04 ms for
 * the rest of a mont-ifma field, AMD Zen 5); mns_field_sqrt on it answers
 * MNS_ENOTSUP. */
mns_status mns_field_new_nosqrt_(mns_field **f, const mpz_t p, const char *spec);

/* 1 if the field's backend has a constant-time set_words (backend.h). */
int mns_field_has_set_words(const mns_field *f);

/* 1 if the field's backend has get_words (backend.h). */
int mns_field_has_get_words(const mns_field *f);

/* The exponentiation with caller-provided scratch (RSA keeps it with the
 * key: no allocation on the signing path). e >= 0. For a backend with the
 * shared exponentiation (every backend today) this allocates nothing; one
 * with its own powm (backend.h) is called as it is. */
size_t mns_field_powm_scratch_words(const mns_field *f, size_t bits);
void mns_field_powm_scratch(const mns_field *f, uint64_t *r, const uint64_t *a, const mpz_t e,
                            uint64_t *scratch);

/* Two exponentiations in one instruction stream (src/exp, mns_exp_powm_x2):
 * r0 <- a0^e0 in f0, r1 <- a1^e1 in f1, e0, e1 >= 0. mns_field_x2 says what
 * a pair of fields gets: 0 = nothing shared (different backends, different
 * element sizes, or a backend powm: mns_field_powm_x2 then runs the two
 * exponentiations one after the other), 1 = the shared driver over two
 * ordinary calls per step, 2 = the backend's mul_x2 / sqr_x2 kernels. The
 * time depends on max(bits(e0), bits(e1)) and the fields' public sizes. */
int mns_field_x2(const mns_field *f0, const mns_field *f1);
/* Scratch words of f's lane when paired with `other` for a `bits`-bit
 * (longer) exponent; also enough for mns_field_powm_scratch on f alone. */
size_t mns_field_powm_x2_lane_words(const mns_field *f, const mns_field *other, size_t bits);
/* One step of the pair: r0 <- a0 b0 in f0 and r1 <- a1 b1 in f1 (the
 * backend's x2 kernel where mns_field_x2 is 2, two calls otherwise); the
 * same contract as mns_field_mul / mns_field_sqr for each. */
void mns_field_mul_x2(const mns_field *f0, uint64_t *r0, const uint64_t *a0, const uint64_t *b0,
                      const mns_field *f1, uint64_t *r1, const uint64_t *a1, const uint64_t *b1);
void mns_field_sqr_x2(const mns_field *f0, uint64_t *r0, const uint64_t *a0, const mns_field *f1,
                      uint64_t *r1, const uint64_t *a1);
void mns_field_powm_x2(const mns_field *f0, uint64_t *r0, const uint64_t *a0, const mpz_t e0,
                       const mns_field *f1, uint64_t *r1, const uint64_t *a1, const mpz_t e1,
                       uint64_t *scratch0, uint64_t *scratch1);

/* The backend's own context (its mns_backend_inst.ctx), for tests that drive
 * a backend's kernels directly on its representation (test_mont_ifma.c). */
const void *mns_field_backend_ctx(const mns_field *f);

/* The lane kernel of the batch calls (src/mont52_mb/mb52.h), NULL where
 * none applies (no IFMA, p above 4158 bits). */
struct mns_mb52_ctx;
const struct mns_mb52_ctx *mns_field_lanes(const mns_field *f);
/* 1 if the backend's elements are lane digits as they are (mont-ifma), so
 * the batch products run on them without leaving the field. */
int mns_field_lanes_native(const mns_field *f);
/* 1 if mns_field_powm_n runs batches of two or more in the lanes. */
int mns_field_powm_n_lanes(const mns_field *f);
/* powm_n on canonical values where mns_field_powm_n_lanes(f): base i is
 * the value of the p-sized words at a + i * stride (< p), result i goes to
 * r + i * stride (canonical); the field's elements are skipped (RSA's
 * channels enter the lanes from their reduced input). scratch:
 * mns_field_powm_n_itch words. Constant time as powm_n. */
void mns_field_powm_n_words(const mns_field *f, uint64_t *r, const uint64_t *a, size_t stride,
                            const mpz_t *e, size_t count, uint64_t *scratch);
/* Test entry: the batch calls of f use lane kernel `kernel` (an
 * mns_mb52_kernel; < 0: none, the loop over single calls) from now on. Call
 * before f is shared; MNS_ENOTSUP if that kernel cannot run here. */
mns_status mns_field_lanes_use_(mns_field *f, int kernel);

/* 1 if the backend instance is mont-ifma (src/mont52/mont52.c). */
struct mns_backend_inst;
int mns_mont52_is(const struct mns_backend_inst *inst);

#endif
