/* mns_rns — Residue Number System arithmetic modulo a large p: Montgomery RNS
 * multiplication (Algorithm 1 of "PMNS vs RNS on SIMD", Bajard-Imbert first
 * base extension, Kawamura et al. second base extension), for users who want
 * the RNS parameters and kernels directly. The mns_field backends "rns" and
 * "rns-ifma" are thin wrappers around this header.
 *
 * Bases. Two bases of n moduli each, all pairwise coprime and prime to p:
 *   Bm  = {m_1 .. m_n},   M  = prod m_j,
 *   Bm' = {m'_1 .. m'_n}, M' = prod m'_i,
 * every modulus pseudo-Mersenne, m = 2^e - c with 0 < c, c^2 < 2^e (the
 * paper's c < 2^(e/2)), c odd. e = 63 for the portable kernel (64-bit words,
 * one spare bit for carries), e = 52 for the IFMA kernel (vpmadd52 operands),
 * where n is a multiple of 8 (one zmm vector holds 8 channels).
 *
 * Representation. An element is 2n uint64_t words: the residues of an integer
 * X modulo Bm (words 0..n-1) then modulo Bm' (words n..2n-1).
 *   Residue invariant: word i lies in [0, m_i). Every function below returns
 *   canonical residues and relies on them (the IFMA kernel reads only the low
 *   52 bits of each word).
 *   Montgomery form: x in Z/pZ is held as some X = x M' (mod p).
 *   Value bounds, with tau = n + 1 and L = (delta + 1) tau:
 *     tight: 0 <= X < tau p
 *     loose: 0 <= X < L p         (sums / differences of delta + 1 tight ones)
 *   mns_rns_mont_set returns X < p (tight); mul and reduce return X < tau p.
 *   Why tau = n + 1 and not 2: the first base extension is approximate
 *   (Bajard-Imbert): it yields t + alpha M', 0 <= alpha < n, instead of t, and
 *   the quotient (s + (t + alpha M') p) / M' then exceeds the exact one by
 *   alpha p. With inputs below L p and L^2 p <= M', the output is below
 *   p + n p = tau p (proof in docs/rns.md).
 *   delta is the largest value with (delta + 1)^2 tau^2 p <= M' and
 *   2 (delta + 1) tau p <= M, at least the delta_min asked for.
 *
 * Constant time: mul, add, sub, reduce and the word-size arithmetic under
 * them have no branch and no memory index that depends on the residues
 * (pseudo-Mersenne folding and masked corrections, no division). Context
 * creation and the mpz conversions are NOT constant time.
 *
 * A context is immutable after creation and may be shared by threads.
 */
#ifndef MNS_RNS_H
#define MNS_RNS_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest n per base: accumulators of n + 1 products of two e-bit residues
 * must not overflow (see docs/rns.md), and scratch is a fixed stack array. */
#define MNS_RNS_NMAX 240

typedef struct mns_rns mns_rns;

typedef enum {
    MNS_RNS_KERNEL_GENERIC = 0, /* portable C, any e in [48, 63] */
    MNS_RNS_KERNEL_IFMA = 1     /* AVX-512 IFMA, e = 52, n a multiple of 8 */
} mns_rns_kernel;

typedef struct mns_rns_params {
    unsigned e;            /* modulus width: m = 2^e - c; 52 or 63 usually */
    unsigned n;            /* channels per base; 0: the smallest that works */
    unsigned n_step;       /* n is a multiple of this (0 or 1: any; IFMA: 8) */
    int delta_min;         /* at least this many free additions (>= 0) */
    mns_rns_kernel kernel;
} mns_rns_params;

/* Builds the bases and every constant, checking each condition of the paper
 * and of the kernels (docs/rns.md lists them). MNS_EINVAL for bad parameters,
 * MNS_ENOTSUP if no base of at most MNS_RNS_NMAX moduli serves p or if the
 * kernel is not available on this CPU (or under MNS_CPU=generic). */
