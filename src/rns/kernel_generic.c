/* The portable kernel: Algorithm 1 in the fused form of rns.h, on 64-bit
 * words with unsigned __int128 products, for any e in [48, 63].
 *
 * The matrix-vector products walk the matrices row by row (the layout the
 * IFMA kernel wants) and update MNS_RNS_GW targets at a time, so each row
 * segment is read contiguously and the accumulators stay in registers. An
 * accumulator is a 128-bit sum plus a count of its wrap-arounds: products are
 * below 2^(2e) <= 2^126 and at most n + 1 <= 241 of them are added. */
#include <string.h>

#include "rns/rns.h"
#include "rns/word.h"

#define MNS_RNS_GW 4

/* r[j0 + w] <- (init[w] + sum_i x[i] A[i * stride + j0 + w]) mod m[j0 + w],
 * for w < W; init is a 128-bit value per target, given as a product. */
static inline void matvec_block(const mns_rns *c, const uint64_t *x, size_t rows,
                                const uint64_t *A, size_t stride, size_t j0, size_t W,
                                const uint64_t *ia, const uint64_t *ib, const uint64_t *m,
                                const uint64_t *cc, uint64_t *r)
{
    mns_u128 s[MNS_RNS_GW];
    uint64_t top[MNS_RNS_GW];
    for (size_t w = 0; w < W; w++) {
        s[w] = (mns_u128)ia[w] * ib[w];
        top[w] = 0;
    }
    for (size_t i = 0; i < rows; i++) {
        const uint64_t xi = x[i];
        const uint64_t *row = A + i * stride + j0;
#pragma GCC unroll 4
        for (size_t w = 0; w < W; w++) {
            mns_u128 pr = (mns_u128)xi * row[w];
            s[w] += pr;
            top[w] += s[w] < pr;
        }
    }
    for (size_t w = 0; w < W; w++)
        r[w] = mns_rns_red_acc(s[w], top[w], cc[w], m[w], c->e);
}

void mns_rns_mul_generic(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    const size_t n = c->n;
    const unsigned e = c->e;
    uint64_t s[MNS_RNS_NMAX], xip[MNS_RNS_NMAX], xi[MNS_RNS_NMAX], w[MNS_RNS_NMAX];
    const uint64_t *m = c->m, *cc = c->c, *mp = c->m + n, *cp = c->c + n;

    /* step 1 in both bases, step 2 and the first half of the extension in Bm':
     * every read of a and b happens here, before r is written */
    for (size_t i = 0; i < n; i++) {
        uint64_t sp = mns_rns_mulmod(a[n + i], b[n + i], cp[i], mp[i], e);
        xip[i] = mns_rns_mulmod(sp, c->c1[i], cp[i], mp[i], e);
        s[i] = mns_rns_mulmod(a[i], b[i], cc[i], m[i], e);
    }
    /* steps 3-6: w = (s + t^ p) / M' in Bm */
    for (size_t j = 0; j < n; j += MNS_RNS_GW) {
        size_t W = n - j < MNS_RNS_GW ? n - j : MNS_RNS_GW;
        matvec_block(c, xip, n, c->a1, c->npad, j, W, s + j, c->d + j, m + j, cc + j, w + j);
    }
    /* step 7, Kawamura: k from the fixed-point sum of xi_j / 2^e plus 1/2 */
    mns_u128 ksum = (mns_u128)1 << (e - 1);
    for (size_t j = 0; j < n; j++) {
        xi[j] = mns_rns_mulmod(w[j], c->minv[j], cc[j], m[j], e);
        ksum += xi[j];
    }
    uint64_t k[MNS_RNS_GW];
    for (size_t w2 = 0; w2 < MNS_RNS_GW; w2++)
        k[w2] = (uint64_t)(ksum >> e);
    const uint64_t *negM = c->negM;
    for (size_t i = 0; i < n; i += MNS_RNS_GW) {
        size_t W = n - i < MNS_RNS_GW ? n - i : MNS_RNS_GW;
        matvec_block(c, xi, n, c->a2, c->npad, i, W, k, negM + i, mp + i, cp + i, r + n + i);
    }
    memcpy(r, w, n * sizeof(uint64_t));
}

void mns_rns_add_generic(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    for (size_t i = 0; i < 2 * c->n; i++)
        r[i] = mns_rns_addmod(a[i], b[i], c->m[i]);
}

void mns_rns_sub_generic(const mns_rns *c, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    for (size_t i = 0; i < 2 * c->n; i++)
        r[i] = mns_rns_submod(mns_rns_addmod(a[i], c->taup[i], c->m[i]), b[i], c->m[i]);
}
