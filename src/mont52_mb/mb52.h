/* Montgomery arithmetic in radix 2^52 on eight independent operands at once
 * (the lane-sliced kernels of the batch calls, mns_field_mul_n & co.).
 *
 * Why: a server, a Paillier or DH batch makes many independent operations on
 * one modulus. One operation per 64-bit lane of a 512-bit vector (digit j of
 * eight numbers in one vector, Intel crypto_mb's layout) keeps every lane of
 * every vpmadd52 busy without the shifts and scalar q chain of the
 * one-operand kernel (mont52/amm52.h): the eight q digits of a step come
 * from one vector product.
 *
 * Representation. p odd, m = ceil((bits(p) + 2) / 52) digits (the same m as
 * mont-ifma, so its elements are lane elements digit for digit),
 * R = 2^(52 m) >= 4p. A lane block holds eight elements x_0..x_7 as m
 * vectors: word 8 j + l is digit j of x_l. Each x_l is the Montgomery form
 * X = x R mod p, or that plus p (0 <= X < 2p, "tight"), normalized digits
 * < 2^52.
 *
 * The product is the almost-Montgomery one of amm52.h in every lane:
 * r = (a b + Q p) / R, Q = -a b p^-1 mod R chosen digit by digit; for tight
 * a, b the result is tight. Q is a function of the value a b only (each q_i
 * is k0 times the exact digit i of a b + Q_{<i} p), so every exact way of
 * computing it -- interleaved, square first and reduce after, IFMA or
 * portable -- gives the same normalized digits, and those of mont-ifma's
 * single product.
 *
 * Constant time: loops, loads and stores depend on m only; the lanes'
 * values never choose a branch or an address. */
#ifndef MNS_MONT52_MB_MB52_H
#define MNS_MONT52_MB_MB52_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#include "mns.h"

#define MNS_MB52_LANES 8
/* 80 digits: 4096-bit moduli with room (80 * 52 - 2 = 4158 bits) */
#define MNS_MB52_MAX_DIGITS 80
#define MNS_MB52_MAX_BITS (52 * MNS_MB52_MAX_DIGITS - 2)
#define MNS_MB52_MASK ((((uint64_t)1) << 52) - 1)

typedef struct mns_mb52_ctx mns_mb52_ctx;

/* r <- AMM(a, b) lane by lane, tight for tight a, b; r may alias a or b. */
typedef void (*mns_mb52_mul_fn)(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a,
                                const uint64_t *b);
/* r <- AMM(a, a), the same words as mul(c, r, a, a); r may alias a. */
typedef void (*mns_mb52_sqr_fn)(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a);

typedef enum { MNS_MB52_GENERIC = 0, MNS_MB52_IFMA = 1 } mns_mb52_kernel;

struct mns_mb52_ctx {
    size_t m;          /* digits */
    size_t bits;       /* of p */
    size_t words;      /* 64-bit words of p */
    uint64_t k0;       /* -p^-1 mod 2^52 */
    uint64_t *pv;      /* lane block of p (p in every lane), 64-byte aligned */
    uint64_t *k0v;     /* one vector of k0 */
    uint64_t *r2v;     /* lane block of R^2 mod p (to_mont) */
    uint64_t *onev;    /* lane block of R mod p (the Montgomery 1) */
    uint64_t *unitv;   /* lane block of the integer 1 (from_mont) */
    uint64_t *p;       /* m digits of p */
    mns_mb52_mul_fn mul;
    mns_mb52_sqr_fn sqr;
    mns_mb52_kernel kernel;
    const char *kernel_name;
};

/* A context for p (odd, 3 <= p, bits(p) <= MNS_MB52_MAX_BITS) with the given
 * kernel; MNS_ENOTSUP for a p out of range or the IFMA kernel on a CPU
 * without it (mns_cpu_has_ifma). */
mns_status mns_mb52_new(mns_mb52_ctx **c, const mpz_t p, mns_mb52_kernel kernel);
void mns_mb52_free(mns_mb52_ctx *c);

/* uint64_t words of one lane block (8 m). */
size_t mns_mb52_block_words(const mns_mb52_ctx *c);

/* Lane l of block x <- the m digits d (or 0 for d NULL: a dummy lane). */
void mns_mb52_lane_put(const mns_mb52_ctx *c, uint64_t *x, unsigned l, const uint64_t *d);
/* d <- the m digits of lane l of block x. */
void mns_mb52_lane_get(const mns_mb52_ctx *c, uint64_t *d, const uint64_t *x, unsigned l);

/* Digits and 64-bit words (c->words of them), both ways, constant time;
 * words_of_digits needs a value < 2^(64 words). */
void mns_mb52_digits_of_words(const mns_mb52_ctx *c, uint64_t *d, const uint64_t *w);
void mns_mb52_words_of_digits(const mns_mb52_ctx *c, uint64_t *w, const uint64_t *d);

/* Montgomery form in and out, lane by lane, constant time: to_mont takes
 * values < p (digits), from_mont gives canonical values in [0, p). */
void mns_mb52_to_mont(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x);
void mns_mb52_from_mont(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x);

/* The kernels (mb52_generic.c, mb52_ifma.c): the same words. The IFMA ones
 * only where mns_cpu_has_ifma(). */
void mns_mb52_mul_generic(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a,
                          const uint64_t *b);
void mns_mb52_sqr_generic(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a);
void mns_mb52_mul_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_mb52_sqr_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *a);
/* r <- per lane l, entry idx[l] (< count) of a table of count lane blocks,
 * reading every entry (constant time in idx); the same words both ways. */
void mns_mb52_select_generic(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *table,
                             size_t count, const uint64_t *idx);
void mns_mb52_select_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *table, size_t count,
                          const uint64_t *idx);
/* Eight elements in and out of a lane block at once (the IFMA twins of
 * eight lane_put / lane_get): x <- the m digits of a + l * stride in lane
 * l; the m digits of lane l of x -> r + l * stride (words m .. stride - 1
 * untouched). An 8 x 8 transpose per 8 digits instead of 8 m scalar moves. */
void mns_mb52_gather_ifma(const mns_mb52_ctx *c, uint64_t *x, const uint64_t *a, size_t stride);
void mns_mb52_scatter_ifma(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x, size_t stride);

/* --- mb52_exp.c: eight exponentiations --- */

/* The window of a batch whose longest exponent has `bits` bits. */
unsigned mns_mb52_window(const mns_mb52_ctx *c, size_t bits);
/* Scratch words of mns_mb52_powm for a `bits`-bit longest exponent. */
size_t mns_mb52_powm_itch(const mns_mb52_ctx *c, size_t bits);
/* r <- x_l^(e_l) in every lane (Montgomery forms in, tight Montgomery forms
 * out); e: 8 exponents of ew words each (least significant first, zero
 * words above a shorter one), bits = the public bit length that the time
 * depends on (every e_l < 2^bits). Time and addresses depend on m and bits
 * only. scratch: mns_mb52_powm_itch words; r may alias x. */
void mns_mb52_powm(const mns_mb52_ctx *c, uint64_t *r, const uint64_t *x, const uint64_t *e,
                   size_t ew, size_t bits, uint64_t *scratch);

#endif
