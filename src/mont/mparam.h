/* The thresholds of the mont backend, in words of p, in one place (GMP's
 * gmp-mparam.h): where each kernel becomes the default (the kernel table of
 * mont.c) and where the products switch algorithm. Each may be overridden
 * at build time (-D) to measure another value. */
#ifndef MNS_MONT_MPARAM_H
#define MNS_MONT_MPARAM_H

/* The adx kernel is the default from this many words, the fixed-size
 * mulx kernels below it. Why from 16 words and not above MNS_MONT_MULX_MAX: the fixed 16-word
 * pair is 30.7 KB of straight-line code (mulx 16.5 KB, sqrx 14.2 KB), about
 * the 32 KB of the instruction cache. Each alone runs from the cache, so
 * chains of one kind are fast (Zen 5, EPYC family 26, 32 KB L1i; TSC
 * ticks, one process: squaring 355-362, product 416-425, against
 * the adx kernel's 381-393 and 443-455); but
 * an exponentiation alternates them, and there four squarings and a product
 * took 560-574k ticks per 256 windows where the same calls in chains of one
 * kind predict 479k, and the 1024-bit exponentiation 587-602k ticks against
 * the adx kernel's 528-538k (OpenSSL 3.0's 522-537k in the same runs). At
 * 15 words (26.5 KB) the alternation costs nothing measurable (395k against
 * 395k predicted) and the fixed pair stays 1.22x faster in the
 * exponentiation. The Zen 3 (family 25) also has 32 KB of L1i, and
 * there too the 1024-bit exponentiation took 1.03-1.13x its squarings and
 * products called in chains; the switch was not measured on it. */
#ifndef MNS_MONT_ADX_MIN_WORDS
#define MNS_MONT_ADX_MIN_WORDS 16
#endif

/* From this many words the adx kernel adds eight rows at a time, in its
 * products (mont_adx_mul.c) and its REDC (mont_adx_redc8.c, which needs at
 * least 9 words: a head of eight columns and one column more). */
#ifndef MNS_MONT_ADX8_MIN_WORDS
#define MNS_MONT_ADX8_MIN_WORDS 16
#endif

#ifndef MNS_MONT_KARA_THRESHOLD
#define MNS_MONT_KARA_THRESHOLD 32
#endif

/* Over the mulx rows the product's Karatsuba pays from 40 words (Zen 3, TSC
 * ticks: rows 1490 / 2158 / 3102 against one level 1624 / 2056 / 2825 at
 * 32 / 40 / 48 words); the squares keep MNS_MONT_KARA_SQR_THRESHOLD (rows
 * 2957 against 2746 at 64 words, level at 40-56). Above the GMP threshold,
 * so mns_mont_kara_itch covers it. */
#ifndef MNS_MONT_KARA_ADX_THRESHOLD
#define MNS_MONT_KARA_ADX_THRESHOLD 40
#endif

/* GMP's mpn_sec_sqr is a true squaring (0.55-0.6 of mpn_sec_mul from 24
 * words up, measured here), so one Karatsuba level only pays from about 64
 * words: sec_sqr(32) = 1098 ticks against 3 x sec_sqr(16) = 1146 plus the
 * additions. */
#ifndef MNS_MONT_KARA_SQR_THRESHOLD
#define MNS_MONT_KARA_SQR_THRESHOLD 64
#endif

#endif
