/* mns_pmns_mp.h — multi-precision PMNS ("reduced coefficients", polynomial
 * Montgomery CIOS, Toeplitz products): the backends "pmns-mp" and
 * "pmns-mp-ifma" of mns_field, and direct access for users who want the
 * representation (paper pmns-multiprecision-cios.txt, Algorithm 3).
 *
 * Through mns_field: "pmns-mp" (signed 64-bit words, portable kernel) and
 * "pmns-mp-ifma" (unsigned 52-bit words, AVX-512 IFMA kernel; MNS_ENOTSUP
 * without IFMA or under MNS_CPU=generic). Options:
 *   s=S       words per coefficient (default: the generator's automatic s)
 *   n=N       coefficients (default: automatic)
 *   delta=D   free additions before a multiplication (default 1)
 *   base=B    Toeplitz leaf size limit (default: measured, see docs/pmns-mp.md)
 *   word=u52  pmns-mp only: run the IFMA parameter shape on the portable
 *             kernel (to compare both kernels on one set)
 *
 * REPRESENTATION: an element is s*n uint64_t words, e[j*n + i] the j-th k-bit
 * digit of coefficient i: a_i = sum_j (int64_t)e[j*n+i] 2^(k j), and the
 * element means A(gamma) phi^-1 mod p (Montgomery domain; conversions handle
 * it). Invariants:
 *   tight (set_mpz, mul, sqr, reduce, one):
 *     s64: digits 0..s-2 in [0, 2^k), digit s-1 signed, |a_i| <= B_i, a
 *          per-coefficient bound below rho (about N_i / 2, N_i the column
 *          sums of the reduction matrix) proven at creation for the delta
 *          asked: every product of loose operands lands in it again;
 *     u52: all digits >= 0, digits 0..s-2 < 2^k, 0 <= a_i < rho.
 *   loose (results of add/sub on tight elements; accepted by mul, sqr, reduce):
 *     s64: digit-wise sums/differences of at most delta+1 tight elements
 *          (|a_i| <= (delta+1) B_i);
 *     u52: sums, and a - b = a + Z - b with Z a fixed representation of 0
 *          whose digits dominate those of any tight b: the subtrahend of sub
 *          must be tight (the result of set_mpz/mul/sqr/reduce), the minuend
 *          may be loose; at most delta additions/subtractions in all.
 *   add/sub never propagate carries; mul/sqr/reduce return tight elements.
 * Constant time: mul, sqr, add, sub, reduce. set_mpz/get_mpz/new are not.
 */
#ifndef MNS_PMNS_MP_H
#define MNS_PMNS_MP_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "mns.h"
#include "mns_pmns.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mns_pmns_mp_ctx mns_pmns_mp;

typedef enum {
    MNS_PMNS_MP_KERNEL_AUTO = 0,    /* IFMA for u52 sets when available */
    MNS_PMNS_MP_KERNEL_GENERIC = 1, /* portable C, 64-bit words */
    MNS_PMNS_MP_KERNEL_IFMA = 2,    /* AVX-512 IFMA (u52 sets only) */
    MNS_PMNS_MP_KERNEL_FMA = 3      /* AVX2 + FMA, double-precision products (u52 sets,
                                     * unsplit, s = 2..4, n <= 48) */
} mns_pmns_mp_kernel;

/* A context for the prime p: generates the parameter set (mns_pmns_generate_var
 * with s > 1 unless s == 1 is asked) and checks every kernel bound. s, n: 0 =
 * automatic. word: MNS_PMNS_WORD_S64 or _U52. base: Toeplitz leaf size limit,
 * 0 = default. MNS_ENOTSUP if no set passes or the kernel is unavailable. */
MNS_API mns_status mns_pmns_mp_new_var(mns_pmns_mp **out, const mpz_t p, mns_pmns_word word,
                                       int s, int n, int delta, int base,
                                       mns_pmns_mp_kernel kernel);
MNS_API void mns_pmns_mp_free(mns_pmns_mp *c);
MNS_API const mns_pmns_params *mns_pmns_mp_params(const mns_pmns_mp *c);
MNS_API size_t mns_pmns_mp_limbs(const mns_pmns_mp *c);
/* "pmns-mp kernel=generic word=s64 n=13 s=3 k=56 ... toeplitz=2x2/b3" */
MNS_API const char *mns_pmns_mp_describe(const mns_pmns_mp *c);
MNS_API mns_status mns_pmns_mp_set_mpz_var(const mns_pmns_mp *c, uint64_t *r, const mpz_t a);
MNS_API void mns_pmns_mp_get_mpz_var(const mns_pmns_mp *c, mpz_t r, const uint64_t *a);
MNS_API void mns_pmns_mp_mul(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
MNS_API void mns_pmns_mp_sqr(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a);
MNS_API void mns_pmns_mp_add(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
MNS_API void mns_pmns_mp_sub(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a, const uint64_t *b);
MNS_API void mns_pmns_mp_reduce(const mns_pmns_mp *c, uint64_t *r, const uint64_t *a);
/* Two independent products in one instruction stream: r0 <- a0 b0 in c0 and
 * r1 <- a1 b1 in c1 (RSA-CRT: two channels on one thread keep the IFMA units
 * busy while one product waits on its own latency). c0 and c1 may be the
 * same context or two of the same (n, s) (e.g. two primes of one size with
 * the same s= and n=); otherwise, and for the portable kernel, two ordinary
 * calls. Same contract as mul / sqr for each product (r_i may alias a_i or
 * b_i); constant time. */
MNS_API void mns_pmns_mp_mul_x2(const mns_pmns_mp *c0, const mns_pmns_mp *c1, uint64_t *r0,
                                const uint64_t *a0, const uint64_t *b0, uint64_t *r1,
                                const uint64_t *a1, const uint64_t *b1);
MNS_API void mns_pmns_mp_sqr_x2(const mns_pmns_mp *c0, const mns_pmns_mp *c1, uint64_t *r0,
                                const uint64_t *a0, uint64_t *r1, const uint64_t *a1);

#ifdef __cplusplus
}
#endif

#endif /* MNS_PMNS_MP_H */
