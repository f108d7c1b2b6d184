/* 64-bit words and 52-bit digits, both ways, constant time (every index
 * depends on the sizes only): the secret-value entry and exit of the
 * radix-2^52 representations (mont-ifma, src/mont52/; the batch lanes,
 * src/mont52_mb/). */
#ifndef MNS_MONT52_DIGITS_H
#define MNS_MONT52_DIGITS_H

#include <stddef.h>
#include <stdint.h>

/* d[0 .. total) <- the m digits of the `words`-word integer w, then zeros */
static inline void mns_digits52_of_words(uint64_t *d, size_t m, size_t total, const uint64_t *w,
                                         size_t words)
{
    const uint64_t mask = (((uint64_t)1) << 52) - 1;
    for (size_t j = 0; j < total; j++) {
        const size_t bit = 52 * j, k = bit / 64, s = bit % 64;
        uint64_t v = 0;
        if (j < m && k < words) {
            v = w[k] >> s;
            if (s > 12 && k + 1 < words)
                v |= w[k + 1] << (64 - s);
        }
        d[j] = v & mask;
    }
}

/* w <- the `words` words of the value of the m normalized digits d, whose
 * value is < 2^(64 words) */
static inline void mns_words_of_digits52(uint64_t *w, size_t words, const uint64_t *d, size_t m)
{
    for (size_t k = 0; k < words; k++) {
        const size_t bit = 64 * k, j = bit / 52, s = bit % 52;
        uint64_t v = 0;
        /* digits j, j + 1 and j + 2 may overlap word k; digit j + t starts
         * at bit 52 t - s of the word */
        for (size_t t = 0; t < 3; t++) {
            const size_t jj = j + t, pos = 52 * t;
            if (jj >= m || pos >= 64 + s)
                continue;
            v |= pos >= s ? d[jj] << (pos - s) : d[jj] >> (s - pos);
        }
        w[k] = v;
    }
}

#endif
