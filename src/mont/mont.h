/* Classical word-by-word Montgomery arithmetic (the `mont` backend).
 *
 * Representation: an element x of Z/pZ is stored as the n-word integer
 * x R mod p, R = 2^(64 n), n = ceil(bits(p) / 64).
 * Invariant (tight): 0 <= stored value < p. Every operation, add and sub
 * included, returns a tight value, so loose = tight and delta is unbounded
 * (mns_field_delta answers INT_MAX).
 * Constant time: the only data-dependent decisions are the final corrections,
 * done with masks over every word.
 */
#ifndef MNS_MONT_MONT_H
#define MNS_MONT_MONT_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#include "mont/mparam.h"

typedef struct mns_mont_ctx mns_mont_ctx;

/* The kernels: r <- a b R^-1 mod p and r <- a^2 R^-1 mod p, for a, b < p;
 * r may alias a or b. Same signature for every kernel; chosen at context
 * creation. */
typedef void (*mns_mont_mul_fn)(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,
                                const uint64_t *b);
typedef void (*mns_mont_sqr_fn)(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a);
/* k >= 1 squarings in one call: r <- a^(2^k) R^(1 - 2^k) mod p, a < p; r may
 * alias a; the time depends on k (public) and p's size only. */
typedef void (*mns_mont_sqrk_fn)(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,
                                 unsigned k);

struct mns_mont_ctx {
    size_t n;            /* words per element */
    uint64_t pinv;       /* -p^-1 mod 2^64 */
    uint64_t *p;         /* n words */
    uint64_t *p_pad;     /* p with zero words up to n_pad: the adx REDC runs
                          * max(8, n) columns of it */
    size_t n_pad;        /* n rounded up to a multiple of 4, at least 8 */
    uint64_t pinv4[4];   /* -p^-1 mod 2^256: the adx REDC's block factor; its low
                          * half, the 2-word mulx squaring's REDC factor */
    uint64_t *one;       /* R mod p */
    uint64_t *r2;        /* R^2 mod p */
    mns_mont_mul_fn mul;
    mns_mont_sqr_fn sqr;
    mns_mont_sqrk_fn sqrk; /* NULL: k calls of sqr */
    const char *kernel;
    size_t mpn_scratch;  /* words of scratch the mpn kernels need */
};

/* Portable C kernels (unsigned __int128). */
void mns_mont_mul_generic(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a,
                          const uint64_t *b);
void mns_mont_sqr_generic(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a);

/* Kernels for a fixed word count n <= MNS_MONT_FIXED_MAX, fully unrolled
 * portable C (mont_fixed.c): the kernel's pair for n in *mul and *sqr, or 0
 * if n has none. */
#define MNS_MONT_FIXED_MAX 9
int mns_mont_fixed_kernels(size_t n, mns_mont_mul_fn *mul, mns_mont_sqr_fn *sqr);

/* Kernels for a fixed word count MNS_MONT_MULX_MIN <= n <= MNS_MONT_MULX_MAX
 * in mulx/adcx/adox assembly (mont_mulx.c); only on x86-64 CPUs with BMI2
 * and ADX: the pair for n in *mul and *sqr, or 0 if n has none (or the
 * build is not for x86-64). */
#define MNS_MONT_MULX_MIN 2
#define MNS_MONT_MULX_MAX 16
int mns_mont_mulx_kernels(size_t n, mns_mont_mul_fn *mul, mns_mont_sqr_fn *sqr);
/* The mulx kernel's k squarings in one call for n words, or NULL where it has
 * none (from MNS_MONT_MULX_MIN to MNS_MONT_SQRK_MAX words). */
#define MNS_MONT_SQRK_MAX 12
mns_mont_sqrk_fn mns_mont_mulx_sqrk(size_t n);

