/* The CRT exit shared by the RNS backends' get_words (words.c, sor_words.c):
 * from the xi_j = x_j (M / m_j)^-1 mod m_j of a value X = sum_j xi_j M_j -
 * k M, the canonical X mod p, without the M_j (n products by M / m_j would
 * cost n^2 word products each):
 *   A_j = A_{j-1} m_j + xi_j P_{j-1}, P_j = P_{j-1} m_j, A_0 = xi_0, P_0 = m_0,
 * ends with A = sum_j xi_j M_j and P = M; then A - k P and mpn_sec_div_r by
 * p. Every step is mpn_mul_1 / mpn_addmul_1 / mpn_submul_1 on lengths fixed
 * by n and wn (GMP's mpn_sec_* functions are built on these: no branch on
 * the values), so the exit is constant time in the xi and p. */
#ifndef MNS_RNS_CRT_SUM_H
#define MNS_RNS_CRT_SUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <gmp.h>

/* r (pn words) <- (sum_j xi_j M_j - k M) mod p. A, P: wn words each, with
 * M < 2^(64 (wn - 1)) and the sum below 2^(64 wn); tp: the scratch of
 * mpn_sec_div_r(wn, pn). A and P are wiped. */
static inline void mns_rns_crt_sum(uint64_t *r, const uint64_t *xi, const uint64_t *m, size_t n,
                                   mp_limb_t k, const mp_limb_t *p, size_t pn, mp_limb_t *A,
                                   mp_limb_t *P, size_t wn, mp_limb_t *tp)
{
    memset(A, 0, wn * sizeof(mp_limb_t));
    memset(P, 0, wn * sizeof(mp_limb_t));
    A[0] = xi[0];
    P[0] = m[0];
    for (size_t j = 1; j < n; j++) {
        /* A and P are below 2^(e j) <= 2^(64 (wn - 1)): the carries land in
         * the top word and are 0 there */
        mpn_mul_1(A, A, (mp_size_t)wn, m[j]);
        mpn_addmul_1(A, P, (mp_size_t)wn, xi[j]);
        mpn_mul_1(P, P, (mp_size_t)wn, m[j]);
    }
    mpn_submul_1(A, P, (mp_size_t)wn, k); /* A - k M = X, no borrow */
    mpn_sec_div_r(A, (mp_size_t)wn, p, (mp_size_t)pn, tp);
    memcpy(r, A, pn * sizeof(uint64_t));
    explicit_bzero(A, wn * sizeof(mp_limb_t)); /* X is the secret result */
    explicit_bzero(P, wn * sizeof(mp_limb_t));
}

#endif
