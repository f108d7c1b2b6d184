/* Internal view of a single-precision PMNS arithmetic context (s = 1).
 *
 * Representation (see include/mns_pmns_arith.h for the public statement):
 * an element x of Z/pZ is a polynomial A of degree < n stored as n uint64_t
 * words, A(gamma) = x * phi (mod p) (the Montgomery domain of Algorithm 3,
 * so mul needs no correction factor).
 *   S64 (phi = 2^64): words are int64 two's complement; tight |a_i| < rho.
 *   U52 (phi = 2^52): words are unsigned; tight 0 <= a_i < rho.
 * Loose bounds, kept in the context: mul and sqr accept |a_i| <= kmax
 * (kmax >= (delta+1)(rho-1), derived from the exact closure inequality);
 * reduce accepts any word (|a_i| < 2^63 for S64, any uint64 for U52).
 *
 * The kernels have one signature each and are chosen at context creation:
 * generic C (both word kinds, signed __int128) and AVX-512 IFMA (U52 only).
 */
#ifndef MNS_PMNS_PMNS_H
#define MNS_PMNS_PMNS_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns_pmns.h"
#include "mns_pmns_arith.h"

typedef struct mns_pmns_ctx mns_pmns_ctx;

typedef void (*mns_pmns_mul_fn)(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a,
                                const uint64_t *b);
typedef void (*mns_pmns_sqr_fn)(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a);
/* r <- RedCoeff(A) = A phi^-1 for single-word coefficients of any size
 * (the tolerant first half of reduce and of the conversion). */
typedef void (*mns_pmns_redc_fn)(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a);

struct mns_pmns_ctx {
    mns_pmns_params *owned;  /* freed with the context, or NULL (borrowed) */
    const mns_pmns_params *P;
    int n;
    mns_pmns_word word;
    mns_pmns_eshape eshape;
    int64_t lambda;          /* 0 for X^n - X - 1 */
    unsigned phi_log2;       /* 64 or 52 */
    int delta;               /* additions allowed before a mul (field view) */
    uint64_t rho_m1;         /* rho - 1: the tight bound */
    uint64_t kmax;           /* loose bound accepted by mul/sqr */
    int64_t *m;              /* M, n words */
    uint64_t *mp;            /* M' mod phi, n words */
    uint64_t *zsub;          /* U52: Z(gamma) = 0, rho-1 <= z_i; added by sub */
    uint64_t zmax;
    uint64_t *one;           /* phi mod p, tight */
    uint64_t *phi2;          /* phi^2 mod p, tight (reduce: RedCoeff then * phi2) */
    uint64_t *digits;        /* L tight polynomials: 2^(32 j) phi^2 mod p */
    int ndigits;
    /* IFMA: Toeplitz rows of M and M' (see kernel_ifma.c), 64-byte aligned */
    int nchunks;             /* ceil(n / 8) */
    size_t ext_len;          /* words of an extended (Toeplitz) operand */
    uint64_t *m_ext, *mp_ext;
    uint64_t *m_row0, *mp_row0; /* X^n - X - 1: row 0 of the matrices */
    /* the ext rows of M and M' again as 8 copies shifted by 0..7 words, so
     * that every window load of the constant operands is 64-byte aligned
     * (an unaligned 64-byte load splits across two cache lines) */
    size_t ext8_stride;
    uint64_t *m_ext8, *mp_ext8;
    int32_t *off_u, *off_a;  /* per i: window offset in ext / in the copies */
    mpz_t p, phi_inv;
    uint64_t *gw_pow; /* gamma^t R mod p for get_words (get_words.c) */
    mns_pmns_mul_fn mul;
    mns_pmns_sqr_fn sqr;
    mns_pmns_redc_fn redc;
    const char *kernel;
};

/* Generic C kernels (any word kind). */
void mns_pmns_mul_generic(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_pmns_sqr_generic(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a);
void mns_pmns_redc_generic(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a);
/* V has n signed 128-bit coefficients (the conversion's radix sum);
 * r <- RedCoeff(V). Requires |V_i| < 2^126 and the output bound the caller
 * checked. */
void mns_pmns_redc_wide_generic(const mns_pmns_ctx *c, uint64_t *r, const __int128 *v);

/* U52: c->zsub and c->zmax, the zero polynomial sub adds (zsub.c).
 * MNS_OK, MNS_ENOTSUP (none below 2^52) or MNS_ENOMEM. */
mns_status mns_pmns_make_zsub(mns_pmns_ctx *c);

/* set_words of backend.h (words.c): r <- the tight element of the
 * mpz_size(p)-word value a < 2^bits(p), constant time. */
void mns_pmns_set_words(const void *ctx, uint64_t *r, const uint64_t *a);

/* AVX-512 IFMA kernels (U52 only); compiled with target attributes, call
 * only when mns_cpu_has_ifma(). */
void mns_pmns_mul_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
void mns_pmns_sqr_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a);
void mns_pmns_redc_ifma(const mns_pmns_ctx *c, uint64_t *r, const uint64_t *a);
/* After mns_pmns_ifma_prepare: for n <= 64 and E = X^n - lambda (lambda > 0)
 * installs the register-only kernels as c->mul / c->sqr and returns 1;
 * otherwise leaves c alone and returns 0. */
int mns_pmns_ifma_pick_small(mns_pmns_ctx *c);
/* Builds the ctx arrays the IFMA kernels read. MNS_OK or MNS_ENOMEM. */
mns_status mns_pmns_ifma_prepare(mns_pmns_ctx *c);

/* Largest n the kernels' scratch is sized for. */
#define MNS_PMNS_ARITH_N_MAX 1024
/* The kernels' per-call scratch is on the stack, sized for this n (18 KiB
 * for the portable kernel): n = 256 covers 8192-bit u52 sets; a larger set
 * is refused when the context is made. */
#define MNS_PMNS_SCRATCH_N_MAX 256

#endif
