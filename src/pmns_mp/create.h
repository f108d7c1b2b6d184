/* What the files of the multi-precision PMNS context share beyond ctx.h:
 * conversions (convert.c), bounds (bounds.c) and creation (create.c), for
 * the field adapter (backend.c). */
#ifndef MNS_PMNS_MP_CREATE_H
#define MNS_PMNS_MP_CREATE_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#include "mns_pmns_mp.h"
#include "pmns_mp/ctx.h"
#include "pmns_mp/mparam.h"

/* digits of x: low s-1 digits in [0, 2^k), the top digit takes the rest
 * (floor division, so it carries the sign); 1 if they fit */
int mns_pmns_mp_split_digits(uint64_t *d, size_t stride, const mpz_t x, int s, int k);
/* v <- coefficient i of a */
void mns_pmns_mp_coef_value(mpz_t v, const mns_pmns_mp_ctx *c, const uint64_t *a, int i);
/* r <- tight digits of a polynomial with A(gamma) = x (not Montgomery) */
mns_status mns_pmns_mp_represent(const mns_pmns_mp_ctx *c, uint64_t *r, const mpz_t x);

/* The bounds (bounds.c): 1 where they hold */
int mns_pmns_mp_closure_ok(const mns_pmns_params *P, const mpz_t La, const mpz_t Lb);
int mns_pmns_mp_closure_one_ok(const mns_pmns_mp_ctx *c, const mpz_t La);
double mns_pmns_mp_log2_mpz(const mpz_t x);
int mns_pmns_mp_tight_bounds(mns_pmns_mp_ctx *c);
mns_status mns_pmns_mp_make_z(mns_pmns_mp_ctx *c, mpz_t zmax);
int mns_pmns_mp_plan_ok(mns_pmns_mp_ctx *c, double lg_d, double lg_md, int ifma, int *mo_a,
                        int *mo_m);

/* A context for p (create.c). tadds_min: the smallest (B3) t to ask the
 * generator for (0: the kernel's own). carry: the IFMA kernel's unsplit
 * sets lambda-carried (MNS_PMNS_GEN_LAMBDA_CARRIED). */
mns_status mns_pmns_mp_new_impl(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word, int s,
                                int n, int delta, int base, mns_pmns_mp_kernel kernel,
                                int tadds_min, int lanes, int carry);

#endif
