/* Integers as little-endian arrays of 64-bit words, to and from GMP: the
 * element and constant layouts of every backend (variable time, for set-up
 * and conversions only). */
#ifndef MNS_CORE_WORDS_H
#define MNS_CORE_WORDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <gmp.h>

/* r (n words) <- a, 0 <= a < 2^(64 n); the words above a are zero */
static inline void mns_words_from_mpz(uint64_t *r, size_t n, const mpz_t a)
{
    size_t count = 0;
    memset(r, 0, n * sizeof(uint64_t));
    mpz_export(r, &count, -1, sizeof(uint64_t), 0, 0, a);
}

/* r <- the n words of a */
static inline void mns_words_to_mpz(mpz_t r, const uint64_t *a, size_t n)
{
    mpz_import(r, n, -1, sizeof(uint64_t), 0, 0, a);
}

#endif
