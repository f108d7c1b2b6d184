/* mns backends under test, driven only through the public mns_field API
 * (include/mns.h) by spec name, exactly as a user would. */
#ifndef MNS_BENCH_BACKENDS_H
#define MNS_BENCH_BACKENDS_H

#include <gmp.h>

#include "impl.h"

/* Names tried when --backends is not given; each is kept if mns_field_new
 * accepts it on the prime at hand. */
extern const char *const mb_known_backends[];

/* mns_field_new(p, spec): MNS_OK fills *out (name = spec, describe =
 * mns_field_describe); otherwise returns the status with the reason in
 * why[why_len], and *out is untouched. *setup_s gets the creation time. */
int mb_mns_new(mb_impl *out, const mpz_t p, const char *spec, double *setup_s, char *why,
               size_t why_len);

/* 1 if the default run (no --backends) measures backend `name` at `bits`. */
int mb_default_window(const char *name, unsigned bits);

#endif
