/* The constant-time entry and exit of the sum-of-residues backends
 * (set_words and get_words of backend.h), portable code for both bases.
 *
 * Entry: x_i = a mod m_i by Horner over the words, acc <- acc 2^64 + a_j,
 * with the folds of word.h for m_i = 2^k - c_i (no division, no branch);
 * a < p is a tight element (X < 2p, sor.h).
 *
 * Exit, for a tight X < 2p: gamma_i = x_i M_i^-1 mod m_i, and X =
 * sum gamma_i M_i - alpha M with alpha = floor((sum gamma_i + o) / 2^k),
 * exact because X < (1 - Delta) M (condition (R) of sor.h, the product's own
 * eq. (13)); mns_rns_crt_sum (crt_sum.h) builds the sum and reduces it
 * mod p on lengths fixed by N and k. */
#include <string.h>

#include "rns/crt_sum.h"
#include "rns/sor.h"
#include "rns/word.h"

#define SOR_WMAX ((63 * MNS_SOR_NMAX + 8 + 63) / 64 + 1)

void mns_sor_set_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_sor *s = ctx;
    const size_t pn = mpz_size(s->p), N = s->N;
    const unsigned k = s->k;
    uint64_t t64[MNS_SOR_NMAX];
    for (size_t i = 0; i < N; i++) {
        t64[i] = mns_rns_red_mid((mns_u128)1 << 64, s->c[i], s->m[i], k);
        r[i] = 0;
    }
    for (size_t j = pn; j-- > 0;)
        for (size_t i = 0; i < N; i++)
            /* r t64 + a_j < 2^(2k) + 2^64 <= 2^(2k + 8): red_acc's range */
            r[i] = mns_rns_red_acc((mns_u128)r[i] * t64[i] + a[j], 0, s->c[i], s->m[i], k);
    for (size_t i = N; i < s->npad; i++)
        r[i] = 0;
}

void mns_sor_get_words(const void *ctx, uint64_t *r, const uint64_t *a)
{
    const mns_sor *s = ctx;
    const size_t N = s->N, pn = mpz_size(s->p);
    const unsigned k = s->k;
    uint64_t gamma[MNS_SOR_NMAX];
    mns_u128 sg = s->o;
    for (size_t i = 0; i < N; i++) {
        gamma[i] = mns_rns_mulmod(a[i], s->minv[i], s->c[i], s->m[i], k);
        sg += gamma[i];
    }
    const mp_limb_t alpha = (mp_limb_t)(sg >> k);
    /* M < 2^(k N): wn words hold A (< N M + M) and P */
    const size_t wn = (k * N + 8 + 63) / 64 + 1;
    mp_limb_t A[SOR_WMAX], P[SOR_WMAX], tp[4 * SOR_WMAX + 16];
    mns_rns_crt_sum(r, gamma, s->m, N, alpha, mpz_limbs_read(s->p), pn, A, P, wn, tp);
    explicit_bzero(gamma, sizeof gamma);
}
