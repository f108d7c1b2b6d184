/* Montgomery arithmetic in radix 2^52 (the `mont-ifma` backend).
 *
 * Why: the PMNS and RNS kernels of this library are long straight-line code
 * (5-12 KB per product at the RSA-2048 channel size). On a host whose other
 * hyperthread fills the shared uop cache they run from the legacy decoders,
 * about 1.5x slower, while OpenSSL's 20-step AMM loop does not notice. This
 * is the same almost-Montgomery multiplication (Gueron-Krasnov) but with
 * 8-lane vectors where OpenSSL 4.0 uses 4-lane ones, and a loop body of a
 * few dozen instructions per product.
 *
 * Representation. p odd, m = ceil((bits(p) + 2) / 52) digits, R = 2^(52 m),
 * so that R >= 4p. An element x is stored as a value X = x R mod p, or that
 * plus p: 0 <= X < 2p ("tight"), written as m digits of 52 bits, one per
 * 64-bit word, least significant first, then zero words up to 8 nv words
 * (nv = ceil(m / 8) vectors). Every digit < 2^52 and the padding words are 0.
 *
 * The product (AMM): for tight a, b, r = (a b + Q p) / R with
 * Q = -a b p^-1 mod R, chosen digit by digit (q_i = t_i k0 mod 2^52,
 * k0 = -p^-1 mod 2^52). Then r < (4 p^2 + R p) / R <= 2p: tight again,
 * without a final subtraction. Every operation returns tight elements, add
 * and sub included, so loose = tight and delta is unbounded (INT_MAX).
 *
 * Constant time: the kernels' loops, loads and stores depend on (m, nv)
 * only; add / sub / the exits correct with masks. */
#ifndef MNS_MONT_AMM52_H
#define MNS_MONT_AMM52_H

#include <stddef.h>
#include <stdint.h>

/* 10 vectors: 80 digits, primes up to 80 * 52 - 2 = 4158 bits (the prime
 * factors of RSA-8192). */
#define MNS_AMM52_MAX_NV 10
#define MNS_AMM52_MAX_DIGITS (8 * MNS_AMM52_MAX_NV)
#define MNS_AMM52_MASK ((((uint64_t)1) << 52) - 1)

typedef struct mns_amm52_ctx mns_amm52_ctx;

/* r <- AMM(a, b) = a b R^-1 mod p, tight, for tight a, b; r may alias a or
 * b. */
typedef void (*mns_amm52_mul_fn)(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a,
                                 const uint64_t *b);
/* Two independent products in one instruction stream (backend.h's mul_x2);
 * c0 and c1 have the same m. */
typedef void (*mns_amm52_mul_x2_fn)(const mns_amm52_ctx *c0, const mns_amm52_ctx *c1,
                                    uint64_t *r0, const uint64_t *a0, const uint64_t *b0,
                                    uint64_t *r1, const uint64_t *a1, const uint64_t *b1);

struct mns_amm52_ctx {
    size_t m;          /* digits */
    size_t nv;         /* 8-digit vectors; limbs = 8 nv */
    size_t words;      /* 64-bit words of p (mpz_size) */
    uint64_t k0;       /* -p^-1 mod 2^52 */
    uint64_t *p;       /* 8 nv digits, then 8 zero words */
    uint64_t *p2;      /* 2p, 8 nv digits (add / sub) */
    uint64_t *one;     /* R mod p */
    uint64_t *r2;      /* R^2 mod p (set_words) */
    uint64_t *unit;    /* the integer 1 (get_words: AMM(a, 1) = a R^-1) */
    mns_amm52_mul_fn mul;
    mns_amm52_mul_x2_fn mul_x2;
    const char *kernel;
};

/* Portable C kernels (amm52_generic.c): the same digits as the IFMA ones. */
void mns_amm52_mul_generic(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a,
                           const uint64_t *b);
void mns_amm52_mul_x2_generic(const mns_amm52_ctx *c0, const mns_amm52_ctx *c1, uint64_t *r0,
                              const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                              const uint64_t *a1, const uint64_t *b1);

/* AVX-512 IFMA kernels (amm52_ifma.c); only where mns_cpu_has_ifma(). */
void mns_amm52_mul_ifma(const mns_amm52_ctx *c, uint64_t *r, const uint64_t *a,
                        const uint64_t *b);
void mns_amm52_mul_x2_ifma(const mns_amm52_ctx *c0, const mns_amm52_ctx *c1, uint64_t *r0,
                           const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                           const uint64_t *a1, const uint64_t *b1);

#endif
