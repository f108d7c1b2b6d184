/* The portable steps of the pmers kernels (pmers.h), for an n that each
 * caller makes a compile-time constant so the loops unroll: schoolbook
 * product, a squaring that computes each cross product once, the fold by
 * m = 2^(64 n) mod p, and the folded addition and subtraction. No branch
 * and no memory index depend on the operands. */
#ifndef MNS_PMERS_BODY_H
#define MNS_PMERS_BODY_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 pm_u128;

/* n is a constant in every caller: full unrolling turns the carry chains
 * into straight adc/sbb sequences */
#define PM_UNROLL _Pragma("GCC unroll 18")

/* t (2n words) <- a b, one row of b per word of a */
static inline void pm_mul_words(uint64_t *t, const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t carry = 0;
    PM_UNROLL
    for (size_t j = 0; j < n; j++) {
        pm_u128 s = (pm_u128)a[0] * b[j] + carry;
        t[j] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    t[n] = carry;
    PM_UNROLL
    for (size_t i = 1; i < n; i++) {
        carry = 0;
        PM_UNROLL
        for (size_t j = 0; j < n; j++) {
            pm_u128 s = (pm_u128)a[i] * b[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        t[i + n] = carry;
    }
}

/* t (2n words) <- a^2: the cross products once, doubled, then the squares */
static inline void pm_sqr_words(uint64_t *t, const uint64_t *a, size_t n)
{
    PM_UNROLL
    for (size_t i = 0; i < 2 * n; i++)
        t[i] = 0;
    PM_UNROLL
    for (size_t i = 0; i + 1 < n; i++) {
        uint64_t carry = 0;
        PM_UNROLL
        for (size_t j = i + 1; j < n; j++) {
            pm_u128 s = (pm_u128)a[i] * a[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        t[i + n] = carry;
    }
    uint64_t top = 0;
    PM_UNROLL
    for (size_t i = 0; i < 2 * n; i++) { /* t <- 2 t */
        const uint64_t w = t[i];
        t[i] = (w << 1) | top;
        top = w >> 63;
    }
    uint64_t carry = 0;
    PM_UNROLL
    for (size_t i = 0; i < n; i++) {
        pm_u128 sq = (pm_u128)a[i] * a[i];
        pm_u128 s = (pm_u128)t[2 * i] + (uint64_t)sq + carry;
        t[2 * i] = (uint64_t)s;
        s = (pm_u128)t[2 * i + 1] + (uint64_t)(sq >> 64) + (uint64_t)(s >> 64);
        t[2 * i + 1] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
}

/* r (n words) <- t (2n words) mod p, in [0, 2^(64 n)): L + H m, then the top
 * word t_n <= m as t_n m (below 2^126), then a last carry as m */
static inline void pm_fold(uint64_t *r, const uint64_t *t, uint64_t m, size_t n)
{
    uint64_t carry = 0;
    PM_UNROLL
    for (size_t i = 0; i < n; i++) {
        pm_u128 s = (pm_u128)t[n + i] * m + t[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    pm_u128 cm = (pm_u128)carry * m;
    pm_u128 s = (pm_u128)r[0] + (uint64_t)cm;
    r[0] = (uint64_t)s;
    s = (pm_u128)r[1] + (uint64_t)(cm >> 64) + (uint64_t)(s >> 64);
    r[1] = (uint64_t)s;
    carry = (uint64_t)(s >> 64);
    PM_UNROLL
    for (size_t i = 2; i < n; i++) {
        s = (pm_u128)r[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    /* a carry out leaves a value below t_n m < 2^126 in r[0..1]: adding m
     * carries at most into r[1] */
    s = (pm_u128)r[0] + (m & ((uint64_t)0 - carry));
    r[0] = (uint64_t)s;
    r[1] += (uint64_t)(s >> 64);
}

/* one word of a carry (borrow) chain: x86-64's adc / sbb where the
 * compiler has them as intrinsics, which it chains without the flag
 * round trips of the 128-bit idiom; that idiom elsewhere */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
static inline unsigned char pm_adc(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    unsigned long long s;
    c = _addcarry_u64(c, a, b, &s);
    *r = s;
    return c;
}
static inline unsigned char pm_sbb(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    unsigned long long d;
    c = _subborrow_u64(c, a, b, &d);
    *r = d;
    return c;
}
#else
static inline unsigned char pm_adc(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    pm_u128 s = (pm_u128)a + b + c;
    *r = (uint64_t)s;
    return (unsigned char)(s >> 64);
}
static inline unsigned char pm_sbb(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    pm_u128 d = (pm_u128)a - b - c;
    *r = (uint64_t)d;
    return (unsigned char)((d >> 64) & 1);
}
#endif

/* r <- a + b mod p: a carry out of the n words is worth m, and a second one
 * leaves r[0] < m, so the last addition of m stays in r[0] */
static inline void pm_add_words(uint64_t *r, const uint64_t *a, const uint64_t *b, uint64_t m,
                                size_t n)
{
    unsigned char c = 0;
    PM_UNROLL
    for (size_t i = 0; i < n; i++)
        c = pm_adc(c, a[i], b[i], &r[i]);
    c = pm_adc(0, r[0], m & ((uint64_t)0 - c), &r[0]);
    PM_UNROLL
    for (size_t i = 1; i < n; i++)
        c = pm_adc(c, r[i], 0, &r[i]);
    r[0] += m & ((uint64_t)0 - c);
}

/* r <- a - b mod p: a borrow out is worth -m; a second one leaves
 * r[0] >= 2^64 - m, so the last subtraction of m stays in r[0] */
static inline void pm_sub_words(uint64_t *r, const uint64_t *a, const uint64_t *b, uint64_t m,
                                size_t n)
{
    unsigned char c = 0;
    PM_UNROLL
    for (size_t i = 0; i < n; i++)
        c = pm_sbb(c, a[i], b[i], &r[i]);
    c = pm_sbb(0, r[0], m & ((uint64_t)0 - c), &r[0]);
    PM_UNROLL
    for (size_t i = 1; i < n; i++)
        c = pm_sbb(c, r[i], 0, &r[i]);
    r[0] -= m & ((uint64_t)0 - c);
}

#endif
