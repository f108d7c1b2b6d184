/* -p^-1 mod 2^64 for odd p (the Montgomery constant of a word-level REDC).
 * Shared by the word Montgomery backend (mont.c), the radix-2^52 one
 * (mont52.c: its k0 is this value mod 2^52) and PMNS get_words. */
#ifndef MNS_CORE_INVERSE_H
#define MNS_CORE_INVERSE_H

#include <stdint.h>

/* Newton's iteration x <- x (2 - p x): p0 is its own inverse mod 8 (odd
 * squares are 1 mod 8), and each step doubles the correct low bits:
 * 3, 6, 12, 24, 48, 96 >= 64 after five. Constant time. */
static inline uint64_t mns_neg_inverse_word(uint64_t p0)
{
    uint64_t x = p0;
    for (int i = 0; i < 5; i++)
        x *= 2 - p0 * x;
    return (uint64_t)0 - x;
}

#endif
