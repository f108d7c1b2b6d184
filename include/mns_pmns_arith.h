/* mns_pmns_arith.h — arithmetic in a single-precision PMNS (s = 1), for users
 * who want the polynomial representation directly (src/pmns/).
 *
 * A context is built from a parameter set of mns_pmns.h (generated or read)
 * and is immutable afterwards: it may be shared between threads.
 *
 * REPRESENTATION
 *   An element x of Z/pZ is a polynomial A = a_0 + a_1 X + ... + a_{n-1}
 *   X^{n-1}, stored as n uint64_t words (mns_pmns_ctx_words), with
 *       A(gamma) = x * phi (mod p)
 *   (the Montgomery domain of Algorithm 3: A*B*phi^-1 represents x*y).
 *     word s64 (phi = 2^64): a_i is int64 two's complement.
 *     word u52 (phi = 2^52): a_i is unsigned.
 *
 * INVARIANTS
 *   tight:  s64: |a_i| <= rho - 1;   u52: 0 <= a_i <= rho - 1.
 *           from_mpz, mul, sqr, reduce, one and redcoeff return tight
 *           elements.
 *   loose:  what add and sub return. mul and sqr accept any operand whose
 *           coefficients satisfy |a_i| <= mns_pmns_ctx_kmax(ctx) (s64) or
 *           0 <= a_i <= kmax (u52); kmax >= (delta+1)(rho-1) follows from the
 *           exact Montgomery closure inequality of the set. In element terms:
 *           a sum or difference of at most mns_pmns_ctx_delta(ctx) + 1 tight
 *           elements is always accepted.
 *             s64: add and sub are plain coefficient additions; the
 *                  context's delta is the largest d with (d+1)(rho-1) <=
 *                  kmax (at least the set's delta): what the bound gives
 *                  for free.
 *             u52: coefficients may not go negative, so sub adds a fixed
 *                  polynomial Z with Z(gamma) = 0 (mod p) and
 *                  rho-1 <= z_i <= zmax (zmax is found by a lattice search
 *                  at context creation, typically (1.02-1.15)(rho-1)). An
 *                  operand t_0 +- t_1 ... +- t_d of tight t_k with j
 *                  subtractions has coefficients <= (d+1-j)(rho-1) + j zmax
 *                  <= (rho-1) + d zmax; the context's delta is the largest
 *                  d with (rho-1) + d zmax <= kmax (it may be smaller than
 *                  the set's delta; 0 means: reduce before mul). neg(t) =
 *                  Z - t counts as one of the d subtractions: at most d
 *                  terms of d+1 may be subtracted or negated.
 *           sub(a, b) needs b tight (s64: b loose also works).
 *   reduce: accepts any words (s64: |a_i| < 2^63; u52: any uint64) and
 *           returns a tight element of the same value.
 *   Elements with coefficients beyond these bounds give wrong results, not
 *   crashes: the arithmetic never branches on data.
 *
 * CONSTANT TIME: mul, sqr, add, sub, neg, reduce, redcoeff (no branch or
 * memory index depends on the coefficients). from_mpz / to_mpz are variable
 * time (_var).
 *
 * Output may alias any input everywhere.
 */
#ifndef MNS_PMNS_ARITH_H
#define MNS_PMNS_ARITH_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"
#include "mns_pmns.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mns_pmns_ctx mns_pmns_ctx;

/* Kernel choice for mns_pmns_ctx_new. */
#define MNS_PMNS_KERNEL_AUTO 0    /* IFMA for u52 sets on an IFMA CPU (and not
                                     MNS_CPU=generic), else generic C */
#define MNS_PMNS_KERNEL_GENERIC 1 /* portable C, any set */
#define MNS_PMNS_KERNEL_IFMA 2    /* AVX-512 IFMA; u52 sets only; MNS_ENOTSUP
                                     without IFMA or under MNS_CPU=generic */

/* Builds a context for P (s = 1 only; MNS_ENOTSUP otherwise). The context
 * borrows P: keep P alive until mns_pmns_ctx_free. MNS_EINVAL for NULL or an
 * unknown kernel, MNS_ENOTSUP for a set or CPU the kernels cannot serve,
 * MNS_ENOMEM. Variable time (public data). */
MNS_API mns_status mns_pmns_ctx_new_var(mns_pmns_ctx **out, const mns_pmns_params *P, int kernel);
MNS_API void mns_pmns_ctx_free(mns_pmns_ctx *ctx);

MNS_API const mns_pmns_params *mns_pmns_ctx_params(const mns_pmns_ctx *ctx);
/* uint64_t words per element (= n). */
MNS_API size_t mns_pmns_ctx_words(const mns_pmns_ctx *ctx);
/* Additions/subtractions of tight elements allowed before a mul (above). */
MNS_API int mns_pmns_ctx_delta(const mns_pmns_ctx *ctx);
/* The loose coefficient bound of mul/sqr operands (above). */
MNS_API uint64_t mns_pmns_ctx_kmax(const mns_pmns_ctx *ctx);
/* "generic" or "ifma". */
MNS_API const char *mns_pmns_ctx_kernel(const mns_pmns_ctx *ctx);

/* r <- a tight representation of a * phi mod p (any a, any sign). */
MNS_API mns_status mns_pmns_from_mpz_var(const mns_pmns_ctx *ctx, uint64_t *r, const mpz_t a);
/* r <- A(gamma) phi^-1 mod p in [0, p), for any tight or loose A. */
MNS_API void mns_pmns_to_mpz_var(const mns_pmns_ctx *ctx, mpz_t r, const uint64_t *a);

/* r <- A B phi^-1 mod E, RedCoeff'ed (Algorithm 3): represents x*y; tight. */
MNS_API void mns_pmns_mul(const mns_pmns_ctx *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
/* r <- A^2, as mul(a, a) but with the symmetric-product scheme. */
MNS_API void mns_pmns_sqr(const mns_pmns_ctx *ctx, uint64_t *r, const uint64_t *a);
/* Coefficient-wise; loose results (see INVARIANTS). */
MNS_API void mns_pmns_add(const mns_pmns_ctx *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
MNS_API void mns_pmns_sub(const mns_pmns_ctx *ctx, uint64_t *r, const uint64_t *a, const uint64_t *b);
/* r <- -a (s64: coefficient negation; u52: Z - a, a tight). Loose. */
MNS_API void mns_pmns_neg(const mns_pmns_ctx *ctx, uint64_t *r, const uint64_t *a);
/* r <- a tight element equal to a. */
MNS_API void mns_pmns_reduce(const mns_pmns_ctx *ctx, uint64_t *r, const uint64_t *a);
/* r <- RedCoeff(A) (Algorithm 2 on single-word coefficients): represents
 * x * phi^-1; tight for any input accepted by reduce. */
MNS_API void mns_pmns_redcoeff(const mns_pmns_ctx *ctx, uint64_t *r, const uint64_t *a);
/* r <- the tight representation of 1 (phi mod p). */
MNS_API void mns_pmns_one(const mns_pmns_ctx *ctx, uint64_t *r);

#ifdef __cplusplus
}
#endif

#endif /* MNS_PMNS_ARITH_H */
