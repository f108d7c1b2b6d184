/* The portable kernel of the sum of residues (Algorithm 2 of the paper, in the
 * form of sor.h) on 64-bit words with unsigned __int128 products, k = 63 or
 * k = 52 (the IFMA bases, so both kernels can be compared on one base).
 *
 * Steps 1-2 are two channel products per channel; step 4 (alpha, kappa) is
 * mns_sor_alpha_kappa; steps 3, 5 and 6 are one (N + 3) x N matrix-vector
 * product: the coefficients (gamma_1..gamma_N, alpha, kappa0) against rows of
 * the table, kappa1 against the last row as the accumulator's start. */
#include <string.h>

#include "rns/sor.h"
#include "rns/word.h"

void mns_sor_mul_generic(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const size_t N = s->N, np = s->npad;
    const unsigned k = s->k;
    uint64_t x[MNS_SOR_NMAX + 2], k1[MNS_RNS_GW];

    /* steps 1-2: every read of a and b happens here, before r is written */
    for (size_t i = 0; i < N; i++)
        x[i] = mns_rns_mulmod(mns_rns_mulmod(a[i], b[i], s->c[i], s->m[i], k), s->minv[i],
                              s->c[i], s->m[i], k);
    uint64_t kappa1;
    mns_sor_alpha_kappa(s, x, &x[N], &x[N + 1], &kappa1);
    for (size_t w = 0; w < MNS_RNS_GW; w++)
        k1[w] = kappa1;
    const uint64_t *last = s->tab + (N + 2) * np;
    for (size_t j = 0; j < N; j += MNS_RNS_GW) {
        size_t W = N - j < MNS_RNS_GW ? N - j : MNS_RNS_GW;
        mns_rns_matvec_block(x, N + 2, s->tab, np, j, W, k1, last + j, s->m + j, s->c + j, k,
                             r + j);
    }
    if (np > N)
        memset(r + N, 0, (np - N) * sizeof(uint64_t));
}

void mns_sor_add_generic(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    for (size_t i = 0; i < s->npad; i++)
        r[i] = mns_rns_addmod(a[i], b[i], s->m[i]);
}

void mns_sor_sub_generic(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    for (size_t i = 0; i < s->npad; i++)
        r[i] = mns_rns_submod(mns_rns_addmod(a[i], s->twop[i], s->m[i]), b[i], s->m[i]);
}