/* Kernels on GMP's constant-time mpn primitives (its mulx/adx assembly). */
void mns_mont_mul_mpn(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_mont_sqr_mpn(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a);
size_t mns_mont_mpn_scratch(size_t n);

/* Kernels with mulx/adcx/adox products and REDC four rows at a time
 * (mont_adx_mul.c, mont_adx.c; Karatsuba above the thresholds below); only
 * on CPUs with BMI2 and ADX, the default from MNS_MONT_ADX_MIN_WORDS words
 * (the fixed-size mulx kernels below it). Scratch mns_mont_mpn_scratch(n)
 * words as well. */
/* How the adx REDC (mont_adx.c) and products (mns_mont_mul_rows_adx) split
 * n rows: the n mod 4 first rows one at a time, then `fours` blocks of four
 * rows, then `eights` blocks of eight. Below MNS_MONT_ADX8_MIN_WORDS all
 * blocks take four; from it, one block of four when n / 4 is odd and the
 * rest eight. A function of n only (public). */
typedef struct mns_mont_adx_blocks {
    size_t head, fours, eights;
} mns_mont_adx_blocks;
static inline mns_mont_adx_blocks mns_mont_adx_row_blocks(size_t n)
{
    mns_mont_adx_blocks b = {n % 4, n / 4, 0};
    if (n >= MNS_MONT_ADX8_MIN_WORDS) {
        b.fours = (n / 4) % 2;
        b.eights = n / 8;
    }
    return b;
}
void mns_mont_mul_adx(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_mont_sqr_adx(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a);

/* Constant-time Karatsuba above MNS_MONT_KARA_THRESHOLD words for products
 * (MNS_MONT_KARA_ADX_THRESHOLD over the mulx rows) and
 * MNS_MONT_KARA_SQR_THRESHOLD for squares (schoolbook below: GMP's
 * mpn_sec_mul / mpn_sec_sqr or the mulx rows, by base); r has 2n words, scratch
 * mns_mont_kara_itch(n) words. */
size_t mns_mont_kara_itch(size_t n);
/* base: the schoolbook below the thresholds, GMP's or the mulx rows. */
typedef enum { MNS_MONT_BASE_GMP, MNS_MONT_BASE_ADX } mns_mont_base;
void mns_mont_kara_mul(mp_limb_t *r, const mp_limb_t *a, const mp_limb_t *b, mp_size_t n,
                       mp_limb_t *scratch, mns_mont_base base);
void mns_mont_kara_sqr(mp_limb_t *r, const mp_limb_t *a, mp_size_t n, mp_limb_t *scratch,
                       mns_mont_base base);

/* Schoolbook t[0..2n) <- a b and t[0..2n) <- a^2 four rows at a time with
 * mulx/adcx/adox (mont_adx_mul.c; eight rows at a time from
 * MNS_MONT_ADX8_MIN_WORDS, for the square when n is a multiple of 8), n >= 1;
 * only on CPUs with BMI2 and ADX. */
void mns_mont_mul_rows_adx(uint64_t *t, const uint64_t *a, const uint64_t *b, size_t n);
void mns_mont_sqr_rows_adx(uint64_t *t, const uint64_t *a, size_t n);

/* t has 2n words (a double-length product, t < p R); r <- t R^-1 mod p, and t
 * is clobbered (the portable squaring's reduction). */
void mns_mont_redc_generic(const mns_mont_ctx *c, uint64_t *r, uint64_t *t);

/* set_words of backend.h: r <- a R mod p for the n-word a < p (mont_words.c). */
void mns_mont_set_words(const void *ctx, uint64_t *r, const uint64_t *a);
/* get_words of backend.h: r <- a R^-1 mod p, canonical (mont_words.c). */
void mns_mont_get_words(const void *ctx, uint64_t *r, const uint64_t *a);

/* r <- a - p if a >= p (a < 2p, held as n words plus a carry word hi),
 * else a; masked. */
void mns_mont_final_sub(const mns_mont_ctx *c, uint64_t *r, const uint64_t *a, uint64_t hi);

#endif
