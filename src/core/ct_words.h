/* Constant-time comparison of multi-word integers (beside ct.h's word
 * helpers), and the declared point where a secret-derived bit becomes
 * public (src/core/declassify.c). */
#ifndef MNS_CORE_CT_WORDS_H
#define MNS_CORE_CT_WORDS_H

#include <stddef.h>
#include <stdint.h>

/* all-ones if the n-word integer a is below b (least significant word
 * first): the borrow out of a - b, carried through 128-bit differences. */
static inline uint64_t mns_ct_words_lt(const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        borrow = (uint64_t)(d >> 127);
    }
    return (uint64_t)0 - borrow;
}

/* Marks a secret-derived value as public on purpose: the status of a call
 * whose outcome is part of its contract (src/core/declassify.c). */
void mns_ct_declassify(const void *p, size_t len);

#endif
