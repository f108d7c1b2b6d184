/* Constant-time helpers on 64-bit words.
 *
 * Masks are all-ones or all-zeros words; every helper is branch-free and has
 * no data-dependent memory index. The `value barrier` keeps gcc from turning
 * mask arithmetic back into a branch (the trick of libsecp256k1 and BoringSSL). */
#ifndef MNS_CORE_CT_H
#define MNS_CORE_CT_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t mns_ct_barrier(uint64_t x)
{
    __asm__("" : "+r"(x));
    return x;
}

/* all-ones if x != 0 */
static inline uint64_t mns_ct_mask_nonzero(uint64_t x)
{
    x = mns_ct_barrier(x);
    return (uint64_t)0 - ((x | ((uint64_t)0 - x)) >> 63);
}

/* all-ones if x == y */
static inline uint64_t mns_ct_mask_eq(uint64_t x, uint64_t y)
{
    return ~mns_ct_mask_nonzero(x ^ y);
}

/* all-ones if bit b (0 or 1) is set */
static inline uint64_t mns_ct_mask_bit(uint64_t b)
{
    return (uint64_t)0 - (mns_ct_barrier(b) & 1);
}

/* r[i] <- mask ? a[i] : r[i] */
static inline void mns_ct_cmov(uint64_t *r, const uint64_t *a, size_t n, uint64_t mask)
{
    for (size_t i = 0; i < n; i++)
        r[i] ^= mask & (r[i] ^ a[i]);
}

/* r <- table[idx], table holding `count` entries of n words, every entry read
 * (the Select of the RSA-CRT slides, with masks instead of a product). */
static inline void mns_ct_select(uint64_t *r, const uint64_t *table, size_t count, size_t n,
                                 uint64_t idx)
{
    for (size_t i = 0; i < n; i++)
        r[i] = 0;
    for (size_t k = 0; k < count; k++) {
        uint64_t m = mns_ct_mask_eq((uint64_t)k, idx);
        const uint64_t *e = table + k * n;
        for (size_t i = 0; i < n; i++)
            r[i] |= e[i] & m;
    }
}

#endif
