/* The AVX-512 IFMA kernel of the sum of residues (sor.h): k = 52, 8 channels
 * per zmm vector, elements padded to npad = 8 ceil(N / 8) words.
 *
 * Steps 1-2 and the sums of alpha and kappa^ are vectors (kappa^ from the
 * a^_i in 52-bit limbs, ahat52); steps 3, 5
 * and 6 are one (N + 3)-row matrix-vector product with lo/hi accumulators
 * per target vector (N + 3 <= 255 terms of 52 bits: both stay below 2^60, as
 * red52 needs). The matrix product is the shared matvec of ifma52.h, which
 * keeps 8 or more accumulation chains in flight. */
#include "rns/rns.h"
#include "rns/sor.h"
#include "rns/word.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include "rns/ifma52.h"

/* Target vectors v0 .. v0 + VB - 1 of r. */
MNS_IFMA static inline __attribute__((always_inline)) void
sor_block(const mns_sor *s, const uint64_t *x, size_t v0, int VB, uint64_t *r)
{
    __m512i lo[MNS_RNS_IFMA_VB], hi[MNS_RNS_IFMA_VB];
    for (int v = 0; v < VB; v++)
        lo[v] = hi[v] = _mm512_setzero_si512();
    matvec(x, s->N + 3, s->tab + 8 * v0, s->npad, VB, lo, hi);
    for (int v = 0; v < VB; v++) {
        size_t j = 8 * (v0 + (size_t)v);
        ST(r + j, red52(lo[v], hi[v], LD(s->c + j), LD(s->m + j)));
    }
}

MNS_IFMA void mns_sor_mul_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    const size_t N = s->N, np = s->npad;
    _Alignas(64) uint64_t x[MNS_SOR_NMAX + 8];

    /* steps 1-2 (padding lanes: minv = 0, so gamma = 0); all reads of a, b.
     * Step 4 in the same pass: with a^_i = a0 + a1 2^52, the sums
     * L0 = sum lo(gamma a0), H0 = sum hi(gamma a0), L1 = sum lo(gamma a1),
     * H1 = sum hi(gamma a1) give U = L0 + (H0 + L1) 2^52 + H1 2^104 + alpha b^,
     * the same U as mns_sor_alpha_kappa (at most 240 terms of 52 bits per
     * sum: each below 2^60). */
    const __m512i z = _mm512_setzero_si512();
    __m512i G = z, L0 = z, H0 = z, L1 = z, H1 = z;
    for (size_t i = 0; i < np; i += 8) {
        __m512i m = LD(s->m + i), c = LD(s->c + i);
        __m512i g = mulmod52(mulmod52(LD(a + i), LD(b + i), c, m), LD(s->minv + i), c, m);
        __m512i a0 = LD(s->ahat52 + i), a1 = LD(s->ahat52 + np + i);
        ST(x + i, g);
        G = _mm512_add_epi64(G, g);
        L0 = _mm512_madd52lo_epu64(L0, g, a0);
        H0 = _mm512_madd52hi_epu64(H0, g, a0);
        L1 = _mm512_madd52lo_epu64(L1, g, a1);
        H1 = _mm512_madd52hi_epu64(H1, g, a1);
    }
    const uint64_t alpha = ((uint64_t)_mm512_reduce_add_epi64(G) + s->o) >> 52; /* eq. (13) */
    const uint64_t *bh = s->ahat + 2 * N;
    mns_u128 X = (mns_u128)(uint64_t)_mm512_reduce_add_epi64(L0) +
                 ((mns_u128)((uint64_t)_mm512_reduce_add_epi64(H0) +
                             (uint64_t)_mm512_reduce_add_epi64(L1))
                  << 52) +
                 (mns_u128)alpha * bh[0] + ((mns_u128)(alpha * bh[1]) << 64);
    /* kappa^ = floor(U / 2^96); X < 2^114, and H1 2^104 is a multiple of 2^96 */
    mns_u128 kap = (X >> 96) + ((mns_u128)(uint64_t)_mm512_reduce_add_epi64(H1) << 8);
    x[N] = alpha;
    x[N + 1] = (uint64_t)kap & (((uint64_t)1 << 52) - 1);
    x[N + 2] = (uint64_t)(kap >> 52);
    /* the target vectors in blocks of at most MNS_RNS_IFMA_VB, as even as
     * possible (the blocking of the Montgomery RNS kernel) */
    const size_t V = np / 8, nb = (V + MNS_RNS_IFMA_VB - 1) / MNS_RNS_IFMA_VB;
    for (size_t blk = 0, v0 = 0; blk < nb; blk++) {
        size_t vb = V / nb + (blk < V % nb);
        switch (vb) {
        case 6: sor_block(s, x, v0, 6, r); break;
        case 5: sor_block(s, x, v0, 5, r); break;
        case 4: sor_block(s, x, v0, 4, r); break;
        case 3: sor_block(s, x, v0, 3, r); break;
        case 2: sor_block(s, x, v0, 2, r); break;
        default: sor_block(s, x, v0, 1, r); break;
        }
        v0 += vb;
    }
}

MNS_IFMA void mns_sor_add_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    mns_ifma52_add(r, a, b, s->m, s->npad);
}

MNS_IFMA void mns_sor_sub_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a,
                               const uint64_t *b)
{
    mns_ifma52_sub(r, a, b, s->twop, s->m, s->npad);
}

#else /* no IFMA kernels in this build: never selected */

void mns_sor_mul_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_sor_mul_generic(s, r, a, b);
}
void mns_sor_add_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_sor_add_generic(s, r, a, b);
}
void mns_sor_sub_ifma(const mns_sor *s, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    mns_sor_sub_generic(s, r, a, b);
}

#endif
