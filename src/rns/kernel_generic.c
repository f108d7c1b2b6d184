/* The portable kernel: Algorithm 1 in the fused form of rns.h, on 64-bit
 * words with unsigned __int128 products, for any e in [48, 63].
 *
 * The matrix-vector products are mns_rns_matvec_block (word.h), MNS_RNS_GW
 * targets at a time; at most n + 1 <= 241 products are added per target. */
#include <string.h>

#include "rns/rns.h"
#include "rns/word.h"

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
        mns_rns_matvec_block(xip, n, c->a1, c->npad, j, W, s + j, c->d + j, m + j, cc + j, e, w + j);
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
        mns_rns_matvec_block(xi, n, c->a2, c->npad, i, W, k, negM + i, mp + i, cp + i, e, r + n + i);
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
