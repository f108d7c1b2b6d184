/* Entry points of the front door (src/field.c) for the library's own modules
 * only: not MNS_API, so the shared library does not export them, and not in
 * include/ (the public API stays as DESIGN.md states it). */
#ifndef MNS_CORE_FIELD_INTERNAL_H
#define MNS_CORE_FIELD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "mns.h"

/* 1 if the field's backend has a constant-time set_words (backend.h). */
int mns_field_has_set_words(const mns_field *f);

/* r <- the tight element of the n-word integer a (least significant word
 * first), n = mpz_size(p), value < p; constant time in a and p. MNS_ENOTSUP
 * (r untouched) if the backend has no set_words, MNS_EINVAL if n is not the
 * word count of p. */
mns_status mns_field_set_words(const mns_field *f, uint64_t *r, const uint64_t *a, size_t n);

#endif