MNS_API mns_status mns_rns_new(mns_rns **r, const mpz_t p, const mns_rns_params *prm);
MNS_API void mns_rns_free(mns_rns *r);

MNS_API size_t mns_rns_n(const mns_rns *r);          /* channels per base */
MNS_API unsigned mns_rns_e(const mns_rns *r);
MNS_API int mns_rns_delta(const mns_rns *r);
MNS_API size_t mns_rns_limbs(const mns_rns *r);      /* 2n */
MNS_API const char *mns_rns_kernel_name(const mns_rns *r);
/* The moduli in element order: m_1..m_n then m'_1..m'_n (2n words). */
MNS_API const uint64_t *mns_rns_moduli(const mns_rns *r);
/* M (base 0) or M' (base 1). */
MNS_API void mns_rns_base_product(const mns_rns *r, mpz_t out, int base);
/* Re-checks every condition on the context (pairwise coprimality, c bounds,
 * (n+2)^2 p < M and < M', the Montgomery and Kawamura bounds for delta).
 * MNS_OK, or MNS_ERANGE with mns_last_error() naming the failed condition. */
MNS_API mns_status mns_rns_check(const mns_rns *r);

/* ---- conversions (not constant time) ------------------------------------ */

/* x <- the residues of a in both bases, for any integer a (negative or larger
 * than M M' included: each residue is a mod m, in [0, m)). */
MNS_API void mns_rns_from_mpz(const mns_rns *r, uint64_t *x, const mpz_t a);
/* out <- X from its residues in one base (0: Bm, 1: Bm'), by the CRT with
 * Kawamura's approximation of k: exact when X < M_base / 2 (otherwise the
 * result may be off by M_base). */
MNS_API void mns_rns_to_mpz_crt(const mns_rns *r, mpz_t out, const uint64_t *x, int base);
/* out <- X in [0, M_base) from its residues in one base, by mixed radix
 * conversion (exact for every residue vector). */
MNS_API void mns_rns_to_mpz_mrs(const mns_rns *r, mpz_t out, const uint64_t *x, int base);

/* Montgomery form: x <- residues of (a M' mod p), any a; out <- X M'^-1 mod p
 * in [0, p) for a tight or loose x. */
MNS_API void mns_rns_mont_set(const mns_rns *r, uint64_t *x, const mpz_t a);
MNS_API void mns_rns_mont_get(const mns_rns *r, mpz_t out, const uint64_t *x);

/* ---- base extensions (standalone, portable; the kernels fuse them) ------- */

/* Bajard-Imbert: from residues t' of t in Bm' (n words), out <- the residues in
 * Bm (n words) of t + alpha M' for some 0 <= alpha < n. Constant time. */
MNS_API void mns_rns_bext_approx(const mns_rns *r, uint64_t *out, const uint64_t *t);
/* Kawamura et al.: from residues of X in Bm (n words), X < M / 2, out <- the
 * residues of X in Bm' (n words), exact. Constant time. */
MNS_API void mns_rns_bext_exact(const mns_rns *r, uint64_t *out, const uint64_t *x);

/* ---- arithmetic (constant time; r may alias a or b) ---------------------- */

/* r <- a b M'^-1 mod p, Algorithm 1: a, b loose, r tight. */
MNS_API void mns_rns_mul(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
/* r <- a + b residue-wise (value bounds add up). */
MNS_API void mns_rns_add(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
/* r <- a - b + tau p residue-wise: b must be tight; the value stays >= 0 and
 * grows by less than tau p. */
MNS_API void mns_rns_sub(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
/* r <- a tight (one Montgomery multiplication by M' mod p). */
MNS_API void mns_rns_reduce(const mns_rns *c, uint64_t *r, const uint64_t *a);
/* r <- the tight representation of 1 (M' mod p). */
MNS_API void mns_rns_one(const mns_rns *c, uint64_t *r);

#ifdef __cplusplus
}
#endif

#endif /* MNS_RNS_H */
